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


@pytest.mark.parametrize("params", [{}, {"advanced": True}, {"pass_over": False}])
def test_a_cluster_with_a_hole_moves_as_the_oracle_says(params: dict[str, Any]) -> None:
    """Eight tiles round a hole (no tile splits them: the ring holds), a tail of three
    (whose middle tile does split), a 2x2 block: the geometry's path with holes (Tarjan)
    and without (the ring of 8), against the oracle's search."""
    tiles = ["0,0", "1,0", "2,0", "0,1", "2,1", "0,2", "1,2", "2,2",  # round the hole 1,1
             "3,0", "4,0", "5,0", "3,2", "4,2", "3,3", "4,3", "5,3"]
    backpacks = {"0,0": "R", "2,0": "O", "4,1": "R", "6,0": "O", "8,1": "R", "10,0": "O",
                 "0,4": "R", "3,5": "O", "6,4": "R", "9,6": "O", "4,2": "R", "1,3": "O",
                 "5,5": "R", "8,7": "O", "10,7": "R", "7,4": "O"}
    state = {"tiles": tiles, "backpacks": backpacks, "player": 0, "phase": "first",
             "tiles_left": 0}
    for holes in (True, False):
        if not holes:  # fill the hole: a 3x3 block with a tail
            state = dict(state, tiles=[*tiles, "1,1"])
        game = new_game("quinque", **params)
        game.set_position(state)
        oracle = OracleQuinque(**params)
        oracle.set_position(state)
        ours = [str(m) for m in game.legal_moves()]
        assert len(ours) == len(set(ours))
        assert set(ours) == {str(m) for m in oracle.legal_moves()}
        assert any(">" in m for m in ours)
