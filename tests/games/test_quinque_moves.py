"""Quinque's legal-move lists: the same SET of actions as the engine of issue 13, and a
canonical order recorded as digests.

The engine of issue 13 (kept in ``tests/games/quinque_oracle.py``) listed actions in the
order its geometry discovered them, which depended on the order the tiles had been added
and moved. The engine now lists them in a canonical order (marks, additions, tile moves,
pass; tiles and cells in (x, y) order: see ``tavola.games.quinque``), a function of the
position alone. Both engines play the same seeded random games side by side: every
position's set of actions must agree, and the canonical lists are hashed.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from tavola.games import new_game
from tests.games.quinque_oracle import OracleQuinque

SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"advanced": True},
    {"opening": "each", "pass_over": False, "opponent_line": "ignore",
     "out_of_backpacks": "move_or_pass"},
    {"tiles": 4, "backpacks": 9, "line_length": 3, "repetition_draw": True},
    {"pass_over": False},
    {"advanced": True, "pass_over": False},
    {"tiles": 30, "backpacks": 40},
)


def play(games: int) -> tuple[int, str, list[str]]:
    """(positions seen, sha256 of their move lists, positions whose move SET differs from
    the oracle's) over ``games`` seeded random playouts per setting."""
    h = hashlib.sha256()
    positions = 0
    differ: list[str] = []
    for i, params in enumerate(SETTINGS):
        for seed in range(games):
            rng = random.Random(seed * 31 + i)
            game = new_game("quinque", **params)
            oracle = OracleQuinque(**params)
            for _ in range(300):
                moves = [str(m) for m in game.legal_moves()]
                h.update(" ".join(moves).encode() + b"|")
                positions += 1
                if set(moves) != {str(m) for m in oracle.legal_moves()}:
                    differ.append(f"{params} seed {seed}: {game.to_dict()['moves']}")
                if not moves:
                    break
                text = rng.choice(moves)
                game.apply(text)
                oracle.apply(text)
    return positions, h.hexdigest(), differ


def test_move_lists_are_the_oracles_sets_in_the_canonical_order() -> None:
    positions, digest, differ = play(3)
    assert differ == []
    assert (positions, digest) == (
        2453, "57581d5a745265a952ac48c17e92d7c55444c57a1b0952b085953841afaac1bd"
    )


@pytest.mark.slow
def test_move_lists_are_the_oracles_sets_on_many_games() -> None:
    positions, digest, differ = play(60)
    assert differ[:3] == []
    assert (positions, digest) == (
        48453, "d89f0de95566b8512f7171f5fa056ee22793ec091bc1810fe1cf78dcd340da36"
    )


def test_the_order_is_canonical_whatever_way_the_tiles_came() -> None:
    """Two ways to the same position (tiles added in another order, a tile moved there)
    give the same list."""
    a = new_game("quinque")
    for text in ("m 0,0", "t 2,1", "pass", "t -2,0", "pass", "t 0,2", "pass"):
        a.apply(text)
    b = new_game("quinque")
    for text in ("m 0,0", "t 0,2", "pass", "t -2,0", "pass", "t 2,1", "pass"):
        b.apply(text)
    assert a.view() == b.view() and a.current_player == b.current_player
    assert a.legal_moves() == b.legal_moves()
    moves = [str(m) for m in a.legal_moves()]
    marks = [m for m in moves if m.startswith("m ")]
    assert marks == [  # tiles -1,0  0,0  0,1  1,0, each one's free skydivers in (x, y) order
        "m -2,1", "m -1,0", "m -1,1", "m 0,1", "m 1,0", "m 1,1",
        "m 0,3", "m 1,2", "m 1,3", "m 2,0", "m 3,0", "m 3,1",
    ]
    assert moves[len(marks):len(marks) + 4] == ["t -4,0", "t -4,1", "t -3,0", "t -3,1"]
    slides = [m for m in moves if ">" in m]
    assert slides == sorted(slides, key=lambda m: [int(v) for v in m.replace(">", ",").split(",")])
