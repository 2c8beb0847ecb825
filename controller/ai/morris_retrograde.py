"""Building the morris endgame tables: retrograde value iteration over whole tables (numpy).

Each table holds, for the player to move, the value of every position (see
:mod:`tavola.ai.morris_endgames` for the encoding). One sweep computes, for every position at
once, the best of its moves from the values of the previous sweep: a move that closes a mill
wins at once when the opponent has 3 men; when the flier closes a mill against 4, it takes the
best man (the 3 v 3 table says which); a blocked slider has lost. Sweeps repeat until nothing
changes: sweep n finds every win and loss in n turns, so the first value found is the
shortest win and the longest loss, and what is left at the end is drawn (a cycle).

A move's value comes from the child position's value ``c`` as ``-c`` moved one turn closer
to zero, so sooner wins score higher. Positions whose men overlap are never reached by a
legal move; they hold ``-INF`` so that a move onto an occupied point loses every comparison
without a mask.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tavola.games.morris import MILL_MASKS, NEIGHBOURS

from .morris_endgames import sets_of

_NEG = -32000  # an illegal move: below every value
_WON_NOW = 999  # a win in one turn


def _np() -> Any:
    try:
        import numpy
    except ImportError as exc:
        raise ValueError(
            "building the endgame tables needs numpy: pip install numpy (or tavola[vision])"
        ) from exc
    return numpy


def _shrink(np: Any, v: Any) -> Any:
    """The child's value ``v`` seen from the parent: negated, one turn closer to zero."""
    out = np.negative(v)
    out -= np.sign(out).astype(out.dtype)
    return out


class _Sets:
    """The n-man sets: masks, ranks, and for each set and slot the set after one move."""

    def __init__(self, np: Any, size: int, fly: bool) -> None:
        masks = sets_of(size)
        rank = {m: i for i, m in enumerate(masks)}
        self.masks = np.array(masks, dtype=np.int64)
        self.count = len(masks)
        mills = set(MILL_MASKS)
        slots: list[list[int]] = []
        closes: list[list[bool]] = []
        for mask in masks:
            men = [i for i in range(24) if mask >> i & 1]
            row: list[int] = []
            shut: list[bool] = []
            for man in men:
                targets = (
                    [q for q in range(24) if not mask >> q & 1]
                    if fly
                    else [q for q in NEIGHBOURS[man] if not mask >> q & 1]
                )
                for q in targets:
                    new = mask ^ (1 << man) ^ (1 << q)
                    row.append(rank[new])
                    shut.append(any(m >> q & 1 and new & m == m for m in mills))
            width = 3 * 21 if fly else 4 * 4
            row += [-1] * (width - len(row))
            shut += [False] * (width - len(shut))
            slots.append(row)
            closes.append(shut)
        self.next = np.array(slots, dtype=np.int64)  # -1: no such move
        self.closes = np.array(closes, dtype=bool)
        self.rank = rank


def _overlap(np: Any, a: _Sets, b: _Sets) -> Any:
    return (a.masks[:, None] & b.masks[None, :]) != 0


def build_3v3(progress: Callable[[str], None] = lambda s: None) -> Any:
    """The 3 v 3 table: both fly. Returns an int16 array [mover's set, opponent's set]."""
    np = _np()
    s3 = _Sets(np, 3, fly=True)
    overlap = _overlap(np, s3, s3)
    values = np.zeros((s3.count, s3.count), dtype=np.int16)
    values[overlap] = _NEG
    for sweep in range(1, 400):
        # parent[t, o] = max over t's moves k of shrink(values[o, next[t, k]])
        seen = _shrink(np, values).T.copy()  # seen[t', o] = shrink(values[o, t'])
        seen[overlap] = _NEG  # t' on o's men: not a legal move
        best = np.full_like(values, _NEG)
        for k in range(s3.next.shape[1]):
            child = seen[s3.next[:, k], :]
            shut = s3.closes[:, k]
            child[shut] = np.where(overlap[s3.next[shut, k]], _NEG, _WON_NOW)
            np.maximum(best, child, out=best)
        best[overlap] = _NEG
        changed = int(np.count_nonzero(best != values))
        values = best
        progress(f"3v3 sweep {sweep}: {changed} changed")
        if not changed:
            break
    values[overlap] = 0
    return values


def build_3v4(v33: Any, progress: Callable[[str], None] = lambda s: None) -> tuple[Any, Any]:
    """The 3 v 4 tables (the flier to move, the slider to move), from the 3 v 3 table."""
    np = _np()
    s3 = _Sets(np, 3, fly=True)
    s4 = _Sets(np, 4, fly=False)
    overlap = _overlap(np, s3, s4)  # [t, f]
    overlap_t = overlap.T.copy()  # [f, t]
    # The flier closes a mill: it takes the 4-side man that leaves it best off.
    # taken[f, j]: the 3-set left after removing the j-th man of f; free[f, j]: allowed.
    taken = np.zeros((s4.count, 4), dtype=np.int64)
    free = np.zeros((s4.count, 4), dtype=bool)
    for f, mask in enumerate(sets_of(4)):
        men = [i for i in range(24) if mask >> i & 1]
        in_mill = 0
        for m in MILL_MASKS:
            if mask & m == m:
                in_mill |= m
        for j, man in enumerate(men):
            taken[f, j] = s3.rank[mask ^ (1 << man)]
            free[f, j] = not (in_mill >> man & 1) or in_mill == mask
    mill_rank = {s3.rank[m]: n for n, m in enumerate(MILL_MASKS)}
    after_mill = np.full((len(MILL_MASKS), s4.count), _NEG, dtype=np.int16)
    for t_rank, n in mill_rank.items():
        for j in range(4):
            # the former slider, down to 3, moves next: v33[f - man, mill]
            seen = _shrink(np, v33[taken[:, j], t_rank])
            seen[~free[:, j]] = _NEG
            np.maximum(after_mill[n], seen, out=after_mill[n])
        after_mill[n][overlap[t_rank]] = _NEG
    mill_of = np.full(s3.next.shape, -1, dtype=np.int64)
    for t in range(s3.count):
        for k in range(s3.next.shape[1]):
            if s3.closes[t, k]:
                mill_of[t, k] = mill_rank[int(s3.next[t, k])]
    x = np.zeros((s3.count, s4.count), dtype=np.int16)  # the flier to move
    y = np.zeros((s4.count, s3.count), dtype=np.int16)  # the slider to move
    x[overlap] = _NEG
    y[overlap_t] = _NEG
    for sweep in range(1, 400):
        seen_y = _shrink(np, y).T.copy()  # [t', f]
        seen_y[overlap] = _NEG
        best_x = np.full_like(x, _NEG)
        for k in range(s3.next.shape[1]):
            child = seen_y[s3.next[:, k], :]
            rows = np.nonzero(s3.closes[:, k])[0]
            if len(rows):
                child[rows] = after_mill[mill_of[rows, k]]
            np.maximum(best_x, child, out=best_x)
        best_x[overlap] = _NEG
        seen_x = _shrink(np, x).T.copy()  # [f', t]
        seen_x[overlap_t] = _NEG
        best_y = np.full_like(y, _NEG)
        for k in range(s4.next.shape[1]):
            slot = s4.next[:, k]
            child = seen_x[np.maximum(slot, 0), :]
            child[slot < 0] = _NEG
            shut = s4.closes[:, k] & (slot >= 0)
            child[shut] = np.where(overlap_t[slot[shut]], _NEG, _WON_NOW)
            np.maximum(best_y, child, out=best_y)
        best_y[best_y == _NEG] = -1000  # no slide at all: blocked, lost now
        best_y[overlap_t] = _NEG
        changed = int(np.count_nonzero(best_x != x) + np.count_nonzero(best_y != y))
        x, y = best_x, best_y
        progress(f"3v4 sweep {sweep}: {changed} changed")
        if not changed:
            break
    x[overlap] = 0
    y[overlap_t] = 0
    return x, y


def build(tables: tuple[str, ...] = ("3v3", "3v4", "4v3"),
          progress: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Build the named tables (3v4 and 4v3 need 3v3, built on the way)."""
    out: dict[str, Any] = {}
    v33 = build_3v3(progress)
    if "3v3" in tables:
        out["3v3"] = v33
    if "3v4" in tables or "4v3" in tables:
        x, y = build_3v4(v33, progress)
        if "3v4" in tables:
            out["3v4"] = x
        if "4v3" in tables:
            out["4v3"] = y
    return out
