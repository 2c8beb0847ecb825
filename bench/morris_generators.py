"""Morris slide generators compared: the engine's tables against whole-board bitboards.

Run: ``.venv/bin/python bench/morris_generators.py [--rounds N]`` (``nice -n 5`` on a shared
machine). Issue 13's bitboard round: the engine numbers the points ring by ring (a step
along a square is a rotation within one byte, a step across a shift by 8 on the
midpoints), and finds a player's slides man by man (``_MEN_T``: a dict lookup and a tuple
concatenation per man). Two whole-board generators are timed against it on the same
positions (every position of MORRIS_GAMES random games where the player to move slides),
after checking that each gives the same moves:

- ``directions``: destinations = shift(men) & empty for each way along the rings, the
  moves read off each byte in a table (6 lookups), and the slides across rings from two
  dicts keyed by their destinations;
- ``rings``: one table per ring keyed by that ring's men and empty points (65,536 entries,
  3**8 of them reachable) and one dict of the slides across rings keyed by their
  destinations.

Figures are CPU ns per position, best of the rounds, the loop's own cost taken off; the
ratio is the engine's time over the generator's (above 1: the generator is faster).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from tavola.games import new_game
from tavola.games.morris import _MEN_T, SHIFTS, MorrisMove

MORRIS_GAMES = 60
Moves = tuple[MorrisMove, ...]
Positions = list[tuple[int, int]]  # (the mover's men, the empty points) as bitboards


def positions() -> Positions:
    """Every position of MORRIS_GAMES seeded random games where the player to move slides."""
    out: Positions = []
    for seed in range(MORRIS_GAMES):
        rng = random.Random(seed)
        game = new_game("morris")
        while moves := game.legal_moves():
            men = game._men
            own = men[game.current_player]
            if moves[0].kind == 1 and own.bit_count() > 3:  # slides, not flies
                out.append((own, 0xFFFFFF ^ (men[0] | men[1])))
            game.apply(rng.choice(moves))
    return out


def engine(own: int, empty: int) -> Moves:
    """The engine's generator (``Morris._legal_moves`` for a sliding player)."""
    t = _MEN_T
    out: Moves = ()
    for adjacent, slides in t[0][own & 255] + t[1][(own >> 8) & 255] + t[2][own >> 16]:
        out += slides[adjacent & empty]
    return out


def _shift(src: int, dst: int) -> MorrisMove:
    move = SHIFTS[src][dst]
    assert move is not None
    return move


def _ring_step(delta: int) -> tuple[tuple[Moves, ...], ...]:
    """[ring][byte of destinations]: the slides that reach them from ``delta`` back."""
    return tuple(
        tuple(
            tuple(
                _shift(8 * r + (k - delta) % 8, 8 * r + k) for k in range(8) if byte >> k & 1
            )
            for byte in range(256)
        )
        for r in range(3)
    )


def _across(delta: int, mask: int) -> dict[int, Moves]:
    """Destinations (a subset of ``mask``) -> the slides reaching them from ``delta`` back."""
    bits = [i for i in range(24) if mask >> i & 1]
    table: dict[int, Moves] = {}
    for pick in range(1 << len(bits)):
        chosen = [b for n, b in enumerate(bits) if pick >> n & 1]
        table[sum(1 << b for b in chosen)] = tuple(_shift(b - delta, b) for b in chosen)
    return table


CW, CCW = _ring_step(1), _ring_step(-1)
OUT, IN = _across(8, 0xAAAA00), _across(-8, 0x00AAAA)


def directions(own: int, empty: int) -> Moves:
    """Slides as four whole-board shifts."""
    cw = ((own << 1) & 0xFEFEFE | (own >> 7) & 0x010101) & empty
    ccw = ((own >> 1) & 0x7F7F7F | (own << 7) & 0x808080) & empty
    out = (
        CW[0][cw & 255] + CW[1][(cw >> 8) & 255] + CW[2][cw >> 16]
        + CCW[0][ccw & 255] + CCW[1][(ccw >> 8) & 255] + CCW[2][ccw >> 16]
    )  # fmt: skip
    outward = (own << 8) & empty & 0xAAAA00
    if outward:
        out += OUT[outward]
    inward = (own >> 8) & empty & 0x00AAAA
    if inward:
        out += IN[inward]
    return out


def _ring_table(r: int) -> list[Moves]:
    table: list[Moves] = [()] * 65536
    for men in range(256):
        rest = empty = 255 ^ men
        while True:  # every subset of the points the men leave free
            table[men << 8 | empty] = tuple(
                _shift(8 * r + k, 8 * r + j)
                for k in range(8)
                if men >> k & 1
                for j in sorted(((k + 7) % 8, (k + 1) % 8))
                if empty >> j & 1
            )
            if not empty:
                break
            empty = (empty - 1) & rest
    return table


R0, R1, R2 = (_ring_table(r) for r in range(3))
CROSS: dict[int, Moves] = {
    out_key | in_key << 24: out_moves + in_moves
    for out_key, out_moves in OUT.items()
    for in_key, in_moves in IN.items()
}


def rings(own: int, empty: int) -> Moves:
    """Slides as one lookup per ring and one across."""
    out = (
        R0[(own << 8) & 0xFF00 | empty & 255]
        + R1[own & 0xFF00 | (empty >> 8) & 255]
        + R2[(own >> 8) & 0xFF00 | empty >> 16]
    )
    cross = (own << 8) & empty & 0xAAAA00 | ((own >> 8) & empty & 0x00AAAA) << 24
    return out + CROSS[cross] if cross else out


def nothing(own: int, empty: int) -> Moves:
    """The loop's own cost."""
    return ()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    sample = positions()
    generators: dict[str, Callable[[int, int], Moves]] = {
        "engine": engine, "directions": directions, "rings": rings, "nothing": nothing,
    }  # fmt: skip
    for name in ("directions", "rings"):
        for own, empty in sample:
            mine, theirs = generators[name](own, empty), engine(own, empty)
            assert sorted(map(str, mine)) == sorted(map(str, theirs)), (name, own, empty)
    best = dict.fromkeys(generators, float("inf"))
    for _ in range(args.rounds):
        for name, generate in generators.items():
            start = time.process_time()
            for own, empty in sample:
                generate(own, empty)
            best[name] = min(best[name], time.process_time() - start)
    ns = {k: (v - best["nothing"]) / len(sample) * 1e9 for k, v in best.items()}
    print(f"{len(sample):,} sliding positions of {MORRIS_GAMES} random games, same moves checked;"
          f" CPU ns a position, best of {args.rounds}")
    for name in ("engine", "directions", "rings"):
        print(f"  {name:<11}{ns[name]:>7,.0f} ns  engine/{name} {ns['engine'] / ns[name]:.2f}x")


if __name__ == "__main__":
    main()
