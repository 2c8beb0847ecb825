"""The daemon: the only imperative shell. One asyncio loop around a :class:`Session`.

It builds the game (resumed from the journal when one is in progress), the layout and the
backends named in the config, then feeds sensor events, console lines and a periodic tick to
the session and applies the effects in order: journal entries (fsynced), the LED frame, the
status (systemd's STATUS and the terminal), log lines. Blocking drivers are the backends'
business (``asyncio.to_thread`` inside them); there are no threads or queues here.

SIGTERM or SIGINT: the clock is paused and checkpointed, the LEDs cleared, the backends
closed, exit 0. A ``kill -9`` loses nothing that was confirmed: every action was fsynced
before its LEDs lit, and the next start replays the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from tavola import journal as J
from tavola.clock import Clock
from tavola.config import Config
from tavola.feedback import OFF
from tavola.games import Game
from tavola.hardware import load_leds, load_sensor
from tavola.hardware.base import LedBackend, SensorBackend, SensorFault, Snapshot
from tavola.hardware.layout import Layout, LayoutError
from tavola.journal import Journal, JournalError
from tavola.notify import Notifier
from tavola.session import Effects, Session, StartupError

log = logging.getLogger("tavola")

TICK_SECONDS = 0.05  # timers, blinking and the watchdog run at 20 Hz
SESSION_WORDS = ("undo", "resign", "draw", "new", "status", "help", "quit")
CONSOLE_HELP = """\
Console: sensor events go to the simulated board (lift d2, place d4, d2-d4, slide a1 b2 c3,
bounce d4, knock c3 d4, noise, unplug, replug; 'help' for all of them). Also:
  play MOVE   declare an action the board cannot show (a pass, a dead card), or pick
              one of several candidates when the move is ambiguous
  undo        take back the last action        resign, draw   end the game
  new         start a new game                 status         show the state
  quit        stop the daemon (the game is kept and resumes at the next start)"""


class Daemon:
    """Runs one board until stopped. ``clock`` and ``wall`` are injectable for tests."""

    def __init__(
        self,
        config: Config,
        *,
        console: TextIO | None = None,
        out: TextIO | None = None,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        sensor_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.console = console
        self.out = out
        self.clock = clock
        self.wall = wall
        self.notifier = Notifier(env)
        self.journal = Journal(config.journal.directory)
        self.extra_sensor_options = dict(sensor_options or {})
        self.stopping = asyncio.Event()
        self.ready = False
        self.session: Session
        self.sensor: SensorBackend
        self.leds: LedBackend
        self.layout: Layout
        self._last_draw = 0.0
        self._log_tail: list[str] = []

    # ----------------------------------------------------------------- setup
    def _resume_or_start(self) -> tuple[Game[Any], Clock | None]:
        try:
            record = self.journal.resume()
            if record is not None:
                replayed = J.replay(record.header, record.entries, record.lines)
                game = replayed.game
                clock = None
                if replayed.clock is not None:
                    clock = Clock.from_dict(replayed.clock)
                elif record.header.get("clock") is not None:
                    clock = self._new_clock(game)
                if game.name != self.config.game.name:
                    log.warning("resuming the unfinished %s game from the journal; the "
                                "configured %s starts after it", game.name,
                                self.config.game.name)
                self._say(f"Resumed {game.name} game {record.id} at ply {len(game.history)}.")
                return game, clock
        except JournalError as exc:
            log.error("%s", exc)
            kept = self.journal.set_aside()
            self._say(f"The journal could not be replayed; kept it as {kept}. New game.")
        game = self.config.game.new_game()
        clock = self._new_clock(game)
        wall = self.wall()
        self.journal.append(J.start_entry(game, game_id=self.journal.new_id(wall, game.name),
                                          wall=wall, clock=self.config.clock))
        return game, clock

    def _new_clock(self, game: Game[Any]) -> Clock | None:
        spec = self.config.clock
        if spec.mode == "none" and not spec.move_seconds and not game.move_seconds:
            return None
        return Clock(spec, game.num_players, game_move_seconds=game.move_seconds)

    def _layout(self, game: Game[Any]) -> Layout:
        file = self.config.layout.file
        layout = Layout.load(file) if file else Layout.for_game(game.name)
        layout.check_cells(game.view(), game=game.name)
        return layout

    def _backends(self, game: Game[Any]) -> None:
        cfg = self.config
        options = dict(cfg.sensor.options)
        if cfg.sensor.backend == "sim":
            options.setdefault("capability", game.needs)
            options.setdefault("clock", self.clock)
            options.setdefault("start", game.view("identity"))
        elif cfg.sensor.backend == "camera":  # it must know which pieces to look for
            options.setdefault("game", game.name)
            options.setdefault("players", game.num_players)
            options.setdefault("start", game.view("identity"))  # Quinque's tile names
        options.update(self.extra_sensor_options)
        self.sensor = load_sensor(cfg.sensor.backend)(self.layout, **options)
        self.leds = load_leds(cfg.leds.backend)(
            self.layout, brightness=cfg.leds.brightness, **dict(cfg.leds.options))

    def _new_session(self, game: Game[Any], clock: Clock | None) -> Session:
        cfg = self.config
        return Session(
            game, self.layout, self.sensor.capability, cells=self.layout.cells,
            policy=cfg.game.policy, hints=cfg.game.hints, settle=cfg.inference.settle,
            grace=cfg.inference.grace, clock=clock, last_clock_write=self.clock(),
        )

    # ----------------------------------------------------------------- running
    async def run(self) -> int:
        """Run until SIGTERM/SIGINT or ``quit``; returns the exit status."""
        game, clock = self._resume_or_start()
        self.layout = self._layout(game)
        self._backends(game)
        try:
            self.session = self._new_session(game, clock)
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(sig, self.stopping.set)
            self._apply(self.session.start(self.clock(), self.wall()))
            if self.console is not None:
                self._say("Type sensor events (d2, lift d2, place d4, d2-d4) or commands; "
                          "help lists them.")
                loop.add_reader(self.console.fileno(), self._read_console)
            tasks = [asyncio.create_task(self._sense()), asyncio.create_task(self._tick())]
            await self.stopping.wait()
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if self.console is not None:
                loop.remove_reader(self.console.fileno())
            self._shutdown()
            return 0
        finally:
            self.sensor.close()
            self.leds.close()
            self.notifier.close()

    async def _sense(self) -> None:
        async for event in self.sensor.events():
            now, wall = self.clock(), self.wall()
            try:
                if isinstance(event, SensorFault):
                    self._apply(self.session.on_fault(event.message, now))
                    continue
                assert isinstance(event, Snapshot)
                if self._maybe_new_game(event):
                    continue
                self._apply(self.session.on_snapshot(event.cells, now, wall, event.uncertain))
                self.session.prepare()
            except Exception:  # a bug must cost one reading, never the game
                log.exception("error while handling a sensor event")
            if not self.ready:
                self.ready = True
                self.notifier.ready(self.session.status())

    async def _tick(self) -> None:
        interval = self.notifier.watchdog_interval
        last_watchdog = 0.0
        while True:
            now = self.clock()
            try:
                self._apply(self.session.tick(now, self.wall()))
            except Exception:
                log.exception("error in the periodic tick")
            if interval is not None and now - last_watchdog >= interval:
                self.notifier.watchdog()
                last_watchdog = now
            await asyncio.sleep(TICK_SECONDS)

    def _maybe_new_game(self, snapshot: Snapshot) -> bool:
        """After a game ends, setting up the start position starts the next game."""
        game = self.session.game
        if game.outcome() is None:
            return False
        fresh = self.config.game.new_game() if game.name == self.config.game.name else \
            type(game)(**game.options)
        start = fresh.view(self.sensor.capability)
        sensed = {c: snapshot.cells.get(c, "") for c in start}
        if sensed != start or start == game.view(self.sensor.capability):
            return False
        self._start_new_game(fresh)
        return True

    def _start_new_game(self, game: Game[Any] | None = None) -> None:
        old = self.session.game
        if old.outcome() is None:  # left unfinished: filed as abandoned, no winner
            entry = J.result_entry(None, old.num_players, wall=self.wall(), now=self.clock(),
                                   reason="abandoned for a new game")
            self._apply(Effects(journal=(entry,)))
        game = game or self.config.game.new_game()
        wall = self.wall()
        self.journal.append(J.start_entry(game, game_id=self.journal.new_id(wall, game.name),
                                          wall=wall, clock=self.config.clock))
        self.session = self._new_session(game, self._new_clock(game))
        self._say(f"New game of {game.name}.")
        self._apply(self.session.start(self.clock(), wall))

    def _read_console(self) -> None:
        assert self.console is not None
        line = self.console.readline()
        if not line:
            asyncio.get_running_loop().remove_reader(self.console.fileno())
            return
        self.console_line(line)

    def console_line(self, line: str) -> None:
        """One typed line: a session command, ``play MOVE``, or a simulated sensor event."""
        text = line.strip()
        if not text:
            return
        word, _, rest = text.partition(" ")
        now, wall = self.clock(), self.wall()
        try:
            if word == "quit":
                self.stopping.set()
            elif word == "new":
                self._start_new_game()
            elif word == "status":
                self._say(self.session.status())
            elif word == "help" and not rest:
                self._say(CONSOLE_HELP)
            elif word in ("undo", "resign", "draw"):
                self._apply(self.session.command(word, now, wall))
            elif word == "play" and rest:
                self._apply(self.session.command(rest, now, wall))
            elif hasattr(self.sensor, "type_line"):
                reply = self.sensor.type_line(self.session.complete_sim_move(text))
                if reply:
                    self._say(reply)
            else:
                self._say(f"Unknown command {word!r}; type help.")
        except Exception:
            log.exception("error while handling %r", text)

    # ----------------------------------------------------------------- effects
    def _apply(self, fx: Effects) -> None:
        for entry in fx.journal:
            if entry["type"] == "result":
                path = self.journal.finish(entry)
                self._say(f"Game recorded as {path.stem} (tavola export {path.stem}).")
            else:
                self.journal.append(entry)
        if fx.frame is not None:
            self.leds.show(fx.frame)
        if fx.status is not None:
            self.notifier.status(fx.status)
        for line in fx.log:
            self._say(line)
        if fx.frame is not None or fx.log or fx.status is not None:
            self._draw(important=bool(fx.log or fx.journal))

    def _shutdown(self) -> None:
        self.notifier.stopping()
        now, wall = self.clock(), self.wall()
        clock = self.session.clock
        if clock is not None and self.session.game.outcome() is None:
            clock.pause(now)
            self.journal.append(J.clock_entry(clock.to_dict(now), wall=wall, now=now))
        self.leds.show((OFF,) * self.leds.count)
        self._say("Stopped; the game is kept and resumes at the next start.")

    def _say(self, line: str) -> None:
        log.info("%s", line)
        self._log_tail = (self._log_tail + line.splitlines())[-8:]

    def _draw(self, important: bool) -> None:
        """Redraw the terminal view: on every event, at most twice a second for blinking."""
        if self.out is None:
            return
        now = self.clock()
        if not important and now - self._last_draw < 0.5:
            return
        self._last_draw = now
        render = getattr(self.leds, "render", None)
        board = ""
        if render is not None:
            pieces = getattr(self.sensor, "board", None)
            board = render(None, pieces) if pieces is not None else render()
        lines = ["\x1b[H\x1b[2J" + board, self.session.status(), *self._log_tail, "> "]
        print("\n".join(lines), end="", file=self.out, flush=True)


def main(config: Config, *, console: TextIO | None, out: TextIO | None,
         sensor_options: Mapping[str, Any] | None = None) -> int:
    """Run the daemon; start-up errors are one clear line and exit status 2."""
    level = getattr(logging, config.log.level.upper(), logging.INFO)
    if out is not None:  # the terminal view shows the events itself; keep only problems
        level = max(level, logging.WARNING)
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    daemon = Daemon(config, console=console, out=out, sensor_options=sensor_options)
    try:
        return asyncio.run(daemon.run())
    except (StartupError, LayoutError, ImportError, ValueError, OSError) as exc:
        print(f"tavola: cannot start: {exc}", file=sys.stderr)
        return 2
