"""Golden transcripts: complete games checked in as text, replayed action by action.

A transcript file (tests/games/transcripts/*.txt)::

    # free comment lines
    game = quixo
    params = {"players": 2}
    result = 0 line            (winner index or "draw", then Outcome.reason)
    ---
    a1>e1                      (one action per line, in the game's notation)
    ...
    ---
    the final board, exactly as str(game) prints it (optional)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tavola.games import new_game

TRANSCRIPTS = sorted(Path(__file__).with_name("transcripts").glob("*.txt"))


def parse(path: Path) -> tuple[dict[str, str], list[str], str | None]:
    parts = path.read_text().split("\n---\n")
    header: dict[str, str] = {}
    for line in parts[0].splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            header[key.strip()] = value.strip()
    moves = [m.strip() for m in parts[1].splitlines() if m.strip() and not m.startswith("#")]
    board = parts[2].rstrip("\n") if len(parts) > 2 else None
    return header, moves, board


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_transcript_replays_to_its_result(path: Path) -> None:
    header, moves, board = parse(path)
    game = new_game(header["game"], **json.loads(header.get("params", "{}")))
    for ply, text in enumerate(moves, 1):
        assert game.outcome() is None, f"game ended before action {ply}"
        move = game.parse_move(text)
        assert move in game.legal_moves(), f"action {ply} {text!r} is not legal:\n{game}"
        game.apply(move)
        assert str(move) == text, "transcripts are written in canonical notation"
    outcome = game.outcome()
    assert outcome is not None, "the transcript does not finish the game"
    winner, _, reason = header["result"].partition(" ")
    assert outcome.winner == (None if winner == "draw" else int(winner))
    assert outcome.reason == reason
    if board is not None:
        assert str(game).rstrip("\n") == board
