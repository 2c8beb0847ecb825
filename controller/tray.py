"""A reserve tray lets an occupancy board tell pieces apart: the slot that emptied names them.

An occupancy board (reed switches) reads only "a piece" or "none". With a reserve tray
(``hardware/layouts/5x5-tray.toml``: one sensed slot per piece, each naming its piece) the
session turns such a reading into what an identity sensor would read, from the position in
play alone (no memory, so a restart or a missed reading changes nothing):

- a board cell that holds a piece in the position in play, and still reads occupied, keeps
  that piece; one that reads empty is empty;
- the pieces *loose* are those whose slots read empty, less those already on the board;
- a newly occupied cell holds the loose piece when only one kind is loose (one piece taken
  from the tray and put down); otherwise it reads ``?`` and is marked uncertain: nothing
  is played until one piece goes back to its slot or the player types the move.

>>> slots = {"slot-R": "R", "slot-Y": "Y"}
>>> reading = {"a1": "#", "b1": "", "slot-R": "", "slot-Y": "#"}
>>> tray_reading({"a1": "", "b1": ""}, reading, slots)
({'a1': 'R', 'b1': '', 'slot-R': '', 'slot-Y': '#'}, frozenset())
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

UNKNOWN = "?"  # a piece is there, which one the tray cannot tell


def tray_reading(
    position: Mapping[str, str], reading: Mapping[str, str], slots: Mapping[str, str],
    uncertain: frozenset[str] = frozenset(),
) -> tuple[dict[str, str], frozenset[str]]:
    """The identity reading of an occupancy ``reading`` (board cells and tray slots).

    ``position``: the position in play, board cell -> piece ("" empty); ``slots``: tray slot
    -> the piece that lives there. Slot readings are passed through. Returns the reading and
    the uncertain cells (``uncertain`` and the placed pieces the tray cannot name).
    """
    out = dict(reading)
    on_board = Counter(token for token in position.values() if token)
    loose = Counter(piece for slot, piece in slots.items() if not reading.get(slot)) - on_board
    placed = []
    for cell, token in position.items():
        if not reading.get(cell):
            out[cell] = ""
        elif token:
            out[cell] = token
        else:
            placed.append(cell)
    doubt = set(uncertain)
    for cell in placed:
        if len(loose) == 1:
            out[cell] = next(iter(loose))
        else:
            out[cell] = UNKNOWN
            doubt.add(cell)
    return out, frozenset(doubt)


def tray_slots(layout: object) -> dict[str, str]:
    """A layout's reserve-tray slots and the piece each holds (none: ``{}``)."""
    cell = getattr(layout, "cell", None)
    if cell is None:
        return {}
    return {slot: cell(slot).piece for slot in getattr(layout, "tray", ())
            if cell(slot).piece}
