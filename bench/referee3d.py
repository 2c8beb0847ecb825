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
from bench.vision import as_truth

DATA = Path(__file__).resolve().parents[1] / "tests" / "vision" / "data3d"
GAMES = ["morris", "draughts", "quixo", "tessere", "quinque"]
GRACE = 1.0
KINDS = ("right", "phantom", "mismatch", "takeback", "asked", "unloadable", "lost", "hand")
MOVE_KINDS = ("right", "wrong", "mismatch", "missed", "takeback", "asked")


def position(game: str, cells: dict[str, str], to_move: int = 0) -> Any:
    """The game set to the frame's position, ``to_move`` to play (ValueError if the rules
    refuse it)."""
    board = {c: t for c, t in cells.items() if t and t != "."}
    g = new_game(game)
    if game == "morris":
        g.set_position({"board": board, "to_move": to_move})
    elif game == "draughts":
        # The set's men on their far rank stand as men; the rules know them as kings (the
        # camera reads colour, the game the rank).
        far = {"W": "8", "B": "1"}
        g.set_position({"board": {c: t + "K" if t in far and c[1:] == far[t] else t
                                  for c, t in board.items()}, "turn": to_move})
    elif game == "tessere":
        blocks = [[p, c] for p, c in enumerate(c for c, t in board.items() if t == "K")]
        g.set_position({"board": board, "blocks": blocks, "to_move": to_move})
    elif game == "quixo":
        g.set_position({"board": [" ".join(cells[f"{f}{r}"] for f in "abcde")
                                  for r in "54321"], "to_move": to_move})
    else:  # quinque: skydiver (x, y) on tile (x // 2, y // 2)
        tiles = sorted({f"{int(x) // 2},{int(y) // 2}"
                        for x, y in (c.split(",") for c in cells)})
        g.set_position({"tiles": tiles, "backpacks": board, "player": to_move})
    return g


def before_move(game: str, after: dict[str, str]) -> tuple[Any, Any] | None:
    """A position one legal action before ``after`` (a frame's truth), set in its game,
    and that action; None if none is found. The candidates: a piece taken off (what a
    placement put there) or moved back to an empty cell (what a slide or a step moved),
    each with either player to move; the first the rules accept whose action gives
    ``after`` exactly."""
    try:
        want = position(game, after).view("identity")
    except (ValueError, KeyError, TypeError):
        return None
    pieces = sorted(c for c, t in after.items() if t and t != ".")
    empty = sorted(c for c, t in after.items() if not t)
    candidates: list[dict[str, str]] = []
    for cell in pieces:
        if game in ("tessere", "quinque"):
            candidates.append(after | {cell: "." if game == "quinque" else ""})
        if game in ("morris", "draughts"):
            candidates += [after | {cell: "", to: after[cell]} for to in empty]
    if game == "quixo":
        candidates += unpushes(after)
    for cells in candidates:
        for to_move in (0, 1):
            try:
                g = position(game, cells, to_move)
            except (ValueError, KeyError, TypeError):
                continue
            if g.outcome() is not None or g.view("identity") == want:
                continue  # (a push that changes no face is no move a picture shows)
            for move in g.legal_moves():
                g.apply(move)
                made = g.view("identity") == want
                g.undo()
                if made:
                    return g, move
    return None


def camera_reading(game: str, meta: dict[str, Any], image: Any
                   ) -> tuple[dict[str, str], frozenset[str]] | str:
    """One frame's reading as the camera backend hands it on (cells, doubted cells), or
    why there is none: "lost" (no board found) or "hand" (the frame is skipped). Quinque's
    reader is given the position, as the daemon gives it the game's (``start``): here the
    frame's own, which names the tiles only where none is found (all hidden)."""
    start = meta["cells"] if game == "quinque" else None
    try:
        reading = Recogniser(game, fov=float(meta["fov"]), start=start).read(image)
    except MarkersNotFoundError:
        return "lost"
    if reading.hand:
        return "hand"
    cells, doubted = as_truth(game, meta["cells"], reading)  # Quinque: as the daemon names it
    return cells, frozenset(doubted)


def verdicts(game: str, meta: dict[str, Any], image: Any) -> tuple[str, str]:
    """What inference makes of one frame as a still position (:func:`judge`) and as the
    position just after a move (both :func:`judge`), or why it was not asked: unloadable
    (or, for the move, no action found that leads to it), lost, hand."""
    read = camera_reading(game, meta, image)
    if isinstance(read, str):
        return read, read
    cells, uncertain = read
    try:
        still = judge(position(game, meta["cells"]), cells, uncertain)
    except (ValueError, KeyError, TypeError):
        still = "unloadable"
    before = before_move(game, meta["cells"])
    moved = "unloadable" if before is None else judge(before[0], cells, uncertain, before[1])
    return still, moved


def judge(game: Any, cells: dict[str, str], uncertain: frozenset[str],
          move: Any = None) -> str:
    """What the daemon's inference makes of a settled reading of ``game``'s board held
    past the grace time, the board still (``move`` None) or just after ``move``. Still:
    right (nothing to do) or phantom (a move recorded). After a move: right (that action
    recorded), wrong (another one) or missed (nothing recorded, no alarm). Either way
    also mismatch, takeback, or asked (several explanations)."""
    inference = Inference("identity", settle=0.0, grace=GRACE)
    inference.update(game, cells, 0.0, uncertain)
    result = inference.update(game, None, 10 * GRACE)
    if isinstance(result, (Accepted, Amended)):
        if move is None:
            return "phantom"
        return "right" if [str(m) for m in result.moves] == [str(move)] else "wrong"
    if isinstance(result, Mismatch):
        return "mismatch"
    if isinstance(result, Takeback):
        return "takeback"
    if isinstance(result, Ambiguous):
        return "asked"
    assert isinstance(result, Pending)
    return "right" if move is None else "missed"


def unpushes(after: dict[str, str]) -> list[dict[str, str]]:
    """Quixo boards one push before ``after``: a cube taken from position i of a row or
    column and pushed in at its end j (the cubes between shift one toward i), undone with
    each token the taken cube may have shown."""
    lines = [[f"{f}{r}" for f in "abcde"] for r in "12345"]
    lines += [[f"{f}{r}" for r in "12345"] for f in "abcde"]
    tokens = sorted({t for t in after.values() if t} | {"."})
    out: list[dict[str, str]] = []
    for line in lines:
        for j in (0, 4):
            for i in range(5):
                if i == j:
                    continue
                # Pushed in at the first end, the cubes before i moved one up; at the last
                # end, those after i moved one down.
                shifted = ([(k, k + 1) for k in range(0, i)] if j == 0
                           else [(k, k - 1) for k in range(i + 1, 5)])
                for taken in tokens:
                    before = dict(after)
                    for k, came_to in shifted:
                        before[line[k]] = after[line[came_to]]
                    before[line[i]] = taken
                    out.append(before)
    return out


def tally_set(directory: Path, game: str) -> tuple[Counter[str], Counter[str], list[str]]:
    """Each clean frame of ``game`` in ``directory`` judged as a still position and just
    after a move: counts by verdict, and the frames not right (``name: still, move``)."""
    still: Counter[str] = Counter()
    moved: Counter[str] = Counter()
    named: list[str] = []
    for path in sorted(directory.glob(f"{game}-*.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta["hand"]:
            continue
        a, b = verdicts(game, meta, read_image(path.with_suffix(".jpg")))
        still[a] += 1
        moved[b] += 1
        if {a, b} - {"right", "unloadable"}:
            named.append(f"{path.stem}: {a}, {b}")
    return still, moved, named


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
    print(f"frames of {args.set}: what inference makes of each reading, the position set")
    print("still (right: nothing to do) and one action after an earlier one (right: that")
    print("action recorded; wrong: another one recorded)\n")
    print("| game | " + " | ".join(f"still: {k}" for k in KINDS[:5]) + " | "
          + " | ".join(f"move: {k}" for k in MOVE_KINDS) + " | not loadable | lost | hand |")
    print("|---" * (len(KINDS[:5]) + len(MOVE_KINDS) + 4) + "|")
    for game in args.games:
        still, moved, named = tally_set(args.set, game)
        print(f"| {game} | " + " | ".join(str(still[k]) for k in KINDS[:5]) + " | "
              + " | ".join(str(moved[k]) for k in MOVE_KINDS)
              + f" | {still['unloadable']}; {moved['unloadable']} | {still['lost']} "
              f"| {still['hand']} |")
        if args.verbose:
            for line in named:
                print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
