"""The HTML pages, rendered on the server with a small inline script; no build step, no
CDN, so they work offline on the Pi. Pure: state in, text out; every text from a game, a
player or a request is escaped here (the board's SVG was escaped by :mod:`tavola.web.view`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any

from tavola.web.referee import REFEREE, RESULT_KINDS, Incident

STYLE = """
body{font-family:system-ui,sans-serif;margin:1em;background:#faf7f0;color:#222}
main{display:flex;flex-wrap:wrap;gap:1.5em} main>div:last-child{flex:1 1 16em}
.board{width:min(90vw,480px);height:auto;border:2px solid #4a3210}
#status{font-weight:bold} .muted{color:#666} ol{max-height:20em;overflow:auto}
.cell.last .led{stroke-dasharray:8 4}
form{margin:.3em 0} fieldset{margin:.5em 0} .msg{background:#ffd;padding:.4em}
#hint:empty{display:none}
#seats{display:flex;flex-wrap:wrap;gap:1em} .seat svg{background:#fff}
.offline{background:#fff3cd;border:1px solid #c9a227;padding:.4em .6em}
table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:.2em .5em}
"""

# The live page's script: one EventSource; each event is the whole state (a late joiner,
# or a reconnect with Last-Event-ID, gets it first), written with textContent except the
# board's SVG, which the server escaped.
SCRIPT = """
const src = new EventSource(document.body.dataset.events);
// The browser retries a lost stream by itself; meanwhile the page says that what it shows
// may be old (a stopped daemon left the last position up as if live).
const offline = (lost) => {
  const el = document.getElementById('offline');
  if (el) el.hidden = !lost;
};
src.addEventListener('error', () => offline(true));
src.addEventListener('open', () => offline(false));
src.addEventListener('state', (e) => {
  offline(false);
  const s = JSON.parse(e.data);
  document.getElementById('board').innerHTML = s.svg;
  for (const k of ['status','turn','clocks','last','result','health','hand','hint']) {
    const el = document.getElementById(k);
    if (el && k in s) el.textContent = s[k];
  }
  const ol = document.getElementById('moves');
  ol.replaceChildren(...s.moves.map((m) => {
    const li = document.createElement('li'); li.textContent = m; return li; }));
  document.body.dataset.version = e.lastEventId;  // the tests wait for it
});
"""


OFFLINE = ("The connection to the board is lost: reconnecting. What is shown here may be "
           "out of date.")


def page(title: str, body: str, nonce: str, events: str = "", script: str = SCRIPT) -> str:
    """A whole page: ``body``, and with ``events`` (an event stream's address) the
    ``script`` that follows it (by default the live view's)."""
    script = f'<script nonce="{escape(nonce)}">{script}</script>' if events else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<title>{escape(title)}</title><style>{STYLE}</style></head>'
            f'<body data-events="{escape(events)}" data-version="">{body}{script}'
            f'</body></html>')


def state_html(state: dict[str, Any], hand: str | None = None) -> str:
    """The board, whose turn, the clocks, the last move, the health and the moves."""
    moves = "".join(f"<li>{escape(m)}</li>" for m in state["moves"])
    hand_html = (f'<h2>Your cards</h2><pre id="hand">{escape(hand)}</pre>'
                 if hand is not None else "")
    return (f'<h1>{escape(state["game"])}</h1>'
            f'<p id="offline" class="offline" hidden>{OFFLINE}</p>'
            f'<main><div id="board">{state["svg"]}</div>'
            f'<div><p id="status">{escape(state["status"])}</p>'
            f'<p>To move: <span id="turn">{escape(state["turn"])}</span>'
            f'<span id="result">{escape(state["result"])}</span></p>'
            f'<p>Clocks: <span id="clocks">{escape(state["clocks"])}</span></p>'
            f'<p>Last move: <span id="last">{escape(state["last"])}</span></p>'
            f'<p class="muted" id="health">{escape(state["health"])}</p>{hand_html}'
            f'<h2>Moves</h2><ol id="moves">{moves}</ol></div></main>')


def live_page(state: dict[str, Any], nonce: str) -> str:
    """``/``: the board, whose turn, the clocks, the moves, the status, updated live."""
    return page(f"tavola: {state['game']}", state_html(state), nonce, "/events")


def seat_page(state: dict[str, Any], seat: dict[str, str], events: str, nonce: str,
              hint: str = "", message: str = "", play: str = "") -> str:
    """``/seat/N``: the live view plus this seat's hand, and nobody else's; a hint button
    (posting to ``hint``) when hints are on, and this seat's private hint (hidden cards);
    a *Play* form (posting to ``play``) for the move the board cannot tell (which card)."""
    button = (f'<form method="post" action="{escape(hint)}"><button>Hint</button></form>'
              f'<p class="msg" id="hint">{escape(seat.get("hint", ""))}</p>'
              if hint else "")
    if play:
        button += (f'<form method="post" action="{escape(play)}"><label>Move <input '
                   f'name="move" autocomplete="off" placeholder="e.g. lion@b2"></label> '
                   f'<button>Play</button></form>')
    msg = f'<p class="msg" id="message">{escape(message)}</p>' if message else ""
    body = (f'<p>Seat: <b>{escape(seat["seat"])}</b></p>{msg}{button}' +
            state_html(state, seat["hand"]))
    return page(f"tavola: {seat['seat']}", body, nonce, events)


def login_page(nonce: str, message: str = "", enabled: bool = True) -> str:
    """``/referee`` without a session: the PIN form."""
    if not enabled:
        return page("tavola referee", "<h1>Referee</h1><p>No referee PIN is configured "
                     "([web] pin or pin_file); the console is off.</p>", nonce)
    msg = f'<p class="msg" id="message">{escape(message)}</p>' if message else ""
    form = ('<form method="post" action="/referee/login"><label>PIN <input name="pin" '
            'type="password" inputmode="numeric" autocomplete="off" autofocus></label> '
            '<button>Log in</button></form>')
    return page("tavola referee", f"<h1>Referee</h1>{msg}{form}", nonce)


def _form(csrf: str, action: str, fields: str, button: str, post: str) -> str:
    return (f'<form method="post" action="{escape(post)}">'
            f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
            f'<input type="hidden" name="action" value="{escape(action)}">{fields} '
            f'<button name="do" value="{escape(action)}">{escape(button)}</button></form>')


def _player_select(players: list[str], name: str) -> str:
    options = "".join(f'<option value="{i}">{escape(p)}</option>'
                      for i, p in enumerate(players))
    return f'<select name="{name}">{options}</select>'


def _seats_html(seats: Sequence[tuple[str, str, str]]) -> str:
    if not seats:
        return ""
    figures = "".join(
        f'<figure class="seat">{svg}<figcaption>{escape(name)}: <a href="{escape(link)}">'
        f'{escape(link)}</a></figcaption></figure>' for name, link, svg in seats)
    return (f'<h2>Seat pages</h2><p class="muted">Each player scans their own code (it '
            f'opens their cards and hint button); keep the others private.</p>'
            f'<div id="seats">{figures}</div>')


def _who(players: list[str], player: int) -> str:
    if player == REFEREE:
        return "referee"
    return players[player] if 0 <= player < len(players) else str(player)


def action_forms(csrf: str, players: list[str], plies: int,
                 post: str = "/referee/action") -> str:
    """The referee's actions (tavola.web.referee.ACTIONS) as forms posting to ``post``:
    the board's console and the event console's table view offer the same ones."""
    reason = ' <input name="reason" placeholder="reason" maxlength="200">'
    return "".join([
        _form(csrf, "play", '<input name="move" placeholder="intended move">', "Play move", post),
        _form(csrf, "undo", f'<input name="ply" type="number" min="0" max="{max(0, plies - 1)}"'
              f' value="{max(0, plies - 1)}">{reason}', "Undo to ply", post),
        _form(csrf, "correct", f'from ply <input name="ply" type="number" min="0" '
              f'max="{plies}" value="{max(0, plies - 1)}"> play <input name="moves" '
              f'placeholder="intended move(s)">{reason}', "Correct", post),
        _form(csrf, "clock", _player_select(players, "player") +
              ' <input name="seconds" type="number" step="any" value="30">' + reason,
              "Add seconds", post),
        _form(csrf, "pause", reason, "Pause clocks", post),
        _form(csrf, "resume", reason, "Resume clocks", post),
        _form(csrf, "hints", '<select name="allow"><option value="on">allow</option>'
              '<option value="off">forbid</option></select>' + reason, "Hints (arbiter)", post),
        _form(csrf, "result", '<select name="kind">' + "".join(
            f"<option>{k}</option>" for k in RESULT_KINDS) + "</select> winner " +
            _player_select(players, "winner") + reason, "Declare result", post),
        _form(csrf, "withdraw", reason, "Withdraw declared result", post),
        _form(csrf, "new", reason, "New game", post),
    ])


def console_page(state: dict[str, Any], csrf: str, who: str, log: list[Incident],
                 nonce: str, message: str = "",
                 seats: Sequence[tuple[str, str, str]] = ()) -> str:
    """``/referee`` with a session: the state, the actions, the incident log, and each
    seat's page as (player, address, QR code as inline SVG made by :mod:`tavola.web.qr`)."""
    players: list[str] = state["players"]
    actions = action_forms(csrf, players, len(state["moves"]))
    counts = Counter(i.player for i in log)
    count_text = ", ".join(f"{escape(p)}: {counts.get(n, 0)}" for n, p in enumerate(players))
    rows = "".join(
        f"<tr><td>{datetime.fromtimestamp(i.wall, UTC):%H:%M:%S}</td>"
        f"<td>{escape(_who(players, i.player))}"
        f"</td><td>{escape(i.what)}</td></tr>" for i in log)
    msg = f'<p class="msg" id="message">{escape(message)}</p>' if message else ""
    body = (f'<h1>Referee console</h1><p class="muted">Logged in as {escape(who)}. '
            f'<form method="post" action="/referee/logout"><input type="hidden" name="csrf" '
            f'value="{escape(csrf)}"><button>Log out</button></form></p>{msg}'
            f'{state_html(state)}<h2>Actions</h2>{actions}'
            f'<p>Download the record: <a href="/referee/record">in its notation</a> '
            f'(PDN for draughts, with the clocks and the referee\'s entries), '
            f'<a href="/referee/record?format=jsonl">as journaled (JSON lines)</a></p>'
            f'<h2>Illegal moves, takebacks and corrections</h2><p id="counts">{count_text}</p>'
            f'<table id="incidents"><tr><th>time (UTC)</th><th>player</th><th>what</th></tr>'
            f'{rows}</table>{_seats_html(seats)}')
    return page("tavola referee", body, nonce, "/events")


def event(event_id: str, data: dict[str, Any]) -> bytes:
    """One server-sent event carrying the whole state."""
    return f"id: {event_id}\nevent: state\ndata: {json.dumps(data)}\n\n".encode()
