"""The camera against the physically rendered set (tests/vision/data3d, Blender Cycles).

The frames were rendered once by bench/render3d/generate.py (3D pieces with their heights,
perspective, soft shadows, glossy highlights, 2700-6500 K light, lens distortion, arms over
the board); no rendering here. The floors below are what the recogniser reaches on the set
today (the README gives the figures; the targets, 99.9 % per cell and 99 % per board, are
not reached): they guard against regressions. A frame with an arm over the board is
taken for a position only in the one known case, and the board is found in every frame
without one but the two named below. Frames 000-015 of each game were looked at while the
reader was improved; 016-036 were rendered after, and only measured.

The quick test reads the first frames of each game; the whole set is ``slow``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.vision import SetTally, aligned, score_set
from tavola.vision.classify import Recogniser, as_seen
from tavola.vision.source import read_image

DATA = Path(__file__).parent / "data3d"
GAMES = ["morris", "draughts", "quixo", "tessere", "sequence-kids", "quinque"]
# Per-cell floors (fraction of cells read right over the frames without a hand).
FLOORS = {"morris": 0.985, "draughts": 0.955, "quixo": 0.98, "tessere": 0.975,
          "sequence-kids": 0.975, "quinque": 0.80}
# Frames without a hand where the board is not found: quinque-008 (its 0.8-skydiver markers,
# BOARD.md wants them sized in tiles: docs/vision.md, "Known limits"), draughts-028 (the
# camera so close that two markers are cut by the frame's edge).
LOST = {"quinque": 1, "draughts": 1}
# Hand frames read as a position: morris-026 (a brown hand over the wooden rim, which a
# single picture's hand detector misses; a running camera compares with the bare rim).
HAND_MISREAD = {"morris": 1}


def _check(tally: SetTally, slack: float = 0.0) -> None:
    assert tally.frames > 0
    assert tally.hand_misread <= HAND_MISREAD.get(tally.game, 0), tally.errors
    assert tally.lost <= LOST.get(tally.game, 0), tally.errors  # found in every clean frame
    assert 1 - tally.wrong / max(tally.cells, 1) >= FLOORS[tally.game] - slack, tally.errors


def test_every_game_has_frames_with_their_truth() -> None:
    for game in GAMES:
        frames = sorted(DATA.glob(f"{game}-*.jpg"))
        assert frames, game
        for frame in frames:
            truth = json.loads(frame.with_suffix(".json").read_text(encoding="utf-8"))
            assert truth["game"] == game and isinstance(truth["hand"], bool)
            assert truth["cells"] or game == "quinque"


@pytest.mark.parametrize("game", GAMES)
def test_the_first_frames_of_each_game(game: str) -> None:
    _check(score_set(DATA, [game], first=4)[game], slack=0.03)  # few frames: a wider margin


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_whole_set(game: str) -> None:
    _check(score_set(DATA, [game])[game])


def _read(name: str) -> tuple[dict[str, str], dict[str, str]]:
    """(truth as the camera should see it, reading) of one committed frame."""
    meta = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    image = read_image(DATA / f"{name}.jpg")
    reading = Recogniser(meta["game"], fov=float(meta["fov"])).read(image)
    return as_seen(meta["game"], meta["cells"]), dict(reading.cells)


def test_draughts_men_on_a_veiled_square_are_seen() -> None:
    # A lamp's reflection on the varnish pales the right of the board: black men there
    # read lighter than their squares' bare corners, white men barely lighter. Both take
    # the wood's colour away, and a white man is as white as paper.
    truth, read = _read("draughts-008")
    for cell in ("h2", "h4", "e5", "f2", "c5"):
        assert read[cell] == truth[cell], cell


def test_pale_tesserae_under_a_lamps_reflection_are_read_by_their_hue() -> None:
    # A point light's reflection veils the right of tessere-011: yellow, red and blue
    # tesserae read pale (yellow close to the bare board's colour). Their hue stays.
    truth, read = _read("tessere-011")
    for cell in ("b2", "c1", "c3", "d1", "d4"):
        assert read[cell] == truth[cell], cell


def test_a_glossy_block_mirroring_the_light_is_still_a_block() -> None:
    truth, read = _read("tessere-015")
    assert truth["d5"] == "K" and read["d5"] == "K"


def test_quinque_small_backpacks_are_seen_and_a_smooth_glare_is_no_tile() -> None:
    # Far away, a backpack covers little of a skydiver's middle; its most colourful pixels
    # still show red. In quinque-014 a lamp's reflection at the mat's edge is as light as
    # a tile, but smooth: no prints on it, so no tile.
    for name, cells in (("quinque-013", ("1,1", "1,2")), ("quinque-014", ())):
        meta = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
        image = read_image(DATA / f"{name}.jpg")
        reading = Recogniser("quinque", fov=float(meta["fov"])).read(image)
        read = aligned(meta["cells"], reading.cells)
        assert set(read) == set(meta["cells"]), name  # no phantom tile, none missed
        for cell in cells:
            assert read[cell] == meta["cells"][cell] == "R", cell


def test_quixo_at_a_steep_tilt_is_read_on_the_cube_tops() -> None:
    # Tilted 26 degrees, the cubes' light sides show and a grid of cube tops half a cube
    # off scores nearly as well as the right one; the camera model keeps it in place.
    truth, read = _read("quixo-015")
    assert read == truth


def test_pale_sequence_chips_are_read_by_their_hue() -> None:
    # sequence-kids-010: chips under a lamp's reflection read light and pale, too far
    # from any chip colour; their middle is still uniform and of a chip's hue.
    truth, read = _read("sequence-kids-010")
    for cell in ("b2", "d2", "e5"):
        assert read[cell] == truth[cell], cell
