"""What the session tells the players: the status in words, hints per policy, resigning in
team games, an undo typed while the board still shows the move."""

from __future__ import annotations

from typing import Any

import pytest

from tavola.clock import Clock, ClockSpec
from tavola.feedback import BLUE, WHITE
from tavola.games import Game, Outcome, new_game
from tavola.hardware.layout import Layout
from tavola.hints import HintSettings, answer
from tavola.record import ResultEntry, UndoEntry
from tavola.session import Session
from tests.positions import morris_moving_phase

MORRIS = Layout.for_game("morris")
DRAUGHTS = Layout.for_game("draughts")


def reading(game: Game[Any], **changes: str) -> dict[str, str]:
    cells = game.view("occupancy")
    cells.update(changes)
    return cells


def session(game: Game[Any], layout: Layout = MORRIS, **kw: Any) -> Session:
    return Session(game, layout, "occupancy", cells=layout.cells, **kw)


def play(game: Game[Any], *moves: str) -> None:
    for text in moves:
        game.apply(game.parse_move(text))


def lit(fx_frame: Any, layout: Layout, colour: Any) -> set[str]:
    return {c for c in layout.cells if fx_frame[layout.led_of(c)] == colour}


# ------------------------------------------------------------------ the status in words
def test_the_status_says_a_mill_asks_for_a_removal_and_which() -> None:
    game = new_game("morris")
    play(game, "a1", "g7", "a4", "b6")  # b6 d2 d6 f4 ... White's a1 a4 next to a7
    s = session(game)
    s.start(0.0, 0.0)
    s.on_snapshot(reading(game, a7="#"), 1.0, 1.0)  # White closes a1-a4-a7
    s.tick(1.5, 1.5)  # once it has settled
    assert s.status() == "morris: White formed a mill: remove a black man"


def test_a_man_in_a_mill_is_named_as_protected() -> None:
    game = new_game("morris")
    play(game, "a1", "g7", "a4", "g4", "d2", "g1")  # Black's g1-g4-g7 is a mill
    assert game.expectation() == "Black formed a mill: remove a white man"
    play(game, "xd2", "d2", "b6")
    play(game, "a7")  # White's mill: Black's men in the mill may not be taken
    assert game.expectation() == ("White formed a mill: remove a black man "
                                  "(not one in a mill)")


def test_the_status_says_the_capture_chain_must_go_on() -> None:
    game = new_game("draughts", variant="russian")
    play(game, "g3-f4", "d6-c5", "f4-g5", "f6xh4", "a3-b4", "c5xa3", "c3-b4", "a3xc5",
         "f2-g3")
    assert game.expectation() == "Black must capture: h4xf2"
    play(game, "h4xf2")
    s = session(game, DRAUGHTS)
    assert s.status() == "draughts: Black's capture chain must go on from f2 (f2xd4)"
    play(game, "f2xd4")
    assert game.expectation() == "White must capture: c5xe3" or "chain" not in (
        game.expectation())


def test_a_refused_move_is_explained_in_the_rules_words() -> None:
    game = new_game("draughts")
    play(game, "c3-d4", "f6-g5")
    s = session(game, DRAUGHTS, grace=0.5)
    s.start(0.0, 0.0)
    backward = reading(game, d4="", c3="#")  # White's man goes back: d4-c3
    s.on_snapshot(backward, 1.0, 1.0)
    fx = s.tick(2.0, 2.0)
    assert "illegal: d4-c3: a man moves forward only" in (fx.status or "")
    assert any("a man moves forward only" in line for line in fx.log)


def test_the_status_shows_the_clocks() -> None:
    spec = ClockSpec(mode="sudden-death", minutes=5)
    s = session(new_game("morris"), clock=Clock(spec, 2))
    s.start(0.0, 0.0)
    s.tick(600.0, 600.0)  # nobody at the board yet: no time goes
    assert s.status() == ("morris: White to move, White 5:00, Black 5:00, timing starts "
                          "with the first move")
    s.on_snapshot(reading(s.game, d2="#"), 600.0, 600.0)
    s.tick(601.1, 601.1)  # White's first move, confirmed: Black's clock starts
    s.tick(613.6, 613.6)
    assert s.status() == "morris: Black to move, White 5:00, Black 4:48"


def test_the_referee_can_start_the_clocks_before_the_first_move() -> None:
    s = session(new_game("morris"), clock=Clock(ClockSpec(mode="sudden-death", minutes=5), 2))
    s.start(0.0, 0.0)
    s.run_clock(True, 30.0, 30.0)  # "resume clocks": the round starts now
    s.tick(42.5, 42.5)
    assert s.status() == "morris: White to move, White 4:48, Black 5:00"


def test_a_per_move_limit_shows_what_is_left() -> None:
    s = session(new_game("morris"), clock=Clock(ClockSpec(mode="move", move_seconds=60), 2))
    s.start(0.0, 0.0)
    s.on_snapshot(reading(s.game, d2="#"), 0.0, 0.0)
    s.tick(1.1, 1.1)  # the first move, confirmed: Black's move limit runs
    s.tick(21.3, 21.3)
    assert s.status().endswith("move 0:40 left")


# ------------------------------------------------------------------ hints per policy
def lifted_morris(**kw: Any) -> tuple[Session, Any]:
    game = morris_moving_phase()
    s = session(game, **kw)
    s.start(0.0, 0.0)
    origin = str(game.legal_moves()[0])[:2]
    return s, s.on_snapshot(reading(game, **{origin: ""}), 1.0, 1.0)


def test_teaching_lights_the_legal_targets_white() -> None:
    s, fx = lifted_morris(policy="teaching")
    origin = str(s.game.legal_moves()[0])[:2]
    targets = {str(m)[3:] for m in s.game.legal_moves() if str(m).startswith(origin)}
    assert lit(fx.frame, MORRIS, WHITE) == targets and targets


def test_the_arbiter_shows_no_targets_and_no_hint_unless_the_referee_allows() -> None:
    s, fx = lifted_morris(policy="arbiter")
    assert lit(fx.frame, MORRIS, WHITE) == set()
    s.on_snapshot(reading(s.game), 2.0, 2.0)  # put back
    fx = s.command("hint", 3.0, 3.0)
    assert fx.searches == () and "unless the referee allows them" in fx.log[0]
    s.allow_hints(True, 3.5)
    assert s.command("hint", 4.0, 4.0).searches


def test_hints_off_means_neither_targets_nor_hint() -> None:
    s, fx = lifted_morris(policy="teaching", hints=False)
    assert lit(fx.frame, MORRIS, WHITE) == set()
    fx = s.command("hint", 3.0, 3.0)
    assert fx.log == ("Hints are off on this board ([game] hints = false).",)


def test_a_hint_goes_out_with_the_next_action() -> None:
    s = session(new_game("morris"), hinting=HintSettings(nodes=200, seconds=None))
    s.start(0.0, 0.0)
    fx = s.command("hint", 1.0, 1.0)
    fx = s.on_answer(answer(fx.searches[0]), 1.0, 1.0)
    hinted = lit(fx.frame, MORRIS, BLUE)
    assert len(hinted) == 1  # a placement
    elsewhere = next(c for c in MORRIS.cells if c not in hinted)
    fx = s.on_snapshot(reading(s.game, **{elsewhere: "#"}), 2.0, 2.0) + s.tick(2.5, 2.5)
    assert lit(fx.frame, MORRIS, BLUE) == set()


# ------------------------------------------------------------------ resigning, undo
@pytest.mark.parametrize(("name", "params", "resigner", "winners"), [
    ("quixo", {"players": 4}, 0, (1, 3)),
    ("quixo", {"players": 4}, 1, (0, 2)),
    ("sequence-kids", {"players": 4}, 0, (1, 3)),
    ("sequence-kids", {"players": 3}, 0, (1, 2)),
    ("morris", {}, 0, (1,)),
])
def test_resigning_names_the_winners(
    name: str, params: dict[str, Any], resigner: int, winners: tuple[int, ...]
) -> None:
    game = new_game(name, **params)
    while game.current_player != resigner:
        game.apply(game.legal_moves()[0])
    s = Session(game, Layout.for_game(name), "identity")
    fx = s.command("resign", 1.0, 1.0)
    outcome = game.outcome()
    assert isinstance(outcome, Outcome) and outcome.winners == winners
    assert outcome.reason == "resignation" and "Draw" not in fx.log[0]
    result = fx.journal[-1]
    assert isinstance(result, ResultEntry)
    assert result.score != "1/2-" * (game.num_players - 1) + "1/2"


def test_undo_while_the_board_still_shows_the_move_says_what_to_do() -> None:
    s = session(new_game("morris"))
    s.start(0.0, 0.0)
    s.on_snapshot(reading(s.game, d2="#"), 1.0, 1.0)
    s.tick(1.5, 1.5)
    fx = s.command("undo", 2.0, 2.0)
    assert fx.journal == () and [str(m) for m in s.game.history] == ["d2"]
    assert fx.log == ("The board still shows d2: take it back on the board (lift d2); "
                      "the takeback is read from it.",)
    # Lifted: the takeback, once it has stayed off long enough not to be a piece in a hand.
    fx = s.on_snapshot(reading(new_game("morris")), 3.0, 3.0) + s.tick(4.5, 4.5)
    assert [type(e) for e in fx.journal] == [UndoEntry] and not s.game.history


def test_undo_of_a_move_says_how_to_put_the_board_back() -> None:
    game = new_game("draughts")
    s = session(game, DRAUGHTS)
    s.start(0.0, 0.0)
    s.on_snapshot(reading(game, c3="", d4="#"), 1.0, 1.0)
    s.tick(2.0, 2.0)
    s.on_snapshot(reading(game, f6="", e5="#"), 3.0, 3.0)
    s.tick(4.0, 4.0)
    assert len(game.history) == 2
    fx = s.command("undo", 5.0, 5.0)  # the board shows f6-e5: it must be taken back there
    assert "take it back on the board (lift e5, put a piece back on f6)" in fx.log[0]


def test_an_ambiguous_placement_says_the_exact_command() -> None:
    game = new_game("sequence-kids", cards="declared", seed=1)
    layout = Layout.for_game("sequence-kids")
    cell = next(str(m).split("@")[1] for m in game.legal_moves()
                if "@" in str(m) and not str(m).startswith("unicorn"))
    animal = next(str(m).split("@")[0] for m in game.legal_moves()
                  if str(m).endswith("@" + cell) and not str(m).startswith("unicorn"))
    s = Session(game, layout, "occupancy", cells=layout.cells)
    s.start(0.0, 0.0)
    s.on_snapshot(reading(game, **{cell: "#"}), 1.0, 1.0)
    s.tick(1.5, 1.5)
    assert f"ambiguous: type play {animal}@{cell} or play unicorn@{cell}" in s.status()


def test_taking_a_protected_man_is_refused_with_the_rule() -> None:
    game = new_game("morris")
    play(game, "a1", "g7", "a4", "g4", "d2", "g1", "xd2", "d2", "b6", "a7")
    s = session(game, grace=0.5)
    s.start(0.0, 0.0)
    s.on_snapshot(reading(game, g4=""), 1.0, 1.0)  # a man of Black's mill
    status = s.tick(2.0, 2.0).status or ""
    assert status.startswith("morris: White formed a mill: remove a black man (not one in "
                             "a mill), board does not match: illegal: xg4: the black man on "
                             "g4 is in a mill and others are not: remove one of b6")
