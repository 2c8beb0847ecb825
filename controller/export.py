"""A finished game as text in its notation, PGN-like (``tavola export``), and a draughts
game as PDN (:func:`export_pdn`). Pure.

Tag lines (game, variant, parameters, date, id, players, result, termination), a blank
line, then the numbered whole turns with the takebacks removed, and the score.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from tavola.games import game_class
from tavola.record import Record, StartEntry, final_line, set_up


def export_text(record: Record, width: int = 79) -> str:
    """The game in its notation: tag lines, then numbered whole turns.

    A turn's actions are joined by the game's ``turn_notation(texts)`` if it has one, else
    by a space.
    """
    header = record.header
    params = dict(header.params)
    result = record.result
    date = datetime.fromtimestamp(header.wall, tz=UTC)
    tags: list[tuple[str, Any]] = [("Game", header.game)]
    if "variant" in params:
        tags.append(("Variant", params.pop("variant")))
    if "\n" in str(params.get("layout", "")):
        params["layout"] = "(in the record)"  # a whole layout file is no tag
    if params:
        tags.append(("Params", " ".join(f"{k}={_param_text(v)}" for k, v in params.items())))
    tags += [
        ("Date", date.strftime("%Y.%m.%d")),
        ("Time", date.strftime("%H:%M:%S UTC")),
        ("Id", header.id),
    ]
    if header.players:
        tags.append(("Players", ", ".join(header.players)))
    final = result.score if result else "*"
    tags.append(("Result", final))
    if result:
        tags.append(("Termination", result.reason))
    lines = [f'[{name} "{_tag_text(value)}"]' for name, value in tags]
    body = " ".join([*_numbered_turns(final_line(record.entries), _turn_joiner(header)), final])
    wrapped = textwrap.fill(body, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join([*lines, "", wrapped, ""])


def _numbered_turns(actions: list[tuple[int, str]], join: Callable[[list[str]], str]) -> list[str]:
    turns: list[tuple[int, list[str]]] = []
    for player, text in actions:
        if turns and turns[-1][0] == player:
            turns[-1][1].append(text)
        else:
            turns.append((player, [text]))
    out: list[str] = []
    number = 0
    previous: int | None = None
    for player, texts in turns:
        # A new round when the order wraps around (skipped seats keep the count right).
        if previous is None or player <= previous:
            number += 1
            out.append(f"{number}." if previous is not None or player == 0 else f"{number}...")
        out.append(join(texts))
        previous = player
    return out


def _turn_joiner(header: StartEntry) -> Callable[[list[str]], str]:
    try:
        hook = getattr(game_class(header.game), "turn_notation", None)
    except Exception:  # an unknown or broken game still exports, with the plain joiner
        hook = None
    if callable(hook):
        return lambda texts: str(hook(texts))
    return " ".join


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tag_text(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


# PDN's GameType of the rule sets it knows (PDN 3.0); Dame and German draughts have none.
PDN_GAME_TYPES = {"english": "21", "russian": "25", "brazilian": "26"}


def export_pdn(record: Record, tags: Mapping[str, str] | None = None, width: int = 79) -> str:
    """A draughts game in PDN (Portable Draughts Notation): the seven-tag roster's PDN
    form (``[White]``, ``[Black]``, ``[Result "2-0"]``, ``[GameType]``), ``tags`` added
    (an event's ``Event``, ``Round``, ``Table``), then the numbered turns, a capture chain
    written whole (``c3xe5xg7``), English checkers in its 1-32 numbering. ValueError for
    another game.
    """
    from tavola.games.draughts import turn_text

    header = record.header
    if header.game != "draughts":
        raise ValueError(f"PDN is for draughts, not {header.game}")
    variant = str(header.params.get("variant", ""))
    game = set_up(header)
    names = list(header.players) or ["White", "Black"]
    white = 0 if names[0].lower() != "black" else 1
    result = record.result
    if result is None:
        final = "*"
    elif result.outcome is None or result.outcome.winner is None:
        final = "1-1" if result.outcome is not None else "*"
    else:
        final = "2-0" if result.outcome.winner == white else "0-2"
    date = datetime.fromtimestamp(header.wall, tz=UTC)
    lines = [("Event", ""), ("Date", date.strftime("%Y.%m.%d")), ("White", names[white]),
             ("Black", names[1 - white]), ("Result", final)]
    if variant in PDN_GAME_TYPES:
        lines.append(("GameType", PDN_GAME_TYPES[variant]))
    elif variant:
        lines.append(("Variant", variant))
    lines = [(k, (tags or {}).get(k, v)) for k, v in lines] + [
        (k, v) for k, v in (tags or {}).items() if k not in dict(lines)] + [("Id", header.id)]
    numeric = variant == "english"

    def join(texts: list[str]) -> str:
        return turn_text([game.parse_move(t) for t in texts], numeric=numeric)

    body = " ".join([*_numbered_turns(final_line(record.entries), join), final])
    wrapped = textwrap.fill(body, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join([*(f'[{k} "{_tag_text(v)}"]' for k, v in lines if v), "", wrapped, ""])
