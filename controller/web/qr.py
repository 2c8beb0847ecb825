"""QR codes of the seat pages' addresses, so a player's phone opens its page by the camera:
as text for the terminal (half-block characters, two modules a line) and as inline SVG for
the referee console. Made by segno (pure Python, offline; the ``web`` extra).
"""

from __future__ import annotations

import io

QUIET_ZONE = 2  # modules of white around the code: phones read it with 2 (the norm asks 4)


def terminal_qr(text: str) -> str:
    """``text`` as a QR code drawn with block characters (dark on light), for a terminal."""
    import segno

    code = segno.make(text, error="l", micro=False)
    rows = [[bool(m) for m in row] for row in code.matrix_iter(border=QUIET_ZONE)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    # One character is two modules, one above the other; a dark module is a space on the
    # light block, so the code reads on a dark terminal as on paper.
    chars = {(False, False): "█", (True, False): "▄", (False, True): "▀", (True, True): " "}
    return "\n".join("".join(chars[top, bottom] for top, bottom in zip(upper, lower,
                                                                        strict=True))
                     for upper, lower in zip(rows[::2], rows[1::2], strict=True))


def svg_qr(text: str, scale: int = 4) -> str:
    """``text`` as a QR code, an inline ``<svg>`` element (no XML declaration)."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="l", micro=False).save(
        out, kind="svg", scale=scale, border=QUIET_ZONE, xmldecl=False, svgns=True,
        svgclass="qr", lineclass=None, title=None)
    return out.getvalue().decode()
