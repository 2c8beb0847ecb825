"""The referee's corrections (:meth:`Session.correct`): back to a ply, optionally with the
intended moves; the board must then be set to the corrected position before play goes on,
and no move is taken from it meanwhile."""

from __future__ import annotations

from tavola.export import export_record
from tavola.feedback import RED
from tavola.games import new_game
from tavola.record import (
    ActionEntry,
    ClockEntry,
    Entry,
    Record,
    RefereeEntry,
    ResultEntry,
    StartEntry,
    UndoEntry,
    WithdrawnEntry,
    replay,
)
from tavola.session import Session
from tavola.web.referee import Request, pending_correction, perform
from tests.controller.test_session import (
    MORRIS,
    colour,
    kinds,
    morris_session,
    reading,
    see,
    tessere_session,
)
from tests.controller.test_session_help import _Host


def three_moves_played() -> Session:
    s = morris_session(policy="arbiter", hints=False)
    see(s, reading(s.game, d2="#"), 1.0)
    see(s, reading(s.game, a1="#"), 3.0)
    see(s, reading(s.game, d6="#"), 5.0)
    assert [str(m) for m in s.game.history] == ["d2", "a1", "d6"]
    return s


def test_undo_to_a_ply_waits_for_the_board_to_show_it() -> None:
    s = three_moves_played()
    fx = s.correct(1, [], 10.0, 10.0)
    assert kinds(fx) == ["undo", "undo"]
    assert fx.journal[0] == UndoEntry("d6", 0, 10.0, 10.0)
    assert [str(m) for m in s.game.history] == ["d2"]
    assert s.restoring == 1
    status = s.status()
    assert "the referee corrected the game to ply 1: set the board to it (lift a1, lift d6)" \
        in status
    assert colour(s, MORRIS, "a1", 10.1) == RED and colour(s, MORRIS, "d6", 10.1) == RED
    # The board still shows a1 and d6: neither is played again, nothing is journaled.
    assert s.tick(12.0, 12.0).journal == ()
    assert [str(m) for m in s.game.history] == ["d2"] and s.flags == [0, 0]
    fx = see(s, reading(s.game, d6="#"), 13.0)  # half way: d6 looks like Black's move
    assert fx.journal == () and s.restoring == 1
    fx = see(s, reading(s.game), 15.0)  # restored
    assert s.restoring is None and any("corrected position (ply 1)" in line for line in fx.log)
    assert "referee" not in s.status() and "does not match" not in s.status()
    fx = see(s, reading(s.game, g7="#"), 17.0)  # play goes on from there
    assert kinds(fx) == ["action"] and [str(m) for m in s.game.history] == ["d2", "g7"]
    assert s.flags == [0, 0]  # the referee's correction flags nobody


def test_the_intended_move_replaces_the_recorded_one() -> None:
    s = three_moves_played()
    fx = s.correct(1, ["g7"], 10.0, 10.0)
    assert kinds(fx) == ["undo", "undo", "action"]
    assert fx.journal[2] == ActionEntry("g7", 1, 2, 10.0, 10.0)
    assert [str(m) for m in s.game.history] == ["d2", "g7"]
    assert "(lift a1, lift d6, put a piece on g7)" in s.status()
    assert see(s, reading(s.game), 12.0).journal == ()  # the board set to it: nothing new
    assert s.restoring is None


def test_a_board_that_shows_the_corrected_position_ends_the_wait() -> None:
    s = morris_session()
    s.command("d2", 1.0, 1.0)
    s.command("a1", 2.0, 2.0)  # typed by mistake: Black's man is on g7
    fx = s.correct(1, ["g7"], 3.0, 3.0)
    assert kinds(fx) == ["undo", "action"] and s.restoring == 2  # no reading yet
    fx = see(s, reading(s.game), 4.0)  # the first reading shows d2 and g7
    assert fx.journal == () and s.restoring is None
    assert [str(m) for m in s.game.history] == ["d2", "g7"]


def test_impossible_corrections_are_refused_with_the_reason() -> None:
    s = three_moves_played()
    for ply, moves, said in [
        (4, [], "There is no ply 4: the game is at ply 3."),
        (-1, [], "There is no ply -1"),
        (1, ["d2"], "Illegal after ply 1: "),
        (1, ["zz"], "Not understood: "),
        (1, ["a1", "d6"], "That is the game as recorded; nothing to correct."),
        (3, [], "That is the game as recorded"),
    ]:
        fx = s.correct(ply, moves, 10.0, 10.0)
        assert fx.journal == () and fx.log[0].startswith(said), (ply, moves, fx.log)
    assert [str(m) for m in s.game.history] == ["d2", "a1", "d6"] and s.restoring is None


def test_a_correction_that_cannot_be_written_is_put_back() -> None:
    s = three_moves_played()
    s.correct(0, [], 10.0, 10.0)
    s.rollback()
    assert [str(m) for m in s.game.history] == ["d2", "a1", "d6"] and s.restoring is None


def correction_record(ply: int, moves: list[str], after: list[str]) -> tuple[Session, Record]:
    """d2 a1 d6 played, the referee's correction journaled as the console does, then the
    moves ``after`` typed."""
    s = three_moves_played()
    header = StartEntry.of(new_game("morris"), game_id="c", wall=0.0)
    entries: list[Entry] = [ActionEntry(t, p, n, 0.0, 0.0)
                            for n, (p, t) in enumerate([(0, "d2"), (1, "a1"), (0, "d6")], 1)]
    what = f"correct to ply {ply}: {' '.join(moves)}" if moves else f"undo to ply {ply}"
    entries.append(RefereeEntry(what, "referee@127.0.0.1", "", 9.0, 9.0))
    entries += s.correct(ply, moves, 9.0, 9.0).journal
    entries.append(ClockEntry({"left": [1.0, 1.0]}, 9.5, 9.5))  # a checkpoint: no move
    for text in after:
        entries += s.command(text, 10.0, 10.0).journal
    return s, Record(header, tuple(entries))


def test_a_correction_still_waits_for_the_board_after_a_restart() -> None:
    s, record = correction_record(1, [], [])
    assert pending_correction(record) == 1 == s.restoring
    s, record = correction_record(1, ["g7"], [])
    assert pending_correction(record) == 2 == s.restoring
    s, record = correction_record(1, ["g7", "d6"], [])  # as long as the game it replaced
    assert pending_correction(record) == 3 == s.restoring
    _, record = correction_record(1, ["g7"], ["a4"])  # play went on: nothing to wait for
    assert pending_correction(record) is None
    assert pending_correction(Record(record.header, record.entries[:3])) is None
    result = ResultEntry.of(None, 2, wall=11.0, now=11.0)
    _, record = correction_record(0, [], [])
    assert pending_correction(Record(record.header, (*record.entries, result))) is None


def tessere_won() -> Session:
    """Tessere: the fourth action (a5) completes Player 2's line of the corners; the board
    reads it, and the result is journaled after the grace time."""
    s = tessere_session("warn")
    for text in ("G@a1", "YG@e5", "GB@e1"):
        s.game.apply(s.game.parse_move(text))
    see(s, reading(s.game, "identity", a5="RYGB"), 1.0)
    assert s.game.outcome() is not None
    return s


def test_a_misread_final_move_is_corrected_after_the_result_is_journaled() -> None:
    s = tessere_won()
    assert kinds(s.tick(3.7, 3.7)) == ["result"]
    fx = s.correct(3, [], 10.0, 10.0)
    assert kinds(fx) == ["withdrawn", "undo"]
    withdrawn = fx.journal[0]
    assert isinstance(withdrawn, WithdrawnEntry) and withdrawn.score == "0-1"
    assert s.game.outcome() is None and len(s.game.history) == 3
    assert s.restoring == 3 and "set the board to it (lift a5)" in s.status()
    assert all(e.TYPE != "result" for e in s.tick(20.0, 20.0).journal)
    see(s, reading(s.game, "identity"), 21.0)  # the board set right: play goes on
    assert s.restoring is None and s.game.outcome() is None


def test_a_final_move_corrected_while_its_result_is_held_journals_no_result() -> None:
    s = tessere_won()
    fx = s.correct(3, [], 2.5, 2.5)  # within the grace time: no result written yet
    assert kinds(fx) == ["undo"] and s.game.outcome() is None
    assert all(e.TYPE != "result" for e in s.tick(9.0, 9.0).journal)


def test_a_declared_result_is_withdrawn_only_by_the_referee_saying_so() -> None:
    s = three_moves_played()
    s.declare(s.game.resignation(0), 11.0, 11.0)
    refused = s.correct(1, [], 12.0, 12.0)
    assert refused.journal == () and "withdraw the result first" in refused.log[0]
    fx = s.withdraw_result(13.0, 13.0)
    assert kinds(fx) == ["withdrawn"] and s.game.outcome() is None
    assert [str(m) for m in s.game.history] == ["d2", "a1", "d6"]
    assert s.withdraw_result(14.0, 14.0).journal == ()  # nothing left to withdraw
    assert kinds(s.correct(1, [], 15.0, 15.0)) == ["undo", "undo"]


def test_a_rules_result_is_not_withdrawn_without_correcting_its_move() -> None:
    s = tessere_won()
    s.tick(3.7, 3.7)
    fx = s.withdraw_result(5.0, 5.0)
    assert fx.journal == () and "correct the move that ended it" in fx.log[0]


def test_a_withdrawn_result_replays_as_a_game_going_on() -> None:
    s = tessere_won()
    header = StartEntry.of(new_game("tessere", on_timeout="warn"), game_id="t", wall=0.0)
    moves = [ActionEntry(t, p, n, 0.0, 0.0) for n, (p, t) in enumerate(
        [(0, "G@a1"), (1, "YG@e5"), (0, "GB@e1"), (1, "RYGB@a5")], 1)]
    result = s.tick(3.7, 3.7).journal
    note = RefereeEntry("undo to ply 3", "referee@127.0.0.1", "misread", 9.0, 9.0)
    fixed = s.correct(3, [], 9.0, 9.0).journal
    over = Record(header, (*moves, *result))
    assert over.result is not None and replay(over).game.outcome() is not None
    record = Record(header, (*moves, *result, note, *fixed))
    assert record.result is None
    again = replay(record)
    assert again.result is None and again.game.outcome() is None
    assert [str(m) for m in again.game.history] == ["G@a1", "YG@e5", "GB@e1"]
    assert pending_correction(record) == 3
    # The exported record says what happened: the result, and that it was withdrawn.
    text = export_record(record)
    assert "withdrawn by the referee" in text and "misread" in text


def test_the_console_withdraws_a_declared_result_with_who_and_why() -> None:
    s = three_moves_played()
    host = _Host(s)
    perform(host, Request("result", {"kind": "win", "winner": "1"}, "referee@test"))
    said = perform(host, Request("withdraw", {"reason": "wrong table"}, "referee@test"))
    assert "withdrawn" in said and s.game.outcome() is None
    assert [e.TYPE for e in host.written] == ["referee", "result", "referee", "withdrawn"]
    assert host.written[2].action == "withdraw result"
    assert perform(host, Request("withdraw", {}, "referee@test")).startswith("Refused: ")


def test_a_withdrawn_loss_on_time_takes_the_flagged_players_moves_again() -> None:
    # The inference's cached expectations of the position were those of the game over (no
    # move legal), keyed only by the moves played: after the withdrawal and the referee's
    # seconds, every legal move of the player was an illegal position, flagged.
    from tavola.clock import Clock, ClockSpec

    s = morris_session(policy="arbiter", hints=False,
                       clock=Clock(ClockSpec("sudden-death", minutes=0.25)))
    s.start(0.0, 0.0)
    see(s, reading(s.game, d2="#"), 1.0)  # Black's clock runs from 1.1
    fx = s.tick(17.0, 17.0) + s.tick(17.5, 17.5)
    assert "Black loses on time." in fx.log and s.game.outcome() is not None
    see(s, reading(s.game, d2="#"), 18.0)  # the board reports while the game is over
    refused = s.correct(0, [], 19.0, 19.0)  # nobody declared it: not "declared (time)"
    assert refused.log == ("The game was lost on time: withdraw the result first, then "
                           "correct the game.",)
    assert kinds(s.withdraw_result(20.0, 20.0)) == ["withdrawn"]
    s.adjust_clock(1, 60, 30.0, 30.0)
    assert s.clock is not None and s.clock.remaining(1, 30.0) == 60.0  # not 60 less the wait
    fx = see(s, reading(s.game, d2="#", a1="#"), 31.0)
    assert kinds(fx) == ["action"] and [str(m) for m in s.game.history] == ["d2", "a1"]
    assert s.flags == [0, 0]


def test_the_console_refuses_clock_steps_that_are_not_a_correction() -> None:
    # nan set Black's clock to 0 saying "+nan s", 1e308 showed a 300-digit clock, and an
    # empty field answered "could not convert string to float: ''".
    from tavola.clock import Clock, ClockSpec

    s = morris_session(policy="arbiter", hints=False,
                       clock=Clock(ClockSpec("fischer", minutes=10, increment=5)))
    s.start(0.0, 0.0)
    host = _Host(s)
    for seconds in ("nan", "inf", "-inf", "1e308", "3601", "", "ten"):
        said = perform(host, Request("clock", {"player": "1", "seconds": seconds}, "ref"))
        assert said.startswith("Refused: seconds must be a number of seconds from -3600 to "
                               "3600"), said
    assert host.written == [] and s.clock is not None and s.clock.remaining(1, 1.0) == 600.0
    assert perform(host, Request("clock", {"player": "1", "seconds": "-30"}, "ref")) \
        == "Done: clock -30 s Black."
    assert perform(host, Request("hints", {"allow": "maybe"}, "ref")) \
        == "Refused: allow must be on or off, got 'maybe'."
    assert perform(host, Request("result", {"kind": "win", "winner": "x"}, "ref")) \
        == "Refused: winner must be a whole number, got 'x'"
    # The incident names the player, and a draw no winner ("result draw 0" before).
    assert perform(host, Request("result", {"kind": "forfeit", "winner": "1"}, "ref")) \
        .startswith("Game over")
    assert host.written[-2].action == "result forfeit Black"
    # Over, a clock counts no more: "Done" changed nothing, and the journal had none of it.
    said = perform(host, Request("clock", {"player": "0", "seconds": "60"}, "ref"))
    assert said == ("Refused: The game is over: withdraw the result first (a loss on time "
                    "too), then give the time.")
    perform(host, Request("withdraw", {}, "ref"))
    perform(host, Request("result", {"kind": "draw", "winner": "0"}, "ref"))
    assert [e.action for e in host.written if isinstance(e, RefereeEntry)][-1] == "result draw"
