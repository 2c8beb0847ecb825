"""The web server: aiohttp in the daemon's own asyncio loop (docs/web.md says why).

The daemon calls :meth:`WebServer.publish` after each effect it applied; the hub keeps the
newest state (public, and each seat's hand apart) with a version number, and every open
event stream sends the whole state whenever the version moves. The stream's ``id:`` is the
version (with the server run's epoch): a browser reconnecting with ``Last-Event-ID`` is
sent the state again only if it changed meanwhile (or the daemon restarted); a new one gets
it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import socket
from typing import Any, Protocol
from urllib.parse import quote

from aiohttp import web

from tavola.config import WebConfig
from tavola.export import export_record
from tavola.hardware.layout import Layout
from tavola.journal import Journal, read_record
from tavola.record import Record, RecordError
from tavola.web import pages
from tavola.web.auth import RateLimited, Referees, RefereeSession, csrf_ok
from tavola.web.qr import svg_qr, terminal_qr
from tavola.web.referee import Host, Request, incidents, perform
from tavola.web.view import public_state, seat_state

log = logging.getLogger("tavola.web")


def local_only_note(port: int) -> str:
    """What a loopback-only view says where a phone would need the page: the ``listen``
    that lets phones in, on the configured port (it said 8080 whatever the port)."""
    return ("(only this machine can open these pages: [web] listen is on loopback; "
            f'listen = "0.0.0.0:{port or 8080}" lets the players\' phones on the network in)')


COOKIE = "tavola_referee"
NONCE = web.RequestKey("nonce", str)  # the script nonce of this response
PING_SECONDS = 15.0  # a comment on an idle stream finds the clients that went away
MAX_SEATS = 4
MAX_STREAMS = 64  # open event streams at most: a Pi's memory is not for a crowd's tabs
CALM_SECONDS = 0.25  # a state with nothing new but the clocks and the LEDs: 4 times a second


class Board(Host, Protocol):
    """The daemon as the web sees it: the referee's host plus the layout, the journal and
    the sensor (for its health)."""

    layout: Layout
    journal: Journal

    @property
    def sensor(self) -> object:
        """The board's sensor backend."""


class Hub:
    """The newest state and its version; event streams wait here for the next one."""

    def __init__(self) -> None:
        self.epoch = secrets.token_hex(4)  # this server's run, in every event id
        self.version = 0
        self.public: dict[str, Any] = {}
        self.seats: list[dict[str, str]] = []
        self.closed = False
        self._changed = asyncio.Event()

    def publish(self, public: dict[str, Any], seats: list[dict[str, str]]) -> bool:
        """Store a state; True if it differs from the last (then the version moves)."""
        if public == self.public and seats == self.seats:
            return False
        self.public, self.seats = public, seats
        self.version += 1
        self._wake()
        return True

    def close(self) -> None:
        """End every stream (the server stops)."""
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, after: int, timeout: float) -> None:
        """Until the version passes ``after`` (or ``timeout`` seconds, or close)."""
        if self.version > after or self.closed:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)


class WebServer:
    """The live view, the seat pages and the referee console of one daemon."""

    def __init__(self, board: Board, config: WebConfig) -> None:
        self.board = board
        self.config = config
        self.hub = Hub()
        self.referees = Referees(config.pin)
        self.seat_tokens = [secrets.token_urlsafe(12) for _ in range(MAX_SEATS)]
        self.runner: web.AppRunner | None = None
        self.listening = asyncio.Event()  # set once :attr:`port` is the real one
        self._published = float("-inf")
        self.streams = 0
        self.max_streams = MAX_STREAMS
        self.port = config.port
        self.app = web.Application(middlewares=[_headers])
        self.app.add_routes([
            web.get("/", self.live), web.get("/events", self.events),
            web.get("/seat/{seat}", self.seat), web.get("/seat/{seat}/events", self.events),
            web.post("/seat/{seat}/hint", self.hint),
            web.post("/seat/{seat}/play", self.play),
            web.get("/referee", self.referee), web.post("/referee/login", self.login),
            web.post("/referee/logout", self.logout),
            web.post("/referee/action", self.action),
            web.get("/referee/record", self.record),
        ])

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Listen on the configured address (port 0: any free port, see :attr:`port`)."""
        self.publish()
        self.runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=1.0)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.config.host, self.config.port)
        await site.start()
        for address in self.runner.addresses:
            if isinstance(address, tuple):
                self.port = int(address[1])
                break
        self.listening.set()

    async def stop(self) -> None:
        """Close every stream and stop listening."""
        self.hub.close()
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    @property
    def url(self) -> str:
        """The view's address as a browser writes it (listening on every address: this
        machine's address on its network, which a phone can reach)."""
        host = self.config.host
        if host in ("0.0.0.0", "::"):
            host = _lan_address(host)
        shown = "localhost" if host in ("127.0.0.1", "::1") else (
            f"[{host}]" if ":" in host else host)
        return f"http://{shown}:{self.port}"

    def seat_links(self, base: str | None = None) -> list[tuple[str, str]]:
        """(player's name, seat page address with its token) of each seat; ``base`` is
        the address the pages are reached at (default :attr:`url`)."""
        names = self.board.session.game.player_names
        return [(names[n], f"{base or self.url}/seat/{n}?token={self.seat_tokens[n]}")
                for n in range(min(len(names), MAX_SEATS))]

    def seat_urls(self) -> list[str]:
        """Each seat's private page, with its token, for the terminal."""
        return [f"{name}: {link}" for name, link in self.seat_links()]

    @property
    def local_only(self) -> bool:
        """Whether only this machine can open the pages ([web] listen on loopback, the
        default): a phone cannot, so a seat's QR code would lead it nowhere."""
        return self.config.host in ("127.0.0.1", "::1", "localhost")

    @property
    def reach(self) -> str:
        """Who cannot open the pages and the fix, said beside their addresses ('' when
        the network can)."""
        return local_only_note(self.config.port) if self.local_only else ""

    def seat_qr_text(self) -> str:
        """Each seat's page as a QR code for the terminal, under the player's name; with
        [web] listen on loopback, the links and how to let phones in instead."""
        if self.local_only:
            return "\n".join([*self.seat_urls(), self.reach])
        return "\n".join(f"{name}: {link}\n{terminal_qr(link)}"
                         for name, link in self.seat_links())

    def publish(self, urgent: bool = True) -> None:
        """The session changed (or may have): store its state for the streams. A change
        that is not ``urgent`` (a tick: the clocks, a blink) is taken at most every
        :data:`CALM_SECONDS`, which keeps a Pi's CPU for the board."""
        now = self.board.clock()
        if not urgent and now - self._published < CALM_SECONDS:
            return
        self._published = now
        session = self.board.session
        players = min(session.game.num_players, MAX_SEATS)
        self.hub.publish(public_state(session, self.board.layout, now, self.board.sensor),
                         [seat_state(session, n, self.board.layout, now)
                          for n in range(players)])

    # ----------------------------------------------------------------- pages
    async def live(self, request: web.Request) -> web.Response:
        """``/``: the live view."""
        return _html(pages.live_page(self.hub.public, request[NONCE]))

    def _seat_of(self, request: web.Request) -> int:
        try:
            seat = int(request.match_info["seat"])
        except ValueError:
            raise web.HTTPNotFound(text="no such seat") from None
        token = request.query.get("token", "") or request.headers.get("X-Seat-Token", "")
        if not 0 <= seat < len(self.hub.seats) or not hmac.compare_digest(
                token.encode(), self.seat_tokens[seat].encode()):
            raise web.HTTPForbidden(text="this seat's page needs the token shown on the "
                                         "board's terminal")
        return seat

    async def seat(self, request: web.Request) -> web.Response:
        """``/seat/N?token=``: the view plus that seat's hand."""
        seat = self._seat_of(request)
        events = f"/seat/{seat}/events?token={quote(self.seat_tokens[seat])}"
        hint = "" if not self.board.session.hints_allowed else \
            f"/seat/{seat}/hint?token={quote(self.seat_tokens[seat])}"
        state = {**self.hub.public, **self.hub.seats[seat]}  # the mover's whole status
        play = f"/seat/{seat}/play?token={quote(self.seat_tokens[seat])}"
        return _html(pages.seat_page(state, self.hub.seats[seat], events, request[NONCE], hint,
                                     request.query.get("msg", ""), play))

    async def play(self, request: web.Request) -> web.Response:
        """The seat's *Play* form: the player to move names their move (the card of an
        ambiguous placement, which only their page may show; a dead card), as ``play
        MOVE`` on the console. Before, the page said to type it, with nowhere to type."""
        seat = self._seat_of(request)
        form = await posted_form(request)
        move = str(form.get("move", "")).strip().removeprefix("play ").strip()
        session = self.board.session
        if session.game.outcome() is not None or session.game.current_player != seat:
            said = "Only the player to move plays a move."
        elif not move or move in ("undo", "resign", "draw", "hint"):
            said = "Name a move (e.g. the card and cell of the placement)."
        else:
            fx = session.command(move, self.board.clock(), self.board.wall())
            self.board.apply(fx)
            said = " ".join(fx.log) or f"Played {move}."
        self.publish()
        raise web.HTTPSeeOther(f"/seat/{seat}?token={quote(self.seat_tokens[seat])}"
                               f"&msg={quote(said[:300])}")

    async def hint(self, request: web.Request) -> web.Response:
        """The seat's hint button: the engine's best move lit blue, if it is that seat's
        turn (the answer comes on the board and the live view)."""
        _same_origin(request)
        seat = self._seat_of(request)
        session = self.board.session
        if session.game.current_player != seat or session.game.outcome() is not None:
            said = "A hint is for the player to move."
        else:
            fx = session.command("hint", self.board.clock(), self.board.wall())
            self.board.apply(fx)
            said = " ".join(fx.log)
        raise web.HTTPSeeOther(f"/seat/{seat}?token={quote(self.seat_tokens[seat])}"
                               f"&msg={quote(said)}")

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The event stream: the whole state now (unless the client has it), then at
        every change; the seat's stream adds that seat's hand."""
        seat = self._seat_of(request) if "seat" in request.match_info else None
        if self.streams >= self.max_streams:
            raise web.HTTPServiceUnavailable(text="too many open pages; close one",
                                             headers={"Retry-After": "10"})
        self.streams += 1
        try:
            return await self._stream(request, seat)
        finally:
            self.streams -= 1

    async def _stream(self, request: web.Request, seat: int | None) -> web.StreamResponse:
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        # The id is "<epoch>.<version>": an id from before a restart (another epoch) is
        # no proof of anything, the versions started again.
        epoch, _, number = request.headers.get("Last-Event-ID", "").partition(".")
        sent = int(number) if epoch == self.hub.epoch and number.isdigit() else -1
        try:
            await response.write(b"retry: 1000\n\n")
            while not self.hub.closed:
                if self.hub.version != sent:
                    sent = self.hub.version
                    data = dict(self.hub.public)
                    if seat is not None and seat < len(self.hub.seats):
                        data.update(self.hub.seats[seat])
                    await response.write(pages.event(f"{self.hub.epoch}.{sent}", data))
                await self.hub.wait(sent, PING_SECONDS)
                if self.hub.version == sent and not self.hub.closed:
                    await response.write(b": ping\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return response

    # ----------------------------------------------------------------- referee
    def _referee(self, request: web.Request) -> RefereeSession | None:
        return self.referees.session(request.cookies.get(COOKIE), self.board.clock())

    async def referee(self, request: web.Request) -> web.Response:
        """``/referee``: the PIN form, or the console for a logged-in referee."""
        nonce = request[NONCE]
        session = self._referee(request)
        if session is None:
            return _html(pages.login_page(nonce, enabled=self.referees.enabled))
        try:
            record = self._shown_record()
        except RecordError:  # the daemon says so on its own; the console still works
            record = None
        log_ = incidents(list(record.entries) if record is not None else [])
        state = {**self.hub.public, "status": self.board.session.status()}  # all of it
        # The address the referee reached the console at reaches the board from the
        # table's network too, unless it is this machine's loopback.
        base = f"{request.scheme}://{request.host}"
        if request.host.startswith(("localhost", "127.", "[::1]")):
            base = self.url
        seats = [(name, link, svg_qr(link)) for name, link in self.seat_links(base)]
        return _html(pages.console_page(state, session.csrf, session.who, log_,
                                        nonce, request.query.get("msg", ""), seats))

    async def login(self, request: web.Request) -> web.Response:
        """POST the PIN: a session cookie, or refused (rate-limited after a few)."""
        form = await posted_form(request)
        client = request.remote or "?"
        nonce = request[NONCE]
        try:
            session = self.referees.login(str(form.get("pin", "")), client, self.board.clock())
        except RateLimited as exc:
            log.warning("referee login from %s refused: %s", client, exc)
            return _html(pages.login_page(nonce, f"Refused: {exc}."), status=429)
        if session is None:
            log.warning("wrong referee PIN from %s", client)
            return _html(pages.login_page(nonce, "Wrong PIN.", self.referees.enabled),
                         status=403)
        response = web.HTTPSeeOther("/referee")
        response.set_cookie(COOKIE, session.sid, max_age=int(self.referees.session_seconds),
                            httponly=True, samesite="Strict", path="/")
        raise response

    def _checked(self, request: web.Request, form: Any) -> RefereeSession:
        """The POST's session, its CSRF token and origin checked; 403 otherwise."""
        _same_origin(request)
        session = self._referee(request)
        if session is None:
            raise web.HTTPForbidden(text="log in at /referee first")
        if not csrf_ok(session, str(form.get("csrf", ""))):
            raise web.HTTPForbidden(text="stale or missing form token; reload /referee")
        return session

    async def logout(self, request: web.Request) -> web.Response:
        """End the referee's session."""
        self._checked(request, await posted_form(request))
        self.referees.logout(request.cookies.get(COOKIE))
        response = web.HTTPSeeOther("/referee")
        response.del_cookie(COOKIE, path="/")
        raise response

    async def action(self, request: web.Request) -> web.Response:
        """One referee action, carried out through the session; back to the console."""
        form = await posted_form(request)
        session = self._checked(request, form)
        fields = {k: str(v) for k, v in form.items() if k not in ("csrf",)}
        said = perform(self.board, Request(fields.pop("action", ""), fields, session.who))
        log.info("%s: %s -> %s", session.who, fields, said)
        self.publish()
        raise web.HTTPSeeOther(f"/referee?msg={quote(said[:300])}")

    def _shown_record(self) -> Record | None:
        """The game the console shows: the one in progress, else (it just ended and is
        filed) the newest finished one, so its incidents and record stay in reach until
        the next game starts; None before any game."""
        journal = self.board.journal
        record = journal.resume()
        if record is None and journal.filed_last is not None:
            record = read_record(journal.filed_last)
        elif record is None:  # (none filed since the start: read them all, once)
            finished = journal.records()
            record = journal.load(finished[-1].id) if finished else None
        return record

    async def record(self, request: web.Request) -> web.Response:
        """The game in progress's record (else the last finished one): as ``tavola
        export`` writes it (PDN for draughts), or with ``?format=jsonl`` as the journal
        holds it."""
        if self._referee(request) is None:
            raise web.HTTPForbidden(text="log in at /referee first")
        try:
            record = self._shown_record()
        except RecordError as exc:
            raise web.HTTPConflict(text=f"the record cannot be read: {exc}") from None
        if record is None:
            raise web.HTTPNotFound(text="no game recorded yet")
        if request.query.get("format") == "jsonl":
            # The same game as the export: once it ended, the one just filed (this was an
            # empty file then).
            try:
                body = (record.path or self.board.journal.current).read_bytes()
            except OSError as exc:
                raise web.HTTPConflict(text=f"the record cannot be read: {exc}") from None
            return web.Response(body=body, content_type="application/x-ndjson", headers={
                "Content-Disposition": f'attachment; filename="tavola-{record.id}.jsonl"'})
        suffix = "pdn" if record.header.game == "draughts" else "txt"
        return web.Response(text=export_record(record), content_type="text/plain",
                            charset="utf-8", headers={
            "Content-Disposition": f'attachment; filename="tavola-{record.id}.{suffix}"'})


def _lan_address(wildcard: str) -> str:
    """This machine's address towards its network (no packet is sent: a UDP socket's
    connect only picks the route); the hostname when there is no route."""
    family = socket.AF_INET6 if ":" in wildcard else socket.AF_INET
    probe = "2001:db8::1" if family == socket.AF_INET6 else "192.0.2.1"  # documentation nets
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as udp:
            udp.connect((probe, 9))
            return str(udp.getsockname()[0])
    except OSError:
        return socket.gethostname()


def _same_origin(request: web.Request) -> None:
    """Refuse a POST whose Origin (sent by every current browser) is another site."""
    origin = request.headers.get("Origin")
    if origin is not None and origin != f"{request.scheme}://{request.host}":
        raise web.HTTPForbidden(text="cross-site request refused")


async def posted_form(request: web.Request) -> Any:
    """A POST's form, from this site only; a body that is not a form (bytes that are not
    UTF-8: a picture sent to the login) is a 400 that says so, not a 500 and a traceback
    in the daemon's log."""
    _same_origin(request)
    try:
        return await request.post()
    except (UnicodeDecodeError, ValueError):
        raise web.HTTPBadRequest(text="the form could not be read; reload the page and "
                                      "send it again") from None


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, content_type="text/html", status=status)


@web.middleware
async def _headers(request: web.Request, handler: Any) -> web.StreamResponse:
    """A script nonce per response and the headers that keep pages in their own frame."""
    nonce = secrets.token_urlsafe(12)
    request[NONCE] = nonce
    response: web.StreamResponse = await handler(request)
    if response.prepared:  # an event stream: its headers are sent already
        return response
    response.headers.setdefault(
        "Content-Security-Policy",
        f"default-src 'self'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; "
        "img-src 'self' data:; frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    # Not no-referrer: with it, browsers send "Origin: null" on the console's own forms.
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response
