"""The terminal player, driven by scripted input (the toy game of test_base)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from tavola.games import Outcome, Reason
from tavola.play import CLEAR, play
from tavola.record import describe
from tests.games.test_base import Race


def run(game: Race, lines: list[str]) -> tuple[Outcome | None, str]:
    feed: Iterator[str] = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    result = play(game, read, out.append)
    return result, "\n".join(out)


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


def test_saving_to_a_bad_path_says_so_and_keeps_the_game(tmp_path: Path) -> None:
    bad = tmp_path / "no-such-folder" / "g.json"
    result, out = run(Race(goal=3), ["+2", f"save {bad}", "+1", "?"])
    assert f"Cannot save to {bad}: No such file or directory; the game goes on" in out
    assert "1 legal: bank" in out.split("Cannot save")[1]  # the game went on
    assert result is None
