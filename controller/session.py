"""The pure core of the daemon: a game, its inference and clock, in; effects out.

The daemon hands every sensor event, console command and periodic tick to a
:class:`Session` with the time (``now`` monotonic, ``wall`` Unix), and applies the
:class:`Effects` it gets back in order: append the journal entries (fsynced), then show the
LED frame, then the status and log lines. Nothing here does I/O or reads a clock, so whole
games run in tests instantly.

Referee policies (``[game] policy``):

- ``teaching``: lifted pieces light their legal targets (if ``hints``); an illegal move
  blinks red where the board differs and must be taken back before play goes on; a takeback
  of earlier moves is allowed.
- ``arbiter``: no hints unless asked; an illegal move or a takeback is recorded in the
  journal with its time and flagged (counted per player in the status), and the position
  must still be corrected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from tavola import journal as J
from tavola.clock import Clock, LowTime, TimeOut, timer_colours
from tavola.feedback import Frame, LedMap, Scene, Strip, render
from tavola.games import Capability, Game, Outcome
from tavola.inference import (
    Accepted,
    Ambiguous,
    Amended,
    Inference,
    Mismatch,
    Pending,
    Result,
    Takeback,
    change_between,
)
from tavola.play import describe

Policy = Literal["teaching", "arbiter"]
POLICIES: tuple[str, ...] = ("teaching", "arbiter")


class StartupError(ValueError):
    """The game cannot be followed with this sensor or layout; the message says what to do."""


@dataclass(frozen=True)
class Effects:
    """What the daemon must do, in this order."""

    journal: tuple[dict[str, Any], ...] = ()  # append and fsync before the frame
    frame: Frame | None = None  # None: the LEDs stay as they are
    status: str | None = None  # one line: sd_notify STATUS, the terminal
    log: tuple[str, ...] = ()  # human-readable events
    finished: Outcome | None = None  # the game ended with this entry: file the record

    def __add__(self, other: Effects) -> Effects:
        return Effects(
            self.journal + other.journal,
            other.frame if other.frame is not None else self.frame,
            other.status if other.status is not None else self.status,
            self.log + other.log,
            other.finished or self.finished,
        )


def check_startup(
    game: Game[Any], capability: Capability, layout_cells: Iterable[str] | None
) -> None:
    """Refuse a game the sensor cannot follow, or a layout that lacks the game's cells."""
    if game.needs == "identity" and capability != "identity":
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
        settle: float = 0.25,
        grace: float = 1.5,
        clock: Clock | None = None,
        last_clock_write: float | None = None,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
        check_startup(game, capability, cells)
        self.game = game
        self.strip = Strip.of(layout)
        self.capability = capability
        self.cells = tuple(cells) or tuple(game.view())
        self.policy = policy
        self.hints = hints
        self.clock = clock
        trays = frozenset(getattr(layout, "sensed", ())) - set(self.cells)
        self.inference = Inference(capability, settle=settle, grace=grace, ignore=trays)
        self.result: Result = Pending()
        self.last_move: frozenset[str] = frozenset()
        self.disconnected: str | None = None
        self.flags = [0] * game.num_players
        self._mismatch_recorded = False
        self._last_frame: Frame | None = None
        self._last_clock_write = last_clock_write
        self._sensed: dict[str, str] | None = None
        # The amendment window: the last actions, all by one player, that may still be
        # corrected on the board because the next player has not acted yet.
        self.window = 0
        self._window_player: int | None = None

    # ----------------------------------------------------------------- inputs
    def start(self, now: float, wall: float) -> Effects:
        """The first frame; the clock starts (or resumes) for the player to move."""
        if self.clock is not None and self.game.outcome() is None:
            if self.clock.turn is None:
                self.clock.start(self.game.current_player, now)
            else:
                self.clock.resume(now)
        return self._show(now, force=True) + Effects(status=self.status())

    def on_snapshot(
        self, cells: Mapping[str, str], now: float, wall: float,
        uncertain: frozenset[str] = frozenset(),
    ) -> Effects:
        """A new settled reading of the board."""
        fx = Effects()
        if self.disconnected is not None:
            self.disconnected = None
            fx += Effects(log=("Board reconnected; resynchronised from a full reading.",))
        self._sensed = dict(cells)
        result = self.inference.update(self.game, cells, now, uncertain, self.window)
        return fx + self._handle(result, now, wall)

    def on_fault(self, message: str, now: float) -> Effects:
        """The sensor lost the board: show it, keep the game, wait for the next snapshot."""
        self.disconnected = message
        return self._show(now, force=True) + Effects(
            status=self.status(), log=(f"Board disconnected: {message}",))

    def tick(self, now: float, wall: float) -> Effects:
        """Time passes: settle and grace timers, the clock, blinking LEDs."""
        fx = Effects()
        if self._sensed is not None and self.disconnected is None:
            before = self.result
            result = self.inference.update(self.game, None, now, window=self.window)
            if result != before:
                fx += self._handle(result, now, wall)
        if self.clock is not None and self.game.outcome() is None:
            fx += self._clock_events(self.clock.tick(now), now, wall)
        if self.clock is not None and self.game.outcome() is None and (
            self._last_clock_write is None or J.checkpoint_due(self._last_clock_write, now)
        ):
            self._last_clock_write = now
            fx += Effects(journal=(J.clock_entry(self.clock.to_dict(now), wall=wall, now=now),))
        return fx + self._show(now)

    def command(self, text: str, now: float, wall: float) -> Effects:
        """A line from the console: a move (to resolve an ambiguity, or an action the
        board cannot show), ``undo``, ``resign``, ``draw``."""
        text = text.strip()
        game = self.game
        if game.outcome() is not None:
            return Effects(log=("The game is over and recorded; set up the pieces for the "
                                "next game, or type new.",))
        if text == "undo":
            if not game.history:
                return Effects(log=("Nothing to undo.",))
            return self._takeback(1, now, wall, sensed=False)
        if text in ("resign", "draw"):
            player = game.current_player
            outcome = (Outcome(None, "agreement") if text == "draw" else
                       Outcome(None if game.num_players != 2 else 1 - player, "resignation"))
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
        if self._sensed is not None:  # does the board already show it?
            fx += self._handle(self.inference.update(game, None, now, window=self.window),
                               now, wall)
        return fx

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

    def prepare(self) -> None:
        """Precompute the expectations of the position in play (call when idle)."""
        if self.game.outcome() is None:
            self.inference.expectations(self.game)

    # ----------------------------------------------------------------- decisions
    def _handle(self, result: Result, now: float, wall: float) -> Effects:
        if self.game.outcome() is not None:
            # The game is over and filed: the players clear the board now. Nothing they do
            # is a takeback or an error; setting up the start position begins a new game
            # (the daemon's business).
            self.result = Pending()
            return self._show(now)
        self.result = result
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
        entries: list[dict[str, Any]] = []
        logs: list[str] = []
        before = game.view(self.capability)
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
            entries.append(J.action_entry(move, player=player, ply=len(game.history),
                                          wall=wall, now=now, clock=clock_state))
            logs.append(f"{game.player_names[player]}: {move}")
        self.last_move = cells or frozenset(
            c for c, _ in change_between(before, game.view(self.capability)))
        self.result = Pending()
        fx = Effects(journal=tuple(entries), log=tuple(logs))
        outcome = game.outcome()
        if outcome is not None:
            fx += self._finish(outcome, now, wall, adjudicated=False)
        return fx + self._show(now, force=True) + Effects(status=self.status())

    def _clock_switch(self, now: float) -> None:
        assert self.clock is not None
        # Expiries found while switching are reported by the next tick's events anyway.
        self.clock.switch(self.game.current_player, now)

    def _amend(self, result: Amended, now: float, wall: float) -> Effects:
        """Replace the last mover's last actions by what the board now shows: a piece set
        one cell off and moved on is a correction, not a takeback and not an illegal move."""
        game = self.game
        player_before = game.current_player
        replaced = [game.undo() for _ in range(result.replaced)][::-1]
        player = game.current_player
        for move in result.moves:
            game.apply(move)
        self.window += len(result.moves) - result.replaced
        clock_state = None
        if self.clock is not None:
            if game.outcome() is not None:
                self.clock.pause(now)
            elif game.current_player != player_before:
                self.clock.switch(game.current_player, now, completed=False)
            clock_state = self.clock.to_dict(now)
        old = " ".join(map(str, replaced))
        new = " ".join(map(str, result.moves))
        logs = [f"{game.player_names[player]}: {old} corrected to {new}."]
        if self.policy == "arbiter":
            logs.append("Correction recorded for the arbiter.")
        entry = J.amend_entry(replaced, result.moves, player=player, ply=len(game.history),
                              wall=wall, now=now, clock=clock_state)
        self.last_move = result.cells
        self.result = Pending()
        fx = Effects(journal=(entry,), log=tuple(logs))
        outcome = game.outcome()
        if outcome is not None:
            fx += self._finish(outcome, now, wall, adjudicated=False)
        return fx + self._show(now, force=True) + Effects(status=self.status())

    def _takeback(self, plies: int, now: float, wall: float, *, sensed: bool) -> Effects:
        game = self.game
        # The last mover taking back their own actions before the next player acted is
        # correcting them, not taking back a move: no flag.
        correction = plies <= self.window
        self.window = max(0, self.window - plies)
        entries: list[dict[str, Any]] = []
        logs: list[str] = []
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
            entries.append(J.undo_entry(move, player=game.current_player, wall=wall, now=now,
                                        clock=self.clock.to_dict(now) if self.clock else None))
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
                journal=(J.illegal_entry(sensed=sensed, reason=reason, player=player,
                                         wall=wall, now=result.since),),
                log=(f"Illegal position: {reason}",))
        return fx + self._show(now) + Effects(status=self.status())

    def _why(self, cells: frozenset[str]) -> str:
        expected = self.inference.expectations(self.game).current
        sensed = self._sensed or {}
        parts = []
        for cell in sorted(cells):
            want, got = expected.get(cell, ""), sensed.get(cell, "")
            parts.append(f"{cell} should be {want or 'empty'}, reads {got or 'empty'}")
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
                outcome = game.time_out(event.player)
                played = game.history[before:]
                assert self.clock is not None
                if played and game.outcome() is None:
                    self._clock_switch(now)
                entry = J.timeout_entry(event.player, event.kind, wall=wall, now=now,
                                        outcome=outcome, played=played,
                                        clock=self.clock.to_dict(now))
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
        entry = J.result_entry(outcome, self.game.num_players, wall=wall, now=now)
        return Effects(journal=(entry,), log=(f"Game over: {describe(self.game, outcome)}.",),
                       finished=outcome) + self._show(now, force=True) + Effects(
                           status=self.status())

    # ----------------------------------------------------------------- output
    def scene(self, now: float) -> Scene:
        """What the LEDs should show now: the last move and the timer, plus the state of
        the reading in play (lifted pieces, candidates, errors), or the winning line."""
        game, result = self.game, self.result
        base = Scene(last_move=self.last_move, disconnected=self.disconnected is not None)
        if game.outcome() is not None:
            return replace(base, winning=frozenset(game.winning_cells()))
        if self.clock is not None:
            shown = self.clock.display(now)
            if shown is not None:
                base = replace(base, timer=timer_colours(
                    shown.fraction_left, shown.seconds_left, len(self.strip.timer), now))
        if isinstance(result, Pending) and result.changed and result.known:
            return replace(base, lifted=result.lifted,
                           targets=result.targets if self.hints else frozenset())
        if isinstance(result, Ambiguous):
            return replace(base, candidates=result.cells)
        if isinstance(result, Mismatch):
            # Teaching: where a piece belongs, besides blinking where the board is wrong.
            expected = self.inference.expectations(game).current if self.hints else {}
            return replace(base, last_move=frozenset(), error=result.cells,
                           targets=frozenset(c for c in result.cells if expected.get(c)))
        return base

    def frame(self, now: float) -> Frame:
        return render(self.strip, self.scene(now), now)

    def _show(self, now: float, force: bool = False) -> Effects:
        frame = self.frame(now)
        if frame == self._last_frame and not force:
            return Effects()
        self._last_frame = frame
        return Effects(frame=frame)

    def status(self) -> str:
        """One line for systemd's STATUS and the terminal."""
        game = self.game
        if self.disconnected is not None:
            return f"board disconnected: {self.disconnected}"
        outcome = game.outcome()
        if outcome is not None:
            text = f"{game.name}: game over, {describe(game, outcome)}"
        else:
            text = f"{game.name}: {game.player_names[game.current_player]} to move"
            if isinstance(self.result, Mismatch):
                text += ", board does not match (correct the red cells)"
            elif isinstance(self.result, Ambiguous):
                options = " or ".join([" ".join(map(str, seq)) for seq in
                                       self.result.candidates]
                                      + ["undo"] * bool(self.result.takeback))
                text += f", ambiguous: {options} (type the move)"
        if self.policy == "arbiter" and any(self.flags):
            text += ", flagged " + " ".join(
                f"{game.player_names[p]}:{n}" for p, n in enumerate(self.flags) if n)
        return text
