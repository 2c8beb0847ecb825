"""The draughts record in PDN 3.0: GameType per variant, the result from White's side,
clock and referee comments, and a round trip through a real PDN reader (py-draughts, the
dev extra), which replays every move by its own rules."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tavola.export import export_record
from tavola.games import Outcome, Reason, new_game
from tavola.games.draughts import Draughts
from tavola.pdn import pdn_text
from tavola.record import (
    ActionEntry,
    ClockEntry,
    Entry,
    Record,
    RefereeEntry,
    ResultEntry,
    StartEntry,
    UndoEntry,
)

WALL = 1714573812.0  # 2024-05-01 14:30:12 UTC


def played(variant: str, seed: int, plies: int = 80) -> tuple[Draughts, Record]:
    """A game of random legal actions, journaled as the session does."""
    game = new_game("draughts", variant=variant)
    assert isinstance(game, Draughts)
    header = StartEntry.of(game, game_id=f"{variant}-{seed}", wall=WALL)
    rng = random.Random(seed)
    entries: list[Entry] = []
    while game.outcome() is None and len(game.history) < plies:
        moves = [m for m in game.legal_moves() if not str(m).startswith("stop")]
        move = rng.choice(moves)
        player = game.current_player
        game.apply(move)
        entries.append(ActionEntry(str(move), player, len(game.history), WALL, 0.0))
    return game, Record(header, tuple(entries))


def pieces_of_reader(board: Any) -> dict[str, str]:
    """py-draughts' position (its FEN: numbers of its SQUARE_NAMES) as our tokens."""
    fen = board.fen.split('"')[1] if '"' in board.fen else board.fen
    out: dict[str, str] = {}
    for part in fen.split(":")[1:]:
        colour, squares = part[0], part[1:]
        for item in filter(None, squares.split(",")):
            king = item.startswith("K")
            out[board.SQUARE_NAMES[int(item.lstrip("K")) - 1]] = colour + "K" * king
    return out


@pytest.mark.parametrize(("variant", "reader"), [
    ("russian", "RussianBoard"), ("brazilian", "BrazilianBoard")])
@pytest.mark.parametrize("seed", range(6))
def test_a_real_pdn_reader_replays_the_game_to_the_same_position(
        variant: str, reader: str, seed: int) -> None:
    draughts = pytest.importorskip("draughts")
    game, record = played(variant, seed)
    text = pdn_text(record)
    board = getattr(draughts, reader).from_pdn(text)  # raises on a move it finds illegal
    ours = {c: t for c, t in game.view().items() if t}
    assert pieces_of_reader(board) == ours
    assert len(game.history) > 20


def test_gametype_per_variant_and_the_german_string() -> None:
    tags = {variant: dict(re.findall(r'\[(\w+) "([^"]*)"\]', pdn_text(played(variant, 1)[1])))
            for variant in ("english", "russian", "brazilian", "german", "dame")}
    assert {v: t["GameType"] for v, t in tags.items()} == {
        "english": "21", "russian": "25", "brazilian": "26",
        "german": "25,W,8,8,A0,0", "dame": "25,W,8,8,A0,0"}
    assert tags["german"]["Variant"] == "German Dame"
    assert all(re.fullmatch(r"[0-9]+(,[WB],[0-9]+,[0-9]+,[ANS][0123](,[01])?)?",
                            t["GameType"]) for t in tags.values())  # the standard's form


def test_english_is_numbered_and_russian_captures_with_a_colon() -> None:
    english = pdn_text(played("english", 3)[1])
    assert re.search(r"\n1\. (9|10|11|12)-1[3-6] 2[1-4]-(1[7-9]|20) ", english)
    assert not re.search(r"\b[a-h][1-8]\b", english.split("\n\n")[1])
    russian = pdn_text(played("russian", 0)[1]).split("\n\n")[1]
    assert ":" in russian and "x" not in russian


def test_the_result_is_whites_score_first() -> None:
    for variant, black in (("english", 0), ("russian", 1)):
        game, record = played(variant, 2, plies=4)
        result = ResultEntry.of(Outcome(black, Reason.RESIGNATION, (black,)), 2,
                                wall=WALL, now=9.0)
        text = pdn_text(Record(record.header, (*record.entries, result)))
        assert '[Result "0-1"]' in text and text.rstrip().endswith("0-1"), variant
        assert f'[Black "{game.player_names[black]}"]' in text


def test_clock_times_and_the_referees_entries_are_comments() -> None:
    game = new_game("draughts", variant="russian")
    header = StartEntry.of(game, game_id="r", wall=WALL)
    clock = {"spec": {"mode": "fischer"}, "left": [298.4, 300.0]}
    entries: list[Entry] = [
        ActionEntry("c3-d4", 0, 1, WALL, 1.0, clock),
        ActionEntry("f6-g5", 1, 2, WALL, 2.0, {**clock, "left": [298.4, 295.0]}),
        RefereeEntry("correct to ply 1: b6-a5", "referee@10.0.0.2", "misread", WALL + 65, 3.0),
        UndoEntry("f6-g5", 1, WALL + 65, 3.0),
        ActionEntry("b6-a5", 1, 2, WALL + 65, 3.0, {**clock, "left": [298.4, 290.0]}),
        RefereeEntry("clock +30 s White", "referee@10.0.0.2", "", WALL + 70, 4.0),
        ClockEntry({**clock, "left": [328.4, 290.0]}, WALL + 70, 4.0),
    ]
    text = export_record(Record(header, tuple(entries)))
    assert text.startswith('[Event "?"]')  # a draughts record is PDN
    assert text.split("\n\n")[1].replace("\n", " ") == (
        "1. c3-d4 {[%clk 0:04:58]} b6-a5 {[%clk 0:04:50]} "
        "{Referee 14:31:17 UTC referee@10.0.0.2: correct to ply 1: b6-a5 (misread)} "
        "{Referee 14:31:22 UTC referee@10.0.0.2: clock +30 s White} * ")


def test_a_huff_is_a_comment_before_the_move() -> None:
    game = new_game("draughts")
    assert isinstance(game, Draughts)
    header = StartEntry.of(game, game_id="h", wall=WALL)
    texts = ["c3-d4", "f6-e5", "g3-h4"]  # White ignores d4xf6: Black may huff d4
    entries: list[Entry] = []
    for text in texts:
        player = game.current_player
        game.apply(game.parse_move(text))
        entries.append(ActionEntry(text, player, len(game.history), WALL, 0.0))
    huff = next(str(m) for m in game.legal_moves() if str(m).startswith("huff"))
    for text in (huff, "e5-f4"):
        player = game.current_player
        game.apply(game.parse_move(text))
        entries.append(ActionEntry(text, player, len(game.history), WALL, 0.0))
    body = pdn_text(Record(header, tuple(entries))).split("\n\n")[1]
    assert body.startswith(f"1. c3-d4 f6-e5 2. g3-h4 {{{huff}}} e5-f4 *")
