"""Nine Men's Morris flying endgames solved exactly, by retrograde analysis.

With none in hand and a side down to three men, that side flies; these endgames are short
in men but long in moves, and a search alone plays them badly. The tables hold, for every
position of 3 v 3 and 3 v 4 men (either side to move), the exact value for the player to
move and how many turns it takes: won in d turns, lost in d turns, or drawn.

Building needs numpy (``tavola endgames build``, a minute or two; ``pip install numpy``);
reading the tables needs only the standard library. The values assume the default rules
(flying, removals compulsory, a re-formed mill counts, a mill earns a removal even when all
the opponent's men are in mills) and count repetitions and the no-removal rule as draws
never: a won line longer than what remains of ``no_removal_plies`` may still be drawn there.

Encoding, one signed 16-bit number per position, for the player to move: ``1000 - d`` won
in ``d`` turns, ``-(1000 - d)`` lost in ``d`` turns (``-1000``: blocked now), 0 drawn.
Table ``"AvB"`` is indexed ``rank(mover's men) * C(24, B) + rank(opponent's men)`` with the
men as sets of point indices (``tavola.games.morris.POINTS``) ranked in colex order.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from array import array
from collections.abc import Mapping
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

from tavola.files import write_whole
from tavola.games import Game
from tavola.games.morris import POINTS, Morris

from .evaluation import WIN

log = logging.getLogger(__name__)

TABLES = ("3v3", "3v4", "4v3")
VERSION = 1
RULES = {"flying": True, "strict_seed": False, "optional_removal": False,
         "reformed_mills": "count"}
# The tables index points in the order of tavola.games.morris.POINTS (the public names).
POINT_INDEX = {name: i for i, name in enumerate(POINTS)}
_MEMO_LIMIT = 200_000  # remembered probes; cleared when full (a few tens of MB at most)


def default_directory(env: Mapping[str, str] | None = None) -> Path:
    """Where the tables are cached: ``$TAVOLA_ENDGAMES``, else systemd's
    ``$CACHE_DIRECTORY``, else ``$XDG_CACHE_HOME/tavola/endgames``, else ``~/.cache/...``."""
    env = os.environ if env is None else env
    if env.get("TAVOLA_ENDGAMES"):
        return Path(env["TAVOLA_ENDGAMES"])
    if env.get("CACHE_DIRECTORY"):
        return Path(env["CACHE_DIRECTORY"].split(":")[0]) / "endgames"
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "tavola" / "endgames"
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".cache" / "tavola" / "endgames"


def sets_of(size: int) -> list[int]:
    """Every set of ``size`` of the 24 points as a bitmask, in rank order."""
    return [sum(1 << i for i in combo) for combo in combinations(range(24), size)]


class Endgames:
    """Loaded tables: :meth:`value` of a position, :meth:`probe` for the searcher."""

    def __init__(self, tables: Mapping[str, array[int]]) -> None:
        self._tables = dict(tables)
        self._rank = {n: {mask: i for i, mask in enumerate(sets_of(n))} for n in (3, 4)}
        self._count = {3: 2024, 4: 10626}
        self._memo: dict[Any, int | None] = {}

    @property
    def tables(self) -> tuple[str, ...]:
        """The material the tables cover, e.g. ("3v3", "3v4", "4v3")."""
        return tuple(sorted(self._tables))

    def value(self, mover: int, opponent: int) -> int | None:
        """The stored value for the player to move with men ``mover`` against ``opponent``
        (bitmasks of points), or None when no table covers that material."""
        a, b = mover.bit_count(), opponent.bit_count()
        table = self._tables.get(f"{a}v{b}")
        if table is None:
            return None
        return table[self._rank[a][mover] * self._count[b] + self._rank[b][opponent]]

    def probe(self, game: Game[Any]) -> int | None:
        """The exact value of a morris position for the player to move, in the searcher's
        units (``WIN - d`` won in d turns), or None when it is not in the tables.

        Read from the game's public face only: the board's view, the men in hand, the
        player to move and whether a removal is owed (``expectation()``); the answer is
        remembered under the game's opaque position key, as search meets a position often.
        """
        if not isinstance(game, Morris) or any(
            game.options[k] != v for k, v in RULES.items()
        ):
            return None
        if game.men_in_hand(0) or game.men_in_hand(1) or game.outcome() is not None:
            return None
        key = game.position_key()
        if key is None:
            return None
        if key in self._memo:
            return self._memo[key]
        value = None if game.expectation() else self._probe_board(game)
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = value
        return value

    def _probe_board(self, game: Morris) -> int | None:
        me = game.current_player
        mine = "W" if me == 0 else "B"
        own = opp = 0
        for point, token in game.view().items():
            if token:
                if token == mine:
                    own |= 1 << POINT_INDEX[point]
                else:
                    opp |= 1 << POINT_INDEX[point]
        v = self.value(own, opp)
        if v is None:
            return None
        if v > 0:
            return WIN - (1000 - v)
        if v < 0:
            return -WIN + (1000 + v)
        return 0


def load(directory: Path | None = None) -> Endgames | None:
    """The tables cached in ``directory`` (default: :func:`default_directory`), or None
    when none were built. A table of another version or rules is ignored; one cut short
    (a build stopped while writing) or a description that does not read is left out with
    a warning, so the engine searches those endgames instead of failing on them."""
    directory = default_directory() if directory is None else directory
    meta_path = directory / "meta.json"
    if not meta_path.is_file():
        return None
    again = "build them again with 'tavola endgames build'"
    try:
        meta = json.loads(meta_path.read_text())
        names = [str(name) for name in meta.get("tables", ())]
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        log.warning("morris endgame tables: %s is not readable (%s); %s", meta_path, exc, again)
        return None
    if meta.get("version") != VERSION or meta.get("rules") != RULES:
        return None
    tables = {}
    for name in names:
        path = directory / f"{name}.i16"
        data = array("h")
        try:
            data.frombytes(path.read_bytes())
        except (OSError, ValueError) as exc:  # ValueError: an odd number of bytes
            log.warning("morris endgame tables: %s is not readable (%s); %s", path, exc, again)
            continue
        expected = _positions(name)
        if len(data) != expected:
            log.warning("morris endgame tables: %s holds %d positions, not %s; %s",
                        path, len(data), expected, again)
            continue
        if sys.byteorder == "big":
            data.byteswap()  # the files are little-endian
        tables[name] = data
    return Endgames(tables) if tables else None


def _positions(name: str) -> int | None:
    """How many positions table ``name`` ("3v4") holds; None for a name that is none."""
    mover, _, opponent = name.partition("v")
    if not (mover.isdigit() and opponent.isdigit()):
        return None
    return comb(24, int(mover)) * comb(24, int(opponent))


def save(tables: Mapping[str, Any], directory: Path, stats: Mapping[str, Any]) -> None:
    """Write the tables (numpy int16 arrays, little-endian) and their description, each
    file whole before it replaces the old one, the description last: a build stopped
    part way leaves the cache as it was, or tables :func:`load` can tell are short."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, values in tables.items():
        write_whole(directory / f"{name}.i16", values.astype("<i2").tobytes())
    meta = {"version": VERSION, "rules": RULES, "tables": sorted(tables), "stats": stats}
    write_whole(directory / "meta.json", (json.dumps(meta, indent=1) + "\n").encode())

