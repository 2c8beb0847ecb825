"""The board's MQTT client, in the daemon's own loop (docs/event.md).

The daemon calls :meth:`EventPublisher.publish` after every effect it applied, as it does
for the web view; that only queues messages and never waits, so play goes on whatever the
broker does. One task keeps a connection: it connects (the last will marks the table
``offline``), says ``online``, republishes the newest retained state, subscribes to the
table's ``cmd`` and sends the queue in order, a message leaving the queue only once the
broker has it. A lost connection is tried again with a growing, jittered delay; what was
queued meanwhile is sent then. The journal stays the truth: the queue is bounded, and a
consumer that missed a move re-syncs from the retained state, which holds every move.

A ``cmd`` is carried out by :func:`tavola.web.referee.perform`, exactly as the board's own
console does, then acknowledged on ``ack``; a command id seen before is not carried out
again, its first answer is sent again. The id is journaled with the ``referee`` entry the
command produced, and a publisher starting (the daemon restarted) reads the ids back from
the journal, so a command is applied once across restarts too. The board keeps a
persistent session at the broker (a fixed client id, no clean session), so the broker
keeps the commands sent while the board was away and delivers them when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import ssl
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import aiomqtt

from tavola.backoff import QuietRetries
from tavola.config import EventConfig
from tavola.event.board import TableReport
from tavola.event.topics import (
    MAX_LAYOUT_CHARS,
    OFFLINE,
    ONLINE,
    QOS,
    Command,
    Topics,
    decode,
    encode,
)
from tavola.hardware.layout import Layout, LayoutError
from tavola.journal import Journal
from tavola.record import RefereeEntry
from tavola.session import Effects
from tavola.web.referee import Request, perform
from tavola.web.server import Board

log = logging.getLogger("tavola.event")

MAX_QUEUED = 10_000  # moves, alerts and acks kept while the broker is away
STOP_SECONDS = 5.0  # a connection's goodbye takes milliseconds: past this it is cut
REMEMBERED_COMMANDS = 1_000  # command ids whose answers are kept (a repeat is not redone)
RECENT_GAMES = 20  # finished games read back for applied command ids when starting
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 30.0
# A connection the broker closes within this many seconds of opening it, this many times
# in a row, is taken over: another client has the same id. Two boards given one [event]
# table (a config copied to every Pi) kicked each other off twice a second, all evening.
# Longer than the longest backoff (30 s, +20 %): each one's connection lasts until the
# other's next try, so each of them counts.
TAKEN_OVER_SECONDS, TAKEN_OVER_TIMES = 60.0, 3
SEND_TIMEOUT = 10.0  # seconds for the broker to take a message before reconnecting


class EventPublisher:
    """Publishes one board's table and carries out the arbiter's commands to it."""

    def __init__(self, board: Board, config: EventConfig) -> None:
        self.board = board
        self.config = config
        self.topics = Topics(config.event, config.table)
        self.report = TableReport()
        self.queue: deque[tuple[str, bytes]] = deque()  # (kind, payload), sent in order
        self.state: bytes | None = None  # the newest retained state (sent after the queue)
        self.state_sent = True
        self.clock: bytes | None = None
        self.dropped = 0
        self.connected = asyncio.Event()
        self.answers: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client_now: aiomqtt.Client | None = None
        self._session: object = None
        self._header: dict[str, Any] = {}
        self._layout: dict[str, str] | None = None

    # ----------------------------------------------------------------- the daemon's side
    def publish(self, fx: Effects | None = None) -> None:
        """The daemon applied ``fx``: queue what changed. Never blocks, never raises."""
        try:
            self._publish(fx or Effects())
        except Exception:  # a bug here must never cost the game
            log.exception("could not prepare the event messages")

    def _publish(self, fx: Effects) -> None:
        board = self.board
        if board.session is not self._session:  # a new game: its header names it
            self._session, self._header = board.session, _header(board)
            self._layout = own_layout(board.layout, board.session.game.name)
        out = self.report.update(board.session, self._header, fx,
                                 board.clock(), board.wall(), self._layout)
        for kind, messages in (("move", out.moves), ("alert", out.alerts)):
            for message in messages:
                self._queue(kind, encode(message))
        if out.state is not None:
            self.state, self.state_sent = encode(out.state), False
        if out.clock is not None:
            self.clock = encode(out.clock)
        if out.moves or out.alerts or out.state is not None or out.clock is not None:
            self._wake.set()

    def _queue(self, kind: str, payload: bytes) -> None:
        if len(self.queue) >= MAX_QUEUED:  # the retained state still holds every move
            self.queue.popleft()
            self.dropped += 1
        self.queue.append((kind, payload))

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Start keeping the connection (returns at once; the broker may be down)."""
        self.answers = applied_commands(_journal_lines(self.board.journal))
        self.publish()
        self._task = asyncio.create_task(self._run(), name="tavola-event")

    async def stop(self) -> None:
        """Say ``offline`` if connected (a goodbye sends no last will), and close."""
        client = self._client_now
        if client is not None and self.connected.is_set():
            with contextlib.suppress(Exception):
                await client.publish(self.topics.presence, OFFLINE.encode(), QOS["presence"],
                                     retain=True, timeout=1.0)
        if self._task is not None:
            await stop_task(self._task)
            self._task = None

    # ----------------------------------------------------------------- the connection
    def _client(self) -> aiomqtt.Client:
        cfg = self.config
        return aiomqtt.Client(
            cfg.host, cfg.port, username=cfg.username or None, password=cfg.password or None,
            identifier=self.identifier, clean_session=False, keepalive=10,
            will=aiomqtt.Will(self.topics.presence, OFFLINE.encode(), QOS["presence"],
                              retain=True),
            tls_context=tls_context(cfg), timeout=SEND_TIMEOUT)

    @property
    def identifier(self) -> str:
        """The board's MQTT client id, the same at every connection: the broker keeps
        its session (the ``cmd`` subscription and the commands sent meanwhile)."""
        return f"tavola-{self.config.event}-{self.config.table}"

    async def _run(self) -> None:
        await keep_connected(self._client, self._serve, self._dropped, self.config,
                             "event publisher")

    async def _serve(self, client: aiomqtt.Client) -> None:
        self._client_now = client
        await self._connected(client)

    def _dropped(self) -> None:
        self._client_now = None
        self.connected.clear()

    async def _connected(self, client: aiomqtt.Client) -> None:
        await client.subscribe(self.topics.cmd, qos=QOS["cmd"])
        await client.publish(self.topics.presence, ONLINE.encode(), QOS["presence"],
                             retain=True)
        self.state_sent = False  # a fresh connection republishes the retained state
        self.connected.set()
        log.info("publishing table %s of event %s to %s:%s", self.config.table,
                 self.config.event, self.config.host, self.config.port)
        receiving = asyncio.create_task(self._receive(client))
        try:
            while True:
                self._wake.clear()  # before sending: a message queued meanwhile wakes us
                await self._send(client)
                if receiving.done():
                    receiving.result()  # the connection ended: its error, to reconnect
                    raise aiomqtt.MqttError("the connection ended")
                waiting = asyncio.create_task(self._wake.wait())
                await asyncio.wait({waiting, receiving}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
        finally:
            receiving.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await receiving

    async def _send(self, client: aiomqtt.Client) -> None:
        """Everything queued, in order; each leaves the queue once the broker took it."""
        while self.queue:
            kind, payload = self.queue[0]
            await client.publish(self.topics.of(kind), payload, QOS[kind])
            if self.queue and self.queue[0][1] is payload:
                self.queue.popleft()
        if self.state is not None and not self.state_sent:
            state = self.state
            await client.publish(self.topics.state, state, QOS["state"], retain=True)
            self.state_sent = self.state is state
        if self.clock is not None:
            clock, self.clock = self.clock, None
            await client.publish(self.topics.clock, clock, QOS["clock"])

    async def _receive(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            data = decode(message.payload if isinstance(message.payload, bytes | bytearray)
                          else str(message.payload))
            if data is None:
                log.warning("a cmd that is not a tavola v1 message was ignored")
                continue
            self.command(data)

    def command(self, data: dict[str, Any]) -> dict[str, Any]:
        """Carry out one ``cmd`` message (once per id) and queue its ``ack``; returns it."""
        try:
            cmd = Command.from_message(data)
        except ValueError as exc:
            answer = {"id": str(data.get("id", ""))[:64], "done": False,
                      "said": f"Refused: {exc}"}
        else:
            known = self.answers.get(cmd.id)
            if known is not None:
                answer = {**known, "repeat": True}
            else:
                said = perform(self.board, Request(cmd.action, cmd.fields, cmd.who, cmd.id))
                answer = {"id": cmd.id, "done": not said.startswith(("Refused", "Unknown")),
                          "said": said}
                self.answers[cmd.id] = answer
                while len(self.answers) > REMEMBERED_COMMANDS:
                    self.answers.popitem(last=False)
                log.info("event command %s %s by %s: %s", cmd.id, cmd.action, cmd.who, said)
        answer = {**answer, "ply": len(self.board.session.game.history),
                  "wall": self.board.wall()}
        self.publish()  # the state after the action, before its ack
        self._queue("ack", encode(answer))
        self._wake.set()
        return answer


def own_layout(layout: Layout, game: str) -> dict[str, str] | None:
    """The board's layout file (``name``, ``text``) when its cells are not drawn where
    ``game``'s default layout draws them, for the console to draw the board as it is;
    else None (other wiring, same drawing: nothing to send)."""
    try:
        default: Layout | None = Layout.for_game(game)
    except LayoutError:
        default = None
    if default is not None and _drawn(layout) == _drawn(default):
        return None
    try:
        text = Path(layout.source).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None  # not a file (a shipped layout): the console draws the default
    return {"name": layout.name, "text": text} if len(text) <= MAX_LAYOUT_CHARS else None


def _drawn(layout: Layout) -> tuple[tuple[str, int, int], ...]:
    return tuple((c, layout.cell(c).x, layout.cell(c).y) for c in layout.cells)


def _header(board: Board) -> dict[str, Any]:
    """The journal's header of the game in play (its id, set-up, players, clock); the
    set-up position is left out of a game with hidden cards (a dealt deck)."""
    try:
        with board.journal.current.open("rb") as file:
            header: dict[str, Any] = json.loads(file.readline())
    except (OSError, ValueError):
        return {}
    if board.session.game.hidden_information:
        header.pop("start", None)
    return header


def applied_commands(lines: Iterable[bytes]) -> OrderedDict[str, dict[str, Any]]:
    """The answers of the commands the journal's lines show carried out (a ``referee``
    entry with a ``command`` id), oldest first, the newest :data:`REMEMBERED_COMMANDS`.
    The journal keeps the action, not the words said: a repeat's answer is ``Done:`` and
    the action, which is the first answer's when the action said nothing more.

    >>> line = b'{"type":"referee","action":"pause clocks","command":"c1"}'
    >>> dict(applied_commands([line, b'{"type":"referee","action":"x"}', b'not json']))
    {'c1': {'id': 'c1', 'done': True, 'said': 'Done: pause clocks.'}}
    """
    answers: OrderedDict[str, dict[str, Any]] = OrderedDict()
    for line in lines:
        if b'"command"' not in line:  # most lines: not a command's entry, not parsed
            continue
        try:
            data = json.loads(line)
            entry = RefereeEntry.from_json(data) if data.get("type") == "referee" else None
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # an unfinished last line: the journal's reader says so, not us
        if entry is not None and entry.command:
            answers[entry.command] = {"id": entry.command, "done": True,
                                      "said": f"Done: {entry.action}."}
            answers.move_to_end(entry.command)
    while len(answers) > REMEMBERED_COMMANDS:
        answers.popitem(last=False)
    return answers


def _journal_lines(journal: Journal) -> Iterable[bytes]:
    """The lines of the newest finished games (a command's result or new game filed the
    game it ended), oldest first, then of the game in progress; unreadable files are
    skipped (the journal's own reader reports them)."""
    try:
        games = sorted(journal.games.glob("*.jsonl"), key=_mtime)[-RECENT_GAMES:]
    except OSError:
        games = []
    for path in [*games, journal.current]:
        try:
            yield from path.read_bytes().splitlines()
        except OSError:
            continue


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def tls_context(config: EventConfig) -> ssl.SSLContext | None:
    """The broker connection's TLS (trusting ``ca_file``, else the system's CAs), or None
    when ``[event] tls`` is off. Boards and the console connect alike."""
    if not config.tls:
        return None
    return ssl.create_default_context(cafile=str(config.ca_file) if config.ca_file else None)


async def stop_task(task: asyncio.Task[Any], seconds: float | None = None) -> None:
    """Cancel ``task`` (a connection kept by :func:`keep_connected`) and wait for it to
    end, for ``seconds`` at most (default ``STOP_SECONDS``), then cancel it again.

    Why the limit: the task's first cancellation runs the MQTT client's exit, and
    aiomqtt 2.5's ``__aexit__`` waits for the broker's disconnect with no time limit. A
    task is cancelled once, so a disconnect that never completes (seen once, a board's
    daemon never stopping in an event test under load) would hang the daemon's stop, and
    with it the shutdown systemd waits for. The second cancellation ends that wait."""
    task.cancel()
    limit = STOP_SECONDS if seconds is None else seconds
    with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
        await asyncio.wait_for(task, limit)  # on time-out it cancels again, and waits


def _disconnection_seen(client: aiomqtt.Client | None) -> None:
    """Take note of why ``client``'s connection ended. aiomqtt 2.5 keeps it in a future
    that its exit leaves unread when the broker closed the connection while nothing was
    reading messages (a publish under way, a connection taken over), and asyncio then logs
    "Future exception was never retrieved" with a traceback, once per reconnection
    (empicano/aiomqtt#344; its fix, #375, reads it in the exit itself)."""
    ended = getattr(client, "_disconnected", None)
    if isinstance(ended, asyncio.Future) and ended.done() and not ended.cancelled():
        ended.exception()


async def keep_connected(connect: Callable[[], aiomqtt.Client],
                         serve: Callable[[aiomqtt.Client], Awaitable[None]],
                         dropped: Callable[[], None], config: EventConfig, what: str) -> None:
    """Connect, ``serve`` the connection until it ends, call ``dropped``, and try again
    after 0.5, 1, 2 ... s (±20 %, so a hall of boards does not reconnect in step; at most
    30 s), forever: a broker outage or a bug costs a reconnection, never the caller."""
    delay = BACKOFF_FIRST
    retries = QuietRetries(BACKOFF_MAX)  # a broker down all evening: a few lines, not 120/h
    loop = asyncio.get_running_loop()
    taken = 0  # connections in a row the broker closed soon after opening them
    while True:
        opened: float | None = None
        client: aiomqtt.Client | None = None
        try:
            client = connect()
            async with client:
                opened = loop.time()
                await serve(client)
        except aiomqtt.MqttError as exc:
            if opened is not None and loop.time() - opened < TAKEN_OVER_SECONDS:
                taken += 1  # (the backoff goes on growing: no kicking twice a second)
            elif opened is not None:  # it served a while: a new outage, from the shortest
                taken, delay = 0, BACKOFF_FIRST
                retries.succeeded()
            if taken == TAKEN_OVER_TIMES:
                log.warning("event broker %s:%s: it closes this connection soon after it "
                            "opens (%d times): another client has this one's id, most "
                            "likely a second board with the same [event] event and table; "
                            "give each board its own table", config.host, config.port, taken)
            said = retries.failed(delay)
            if said is not None:
                log.warning("event broker %s:%s: %s; %s", config.host, config.port, exc, said)
        except Exception:
            if opened is not None and loop.time() - opened >= TAKEN_OVER_SECONDS:
                delay = BACKOFF_FIRST  # a bug after a while of service: from the shortest
            log.exception("%s failed; trying again in %.1f s", what, delay)
        finally:
            _disconnection_seen(client)
            dropped()
        await asyncio.sleep(delay * random.uniform(0.8, 1.2))
        delay = min(delay * 2, BACKOFF_MAX)
