"""``tavola event``: the arbiter's console, a separate process on any machine of the hall.

It subscribes to every table of the event (the retained states arrive at once, so a
console started late sees every table), keeps them in a :class:`~tavola.event.hall.Hall`
and serves the hall page, each table's referee view, the results and the records. A
referee action is sent to its board as a ``cmd`` message with a fresh id; the board checks
and applies it like its own console's and answers on ``ack``, which the page shows. An
action that got no answer in time (the board offline) is offered for resending with the
same id, so a resend is never applied twice. The
page's PIN login is the board console's (:mod:`tavola.web.auth`), from ``[web] pin``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
from typing import Any
from urllib.parse import quote

import aiomqtt
from aiohttp import web

from tavola.config import EventConfig
from tavola.event import pages
from tavola.event.hall import Hall, record_suffix, record_text
from tavola.event.publisher import keep_connected, stop_task, tls_context
from tavola.event.topics import QOS, Command, Topics, encode, event_filter
from tavola.web.auth import RateLimited, Referees, csrf_ok
from tavola.web.pages import event, login_page
from tavola.web.server import COOKIE, NONCE, PING_SECONDS, _headers, posted_form

log = logging.getLogger("tavola.event")

ACK_SECONDS = 5.0  # how long a referee action waits for the board's answer
FRAME_SECONDS = 0.1  # the hall page's events at most this often (changes coalesce)


class EventConsole:
    """The hall of one event: an MQTT subscriber and the web pages over it."""

    def __init__(self, config: EventConfig, pin: str = "",
                 ack_seconds: float = ACK_SECONDS) -> None:
        self.config = config
        self.ack_seconds = ack_seconds
        self.hall = Hall(config.event)
        self.hall.linked(f"Connecting to the broker {config.host}:{config.port} ...")
        self.changed = asyncio.Event()  # set and replaced when the hall's version moves
        self.closed = False
        self.epoch = secrets.token_hex(4)  # this console's run, in the stream's event ids
        self.referees = Referees(pin)
        self.connected = asyncio.Event()
        self.client: aiomqtt.Client | None = None
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        # Per table, the last command that got no answer in time: a resend reuses its id.
        self.unanswered: dict[str, Command] = {}
        self.runner: web.AppRunner | None = None
        self.port = config.console_port
        self._task: asyncio.Task[None] | None = None
        self.app = web.Application(middlewares=[_headers])
        self.app.add_routes([
            web.get("/", self.index), web.get("/events", self.events),
            web.get("/table/{table}", self.table),
            web.post("/table/{table}/action", self.act),
            web.post("/table/{table}/resend", self.resend),
            web.get("/results", self.results), web.get("/records", self.records),
            web.get("/records.txt", self.all_records),
            web.get("/record/{table}/{game}", self.record),
            web.get("/referee", self.referee), web.post("/referee/login", self.login),
        ])

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Listen for the page (port 0: any free one, see :attr:`port`) and start
        following the broker (which may be down: the console keeps trying)."""
        self.runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=1.0)
        await self.runner.setup()
        await web.TCPSite(self.runner, self.config.console_host, self.config.console_port).start()
        for address in self.runner.addresses:
            if isinstance(address, tuple):
                self.port = int(address[1])
                break
        self._task = asyncio.create_task(self._follow(), name="tavola-event-console")

    async def stop(self) -> None:
        """Stop following and serving."""
        if self._task is not None:
            await stop_task(self._task)
        self.closed = True
        self._wake()
        if self.runner is not None:
            await self.runner.cleanup()

    @property
    def url(self) -> str:
        """The hall page's address."""
        host = self.config.console_host
        return f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{self.port}"

    # ----------------------------------------------------------------- the broker
    async def _follow(self) -> None:
        await keep_connected(self._client, self._serve, self._dropped, self.config,
                             "event console")

    def _client(self) -> aiomqtt.Client:
        cfg = self.config
        return aiomqtt.Client(
            cfg.host, cfg.port, username=cfg.username or None, password=cfg.password or None,
            keepalive=10, tls_context=tls_context(cfg),
            identifier=f"tavola-console-{cfg.event}-{secrets.token_hex(3)}")

    async def _serve(self, client: aiomqtt.Client) -> None:
        await client.subscribe(event_filter(self.config.event), qos=1)
        self.client = client
        self.connected.set()
        if self.hall.linked(""):
            self._wake()
        async for message in client.messages:
            self._receive(str(message.topic), message.payload)

    def _dropped(self) -> None:
        self.client = None
        self.connected.clear()
        # Else an arbiter reads an empty hall, or frozen tables, as boards gone quiet.
        cfg = self.config
        if self.hall.linked(f"Not connected to the broker {cfg.host}:{cfg.port}: the tables "
                            f"show what was last heard; trying again."):
            self._wake()

    def _receive(self, topic: str, payload: Any) -> None:
        data = payload if isinstance(payload, bytes | bytearray) else str(payload).encode()
        if self.hall.receive(topic, bytes(data)):
            self._wake()
        while self.hall.acks:
            table, ack = self.hall.acks.pop(0)
            if (late := self.unanswered.get(table)) is not None and late.id == ack.get("id"):
                del self.unanswered[table]  # answered after all: nothing left to resend
            future = self.waiting.pop(str(ack.get("id", "")), None)
            if future is not None and not future.done():
                future.set_result(ack)

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    async def command(self, table: str, action: str, fields: dict[str, str],
                      who: str) -> dict[str, Any]:
        """Send one referee action to ``table``'s board; its ack, or why there is none."""
        return await self.send(table, Command(uuid.uuid4().hex, action, fields, who))

    async def send(self, table: str, cmd: Command) -> dict[str, Any]:
        """Publish ``cmd`` to ``table`` and wait for its ack. Without one in time the
        command is kept as the table's unanswered one, to be resent with the same id (the
        board applies an id once, so a resend of a command that did arrive is answered,
        not applied again)."""
        client = self.client
        if client is None:
            self.unanswered[table] = cmd
            return {"done": False, "said": "Not sent: the broker is not reachable; resend "
                    "it when the console is connected again."}
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[cmd.id] = future
        try:
            await client.publish(Topics(self.config.event, table).cmd,
                                 encode(cmd.to_message(time.time())), QOS["cmd"])
            ack = await asyncio.wait_for(future, self.ack_seconds)
        except (aiomqtt.MqttError, TimeoutError):
            self.unanswered[table] = cmd
            return {"done": False, "said": f"No answer from table {table} within "
                    f"{self.ack_seconds:g} s (board offline?); the broker delivers it when "
                    f"the board is back, and a resend (same id {cmd.id}) is applied once."}
        finally:
            self.waiting.pop(cmd.id, None)
        if (kept := self.unanswered.get(table)) is not None and kept.id == cmd.id:
            del self.unanswered[table]
        return ack

    # ----------------------------------------------------------------- pages
    async def index(self, request: web.Request) -> web.Response:
        """The hall."""
        return _html(pages.hall_page(self.config.event, self.hall.view(), request[NONCE],
                                     self.hall.link))

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The hall's event stream: every table at first (or what changed since the
        ``Last-Event-ID`` of this run), then the tables that changed, at most
        :data:`FRAME_SECONDS` apart, so that a hall of busy tables costs a few events a
        second, each with only the changed tables, whatever the number of boards."""
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        epoch, _, number = request.headers.get("Last-Event-ID", "").partition(".")
        sent = int(number) if epoch == self.epoch and number.isdigit() else -1
        try:
            await response.write(b"retry: 1000\n\n")
            while not self.closed:
                if self.hall.version != sent:
                    data = self.hall.changes(sent)
                    sent = data["version"]
                    await response.write(event(f"{self.epoch}.{sent}", data))
                    await asyncio.sleep(FRAME_SECONDS)
                    continue
                waiting = self.changed
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiting.wait(), PING_SECONDS)
                if self.hall.version == sent and not self.closed:
                    await response.write(b": ping\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return response

    def _csrf(self, request: web.Request) -> str | None:
        session = self.referees.session(request.cookies.get(COOKIE), _now())
        return session.csrf if session is not None else None

    async def table(self, request: web.Request) -> web.Response:
        """One table's view, with the referee's actions for a logged-in arbiter."""
        name = request.match_info["table"]
        if name not in self.hall.tables:
            raise web.HTTPNotFound(text=f"no table {name!r} has been heard of")
        table = self.hall.tables[name]
        return _html(pages.table_page(self.config.event, table.view(), table.state,
                                      self._csrf(request), request[NONCE],
                                      request.query.get("msg", ""),
                                      self.unanswered.get(name)))

    async def act(self, request: web.Request) -> web.Response:
        """A referee action of the table view: sent as a ``cmd``, answered by the ack."""
        form, who = await self._arbiter_form(request)
        name = request.match_info["table"]
        fields = {k: str(v) for k, v in form.items() if k not in ("csrf", "action", "do")}
        ack = await self.command(name, str(form.get("action", "")), fields, who)
        raise web.HTTPSeeOther(f"/table/{quote(name)}?msg={quote(str(ack['said'])[:300])}")

    async def resend(self, request: web.Request) -> web.Response:
        """The table's unanswered command sent again, with its own id (applied once)."""
        await self._arbiter_form(request)
        name = request.match_info["table"]
        cmd = self.unanswered.get(name)
        said = "Nothing to resend: every command to this table was answered."
        if cmd is not None:
            said = str((await self.send(name, cmd))["said"])
        raise web.HTTPSeeOther(f"/table/{quote(name)}?msg={quote(said[:300])}")

    async def _arbiter_form(self, request: web.Request) -> tuple[Any, str]:
        """The posted form of a logged-in arbiter (same origin, fresh form token), and
        who they are; anything else is refused."""
        form = await posted_form(request)
        session = self.referees.session(request.cookies.get(COOKIE), _now())
        if session is None:
            raise web.HTTPForbidden(text="log in at /referee first")
        if not csrf_ok(session, str(form.get("csrf", ""))):
            raise web.HTTPForbidden(text="stale or missing form token; reload the page")
        return form, f"arbiter ({session.who})"

    async def results(self, request: web.Request) -> web.Response:
        """The results table."""
        return _html(pages.results_page(self.config.event, self.hall.results(),
                                        request[NONCE]))

    async def records(self, request: web.Request) -> web.Response:
        """Links to every game's record."""
        return _html(pages.records_page(self.config.event, self.hall.games(), request[NONCE]))

    async def record(self, request: web.Request) -> web.Response:
        """One game's record in the project's export format."""
        table, game_id = request.match_info["table"], request.match_info["game"]
        state = self.hall.games().get((table, game_id))
        if state is None:
            raise web.HTTPNotFound(text=f"no game {game_id!r} has been seen at table {table}")
        return _text(record_text(state, table, self.config.event),
                     f"table{table}-{game_id}{record_suffix(state)}")

    async def all_records(self, request: web.Request) -> web.Response:
        """Every game's record, one after the other."""
        text = "\n".join(record_text(s, table, self.config.event)
                         for (table, _), s in self.hall.games().items())
        return _text(text, f"tavola-{self.config.event}.txt")

    async def referee(self, request: web.Request) -> web.Response:
        """The PIN form (the board console's), or back to the hall once logged in."""
        if self._csrf(request) is not None:
            raise web.HTTPSeeOther("/")
        return _html(login_page(request[NONCE], enabled=self.referees.enabled))

    async def login(self, request: web.Request) -> web.Response:
        """POST the PIN: a session cookie, or refused (rate-limited after a few)."""
        form = await posted_form(request)
        client = request.remote or "?"
        try:
            session = self.referees.login(str(form.get("pin", "")), client, _now())
        except RateLimited as exc:
            return _html(login_page(request[NONCE], f"Refused: {exc}."), status=429)
        if session is None:
            return _html(login_page(request[NONCE], "Wrong PIN.", self.referees.enabled),
                         status=403)
        response = web.HTTPSeeOther("/")
        response.set_cookie(COOKIE, session.sid, max_age=int(self.referees.session_seconds),
                            httponly=True, samesite="Strict", path="/")
        raise response


def _now() -> float:
    return asyncio.get_running_loop().time()


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, content_type="text/html", status=status)


def _text(text: str, filename: str) -> web.Response:
    return web.Response(text=text, content_type="text/plain", headers={
        "Content-Disposition": f'attachment; filename="{filename}"'})


async def serve(config: EventConfig, pin: str) -> None:
    """Run the console until interrupted."""
    console = EventConsole(config, pin)
    await console.start()
    print(f"Event {config.event}: hall {console.url}/  (broker {config.host}:{config.port})",
          flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await console.stop()
