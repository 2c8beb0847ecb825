"""The coach's decisions, without a session: when a hint is asked and given, reviews."""

from __future__ import annotations

from typing import Any

from tavola import ai
from tavola.ai import ScoredTurn
from tavola.board_help import BoardHelp
from tavola.coach import Coach
from tavola.games import Game, new_game
from tavola.hints import Answer, HintSettings
from tavola.record import HintEntry


def mill_threat() -> Game[Any]:
    game = new_game("morris")
    for text in ("a1", "b2", "a4", "b4"):
        game.apply(game.parse_move(text))
    return game


def coach(**kw: Any) -> Coach:
    settings = HintSettings(nodes=200, seconds=None, per_turn=kw.pop("per_turn", 2),
                            feedback=kw.pop("feedback", False), cell=kw.pop("cell", ""))
    kw.setdefault("policy", "teaching")
    kw.setdefault("hints", True)
    kw.setdefault("seat_pages", False)
    return Coach(settings, **kw)


def give(c: Coach, game: Game[Any], help: BoardHelp, text: str) -> HintEntry:
    search, = c.ask(game, help).searches
    c.forget(search)  # answered, as the session does
    turn = tuple(game.parse_move(t) for t in text.split())
    fx = c.answered(Answer(search, ScoredTurn(turn, 100, text)), game, help, 1.0, 1.0)
    entry, = fx.journal
    assert isinstance(entry, HintEntry)
    return entry


def test_a_hint_is_asked_once_then_the_next_best_up_to_the_limit() -> None:
    game, help = mill_threat(), BoardHelp()
    c = coach()
    search, = c.ask(game, help).searches
    assert (search.purpose, search.at, search.exclude) == ("hint", game.history, ())
    assert c.ask(game, help).log == ("Still looking for the hint.",)
    c.forget(search)
    assert give(c, game, help, "a7 xb2").rank == 1
    second, = c.ask(game, help).searches
    assert [tuple(map(str, t)) for t in second.exclude] == [("a7", "xb2")]
    c.forget(second)  # and given:
    assert give(c, game, help, "g7").rank == 2
    assert "No more hints this turn (at most 2" in c.ask(game, help).log[0]


def test_who_may_have_a_hint() -> None:
    game, help = mill_threat(), BoardHelp()
    assert "hints = false" in coach(hints=False).ask(game, help).log[0]
    arbiter = coach(policy="arbiter")
    assert "referee" in arbiter.ask(game, help).log[0] and not arbiter.allowed
    assert arbiter.allow(True, help) == "Hints allowed by the referee."
    assert arbiter.ask(game, help).searches
    assert coach().ask(game, help, busy="the computer plays").log == ("the computer plays",)
    hidden = new_game("sequence-kids", seed=7)
    assert "need the seat page" in coach().ask(hidden, help).log[0]
    assert coach(seat_pages=True).ask(hidden, help).searches


def test_the_hint_cell_asks_when_a_piece_is_put_down_on_it() -> None:
    game = mill_threat()
    c = coach(cell="z9")
    board = game.view("occupancy")
    asked = [c.asked_on_board(game, board, {**board, "z9": z9}, board, t)
             for t, z9 in ((1.0, ""), (2.0, "#"), (3.0, "#"), (4.0, ""), (5.0, "#"))]
    assert asked == [False, True, False, False, True]


def test_a_blunder_is_journaled_with_the_score_of_the_move_played() -> None:
    before, help = mill_threat(), BoardHelp()
    c = coach(feedback=True)
    game = before.copy()
    played = (game.parse_move("g7"),)
    game.apply(played[0])
    search, = c.review(before, played, game).searches
    best = ScoredTurn(tuple(before.parse_move(t) for t in ("a7", "xb2")), 180, "a7 xb2")
    fine = c.answered(Answer(search, best, ai.Verdict(150, best, 30, False, False)), game,
                      help, 1.0, 1.0)
    assert fine.journal == () and help.review is None
    fx = c.answered(Answer(search, best, ai.Verdict(-20, best, 200, True, False)), game,
                    help, 1.0, 1.0)
    entry, = fx.journal
    assert isinstance(entry, HintEntry)
    assert (entry.kind, entry.ply, entry.score, entry.played) == ("review", 4, 180, -20)
    assert help.review is not None and help.review.cells == {"g7"}
    assert help.review.text == "White lost 2.0 men; better was a7 xb2"
    assert coach().review(before, played, game).searches == ()  # feedback off
    assert coach(feedback=True, policy="arbiter").review(before, played, game).searches == ()
