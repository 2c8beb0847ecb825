"""The pure core of the daemon: a game, its inference and clock, in; effects out.

The daemon hands every sensor event, console command and periodic tick to a
:class:`Session` with the time (``now`` monotonic, ``wall`` Unix), and applies the
:class:`Effects` it gets back in order: append the journal entries (fsynced), then show the
LED frame, then the status and log lines. Nothing here does I/O or reads a clock, so whole
games run in tests instantly.

The journal is the truth, so an input that yields journal entries is a proposal: the
session's new state is staged until the daemon reports the entries written with
:meth:`Session.commit`. If they cannot be written, :meth:`Session.rollback` puts the state
back as it was before the input (game, clock, inference, flags), and
:meth:`Session.cannot_record` shows every cell dim red with the reason in the status; the
readings keep coming, and the first proposal that can be written ends that state
(:meth:`Session.recording_again`). The board still shows the move, so it is accepted again
then: an action counts once it is on disk, never before.

Referee policies (``[game] policy``):

- ``teaching``: lifted pieces light their legal targets white (if ``hints``); an illegal
  move blinks red where the board differs and must be taken back before play goes on; a
  takeback of earlier moves is allowed.
- ``arbiter``: no legal targets; an illegal move or a takeback is recorded in the journal
  with its time and flagged (counted per player in the status), and the position must
  still be corrected.

The engine's help is asked for here and decided elsewhere: hints and the review of turns
by :class:`tavola.coach.Coach`, the computer opponent (``[game] opponent = "ai"``) by
:class:`tavola.opponent.ComputerOpponent`, what the help shows (LEDs, status, after a
restart) by :class:`tavola.board_help.BoardHelp`. An input that needs the engine returns a
:class:`~tavola.hints.Search` in :attr:`Effects.searches`; the daemon runs it off its loop
and hands the answer to :meth:`Session.on_answer`. ``hints = false`` turns both the white
targets and ``hint`` off (docs/config.md).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from tavola.board_help import BoardHelp, turn_before
from tavola.clock import Clock, LowTime, TimeOut, timer_colours
from tavola.coach import Coach
from tavola.correction import (
    Refused,
    differences,
    intended_actions,
    restore_steps,
    take_back_steps,
)
from tavola.effects import Effects as Effects  # re-exported: the daemon's API
from tavola.expectations import change_between
from tavola.feedback import LedMap, Scene, Strip, render
from tavola.games import Capability, Game, Outcome, Reason
from tavola.hardware.base import Frame
from tavola.hints import Answer, ComputerPlayer, HintSettings, Search
from tavola.inference import (
    GRACE_SECONDS,
    SETTLE_SECONDS,
    Accepted,
    Ambiguous,
    Amended,
    Inference,
    Mismatch,
    Pending,
    Result,
    Takeback,
)
from tavola.opponent import ComputerOpponent
from tavola.record import (
    ActionEntry,
    AmendEntry,
    ClockEntry,
    Entry,
    IllegalEntry,
    ResultEntry,
    TimeoutEntry,
    UndoEntry,
    WithdrawnEntry,
    checkpoint_due,
    describe,
)
from tavola.tray import tray_reading, tray_slots

Policy = Literal["teaching", "arbiter"]
POLICIES: tuple[str, ...] = ("teaching", "arbiter")
WHY_CELLS = 8  # cells an illegal position's reason names, at most


class StartupError(ValueError):
    """The game cannot be followed with this sensor or layout; the message says what to do."""


@dataclass
class _Staged:
    """The session as it was before the input in hand, to put back if its entries cannot
    be written. The game is copied only when the input changes it."""

    clock: Clock | None
    result: Result
    last_move: frozenset[str]
    flags: list[int]
    mismatch_recorded: bool
    last_clock_write: float | None
    last_frame: Frame | None
    window: tuple[int, int | None] = (0, None)  # the amendment window and its player
    ending: tuple[float, float] | None = None  # the result held (see Session._ending)
    game: Game[Any] | None = None
    help: BoardHelp | None = None
    restoring: int | None = None
    clock_held_for_board: bool = False  # (with the clock: paused by on_fault, to resume)


def check_startup(
    game: Game[Any], capability: Capability, layout_cells: Iterable[str] | None,
    tray: Mapping[str, str] | None = None,
) -> None:
    """Refuse a game the sensor cannot follow, or a layout that lacks the game's cells.
    A reserve ``tray`` (slot -> piece) lets an occupancy sensor follow an identity game."""
    if game.needs == "identity" and capability != "identity" and not tray:
        raise StartupError(
            f"{game.name} needs a sensor that tells pieces apart (identity): the board's "
            f"sensor only sees occupancy. Use the camera ([sensor] backend = \"camera\") or "
            f"a board with a reserve tray."
        )
    if layout_cells is None:
        return
    have = set(layout_cells)
    missing = sorted(set(game.view()) - have)
    if have and missing:
        raise StartupError(
            f"the layout has no cell {missing[0]!r} that {game.name} uses "
            f"({len(missing)} missing); choose the layout for this board ([layout] file)"
        )


class Session:
    """One game followed on one board."""

    def __init__(
        self,
        game: Game[Any],
        layout: LedMap,
        capability: Capability,
        *,
        cells: Iterable[str] = (),
        policy: Policy = "teaching",
        hints: bool = True,
        settle: float = SETTLE_SECONDS,
        grace: float = GRACE_SECONDS,
        clock: Clock | None = None,
        last_clock_write: float | None = None,
        hinting: HintSettings | None = None,
        computer: ComputerPlayer | None = None,
        seat_pages: bool = False,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
        # A reserve tray names the pieces an occupancy board reads (controller/tray.py).
        self.tray = tray_slots(layout) if (
            game.needs == "identity" and capability == "occupancy") else {}
        check_startup(game, capability, cells, self.tray)
        self.hinting = hinting or HintSettings()
        if computer is not None and not 0 <= computer.side < game.num_players:
            raise StartupError(
                f"game.opponent_side = {computer.side}: {game.name} has players 0 to "
                f"{game.num_players - 1} ({', '.join(game.player_names)}); choose one of them")
        if self.hinting.cell and (self.hinting.cell not in getattr(layout, "sensed", ())
                                  or self.hinting.cell in game.view()):
            raise StartupError(
                f"hints.cell = {self.hinting.cell!r}: not a sensed cell of this layout "
                f"outside the {game.name} board; name a spare sensed cell, or set cell = \"\"")
        self.game = game
        self.strip = Strip.of(layout)
        self.capability: Capability = "identity" if self.tray else capability
        self.cells = tuple(cells) or tuple(game.view())
        self.policy = policy
        self.hints = hints
        self.clock = clock
        trays = frozenset(getattr(layout, "sensed", ())) - set(self.cells)
        self.inference = Inference(self.capability, settle=settle, grace=grace, ignore=trays)
        self.result: Result = Pending()
        # A game resumed after a restart shows its last action again, as before.
        self.last_move: frozenset[str] = last_action_cells(game, self.capability)
        self.disconnected: str | None = None
        self._clock_held_for_board = False  # the clocks paused by on_fault, resumed with it
        self.flags = [0] * game.num_players
        self._mismatch_recorded = False
        self._last_frame: Frame | None = None
        self._last_clock_write = last_clock_write
        self._sensed: dict[str, str] | None = None
        # The amendment window: the last actions, all by one player, that may still be
        # corrected on the board because the next player has not acted yet.
        self.window = 0
        self._window_player: int | None = None
        # The action that ended the game, when (now, wall): its result is held for the
        # grace time so that the winner's last action can still be corrected like any
        # other last action (a piece set one cell off), then journaled.
        self._ending: tuple[float, float] | None = None
        self.unrecorded: str | None = None  # why the journal cannot be written, if it cannot
        self._staged: _Staged | None = None
        self.help = BoardHelp()  # what the coach and the opponent show; rolled back
        self.coach = Coach(self.hinting, policy=policy, hints=hints, seat_pages=seat_pages)
        self.opponent = None if computer is None else ComputerOpponent(
            computer, seconds=self.hinting.seconds)
        self._refused: frozenset[str] = frozenset()  # a move not the computer's, on the board
        self._now = 0.0  # the latest time seen, for the clocks in the status
        # After a referee's correction: the ply whose position the board must be set to
        # before play goes on (the board still shows the game as it was).
        self.restoring: int | None = None
        self._setting_up = False  # that wait is a new game's: set up its start position

    # ----------------------------------------------------------------- inputs
    def start(self, now: float, wall: float, clock_running: bool = True) -> Effects:
        """The first frame; a clock already started resumes for the player to move. A new
        game's clocks start with its first move (or the referee's "resume clocks"): a board
        that boots, or a new game set up, before the players sit down, lost White on time
        (or, with tessere's "pass" on timeout, passed turns all night). A game resumed over
        (the daemon stopped while its result was held: a journaled result files the game)
        has its result journaled after the grace time. ``clock_running`` False: a resumed
        game's clocks were paused (by the referee) and stay so."""
        if (self.clock is not None and self.game.outcome() is None
                and self.clock.turn is not None and clock_running):
            self.clock.resume(now)
        if self.game.outcome() is not None and self._ending is None:
            self._ending = (now, wall)
        return self._show(now, force=True) + Effects(status=self.status()) + self._think()

    def await_setup(self) -> None:
        """A new game started on a board that may still show the last one (the referee's
        or the console's ``new``): until the board shows its start position, its
        differing cells blink and the status says what to set up, and nothing is taken
        from the board; before, the first piece touched was an illegal position charged
        to the first player."""
        if self.game.outcome() is None and not self.game.history:
            self.restoring, self._setting_up = 0, True

    def on_snapshot(
        self, cells: Mapping[str, str], now: float, wall: float,
        uncertain: frozenset[str] = frozenset(),
    ) -> Effects:
        """A new settled reading of the board."""
        self._stage()
        fx = Effects()
        if self.disconnected is not None:
            self.disconnected = None
            fx += Effects(log=("Board reconnected; resynchronised from a full reading.",))
        if self._clock_held_for_board:  # (staged: a reading put back still resumes them)
            self._clock_held_for_board = False
            if self.clock is not None:
                self.clock.resume(now)
                fx += Effects(log=("The clocks run again.",))
        if self.tray:
            cells, uncertain = tray_reading(self.game.view("identity"), cells, self.tray,
                                            uncertain)
        self._sensed = dict(cells)
        fx += self._hint_asked_on_board(cells, now)
        result = self.inference.update(self.game, cells, now, uncertain, self.window)
        return fx + self._handle(result, now, wall) + self._think()

    def on_fault(self, message: str, now: float) -> Effects:
        """The sensor lost the board: show it, keep the game, wait for the next snapshot.
        The clocks wait too: a move made meanwhile cannot be seen, so its time cannot be
        charged fairly (it ran on, and a player could lose on time to an unplugged cable)."""
        self._stage()
        self.disconnected = message
        held = ""
        if self.clock is not None and self.clock.running and self.game.outcome() is None:
            self.clock.pause(now)
            self._clock_held_for_board = True
            held = " The clocks wait until it is back."
        return self._show(now, force=True) + Effects(
            status=self.status(), log=(f"Board disconnected: {message.rstrip('.')}.{held}",))

    def tick(self, now: float, wall: float) -> Effects:
        """Time passes: settle and grace timers, the clock, blinking LEDs."""
        self._stage()
        fx = Effects()
        if self._sensed is not None and self.disconnected is None:
            before = self.result
            result = self.inference.update(self.game, None, now, window=self.window)
            if result != before:
                fx += self._handle(result, now, wall)
        if self._ending is not None and now - self._ending[0] >= self.inference.grace:
            fx += self._release(now)
        if self.clock is not None and self.game.outcome() is None:
            fx += self._clock_events(self.clock.tick(now), now, wall)
        if self.clock is not None and self.clock.running and self.game.outcome() is None and (
            self._last_clock_write is None or checkpoint_due(self._last_clock_write, now)
        ):  # (a clock not running has nothing new to write: a line every 5 s all night)
            self._last_clock_write = now
            fx += Effects(journal=(ClockEntry(self.clock.to_dict(now), wall, now),))
        return fx + self._show(now) + self._think()

    def command(self, text: str, now: float, wall: float) -> Effects:
        """A line from the console: a move (to resolve an ambiguity, or an action the
        board cannot show), ``undo``, ``resign``, ``draw``."""
        self._stage()
        text = text.strip()
        game = self.game
        if game.outcome() is not None:
            return Effects(log=("The game is over and recorded; set up the pieces for the "
                                "next game, or type new.",))
        if text == "undo":
            if not game.history:
                return Effects(log=("Nothing to undo.",))
            still = self._board_still_shows_last()
            if still:  # undoing here would only be played again from the board's reading
                return Effects(log=(f"The board still shows {game.history[-1]}: take it back "
                                    f"on the board ({still}); the takeback is read from it.",))
            return self._takeback(1, now, wall, sensed=False)
        if text == "hint":
            return self._ask_hint(now)
        if self.opponent is not None and self.opponent.to_move(game):
            try:
                typed = game.parse_move(text)
            except ValueError as exc:
                return Effects(log=(f"Not understood: {exc}",))
            if not self.opponent.expects(game, self.help, (typed,)):
                return Effects(log=(self.opponent.says(game, self.help),))
        if text in ("resign", "draw"):
            outcome = (Outcome(None, Reason.AGREEMENT) if text == "draw" else
                       game.resignation(game.current_player))
            self._touch_game()
            game.adjudicate(outcome)
            return self._finish(outcome, now, wall)
        try:
            move = game.parse_move(text)
        except ValueError as exc:
            return Effects(log=(f"Not understood: {exc}",))
        if not game.is_legal(move):
            return Effects(log=(f"Illegal: {game.explain(move)}",))
        fx = self._accept((move,), frozenset(), now, wall)
        self.window = 0  # typed on purpose: not corrected by the board
        if self._ending is not None:
            fx += self._release(now)  # nor is its result held for a correction
        if self._sensed is not None:  # does the board already show it?
            fx += self._handle(self.inference.update(game, None, now, window=self.window),
                               now, wall)
        return fx + self._think()

    def conclude(self, now: float, wall: float) -> Effects:
        """Journal a result still held for a correction now: the players have moved on (the
        next game is set up) or the daemon stops. Nothing when no result is held."""
        self._stage()
        return Effects() if self._ending is None else self._release(now)

    # ----------------------------------------------------------------- the referee
    def declare(self, outcome: Outcome, now: float, wall: float) -> Effects:
        """The referee declares how the game ended (adjudication, forfeit, draw)."""
        self._stage()
        if self.game.outcome() is not None:
            return Effects(log=("The game is already over.",))
        self._touch_game()
        self.game.adjudicate(outcome)
        return self._finish(outcome, now, wall)

    def adjust_clock(self, player: int, seconds: float, now: float, wall: float) -> Effects:
        """The referee adds (or, negative, takes) ``seconds`` of ``player``'s game time."""
        self._stage()
        if self.clock is None or not self.clock.spec.has_game_clock:
            return Effects(log=("There is no game clock to correct ([clock] mode).",))
        if not 0 <= player < self.game.num_players:
            return Effects(log=(f"No player {player}.",))
        if not math.isfinite(seconds):
            return Effects(log=(f"Not a number of seconds: {seconds}.",))
        if self.game.outcome() is not None:  # a clock no longer counts: time changes nothing
            return Effects(log=("The game is over: withdraw the result first (a loss on time "
                                "too), then give the time.",))
        self.clock.add_time(player, seconds, now)
        return self._clock_written(now, wall)

    def run_clock(self, running: bool, now: float, wall: float) -> Effects:
        """The referee pauses (``running`` False) or resumes the clocks."""
        self._stage()
        if self.clock is None or self.game.outcome() is not None:
            return Effects(log=("There is no running game clock to pause or resume.",))
        if self.clock.running == running:
            return Effects(log=(f"The clocks are already {'running' if running else 'paused'}.",))
        if running and self.clock.turn is None:  # before the first move: start them now
            self.clock.start(self.game.current_player, now)
        elif running:
            self.clock.resume(now)
        else:
            self.clock.pause(now)
        return self._clock_written(now, wall)

    def correct(self, ply: int, moves: Sequence[str], now: float, wall: float) -> Effects:
        """The referee corrects the game: back to ``ply`` actions, then ``moves`` (the
        intended ones, in the game's notation) played from there. Checked like moves: a
        ply out of range or a move the rules refuse is refused with the reason and nothing
        changes. The board still shows the game as it was, so until it reads the corrected
        position play waits, the differing cells blinking (a takeback the other way round).
        A game the rules ended (its final move misread) is corrected the same way: its
        journaled result is withdrawn first (a :class:`~tavola.record.WithdrawnEntry`), a
        result still held is dropped, and the clocks run again. A declared result must be
        withdrawn first (:meth:`withdraw_result`).
        """
        self._stage()
        try:
            intended = intended_actions(self.game, ply, moves)
        except Refused as refused:
            return Effects(log=(str(refused),))
        played = len(self.game.history)
        fx = Effects()
        outcome = self.game.outcome()
        if outcome is not None and self._ending is None:  # its result is journaled
            fx += Effects(journal=(self._withdrawn(outcome, now, wall),),
                          log=("The result is withdrawn: the move that ended the game is "
                               "corrected.",))
        self._ending = None  # a result held is never journaled
        fx += self._takeback(played - ply, now, wall, sensed=False)
        if outcome is not None and self.clock is not None:
            self.clock.resume(now)  # paused when the game ended
        if intended:
            fx += self._accept(tuple(intended), frozenset(), now, wall)
        self.window = 0  # the referee's word: not amended from the board
        if self._ending is not None:
            fx += self._release(now)
        self.restoring = len(self.game.history) if self.game.outcome() is None else None
        self._setting_up = False
        if self._sensed is not None and self.game.outcome() is None:
            fx += self._handle(self.inference.update(self.game, None, now), now, wall)
        return fx

    def withdraw_result(self, now: float, wall: float) -> Effects:
        """The referee withdraws the result they declared (a win, draw, forfeit, a loss on
        time): the game goes on from its position, the clocks run again. A result the
        rules gave is withdrawn by correcting the move that ended the game instead."""
        self._stage()
        game = self.game
        outcome = game.outcome()
        if outcome is None:
            return Effects(log=("The game is not over: there is no result to withdraw.",))
        if game.adjudicated is None:
            return Effects(log=(f"The rules ended the game ({outcome.reason}): correct the "
                                f"move that ended it instead.",))
        self._touch_game()
        game.reopen()
        self._ending = None
        if self.clock is not None and game.outcome() is None:
            self.clock.resume(now)
        entry = self._withdrawn(outcome, now, wall)
        return Effects(journal=(entry,), log=(
            f"The result {entry.score} ({entry.reason}) is withdrawn; play goes on.",)
        ) + self._show(now, force=True) + Effects(status=self.status())

    def _withdrawn(self, outcome: Outcome, now: float, wall: float) -> WithdrawnEntry:
        """The entry withdrawing the journaled result ``outcome``."""
        result = ResultEntry.of(outcome, self.game.num_players, wall=wall, now=now)
        return WithdrawnEntry(result.score, result.reason, wall, now)

    def _awaiting_restore(self, now: float) -> Effects:
        """The board does not show the corrected position yet: its differing cells blink
        (nothing is journaled: the referee's correction is, and no move is taken from the
        board meanwhile)."""
        cells = frozenset(cell for cell, _, _ in self._differences())
        since = self.result.since if isinstance(self.result, Mismatch) else now
        self.result = Mismatch(cells, since)
        return self._show(now) + Effects(status=self.status())

    def _differences(self) -> list[tuple[str, str, str]]:
        """(cell, what the game has there, what the board reads) where they differ."""
        return differences(self.game.view(self.capability), self._sensed or {}, self.cells)

    def restore_steps(self) -> str:
        """What to do on the board to show the corrected position ('lift f4, put a piece
        on f2'), or '' when nothing is to be restored."""
        if self.restoring is None or self._sensed is None:
            return ""
        return restore_steps(self._differences(), self.capability)

    def _clock_written(self, now: float, wall: float) -> Effects:
        assert self.clock is not None
        self._last_clock_write = now
        return Effects(journal=(ClockEntry(self.clock.to_dict(now), wall, now),),
                       status=self.status()) + self._show(now, force=True)

    def complete_sim_move(self, text: str) -> str:
        """A push typed for the simulator (``a1>e1``), with the piece the rules put in.

        The simulator pushes the cube taken back in as it was; a blank cube taken by a
        Quixo player comes back with the player's mark, which only the game knows. Any
        other line is returned as it is.
        """
        word = text.strip()
        if " " in word or ">" not in word:
            return text
        try:
            move = self.game.parse_move(word)
        except ValueError:
            return text
        if self.game.outcome() is not None or not self.game.is_legal(move):
            return text
        probe = self.game.copy()
        probe.apply(move)
        token = probe.view(self.capability).get(word.split(">")[1].split(":")[0], "")
        return f"{word} {token}" if token else text

    # ----------------------------------------------------------------- recording
    def commit(self) -> None:
        """The daemon wrote the last input's journal entries: its new state stands."""
        self._staged = None

    def rollback(self) -> None:
        """The last input's journal entries could not be written: put the session back as
        it was before that input. The reading stays; it is judged again next time."""
        staged, self._staged = self._staged, None
        if staged is None:
            return
        if staged.game is not None:
            self.game = staged.game
        self.clock = staged.clock
        self.result = staged.result
        self.last_move = staged.last_move
        self.flags = staged.flags
        self._mismatch_recorded = staged.mismatch_recorded
        self.window, self._window_player = staged.window
        self._ending = staged.ending
        self._last_clock_write = staged.last_clock_write
        self._last_frame = staged.last_frame
        if staged.help is not None:
            self.help = staged.help
        self.restoring = staged.restoring
        self._clock_held_for_board = staged.clock_held_for_board
        self.inference.reset()

    def cannot_record(self, problem: str, now: float) -> Effects:
        """Writing the journal failed with ``problem``: show it until it works again."""
        first = self.unrecorded is None
        self.unrecorded = problem
        log = (f"Cannot record the game: {problem}. Moves wait until the journal can be "
               f"written; retrying.",) if first else ()
        return self._show(now, force=first) + Effects(status=self.status(), log=log)

    def recording_again(self, now: float) -> Effects:
        """The journal could be written again after :meth:`cannot_record`."""
        if self.unrecorded is None:
            return Effects()
        self.unrecorded = None
        return self._show(now, force=True) + Effects(
            status=self.status(), log=("The journal can be written again; play on.",))

    def _stage(self) -> None:
        self._staged = _Staged(
            copy.deepcopy(self.clock), self.result, self.last_move, list(self.flags),
            self._mismatch_recorded, self._last_clock_write, self._last_frame,
            (self.window, self._window_player), self._ending, help=replace(self.help),
            restoring=self.restoring, clock_held_for_board=self._clock_held_for_board)

    def _touch_game(self) -> None:
        """The game is about to change: keep a copy to put back (once per input)."""
        if self._staged is not None and self._staged.game is None:
            self._staged.game = self.game.copy()

    # ----------------------------------------------------------------- the engine's help
    @property
    def hints_allowed(self) -> bool:
        """Whether a player may ask for a hint now: hints on, and under ``arbiter`` only
        when the referee allows them."""
        return self.coach.allowed

    @property
    def private_hints(self) -> bool:
        """Whether a hint must stay with the player who asked (hidden hands): only that
        player's seat page shows it (:meth:`seat_hint`)."""
        return self.coach.private(self.game)

    @property
    def hints_on_board(self) -> bool:
        """Whether the hint on display lights the board and names itself in the status."""
        return self.coach.on_board(self.game)

    def seat_hint(self, seat: int) -> tuple[str, frozenset[str]] | None:
        """The private hint for ``seat``'s page: (its text, the cells still to play) while
        ``seat`` is to move and the game follows it; None for anyone else, in an open game
        (whose hint is on the board) or when there is none."""
        return self.coach.seat_hint(seat, self.game, self.help)

    def allow_hints(self, allowed: bool, now: float) -> Effects:
        """The referee allows (or forbids again) hints under the arbiter policy."""
        said = self.coach.allow(allowed, self.help)
        return self._show(now, force=True) + Effects(log=(said,), status=self.status())

    def _ask_hint(self, now: float) -> Effects:
        """Ask the engine for the best turn of the player to move, or the next best."""
        opponent = self.opponent
        busy = opponent.says(self.game, self.help) if (
            opponent is not None and opponent.to_move(self.game)) else ""
        return self.coach.ask(self.game, self.help, busy=busy)

    def _hint_asked_on_board(self, cells: Mapping[str, str], now: float) -> Effects:
        """The hint gesture, or a piece put on the hint cell, asks for a hint."""
        if self.coach.asked_on_board(self.game, self.game.view(self.capability), cells,
                                     self.cells, now):
            return self._ask_hint(now)
        return Effects()

    def _computer_to_move(self) -> bool:
        """The computer's side is to move and its move is to be checked."""
        return self.opponent is not None and self.opponent.to_move(self.game)

    def _think(self) -> Effects:
        """Ask for the computer's turn when its side is to move and it has none shown."""
        if self.opponent is None or self.unrecorded is not None:
            return Effects()
        return self.opponent.think(self.game, self.help)

    def search_failed(self, search: Search) -> Effects:
        """The daemon could not run ``search`` (the engine failed). A hint may be asked
        again; the computer's turn in that position is not asked again (it would fail
        again), and any legal move made for it on the board is taken instead."""
        self.coach.forget(search)
        if self.opponent is None or search.purpose != "opponent":
            return Effects(log=(f"The engine failed ({search.purpose}).",))
        return self.opponent.failed(search, self.game) + Effects(status=self.status())

    def on_answer(self, found: Answer, now: float, wall: float) -> Effects:
        """The engine's answer to a :class:`Search` this session asked; ignored if the
        game has moved on since (a new question is asked where needed)."""
        self._stage()
        search, game = found.search, self.game
        self.coach.forget(search)
        if self.opponent is not None:
            self.opponent.forget(search)
        if tuple(game.history) != search.at + tuple(search.played) or game.outcome():
            return self._think()
        if search.purpose == "opponent" and self.opponent is not None:
            fx = self.opponent.answered(found, game, self.help, now, wall)
        else:
            fx = self.coach.answered(found, game, self.help, now, wall)
        if not fx.journal:
            return fx
        return fx + self._show(now, force=True) + Effects(status=self.status())

    def resume_help(self, entries: Iterable[Entry]) -> None:
        """After a restart: show again the hints, the computer's turn and the blunder the
        journal holds for the position in play, and the referee's word on hints."""
        allowed = self.help.restore(self.game, entries)
        if allowed is not None:
            self.coach.referee_allows = allowed

    def _refuse(self, result: Result, now: float) -> Effects:
        """A move on the board that is not the computer's turn: shown wrong, not taken."""
        assert self.opponent is not None
        self.result = result
        self._refused = getattr(result, "cells", frozenset())
        # An ambiguity has no one move to name (and, with hidden cards, naming its
        # candidates would tell the hand): its cells say where.
        moves = getattr(result, "moves", ())
        seen = " ".join(map(str, moves)) or " ".join(sorted(self._refused))
        says = self.opponent.says(self.game, self.help)
        return self._show(now, force=True) + Effects(
            log=(f"Not the computer's move ({seen}): put it back. {says}",),
            status=self.status())

    def _board_still_shows_last(self) -> str:
        """If the board reads the position after the last action, and that action changed
        the board, what to do there to take it back ('' otherwise)."""
        return take_back_steps(self.game, self.capability, self._sensed)

    def prepare(self) -> None:
        """Precompute the expectations of the position in play (call when idle)."""
        if self.game.outcome() is None:
            self.inference.expectations(self.game)

    # ----------------------------------------------------------------- decisions
    def _handle(self, result: Result, now: float, wall: float) -> Effects:
        if self.game.outcome() is not None:
            if self._ending is not None and isinstance(result, Amended):
                return self._amend(result, now, wall)  # the last action set one cell off
            # The game is over: the players clear the board now. Nothing they do is a
            # takeback or an error; setting up the start position begins a new game (the
            # daemon's business).
            self.result = Pending()
            return self._show(now)
        if self.restoring is not None:
            if not (isinstance(result, Pending) and result.in_position):
                return self._awaiting_restore(now)
            waited = isinstance(self.result, Mismatch)
            ply, self.restoring = self.restoring, None
            said = (() if self._setting_up and not waited else
                    ("The board is set up for the new game; play.",) if self._setting_up else
                    (f"The board shows the corrected position (ply {ply}); play on.",))
            self.result = result
            return Effects(log=said) + self._handle(result, now, wall)
        self.result = result
        self._refused = frozenset()
        if self.opponent is not None:
            judged = self.opponent.judge(result, self.game, self.help, self.capability,
                                         self._window_player)
            if judged is None:
                return self._refuse(result, now)
            result = judged
        if isinstance(result, Accepted):
            self._mismatch_recorded = False
            return self._accept(result.moves, result.cells, now, wall)
        if isinstance(result, Amended):
            self._mismatch_recorded = False
            return self._amend(result, now, wall)
        if isinstance(result, Takeback):
            self._mismatch_recorded = False
            return self._takeback(result.plies, now, wall, sensed=True)
        if isinstance(result, Mismatch):
            return self._mismatch(result, now, wall)
        if isinstance(result, Pending) and result.in_position:
            self._mismatch_recorded = False
        return self._show(now) + Effects(status=self.status())

    def _accept(
        self, moves: tuple[Any, ...], cells: frozenset[str], now: float, wall: float
    ) -> Effects:
        game = self.game
        entries: list[Entry] = []
        logs: list[str] = []
        before = game.view(self.capability)
        self._touch_game()
        reviews = Effects()
        for move in moves:
            player = game.current_player
            if player == self._window_player:
                self.window += 1
            else:
                self.window, self._window_player = 1, player
            game.apply(move)
            switched = game.current_player != player or game.outcome() is not None
            clock_state = None
            if self.clock is not None:
                if game.outcome() is not None:
                    self.clock.pause(now)
                elif switched:
                    self._clock_switch(now)
                clock_state = self.clock.to_dict(now)
                self._last_clock_write = now
            entries.append(ActionEntry(str(move), player, len(game.history), wall, now,
                                       clock_state))
            logs.append(f"{game.player_names[player]}: {move}")
            if switched and (self.opponent is None or not self.opponent.plays(player)):
                reviews += self.coach.review(*turn_before(game, player), game)
        self.last_move = cells or frozenset(
            c for c, _ in change_between(before, game.view(self.capability)))
        self.result = Pending()
        fx = Effects(journal=tuple(entries), log=tuple(logs)) + reviews
        if game.outcome() is not None:
            self._ending = (now, wall)  # the result waits: see _release
        return fx + self._show(now, force=True) + Effects(status=self.status())

    def _clock_switch(self, now: float) -> None:
        assert self.clock is not None
        # Expiries found while switching are reported by the next tick's events anyway.
        self.clock.switch(self.game.current_player, now)

    def _amend(self, result: Amended, now: float, wall: float) -> Effects:
        """Replace the last mover's last actions by what the board now shows: a piece set
        one cell off and moved on is a correction, not a takeback and not an illegal move."""
        game = self.game
        self._touch_game()
        player_before = game.current_player
        ended, self._ending = self._ending, None
        replaced = [game.undo() for _ in range(result.replaced)][::-1]
        player = game.current_player
        for move in result.moves:
            game.apply(move)
        self.window += len(result.moves) - result.replaced
        clock_state = None
        if self.clock is not None:
            if game.outcome() is not None:
                self.clock.pause(now)
            elif ended is not None:  # the game goes on after all: the clocks run again
                self.clock.resume(now)
                if game.current_player != player:
                    self._clock_switch(now)
            elif game.current_player != player_before:
                self.clock.switch(game.current_player, now, completed=False)
            clock_state = self.clock.to_dict(now)
        old = " ".join(map(str, replaced))
        new = " ".join(map(str, result.moves))
        logs = [f"{game.player_names[player]}: {old} corrected to {new}."]
        if self.policy == "arbiter":
            logs.append("Correction recorded for the arbiter.")
        entry = AmendEntry(tuple(map(str, replaced)), tuple(map(str, result.moves)), player,
                           len(game.history), wall, now, clock_state)
        self.last_move = result.cells
        self.result = Pending()
        if game.outcome() is not None:
            self._ending = (now, wall)  # the result waits: see _release
        return Effects(journal=(entry,), log=tuple(logs)) + self._show(
            now, force=True) + Effects(status=self.status())

    def _release(self, now: float) -> Effects:
        """The grace time after the action that ended the game has passed with no
        correction: the result is journaled, with the time of that action."""
        assert self._ending is not None
        outcome = self.game.outcome()
        (ended, wall), self._ending = self._ending, None
        if outcome is None:
            return Effects()
        return self._finish(outcome, ended, wall) + self._show(now, force=True)

    def _takeback(self, plies: int, now: float, wall: float, *, sensed: bool) -> Effects:
        game = self.game
        # The last mover taking back their own actions before the next player acted is
        # correcting them, not taking back a move: no flag.
        correction = plies <= self.window
        self.window = max(0, self.window - plies)
        entries: list[Entry] = []
        logs: list[str] = []
        self._touch_game()
        for _ in range(plies):
            if not game.history:
                break
            player_before = game.current_player
            move = game.undo()
            if self.clock is not None:
                if game.current_player != player_before:
                    self.clock.switch(game.current_player, now, completed=False)
                else:
                    self.clock.resume(now)
            entries.append(UndoEntry(str(move), game.current_player, wall, now,
                                     self.clock.to_dict(now) if self.clock else None))
            logs.append(f"Took back {move}.")
        if self.policy == "arbiter" and sensed and entries and not correction:
            self.flags[game.current_player] += 1
            logs.append("Takeback recorded for the arbiter.")
        self.inference.reset()
        self.last_move = frozenset()
        self.result = Pending()
        return Effects(journal=tuple(entries), log=tuple(logs)) + self._show(
            now, force=True) + Effects(status=self.status())

    def _mismatch(self, result: Mismatch, now: float, wall: float) -> Effects:
        fx = Effects()
        if not self._mismatch_recorded:
            self._mismatch_recorded = True
            player = self.game.current_player
            sensed = {c: (self._sensed or {}).get(c, "") for c in sorted(result.cells)}
            reason = self._why(result.cells)
            if self.policy == "arbiter":
                self.flags[player] += 1
            fx += Effects(
                journal=(IllegalEntry(sensed, reason, player, wall, result.since),),
                log=(f"Illegal position: {self.refusal() or reason}",), resync=True)
        return fx + self._show(now) + Effects(status=self.status())

    def _why(self, cells: frozenset[str]) -> str:
        expected = self.inference.expectations(self.game).current
        sensed = self._sensed or {}
        parts = []
        ordered = sorted(cells)
        for cell in ordered[:WHY_CELLS]:
            want, got = expected.get(cell, ""), sensed.get(cell, "")
            parts.append(f"{cell} should be {want or 'empty'}, reads {got or 'empty'}")
        if len(ordered) > WHY_CELLS:
            # A whole board misplaced (a camera on the wrong game) names fifty cells: a line
            # a person can read names a few; the entry's ``sensed`` keeps every one.
            parts.append(f"and {len(ordered) - WHY_CELLS} more cells")
        return "; ".join(parts) or "the board does not match"

    def _clock_events(self, events: list[Any], now: float, wall: float) -> Effects:
        fx = Effects()
        game = self.game
        for event in events:
            name = game.player_names[event.player]
            if isinstance(event, LowTime):
                fx += Effects(log=(f"{name}: {event.seconds_left:.0f} s left ({event.kind}).",))
            elif isinstance(event, TimeOut):
                before = len(game.history)
                self._touch_game()
                outcome = game.time_out(event.player)
                played = game.history[before:]
                assert self.clock is not None
                if played and game.outcome() is None:
                    self._clock_switch(now)
                entry = TimeoutEntry(event.player, event.kind, wall, now, outcome,
                                     tuple(str(m) for m in played), self.clock.to_dict(now))
                what = "loses on time" if outcome else (
                    "loses the turn" if played else "is out of time (warning)")
                fx += Effects(journal=(entry,), log=(f"{name} {what}.",))
                if outcome is not None:
                    fx += self._finish(outcome, now, wall, adjudicated=False)
                self.inference.reset()
                self.window = 0
                fx += self._show(now, force=True) + Effects(status=self.status())
        return fx

    def _finish(self, outcome: Outcome, now: float, wall: float, *,
                adjudicated: bool = True) -> Effects:
        if self.clock is not None:
            self.clock.pause(now)
        entry = ResultEntry.of(outcome, self.game.num_players, wall=wall, now=now)
        said = describe(outcome, self.game.player_names)
        return Effects(journal=(entry,), log=(f"Game over: {said}.",),
                       finished=outcome) + self._show(now, force=True) + Effects(
                           status=self.status())

    # ----------------------------------------------------------------- output
    def scene(self, now: float) -> Scene:
        """What the LEDs should show now: the last move and the timer, plus the state of
        the reading in play (lifted pieces, candidates, errors), or the winning line."""
        game, result = self.game, self.result
        if self.unrecorded is not None:
            return Scene(unrecorded=True)
        base = self.help.scene(Scene(last_move=self.last_move,
                                     disconnected=self.disconnected is not None),
                               game.history, self.hints_on_board)
        if game.outcome() is not None:
            return replace(base, winning=frozenset(game.winning_cells()))
        if self.clock is not None:
            shown = self.clock.display(now)
            if shown is not None:
                base = replace(base, timer=timer_colours(
                    shown.fraction_left, shown.seconds_left, len(self.strip.timer), now))
        if isinstance(result, Pending) and result.changed and result.known:
            return replace(base, lifted=result.lifted,
                           targets=result.targets if self.shows_targets else frozenset())
        if self._refused:  # before the candidates: a refused ambiguity is no choice
            return replace(base, error=self._refused)
        if isinstance(result, Ambiguous):
            return replace(base, candidates=result.cells)
        if isinstance(result, Mismatch):
            # Teaching: where a piece belongs, besides blinking where the board is wrong.
            expected = self.inference.expectations(game).current if self.shows_targets else {}
            return replace(base, last_move=frozenset(), error=result.cells,
                           targets=frozenset(c for c in result.cells if expected.get(c)))
        return base

    @property
    def shows_targets(self) -> bool:
        """Whether lifted pieces light their legal targets: teaching, with hints on."""
        return self.hints and self.policy == "teaching"

    def frame(self, now: float) -> Frame:
        """The LED frame of :meth:`scene` at ``now``."""
        return render(self.strip, self.scene(now), now)

    def _show(self, now: float, force: bool = False) -> Effects:
        self._now = max(self._now, now)
        frame = self.frame(now)
        if frame == self._last_frame and not force:
            return Effects()
        self._last_frame = frame
        return Effects(frame=frame)

    def status(self) -> str:
        """One line for systemd's STATUS and the terminal: who is to move and what the rules
        expect of them, why a reading was refused, the clocks."""
        game = self.game
        if self.unrecorded is not None:
            return (f"cannot record the game ({self.unrecorded}): moves wait until the "
                    f"journal can be written again")
        if self.disconnected is not None:
            return f"board disconnected: {self.disconnected}"
        outcome = game.outcome()
        if outcome is not None:
            text = f"{game.name}: game over, {describe(outcome, game.player_names)}"
        else:
            expected = game.expectation()
            text = f"{game.name}: {expected or game.player_names[game.current_player] + ' to move'}"
            if self.restoring is not None:
                steps = self.restore_steps()
                text += (", set up the board for the new game" if self._setting_up else
                         f", the referee corrected the game to ply {self.restoring}: set the "
                         f"board to it") + (f" ({steps})" if steps else "")
            elif isinstance(self.result, Mismatch):
                refused = self.refusal()
                text += ", board does not match" + (f": {refused}" if refused else "") + (
                    " (correct the red cells)")
            elif self._refused:
                text += (f", not the computer's move on {' '.join(sorted(self._refused))}: "
                         f"put it back")
            elif isinstance(self.result, Pending) and self.result.unread:
                text += (f", cannot read {' '.join(sorted(self.result.unread))} surely (a "
                         "lamp's reflection?): a move there waits; move the lamp or the "
                         "camera, or type the move")
            elif isinstance(self.result, Ambiguous):
                # The first action of each candidate tells them apart: playing it, the
                # board already shows the rest.
                options = " or ".join([*dict.fromkeys(
                    f"play {seq[0]}" for seq in self.result.candidates)]
                    + ["undo"] * bool(self.result.takeback))
                text += f", ambiguous: type {options}"
            text += self.help.status(game.history, self._computer_to_move(),
                                     self.hints_on_board)
            clocks = self.clock_text(self._now)
            if clocks:
                text += f", {clocks}"
        if self.policy == "arbiter" and any(self.flags):
            text += ", flagged " + " ".join(
                f"{game.player_names[p]}:{n}" for p, n in enumerate(self.flags) if n)
        return text

    def clock_text(self, now: float) -> str:
        """The clocks' times: 'White 4:58, Black 5:00' and the move limit left, or ''."""
        clock = self.clock
        if clock is None:
            return ""
        parts = []
        for player, name in enumerate(self.game.player_names):
            left = clock.remaining(player, now)
            if left is not None:
                parts.append(f"{name} {_minutes(left)}")
        move = clock.move_remaining(now)
        if move is not None:
            parts.append(f"move {_minutes(move)} left")
        if clock.turn is None and clock.active:
            parts.append("timing starts with the first move")
        return ", ".join(parts)

    def refusal(self) -> str:
        """Why the board's reading is not a legal action, in the rules' words, when it reads
        as an attempted action ('illegal: d4-c3: a man moves forward only'); '' when the
        attempt cannot be told."""
        game, sensed = self.game, self._sensed
        if sensed is None or game.outcome() is not None:
            return ""
        current = game.view(self.capability)
        gone = sorted(c for c, v in current.items() if v and sensed.get(c, "") != v)
        came = sorted(c for c, v in sensed.items()
                      if v and c in self.cells and current.get(c, "") != v)
        tried: list[str] = []
        if len(came) == 1 and not gone:  # a piece put down
            tried += [came[0], f"{sensed[came[0]]}@{came[0]}"]
        elif len(came) == 1:  # a piece moved: with more gone, a jump first
            kinds = ("x", "-") if len(gone) > 1 else ("-", "x")
            tried += [f"{src}{kind}{came[0]}" for kind in kinds for src in gone]
        elif not came and len(gone) == 1:
            tried.append(f"x{gone[0]}")
        for text in tried:
            try:
                move = game.parse_move(text)
            except ValueError:
                continue
            if not game.is_legal(move):
                return f"illegal: {game.explain(move)}"
        return ""


def _minutes(seconds: float) -> str:
    whole = int(seconds + 0.999)  # a clock shows 0:00 only when the time is out
    return f"{whole // 60}:{whole % 60:02d}"


def last_action_cells(game: Game[Any], capability: Capability) -> frozenset[str]:
    """The cells ``game``'s last action changed, as ``capability`` sees them (none before
    the first action)."""
    if not game.history:
        return frozenset()
    before = game.copy()
    before.undo()
    return frozenset(c for c, _ in change_between(before.view(capability),
                                                  game.view(capability)))
