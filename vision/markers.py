"""The four ArUco markers of BOARD.md: their exact bits, and a printable sheet at true size.

The bits come from OpenCV's own 4x4_50 dictionary, so what is printed (and what the
renderer draws) is exactly what ``cv2.aruco`` detects. The sheet is an SVG whose
``viewBox`` is in millimetres and whose ``width``/``height`` say ``mm``, or a one-page PDF
written by hand (rectangles and Helvetica text, no dependency): printed at 100 % ("actual
size", not "fit to page") every length on it is true. A 50 mm scale bar lets the user check
that the printer did not scale.

>>> marker_bits(0).shape
(6, 6)
>>> svg = marker_sheet_svg(cell_mm=40.0)
>>> 'id="marker-0"' in svg and "50 mm" in svg
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tavola.vision.geometry import MARKER_IDS, BoardGeometry, geometry_for

DICTIONARY = cv2.aruco.DICT_4X4_50
MODULES = 6  # 4x4 data bits plus a one-bit black border on each side
PAPER = 0.2  # marker units of white paper kept around each marker (inside the quiet zone)
SCALE_BAR_MM = 50.0

_CORNER_NAMES = {0: "top left", 1: "top right", 2: "bottom right", 3: "bottom left"}


def marker_bits(marker_id: int) -> np.ndarray:
    """The marker's modules, border included: a 6x6 uint8 array, 1 = white, 0 = black."""
    if marker_id not in range(50):
        raise ValueError(f"marker id {marker_id} is not in the 4x4_50 dictionary (0-49)")
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, MODULES, borderBits=1)
    return (np.asarray(image) > 127).astype(np.uint8)


def corner_label(marker_id: int, game: str | None = None) -> str:
    """Where marker ``marker_id`` goes, e.g. ``"top left, beyond a8"`` for draughts."""
    where = _CORNER_NAMES[marker_id]
    if game is None or game == "quinque":
        return f"{where} corner of the playing area"
    g = geometry_for(game)
    top, files = g.ranks, g.files
    last = chr(ord("a") + files - 1)
    cell = {0: f"a{top}", 1: f"{last}{top}", 2: f"{last}1", 3: "a1"}[marker_id]
    return f"{where}, beyond {cell}"


def _fmt(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Sheet:
    """The marker sheet as drawing primitives in millimetres (origin top left, y down).

    ``items`` are ``("ink", group, x, y, w, h)`` black rectangles, ``("cut", group, x, y,
    w, h)`` dashed grey cut lines and ``("text", group, x, y, size, text)`` labels (``y``
    is the baseline); ``group`` is ``marker-<id>``, ``scale-bar`` or ``""``.
    """

    width: float
    height: float
    items: tuple[tuple[str, str, float, float, float, float | str], ...]


def marker_sheet(cell_mm: float = 40.0, game: str | None = None) -> Sheet:
    """The sheet's layout: four markers of side 0.8 cell, labelled, and a 50 mm scale bar.

    Each marker has a white paper margin of ``PAPER`` cell and a thin grey cut line around
    it; glue it so that the marker's inner corner is ``QUIET`` cell (0.25 cell) from the
    playing area's corner on both axes (BOARD.md). Quinque's cell is a skydiver and its
    markers are sized in tiles (``BoardGeometry.marker_unit``): 0.8 tile a side.
    """
    if not 5.0 <= cell_mm <= 200.0:
        raise ValueError(f"cell size {cell_mm} mm is out of range; give 5 to 200 mm")
    g = geometry_for(game) if game is not None else BoardGeometry("board", 8, 8, ())
    side = g.marker_side * cell_mm
    module = side / MODULES
    paper = PAPER * g.marker_unit * cell_mm
    slot = side + 2 * paper
    margin, label_h, gap = 15.0, 14.0, 10.0
    pitch = max(slot + gap, 90.0)  # room for the labels
    width = max(210.0, 2 * margin + pitch + slot)
    rows_top = margin + 22.0
    height = max(297.0, rows_top + 2 * (slot + label_h + gap) + 40.0)
    title = f"tavola camera markers (ArUco 4x4_50), cell {_fmt(cell_mm)} mm"
    if game == "quinque":
        tile = _fmt(g.marker_unit * cell_mm)
        title = (f"tavola camera markers (ArUco 4x4_50), quinque: skydiver {_fmt(cell_mm)} mm, "
                 f"tile {tile} mm")
    elif game is not None:
        title += f", {game}"
    items: list[tuple[str, str, float, float, float, float | str]] = [
        ("text", "", margin, margin + 4, 5.0, title),
        ("text", "", margin, margin + 11, 3.2,
         f"Print at 100 % (actual size). Marker side {_fmt(side)} mm; its inner corner sits "
         f"{_fmt(g.quiet * cell_mm)} mm from the playing area's corner on both axes."),
    ]  # fmt: skip
    if game == "quinque":  # no board: the markers mark out the table area the tiles lie in
        items.append(("text", "", margin, margin + 16, 3.2,
                      f"Quinque's playing area is a square of {g.files // 2} x {g.ranks // 2} "
                      f"tiles ({_fmt(g.files * cell_mm)} mm a side) on the table; keep the tiles "
                      f"inside it."))  # fmt: skip
    for i, marker_id in enumerate(MARKER_IDS):
        group = f"marker-{marker_id}"
        x0 = margin + (i % 2) * pitch
        y0 = rows_top + (i // 2) * (slot + label_h + gap)
        items.append(("cut", group, x0, y0, slot, slot))
        bits = marker_bits(marker_id)
        for r in range(MODULES):
            for c in range(MODULES):
                if bits[r, c] == 0:
                    x, y = x0 + paper + c * module, y0 + paper + r * module
                    items.append(("ink", group, x, y, module, module))
        label = f"id {marker_id}: {corner_label(marker_id, game)}"
        items.append(("text", group, x0, y0 + slot + 5, 3.5, label))
        hint = "its top edge, as printed, faces the top of the board"
        items.append(("text", group, x0, y0 + slot + 9.5, 2.8, hint))
    bar_y = height - 25.0
    items.append(("ink", "scale-bar", margin, bar_y, SCALE_BAR_MM, 3.0))
    for k in range(6):
        items.append(
            ("ink", "scale-bar", margin + k * SCALE_BAR_MM / 5 - 0.15, bar_y - 2, 0.3, 5.0)
        )
    note = "50 mm: measure this bar; if it is not 50 mm the printer scaled the page"
    items.append(("text", "scale-bar", margin, bar_y + 9, 3.5, note))
    return Sheet(width, height, tuple(items))


def marker_sheet_svg(cell_mm: float = 40.0, game: str | None = None) -> str:
    """The sheet as SVG text, with a viewBox in millimetres (see :func:`marker_sheet`)."""
    sheet = marker_sheet(cell_mm, game)
    w, h = _fmt(sheet.width), _fmt(sheet.height)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}">',
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>',
    ]
    group = ""
    for kind, g, x, y, a, b in sheet.items:
        if g != group:
            if group:
                out.append("</g>")
            if g:
                out.append(f'<g id="{g}">')
            group = g
        pos = f'x="{_fmt(x)}" y="{_fmt(y)}"'
        if kind == "text":
            text = str(b).replace("&", "&amp;").replace("<", "&lt;")
            out.append(f'<text {pos} font-family="sans-serif" font-size="{_fmt(a)}">{text}</text>')
        else:
            size = f'width="{_fmt(a)}" height="{_fmt(float(b))}"'
            style = (
                'fill="#000000" shape-rendering="crispEdges"'
                if kind == "ink"
                else 'fill="none" stroke="#b0b0b0" stroke-width="0.2" stroke-dasharray="1,1"'
            )
            out.append(f"<rect {pos} {size} {style}/>")
    if group:
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


_PT = 72 / 25.4  # PDF points per millimetre


def marker_sheet_pdf(cell_mm: float = 40.0, game: str | None = None) -> bytes:
    """The sheet as a one-page PDF (no dependency: rectangles and Helvetica text)."""
    sheet = marker_sheet(cell_mm, game)
    ops = [f"{_PT:.6f} 0 0 {-_PT:.6f} 0 {sheet.height * _PT:.4f} cm"]  # mm, y down
    for kind, _, x, y, a, b in sheet.items:
        if kind == "ink":
            ops.append(f"0 g {x:.4f} {y:.4f} {a:.4f} {float(b):.4f} re f")
        elif kind == "cut":
            ops.append(f"0.69 G 0.2 w [1 1] 0 d {x:.4f} {y:.4f} {a:.4f} {float(b):.4f} re S")
        else:
            text = str(b).replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"BT /F1 {a:.2f} Tf 1 0 0 -1 {x:.4f} {y:.4f} Tm 0 g ({text}) Tj ET")
    content = "\n".join(ops).encode("latin-1")
    w, h = sheet.width * _PT, sheet.height * _PT
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.3f} {h:.3f}] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def write_marker_sheet(path: str | Path, cell_mm: float = 40.0, game: str | None = None) -> Path:
    """Write the printable marker sheet to ``path``: SVG, or PDF if it ends in ``.pdf``.

    Any other suffix raises ValueError naming the fix. Returns the path.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(marker_sheet_svg(cell_mm, game), encoding="utf-8")
    elif suffix == ".pdf":
        path.write_bytes(marker_sheet_pdf(cell_mm, game))
    else:
        raise ValueError(
            f"cannot write {str(path)!r}: the marker sheet is SVG or PDF; name it *.svg or "
            "*.pdf (and print it at 100 %, actual size)"
        )
    return path
