"""The terminal player, driven by scripted input (the toy game of test_base)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tavola.games import Outcome, Reason, new_game
from tavola.play import CLEAR, Opponent, play
from tavola.record import describe
from tests.games.test_base import Race


def run(game: Race, lines: list[str]) -> tuple[Outcome | None, str]:
    """Play ``game`` at the terminal, typing ``lines``: the outcome and everything shown."""
    result, out = _run_any(game, lines, None)
    return result, out


def test_a_game_to_the_end_with_an_illegal_move_and_an_undo(tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    result, out = run(Race(goal=3), ["?", "+2", "+1", "bank", "undo", "bank", "+1", "+1",
                                     f"save {save}", "quit"])
    assert "2 legal: +1 +2" in out
    assert "Illegal: +1: not a legal move in this position" in out
    assert "Took back bank." in out
    assert "White to move> " in out and "Black to move> " in out
    assert "Game over: Black wins (line)." in out
    assert result == Outcome(1, Reason.LINE)
    record = json.loads(save.read_text())
    assert record["moves"] == ["+2", "bank", "+1"]


def test_nonsense_is_not_understood_and_eof_leaves_quietly() -> None:
    result, out = run(Race(), ["jump", "help"])
    assert "Not understood: 'jump' is not +1, +2, bank or back" in out
    assert "undo          take back the last action" in out
    assert result is None


def test_hidden_information_hands_the_screen_on() -> None:
    class Secret(Race):
        hidden_information = True

        def private_text(self, player: int) -> str:
            return f"secret of {self.player_names[player]}"

    _, out = run(Secret(), ["", "+1", "", "quit"])
    assert out.count(CLEAR + "Pass the screen to") == 2
    first, second = out.index("secret of White"), out.index("secret of Black")
    assert first < out.index("Pass the screen to Black") < second


def test_describe_team_wins() -> None:
    game = Race()
    game.player_names = ("A1", "B1", "A2", "B2")
    assert describe(Outcome(0, Reason.LINE, (0, 2)), game.player_names) == "A1 and A2 win (line)"
    assert describe(Outcome(None, Reason.BLOCKED), game.player_names) == "Draw (blocked)"


def test_a_save_the_disk_refuses_keeps_the_earlier_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import os

    path = tmp_path / "g.json"
    run(Race(goal=5), ["+1", f"save {path}"])
    earlier = path.read_text()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    _, out = run(Race(goal=5), ["+2", f"save {path}"])
    assert f"Cannot save to {path}: No space left on device; the game goes on" in out
    assert path.read_text() == earlier  # was cut to nothing when the disk was full


def test_saving_to_a_bad_path_says_so_and_keeps_the_game(tmp_path: Path) -> None:
    bad = tmp_path / "no-such-folder" / "g.json"
    result, out = run(Race(goal=3), ["+2", f"save {bad}", "+1", "?"])
    assert f"Cannot save to {bad}: No such file or directory; the game goes on" in out
    assert "1 legal: bank" in out.split("Cannot save")[1]  # the game went on
    assert result is None


def _run_any(game: Any, lines: list[str], opponent: Opponent | None) -> tuple[Any, str]:
    feed: Iterator[str] = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    result = play(game, read, out.append, opponent=opponent)
    return result, "\n".join(out)


def test_the_computer_answers_and_hints_give_the_next_best() -> None:
    game = new_game("morris")
    opponent = Opponent(side=1, level="beginner", seed=1, hint_level="club")
    _, out = _run_any(game, ["d2", "hint", "hint", "hint", "hint", "quit"], opponent)
    assert "Black (computer, beginner) plays " in out
    hints = [line for line in out.splitlines() if line.startswith(("Hint:", "Second", "Third"))]
    assert len(hints) == 3 and len({h.split(":")[1] for h in hints}) == 3
    assert "No more hints this turn (3 shown)." in out
    assert len(game.history) == 2  # d2 and the computer's answer


def test_undo_against_the_computer_goes_back_to_ones_own_turn() -> None:
    game = new_game("morris")
    _, out = _run_any(game, ["d2", "undo", "quit"], Opponent(side=1, level="beginner"))
    assert "Took back d2, " in out
    assert game.history == ()


def test_a_game_the_engine_does_not_know_gets_no_hint() -> None:
    _, out = run(Race(), ["hint", "quit"])
    assert "No hint: no engine for game" in out
