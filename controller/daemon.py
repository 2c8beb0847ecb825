"""The daemon: the only imperative shell. One asyncio loop around a :class:`Session`.

It builds the game (resumed from the journal when one is in progress), the layout and the
backends named in the config, then feeds sensor events, console lines and a periodic tick to
the session and applies the effects in order: journal entries (fsynced), the LED frame, the
status (systemd's STATUS and the terminal), log lines. Blocking drivers are the backends'
business (``asyncio.to_thread`` inside them). The one other thing that blocks is the engine
(a hint, the computer's turn, a review: :class:`tavola.hints.Search`): each search runs in
one worker process, started when first needed, with the node budget and time cap of
``[hints]``, and its answer is handed back to the session on the loop, so sensing and the
watchdog never wait for it. A process, not a thread: pure-Python search in a thread holds
the interpreter lock and makes the loop's ticks late (bench/hint_loop.py).

SIGTERM or SIGINT: the clock is paused and checkpointed, the LEDs cleared, the backends
closed, exit 0. A ``kill -9`` loses nothing that was confirmed: every action was fsynced
before its LEDs lit, and the next start replays the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tavola.clock import Clock
from tavola.config import Config
from tavola.feedback import OFF
from tavola.games import ALIASES, Game, Reason, game_class, new_game
from tavola.hardware import game_options, load_leds, load_sensor
from tavola.hardware.base import LedBackend, SensorBackend, SensorFault, Snapshot
from tavola.hardware.layout import Layout, LayoutError
from tavola.hints import Answer, Search, answer
from tavola.journal import Journal
from tavola.notify import Notifier
from tavola.record import (
    ClockEntry,
    Entry,
    Record,
    RecordError,
    RefereeEntry,
    ResultEntry,
    StartEntry,
    WithdrawnEntry,
    replay,
)
from tavola.session import Effects, Session, StartupError, check_startup
from tavola.web.referee import (  # no aiohttp: the journal's entries only
    clocks_paused_by_referee,
    pending_correction,
)

if TYPE_CHECKING:
    from tavola.event.publisher import EventPublisher
    from tavola.web.server import WebServer

log = logging.getLogger("tavola")

TICK_SECONDS = 0.05  # timers, blinking and the watchdog run at 20 Hz
RETRY_SECONDS = 1.0  # how often a journal that cannot be written is tried again
# A disk that refuses a new game's first line for these reasons may take it later (space
# freed, a disk remounted read-write, a flaky card): the board starts in its "cannot
# record" state and writes the game once it can. Any other reason (a file where the
# directory should be, no permission) is the setup's, and stops the start with its fix.
DISK_MAY_RECOVER = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})
SESSION_WORDS = ("undo", "resign", "draw", "new", "status", "help", "quit")
CONSOLE_HELP = """\
Console: sensor events go to the simulated board (d2, lift d2, place d4, d2-d4, slide a1 b2
c3, bounce d4, knock c3 d4, noise, unplug, replug; 'help all' lists all of them). Also:
  play MOVE   declare an action the board cannot show (a pass, a dead card), or pick
              one of several candidates when the move is ambiguous
  undo        take back the last action        resign, draw   end the game
  hint        the engine's best move, lit blue; again: the next best (on the board: lift
              one piece and put it back twice within a second)
  hints on    (arbiter) the referee allows hints; hints off: forbids them again
  status      show the state
  new         start a new game: the configured one, or new GAME [VARIANT] (new
              draughts russian) when this board can play it
  help all    the simulator's commands too
  seats       the seat pages' QR codes (with [web] on)
  quit        stop the daemon (the game is kept and resumes at the next start)"""
FIRST_SCREEN = ("Type sensor events (d2, lift d2, place d4, d2-d4) or commands (status, "
                "undo, help); help lists them.")


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
        resume: str | None = None,
    ) -> None:
        self.config = config
        self.console = console
        self.out = out
        self.clock = clock
        self.wall = wall
        self.notifier = Notifier(env)
        self.journal = Journal(config.journal.directory)
        self.extra_sensor_options = dict(sensor_options or {})
        self.resume_id = resume
        self.stopping = asyncio.Event()
        self.ready = False
        self.session: Session
        self.sensor: SensorBackend
        self.leds: LedBackend
        self.layout: Layout
        self._layout_file: Layout | None = None  # [layout] file, read once at the start
        # A new game whose header the disk refused at the start, and why (DISK_MAY_RECOVER).
        self._unwritten_start: tuple[StartEntry, str] | None = None
        self._clock_was_running = True  # the resumed game's clock, at its last checkpoint
        self._last_draw = 0.0
        self._log_tail: list[str] = []
        self._last_retry = -RETRY_SECONDS
        self._reply: list[str] = []  # the answer to the last console line, shown whole
        self._typed = ""  # a partly read console line
        self._console_ended = False  # its end of input was read
        self._dirty = False  # the terminal view is older than the state it shows
        self._drawn_status = ""
        self._shown_to: int | None = None  # whose hidden cards the screen may show
        self.web: WebServer | None = None  # [web] enabled: the live view (tavola.web)
        self._searching: set[asyncio.Task[None]] = set()  # the engine at work, off the loop
        self._engine: ProcessPoolExecutor | None = None  # its worker process
        self.event: EventPublisher | None = None  # [event] enabled: the club's broker

    # ----------------------------------------------------------------- setup
    def _start(self) -> None:
        """Resume the game in progress, or start the configured one; only a game that has
        really started (backends open, session built) is written to the journal. A journal
        that cannot be read or written is a StartupError naming it and the fix."""
        try:
            self.journal.hold()  # one daemon per journal
            self._start_or_resume()
            cfg = self.config  # what a service's log must say once: which board, which disk
            log.info("Board: %s sensor, %s LEDs, layout %s; journal in %s", cfg.sensor.backend,
                     cfg.leds.backend, self.layout.name, self.journal.directory)
        except BaseException as exc:
            self.journal.release()  # a start that failed holds nothing
            if isinstance(exc, _BackendOSError):  # a backend's (NeoPixel LEDs, ...)
                raise exc.error from None
            if isinstance(exc, OSError):  # every other I/O of a start is the journal's
                raise StartupError(journal_unusable(
                    self.journal.directory, exc,
                    self.config.sources.get("journal.directory"))) from exc
            raise

    def _start_or_resume(self) -> None:
        # The board's layout file first: one that cannot be read is the config's fault,
        # not the unfinished game's, which stays as it is (it was put aside as unplayable).
        file = self.config.layout.file
        try:
            self._layout_file = Layout.load(file) if file else None
        except LayoutError as exc:
            where = self.config.sources.get("layout.file", "config")
            raise LayoutError(f"{where}: layout.file: {exc}") from None
        if self.resume_id is not None and self.resume_id != self.journal.current_id():
            # A mistyped id stops here, before the game in progress is put aside for it.
            self.journal.paused_game(self.resume_id)
            self._pause_current(f"to resume {self.resume_id}")
            self.journal.unpause(self.resume_id)
        record = self._read_journal()
        if record is not None and self._explicit_other_game(record):
            self._pause_current(f"--game {self.config.game.name} was asked for")
            record = None
        if record is not None:
            resumed = self._replay(record)
            if resumed is not None:
                game, clock = resumed
                try:
                    self._open_backends_first(game, clock)
                except (StartupError, LayoutError) as exc:
                    self._put_aside_unresumable(record.id, game, exc)
                else:
                    # A referee's correction the board may not show yet waits for it still.
                    self.session.restoring = pending_correction(record)
                    self.session.resume_help(record.entries)
                    self._say(f"Resumed {game.name} game {record.id} at ply "
                              f"{len(game.history)}.")
                    if game.name != self.config.game.name:
                        log.warning("resuming the unfinished %s game from the journal; the "
                                    "configured %s starts after it", game.name,
                                    self.config.game.name)
                    return
        game = self.config.game.new_game()
        self._open_backends_first(game, self._new_clock(game))
        wall = self.wall()
        game_id = self.journal.new_id(wall, game.name)
        header = StartEntry.of(game, game_id=game_id, wall=wall, clock=self.config.clock)
        try:
            self.journal.begin(header)
        except OSError as exc:
            if exc.errno not in DISK_MAY_RECOVER:
                self._close_backends()
                raise
            # Exiting here left the board dark, and systemd gave up after ten tries.
            self._unwritten_start = (header, journal_unusable(
                self.journal.directory, exc, self.config.sources.get("journal.directory")))
        self._say(f"New game of {game.name} ({game_id}).")  # as a resume says its own

    def _open_backends_first(self, game: Game[Any], clock: Clock | None) -> None:
        """:meth:`_open`, whose OSErrors are the backends', not the journal's: marked so on
        their way out of :meth:`_start` (and past the resume path, which puts a game aside
        only for a configuration that cannot play it, not for a failed device)."""
        try:
            self._open(game, clock)
        except OSError as exc:
            raise _BackendOSError(exc) from exc

    def _read_journal(self) -> Record | None:
        try:
            return self.journal.resume()
        except RecordError as exc:
            log.error("%s", exc)
            kept = self.journal.set_aside()
            self._say(f"The journal could not be read; kept it as {kept}. New game.")
            return None

    def _replay(self, record: Record) -> tuple[Game[Any], Clock | None] | None:
        try:
            replayed = replay(record)
        except RecordError as exc:
            log.error("%s: %s", self.journal.current, exc)
            kept = self.journal.set_aside()
            self._say(f"The journal could not be replayed; kept it as {kept}. New game.")
            return None
        game = replayed.game
        clock = None
        if replayed.clock is not None:
            clock = Clock.from_dict(replayed.clock)
            # Paused by the referee (a player ill) is paused after a restart too; it ran
            # again on its own. (Every stop pauses the clock: its checkpoint cannot tell.)
            self._clock_was_running = not clocks_paused_by_referee(record)
        elif record.header.clock is not None:
            clock = self._new_clock(game)
        return game, clock

    def _explicit_other_game(self, record: Record) -> bool:
        """``--game`` names another game than the unfinished one: the user wants that."""
        if self.config.sources.get("game.name") != "--game":
            return False
        return bool(record.header.game != self.config.game.name)

    def _pause_current(self, why: str) -> None:
        if not self.journal.in_progress():
            return
        record = self._read_journal()
        if record is None:
            return
        self.journal.pause()
        self._say(f"The unfinished {record.header.game} game {record.id} is kept ({why}); "
                  f"resume it with: tavola run --resume {record.id}")

    def _put_aside_unresumable(self, game_id: str, game: Game[Any], why: Exception) -> None:
        """Today's configuration cannot play the unfinished game (another board's layout, a
        sensor that cannot follow it): it waits in ``paused/`` for a board that can, as
        with ``--game OTHER``; it was filed as abandoned, which no one can take up again."""
        self.journal.pause()
        self._say(f"The unfinished {game.name} game {game_id} cannot resume with this "
                  f"configuration: {why}; it is kept: resume it with: tavola run --resume "
                  f"{game_id} on a board that can play it. Starting {self.config.game.name}.")

    def _new_clock(self, game: Game[Any]) -> Clock | None:
        spec = self.config.clock
        if spec.mode == "none" and not spec.move_seconds and not game.move_seconds:
            return None
        return Clock(spec, game.num_players, game_move_seconds=game.move_seconds)

    def _layout(self, game: Game[Any]) -> Layout:
        layout = self._layout_file or Layout.for_game(game.name)
        layout.check_cells(game.view(), game=game.name)
        return layout

    def _open(self, game: Game[Any], clock: Clock | None) -> None:
        """Layout, backends and session for ``game``; on any error nothing stays open.

        StartupError or LayoutError: this game cannot be played with this configuration.
        """
        self.layout = self._layout(game)
        self._backends(game)
        try:
            self.session = self._new_session(game, clock)
        except BaseException:
            self._close_backends()
            raise

    def _close_backends(self) -> None:
        self.sensor.close()
        self.leds.close()

    def _backends(self, game: Game[Any]) -> None:
        cfg = self.config
        options = game_options(cfg.sensor.backend, cfg.sensor.options, game)
        if cfg.sensor.backend == "sim":
            options.setdefault("clock", self.clock)
        options.update(self.extra_sensor_options)
        self.sensor = load_sensor(cfg.sensor.backend)(self.layout, **options)
        try:
            self.leds = load_leds(cfg.leds.backend)(
                self.layout, brightness=cfg.leds.brightness, **dict(cfg.leds.options))
        except BaseException:
            self.sensor.close()
            raise

    def _new_session(self, game: Game[Any], clock: Clock | None) -> Session:
        cfg = self.config
        return Session(
            game, self.layout, self.sensor.capability, cells=self.layout.cells,
            policy=cfg.game.policy, hints=cfg.game.hints, settle=cfg.inference.settle,
            grace=cfg.inference.grace, clock=clock, last_clock_write=self.clock(),
            hinting=cfg.hints, computer=cfg.game.opponent, seat_pages=cfg.web.enabled,
        )

    # ----------------------------------------------------------------- running
    async def run(self) -> int:
        """Run until SIGTERM/SIGINT or ``quit``; returns the exit status (1 when the
        sensing stopped: systemd restarts the daemon)."""
        self._start()
        status = 0
        try:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(sig, self.stopping.set)
            self._apply(self.session.start(self.clock(), self.wall(),
                                           clock_running=self._clock_was_running))
            if self._unwritten_start is not None:  # seen on the board, retried by the tick
                self._apply(self.session.cannot_record(self._unwritten_start[1], self.clock()))
            await self._start_web()
            await self._start_event()
            if self.console is not None:
                self._answer(FIRST_SCREEN)
                try:
                    loop.add_reader(self.console.fileno(), self._read_console)
                except PermissionError:  # a file or /dev/null (`< commands.txt`): no poll,
                    loop.call_soon(self._read_console_file)  # always readable: read it all
            sensing = asyncio.create_task(self._sense())
            ticking = asyncio.create_task(self._tick(sensing))
            stop = asyncio.create_task(self.stopping.wait())
            await asyncio.wait({sensing, ticking, stop}, return_when=asyncio.FIRST_COMPLETED)
            # Sensing and the tick (clocks, timers, the watchdog) must both live; if either
            # ends, say why and exit 1 so that systemd restarts the daemon.
            for vital, what in ((sensing, "sensing"), (ticking, "the periodic tick")):
                if vital.done() and not self.stopping.is_set():
                    status = 1
                    error = None if vital.cancelled() else vital.exception()
                    why = f"{type(error).__name__}: {error}" if error else "it ended"
                    log.error("%s stopped (%s); exiting so that the service restarts",
                              what, why, exc_info=error)
                    print(f"tavola: {what} stopped ({why}); the game is kept",
                          file=sys.stderr)
            for task in (sensing, ticking, stop):
                task.cancel()
            for task in (sensing, ticking, stop):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if self.console is not None:
                loop.remove_reader(self.console.fileno())
            self._shutdown()
            return status
        finally:
            if self.event is not None:
                await self.event.stop()
            if self.web is not None:
                await self.web.stop()
            if self._engine is not None:  # a search under way ends within its budget
                self._engine.shutdown(wait=False, cancel_futures=True)
            self._close_backends()
            self.notifier.close()
            self.journal.release()

    async def _start_web(self) -> None:
        """Serve the live view and referee console in this loop, if configured."""
        if not self.config.web.enabled:
            return
        try:
            from tavola.web.server import WebServer  # aiohttp: only when the web is on
        except ImportError as exc:
            raise ImportError(f"[web] enabled = true needs aiohttp ({exc}): install the web "
                              f"extra, pip install 'tavola[web]'") from None
        self.web = WebServer(self, self.config.web)
        try:
            await self.web.start()
        except OSError as exc:
            where = f"{self.config.web.host}:{self.config.web.port}"
            raise OSError(f"web.listen = {where!r}: cannot listen there "
                          f"({exc.strerror or exc}); choose another address or port in "
                          f"[web] listen") from None
        self._say(f"Live view: {self.web.url}/  referee: {self.web.url}/referee"
                  f"{' ' + self.web.reach if self.web.reach else ''}")
        if self.session.game.hidden_information:
            for line in self.web.seat_urls():
                self._say(f"Seat page of {line}")
            if self.out is None:  # headless (systemd): into the log, for journalctl
                log.info("Seat pages' QR codes:\n%s", self.web.seat_qr_text())
            else:
                self._say("Type seats for their QR codes.")

    async def _start_event(self) -> None:
        """Publish this table to the event's broker, if configured (docs/event.md); the
        broker may be down: the publisher keeps trying, play goes on."""
        if not self.config.event.enabled:
            return
        try:
            from tavola.event.publisher import EventPublisher  # aiomqtt: only when on
        except ImportError as exc:
            raise ImportError(f"[event] enabled = true needs aiomqtt ({exc}): install the "
                              f"event extra, pip install 'tavola[event]'") from None
        self.event = EventPublisher(self, self.config.event)
        await self.event.start()
        cfg = self.config.event
        self._say(f"Event {cfg.event}, table {cfg.table}: publishing to {cfg.host}:{cfg.port}")

    def apply(self, fx: Effects) -> None:
        """Apply effects from outside the loop's own inputs (the referee console)."""
        self._apply(fx)

    def new_game(self, note: RefereeEntry) -> None:
        """The referee starts the configured game afresh; ``note`` says who and why, in the
        game it ends, or (between rounds: the last one is filed) in the one it starts."""
        ending = self.journal.in_progress()
        if ending and not self._noted(note):
            return  # not even the note could be written: the game in play stays
        self._start_new_game()
        if not ending and self.journal.in_progress():
            self._noted(note)

    def _noted(self, note: RefereeEntry) -> bool:
        """Append the referee's ``note``; False (and the "cannot record" state) if the
        journal cannot be written."""
        try:
            self.journal.append(note)
        except OSError as exc:
            self._apply(self.session.cannot_record(_problem(exc), self.clock()))
            return False
        return True

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
                # The camera recalibrates now and then from a frame of the accepted position
                # (in its own frame thread), so slow changes of the light are followed.
                follow = getattr(self.sensor, "follow_position", None)
                if follow is not None:
                    follow(self.session.game.view(self.sensor.capability))
            except Exception:  # a bug must cost one reading, never the game
                log.exception("error while handling a sensor event")
            if not self.ready:
                self.ready = True
                self.notifier.ready(self.session.status())

    async def _tick(self, sensing: asyncio.Task[None]) -> None:
        interval = self.notifier.watchdog_interval
        last_watchdog = 0.0
        while True:
            now = self.clock()
            try:
                # While the journal cannot be written, try again only now and then.
                if self.session.unrecorded is None or now - self._last_retry >= RETRY_SECONDS:
                    self._retry_start(now)
                    self._apply(self.session.tick(now, self.wall()))
            except Exception:
                log.exception("error in the periodic tick")
            self._flush()
            # The watchdog says "the board is followed": only while the sensing runs.
            if interval is not None and now - last_watchdog >= interval and not sensing.done():
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
        self._apply(self.session.conclude(self.clock(), self.wall()))  # a result held
        self._start_new_game(fresh)
        return True

    def _start_new_game(self, game: Game[Any] | None = None) -> None:
        """End the game in play (abandoned if unfinished) and start ``game`` (the
        configured one by default) on this board; refused, with nothing written, if the
        board cannot run it or the journal cannot be written."""
        game = game or self.config.game.new_game()
        try:
            self.layout.check_cells(game.view(), game=game.name)
            check_startup(game, self.sensor.capability, self.layout.cells)
        except (StartupError, LayoutError) as exc:
            self._say(f"Cannot start {game.name} on this board: {exc}. Restart with "
                      f"'tavola run --game {game.name}' (its layout and sensor).")
            return
        old = self.session.game
        now, wall = self.clock(), self.wall()
        try:
            # The new header first: if the disk is full, the old game stays as it was.
            game_id = self.journal.new_id(wall, game.name)
            prepared = self.journal.prepare(StartEntry.of(
                game, game_id=game_id, wall=wall, clock=self.config.clock))
            if self.journal.in_progress():
                if old.outcome() is None:  # left unfinished: filed as abandoned, no winner
                    self.journal.finish(ResultEntry.of(None, old.num_players, wall=wall,
                                                       now=now,
                                                       reason=Reason.NEW_GAME))
                else:
                    self.journal.file()
            self.journal.install(prepared)
        except OSError as exc:
            self._apply(self.session.cannot_record(_problem(exc), now))
            return
        self._unwritten_start = None  # the old game's first line, never written: gone with it
        self.session = self._new_session(game, self._new_clock(game))
        self.session.await_setup()
        self.sensor.request_snapshot()  # what the board shows now: set up, or what is not
        read_game = getattr(self.sensor, "read_game", None)
        if read_game is not None:  # the camera must look for this game's pieces now
            read_game(game.name, game.num_players, game.view("identity"))
        self._say(f"New game of {game.name} ({game_id}).")
        self._apply(self.session.start(now, wall))

    def _read_console(self) -> None:
        # Read the descriptor itself, not readline(): a buffered reader would keep the
        # second of two lines pasted (or piped) at once where the event loop cannot see it.
        assert self.console is not None
        fd = self.console.fileno()
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        if not chunk:  # end of input: the last unterminated line still counts
            asyncio.get_running_loop().remove_reader(fd)  # (False for a file: never added)
            self._console_ended = True
            lines, self._typed = [self._typed], ""
        else:
            self._typed += chunk.decode("utf-8", errors="replace")
            *lines, self._typed = self._typed.split("\n")
        for line in lines:
            self.console_line(line)

    def _read_console_file(self) -> None:
        """The console's lines from a regular file, which the event loop cannot poll."""
        while not self._console_ended:
            self._read_console()

    def console_line(self, line: str) -> None:
        """One typed line: a session command, ``play MOVE``, or a simulated sensor event.

        The answer (help, status, an error) is drawn at once, not at the next board event.
        """
        text = line.strip()
        if not text:  # Enter: the player to move has the screen, show their cards
            if self.session.game.hidden_information:
                self._shown_to = self.session.game.current_player
                self._draw(important=True)
            return
        word, _, rest = text.partition(" ")
        now, wall = self.clock(), self.wall()
        self._reply = []
        try:
            if word == "quit":
                self.stopping.set()
            elif word == "new":
                named = self._named_game(rest) if rest else None
                if named is not None or not rest:
                    self._start_new_game(named)
            elif word == "status":
                self._answer(self.session.status())
            elif word == "seats" and self.web is not None:
                self._answer(self.web.seat_qr_text())
            elif word == "help" and rest in ("all", "sim"):
                language = getattr(self.sensor, "type_line", None)
                self._answer(CONSOLE_HELP + ("\n" + language("help") if language else ""))
            elif word == "help":
                self._answer(CONSOLE_HELP)
            elif word == "hints" and rest in ("on", "off"):  # the referee, at the board
                allowed = rest == "on"
                note = RefereeEntry("allow hints" if allowed else "forbid hints", "console",
                                    "", wall, now)
                self._apply(Effects(journal=(note,)) + self.session.allow_hints(allowed, now))
            elif word in ("undo", "resign", "draw", "hint"):
                self._apply(self.session.command(word, now, wall))
            elif word == "play" and rest:
                self._apply(self.session.command(rest, now, wall))
            elif hasattr(self.sensor, "type_line"):
                reply = self.sensor.type_line(self.session.complete_sim_move(text))
                if reply.startswith("error:"):  # perhaps a move in the game's notation
                    reply = self._play_on_board(text) or reply
                if reply:
                    self._answer(reply)
            else:
                self._answer(f"Unknown command {word!r}; type help.")
        except Exception:
            log.exception("error while handling %r", text)
        self._draw(important=True)

    def _named_game(self, text: str) -> Game[Any] | None:
        """``new GAME [VARIANT]``: that game, with the config's parameters if it is the
        configured one; None (the reason answered) for a name or variant there is none of."""
        name, _, variant = text.partition(" ")
        variant = variant.strip()
        try:
            plain = name.strip().lower() not in ALIASES  # an alias names its variant
            if plain and not variant and \
                    game_class(name).name == game_class(self.config.game.name).name:
                return self.config.game.new_game()
            return new_game(name, **({"variant": variant} if variant else {}))
        except ValueError as exc:
            self._answer(f"new {text}: {exc}")
            return None

    def _play_on_board(self, text: str) -> str:
        """On the simulator, a move in the game's notation that is not a simulator command
        (Quinque's ``t 2,1``) moves the simulated pieces as the move does. Returns the
        answer to show ('' when the move was put on the board or is not a move at all)."""
        game = self.session.game
        try:
            move = game.parse_move(text)
        except ValueError:
            return ""
        if not game.is_legal(move):
            return f"Illegal: {game.explain(move)}"
        probe = game.copy()
        probe.apply(move)
        script = board_events(game.view("identity"), probe.view("identity"))
        if not script:
            return f"{move} changes nothing on the board: type play {move}"
        try:  # the simulated board may not hold what the game has (a mismatch in play)
            self.sensor.run_script(script, source=str(move))  # type: ignore[attr-defined]
        except ValueError as exc:
            return f"error: {exc} (the board differs from the game: put it right first)"
        return ""

    # ----------------------------------------------------------------- effects
    def _apply(self, fx: Effects) -> None:
        """Write the journal entries first; only once they are on disk does the session's
        new state stand and do the LEDs and status show it."""
        session = self.session
        if fx.journal:
            now = self.clock()
            self._last_retry = now
            try:
                self._write(fx.journal)
            except Exception as exc:  # disk full, read-only, I/O error (or a bug): not taken
                session.rollback()
                fx = session.cannot_record(_problem(exc), now)
            else:
                session.commit()
                fx = session.recording_again(now) + fx
        if fx.frame is not None:
            self.leds.show(fx.frame)
        if fx.status is not None:
            self.notifier.status(fx.status)
        if fx.resync:
            self.sensor.request_snapshot()
        for search in fx.searches:
            self._search(session, search)
        for line in fx.log:
            self._say(line)
        if fx.frame is not None or fx.log or fx.status is not None:
            self._draw(important=bool(fx.log or fx.journal))
        if self.web is not None:  # what the board and the terminal show, on the web too
            self.web.publish(urgent=bool(fx.journal or fx.log or fx.status is not None))
        if self.event is not None:  # queued only: a broker outage never holds play up
            self.event.publish(fx)

    def _search(self, session: Session, search: Search) -> None:
        """Run ``search`` in the engine's process; its answer goes to ``session`` on the loop
        (not to a session that replaced it meanwhile: a new game)."""
        async def run() -> None:
            if self._engine is None:
                self._engine = ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"))
            try:
                found = await asyncio.get_running_loop().run_in_executor(
                    self._engine, answer_in_worker, search)
            except Exception as exc:  # a bug in the engine costs the hint, never the game
                log.exception("the engine failed on a %s search", search.purpose)
                if isinstance(exc, BrokenProcessPool):  # the worker died: a new one next
                    self._engine = None
                if self.session is session:
                    self._apply(session.search_failed(search))
                return
            if self.session is session:
                self._apply(session.on_answer(found, self.clock(), self.wall()))

        try:
            task = asyncio.get_running_loop().create_task(run())
        except RuntimeError:  # no loop (a test driving the daemon by hand): answer now
            self._apply(session.on_answer(answer_in_worker(search), self.clock(),
                                          self.wall()))
            return
        self._searching.add(task)
        task.add_done_callback(self._searching.discard)

    def _retry_start(self, now: float) -> None:
        """A new game whose first line the disk refused at the start: try it again; once
        written, the board says so and play goes on."""
        if self._unwritten_start is None:
            return
        self._last_retry = now
        try:
            self._write(())
        except OSError:
            return
        self._apply(self.session.recording_again(now))

    def _write(self, entries: tuple[Entry, ...]) -> None:
        """Append the entries in one fsynced write; a result files the game after it, and
        a result withdrawn reopens the game it filed (the record goes on in the journal).
        A new game's first line the disk refused at the start goes first."""
        if self._unwritten_start is not None:
            self.journal.begin(self._unwritten_start[0])
            self._unwritten_start = None
        if not entries:
            return
        if not self.journal.in_progress() and any(
                isinstance(e, WithdrawnEntry) for e in entries):
            self.journal.reopen()
        self.journal.append(*entries)
        for entry in entries:
            match entry:
                case ResultEntry():
                    try:
                        path = self.journal.file()
                    except OSError as exc:  # the result is written: the next start files it
                        log.warning("the finished game stays in %s until the next start "
                                    "files it: %s", self.journal.current, exc)
                        continue
                    self._say(f"Game recorded as {path.stem} (tavola export {path.stem}).")
                case _:
                    pass

    def _shutdown(self) -> None:
        self._apply(self.session.conclude(self.clock(), self.wall()))  # a result held
        self.notifier.stopping()
        now, wall = self.clock(), self.wall()
        clock = self.session.clock
        if clock is not None and self.session.game.outcome() is None \
                and self.journal.in_progress():
            clock.pause(now)
            try:
                self.journal.append(ClockEntry(clock.to_dict(now), wall, now))
            except OSError as exc:  # the last checkpoint stands; at most that time is lost
                log.warning("could not checkpoint the clock on the way out: %s", exc)
        self.leds.show((OFF,) * self.leds.count)
        if self.journal.in_progress():
            self._say("Stopped; the game is kept and resumes at the next start.")
        else:  # over and filed: the next start begins a new game
            self._say("Stopped; the game is recorded, and the next start begins a new one.")

    def _say(self, line: str) -> None:
        log.info("%s", line)
        self._log_tail = (self._log_tail + line.splitlines())[-8:]

    def _answer(self, text: str) -> None:
        """The reply to a console line: logged, and shown whole under the status."""
        log.info("%s", text)
        self._reply = text.splitlines()
        self._dirty = True

    def _draw(self, important: bool) -> None:
        """Redraw the terminal view: at once for an event, at most twice a second for
        blinking; a redraw held back is made by the next tick (:meth:`_flush`)."""
        self._dirty = True
        self._flush(force=important)

    def _flush(self, force: bool = False) -> None:
        if self.out is None:
            return
        now = self.clock()
        status = self.session.status()
        if status != self._drawn_status:  # the clocks' times, a state the tick changed
            self._dirty = True
        if not self._dirty or (not force and now - self._last_draw < 0.5):
            return
        self._last_draw, self._dirty, self._drawn_status = now, False, status
        render = getattr(self.leds, "render", None)
        board = ""
        if render is not None:
            pieces = getattr(self.sensor, "board", None)
            board = render(None, self._owners(pieces)) if pieces is not None else render()
        if not self.layout.cells:  # an open table (Quinque): the game draws the position
            board = f"{self.session.game}\n{board}"
        lines = ["\x1b[H\x1b[2J" + board, status, *self._hand(), *self._log_tail,
                 *self._reply, "> "]
        print("\n".join(lines), end="", file=self.out, flush=True)

    def _hand(self) -> list[str]:
        """A game with hidden cards (Sequence for Kids, dealt): the hand of the player to
        move, once they have the screen; before that, whom to pass it to."""
        game = self.session.game
        if not game.hidden_information or game.outcome() is not None:
            return []
        player = game.current_player
        if self._shown_to != player:
            return [f"Pass the screen to {game.player_names[player]}, then press Enter to "
                    "see the cards."]
        return [game.private_text(player)]

    def _owners(self, pieces: Mapping[str, str]) -> dict[str, str]:
        """The simulated board with each plain piece (an occupancy sensor's ``#``) named by
        its owner where the game has one there, so morris and draughts men show W or B."""
        shown = self.session.game.view("identity")
        return {c: (shown.get(c) or t) if t == "#" else t for c, t in pieces.items()}


_ENDGAMES: list[Any] = []  # the worker process's morris endgame tables, read once


def answer_in_worker(search: Search) -> Answer:
    """The engine's answer to ``search``, in the engine's worker process (or in a test's
    own): a time cap read from the monotonic clock, and the morris endgame tables once
    ``tavola endgames build`` made them."""
    tables = None
    if search.game.name == "morris" and search.level == "strongest":
        if not _ENDGAMES:
            from tavola.ai import morris_endgames
            _ENDGAMES.append(morris_endgames.load())
        tables = _ENDGAMES[0]
    return answer(search, endgames=tables, clock=time.monotonic)


def board_events(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """The simulator's raw events that turn the board ``before`` into ``after`` at once
    (cell -> token): lift every piece that leaves or changes, then place the new ones."""
    lines = [f"lift {c}" for c, t in before.items() if t and after.get(c, "") != t]
    lines += [f"place {c} {t}" for c, t in after.items() if t and before.get(c, "") != t]
    return "\n".join(lines)


class _BackendOSError(Exception):
    """A backend's OSError while starting, kept apart from the journal's until it leaves
    :meth:`Daemon._start` as itself."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


def journal_unusable(directory: Path, exc: OSError, source: str | None) -> str:
    """Why the journal in ``directory`` cannot be kept (``exc``), and what to do; ``source``:
    where the directory was set (``--journal``, a config file), if anywhere."""
    where = f" (set by {source})" if source else ""
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) or directory.is_file():
        problem = f"{directory} is a file, not a directory"
    else:
        problem = _problem(exc)
        if exc.filename and Path(exc.filename) != directory:
            problem += f": {exc.filename}"
    fixes = {errno.ENOSPC: "free some space on its disk",
             errno.EDQUOT: "free some space on its disk",
             errno.EACCES: "make it writable by the user tavola runs as",
             errno.EPERM: "make it writable by the user tavola runs as",
             errno.EROFS: "mount its disk read-write"}
    fix = fixes.get(exc.errno or 0)
    also = f"{fix}, or " if fix else ""
    return (f"the journal cannot be kept in {directory}{where}: {problem}; {also}set "
            "[journal] directory (or --journal) to a writable directory")


def _problem(exc: Exception) -> str:
    """A failed write in a few words: 'No space left on device'."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or repr(exc)


def main(config: Config, *, console: TextIO | None, out: TextIO | None,
         sensor_options: Mapping[str, Any] | None = None, resume: str | None = None) -> int:
    """Run the daemon; start-up errors are one clear line and exit status 2."""
    level = getattr(logging, config.log.level.upper(), logging.INFO)
    if out is not None:  # the terminal view shows the events itself; keep only problems
        level = max(level, logging.WARNING)
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    daemon = Daemon(config, console=console, out=out, sensor_options=sensor_options,
                    resume=resume)
    try:
        return asyncio.run(daemon.run())
    except (StartupError, LayoutError, ImportError, ValueError, OSError) as exc:
        print(f"tavola: cannot start: {exc}", file=sys.stderr)
        return 2
