"""A finished game as text in its notation, PGN-like (``tavola export``). Pure.

Tag lines (game, variant, parameters, date, id, players, result, termination), a blank
line, then the numbered whole turns with the takebacks removed, and the score.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from tavola.games import game_class
from tavola.record import Record, StartEntry, final_line


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
