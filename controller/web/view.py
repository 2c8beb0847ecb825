"""What the web pages show of a game, as data and SVG. Pure: the session in, text out.

The board is drawn from the game's own geometry: the cells' positions in the board's
layout (hardware/layouts/*.toml), morris's lines joining its mills, draughts' light squares
between its dark ones, Sequence's animals, Quinque's tiles on an open plane (``x,y`` cells,
no layout). Each cell wears the colour its LED shows now, so the page mirrors the board.
Every text that comes from a game or a player is escaped here, once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from tavola.feedback import BLUE
from tavola.games import Game
from tavola.hardware.base import Frame
from tavola.hardware.layout import Layout
from tavola.inference import Ambiguous
from tavola.record import describe
from tavola.session import Session

UNIT = 60  # SVG units per cell
PIECE_COLOURS: dict[str, str] = {  # the letters of the coloured games' tokens
    "R": "#d33", "Y": "#eb3", "G": "#3a4", "B": "#36c", "O": "#e83", "P": "#a4c",
    "X": "#c33", "W": "#f4f1e8",
}
MEN_COLOURS: dict[str, str] = {"w": "#f4f1e8", "b": "#222"}  # morris and draughts men


@dataclass(frozen=True)
class Place:
    """One cell where the page draws it (cell units, y down) and its LED (None: none)."""

    name: str
    x: float
    y: float
    led: int | None


def places(game: Game[Any], layout: Layout) -> list[Place]:
    """The cells of ``game`` where the layout puts them; on an open table (Quinque, a
    layout without cells) at the ``x,y`` of their names, y up as in the game."""
    if layout.cells:
        return [Place(c, layout.cell(c).x, layout.cell(c).y, layout.cell(c).led)
                for c in layout.cells]
    out = []
    for name in game.view("identity"):
        x, _, y = name.partition(",")
        try:
            out.append(Place(name, float(x), -float(y), None))
        except ValueError:
            continue
    return out


def _labels(game: Game[Any]) -> dict[str, str]:
    """Sequence for Kids: the animal printed on each space."""
    from tavola.games.sequence_kids import SequenceKids
    return game.animals() if isinstance(game, SequenceKids) else {}


def _fill(game: Game[Any], token: str) -> str:
    if game.name in ("morris", "draughts"):
        return MEN_COLOURS.get(token[:1].lower(), "#888")
    return PIECE_COLOURS.get(token[:1].upper(), "#888")


def _rgb(colour: tuple[int, int, int]) -> str:
    # LEDs run dim; scale up so that the page shows the hue, not the brightness.
    top = max(colour) or 1
    r, g, b = (min(255, c * 255 // top) for c in colour)
    return f"#{r:02x}{g:02x}{b:02x}"


def board_svg(game: Game[Any], layout: Layout, frame: Frame | None,
              last_move: frozenset[str] = frozenset(),
              hinted: frozenset[str] = frozenset()) -> str:
    """The board as an inline SVG element: cells, pieces, LED colours, the last move, and
    (on a seat page only) the cells of that player's private hint, ringed blue."""
    cells = places(game, layout)
    if not cells:
        return '<svg class="board" viewBox="0 0 10 10"></svg>'
    view = game.view("identity")
    left = min(p.x for p in cells)
    top = min(p.y for p in cells)
    width = max(p.x for p in cells) - left + 1
    height = max(p.y for p in cells) - top + 1
    at = {p.name: ((p.x - left + 0.5) * UNIT, (p.y - top + 0.5) * UNIT) for p in cells}
    out = [f'<svg class="board game-{escape(game.name)}" xmlns="http://www.w3.org/2000/svg" '
           f'viewBox="0 0 {width * UNIT:g} {height * UNIT:g}" role="img" '
           f'aria-label="{escape(game.name)} board">',
           f'<rect width="{width * UNIT:g}" height="{height * UNIT:g}" fill="#d9b77e"/>']
    if game.name == "morris":
        from tavola.games.morris import MILLS, POINTS
        for a, _, c in MILLS:
            if POINTS[a] in at and POINTS[c] in at:
                (x1, y1), (x2, y2) = at[POINTS[a]], at[POINTS[c]]
                out.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
                           'stroke="#4a3210" stroke-width="4"/>')
    elif game.name == "draughts":  # the light squares between the playing ones
        for row in range(int(height)):
            for col in range(int(width)):
                out.append(f'<rect x="{col * UNIT}" y="{row * UNIT}" width="{UNIT}" '
                           f'height="{UNIT}" fill="#f0dcb0"/>')
    labels = _labels(game)
    lit = frame or ()
    for p in cells:
        x, y = at[p.name]
        colour = lit[p.led] if p.led is not None and p.led < len(lit) else (0, 0, 0)
        led = _rgb(colour) if any(colour) else ""
        square = game.name != "morris"
        classes = ("cell" + (" last" if p.name in last_move else "") + (" lit" if led else "")
                   + (" hint" if p.name in hinted else ""))
        out.append(f'<g class="{classes}" data-cell="{escape(p.name)}">')
        if square:
            base = "#7a5230" if game.name == "draughts" else "#e8d3a8"
            out.append(f'<rect x="{x - UNIT / 2 + 2:g}" y="{y - UNIT / 2 + 2:g}" '
                       f'width="{UNIT - 4}" height="{UNIT - 4}" rx="4" fill="{base}" '
                       'stroke="#4a3210" stroke-width="1"/>')
        else:
            out.append(f'<circle cx="{x:g}" cy="{y:g}" r="{UNIT * 0.18:g}" fill="#4a3210"/>')
        if p.name in labels:
            out.append(f'<text x="{x:g}" y="{y + UNIT * 0.42:g}" font-size="9" '
                       f'text-anchor="middle">{escape(labels[p.name])}</text>')
        token = view.get(p.name, "")
        if token and token != ".":
            out.append(f'<circle class="piece" cx="{x:g}" cy="{y:g}" r="{UNIT * 0.32:g}" '
                       f'fill="{_fill(game, token)}" stroke="#111" stroke-width="1.5"/>')
            out.append(f'<text x="{x:g}" y="{y + 5:g}" font-size="14" text-anchor="middle" '
                       f'fill="#555">{escape(token)}</text>')
        if led:  # the LED under the cell, as a ring around whatever stands there
            out.append(f'<circle class="led" cx="{x:g}" cy="{y:g}" r="{UNIT * 0.42:g}" '
                       f'fill="none" stroke="{led}" stroke-width="5"/>')
        if p.name in hinted:  # drawn as the board's hint blue would be, dashed: not an LED
            out.append(f'<circle class="hint-ring" cx="{x:g}" cy="{y:g}" r="{UNIT * 0.46:g}" '
                       f'fill="none" stroke="{_rgb(BLUE)}" stroke-width="4" '
                       'stroke-dasharray="6 3"/>')
        out.append(f'<title>{escape(p.name)}{": " + escape(token) if token else ""}</title>'
                   '</g>')
    out.append("</svg>")
    return "".join(out)


def public_state(session: Session, layout: Layout, now: float,
                 sensor: object = None) -> dict[str, Any]:
    """What anyone at the table may see, JSON-safe: never a player's hidden cards."""
    game = session.game
    outcome = game.outcome()
    history = [str(m) for m in game.history]
    names = game.player_names
    return {
        "game": game.name,
        "svg": board_svg(game, layout, session.frame(now), session.last_move),
        "status": public_status(session),
        "turn": "" if outcome else names[game.current_player],
        "result": describe(outcome, names) if outcome else "",
        "clocks": session.clock_text(now) or "none",
        "last": history[-1] if history else "none yet",
        "moves": history,
        "players": list(names),
        "health": board_health(session.disconnected, sensor),
    }


def board_health(disconnected: str | None, sensor: object = None) -> str:
    """The board's health line: connected or why not, and what the sensor says of itself.

    A sensor may expose ``health`` (an attribute, or a method taking no argument) as a
    mapping: ``markers_seen`` and ``markers_expected`` (the camera's corner markers, ints),
    ``camera`` (``"ok"`` or the problem, a string); or as a string shown as it is. It is
    read defensively: a sensor without it, or one whose ``health`` fails, shows the
    connection alone (a camera adds that it does not report its markers).

    >>> class Camera:
    ...     health = {"markers_seen": 3, "markers_expected": 4, "camera": "ok"}
    >>> board_health(None, Camera())
    'board connected; camera: 3 of 4 markers seen'
    >>> board_health("no reply from the serial board")
    'board disconnected: no reply from the serial board'
    """
    if disconnected:
        return f"board disconnected: {disconnected}"
    try:
        health = getattr(sensor, "health", None)
        if callable(health):
            health = health()
    except Exception:  # a sensor's status must never break the page
        health = None
    parts = ["board connected"]
    if isinstance(health, Mapping):
        camera, seen, expected = (health.get(k) for k in (
            "camera", "markers_seen", "markers_expected"))
        said = [] if camera in (None, "ok") else [str(camera)]
        if isinstance(seen, int):
            said.append(f"{seen} of {expected} markers seen" if isinstance(expected, int)
                        else f"{seen} markers seen")
        if said:
            parts.append("camera: " + ", ".join(said))
    elif isinstance(health, str) and health:
        parts.append(health)
    elif type(sensor).__name__ == "CameraSensor":
        parts.append("camera: markers not reported")
    return "; ".join(parts)


def public_status(session: Session) -> str:
    """The status line for everyone. With hidden cards, an ambiguous reading's candidates
    would tell what the player to move holds (a unicorn, say): they are left out, and only
    that player's seat page (and the referee) see them."""
    status = session.status()
    if not session.game.hidden_information or not isinstance(session.result, Ambiguous):
        return status
    # The options run to the next ", " (the clocks) or the end; no card move has a comma.
    return re.sub(r"ambiguous: type .*?(?=, |$)",
                  "ambiguous: the player to move says which card (seat page)", status, count=1)


def seat_state(session: Session, seat: int, layout: Layout, now: float) -> dict[str, str]:
    """What only ``seat`` may see: their hand ('' in an open game), for the player to
    move the whole status line, and their private hint (a game with hidden cards): its
    text in ``hint`` ('' when none) and the board with its cells ringed in ``svg``."""
    game = session.game
    state = {"seat": game.player_names[seat], "hand": game.private_text(seat), "hint": ""}
    if seat == game.current_player:
        state["status"] = session.status()
    private = session.seat_hint(seat)
    if private is not None:
        text, cells = private
        state["hint"] = f"Hint: {text} (only you see it; the board stays dark)"
        state["svg"] = board_svg(game, layout, session.frame(now), session.last_move, cells)
    return state

