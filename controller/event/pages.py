"""The event console's pages: the hall, a table's referee view, the results, the records.
Pure: data in, HTML out. Every text from a board is escaped here, on the server, or set
with ``textContent`` by the script; the boards' SVG is drawn by the console itself
(:func:`tavola.event.hall.drawing`), never taken from a message.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from tavola.event.topics import Command
from tavola.web.pages import action_forms, page, state_html

HALL_STYLE = """<style>
.tables{display:grid;grid-template-columns:repeat(auto-fill,minmax(15em,1fr));gap:.8em}
.table{border:1px solid #bbb;padding:.4em;background:#fff}
.table.alert{border:3px solid #c22;background:#fee}
.table .board{width:100%;height:auto} .table h2{font-size:1em;margin:.1em 0}
.standing{color:#c22;font-weight:bold} #link:empty{display:none}
</style>"""

# One EventSource; each event carries the tables that changed and the order of all (those
# with something to look at first); a changed table's card is rebuilt with textContent,
# except the SVG, which the console drew itself.
HALL_SCRIPT = """
const src = new EventSource('/events');
function card(t) {
  const a = document.createElement('a'); a.href = '/table/' + encodeURIComponent(t.table);
  a.className = 'table' + (t.standing.length ? ' alert' : ''); a.dataset.table = t.table;
  const h = document.createElement('h2');
  h.textContent = 'Table ' + t.table + ': ' + t.players.join(' - ') + ' (' + t.game + ')';
  const b = document.createElement('div'); b.innerHTML = t.svg;
  const p = document.createElement('p');
  p.textContent = (t.result || (t.turn ? t.turn + ' to move' : '')) +
                  (t.clocks ? ' | ' + t.clocks : '') + ' | ply ' + t.ply;
  const s = document.createElement('p'); s.className = 'standing';
  s.textContent = t.standing.join('; ');
  a.append(h, b, p, s); return a;
}
const cards = new Map(), plies = {};
for (const a of document.querySelectorAll('#tables > a')) cards.set(a.dataset.table, a);
src.addEventListener('state', (e) => {
  const hall = JSON.parse(e.data);  // the changed tables and the order of them all
  for (const t of hall.tables) { cards.set(t.table, card(t)); plies[t.table] = t.ply; }
  document.getElementById('tables').replaceChildren(
    ...hall.order.filter((n) => cards.has(n)).map((n) => cards.get(n)));
  document.getElementById('count').textContent = hall.order.length;
  document.getElementById('link').textContent = hall.link;
  document.body.dataset.version = e.lastEventId;
  document.body.dataset.plies = JSON.stringify(plies);  // the tests read it
});
"""


def _card(t: dict[str, Any]) -> str:
    alert = " alert" if t["standing"] else ""
    line = (t["result"] or (f'{t["turn"]} to move' if t["turn"] else "")) + (
        f' | {t["clocks"]}' if t["clocks"] else "") + f' | ply {t["ply"]}'
    return (f'<a class="table{alert}" href="/table/{quote(t["table"])}" '
            f'data-table="{escape(t["table"])}"><h2>Table {escape(t["table"])}: '
            f'{escape(" - ".join(t["players"]))} ({escape(t["game"])})</h2>'
            f'<div>{t["svg"]}</div><p>{escape(line)}</p>'
            f'<p class="standing">{escape("; ".join(t["standing"]))}</p></a>')


def _nav(event: str) -> str:
    return (f'<p>Event <b>{escape(event)}</b>: <a href="/">hall</a> | '
            f'<a href="/results">results</a> | <a href="/records">records</a> | '
            f'<a href="/referee">referee login</a></p>')


def hall_page(event: str, tables: list[dict[str, Any]], nonce: str, link: str = "") -> str:
    """``/``: every table, those with an alert or offline first, live; ``link``: what is
    wrong with the console's link to the broker ("" when connected)."""
    cards = "".join(_card(t) for t in tables)
    body = (f'{HALL_STYLE}<h1>{escape(event)}: <span id="count">{len(tables)}</span> tables'
            f'</h1>{_nav(event)}<p class="msg" id="link">{escape(link)}</p>'
            f'<div class="tables" id="tables">{cards}</div>')
    return page(f"tavola event {event}", body, nonce, "/events", HALL_SCRIPT)


def table_page(event: str, table: dict[str, Any], state: dict[str, Any], csrf: str | None,
               nonce: str, message: str = "", unanswered: Command | None = None) -> str:
    """``/table/N``: the table's board, clocks, moves and alerts; for a logged-in arbiter
    the board console's actions, sent to the board as ``cmd`` messages, and the one the
    board has not answered, to resend with its id."""
    shown = {"game": f'Table {table["table"]}: {table["game"]}', "svg": table["svg"],
             "status": state.get("status", ""), "turn": table["turn"],
             "result": table["result"], "clocks": table["clocks"],
             "last": table["last"] or "none yet", "moves": table["moves"],
             "health": ("offline" if table["online"] is False else "online") +
             f', {state.get("health", "")}, {table["gaps"]} gaps re-synced'}
    msg = f'<p class="msg" id="message">{escape(message)}</p>' if message else ""
    alerts = "".join(f"<li>{escape(a)}</li>" for a in [*table["standing"], *table["alerts"]])
    if csrf is None:
        actions = '<p><a href="/referee">Log in</a> to referee this table.</p>'
    else:
        actions = action_forms(csrf, list(table["players"]), table["ply"],
                               f"/table/{quote(table['table'])}/action")
        if unanswered is not None:
            what = " ".join([unanswered.action, *(f"{k}={v}" for k, v in
                                                  sorted(unanswered.fields.items()))])
            actions = (f'<form method="post" id="resend" action="/table/'
                       f'{quote(table["table"])}/resend"><input type="hidden" name="csrf" '
                       f'value="{escape(csrf)}"><p>Not answered yet: <code>{escape(what)}'
                       f'</code> <button>Resend it</button> (same id '
                       f'{escape(unanswered.id)}: the board applies it once)</p></form>'
                       f'{actions}')
    body = (f'{_nav(event)}{msg}{state_html(shown)}<h2>Alerts</h2><ul id="alerts">{alerts}'
            f'</ul><h2>Referee</h2>{actions}<p><a href="/record/{quote(table["table"])}/'
            f'{quote(table["game_id"])}">'
            f'Download this game\'s record</a></p>')
    return page(f"tavola table {table['table']}", body, nonce)


def results_page(event: str, rows: list[dict[str, Any]], nonce: str) -> str:
    """``/results``: every game seen, finished ones with their score, then those in play."""
    lines = "".join(
        f'<tr><td>{escape(str(r["table"]))}</td><td>{escape(str(r.get("game", "")))}</td>'
        f'<td>{escape(" - ".join(r.get("players", [])))}</td>'
        f'<td>{escape(r.get("score") or "in play")}</td>'
        f'<td>{escape(r.get("result", ""))}</td><td>{len(r.get("moves", []))}</td>'
        f'<td><a href="/record/{quote(str(r["table"]))}/{quote(str(r.get("game_id", "")))}">'
        f'record</a></td></tr>'
        for r in rows)
    body = (f'{_nav(event)}<h1>Results</h1><table id="results"><tr><th>table</th>'
            f'<th>game</th><th>players</th><th>score</th><th>how</th><th>plies</th>'
            f'<th></th></tr>{lines}</table>')
    return page(f"tavola results {event}", body, nonce)


def records_page(event: str, games: dict[tuple[str, str], dict[str, Any]],
                 nonce: str) -> str:
    """``/records``: a link to every game's record, and to all of them in one file."""
    items = "".join(f'<li><a href="/record/{quote(table)}/{quote(gid)}">table '
                    f'{escape(table)}: {escape(gid)}</a> '
                    f'{escape(s.get("score") or "in play")}</li>'
                    for (table, gid), s in games.items())
    body = (f'{_nav(event)}<h1>Records</h1><p><a href="/records.txt">Every game in one '
            f'file</a></p><ul>{items}</ul>')
    return page(f"tavola records {event}", body, nonce)
