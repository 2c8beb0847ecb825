"""Pieces under a veil: a lamp's reflection on glossy tops adds white light to them.

The cells are painted synthetically, top-down: each tessera (or chip) is its nominal colour
mixed in linear light with white, as a specular reflection mixes them, then read by the
game's reader. The 3D set (tests/vision/data3d) has such veils where a lamp is mirrored.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from tavola.vision.appearance import CHIP, TESSERA, board_image, canvas_origin
from tavola.vision.chips import ChipReader
from tavola.vision.light import lab, shade_free
from tavola.vision.tesserae import TessereReader

BOARD = (175, 212, 232)  # tessere's printed area (vision.appearance)
WHITE = (235.0, 235.0, 235.0)  # white light after white balance: paper


def veiled(bgr: tuple[int, int, int], veil: float) -> npt.NDArray[np.float32]:
    """``bgr`` with a share ``veil`` of white light mixed in (linear light), as BGR 0-255."""
    c = np.array(bgr, np.float64) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    white = (np.array(WHITE) / 255) ** 2.2
    mixed = (1 - veil) * linear + veil * white
    out = np.where(mixed <= 0.0031308, 12.92 * mixed, 1.055 * mixed ** (1 / 2.4) - 0.055)
    return (np.clip(out, 0, 1) * 255).astype(np.float32)


def tile_block(reader: TessereReader, quadrants: list[tuple[int, int, int]],
               veil: float, board: tuple[int, int, int] = BOARD) -> npt.NDArray[np.float32]:
    """One cell: the board around a tile of four tesserae (a b / d c, clockwise), veiled."""
    b = reader.blocks
    cell = np.empty((b.px, b.px, 3), np.float32)
    cell[:] = veiled(board, veil)
    inside = (np.abs(b.u) < 0.42) & (np.abs(b.v) < 0.42)
    for (su, sv), colour in zip(((-1, -1), (1, -1), (1, 1), (-1, 1)), quadrants, strict=True):
        cell[inside & (np.sign(b.u) == su) & (np.sign(b.v) == sv)] = veiled(colour, veil)
    return cell


def read_tessere(cells: list[npt.NDArray[np.float32]], board: tuple[int, int, int] = BOARD
                 ) -> tuple[list[str], list[float]]:
    reader = TessereReader()
    blocks = np.stack([reader.blocks.cut(lab(c), reader.geometry, reader.cells[:1])[0]
                       for c in _as_area(reader, cells, board)])
    tokens, confidence = reader.decide([shade_free(blocks)])
    return tokens, [float(p) for p in confidence]


def _as_area(reader: TessereReader, cells: list[npt.NDArray[np.float32]],
             board: tuple[int, int, int]) -> list[npt.NDArray[np.float32]]:
    """Each cell as a whole (5x5) area image with the cell at a1, so that Blocks.cut
    takes it from where the reader expects a1."""
    g, px = reader.geometry, reader.blocks.px
    out = []
    for cell in cells:
        area = np.empty((g.ranks * px, g.files * px, 3), np.float32)
        area[:] = veiled(board, 0.0)
        area[(g.ranks - 1) * px:, :px] = cell
        out.append(area)
    return out


R, Y, G, B, K = (TESSERA[c] for c in "RYGBK")


def test_a_veiled_tile_of_red_and_blue_is_read_not_taken_for_the_board() -> None:
    # Lightened to L 85-90, red and blue keep a chroma of 8-12: too little for a tessera
    # on the bare board's scale, but of a hue the yellowish board never has.
    tokens, confidence = read_tessere([tile_block(TessereReader(), [R, B, B, R], 0.6)])
    assert tokens == ["RB"]
    assert confidence[0] < 0.5  # a guess under a veil: the cell is doubted


def test_a_veiled_yellow_beside_other_tesserae_is_yellow() -> None:
    tokens, _ = read_tessere([tile_block(TessereReader(), [Y, G, G, Y], 0.55)])
    assert tokens == ["YG"]


def test_yellow_alone_proves_a_checker_only_if_clearly_yellower_than_the_print() -> None:
    # Under a warm light the print reads nearly as yellow as a pale yellow tessera: two
    # quadrants a little more yellow than the others are the print, not a checker.
    print_ = (180, 230, 232)  # chroma 26, as the board around
    tokens, _ = read_tessere([tile_block(TessereReader(), [(170, 228, 234)] * 2 + [print_] * 2,
                                         0.0)], board=print_)
    assert tokens == [""]
    tokens, _ = read_tessere([tile_block(TessereReader(), [(150, 232, 232)] * 2 + [print_] * 2,
                                         0.0)], board=print_)
    assert tokens == ["Y"]  # chroma 42: a yellow checker, half of it veiled like the print


def test_a_veiled_block_is_a_block_and_the_veiled_board_is_empty() -> None:
    reader = TessereReader()
    block = tile_block(reader, [K, K, K, K], 0.45)
    board = tile_block(reader, [BOARD, BOARD, BOARD, BOARD], 0.45)
    tokens, _ = read_tessere([block, board])
    assert tokens == ["K", ""]


def test_a_checker_mostly_blown_out_is_read_by_what_shows() -> None:
    white = (255, 255, 255)  # the sensor's ceiling
    tokens, confidence = read_tessere([tile_block(TessereReader(), [R, white, white, white],
                                                  0.3)])
    assert tokens == ["R"]
    assert confidence[0] < 0.5  # the blown tesserae may hide another colour


def test_one_tessera_beside_blown_and_grey_quadrants_is_a_checker() -> None:
    # The bare board never shows a tessera's colour: red in one or two quadrants, the
    # rest blown out or veiled to a neutral grey, is a checker (doubted: more may hide).
    grey, white = (228, 228, 228), (255, 255, 255)
    reader = TessereReader()
    tokens, confidence = read_tessere([tile_block(reader, [R, grey, grey, white], 0.3),
                                       tile_block(reader, [R, R, grey, white], 0.3)])
    assert tokens == ["R", "R"]
    assert max(confidence) < 0.5
    tokens, _ = read_tessere([tile_block(reader, [grey, grey, grey, white], 0.3)])
    assert tokens == [""]  # no colour: the bare board under a veil


def test_yellow_veiled_to_the_prints_colour_beside_one_tessera_is_yellow() -> None:
    # Veiled to L 89 a yellow tessera keeps the chroma of the board's print (19), but
    # inside a checker (a blue tessera proves one) there is no print.
    tokens, confidence = read_tessere([tile_block(TessereReader(), [B, Y, Y, Y], 0.6)])
    assert tokens == ["YB"]
    assert confidence[0] < 0.5


def test_three_colours_seen_are_the_four_colour_checker() -> None:
    # No checker has three colours (RULES.md): the fourth is blown out or misread.
    white = (255, 255, 255)
    reader = TessereReader()
    tokens, confidence = read_tessere([tile_block(reader, [R, Y, G, white], 0.0),
                                       tile_block(reader, [R, Y, G, G], 0.0)])
    assert tokens == ["RYGB", "RYGB"]
    assert max(confidence) < 0.5  # a colour is missing: doubted


def test_a_colour_read_twice_is_no_four_colour_checker() -> None:
    # The four-colour checker has one tessera of each colour: blue read surely in two
    # quadrants, the faint green of the fourth (a glare's tint) is the misread.
    faint = veiled(G, 0.5)
    tokens, confidence = read_tessere([tile_block(TessereReader(), [R, B, B, (
        int(faint[0]), int(faint[1]), int(faint[2]))], 0.0)])
    assert tokens == ["RB"]
    assert confidence[0] < 0.5


def test_the_bare_board_whitened_by_a_reflection_is_surely_empty() -> None:
    # Under a warm light the print is yellower than the nominal one; a lamp's reflection
    # whitens it from there towards white. Bare cells from unveiled to veiled near white
    # lie on that line: empty, and surely so.
    warm = (150, 208, 240)
    reader = TessereReader()
    tokens, confidence = read_tessere(
        [tile_block(reader, [warm] * 4, veil, board=warm) for veil in (0.0, 0.3, 0.6, 0.8)],
        board=warm)
    assert tokens == ["", "", "", ""]
    assert min(confidence) > 0.5


def test_the_tint_of_a_blown_out_spot_is_no_tessera() -> None:
    # Clipped white tinted greenish by the white balance's gains (chroma 7.6): a pale
    # green would look so, but it is the colour of the sensor's ceiling in this picture.
    tinted = (245, 255, 240)
    reader = TessereReader()
    tokens, _ = read_tessere([tile_block(reader, [tinted] * 4, 0.0)] * 3)
    assert tokens == ["", "", ""]


def test_unveiled_tiles_still_read_surely() -> None:
    reader = TessereReader()
    tokens, confidence = read_tessere([tile_block(reader, [R, Y, G, B], 0.0),
                                       tile_block(reader, [K, K, K, K], 0.0)])
    assert tokens == ["RYGB", "K"]
    assert min(confidence) > 0.5


def chip_area(discs: dict[str, tuple[float, float, float]]) -> npt.NDArray[np.float32]:
    """The sequence-kids playing area from straight above (its busy pictures), with a disc
    of 0.7 cell in each of ``discs`` (cell -> BGR)."""
    reader = ChipReader()
    g, px = reader.geometry, reader.px
    x0, y0, _, _ = canvas_origin(g)
    board = board_image("sequence-kids", px).astype(np.float32)
    area = board[round(-y0 * px):round((g.ranks - y0) * px),
                 round(-x0 * px):round((g.files - x0) * px)].copy()
    for cell, colour in discs.items():
        cx, cy = g.cell_center(cell)
        cv2.circle(area, (round(cx * px), round(cy * px)), round(0.35 * px), colour, -1)
    return area


def read_chips(area: npt.NDArray[np.float32]) -> dict[str, str]:
    reader = ChipReader()
    tokens, _ = reader.decide([reader.blocks.cut(lab(area), reader.geometry, reader.cells)])
    return {c: t for c, t in zip(reader.cells, tokens, strict=True) if t}


def test_a_chip_paled_by_a_veil_is_read_by_its_hue() -> None:
    # A red chip under a strong veil: L 82, chroma 10 (far too pale for a chip colour).
    pale_red = tuple(float(v) for v in veiled(CHIP["R"], 0.68))
    assert read_chips(chip_area({"c4": pale_red})) == {"c4": "R"}  # type: ignore[dict-item]


def test_a_spot_blown_to_the_sensors_tinted_ceiling_is_no_chip() -> None:
    # Clipped white, tinted by the white balance's gains (a yellowish 10 of chroma): a chip
    # blown out whole is not read (its colour is gone), nor is a bare picture blown out.
    tinted = (230.0, 250.0, 255.0)
    assert np.hypot(*lab(np.array([[tinted]], np.float32))[0, 0, 1:]) > 8.0
    area = chip_area({"c4": tinted, "d4": tinted, "c5": tinted, "d5": tinted})
    assert read_chips(area) == {}


def test_a_picture_of_one_hue_in_two_lightnesses_is_no_chip() -> None:
    # A navy and a sky-blue blob side by side fill the middle: one hue, one chroma (what
    # the colour share compares), but 47 apart in lightness; a chip is one colour.
    area = chip_area({"c4": (235.0, 190.0, 140.0)})
    reader = ChipReader()
    cx, cy = reader.geometry.cell_center("c4")
    px = reader.px
    cv2.ellipse(area, (round(cx * px), round(cy * px)), (round(0.4 * px),) * 2, 0, 90, 270,
                (110.0, 70.0, 10.0), -1)
    assert read_chips(area) == {}
