"""The camera as a referee on the physically rendered set: does a misread become a move?

Each clean frame of a ``--set`` directory (default ``tests/vision/data3d``) shows a position
``P`` (its truth file). The game is set to ``P`` and the frame's reading (no calibration,
cells and doubts as the camera backend hands them on) goes to the daemon's inference, as
if the camera watched the board between two moves. Nothing moved, so the right answer is
"nothing to do". A reading that inference explains as a legal action would be recorded as
a move nobody made (a *phantom*); one it cannot explain past the grace time is shown as a
mismatch (a false alarm the players see and that stalls the game until the light changes);
one it takes for an earlier position asks for a takeback. Frames whose position the game
cannot load (the set's positions are plausible mixes, not all reachable by play: too many
men, a line already complete) are counted apart.

Run: ``.venv/bin/python bench/referee3d.py [--set DIR] [GAME ...]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tavola.games import new_game
from tavola.inference import Accepted, Ambiguous, Amended, Inference, Mismatch, Pending, Takeback
from tavola.vision.classify import Recogniser
from tavola.vision.detect import MarkersNotFoundError
from tavola.vision.source import read_image

# This file is bench/referee3d.py: put the repository first (as bench/paper_clip.py does).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.vision import aligned

DATA = Path(__file__).resolve().parents[1] / "tests" / "vision" / "data3d"
GAMES = ["morris", "draughts", "quixo", "tessere", "quinque"]
GRACE = 1.0
KINDS = ("right", "phantom", "mismatch", "takeback", "asked", "unloadable", "lost", "hand")


def position(game: str, cells: dict[str, str]) -> Any:
    """The game set to the frame's position (ValueError if the rules refuse it)."""
    board = {c: t for c, t in cells.items() if t and t != "."}
    g = new_game(game)
    if game == "morris":
        g.set_position({"board": board, "to_move": 0})
    elif game == "draughts":
        # The set's men on their far rank stand as men; the rules know them as kings (the
        # camera reads colour, the game the rank).
        far = {"W": "8", "B": "1"}
        g.set_position({"board": {c: t + "K" if t in far and c[1:] == far[t] else t
                                  for c, t in board.items()}, "turn": 0})
    elif game == "tessere":
        blocks = [[p, c] for p, c in enumerate(c for c, t in board.items() if t == "K")]
        g.set_position({"board": board, "blocks": blocks, "to_move": len(blocks) % 2})
    elif game == "quixo":
        g.set_position({"board": [" ".join(cells[f"{f}{r}"] for f in "abcde")
                                  for r in "54321"]})
    else:  # quinque: skydiver (x, y) on tile (x // 2, y // 2)
        tiles = sorted({f"{int(x) // 2},{int(y) // 2}"
                        for x, y in (c.split(",") for c in cells)})
        g.set_position({"tiles": tiles, "backpacks": board})
    return g


def verdict(game: str, meta: dict[str, Any], image: Any) -> str:
    """What inference makes of one still frame (:func:`judge`), or why it was not asked:
    unloadable, lost (no board found), hand (the frame is skipped)."""
    try:
        g = position(game, meta["cells"])
    except (ValueError, KeyError, TypeError):
        return "unloadable"
    try:
        reading = Recogniser(game, fov=float(meta["fov"])).read(image)
    except MarkersNotFoundError:
        return "lost"
    if reading.hand:
        return "hand"
    cells = dict(reading.cells)
    if game == "quinque":  # named in the game's coordinates, as the daemon's start does
        cells = aligned(meta["cells"], cells)
        uncertain = frozenset(n for n, c in zip(cells, reading.cells, strict=True)
                              if c in reading.uncertain)
    else:
        uncertain = frozenset(reading.uncertain)
    return judge(g, cells, uncertain)


def judge(game: Any, cells: dict[str, str], uncertain: frozenset[str]) -> str:
    """What the daemon's inference makes of a settled reading of ``game``'s board held
    past the grace time: right (nothing to do), phantom (a move recorded), mismatch,
    takeback or asked (several explanations)."""
    inference = Inference("identity", settle=0.0, grace=GRACE)
    inference.update(game, cells, 0.0, uncertain)
    result = inference.update(game, None, 10 * GRACE)
    if isinstance(result, (Accepted, Amended)):
        return "phantom"
    if isinstance(result, Mismatch):
        return "mismatch"
    if isinstance(result, Takeback):
        return "takeback"
    if isinstance(result, Ambiguous):
        return "asked"
    assert isinstance(result, Pending)
    return "right"


def tally_set(directory: Path, game: str) -> tuple[Counter[str], list[str]]:
    """Each clean frame of ``game`` in ``directory`` judged: counts by verdict, and the
    frames not right (``name: verdict``), unloadable ones left out."""
    tally: Counter[str] = Counter()
    named: list[str] = []
    for path in sorted(directory.glob(f"{game}-*.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta["hand"]:
            continue
        kind = verdict(game, meta, read_image(path.with_suffix(".jpg")))
        tally[kind] += 1
        if kind not in ("right", "unloadable"):
            named.append(f"{path.stem}: {kind}")
    return tally, named


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=GAMES, help=f"of {', '.join(GAMES)}")
    parser.add_argument("--set", type=Path, default=DATA, help="frames + truth (JSON)")
    parser.add_argument("-v", "--verbose", action="store_true", help="name each frame not right")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games {unknown}: choose from {GAMES} (sequence-kids' "
                     "positions need the cards dealt, which a frame does not show)")
    print(f"still frames of {args.set}: what inference makes of each reading\n")
    print("| game | " + " | ".join(KINDS) + " |")
    print("|---" * (len(KINDS) + 1) + "|")
    for game in args.games:
        tally, named = tally_set(args.set, game)
        print(f"| {game} | " + " | ".join(str(tally[k]) for k in KINDS) + " |")
        if args.verbose:
            for line in named:
                print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
