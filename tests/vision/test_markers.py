"""The printable marker sheet: true size in millimetres, and cv2.aruco reads what it prints."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from tavola.vision.markers import (
    MODULES,
    corner_label,
    marker_bits,
    marker_sheet_pdf,
    marker_sheet_svg,
    write_marker_sheet,
)

SVG = "{http://www.w3.org/2000/svg}"


def _rasterise(svg: str, px_per_mm: float) -> tuple[np.ndarray, ET.Element]:
    """Draw the sheet's filled rects (all the sheet's ink except text) at ``px_per_mm``."""
    root = ET.fromstring(svg)
    _, _, w, h = (float(v) for v in root.attrib["viewBox"].split())
    image = np.full((round(h * px_per_mm), round(w * px_per_mm)), 255, np.uint8)
    for rect in root.iter(f"{SVG}rect"):
        if rect.attrib.get("fill") != "#000000":
            continue
        x, y = float(rect.attrib["x"]), float(rect.attrib["y"])
        rw, rh = float(rect.attrib["width"]), float(rect.attrib["height"])
        x0, y0 = round(x * px_per_mm), round(y * px_per_mm)
        x1, y1 = round((x + rw) * px_per_mm), round((y + rh) * px_per_mm)
        image[y0:y1, x0:x1] = 0
    return image, root


@pytest.mark.parametrize("cell_mm", [25.0, 40.0, 60.0])
def test_the_sheet_prints_the_four_markers_at_true_size(cell_mm: float) -> None:
    svg = marker_sheet_svg(cell_mm=cell_mm)
    px_per_mm = 6.0
    image, root = _rasterise(svg, px_per_mm)
    assert root.attrib["width"].endswith("mm") and root.attrib["height"].endswith("mm")
    assert float(root.attrib["width"][:-2]) == float(root.attrib["viewBox"].split()[2])
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for quad in corners:
        side_px = np.linalg.norm(quad[0][1] - quad[0][0])
        assert side_px / px_per_mm == pytest.approx(0.8 * cell_mm, abs=0.5)


def test_the_scale_bar_is_50_mm_and_labels_name_the_corners() -> None:
    svg = marker_sheet_svg(cell_mm=40.0, game="draughts")
    root = ET.fromstring(svg)
    bar = next(g for g in root.iter(f"{SVG}g") if g.attrib.get("id") == "scale-bar")
    widths = [float(r.attrib["width"]) for r in bar.iter(f"{SVG}rect")]
    assert max(widths) == 50.0
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "id 0: top left, beyond a8" in text and "id 3: bottom left, beyond a1" in text
    assert "32 mm" in text  # the marker side at 40 mm cells
    assert re.search(r"10 mm from the playing area", text)  # the quiet zone, 0.25 cell


def test_the_quinque_sheet_sizes_its_markers_in_tiles() -> None:
    """Quinque's cell is a skydiver; its markers are 0.8 tile, so 32 mm at 20 mm skydivers."""
    svg = marker_sheet_svg(cell_mm=20.0, game="quinque")
    image, _ = _rasterise(svg, 6.0)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for quad in corners:
        assert np.linalg.norm(quad[0][1] - quad[0][0]) / 6.0 == pytest.approx(32.0, abs=0.5)
    root = ET.fromstring(svg)
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "skydiver 20 mm, tile 40 mm" in text and "10 mm from the playing area" in text
    assert "a square of 8 x 8 tiles (320 mm a side)" in text


def test_marker_bits_are_opencvs() -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for marker_id in range(4):
        bits = marker_bits(marker_id)
        assert bits.shape == (MODULES, MODULES)
        assert not bits[0].any() and not bits[-1].any() and not bits[:, 0].any()
        inner = cv2.aruco.Dictionary.getBitsFromByteList(dictionary.bytesList[marker_id][None], 4)
        assert np.array_equal(bits[1:-1, 1:-1], inner)
    with pytest.raises(ValueError, match="marker id 50"):
        marker_bits(50)


def test_write_marker_sheet(tmp_path: Path) -> None:
    out = write_marker_sheet(tmp_path / "markers.svg", cell_mm=40)
    assert out.read_text().startswith("<?xml")
    with pytest.raises(ValueError, match=r"name it \*\.svg or \*\.pdf"):
        write_marker_sheet(tmp_path / "markers.png")
    with pytest.raises(ValueError, match=r"cell size 1\.0 mm"):
        marker_sheet_svg(cell_mm=1.0)
    assert corner_label(2, "sequence-kids") == "bottom right, beyond f1"
    assert corner_label(1) == "top right corner of the playing area"


def test_the_pdf_holds_the_same_markers_at_true_size(tmp_path: Path) -> None:
    pdf = write_marker_sheet(tmp_path / "markers.pdf", cell_mm=40).read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    # the cross-reference table points at every object
    xref = int(pdf.rsplit(b"startxref", 1)[1].split()[0])
    entries = pdf[xref:].split(b"\n")[3:8]
    for number, entry in enumerate(entries, start=1):
        assert pdf[int(entry[:10]) :].startswith(b"%d 0 obj" % number)
    media = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert media is not None and float(media[1]) == pytest.approx(210 * 72 / 25.4, abs=0.01)
    # rasterise the filled rectangles (in mm, y down after the page's cm) and detect them
    px_per_mm = 6.0
    image = np.full((round(297 * px_per_mm), round(210 * px_per_mm)), 255, np.uint8)
    for m in re.finditer(rb"0 g ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", pdf):
        x, y, w, h = (float(v) * px_per_mm for v in m.groups())
        image[round(y) : round(y + h), round(x) : round(x + w)] = 0
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    _, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    assert marker_sheet_pdf(40.0) == marker_sheet_pdf(40.0)
