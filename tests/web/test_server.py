"""The web server inside a running daemon (simulator, real loopback HTTP): the live view
and its event stream, the referee's login and actions, the seat pages' secrecy, and the
security rules (no write without the PIN session, CSRF, loopback by default, escaping)."""

from __future__ import annotations

import asyncio
import json
from html import escape
from pathlib import Path

import aiohttp
import pytest

from tavola.config import ConfigError, load_config
from tavola.feedback import BLUE
from tavola.web import pages
from tavola.web.auth import MAX_FAILURES, RateLimited, Referees
from tests.web.daemon import PIN, login, next_event, referee_act, until, web_daemon

CLOCK = {"TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5"}


def journal_lines(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "journal" / "current.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def test_the_web_is_off_and_loopback_by_default() -> None:
    web = load_config(None, {}, {}).web
    assert (web.enabled, web.host, web.port, web.pin) == (False, "127.0.0.1", 8080, "")


@pytest.mark.parametrize(("env", "named"), [
    ({"TAVOLA_WEB_LISTEN": "8080"}, "web.listen = '8080': must be HOST:PORT"),
    ({"TAVOLA_WEB_LISTEN": "localhost:99999"}, "web.listen"),
    ({"TAVOLA_WEB_PIN": "12"}, "web.pin: the PIN must have at least 4"),
    ({"TAVOLA_WEB_PIN": "1234", "TAVOLA_WEB_PIN_FILE": "/x"}, "keep one of them"),
    ({"TAVOLA_WEB_PIN_FILE": "/nonexistent/pin"}, "web.pin_file = '/nonexistent/pin': cannot"),
    ({"TAVOLA_WEB_ENABLED": "maybe"}, "web.enabled = 'maybe': must be true or false"),
])
def test_bad_web_settings_name_the_key(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=None) as raised:
        load_config(None, env, {})
    assert named in str(raised.value)


def test_the_pin_is_read_from_its_file(tmp_path: Path) -> None:
    (tmp_path / "pin").write_text("90210\n")
    web = load_config(None, {"TAVOLA_WEB_PIN_FILE": str(tmp_path / "pin")}, {}).web
    assert web.pin == "90210"


def test_a_move_reaches_the_stream_and_a_late_joiner_gets_the_state(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, url), aiohttp.ClientSession() as http:
            page = await (await http.get(f"{url}/")).text()
            assert "<svg" in page and "morris: White to move" in page
            async with http.get(f"{url}/events") as first:
                assert first.headers["Content-Type"] == "text/event-stream"
                _, state = await next_event(first)  # the whole state at once
                assert state["moves"] == []
                daemon.console_line("d2")  # a man put down on the simulated board
                while not state["moves"]:
                    version, state = await next_event(first)
                assert state["moves"] == ["d2"] and state["last"] == "d2"
                async with http.get(f"{url}/events") as late:
                    late_version, late_state = await next_event(late)
                    assert late_state["moves"] == ["d2"] and late_version >= version
                # A reconnect that has the newest state is not sent it again: the next
                # event it gets is a newer one.
                daemon.console_line("a1")
                await until(lambda: len(daemon.session.game.history) == 2)
                assert daemon.web is not None
                now, epoch = daemon.web.hub.version, daemon.web.hub.epoch
                async with http.get(f"{url}/events",
                                    headers={"Last-Event-ID": f"{epoch}.{now}"}) as again:
                    daemon.console_line("g7")
                    got, _ = await next_event(again)
                    assert got > now
                # The same number from another run of the server is sent the state.
                async with http.get(f"{url}/events",
                                    headers={"Last-Event-ID": f"0000.{now}"}) as restarted:
                    got, _ = await next_event(restarted)
                    assert got == daemon.web.hub.version

    asyncio.run(scenario())


def test_every_write_needs_the_referee_session(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, url), aiohttp.ClientSession() as http:
            assert daemon.web is not None
            posts = [r.resource.canonical for r in daemon.web.app.router.routes()
                     if r.method == "POST" and r.resource is not None]
            assert len(posts) == 5  # a new POST route: decide here how it is guarded
            for path in posts:
                if path == "/referee/login":
                    continue  # it takes the PIN itself (tested below)
                path = path.replace("{seat}", "0")  # a seat's POST needs the seat's token
                response = await http.post(f"{url}{path}", data={"action": "new"},
                                           allow_redirects=False)
                assert response.status == 403, path
            assert (await http.get(f"{url}/referee/record")).status == 403
            page = await (await http.get(f"{url}/referee")).text()
            assert 'name="pin"' in page and "Referee console" not in page

    asyncio.run(scenario())
    assert [e["type"] for e in journal_lines(tmp_path)] == ["start"]


def test_a_wrong_pin_is_refused_and_rate_limited(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (_, url), aiohttp.ClientSession() as http:
            response = await http.post(f"{url}/referee/login", data={"pin": "0000"})
            assert response.status == 403 and "Wrong PIN" in await response.text()
            assert not http.cookie_jar.filter_cookies(url)  # type: ignore[arg-type]
            for _ in range(MAX_FAILURES - 1):
                await http.post(f"{url}/referee/login", data={"pin": "0000"})
            locked = await http.post(f"{url}/referee/login", data={"pin": PIN})
            assert locked.status == 429  # even the right PIN waits now

    asyncio.run(scenario())


def test_the_rate_limit_ends_and_a_session_expires() -> None:
    referees = Referees("4711", session_seconds=100.0)
    for n in range(MAX_FAILURES):
        assert referees.login("1111", "10.0.0.2", float(n)) is None
    with pytest.raises(RateLimited):
        referees.login("4711", "10.0.0.2", 10.0)
    assert referees.login("4711", "10.0.0.3", 10.0) is not None  # another client
    session = referees.login("4711", "10.0.0.2", 70.0)  # the window has passed
    assert session is not None
    assert referees.session(session.sid, 169.0) is session
    assert referees.session(session.sid, 170.0) is None


def test_the_session_cookie_is_httponly_and_strict(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (_, url), aiohttp.ClientSession() as http:
            response = await http.post(f"{url}/referee/login", data={"pin": PIN},
                                        allow_redirects=False)
            assert response.status == 303
            cookie = response.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
            assert "Max-Age=" in cookie

    asyncio.run(scenario())


def test_csrf_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, **CLOCK) as (_, url), aiohttp.ClientSession() as http:
            token = await login(http, url)
            form = {"action": "pause", "reason": "x"}
            no_token = await http.post(f"{url}/referee/action", data=form,
                                       allow_redirects=False)
            assert no_token.status == 403
            cross = await http.post(f"{url}/referee/action", data={**form, "csrf": token},
                                    headers={"Origin": "http://evil.example"},
                                    allow_redirects=False)
            assert cross.status == 403
            login_cross = await http.post(f"{url}/referee/login", data={"pin": PIN},
                                          headers={"Origin": "http://evil.example"})
            assert login_cross.status == 403

    asyncio.run(scenario())
    assert "referee" not in [e["type"] for e in journal_lines(tmp_path)]


def test_the_referee_adds_time_pauses_undoes_and_declares(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, **CLOCK) as (daemon, url), \
                aiohttp.ClientSession() as http:
            token = await login(http, url)

            async def act(**form: str) -> str:
                return await referee_act(http, url, token, **form)

            clock = daemon.session.clock
            assert clock is not None
            before = clock.remaining(1, daemon.clock()) or 0.0
            said = await act(action="clock", player="1", seconds="30", reason="phone rang")
            assert "Refused" not in said
            assert (clock.remaining(1, daemon.clock()) or 0.0) == pytest.approx(before + 30)
            assert not clock.running  # nobody has moved: timing starts with the first move
            assert "Refused" not in await act(action="resume")  # or when the referee says
            assert clock.running
            assert "Refused" not in await act(action="pause")
            assert not clock.running
            assert (await act(action="pause")).startswith("Refused: The clocks are already")
            await act(action="resume")
            daemon.console_line("d2")
            daemon.console_line("a1")
            await until(lambda: len(daemon.session.game.history) == 2)
            assert await act(action="undo", ply="7") == (
                "Refused: There is no ply 7: the game is at ply 2.")
            assert await act(action="undo", ply="x") == (
                "Refused: ply must be a whole number, got &#x27;x&#x27;")
            assert await act(action="correct", ply="1", moves="d2") == (
                "Refused: Illegal after ply 1: d2: d2 is occupied")
            said = await act(action="correct", ply="1", moves="g7", reason="misread")
            assert "Took back a1." in said and "Black: g7" in said
            # The board still shows a1: play waits until it shows g7 instead.
            assert daemon.session.restoring == 2
            assert "set the board to it (lift a1, put a piece on g7)" in \
                daemon.session.status()
            daemon.console_line("a1-g7")
            await until(lambda: daemon.session.restoring is None)
            assert [str(m) for m in daemon.session.game.history] == ["d2", "g7"]
            entries = journal_lines(tmp_path)
            note = next(e for e in entries if e["type"] == "referee"
                        and e["action"] == "correct to ply 1: g7")
            assert note["reason"] == "misread" and str(note["who"]).startswith("referee@")
            at = entries.index(note)
            assert [e["type"] for e in entries[at + 1:at + 3]] == ["undo", "action"]
            assert "action" not in [e["type"] for e in entries[at + 3:]]  # a1-g7: no move
            said = await act(action="result", kind="forfeit", winner="0", reason="left")
            assert "Game over" in said
            assert daemon.session.game.outcome() is not None

    asyncio.run(scenario())


def test_clocks_the_referee_paused_stay_paused_after_a_restart(tmp_path: Path) -> None:
    """A player is ill, the referee pauses the clocks, the board restarts (a power cut):
    the clocks ran again on their own, the ill player's time going. They stay paused
    until the referee resumes them; a restart of a running game resumes them as before."""
    async def pause_then_restart() -> tuple[bool, bool, bool]:
        async with web_daemon(tmp_path, **CLOCK) as (daemon, url), \
                aiohttp.ClientSession() as http:
            token = await login(http, url)
            daemon.console_line("d2")  # the clocks start
            await until(lambda: daemon.session.clock is not None and daemon.session.clock.running)
            await http.post(f"{url}/referee/action", data={"csrf": token, "action": "pause",
                                                          "reason": "a player is ill"})
            assert daemon.session.clock is not None and not daemon.session.clock.running
        async with web_daemon(tmp_path, **CLOCK) as (daemon, url), \
                aiohttp.ClientSession() as http:
            assert daemon.session.clock is not None
            paused = not daemon.session.clock.running
            token = await login(http, url)
            await http.post(f"{url}/referee/action", data={"csrf": token, "action": "resume"})
            resumed = daemon.session.clock.running
        async with web_daemon(tmp_path, **CLOCK) as (daemon, _url):
            assert daemon.session.clock is not None
            return paused, resumed, daemon.session.clock.running

    assert asyncio.run(pause_then_restart()) == (True, True, True)


def test_refereed_actions_are_journaled_with_who(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, **CLOCK) as (_, url), aiohttp.ClientSession() as http:
            token = await login(http, url)
            await http.post(f"{url}/referee/action",
                            data={"csrf": token, "action": "clock", "player": "0",
                                  "seconds": "-10", "reason": "late"})
            await http.post(f"{url}/referee/action",
                            data={"csrf": token, "action": "play", "move": "zz9"})

    asyncio.run(scenario())
    entries = journal_lines(tmp_path)
    referee = [e for e in entries if e["type"] == "referee"]
    assert len(referee) == 1  # the refused move was not journaled
    note = referee[0]
    assert note["action"] == "clock -10 s White" and note["reason"] == "late"
    assert str(note["who"]).startswith("referee@127.0.0.1")
    after = entries[entries.index(note) + 1]
    assert after["type"] == "clock"


def test_a_seat_sees_its_own_cards_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, "sequence-kids") as (daemon, url), \
                aiohttp.ClientSession() as http:
            assert daemon.web is not None
            game = daemon.session.game
            hands = [game.private_text(n) for n in range(game.num_players)]
            assert all(hands) and hands[0] != hands[1]
            token = daemon.web.seat_tokens[0]
            assert (await http.get(f"{url}/seat/0?token=wrong")).status == 403
            assert (await http.get(f"{url}/seat/1?token={token}")).status == 403
            seat = await (await http.get(f"{url}/seat/0?token={token}")).text()
            public = await (await http.get(f"{url}/")).text()
            assert escape(hands[0]) in seat
            assert escape(hands[1]) not in seat
            assert all(escape(h) not in public for h in hands)
            async with http.get(f"{url}/seat/0/events?token={token}") as stream:
                _, state = await next_event(stream)
                raw = json.dumps(state).encode()
            assert state["hand"] == hands[0]
            assert hands[1].encode() not in raw and json.dumps(hands[1]) not in raw.decode()
            async with http.get(f"{url}/events") as stream:
                _, state = await next_event(stream)
            assert "hand" not in state and hands[0] not in json.dumps(state)

    asyncio.run(scenario())


def test_user_text_is_escaped() -> None:
    evil = "<script>alert(1)</script>"
    state = {"game": evil, "svg": "", "status": evil, "turn": evil, "result": "",
             "clocks": evil, "last": evil, "moves": [evil], "players": [evil, "b"],
             "health": evil}
    html = (pages.live_page(state, "n") + pages.console_page(state, evil, evil, [], "n", evil)
            + pages.seat_page(state, {"seat": evil, "hand": evil}, evil, "n", evil, evil)
            + pages.login_page("n", evil))
    assert evil not in html and "&lt;script&gt;" in html



def test_the_referee_starts_a_new_game(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, url), aiohttp.ClientSession() as http:
            token = await login(http, url)
            daemon.console_line("d2")
            await until(lambda: len(daemon.session.game.history) == 1)
            assert await referee_act(http, url, token, action="new",
                                     reason="wrong opening") == "New game started."
            assert daemon.session.game.history == ()
            assert [e["type"] for e in journal_lines(tmp_path)][:1] == ["start"]
            assert not any(e["type"] == "action" for e in journal_lines(tmp_path))

    asyncio.run(scenario())
    filed = next((tmp_path / "journal" / "games").glob("*.jsonl"))
    entries = [json.loads(line) for line in filed.read_text().splitlines()]
    note = next(e for e in entries if e["type"] == "referee")
    assert (note["action"], note["reason"]) == ("new game", "wrong opening")
    assert entries[-1]["type"] == "result"


def test_a_new_game_waits_for_the_board_to_be_set_up(tmp_path: Path) -> None:
    # `new` with the last game's pieces still on the board: the first piece touched was an
    # illegal position, flagged and charged to White, and nothing said to set up first.
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, _url):
            daemon.console_line("d2")
            await until(lambda: len(daemon.session.game.history) == 1)
            daemon.console_line("new")
            await until(lambda: "set up the board for the new game (lift d2)"
                        in daemon.session.status(), why=daemon.session.status)
            daemon.console_line("g7")  # a hand setting up: not a move, not an incident
            await until(lambda: "(lift d2, lift g7)" in daemon.session.status(),
                        why=daemon.session.status)
            daemon.console_line("lift d2")
            daemon.console_line("lift g7")
            await until(lambda: "set up" not in daemon.session.status(),
                        why=daemon.session.status)
            daemon.console_line("d6")
            await until(lambda: len(daemon.session.game.history) == 1)
            assert [str(m) for m in daemon.session.game.history] == ["d6"]
            assert daemon.session.flags == [0, 0]
            assert not any(e["type"] == "illegal" for e in journal_lines(tmp_path))
            assert "The board is set up for the new game; play." in daemon._log_tail

    asyncio.run(scenario())


def test_a_daemon_stopped_after_the_game_ended_says_the_next_start_is_a_new_game(
        tmp_path: Path) -> None:
    # It said "the game is kept and resumes at the next start" of a game filed as over.
    from tavola.daemon import Daemon

    async def scenario() -> Daemon:
        async with web_daemon(tmp_path) as (daemon, _url):
            daemon.console_line("resign")
            await until(lambda: not (tmp_path / "journal" / "current.jsonl").exists())
            return daemon

    daemon = asyncio.run(scenario())
    assert daemon._log_tail[-1] == ("Stopped; the game is recorded, and the next start "
                                    "begins a new one.")


def test_the_referee_starts_the_next_game_once_one_has_ended(tmp_path: Path) -> None:
    # Between rounds, the usual case: refused with "no game in progress: begin() one first",
    # the note having nowhere to go. It goes in the game it starts.
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, url), aiohttp.ClientSession() as http:
            token = await login(http, url)
            daemon.console_line("d2")
            await until(lambda: len(daemon.session.game.history) == 1)
            said = await referee_act(http, url, token, action="undo", ply="0",
                                     reason="misplaced")
            assert said == "Took back d2."  # an incident: the referee's correction
            said = await referee_act(http, url, token, action="result", kind="forfeit",
                                     winner="0")
            assert "Game over" in said
            await until(lambda: not (tmp_path / "journal" / "current.jsonl").exists())
            # The game just ended keeps its incidents on the console (they were wiped).
            page = await (await http.get(f"{url}/referee")).text()
            assert "undo to ply 0" in page.split('id="incidents"')[1]
            assert await referee_act(http, url, token, action="new",
                                     reason="round 2") == "New game started."
            assert daemon.session.game.outcome() is None
            entries = journal_lines(tmp_path)
            assert [e["type"] for e in entries] == ["start", "referee"]  # a fresh game
            assert (entries[1]["action"], entries[1]["reason"]) == ("new game", "round 2")

    asyncio.run(scenario())


def test_the_seat_links_are_printed_and_a_seat_asks_for_a_hint(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, "sequence-kids") as (daemon, url), \
                aiohttp.ClientSession() as http:
            assert daemon.web is not None
            tokens = daemon.web.seat_tokens
            shown = "\n".join(daemon._log_tail)
            assert f"Seat page of Red: {url}/seat/0?token={tokens[0]}" in shown
            assert f"Seat page of Yellow: {url}/seat/1?token={tokens[1]}" in shown
            other = await http.post(f"{url}/seat/1/hint?token={tokens[1]}")
            assert "A hint is for the player to move." in await other.text()
            assert (await http.post(f"{url}/seat/0/hint?token=nope")).status == 403
            mine = await http.post(f"{url}/seat/0/hint?token={tokens[0]}")
            assert "Looking for a hint for Red" in await mine.text()

    asyncio.run(scenario())


def test_the_loopback_note_names_the_configured_port() -> None:
    from tavola.web.server import local_only_note

    assert 'listen = "0.0.0.0:8091" lets' in local_only_note(8091)  # it said 8080
    assert 'listen = "0.0.0.0:8080" lets' in local_only_note(0)  # an ephemeral port


@pytest.mark.parametrize("listen", ["127.0.0.1:0", "0.0.0.0:0"])
def test_seat_qr_codes_only_where_a_phone_can_open_them(tmp_path: Path, listen: str) -> None:
    """On loopback (the default) a seat's QR code led a phone to its own localhost: the
    board now says who can open the pages and the [web] listen that lets phones in."""
    async def scenario() -> tuple[str, str]:
        async with web_daemon(tmp_path, "sequence-kids", TAVOLA_WEB_LISTEN=listen) as (
                daemon, _url):
            assert daemon.web is not None
            return daemon.web.seat_qr_text(), "\n".join(daemon._log_tail)

    codes, said = asyncio.run(scenario())
    note = 'listen = "0.0.0.0:8080" lets the players\' phones on the network in'
    if listen.startswith("127."):
        assert note in codes and "\u2588" not in codes and "/seat/0?token=" in codes
        assert "referee (only this machine can open these pages" in said
    else:
        assert note not in codes and "\u2588" in codes and note not in said


def test_open_streams_are_limited(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, url), aiohttp.ClientSession() as http:
            assert daemon.web is not None
            daemon.web.max_streams = 2
            first = await http.get(f"{url}/events")
            second = await http.get(f"{url}/events")
            third = await http.get(f"{url}/events")
            assert (first.status, second.status, third.status) == (200, 200, 503)
            first.close()  # its slot is free at the next write to it: a change, or a ping
            daemon.console_line("d2")
            await until(lambda: daemon.web is not None and daemon.web.streams < 2)
            fourth = await http.get(f"{url}/events")
            assert fourth.status == 200
            second.close()
            fourth.close()

    asyncio.run(scenario())


def test_a_taken_port_is_one_clear_line(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tavola.cli", "run", "--journal", str(tmp_path),
             "--leds", "none", "--console", "off"],
            env={**__import__("os").environ, "TAVOLA_WEB_ENABLED": "true",
                 "TAVOLA_WEB_LISTEN": f"127.0.0.1:{port}"},
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert f"web.listen = '127.0.0.1:{port}': cannot listen there" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_ambiguous_card_is_told_only_to_its_holder(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Seed 5 deals Red a unicorn: any chip Red puts down could be an animal or it.
        async with web_daemon(tmp_path, "sequence-kids", TAVOLA_GAME_PARAMS_SEED="5") as (
                daemon, url), aiohttp.ClientSession() as http:
            assert daemon.web is not None
            game = daemon.session.game
            assert "unicorn" in game.private_text(0)
            cell = next(str(m).split("@")[1] for m in game.legal_moves()
                        if "@" in str(m) and not str(m).startswith(("unicorn", "dragon")))
            candidates = [str(m) for m in game.legal_moves() if str(m).endswith("@" + cell)]
            assert len(candidates) == 2
            daemon.console_line(f"place {cell} R")
            await until(lambda: "ambiguous" in daemon.session.status())
            public = await (await http.get(f"{url}/")).text()
            seat = await (await http.get(
                f"{url}/seat/0?token={daemon.web.seat_tokens[0]}")).text()
            assert "the player to move says which card" in public
            assert all(c not in public for c in candidates)
            assert all(c in seat for c in candidates)
            # The seat page has the form its status line asks for (it said "type play ...",
            # with nowhere to type); another seat may not choose for the player to move.
            assert 'action="/seat/0/play?token=' in seat
            other = f"{url}/seat/1/play?token={daemon.web.seat_tokens[1]}"
            page = await (await http.post(other, data={"move": candidates[0]})).text()
            assert "Only the player to move plays a move." in page
            assert len(game.history) == 0
            mine = f"{url}/seat/0/play?token={daemon.web.seat_tokens[0]}"
            await http.post(mine, data={"move": f"play {candidates[1]}"})
            assert [str(m) for m in daemon.session.game.history] == [candidates[1]]
            assert (await http.post(f"{url}/seat/0/play?token=x", data={"move": "a"})).status \
                == 403

    asyncio.run(scenario())


def test_the_console_downloads_the_record_in_its_notation(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, "draughts", TAVOLA_GAME_VARIANT="russian",
                              **CLOCK) as (daemon, url), aiohttp.ClientSession() as http:
            assert (await http.get(f"{url}/referee/record?format=jsonl")).status == 403
            token = await login(http, url)
            daemon.console_line("c3-d4")
            await until(lambda: len(daemon.session.game.history) == 1)
            await http.post(f"{url}/referee/action", data={
                "csrf": token, "action": "clock", "player": "1", "seconds": "30",
                "reason": "knocked over"})
            response = await http.get(f"{url}/referee/record")
            assert response.status == 200
            assert 'filename="tavola-' in response.headers["Content-Disposition"]
            text = await response.text()
            assert '[GameType "25"]' in text and "1. c3-d4 {[%clk 0:" in text
            assert ": clock +30 s Black (knocked over)}" in text
            raw = await (await http.get(f"{url}/referee/record?format=jsonl")).text()
            assert [json.loads(line)["type"] for line in raw.splitlines()][:2] == [
                "start", "action"]
            # Once the game ended, the one just filed (an empty file before), by its id.
            game_id = json.loads(raw.splitlines()[0])["id"]
            await http.post(f"{url}/referee/action", data={
                "csrf": token, "action": "result", "kind": "forfeit", "winner": "0"})
            await until(lambda: not (tmp_path / "journal" / "current.jsonl").exists())
            response = await http.get(f"{url}/referee/record?format=jsonl")
            assert response.headers["Content-Disposition"] == \
                f'attachment; filename="tavola-{game_id}.jsonl"'
            types = [json.loads(line)["type"] for line in (await response.text()).splitlines()]
            assert types[:2] == ["start", "action"] and types[-1] == "result"

    asyncio.run(scenario())


def test_the_live_view_shows_the_sensors_health(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path) as (daemon, url), aiohttp.ClientSession() as http:
            assert "board connected" in await (await http.get(f"{url}/")).text()
            # What the camera's backend reports of its corner markers (docs/web.md).
            setattr(daemon.sensor, "health",  # noqa: B010 - the sim has no such field
                    {"camera": "ok", "markers_seen": 3, "markers_expected": 4})
            async with http.get(f"{url}/events") as stream:
                daemon.console_line("d2")
                state: dict[str, object] = {}
                while "markers" not in str(state.get("health")):
                    _, state = await next_event(stream)
                assert state["health"] == "board connected; camera: 3 of 4 markers seen"

    asyncio.run(scenario())


def test_every_post_route_refuses_another_sites_request(tmp_path: Path) -> None:
    """Even with the referee's session cookie and a seat's token (as an old browser that
    ignores SameSite would send them), a POST from another site is refused on every route;
    the referee's routes also want the form's CSRF token."""
    async def scenario() -> None:
        async with web_daemon(tmp_path, **CLOCK) as (daemon, url), \
                aiohttp.ClientSession() as http:
            assert daemon.web is not None
            token = await login(http, url)
            daemon.console_line("d2")  # the first move starts the clocks the evil form pauses
            await until(lambda: daemon.session.clock is not None and daemon.session.clock.running)
            seat = f"token={daemon.web.seat_tokens[0]}"
            posts = sorted(r.resource.canonical for r in daemon.web.app.router.routes()
                           if r.method == "POST" and r.resource is not None)
            assert posts == ["/referee/action", "/referee/login", "/referee/logout",
                             "/seat/{seat}/hint", "/seat/{seat}/play"]
            evil = {"Origin": "http://evil.example"}
            form = {"csrf": token, "action": "pause", "pin": PIN}
            for path in posts:
                where = f"{url}{path.replace('{seat}', '0')}?{seat}"
                response = await http.post(where, data=form, headers=evil,
                                           allow_redirects=False)
                assert response.status == 403, path
            for path in ("/referee/action", "/referee/logout"):
                for wrong in ("", "x" * len(token)):
                    response = await http.post(f"{url}{path}",
                                               data={**form, "csrf": wrong},
                                               allow_redirects=False)
                    assert response.status == 403, (path, wrong)
            assert daemon.session.clock is not None and daemon.session.clock.running
            # The session still works: nothing above logged it out.
            assert "Referee console" in await (await http.get(f"{url}/referee")).text()

    asyncio.run(scenario())
    assert "referee" not in [e["type"] for e in journal_lines(tmp_path)]


def test_a_post_that_is_not_a_form_is_a_bad_request_on_every_route(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Bytes that are not UTF-8 (a picture posted to the login) were a 500 and a traceback
    in the daemon's log; now a 400 that says what to do, and the board goes on."""
    async def scenario() -> None:
        async with web_daemon(tmp_path, **CLOCK) as (_daemon, url), \
                aiohttp.ClientSession() as http:
            await login(http, url)
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            for path in ("/referee/login", "/referee/action", "/referee/logout"):
                response = await http.post(f"{url}{path}", data=b"\xff\xd8\xff\xe0 jpeg",
                                           headers=form, allow_redirects=False)
                assert response.status == 400, path
                assert "the form could not be read" in await response.text()
            assert "Referee console" in await (await http.get(f"{url}/referee")).text()

    asyncio.run(scenario())
    assert "Traceback" not in caplog.text and "Error handling request" not in caplog.text


def test_a_hint_of_hidden_cards_reaches_only_its_seat(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, "sequence-kids", TAVOLA_GAME_PARAMS_SEED="5",
                              TAVOLA_HINTS_NODES="200") as (daemon, url), \
                aiohttp.ClientSession() as http:
            assert daemon.web is not None
            tokens = daemon.web.seat_tokens
            asked = await http.post(f"{url}/seat/0/hint?token={tokens[0]}")
            assert "seat page only" in await asked.text()
            await until(lambda: daemon.session.seat_hint(0) is not None)
            shown = daemon.session.seat_hint(0)
            assert shown is not None
            text, cells = shown
            await until(lambda: text in daemon.web.hub.seats[0].get("hint", "") if
                        daemon.web is not None else False)
            assert any(e["type"] == "hint" for e in journal_lines(tmp_path))
            frame = daemon.session.frame(daemon.clock())
            assert all(frame[daemon.layout.led_of(c)] != BLUE for c in cells)
            seat = await (await http.get(f"{url}/seat/0?token={tokens[0]}")).text()
            assert escape(text) in seat and 'class="hint-ring"' in seat
            other = await (await http.get(f"{url}/seat/1?token={tokens[1]}")).text()
            public = await (await http.get(f"{url}/")).text()
            async with http.get(f"{url}/seat/0/events?token={tokens[0]}") as stream:
                _, mine = await next_event(stream)
            async with http.get(f"{url}/seat/1/events?token={tokens[1]}") as stream:
                _, theirs = await next_event(stream)
            async with http.get(f"{url}/events") as stream:
                _, everyone = await next_event(stream)
            assert text in mine["hint"] and "hint-ring" in mine["svg"]
            for page in (other, public, json.dumps(theirs), json.dumps(everyone)):
                assert text not in page and escape(text) not in page
                assert "hint-ring" not in page and "hint: " not in page.lower()
                assert ' hint" data-cell=' not in page
            said = "\n".join(daemon._log_tail)
            assert "sent to Red's seat page" in said and text not in said

    asyncio.run(scenario())

