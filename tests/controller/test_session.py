"""The session: readings, commands and ticks in; journal entries, LED frames, status out."""

from __future__ import annotations

from typing import Any

import pytest

from tavola.clock import Clock, ClockSpec
from tavola.feedback import CYAN, DIM_RED, GOLD, GREEN, OFF, RED, WHITE
from tavola.games import Game, new_game
from tavola.hardware.layout import Layout
from tavola.record import ActionEntry, ClockEntry, IllegalEntry, UndoEntry
from tavola.session import Effects, Session, StartupError
from tests.positions import place_all_without_mills

MORRIS = Layout.for_game("morris")
FIVE = Layout.for_game("tessere")


def reading(game: Game[Any], capability: str = "occupancy", **changes: str) -> dict[str, str]:
    cells = game.view(capability)  # type: ignore[arg-type]
    cells.update(changes)
    return cells


def kinds(fx: Effects) -> list[str]:
    return [e.TYPE for e in fx.journal]


def colour(fx: Effects | Session, layout: Layout, cell: str, now: float = 0.0) -> Any:
    frame = fx.frame if isinstance(fx, Effects) else fx.frame(now)
    assert frame is not None
    return frame[layout.led_of(cell)]


def see(s: Session, cells: dict[str, str], now: float, wall: float | None = None) -> Effects:
    """A reading, then a tick once it has held long enough to be confirmed."""
    wall = now if wall is None else wall
    return s.on_snapshot(cells, now, wall) + s.tick(now + 1.1, wall + 1.1)


def morris_session(**kw: Any) -> Session:
    """Settle 0.25 s and grace 1.5 s, which the tests' times are written for."""
    game = new_game("morris")
    return Session(game, MORRIS, "occupancy", cells=MORRIS.cells,
                   **{"settle": 0.25, "grace": 1.5, **kw})


def test_an_accepted_placement_is_journaled_and_lit_green() -> None:
    s = morris_session()
    fx = s.start(0.0, 1000.0)
    assert fx.frame == (OFF,) * MORRIS.led_count and fx.status == "morris: White to move"
    fx = s.on_snapshot(reading(s.game, d2="#"), 0.1, 1000.1)
    assert fx.journal == ()  # a piece may rest on a cell on its way: wait for it to settle
    fx = s.tick(0.5, 1000.5)
    assert kinds(fx) == ["action"]
    entry = fx.journal[0]
    assert entry == ActionEntry("d2", 0, 1, 1000.5, 0.5)
    assert colour(fx, MORRIS, "d2") == GREEN
    assert fx.status == "morris: Black to move" and fx.log == ("White: d2",)


def test_a_session_resumed_after_a_restart_lights_the_last_action_again() -> None:
    game = new_game("morris")
    for text in ("d2", "a1", "d6"):
        game.apply(text)
    resumed = Session(game, MORRIS, "occupancy", cells=MORRIS.cells, settle=0.25, grace=1.5)
    fx = resumed.start(0.0, 1000.0)
    assert colour(fx, MORRIS, "d6") == GREEN  # White's last placement, as before the restart
    assert colour(fx, MORRIS, "d2") == OFF and colour(fx, MORRIS, "a1") == OFF
    fresh = morris_session().start(0.0, 1000.0)
    assert fresh.frame == (OFF,) * MORRIS.led_count  # a new game has no last move


def test_a_lifted_piece_shows_its_origin_and_targets() -> None:
    s = morris_session()
    place_all_without_mills(s.game)
    s.start(0.0, 0.0)
    legal = [str(m) for m in s.game.legal_moves()]
    origin = legal[0][:2]
    targets = {m[3:] for m in legal if m.startswith(origin)}
    fx = s.on_snapshot(reading(s.game, **{origin: ""}), 1.0, 1.0)
    assert fx.journal == ()
    assert colour(fx, MORRIS, origin) == CYAN
    assert {c for c in MORRIS.cells if colour(fx, MORRIS, c) == WHITE} == targets


def test_no_hints_when_switched_off() -> None:
    s = morris_session(hints=False)
    place_all_without_mills(s.game)
    origin = str(s.game.legal_moves()[0])[:2]
    fx = s.on_snapshot(reading(s.game, **{origin: ""}), 1.0, 1.0)
    assert WHITE not in (fx.frame or ())


def test_an_illegal_positions_reason_names_a_few_cells_and_counts_the_rest() -> None:
    # A camera pointed at another game reads a whole board wrong: the reason a person reads
    # names eight cells and counts the others; the entry's sensed cells keep them all.
    s = morris_session()
    s.start(0.0, 0.0)
    cells = ["a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3"]
    s.on_snapshot(reading(s.game, **dict.fromkeys(cells, "#")), 1.0, 1.0)
    fx = s.tick(4.0, 4.0)
    illegal = fx.journal[0]
    assert isinstance(illegal, IllegalEntry)
    assert illegal.reason.count("should be") == 8
    assert illegal.reason.endswith("and 4 more cells")
    assert sorted(illegal.sensed) == cells


def test_an_illegal_position_blinks_red_is_recorded_once_and_recovers() -> None:
    s = morris_session()
    s.start(0.0, 0.0)
    see(s, reading(s.game, d2="#"), 1.0)  # White d2
    bad = reading(s.game, a1="#", a4="#")  # Black places two men at once
    fx = s.on_snapshot(bad, 2.0, 2.0)
    assert fx.journal == () and RED not in (fx.frame or ())  # still inside the grace time
    assert not fx.resync
    fx = s.tick(4.0, 4.0)  # grace (1.5 s) over; blink phase on at 4.0
    assert kinds(fx) == ["illegal"]
    assert fx.resync  # the sensor is asked for a whole fresh reading, once
    illegal = fx.journal[0]
    assert isinstance(illegal, IllegalEntry)
    assert illegal.sensed == {"a1": "#", "a4": "#"} and illegal.player == 1
    assert "a1 should be empty, reads #" in illegal.reason
    assert colour(fx, MORRIS, "a1") == RED and colour(fx, MORRIS, "a4") == RED
    assert "board does not match" in (fx.status or "")
    assert colour(s, MORRIS, "a1", now=4.3) == OFF  # blinking
    again = s.tick(5.0, 5.0)
    assert again.journal == () and not again.resync  # recorded once
    fx = see(s, reading(s.game, a1="#"), 6.0)  # one man taken away: legal
    assert kinds(fx) == ["action"] and RED not in (fx.frame or ())
    assert [str(m) for m in s.game.history] == ["d2", "a1"]


def test_a_takeback_undoes_and_is_flagged_for_the_arbiter() -> None:
    s = morris_session(policy="arbiter", hints=False)
    see(s, reading(s.game, d2="#"), 1.0)
    see(s, reading(s.game, a1="#"), 3.0)
    see(s, reading(s.game, d6="#"), 5.0)
    fx = see(s, reading(s.game, a1="", d6=""), 7.0)  # White's and Black's man lifted
    assert kinds(fx) == ["undo", "undo"] and fx.journal[1] == UndoEntry("a1", 1, 8.1, 8.1)
    assert [str(m) for m in s.game.history] == ["d2"]
    assert fx.status == "morris: Black to move, flagged Black:1"


def test_the_last_movers_own_takeback_before_the_reply_is_a_correction() -> None:
    s = morris_session(policy="arbiter", hints=False)
    see(s, reading(s.game, d2="#"), 1.0)
    see(s, reading(s.game, a1="#"), 3.0)
    fx = see(s, reading(s.game, a1=""), 5.0)  # Black thinks again before White moved
    assert kinds(fx) == ["undo"] and fx.status == "morris: Black to move"


def test_teaching_takebacks_are_not_flagged() -> None:
    s = morris_session()
    see(s, reading(s.game, d2="#"), 1.0)
    fx = see(s, reading(s.game, d2=""), 3.0)
    assert kinds(fx) == ["undo"] and fx.status == "morris: White to move"


def test_a_lost_sensor_shows_dim_red_keeps_the_game_and_resyncs() -> None:
    s = morris_session()
    see(s, reading(s.game, d2="#"), 1.0)
    fx = s.on_fault("no answer from the board for 3 s", 2.5)
    assert fx.status == "board disconnected: no answer from the board for 3 s"
    assert colour(fx, MORRIS, "a1") == DIM_RED and colour(fx, MORRIS, "d2") == GREEN
    # Back, and Black moved meanwhile: the full reading is matched as usual.
    fx = see(s, reading(s.game, g7="#"), 3.0)
    assert kinds(fx) == ["action"] and fx.log[0].startswith("Board reconnected")
    assert DIM_RED not in (fx.frame or ())


def test_a_game_that_needs_identity_is_refused_on_an_occupancy_sensor() -> None:
    with pytest.raises(StartupError, match="quixo needs a sensor that tells pieces apart"):
        Session(new_game("quixo"), FIVE, "occupancy", cells=FIVE.cells)


def test_a_layout_without_the_games_cells_is_refused() -> None:
    with pytest.raises(StartupError, match="the layout has no cell 'a7' that morris uses"):
        Session(new_game("morris"), FIVE, "occupancy", cells=FIVE.cells)


def tessere_session(on_timeout: str, **kw: Any) -> Session:
    game = new_game("tessere", on_timeout=on_timeout)
    clock = Clock(ClockSpec("none"), 2, game_move_seconds=game.move_seconds)
    return Session(game, FIVE, "identity", cells=FIVE.cells, clock=clock,
                   **{"settle": 0.25, "grace": 1.5, **kw})


def test_a_board_nobody_plays_on_yet_times_no_one() -> None:
    # A board booted (or a game set up) before the players sit down: the move limit ran
    # from the start, so under "pass" the unattended board passed turns all night.
    s = tessere_session("pass")
    s.start(0.0, 0.0)
    fx = s.tick(3600.0, 3600.0)
    assert "timeout" not in kinds(fx) and not s.game.history
    assert not any(isinstance(e, ClockEntry) for e in fx.journal)  # and no checkpoints
    see(s, reading(s.game, "identity", c3="RY"), 3600.0)  # the first move starts it
    fx = s.tick(3662.5, 3662.5)
    assert "Player 2 loses the turn." in fx.log
    s.run_clock(False, 3663.0, 3663.0)  # the referee pauses: nothing to checkpoint
    assert not any(isinstance(e, ClockEntry) for e in s.tick(3700.0, 3700.0).journal)


def test_the_clocks_wait_while_the_board_is_disconnected() -> None:
    # An unplugged cable: a move made meanwhile cannot be seen, and the player's clock ran
    # on (the move limit too), so they could lose on time to the cable.
    s = tessere_session("lose")
    s.start(0.0, 0.0)
    see(s, reading(s.game, "identity", c3="RY"), 0.0)  # Player 2's minute starts at 1.1
    assert s.clock is not None and s.clock.running
    fx = s.on_fault("the board on /dev/ttyACM0 is not connected: plug in its USB cable", 10.0)
    assert fx.log == ("Board disconnected: the board on /dev/ttyACM0 is not connected: plug "
                      "in its USB cable. The clocks wait until it is back.",)
    fx = s.tick(300.0, 300.0)
    assert "timeout" not in kinds(fx) and s.game.outcome() is None
    fx = s.on_snapshot(reading(s.game, "identity"), 300.0, 300.0)
    assert fx.log[:2] == ("Board reconnected; resynchronised from a full reading.",
                          "The clocks run again.") and s.clock.running
    left = s.clock.move_remaining(300.0)
    assert left is not None and abs(left - (60 - 8.9)) < 0.01  # only the time before it


def test_clocks_held_for_the_board_run_again_after_a_failed_write_at_reconnection() -> None:
    # The board comes back showing a move, and the disk refuses it: the session is put
    # back as it was, clocks paused, and must still know to run them at the next reading
    # (it forgot, and the clocks stayed paused for the rest of the game).
    s = tessere_session("lose", settle=0.0)  # a reading is taken as it comes
    s.start(0.0, 0.0)
    see(s, reading(s.game, "identity", c3="RY"), 0.0)
    s.on_fault("unplugged", 10.0)
    fx = s.on_snapshot(reading(s.game, "identity", c3="RY", d4="GB"), 20.0, 20.0)
    assert "action" in kinds(fx)  # the move is confirmed: its entry goes to the journal ...
    s.rollback()  # ... which cannot be written
    assert s.clock is not None and not s.clock.running
    see(s, reading(s.game, "identity", c3="RY", d4="GB"), 30.0)
    assert s.clock.running and len(s.game.history) == 2


def test_the_move_limit_warns_under_warn() -> None:
    s = tessere_session("warn")
    s.start(0.0, 0.0)
    s.run_clock(True, 0.0, 0.0)  # the referee starts the clocks before the first move
    fx = s.tick(55.0, 55.0)
    assert fx.log == ("Player 1: 5 s left (move).",)
    fx = s.tick(60.5, 60.5)
    assert "timeout" in kinds(fx) and s.game.outcome() is None
    assert "Player 1 is out of time (warning)." in fx.log


def test_the_move_limit_loses_under_lose() -> None:
    s = tessere_session("lose")
    s.start(0.0, 0.0)
    see(s, reading(s.game, "identity", c3="RY"), 10.0)
    fx = s.tick(72.0, 72.0)  # Player 2's minute ran out
    assert kinds(fx)[-2:] == ["timeout", "result"]
    assert fx.finished is not None and fx.finished.winner == 0
    assert fx.status == "tessere: game over, Player 1 wins (time)"


def test_the_timer_leds_drain() -> None:
    s = tessere_session("warn")
    s.start(0.0, 0.0)
    s.run_clock(True, 0.0, 0.0)
    full = s.frame(0.0)
    later = s.frame(45.0)
    lit = [sum(frame[i] != OFF for i in FIVE.timer_leds) for frame in (full, later)]
    assert lit[0] == len(FIVE.timer_leds) and 0 < lit[1] < lit[0]


def test_a_win_lights_the_winning_line_gold() -> None:
    s = tessere_session("warn")
    for text in ("G@a1", "YG@e5", "GB@e1"):
        s.game.apply(s.game.parse_move(text))
    fx = see(s, reading(s.game, "identity", a5="RYGB"), 1.0)
    assert kinds(fx) == ["action"] and fx.finished is None
    assert all(colour(fx, FIVE, c) == GOLD for c in ("a1", "e1", "a5", "e5"))
    # The result is journaled once the winner's last action can no longer be corrected:
    # the grace time (1.5 s) after it was accepted (at 2.1).
    assert s.tick(3.5, 3.5).journal == ()
    fx = s.tick(3.7, 3.7)
    assert kinds(fx) == ["result"] and fx.finished is not None


def test_a_typed_move_that_wins_is_recorded_with_its_result_at_once() -> None:
    s = tessere_session("warn")
    for text in ("G@a1", "YG@e5", "GB@e1"):
        s.game.apply(s.game.parse_move(text))
    fx = s.command("RYGB@a5", 1.0, 1.0)  # typed on purpose: no correction to wait for
    assert kinds(fx) == ["action", "result"] and fx.finished is not None


def test_a_game_resumed_over_without_its_result_gets_it_after_the_grace_time() -> None:
    s = tessere_session("warn")
    for text in ("G@a1", "YG@e5", "GB@e1", "RYGB@a5"):  # the daemon stopped in the hold
        s.game.apply(s.game.parse_move(text))
    s.start(10.0, 10.0)
    assert s.tick(11.0, 11.0).journal == ()
    fx = s.tick(11.6, 11.6)
    assert kinds(fx) == ["result"] and fx.finished is not None


def test_commands_undo_resign_and_typed_moves() -> None:
    s = morris_session()
    assert s.command("nonsense", 0.0, 0.0).log[0].startswith("Not understood")
    fx = s.command("d2", 1.0, 1.0)  # a typed move; the board must follow
    assert kinds(fx) == ["action"]
    assert s.command("d2", 1.5, 1.5).log[0].startswith("Illegal: d2")
    fx = s.command("undo", 2.0, 2.0)
    assert kinds(fx) == ["undo"] and s.game.history == ()
    fx = s.command("resign", 3.0, 3.0)
    assert kinds(fx) == ["result"] and fx.finished is not None and fx.finished.winner == 1


def test_after_the_end_the_board_is_cleared_without_takebacks_or_errors() -> None:
    s = tessere_session("warn")
    for text in ("G@a1", "YG@e5", "GB@e1"):
        s.game.apply(s.game.parse_move(text))
    see(s, reading(s.game, "identity", a5="RYGB"), 1.0)
    assert s.game.outcome() is not None
    assert kinds(s.tick(3.7, 3.7)) == ["result"]
    fx = s.on_snapshot(reading(s.game, "identity", a5=""), 4.0, 4.0)  # the winning piece
    fx += s.tick(9.0, 9.0)
    assert fx.journal == () and s.game.outcome() is not None
    assert s.command("undo", 10.0, 10.0).log[0].startswith("The game is over and recorded")


def test_a_move_on_a_cell_the_camera_doubts_waits_and_the_status_says_why() -> None:
    s = Session(new_game("tessere"), FIVE, "identity", cells=FIVE.cells, settle=0.25, grace=1.5)
    s.start(0.0, 1000.0)
    # A checker put on c3 under a lamp's reflection: read, but doubted.
    fx = s.on_snapshot(reading(s.game, "identity", c3="RY"), 0.1, 1000.1, frozenset({"c3"}))
    fx += s.tick(0.5, 1000.5)
    assert kinds(fx) == [] and "cannot read" not in s.status()  # a glimpse: no alarm yet
    fx = s.tick(2.0, 1002.0)
    assert kinds(fx) == [] and fx.status is not None
    assert "cannot read c3 surely" in fx.status and "type the move" in fx.status
    # The lamp moved: read surely, the placement is recorded and the status forgets it.
    fx = see(s, reading(s.game, "identity", c3="RY"), 2.5, 1002.5)
    assert kinds(fx) == ["action"] and "cannot read" not in s.status()
