"""A game's record as text: ``tavola export`` and the referee console's download. Pure.

:func:`export_record` writes each game in its standard notation where one exists: PDN 3.0
for draughts (:mod:`tavola.pdn`), the common Morris notation for morris (a turn is one
token: ``d2``, ``a1-a4``, ``f2-f4xd5``), and our own PGN-like notation for the others
(:func:`export_text`). All of them carry, as PGN comments after a turn:

- the mover's clock after it, ``{[%clk 0:04:58]}`` (PGN's clock comment, which PDN readers
  skip as any comment), when the game was timed;
- the referee's entries where they happened (corrections, clock changes, results):
  ``{Referee 14:31:05 UTC referee@192.168.1.9: clock +30 s Black (phone rang)}``, the
  timeouts, and the help the board gave: ``{White asked, hint 1: a7 xb2}``, ``{White:
  blunder (2.5 men worse), better a7 xb2}`` (what the move cost, where the record keeps
  it; the computer opponent's moves are the moves themselves).

The moves are the final line: takebacks and corrections removed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tavola.ai.evaluation import KNOWLEDGE, WIN
from tavola.games import game_class
from tavola.record import (
    ActionEntry,
    AmendEntry,
    HintEntry,
    Record,
    RefereeEntry,
    StartEntry,
    TimeoutEntry,
    UndoEntry,
    WithdrawnEntry,
)


@dataclass
class Turn:
    """One player's consecutive actions in the final line, the clock after the last one,
    and the notes (referee's entries, timeouts) that came after them."""

    player: int
    actions: list[str]
    clock: Mapping[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def export_record(record: Record, width: int = 79) -> str:
    """The record in its game's standard notation (the module's docstring says which)."""
    if record.header.game == "draughts":
        from tavola.pdn import pdn_text
        return pdn_text(record, width)
    return export_text(record, width)


def export_text(record: Record, width: int = 79) -> str:
    """The game in its notation: tag lines, then numbered whole turns.

    A turn's actions are joined by the game's ``turn_notation(texts)`` if it has one (for
    morris, the common notation's ``f2-f4xd5``), else by a space.
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
    join = _turn_joiner(header)
    lead, turns = turns_of(record)
    return tag_lines(tags) + "\n\n" + movetext(
        lead, turns, lambda turn: join(turn.actions), final, width)


def tag_lines(tags: list[tuple[str, Any]]) -> str:
    """``[Name "value"]`` lines, the values escaped as PGN/PDN want."""
    return "\n".join(f'[{name} "{_tag_text(value)}"]' for name, value in tags)


def movetext(lead: list[str], turns: list[Turn], write: Callable[[Turn], str], final: str,
             width: int) -> str:
    """The numbered turns (``1. d2 a1 2. ...``, ``1...`` when player 0 does not begin),
    each followed by its clock and notes as comments, and the result; wrapped at
    ``width`` without splitting a move (a long comment may pass it)."""
    words = [_comment(note) for note in lead]
    number = 0
    previous: int | None = None
    for turn in turns:
        # A new round when the order wraps around (skipped seats keep the count right).
        written = write(turn)
        if previous is None or turn.player <= previous:  # the number stays with its move
            number += 1
            written = (f"{number}. " if previous is not None or turn.player == 0
                       else f"{number}... ") + written
        words.append(written)
        clock = clock_text(turn.clock, turn.player)
        if clock:
            words.append(_comment(f"[%clk {clock}]"))
        words += [_comment(note) for note in turn.notes]
        previous = turn.player
    words.append(final)
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines) + "\n"


def turns_of(record: Record) -> tuple[list[str], list[Turn]]:
    """The final line as turns, with the notes before the first turn apart.

    A note goes after the turn whose last action it followed (a referee's undo to ply 1:
    after the first action of the line as it stands).
    """
    line: list[tuple[int, str, Mapping[str, Any] | None]] = []
    notes: list[tuple[int, str]] = []
    names = record.header.players
    for entry in record.entries:
        if isinstance(entry, ActionEntry):
            line.append((entry.player, entry.move, entry.clock))
        elif isinstance(entry, TimeoutEntry):
            line.extend((entry.player, m, entry.clock) for m in entry.played)
            who = names[entry.player] if entry.player < len(names) else str(entry.player)
            notes.append((len(line), f"{who}: {entry.kind} time out"))
        elif isinstance(entry, UndoEntry) and line:
            line.pop()
        elif isinstance(entry, AmendEntry):
            del line[len(line) - len(entry.replaced):]
            line.extend((entry.player, m, entry.clock) for m in entry.moves)
        elif isinstance(entry, RefereeEntry):
            notes.append((len(line), referee_note(entry)))
        elif isinstance(entry, WithdrawnEntry):  # the game went on: say what it had said
            ended = f"{entry.score} ({entry.reason})" if entry.reason else entry.score
            notes.append((len(line), f"result {ended} withdrawn by the referee"))
        elif isinstance(entry, HintEntry) and entry.kind != "computer":
            who = names[entry.player] if entry.player < len(names) else str(entry.player)
            shown = " ".join(entry.moves)
            notes.append((len(line), f"{who} asked, hint {entry.rank}: {shown}"
                          if entry.kind == "hint" else
                          f"{who}: blunder{_cost(entry, record.header.game)}, better {shown}"))
    turns: list[Turn] = []
    ends: list[int] = []  # the line's length after each turn
    for index, (player, text, clock) in enumerate(line):
        if turns and turns[-1].player == player:
            turns[-1].actions.append(text)
            turns[-1].clock = clock or turns[-1].clock
            ends[-1] = index + 1
        else:
            turns.append(Turn(player, [text], clock))
            ends.append(index + 1)
    lead: list[str] = []
    for at, text in notes:
        at = min(at, len(line))
        if at == 0 or not turns:
            lead.append(text)
        else:
            turn = next(n for n, end in enumerate(ends) if end >= at)
            turns[turn].notes.append(text)
    return lead, turns


def _cost(review: HintEntry, game: str) -> str:
    """What a blunder cost, as the review kept it (nothing in records from before)."""
    if review.played is None:
        return ""
    if review.score > WIN // 2 >= review.played:
        return " (a won position thrown away)"
    known = KNOWLEDGE.get(game)
    if known is not None and known.hidden:  # sampled games score chances in per mille
        return f" ({(review.score - review.played) / 10:.0f} % less likely to win)"
    return f" ({(review.score - review.played) / 100:.1f} men worse)"


def referee_note(entry: RefereeEntry) -> str:
    """A referee's entry as the record's comment: when, who, what, why."""
    when = datetime.fromtimestamp(entry.wall, tz=UTC).strftime("%H:%M:%S UTC")
    why = f" ({entry.reason})" if entry.reason else ""
    return f"Referee {when} {entry.who}: {entry.action}{why}"


def clock_text(clock: Mapping[str, Any] | None, player: int) -> str:
    """``player``'s game time left in a clock state, as ``H:MM:SS``; '' without one."""
    if not clock:
        return ""
    spec = clock.get("spec") or {}
    left = clock.get("left") or []
    if spec.get("mode", "none") in ("none", "move") or player >= len(left):
        return ""
    try:
        seconds = float(left[player])
    except (TypeError, ValueError):
        return ""
    if not math.isfinite(seconds):
        return ""
    whole = max(0, int(seconds + 0.5))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _comment(text: str) -> str:
    return "{" + text.replace("{", "(").replace("}", ")") + "}"


def _turn_joiner(header: StartEntry) -> Callable[[list[str]], str]:
    if header.game == "morris":
        return morris_turn
    try:
        hook = getattr(game_class(header.game), "turn_notation", None)
    except Exception:  # an unknown or broken game still exports, with the plain joiner
        hook = None
    if callable(hook):
        return lambda texts: str(hook(texts))
    return " ".join


def morris_turn(texts: list[str]) -> str:
    """A morris turn in the common notation: the removal joined to the move that closed
    the mill (``d2xg7``, ``f2-f4xd5``); a passed-up removal is left out.

    >>> morris_turn(["f2-f4", "xd5"]), morris_turn(["a7", "pass"])
    ('f2-f4xd5', 'a7')
    """
    out = ""
    for text in texts:
        if text == "pass":
            continue
        out += text if text.startswith("x") or not out else " " + text
    return out


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tag_text(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"')
