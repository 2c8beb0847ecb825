"""A draughts record in PDN 3.0 (Portable Draughts Notation), for ``tavola export``. Pure.

GameType (the PDN 3.0 standard's table of type numbers): ``english`` is 21 (English
draughts, Black first, squares numbered 1-32: moves are written ``11-15``, ``15x24``);
``russian`` 25 and ``brazilian`` 26 (8x8, White first, algebraic ``c3-d4``; Russian
writes a capture with ``:``, ``c3:e5``, as its row in the table says). The German Dame
(``german``) and the seed's ``dame`` have no number of their own: they get an explicit
GameType string, the type of the nearest rules with every attribute spelled out
(``25,W,8,8,A0,0``: 8x8, White first, algebraic from the bottom left, a1 a playing
square; Russian rules are the German ones but for a man crowned in the middle of a
capture), and the rules are named in a ``Variant`` tag. A huff (``dame``) has no PDN
move: it is written as a comment before the move of the turn (``{huff d4}``).

The result is White's score first (``1-0``: White won), whatever colour began. Clock
times and the referee's entries are comments, as in :mod:`tavola.export`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tavola.export import Turn, movetext, tag_lines, turns_of
from tavola.games.draughts import Draughts, turn_text
from tavola.record import Record, set_up

GAME_TYPES: dict[str, str] = {  # variant -> GameType tag
    "english": "21",
    "russian": "25",
    "brazilian": "26",
    "german": "25,W,8,8,A0,0",
    "dame": "25,W,8,8,A0,0",
}
VARIANT_NAMES: dict[str, str] = {
    "english": "English draughts",
    "russian": "Russian draughts",
    "brazilian": "Brazilian draughts",
    "german": "German Dame",
    "dame": "Dame (huffing)",
}


def pdn_text(record: Record, width: int = 79) -> str:
    """The draughts game of ``record`` as one PDN 3.0 game."""
    header = record.header
    game = set_up(header)
    assert isinstance(game, Draughts)
    variant = str(header.params.get("variant", "dame"))
    names = game.player_names
    players = header.players or names
    result = record.result
    final = _result(result.score if result else "*", {n: i for i, n in enumerate(names)})
    date = datetime.fromtimestamp(header.wall, tz=UTC)
    seat = {name: n for n, name in enumerate(names)}  # colour -> player index
    tags: list[tuple[str, Any]] = [
        ("Event", "?"), ("Site", "?"), ("Date", date.strftime("%Y.%m.%d")), ("Round", "-"),
        ("White", players[seat["White"]]), ("Black", players[seat["Black"]]),
        ("Result", final),
        ("GameType", GAME_TYPES.get(variant, GAME_TYPES["dame"])),
        ("Variant", VARIANT_NAMES.get(variant, variant)),
        ("Time", date.strftime("%H:%M:%S")),
        ("GameId", header.id),
    ]
    if result:
        tags.append(("Termination", result.reason))
    lead, turns = turns_of(record)
    numeric = variant == "english"
    capture = ":" if variant == "russian" else "x"

    def write(turn: Turn) -> str:  # called for each turn in order: the game follows
        moves = [game.parse_move(text) for text in turn.actions]
        huffs = [m for m in moves if str(m).startswith("huff")]
        rest = [m for m in moves if not str(m).startswith("huff")]
        text = turn_text(rest, numeric=numeric).replace("x", capture) if rest else ""
        for move in moves:
            game.apply(move)
        return " ".join(["{" + str(h) + "}" for h in huffs] + ([text] if text else []))

    return tag_lines(tags) + "\n\n" + movetext(lead, turns, write, final, width)


def _result(score: str, seat: dict[str, int]) -> str:
    """Our score (player 0's figure first) as PDN's, White's figure first."""
    if score == "*" or seat["White"] == 0:
        return score
    return "-".join(reversed(score.split("-")))
