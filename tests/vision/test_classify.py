"""Reading rendered positions of every game (vision/classify.py and its readers)."""

from __future__ import annotations

import dataclasses
import random

import cv2
import numpy as np
import pytest

from tavola.games import new_game
from tavola.vision.classify import (
    DARK_BAND,
    RIM_STEP,
    TOKENS,
    VEIL_LEFT,
    Recogniser,
    _dark_band,
    _from_linear,
    _linear,
    _rim_steps,
    _veil_left,
    as_seen,
)
from tavola.vision.pieces import Prototypes
from tavola.vision.render import Conditions, random_conditions, random_position, render

GAMES = ["morris", "draughts", "quixo", "tessere", "sequence-kids", "quinque"]


@pytest.mark.parametrize("game", GAMES)
def test_random_positions_of_every_game_under_random_conditions(game: str) -> None:
    rng = random.Random(f"classify:{game}")
    for _ in range(3):
        cells = random_position(game, rng)
        frame = render(game, cells, random_conditions(rng))
        # Quinque: the daemon knows the position the game is in (see vision/tiles.py).
        recogniser = Recogniser(game, start=cells if game == "quinque" else None)
        reading = recogniser.read(frame.image)
        assert dict(reading.cells) == as_seen(game, frame.cells)
        assert not reading.hand
        assert set(reading.cells) <= set(frame.cells) and set(reading.cells.values()) <= TOKENS[
            game]


@pytest.mark.parametrize(("game", "players"), [("quixo", 4), ("sequence-kids", 4)])
def test_four_player_tokens(game: str, players: int) -> None:
    rng = random.Random(f"four:{game}")
    cells = random_position(game, rng, players=players)
    frame = render(game, cells, random_conditions(rng), players=players)
    reading = Recogniser(game, players=players).read(frame.image)
    assert dict(reading.cells) == frame.cells
    if game == "quixo":
        assert any(len(t) == 2 for t in reading.cells.values())  # dots were read


def test_kings_read_as_their_colour_at_a_steep_tilt() -> None:
    # A king is two men stacked: its top is high and seen away from its square at a tilt.
    cells = {"a1": "W", "c1": "WK", "e1": "B", "g1": "BK", "d4": "WK", "h8": "BK", "b6": "B"}
    frame = render("draughts", cells, Conditions(tilt=28.0, azimuth=40.0, turn=-9.0, seed=5))
    reading = Recogniser("draughts").read(frame.image)
    expected = {c: "" for c in frame.cells} | {"a1": "W", "c1": "W", "e1": "B", "g1": "B",
                                              "d4": "W", "h8": "B", "b6": "B"}
    assert dict(reading.cells) == as_seen("draughts", frame.cells) == expected


def test_quixo_cube_tops_are_found_despite_their_height() -> None:
    # Tall cubes seen at a tilt from off-centre: their tops are far from their feet.
    cells = {c: ("X" if i % 3 == 0 else "O" if i % 3 == 1 else ".")
             for i, c in enumerate(new_game("quixo").view())}
    frame = render("quixo", cells, Conditions(tilt=28.0, azimuth=120.0, shift=(0.2, 0.05),
                                              scale=0.7, seed=2))
    reading = Recogniser("quixo").read(frame.image)
    assert dict(reading.cells) == frame.cells


def test_a_hand_over_the_board_is_detected() -> None:
    cells = random_position("morris", random.Random(4))
    clean = Conditions(tilt=10.0, kelvin=3000.0, seed=8)
    recogniser = Recogniser("morris")
    first = recogniser.read(render("morris", cells, clean).image)
    assert not first.hand
    for k, fraction in enumerate((0.1, 0.25, 0.4)):
        handy = render("morris", cells, dataclasses.replace(clean, hand=fraction, seed=8 + k))
        assert recogniser.read(handy.image).hand
    assert not recogniser.read(render("morris", cells, clean).image).hand
    # A single picture, with no bare rim to compare with, still shows the arm crossing it.
    alone = Recogniser("morris").read(
        render("morris", cells, dataclasses.replace(clean, hand=0.3)).image)
    assert alone.hand


def test_something_foreign_on_a_cell_is_uncertain() -> None:
    frame = render("tessere", {"c3": "RY"}, Conditions(seed=1))
    recogniser = Recogniser("tessere")
    fix = recogniser.tracker.update(frame.image)
    image = frame.image.copy()
    for centre in ((0.5, 4.5), (4.5, 0.5)):  # a1, e5
        x, y = cv2.perspectiveTransform(np.array([[centre]], np.float64), fix.homography)[0, 0]
        cv2.circle(image, (int(x), int(y)), 30, (128, 128, 128), -1)  # a grey coin
    reading = recogniser.read(image)
    assert {"a1", "e5"} <= reading.uncertain
    assert reading.cells["c3"] == "RY" and "c3" not in reading.uncertain


def quinque_view(tiles: list[tuple[int, int]], marks: dict[str, str]) -> dict[str, str]:
    view = {f"{2 * x + i},{2 * y + j}": "." for x, y in tiles for i in (0, 1) for j in (0, 1)}
    return view | marks


def test_quinque_is_named_in_the_games_coordinates() -> None:
    game = new_game("quinque")
    lone = render("quinque", game.view(), Conditions(seed=3))
    assert dict(Recogniser("quinque").read(lone.image).cells) == game.view()  # tile (0, 0)
    # Started in the middle of a game, the camera is told where the game is; then a tile
    # is added (the renderer keeps the cluster in place when its extent is the same).
    before = quinque_view([(0, 0), (1, 0), (1, 1)], {"0,0": "R", "2,1": "O", "3,2": "R"})
    after = quinque_view([(0, 0), (1, 0), (1, 1), (0, 1)], before | {"1,3": "O"})
    reader = Recogniser("quinque", start=before)
    assert dict(reader.read(render("quinque", before, Conditions(seed=3)).image).cells) == before
    assert dict(reader.read(render("quinque", after, Conditions(seed=3)).image).cells) == after
    # The whole cluster pushed elsewhere on the table keeps its names.
    pushed = render("quinque", after, Conditions(seed=11))
    assert pushed.centres["0,0"] != render("quinque", after, Conditions(seed=3)).centres["0,0"]
    assert dict(reader.read(pushed.image).cells) == after


def test_prototypes_are_nearest_with_a_margin() -> None:
    p = Prototypes.of({"a": (0.0, 0.0), "b": (10.0, 0.0)}, (1.0, 1.0))
    names, confidence = p.classify([[1.0, 0.0], [5.1, 0.0], [40.0, 0.0]])
    assert names == ["a", "b", "b"]
    assert confidence[0] == 1.0 and confidence[1] < 0.1 and confidence[2] < 0.1
    fitted = p.fitted([[2.0, 1.0], [4.0, 1.0]], ["a", "a"])
    assert fitted.centres[0].tolist() == [3.0, 1.0] and fitted.centres[1].tolist() == [10.0, 0.0]
    assert Prototypes.from_dict(fitted.to_dict()).names == ["a", "b"]


def test_unknown_games_are_named() -> None:
    with pytest.raises(ValueError, match="cannot read 'chess'; it reads: draughts, morris"):
        Recogniser("chess")


@pytest.mark.parametrize(("game", "players", "counts"), [
    ("quixo", 3, "2 or 4"), ("quixo", 7, "2 or 4"), ("morris", 4, "2"),
    ("sequence-kids", 5, "2 or 3 or 4")])
def test_a_player_count_the_game_does_not_have_is_refused(game: str, players: int,
                                                          counts: str) -> None:
    # It was read as two players without a word: a 4-player Quixo board set up with
    # --players 3 read its dots for the wrong seats.
    with pytest.raises(ValueError, match=f"{game} is played by {counts} players, not {players}"):
        Recogniser(game, players=players)
    assert Recogniser(game, players=int(counts[-1])).players == int(counts[-1])


def test_a_veil_of_white_light_explains_a_step_along_the_rim_but_a_hand_does_not() -> None:
    wood = np.array([[62.0, 11.0, 26.0]], np.float32)  # Lab
    # The same wood under a lamp's reflection: its own light a little dimmed, white added.
    veiled = _from_linear(_linear(wood) * np.float32(0.9) + np.float32(0.3))
    assert veiled[0, 0] > 75 and _veil_left(veiled, wood)[0] < 1
    assert _veil_left(wood, veiled)[0] < 1  # whichever is given first
    for hand in ([95.0, -1.0, 20.0],  # a pale hand near the lamp: more colour than a veil
                 [40.0, 8.0, 15.0],  # a dark sleeve: the wood is no veil over it
                 [85.0, 0.0, 2.0]):  # a white sleeve: a veil leaves the wood's colour
        assert _veil_left(np.array([hand], np.float32), wood)[0] > VEIL_LEFT, hand


def test_a_veiled_segment_among_bare_wood_is_a_reflection_but_a_pale_hand_is_not() -> None:
    # A reflection's edge runs across the rim: a segment under the veil may stand among
    # bare wood (lighter than its neighbours), as bare wood may stand beside a veil.
    wood = np.array([62.0, 11.0, 26.0], np.float32)
    veiled = _from_linear(_linear(wood[None]) * np.float32(0.9) + np.float32(0.3))[0]
    for odd, explained in ((veiled, True),
                           ([95.0, -1.0, 20.0], False),  # more colour than a veil leaves
                           # the wood's hue and as pale as a veil, but too dark for that
                           # (the flat renderer's hands in a warm room)
                           ([70.0, 7.0, 15.0], False)):
        side = np.repeat(wood[None], 16, axis=0)
        side[7] = np.asarray(odd, np.float32)
        steps, unexplained = _rim_steps(side, [16])
        assert steps > RIM_STEP
        assert (unexplained < RIM_STEP) == explained, odd


def test_a_dark_stretch_of_rim_with_wood_on_both_sides_is_an_arm() -> None:
    # A rim of 4 sides of 8 segments, lit with a gentle gradient; an arm over the corner
    # between the north and east sides covers 6 segments 15 darker than the wood.
    sides = [8, 8, 8, 8]
    light = np.float32(60) + np.linspace(0, 4, 32, dtype=np.float32)
    bare = np.zeros(32, np.bool_)
    assert _dark_band(light, sides, bare) < DARK_BAND
    arm = light.copy()
    arm[[5, 6, 7, 24, 25, 26]] -= 15  # n's east end, e's north end (order n, s, w, e)
    assert _dark_band(arm, sides, bare) > DARK_BAND
    # The median of a segment's neighbours is the arm itself: the step test misses it.
    segments = np.stack([arm, np.full(32, 10, np.float32), np.full(32, 20, np.float32)], 1)
    assert _rim_steps(segments, sides)[1] < RIM_STEP
    # A whole side darker (tall pieces' sides seen at a tilt) is no arm crossing it, nor a
    # step that only one side of the stretch shows (a reflection's edge, a gradient).
    side = light.copy()
    side[8:16] -= 15
    assert _dark_band(side, sides, bare) < DARK_BAND
    edge = light.copy()
    edge[4:8] -= 15
    edge[24:32] -= 30
    assert _dark_band(edge, sides, bare) < DARK_BAND


def test_a_dark_stretch_between_segments_a_reflection_washes_out_is_an_arm() -> None:
    # The arm's flanks on the rim are a blown-out spot and a veil (skipped): the wood
    # beside the stretch is the bare wood beyond them.
    sides = [8, 8, 8, 8]
    light = np.float32(60) + np.linspace(0, 4, 32, dtype=np.float32)
    skip = np.zeros(32, np.bool_)
    skip[[3, 4, 8]] = True  # n's middle blown out, its east end veiled
    light[[3, 4, 8]] = 92
    arm = light.copy()
    arm[[5, 6, 7]] -= 30
    assert _dark_band(arm, sides, skip) > DARK_BAND
    # Bare wood between two reflections (skipped) is no darker than the wood beyond them.
    assert _dark_band(light, sides, skip) < DARK_BAND
