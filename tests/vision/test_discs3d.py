"""Morris and draughts discs in the physically rendered set (tests/vision/data3d): the cues
that hold where the disc's step from its bare cell shrinks (vision.discs.DiscReader)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import numpy.typing as npt

from tavola.vision.classify import Recogniser
from tavola.vision.discs import DraughtsReader, MorrisReader
from tavola.vision.render import Conditions, render
from tavola.vision.source import read_image
from tests.vision.test_data3d import DATA, read_frame


def test_white_men_on_a_glare_paled_morris_board_are_seen_by_their_grey() -> None:
    # A point light pales the middle of morris-030's light board to nearly the men's
    # white; the board keeps its yellow there, the men are grey.
    truth, read = read_frame("morris-030")
    for cell in ("b2", "d2", "e3", "e4"):
        assert read[cell] == truth[cell] == "W", cell


def test_a_glossy_black_man_is_black_however_it_mirrors() -> None:
    # morris-016 f4 mirrors the lamp: lighter than a black man, but not white; morris-027
    # a7 stands on a blown-out spot, its middle tinted but far darker than the board.
    for name, cell in (("morris-016", "f4"), ("morris-027", "a7")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "B", (name, cell)


def test_black_men_mirroring_a_bluish_room_on_dark_squares_are_seen() -> None:
    # Glossy black tops mirror the room: lighter than their warm dark squares or barely
    # darker, and bluish; the wood's hue is gone from them all the same.
    for name, cells in (("draughts-004", ("e5", "h4")), ("draughts-006", ("b8",)),
                        ("draughts-014", ("h8",)), ("draughts-030", ("d4",))):
        truth, read = read_frame(name)
        for cell in cells:
            assert read[cell] == truth[cell] == "B", (name, cell)


def test_the_edge_of_a_lamps_reflection_is_no_white_man() -> None:
    # A lamp's reflection on the varnish: a blob as white as a man, whose edge crosses
    # the middle of morris-011 e4 and draughts-017 c1 (part blown out, part wood).
    for name, cell in (("morris-011", "e4"), ("draughts-017", "c1")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "", (name, cell)


def test_white_men_on_a_paled_morris_board_with_little_yellow_left() -> None:
    for name, cell in (("morris-023", "g1"), ("morris-029", "a1")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "W", (name, cell)


def test_white_men_on_dark_squares_paled_by_a_reflection() -> None:
    # A lamp's reflection pales the dark squares to nearly white and takes their colour;
    # the white men on them are a little lighter still.
    for name, cells in (("draughts-005", ("h6",)), ("draughts-026", ("d8", "f8"))):
        truth, read = read_frame(name)
        for cell in cells:
            assert read[cell] == truth[cell] == "W", (name, cell)


def test_black_men_bluer_than_paper_are_black_though_lighter_than_their_square() -> None:
    # Glossy black tops mirroring the bluish room read far lighter than their dark
    # squares, as a white man would; a white man under the light the paper balances is
    # neutral or cream, never bluish.
    for name, cell in (("draughts-028", "c5"), ("draughts-057", "d8"), ("draughts-061", "e1")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "B", (name, cell)


def test_a_mans_outline_shows_where_a_veil_took_the_boards_colour() -> None:
    # A lamp's reflection veils the board to nearly white, without colour: the men's
    # middles step little from their bare corners, but their rims step all around.
    for name, cell, token in (("morris-052", "f6", "B"), ("morris-048", "b6", "B"),
                              ("morris-023", "g4", "W"), ("draughts-030", "a1", "B"),
                              ("draughts-044", "e7", "B")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == token, (name, cell)


def test_a_glossy_black_man_half_in_a_highlight_is_black_and_no_lamps_edge() -> None:
    # The lamp's highlight blows out part of a glossy black top and fades to grey across
    # it: a reflection's edge would fall to the wood, but the man's outline surrounds it,
    # and a white top would be white all over.
    for name, cell in (("morris-055", "d7"), ("morris-065", "d3")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "B", (name, cell)


def test_a_man_as_white_as_paper_all_over_is_white_on_a_warm_square() -> None:
    # draughts-060 e3: on a strongly yellow dark square the step from the square fits
    # a black man's prototype better, but the whole top is paper-white and neutral.
    truth, read = read_frame("draughts-060")
    assert read["e3"] == truth["e3"] == "W"


def _board_with(men: dict[str, tuple[float, float]], blob: tuple[float, float, float] | None
                ) -> tuple[MorrisReader, list[npt.NDArray[np.float32]]]:
    """A white-balanced top-down morris area (BGR): yellow wood; white men at the
    given cells, each lit from dark to light across its top (the grey levels of its left and of its
    blown-out right);
    and a blown-out lamp's blob (x, y, radius in cells) on the varnish."""
    reader = MorrisReader()
    px = reader.px
    size = 7 * px
    y, x = (np.mgrid[0:size, 0:size] + 0.5) / px
    area = np.empty((size, size, 3), np.float32)
    area[:] = (70.0, 140.0, 180.0)  # BGR: wood in a dim light (L 62)
    for cell, (dark, light) in men.items():
        f, r = reader.geometry.position(cell)
        cx, cy = f + 0.5, 7 - r - 0.5
        disc = np.hypot(x - cx, y - cy) < 0.39
        level = dark + (light - dark) * np.clip((x - cx + 0.3) / 0.4, 0, 1)
        area[disc] = level[disc][:, None]
    if blob is not None:
        bx, by, radius = blob
        area[np.hypot(x - bx, y - by) < radius] = 255.0
    return reader, [area]


def test_a_highlight_across_a_white_mans_top_is_no_lamps_blob() -> None:
    # A glossy white top lit from one side fades from blown-out white to the man's own
    # grey; only a blob whose edge falls to the bare wood cuts a middle.
    reader, tops = _board_with({"a1": (170.0, 255.0)}, blob=(3.5, 3.5, 1.0))
    cells, _ = reader.read(tops + tops)  # the men's plane and the board's (no lines)
    assert cells["a1"] == "W"
    assert cells["e4"] == "" and cells["c4"] == ""  # the blob's edge crosses their middles
    assert cells["d1"] == ""


def _morris_area(colour: tuple[float, float, float]) -> tuple[
        MorrisReader, npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float32]]:
    """A morris reader, the x and y (in cells) of each pixel of its top-down area, and the
    area filled with ``colour`` (BGR)."""
    reader = MorrisReader()
    size = 7 * reader.px
    y, x = (np.mgrid[0:size, 0:size] + 0.5) / reader.px
    area = np.empty((size, size, 3), np.float32)
    area[:] = colour
    return reader, x, y, area


def test_men_on_a_board_veiled_to_white_are_read_by_their_outline() -> None:
    # A veil of reflected light leaves the board light and colourless (L 88): a glossy
    # black man mirroring a bluish room (L 80, b -12) steps little from it, a white man
    # (L 97) too; each disc steps all around its rim. A soft shadow on a bare point
    # darkens one side of it only.
    reader, x, y, area = _morris_area((214.0, 218.0, 222.0))
    for cell, colour in (("a1", (222.0, 200.0, 185.0)), ("d2", (248.0, 248.0, 248.0))):
        f, r = reader.geometry.position(cell)
        disc = np.hypot(x - (f + 0.5), y - (7 - r - 0.5)) < 0.39
        area[disc] = colour
    f, r = reader.geometry.position("g7")
    shade = np.clip((x - (f + 0.3)) / 0.6, 0, 1)[..., None]  # darker to the right
    area *= 1 - 0.25 * shade * (np.abs(y - (7 - r - 0.5)) < 0.5)[..., None]
    cells, _ = reader.read([area, area])  # the men's plane and the board's (no lines)
    assert cells["a1"] == "B" and cells["d2"] == "W"
    assert cells["g7"] == "" and cells["d1"] == ""


def test_a_man_hides_his_points_lines_up_to_his_rim() -> None:
    # A lamp's reflection veils the middle of morris-041 (and parts of 031, 048, 052) to
    # white: white men there are barely lighter than the board and have no colour to take
    # from it. The lines leave each point in two to four directions: a man hides them as
    # far as his rim, beyond which they run on; a bare point under the veil still shows
    # them, paler, in its middle.
    truth, read = read_frame("morris-041")
    assert read == truth
    for name, cells in (("morris-031", ("d2",)), ("morris-052", ("c5",)),
                        ("morris-048", ("b4", "d7", "d3", "e3"))):
        truth, read = read_frame(name)
        for cell in cells:
            assert read[cell] == truth[cell], (name, cell)


def test_lines_seen_through_a_veil_tell_a_man_from_a_bare_point() -> None:
    # A veil of light (60 % white) over a morris board: the lines keep 40 % of their step
    # from the wood. A white man on d2 hides his point's lines; on f2 a lamp's blob, as
    # white as a man by the colour cues, lets them show through (16 % of their step).
    reader, x, y, area = _morris_area((70.0, 140.0, 180.0))
    segments = [((0.5 + k, 0.5 + k), (6.5 - k, 0.5 + k)) for k in range(3)]
    segments += [((0.5 + k, 6.5 - k), (6.5 - k, 6.5 - k)) for k in range(3)]
    segments += [((0.5 + k, 0.5 + k), (0.5 + k, 6.5 - k)) for k in range(3)]
    segments += [((6.5 - k, 0.5 + k), (6.5 - k, 6.5 - k)) for k in range(3)]
    segments += [((3.5, 0.5), (3.5, 2.5)), ((3.5, 4.5), (3.5, 6.5)),
                 ((0.5, 3.5), (2.5, 3.5)), ((4.5, 3.5), (6.5, 3.5))]
    for (x0, y0), (x1, y1) in segments:
        on = ((np.abs(x - x0) < 0.03) & (y >= y0 - 0.03) & (y <= y1 + 0.03) if x0 == x1
              else (np.abs(y - y0) < 0.03) & (x >= x0 - 0.03) & (x <= x1 + 0.03))
        area[on] = (15.0, 15.0, 15.0)
    veiled = 0.4 * area + 0.6 * 245.0
    d2, f2 = (reader.geometry.position(c) for c in ("d2", "f2"))
    blob = np.hypot(x - (f2[0] + 0.5), y - (7 - f2[1] - 0.5)) < 0.45
    veiled[blob] = 0.4 * veiled[blob] + 0.6 * 255.0
    veiled[np.hypot(x - (d2[0] + 0.5), y - (7 - d2[1] - 0.5)) < 0.39] = 250.0
    assert reader._colours(reader.cut([veiled])[0])[0][reader.cells.index("f2")] == "W"
    cells, _ = reader.read([veiled, veiled])  # the men's plane and the board's
    assert cells["d2"] == "W" and cells["f2"] == ""
    assert all(cells[c] == "" for c in reader.cells if c != "d2")


def test_a_white_man_in_a_deep_shadow_found_by_his_lines_is_white() -> None:
    # The flat renderer's hard conditions: a soft shadow darkens a white man on f4 and the
    # board around him to L 51 and 39; the colour cues see no man, the lines show one. He
    # is lighter than his shaded cell, not bluish, with no highlight: white, not black.
    cells = {"a1": "B", "a7": "B", "b4": "W", "c3": "W", "c4": "W", "c5": "W", "d1": "B",
             "d2": "B", "d5": "B", "d6": "B", "d7": "W", "e5": "W", "f2": "B", "f4": "W",
             "g1": "W", "g4": "B", "g7": "W"}
    conditions = Conditions(tilt=17.56, turn=5.81, scale=0.635, shift=(0.141, -0.085),
                            kelvin=4329.0, brightness=0.744, gradient=0.456, shadow=0.499,
                            noise=3.5, blur=1.31, jpeg=57, seed=1465585974, azimuth=-60.86)
    reading = Recogniser("morris").read(render("morris", cells, conditions).image)
    assert reading.cells["f4"] == "W"


def _veiled_draughts(disc: tuple[float, float, float] | None,
                     half: tuple[float, float, float] | None = None) -> dict[str, str]:
    """A draughts area veiled by a lamp's reflection to a light, nearly colourless wood
    (Lab 86, 1, 0), read by a :class:`DraughtsReader`: a disc of colour ``disc`` (BGR) on
    d4, or the right half of d4 (and of the board) in colour ``half``; camera blur."""
    reader = DraughtsReader()
    size = 8 * reader.px
    y, x = (np.mgrid[0:size, 0:size] + 0.5) / reader.px
    area = np.empty((size, size, 3), np.float32)
    area[:] = (215.0, 214.0, 217.0)
    f, r = reader.geometry.position("d4")
    if disc is not None:
        area[np.hypot(x - (f + 0.5), y - (8 - r - 0.5)) < 0.39] = disc
    if half is not None:
        area[x > f + 0.5] = half
    blurred = np.asarray(cv2.GaussianBlur(area, (0, 0), 1.5), np.float32)
    cells, _ = reader.read([blurred, blurred])  # the men's plane and the kings'
    return cells


def test_a_glossy_black_man_bluer_than_veiled_wood_all_around_is_black() -> None:
    # draughts-038 e1, 065 d8, 080 a5 and f6: a lamp's veil pales the dark squares to
    # L 80-88 with little colour; a glossy black top there mirrors the bluish room (b -5
    # to -10), as light as the wood and too soft-edged for the outline cue. It is bluer
    # than paper and than the wood just outside its rim all around.
    bluish = (220.0, 210.0, 203.0)  # Lab 84, -0.5, -5.5
    cells = _veiled_draughts(bluish)
    assert cells["d4"] == "B" and sum(map(bool, cells.values())) == 1
    # Bluish light on bare wood (the sky mirrored by the varnish over half of the board)
    # steps at its edge in some directions only: no man.
    assert not any(_veiled_draughts(None, half=bluish).values())
    for name, cell in (("draughts-065", "d8"), ("draughts-080", "a5")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "B", (name, cell)


def _doubted(name: str) -> frozenset[str]:
    """The cells a single picture of one committed frame reads with doubt."""
    meta = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    image = read_image(DATA / f"{name}.jpg")
    return Recogniser(meta["game"], fov=float(meta["fov"])).read(image).uncertain


def test_black_men_under_a_veil_that_kept_the_squares_colour_are_outlined() -> None:
    # draughts-105: a large lamp's reflection pales the left of the board; the dark squares
    # there (L 89) keep some of their colour, and the glossy black men mirror the veil
    # (L 73-79, warm): too little step for the prototypes, too much colour kept for the
    # grey cue. Their rims step from the wood all around, and they are darker than it.
    truth, read = read_frame("draughts-105")
    for cell in ("b4", "b8", "d6"):
        assert read[cell] == truth[cell] == "B", cell


def test_no_man_stands_where_no_rim_steps_from_a_dark_square() -> None:
    # A lamp's blob (or a shadow's edge) on a bare dark square lightens or darkens its
    # middle like a man, but no rim steps from the wood around it.
    for name, cell in (("draughts-090", "e5"), ("draughts-131", "c5"),
                       ("draughts-126", "c5"), ("draughts-106", "f4")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "", (name, cell)


def test_a_glossy_black_top_whitened_by_the_lamp_is_doubted_not_trusted() -> None:
    # Black men whose tops the lamp whitens read white. Where that white is neither as
    # light as paper nor cream (draughts-081 f4, -115 e5: the highlight fading across the
    # top, L 75-79, neutral to bluish) or is the lamp's neutral colour on a veiled square
    # (draughts-126 b4, -137 e3), the reading is doubted.
    for name, cell in (("draughts-081", "f4"), ("draughts-115", "e5"),
                       ("draughts-126", "b4"), ("draughts-137", "e3")):
        assert cell in _doubted(name), (name, cell)
    # ... while white men showing their cream are trusted.
    truth, read = read_frame("draughts-137")
    cream = ("b2", "b6", "c7", "g7")
    assert all(read[c] == truth[c] == "W" for c in cream)
    assert not _doubted("draughts-137") & set(cream)


def test_one_line_running_through_a_blown_point_tells_it_is_bare() -> None:
    # A lamp's blob pales morris-057 f2, -115 d5 and -132 c3 to a man's white or grey and
    # hides all their arms but one; that one runs through the middle and on beyond where a
    # man's rim would be: no man hides it.
    for name, cell in (("morris-057", "f2"), ("morris-115", "d5"), ("morris-132", "c3")):
        truth, read = read_frame(name)
        assert read[cell] == truth[cell] == "", (name, cell)
