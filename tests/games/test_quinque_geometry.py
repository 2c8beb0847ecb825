"""Quinque's geometry as the game keeps it: the cluster's int, updated by each action in
a frame the game moves to only when a tile lands near its edge, and the geometry kept
with the position (in the undo snapshots, and per frame by cluster) must be what a
from-scratch computation gives in every position: the frame chosen afresh for the tiles,
the int made from the tiles, the geometry made anew (no cache) in that frame.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavola.games import new_game
from tavola.games.quinque import Quinque
from tavola.games.quinque_geometry import Geometry, frame_for

SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"advanced": True},
    {"pass_over": False},
    {"tiles": 30, "backpacks": 40},
    {"tiles": 5, "backpacks": 60},  # a small cluster that wanders far: many new frames
)


def listed(geo: Geometry) -> list[str]:
    """A geometry's tile moves and additions as text, slides split as the rules use them."""
    slides = [f"{t}: {' '.join(map(str, every))} | {' '.join(map(str, orth))} | "
              f"{' '.join(map(str, diag))} | {' '.join(map(str, step))}"
              for t, every, orth, diag, step in geo.slides]
    return [*map(str, geo.moves), *slides, *map(str, geo.adds), *map(str, geo.order)]


def check_against_scratch(game: Quinque) -> None:
    """The game's cluster int, frame and geometry against ones made from its tiles alone."""
    frame = game.frame
    assert all(t in frame.inner for t in game.tiles)
    assert game.occ == frame.occupancy(game.tiles)
    assert game.occ.bit_count() == len(game.tiles)
    pass_over, advanced, size = game.options["pass_over"], game.options["advanced"], \
        game.options["tiles"]
    fresh = frame_for(game.tiles, size, pass_over, advanced)
    scratch = Geometry(fresh, fresh.occupancy(game.tiles))
    kept = game.frame.geometry(game.occ)
    assert listed(kept) == listed(scratch)
    if game.geo is not None:
        assert game.geo is kept or listed(game.geo) == listed(scratch)


def walk(params: dict[str, Any], seed: int) -> tuple[int, int]:
    """A random game checked in every position, then undone and checked again; the
    positions seen and the frames the game used."""
    rng = random.Random(seed)
    game = new_game("quinque", **params)
    frames = {id(game.frame)}
    seen = 0
    for _ in range(400):
        moves = game.legal_moves()
        check_against_scratch(game)
        seen += 1
        if not moves:
            break
        game.apply(rng.choice(moves))
        frames.add(id(game.frame))
    while game.history:
        game.undo()
        check_against_scratch(game)
    return seen, len(frames)


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(map(str, p.items())) or "-")
def test_the_kept_cluster_is_the_one_made_from_scratch(params: dict[str, Any]) -> None:
    seen = frames = 0
    for seed in range(6):
        s, f = walk(params, seed)
        seen += s
        frames = max(frames, f)
    assert seen > 6 * 20
    if params.get("tiles") == 5:
        assert frames > 1  # the game did move to another frame


@pytest.mark.slow
@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(map(str, p.items())) or "-")
def test_the_kept_cluster_is_the_one_made_from_scratch_on_many_games(
    params: dict[str, Any],
) -> None:
    assert sum(walk(params, 100 + seed)[0] for seed in range(60)) > 60 * 20


def test_a_tile_landing_near_the_frames_edge_moves_the_game_to_another_frame() -> None:
    g = new_game("quinque", tiles=3)
    assert isinstance(g, Quinque)
    g.set_position({"tiles": ["0,0", "1,0"], "backpacks": {"0,0": "R", "2,0": "O"},
                    "player": 0, "phase": "first"})
    frame = g.frame
    last = max(x for x, _ in frame.inner)  # the last column a tile may lie in
    x = 0
    while g.frame is frame:  # leapfrog the pair east until a tile lands past ``last``
        g.apply(f"{x},0>{x + 2},0")
        x += 1
        check_against_scratch(g)
    assert x == last  # the tile went to last + 1
    g.undo()
    assert g.frame is frame
    check_against_scratch(g)
