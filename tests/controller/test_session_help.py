"""The engine's help on the board: hints, the computer opponent, blunders, the journal."""

from __future__ import annotations

import random
from typing import Any

from tavola import ai
from tavola.ai import ScoredTurn
from tavola.feedback import BLUE, CYAN, GREEN, OFF, RED
from tavola.games import GAMES, Game, legal_turns, new_game
from tavola.games.sequence_kids import Place
from tavola.hardware.layout import Layout
from tavola.hints import Answer, ComputerPlayer, HintSettings, answer, turn_cells
from tavola.record import ActionEntry, HintEntry, Record, StartEntry, replay
from tavola.session import Effects, Session, StartupError
from tests.positions import morris_moving_phase, random_position

MORRIS = Layout.for_game("morris")
FAST = HintSettings(nodes=400, seconds=None)


def session(game: Game[Any] | None = None, **kw: Any) -> Session:
    kw.setdefault("hinting", FAST)
    return Session(game or new_game("morris"), MORRIS, "occupancy", cells=MORRIS.cells,
                   settle=0.25, grace=1.5, **kw)


def answered(s: Session, fx: Effects, now: float) -> Effects:
    """Run the searches ``fx`` asks for, as the daemon does off its loop, and hand the
    answers back (and those of any search an answer asks for)."""
    out = fx
    pending = list(fx.searches)
    while pending:
        more = s.on_answer(answer(pending.pop(0)), now, now)
        out += more
        pending += more.searches
    return out


def reading(game: Game[Any], **changes: str) -> dict[str, str]:
    cells = game.view("occupancy")
    cells.update(changes)
    return cells


def see(s: Session, cells: dict[str, str], now: float) -> Effects:
    """A reading held long enough to be confirmed, the engine answering at once."""
    fx = s.on_snapshot(cells, now, now)
    return answered(s, fx + s.tick(now + 1.1, now + 1.1), now + 1.1)


def lit(s: Session, colour: tuple[int, int, int], now: float = 0.0) -> set[str]:
    frame = s.frame(now)
    return {c for c in MORRIS.cells if frame[MORRIS.led_of(c)] == colour}


def hints_of(fx: Effects) -> list[HintEntry]:
    return [e for e in fx.journal if isinstance(e, HintEntry)]


def mill_threat() -> Game[Any]:
    game = new_game("morris")
    for text in ("a1", "b2", "a4", "b4"):
        game.apply(game.parse_move(text))
    return game


def test_a_hint_is_the_best_legal_turn_lit_blue_and_journaled() -> None:
    s = session(mill_threat())
    s.start(0.0, 0.0)
    fx = s.command("hint", 1.0, 1.0)
    assert fx.journal == () and len(fx.searches) == 1  # asked, not searched on the loop
    fx = answered(s, fx, 1.0)
    entry, = hints_of(fx)
    assert (entry.kind, entry.moves, entry.rank, entry.ply) == ("hint", ("a7", "xb2"), 1, 4)
    assert lit(s, BLUE) == {"a7", "b2"}  # the mill's cell and the man it takes
    assert "hint: a7 xb2" in (fx.status or "")


def test_every_hint_is_legal_and_a_second_one_is_the_next_best_up_to_the_limit() -> None:
    game = morris_moving_phase()
    s = session(game, hinting=HintSettings(nodes=300, seconds=None, per_turn=2))
    s.start(0.0, 0.0)
    shown = []
    for _ in range(2):
        entry, = hints_of(answered(s, s.command("hint", 1.0, 1.0), 1.0))
        work = game.copy()
        for text in entry.moves:
            work.apply(work.parse_move(text))  # raises if the hint is not legal
        shown.append(entry.moves)
    assert shown[0] != shown[1]
    fx = s.command("hint", 2.0, 2.0)
    assert fx.searches == () and "No more hints this turn (at most 2" in fx.log[0]


def test_a_forced_win_in_one_is_found_and_shown() -> None:
    rng = random.Random(7)
    for _ in range(200):
        game = new_game("morris")
        while game.outcome() is None and len(game.history) < 150:
            turns = legal_turns(game)
            winning = [t for t in turns if _wins(game, t)]
            if winning and len(game.history) > 18:
                s = session(game)
                s.start(0.0, 0.0)
                entry, = hints_of(answered(s, s.command("hint", 1.0, 1.0), 1.0))
                turn = tuple(game.parse_move(m) for m in entry.moves)
                assert _wins(game, turn), entry
                assert lit(s, BLUE) == set(turn_cells(game, turn).all)
                return
            for move in rng.choice(turns):
                game.apply(move)
    raise AssertionError("no morris position with a win in one was met")


def _wins(game: Game[Any], turn: tuple[Any, ...]) -> bool:
    work = game.copy()
    for move in turn:
        work.apply(move)
    outcome = work.outcome()
    return outcome is not None and game.current_player in outcome.winners


def test_the_hint_stays_through_its_turn_and_clears_when_a_move_is_made() -> None:
    s = session(mill_threat())
    s.start(0.0, 0.0)
    answered(s, s.command("hint", 1.0, 1.0), 1.0)
    see(s, reading(s.game, a7="#"), 2.0)  # the mill: the removal is still to come
    assert lit(s, BLUE) == {"b2"}
    see(s, reading(s.game, b2=""), 4.0)
    assert lit(s, BLUE) == set() and "hint" not in s.status()


def test_hints_are_off_under_the_arbiter_policy_unless_the_referee_allows() -> None:
    s = session(mill_threat(), policy="arbiter")
    s.start(0.0, 0.0)
    fx = s.command("hint", 1.0, 1.0)
    assert fx.searches == () and "referee allows" in fx.log[0]
    s.allow_hints(True, 1.5)
    assert hints_of(answered(s, s.command("hint", 2.0, 2.0), 2.0))
    allowed = session(mill_threat(), policy="arbiter",
                      hinting=HintSettings(nodes=300, seconds=None, arbiter=True))
    assert allowed.command("hint", 1.0, 1.0).searches
    off = session(mill_threat(), hints=False)
    assert off.command("hint", 1.0, 1.0).searches == ()


def test_the_gesture_asks_for_a_hint_without_a_screen() -> None:
    s = session(mill_threat())
    s.start(0.0, 0.0)
    board = reading(s.game)
    asked: list[Effects] = []
    for t, cells in ((1.0, reading(s.game, a1="")), (1.2, board),
                     (1.4, reading(s.game, a1="")), (1.6, board)):
        asked.append(s.on_snapshot(cells, t, t))
    assert [len(fx.searches) for fx in asked] == [0, 0, 0, 1]
    slow = session(mill_threat())
    slow.start(0.0, 0.0)
    for t, cells in ((1.0, reading(s.game, a1="")), (1.2, board),
                     (2.4, reading(s.game, a1="")), (2.6, board)):
        assert not slow.on_snapshot(cells, t, t).searches


def test_the_computers_move_is_shown_and_taken_only_as_made_on_the_board() -> None:
    s = session(mill_threat(), computer=ComputerPlayer(side=0, level="strongest", nodes=400))
    fx = answered(s, s.start(0.0, 0.0), 0.0)
    entry, = hints_of(fx)
    assert (entry.kind, entry.moves) == ("computer", ("a7", "xb2"))
    assert lit(s, BLUE) == {"a7"} and lit(s, RED) == {"b2"}
    assert "the computer plays a7 xb2" in s.status()
    fx = see(s, reading(s.game, g7="#"), 1.0)  # another placement: wrong, not taken
    assert not any(isinstance(e, ActionEntry) for e in fx.journal)
    assert len(s.game.history) == 4 and "Not the computer's move (g7)" in fx.log[0]
    assert s.frame(0.1)[MORRIS.led_of("g7")] == RED
    fx = s.command("g7", 2.0, 2.0)  # nor typed
    assert len(s.game.history) == 4 and "plays a7 xb2" in fx.log[0]
    see(s, reading(s.game), 3.0)  # put back
    see(s, reading(s.game, a7="#"), 5.0)
    fx = see(s, reading(s.game, b2=""), 7.0)
    assert [str(m) for m in s.game.history[-2:]] == ["a7", "xb2"]
    assert lit(s, RED) == set() and lit(s, BLUE) == set()


def test_the_computers_origin_blinks_cyan() -> None:
    game = morris_moving_phase()
    s = session(game, computer=ComputerPlayer(side=game.current_player, nodes=300))
    answered(s, s.start(0.0, 0.0), 0.0)
    shown = s.help.computer
    assert shown is not None
    origin = shown.steps[0].origin
    assert origin and lit(s, CYAN, 0.0) >= origin and not lit(s, CYAN, 0.3) & origin


def test_a_computer_side_the_game_has_not_is_refused() -> None:
    try:
        session(computer=ComputerPlayer(side=2))
    except StartupError as exc:
        assert "players 0 to 1" in str(exc)
    else:
        raise AssertionError("side 2 of morris accepted")


def test_a_blunder_is_flashed_and_the_better_move_named() -> None:
    s = session(mill_threat(), hinting=HintSettings(nodes=400, seconds=None, feedback=True,
                                                    threshold=50))
    s.start(0.0, 0.0)
    fx = see(s, reading(s.game, g7="#"), 1.0)  # leaves the mill, lets Black close b6
    entry, = hints_of(fx)
    assert (entry.kind, entry.moves) == ("review", ("a7", "xb2"))
    assert "blunder: White lost" in s.status() and "better was a7 xb2" in s.status()
    led = MORRIS.led_of("g7")
    assert [s.frame(t)[led] for t in (0.0, 0.2, 0.35, 0.6)] == [GREEN, OFF, GREEN, OFF]
    fine = session(mill_threat(), hinting=HintSettings(nodes=400, seconds=None,
                                                       feedback=True, threshold=50))
    fine.start(0.0, 0.0)
    assert hints_of(see(fine, reading(fine.game, a7="#"), 1.0)) == []


def test_a_journaled_hint_survives_a_restart() -> None:
    game = mill_threat()
    s = session(game.copy(), hinting=HintSettings(nodes=300, seconds=None, per_turn=2))
    s.start(0.0, 0.0)
    entry, = hints_of(answered(s, s.command("hint", 1.0, 1.0), 1.0))
    header = StartEntry.of(new_game("morris"), game_id="g", wall=0.0)
    actions = actions_of(game)
    record = Record.of([header, *actions, HintEntry.from_json(entry.to_json())])
    resumed = session(replay(record).game,
                      hinting=HintSettings(nodes=300, seconds=None, per_turn=2))
    resumed.resume_help(record.entries)
    resumed.start(2.0, 2.0)
    assert lit(resumed, BLUE) == {"a7", "b2"}
    second, = hints_of(answered(resumed, resumed.command("hint", 3.0, 3.0), 3.0))
    assert second.rank == 2 and second.moves != entry.moves
    assert "No more hints" in resumed.command("hint", 4.0, 4.0).log[0]


class _WithHintCell:
    """The morris layout with one more sensed cell, z9, off the board: a hint button."""

    led_count = MORRIS.led_count
    timer_leds = MORRIS.timer_leds
    sensed = (*MORRIS.sensed, "z9")

    def led_of(self, cell: str) -> int:
        return 0 if cell == "z9" else MORRIS.led_of(cell)


def test_a_piece_put_on_the_hint_cell_asks_for_a_hint() -> None:
    s = Session(mill_threat(), _WithHintCell(), "occupancy", cells=MORRIS.cells, settle=0.25,
                grace=1.5, hinting=HintSettings(nodes=300, seconds=None, cell="z9"))
    s.start(0.0, 0.0)
    assert s.on_snapshot({**reading(s.game), "z9": "#"}, 1.0, 1.0).searches
    assert not s.on_snapshot({**reading(s.game), "z9": "#"}, 1.5, 1.5).searches  # still there
    assert s.tick(2.0, 2.0).journal == ()  # the button is no move
    try:
        session(hinting=HintSettings(cell="d2"))
    except StartupError as exc:
        assert "hints.cell = 'd2'" in str(exc)
    else:
        raise AssertionError("a game cell accepted as the hint cell")


def test_a_hint_that_cannot_be_journaled_is_not_shown() -> None:
    s = session(mill_threat())
    s.start(0.0, 0.0)
    fx = s.command("hint", 1.0, 1.0)
    fx = s.on_answer(answer(fx.searches[0]), 1.0, 1.0)
    assert hints_of(fx)
    s.rollback()  # the daemon could not write the entry
    assert s.help.hint is None and lit(s, BLUE) == set()
    assert s.command("hint", 2.0, 2.0).searches  # asked again


class _Host:
    """The daemon as the referee console sees it, journaling into a list."""

    def __init__(self, s: Session) -> None:
        self.session = s
        self.clock = lambda: 5.0
        self.wall = lambda: 5.0
        self.written: list[Any] = []

    def apply(self, fx: Effects) -> None:
        self.written += fx.journal
        self.session.commit()

    def new_game(self, note: Any) -> None:
        raise AssertionError("not asked")


def test_the_referee_allows_hints_and_the_journal_keeps_it_and_shows_them() -> None:
    from tavola.web.referee import Request, incidents, perform

    s = session(mill_threat(), policy="arbiter")
    host = _Host(s)
    assert "Hints allowed" in perform(host, Request("hints", {"allow": "on"}, "10.0.0.2"))
    assert [e.action for e in host.written] == ["allow hints"]
    host.written += hints_of(answered(s, s.command("hint", 6.0, 6.0), 6.0))
    log = incidents(host.written)
    assert [i.what for i in log] == ["10.0.0.2: allow hints", "hint 1: a7 xb2 (ply 4)"]
    resumed = session(mill_threat(), policy="arbiter")
    resumed.resume_help(host.written)
    assert resumed.hints_allowed and lit(resumed, BLUE) == {"a7", "b2"}
    perform(host, Request("hints", {"allow": "off"}, "10.0.0.2"))
    assert not s.hints_allowed and lit(s, BLUE) == set()


def test_a_computer_push_the_board_cannot_tell_from_another_is_taken_as_the_computers() -> None:
    quixo = Layout.for_game("quixo")
    s = Session(new_game("quixo"), quixo, "identity", cells=quixo.cells, settle=0.25,
                grace=1.5, hinting=FAST, computer=ComputerPlayer(side=0))
    search, = s.start(0.0, 0.0).searches
    for meant, made in (("a1>e1", "b1>e1"), ("b1>e1", "a1>e1")):
        s.on_answer(Answer(search, ScoredTurn((s.game.parse_move(meant),), 0, meant)), 0.5,
                    0.5)
        other = s.game.copy()
        other.apply(other.parse_move(made))  # the same row of blanks, pushed from elsewhere
        s.on_snapshot(other.view("identity"), 1.0, 1.0)
        fx = s.tick(2.0, 2.0)
        assert [e.move for e in fx.journal if isinstance(e, ActionEntry)] == [meant]
        s.on_snapshot(new_game("quixo").view("identity"), 3.0, 3.0)  # taken back
        s.tick(4.0, 4.0)
        assert s.game.history == ()


def test_when_the_engine_fails_the_computers_side_is_played_by_hand() -> None:
    s = session(mill_threat(), computer=ComputerPlayer(side=0))
    search, = s.start(0.0, 0.0).searches
    fx = s.search_failed(search)
    assert "make a legal move for it on the board" in fx.log[0]
    assert s.tick(0.5, 0.5).searches == ()  # not asked again in this position
    fx = see(s, reading(s.game, g7="#"), 1.0)
    assert [e.move for e in fx.journal if isinstance(e, ActionEntry)] == ["g7"]
    hint = session(mill_threat())
    asked, = hint.command("hint", 1.0, 1.0).searches
    hint.search_failed(asked)
    assert hint.command("hint", 2.0, 2.0).searches  # a hint may be asked again


def test_the_hint_limit_counts_the_whole_turn_not_each_action() -> None:
    s = session(mill_threat(), hinting=HintSettings(nodes=300, seconds=None, per_turn=2))
    s.start(0.0, 0.0)
    answered(s, s.command("hint", 1.0, 1.0), 1.0)
    see(s, reading(s.game, a7="#"), 2.0)  # the mill; the removal is the same turn
    entry, = hints_of(answered(s, s.command("hint", 4.0, 4.0), 4.0))
    assert entry.rank == 2 and entry.ply == 5 and entry.moves != ("xb2",)  # the next best
    assert "No more hints this turn" in s.command("hint", 5.0, 5.0).log[0]
    see(s, reading(s.game, b2=""), 6.0)
    see(s, reading(s.game, g7="#"), 8.0)  # a new turn: a fresh count
    assert s.command("hint", 9.0, 9.0).searches


SEQUENCE = Layout.for_game("sequence-kids")


def sequence_session(seat_pages: bool) -> Session:
    game = new_game("sequence-kids", seed=7)
    s = Session(game, SEQUENCE, "identity", cells=SEQUENCE.cells, settle=0.25, grace=1.5,
                hinting=HintSettings(nodes=200, seconds=None), seat_pages=seat_pages)
    s.start(0.0, 0.0)
    return s


def test_a_hint_of_a_hidden_hand_goes_to_the_seat_page_only() -> None:
    s = sequence_session(seat_pages=True)
    game = s.game
    assert game.hidden_information  # the contract says so: no name is looked at
    asked = s.command("hint", 1.0, 1.0)
    assert asked.searches and "seat page" in asked.log[0]
    fx = answered(s, asked, 1.0)
    entry, = hints_of(fx)  # the journal still records it, for the arbiter
    assert entry.kind == "hint" and entry.player == 0
    frame = s.frame(1.0)
    blue = {c for c in SEQUENCE.cells if frame[SEQUENCE.led_of(c)] == BLUE}
    assert blue == set()  # nothing on the shared board
    move = entry.moves[0]
    assert move not in s.status() and all(move not in line for line in fx.log)
    assert "Red's seat page" in " ".join(fx.log)
    shown = s.seat_hint(0)
    assert shown is not None
    text, cells = shown
    assert move in text and cells and cells <= set(SEQUENCE.cells)
    assert s.seat_hint(1) is None  # another seat never gets it


def test_without_seat_pages_a_hidden_hand_gets_no_hint() -> None:
    s = sequence_session(seat_pages=False)
    fx = s.command("hint", 1.0, 1.0)
    assert fx.searches == () and fx.journal == ()
    assert "need the seat page" in fx.log[0] and "[web] enabled" in fx.log[0]


def test_an_open_game_still_lights_its_hint_for_everyone() -> None:
    s = session(mill_threat())
    answered(s, s.command("hint", 1.0, 1.0), 1.0)
    assert lit(s, BLUE) and s.seat_hint(s.game.current_player) is None


def test_a_blunder_in_a_hidden_hand_game_does_not_name_the_better_card() -> None:
    game = new_game("sequence-kids", seed=7)
    s = Session(game, SEQUENCE, "identity", cells=SEQUENCE.cells, settle=0.25, grace=1.5,
                hinting=HintSettings(nodes=200, seconds=None, feedback=True),
                seat_pages=True)
    s.start(0.0, 0.0)
    played, better = game.legal_moves()[:2]
    fx = s.command(str(played), 1.0, 1.0)
    review, = [q for q in fx.searches if q.purpose == "review"]
    best = ScoredTurn((better,), 500, str(better))
    verdict = ai.Verdict(0, best, 500, True, False)
    out = s.on_answer(Answer(review, best, verdict), 2.0, 2.0)
    entry, = hints_of(out)
    assert entry.kind == "review" and entry.moves == (str(better),)  # for the arbiter
    assert "lost 5.0" in s.status() and str(better) not in s.status()
    assert all(str(better) not in line for line in out.log)


def test_a_placement_two_cards_allow_that_is_not_the_computers_is_shown_wrong() -> None:
    """The unicorn matches any picture, so a chip put where the computer was not told to
    go is ambiguous (which card?); refused, it must blink red like any wrong move, not
    light as a choice to make (it once did: the refusal showed only in the log)."""
    game = new_game("sequence-kids", seed=5)  # Red holds gorilla, panda and the unicorn
    s = Session(game, SEQUENCE, "identity", cells=SEQUENCE.cells, settle=0.25, grace=1.5,
                hinting=HintSettings(nodes=200, seconds=None),
                computer=ComputerPlayer(side=0, nodes=200))
    answered(s, s.start(0.0, 0.0), 0.0)
    shown = s.help.computer
    assert shown is not None
    cell = next(c for c in ("c1", "d7", "e3", "b5") if c not in str(shown.turn[0]))
    cards = [m.card for m in game.legal_moves() if isinstance(m, Place) and m.cell == cell]
    assert len(cards) == 2  # the board cannot tell which card put it there
    board = game.view("identity")
    fx = see(s, {**board, cell: "R"}, 1.0)
    assert f"Not the computer's move ({cell})" in " ".join(fx.log)
    assert len(s.game.history) == 0
    assert s.scene(1.2).error == {cell} and not s.scene(1.2).candidates
    assert f"not the computer's move on {cell}: put it back" in s.status()
    assert "ambiguous" not in s.status()  # nothing to choose: it is refused
    see(s, board, 3.0)  # put back: nothing is wrong any more
    assert not s.scene(3.2).error


def resumed_from(s: Session, journaled: list[Any], **kw: Any) -> Session:
    """A new session on the game ``s`` journaled (``journaled``: every entry written since
    the start), as the daemon builds it after a restart: replayed, then its help put back."""
    header = StartEntry.of(new_game(s.game.name), game_id="g", wall=0.0)
    record = Record.of([header, *journaled])
    resumed = session(replay(record).game, **kw)
    resumed.resume_help(record.entries)
    return resumed


def played(s: Session, fx: Effects, journaled: list[Any]) -> Effects:
    """Keep what ``fx`` journals (the daemon writes it) and commit it."""
    journaled += fx.journal
    s.commit()
    return fx


def actions_of(game: Game[Any]) -> list[Any]:
    """The journal's action entries of ``game``'s history (two players alternating)."""
    return [ActionEntry(str(m), i % 2, i + 1, 0.0, 0.0) for i, m in enumerate(game.history)]


REVIEWING = HintSettings(nodes=400, seconds=None, feedback=True, threshold=50)


def test_a_blunder_still_flashes_after_a_restart_until_the_next_move() -> None:
    game = mill_threat()
    s = session(game.copy(), hinting=REVIEWING)
    journaled = actions_of(game)
    s.start(0.0, 0.0)
    played(s, see(s, reading(s.game, g7="#"), 1.0), journaled)  # the blunder
    before = s.status()
    resumed = resumed_from(s, journaled, hinting=REVIEWING)
    resumed.start(5.0, 5.0)
    assert "blunder: White lost" in resumed.status() and "better was a7 xb2" in resumed.status()
    assert before.split(", blunder: ")[1] == resumed.status().split(", blunder: ")[1]
    led = MORRIS.led_of("g7")
    assert [resumed.frame(t)[led] for t in (0.0, 0.2, 0.35, 0.6)] == [GREEN, OFF, GREEN, OFF]
    played(resumed, see(resumed, reading(resumed.game, b6="#"), 6.0), journaled)  # Black
    assert "blunder" not in resumed.status()
    again = resumed_from(resumed, journaled, hinting=REVIEWING)
    again.start(9.0, 9.0)
    assert "blunder" not in again.status()
    assert len({again.frame(t)[led] for t in (0.0, 0.2, 0.35, 0.6)}) == 1  # no blinking


def test_the_computers_move_is_shown_again_after_a_restart_until_it_is_made() -> None:
    game = mill_threat()
    computer = ComputerPlayer(side=0, level="strongest", nodes=400)
    s = session(game.copy(), computer=computer)
    journaled = actions_of(game)
    played(s, answered(s, s.start(0.0, 0.0), 0.0), journaled)
    resumed = resumed_from(s, journaled, computer=computer)
    assert resumed.start(2.0, 2.0).searches == ()  # known: not asked again
    assert lit(resumed, BLUE) == {"a7"} and lit(resumed, RED) == {"b2"}
    assert "the computer plays a7 xb2" in resumed.status()
    played(resumed, see(resumed, reading(resumed.game, a7="#"), 3.0), journaled)  # the mill
    midway = resumed_from(resumed, journaled, computer=computer)
    assert midway.start(6.0, 6.0).searches == ()
    assert lit(midway, RED) == {"b2"} and lit(midway, BLUE) == set()
    fx = see(midway, reading(midway.game, c4="#"), 7.0)  # not the removal shown
    assert not any(isinstance(e, ActionEntry) for e in fx.journal)
    played(midway, see(midway, reading(midway.game), 9.0), journaled)  # put back
    played(midway, see(midway, reading(midway.game, b2=""), 11.0), journaled)
    assert [str(m) for m in midway.game.history[-2:]] == ["a7", "xb2"]
    done = resumed_from(midway, journaled, computer=computer)
    assert lit(done, RED) == set() and lit(done, BLUE) == set()


def test_a_review_journaled_before_the_played_score_was_kept_is_not_shown_again() -> None:
    game = mill_threat()
    s = session(game.copy(), hinting=REVIEWING)
    journaled = actions_of(game)
    s.start(0.0, 0.0)
    played(s, see(s, reading(s.game, g7="#"), 1.0), journaled)
    review = journaled[-1]
    assert isinstance(review, HintEntry) and review.kind == "review"
    line = review.to_json()
    assert HintEntry.from_json(line) == review  # the played score round-trips
    del line["played"]  # a record of an older version
    journaled[-1] = HintEntry.from_json(line)
    resumed = resumed_from(s, journaled, hinting=REVIEWING)
    resumed.start(5.0, 5.0)
    assert "blunder" not in resumed.status() and resumed.scene(5.0).blunder == frozenset()


def test_every_hint_is_legal_in_random_positions_of_every_game() -> None:
    for name in GAMES:
        layout = Layout.for_game(name)
        for seed in range(8):
            game = random_position(name, seed, 3 + 5 * seed)
            s = Session(game.copy(), layout, "identity", cells=layout.cells, settle=0.25,
                        grace=1.5, hinting=HintSettings(nodes=150, seconds=None, per_turn=2),
                        seat_pages=True)
            s.start(0.0, 0.0)
            for rank in (1, 2):
                fx = answered(s, s.command("hint", 1.0, 1.0), 1.0)
                entry, = hints_of(fx)
                assert (entry.rank, entry.ply) == (rank, len(game.history)), (name, seed)
                work = game.copy()
                for text in entry.moves:
                    work.apply(work.parse_move(text))  # raises if the hint is not legal
                if game.hidden_information:  # on the seat page of the player to move only
                    assert s.seat_hint(game.current_player) is not None
                else:
                    assert f"hint: {s.help.hint.text if s.help.hint else '?'}" in s.status()


def test_the_gesture_and_the_hint_cell_ask_nothing_under_the_arbiter_unless_allowed() -> None:
    board = reading(mill_threat())
    gesture = ((1.0, reading(mill_threat(), a1="")), (1.2, board),
               (1.4, reading(mill_threat(), a1="")), (1.6, board))
    s = session(mill_threat(), policy="arbiter")
    s.start(0.0, 0.0)
    assert not any(s.on_snapshot(cells, t, t).searches for t, cells in gesture)
    s.allow_hints(True, 2.0)
    assert [bool(s.on_snapshot(cells, t + 2, t + 2).searches)
            for t, cells in gesture] == [False, False, False, True]
    cell = Session(mill_threat(), _WithHintCell(), "occupancy", cells=MORRIS.cells,
                   settle=0.25, grace=1.5, policy="arbiter",
                   hinting=HintSettings(nodes=300, seconds=None, cell="z9"))
    cell.start(0.0, 0.0)
    assert not cell.on_snapshot({**board, "z9": "#"}, 1.0, 1.0).searches
    cell.on_snapshot(board, 1.5, 1.5)
    cell.allow_hints(True, 2.0)
    assert cell.on_snapshot({**board, "z9": "#"}, 2.5, 2.5).searches
