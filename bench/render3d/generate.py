"""The physically rendered test set: 3D scenes of every game, rendered by Blender Cycles.

Run: ``.venv/bin/python bench/render3d/generate.py OUT_DIR [--games G ...] [--frames N]
[--start K] [--blender-python .venv-render/bin/python]``.

Each frame ``<game>-<k>.jpg`` (JPEG quality 85) gets ``<game>-<k>.json`` beside it: the
true position (``cells``, the identity view of RULES.md; draughts kings as ``WK``/``BK``),
``hand`` (an arm over the board), for Quinque ``origin`` (where the game's coordinates lie
on the table area: skydiver (x, y) covers the unit square from (ox + x, oy - y - 1), so the
lattice's phase is the origin modulo 2) and the scene's parameters. Frames are deterministic in
(game, k): the set regenerates exactly (up to Cycles' own noise).

What is physical here, and what is not:

- 3D pieces with their real heights: draughts and morris discs with bevelled rims (a king
  is two men stacked, no printed crown), Quixo cubes with symbols on their sides too,
  tessere tiles, Sequence chips, Quinque tiles with backpacks standing on them; their top
  faces carry the prints of vision.appearance (the same artwork the flat renderer draws).
- The board is a box whose top is printed with vision.appearance's board image (markers
  included), on a table of random colour.
- Perspective from a camera 0.4-1.2 m away (as far as the board fits the frame), tilted
  0-30 degrees from any side; a 62-degree horizontal field of view.
- One area or point light, 2700-6500 K, 0.7-2 m up and off to a side (soft shadows on
  neighbouring cells, glossy highlights on the pieces), and a dim ambient sky.
- The camera's own processing in post: auto exposure, an auto white balance that removes
  only part of the light's colour, barrel lens distortion, sensor noise, JPEG.
- A hand and arm over part of the board in about one frame in six.

``blender_scene.py`` (run with Blender's ``bpy``, in its own venv) does the rendering;
this script writes the scene descriptions and the textures and finishes the frames.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tavola.vision import appearance as look
from tavola.vision.geometry import geometry_for
from tavola.vision.render import GAMES, light_gain, random_position
from tavola.vision.render import _quinque_origin as quinque_origin

HERE = Path(__file__).resolve().parent
WIDTH, HEIGHT, FOV = 960, 720, 62.0
SAMPLES = 5
JPEG_QUALITY = 85
PPC = 60  # texture pixels per cell
# Cell size in metres per game (quinque: a skydiver, half a tile).
CELL_M = {
    "morris": 0.034,
    "draughts": 0.033,
    "quixo": 0.036,
    "tessere": 0.038,
    "sequence-kids": 0.036,
    "quinque": 0.028,
}
BOARD_THICK = 0.015
Json = dict[str, Any]


def _linear(bgr: tuple[int, int, int] | np.ndarray, scale: float = 1.0) -> list[float]:
    """A BGR uint8 colour as linear RGB floats (what Blender's materials take)."""
    out = []
    for v in (bgr[2], bgr[1], bgr[0]):
        c = float(v) / 255.0 * scale
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


class Builder:
    """One frame's scene: the board, the pieces, the light, the camera, maybe an arm."""

    def __init__(self, game: str, k: int, tex_dir: Path) -> None:
        self.game, self.k, self.tex_dir = game, k, tex_dir
        self.rng = random.Random(f"3d-{game}-{k}")
        self.g = geometry_for(game)
        self.cell = CELL_M[game] * self.rng.uniform(0.95, 1.05)
        self.cx, self.cy = self.g.files / 2, self.g.ranks / 2
        self.objects: list[Json] = []
        self.origin = (0.0, 0.0)  # quinque: where the game's coordinates lie on the area

    def world(self, x: float, y: float, z: float = 0.0) -> list[float]:
        """Board coordinates (cells, y down) and a height in cells -> metres."""
        return [(x - self.cx) * self.cell, (self.cy - y) * self.cell, z * self.cell]

    def texture(self, name: str, image: np.ndarray) -> str:
        path = self.tex_dir / f"{name}.png"
        if not path.exists():
            cv2.imwrite(str(path), image)
        return str(path)

    def decal(self, piece: look.Piece, top: float, rough: float, tag: str) -> None:
        """The piece's printed top face, a hair above its top (``top`` in cells)."""
        noise = np.random.default_rng(self.rng.randrange(1 << 30))
        patch, to_board = look.top_face(piece, PPC, noise)
        n = patch.shape[0]
        side = n / PPC
        cx = to_board[0, 2] - 0.5 / PPC + side / 2
        cy = to_board[1, 2] - 0.5 / PPC + side / 2
        path = self.texture(f"{self.game}-{self.k}-{tag}", patch)
        self.objects.append({
            "kind": "plane", "at": self.world(cx, cy, top + 0.004),
            "size": [side * self.cell, side * self.cell],
            "material": {"image": path, "alpha": True, "roughness": rough},
        })  # fmt: skip

    def board(self) -> None:
        x0, y0, x1, y1 = look.canvas_origin(self.g)
        image = look.board_image(self.game, PPC)
        path = self.texture(f"board-{self.game}", np.ascontiguousarray(image))
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        w, h = (x1 - x0) * self.cell, (y1 - y0) * self.cell
        self.objects.append({
            "kind": "plane", "at": self.world(cx, cy, 0.0), "size": [w, h],
            "material": {"image": path, "roughness": self.rng.uniform(0.35, 0.7),
                         "coat": self.rng.uniform(0.0, 0.4)},
        })  # fmt: skip
        at = self.world(cx, cy)
        at[2] = -BOARD_THICK / 2 - 0.0003
        side = _linear((60, 95, 140), self.rng.uniform(0.7, 1.1))
        self.objects.append({
            "kind": "box", "at": at, "size": [w, h, BOARD_THICK], "bevel": 0.002,
            "material": {"rgb": side, "roughness": 0.5},
        })  # fmt: skip
        table = self.rng.choice([(50, 70, 100), (120, 120, 118), (40, 40, 45), (150, 170, 190),
                                 (60, 90, 60), (170, 160, 150)])  # fmt: skip
        self.objects.append({
            "kind": "plane", "at": [0.0, 0.0, -BOARD_THICK], "size": [4.0, 4.0],
            "material": {"rgb": _linear(table, self.rng.uniform(0.6, 1.1)), "roughness": 0.8},
        })  # fmt: skip

    def pieces(self, truth: dict[str, str]) -> None:
        origin = quinque_origin(truth, self.rng) if self.game == "quinque" else (0.0, 0.0)
        self.origin = origin
        for i, piece in enumerate(look.pieces(self.game, truth, self.rng, origin=origin)):
            self.piece(piece, i)

    def piece(self, p: look.Piece, i: int) -> None:
        rough = self.rng.uniform(0.15, 0.45)
        x, y = p.centre
        if p.kind in ("disc", "chip"):
            stack = 2 if p.token.endswith("K") else 1
            one = p.height / stack
            colour = (look.DISC[p.token[:1]] if p.kind == "disc" else look.CHIP[p.token])
            rgb = _linear(colour, self.rng.uniform(0.9, 1.05))
            for s in range(stack):
                self.objects.append({
                    "kind": "cylinder", "at": self.world(x, y, one * (s + 0.5)),
                    "radius": p.size / 2 * self.cell, "depth": one * self.cell * 0.98,
                    "bevel": one * self.cell * 0.25,
                    "material": {"rgb": rgb, "roughness": rough, "coat": 0.3},
                })  # fmt: skip
            top = replace(p, token=p.token[:1]) if p.kind == "disc" else p
            self.decal(top, p.height, rough, f"p{i}")
            return
        base = p.base
        size = p.size * self.cell
        colour = {
            "cube": look.CUBE_FACE,
            "tessera": (70, 70, 72) if p.token == "K" else (200, 205, 205),
            "qtile": (200, 205, 210),
            "backpack": look.BACKPACK.get(p.token, (128, 128, 128)),
        }[p.kind]
        self.objects.append({
            "kind": "box", "at": self.world(x, y, base + p.height / 2),
            "size": [size, size, p.height * self.cell], "rotation": [0, 0, -p.angle],
            "bevel": min(size, p.height * self.cell) * 0.12,
            "material": {"rgb": _linear(colour), "roughness": rough},
        })  # fmt: skip
        self.decal(p, base + p.height, rough, f"p{i}")
        if p.kind == "cube":
            self.cube_sides(p, i)

    def cube_sides(self, p: look.Piece, i: int) -> None:
        """Symbols on the sides: a blank-topped cube shows O and X on opposite sides; a
        marked one sometimes the other symbol on one side (real cubes have both)."""
        top = p.token[:1]
        sides: list[tuple[int, str]] = []
        if top == ".":
            first = self.rng.randrange(4)
            sides = [(first, "O"), ((first + 2) % 4, "X")]
        elif self.rng.random() < 0.6:
            sides = [(self.rng.randrange(4), "X" if top == "O" else "O")]
        half = p.size / 2 + 0.01
        a = math.radians(p.angle)
        for side, symbol in sides:
            # side k faces direction k*90 degrees (board axes: 0 = +x, 1 = +y, ...)
            d = a + side * math.pi / 2
            ux, uy = math.cos(d), math.sin(d)
            piece = replace(p, token=symbol, centre=(0.0, 0.0), angle=0.0)
            patch, _ = look.top_face(piece, PPC, np.random.default_rng(i))
            path = self.texture(f"{self.game}-{self.k}-s{i}-{side}", patch)
            n = patch.shape[0] / PPC * self.cell
            at = self.world(p.centre[0] + ux * half, p.centre[1] + uy * half, p.height / 2)
            # a plane standing up, its normal along (ux, -uy) in world axes
            heading = math.degrees(math.atan2(-uy, ux))
            self.objects.append({
                "kind": "plane", "at": at, "size": [n, n], "rotation": [90, 0, heading + 90],
                "material": {"image": path, "alpha": True, "roughness": 0.5},
            })  # fmt: skip

    def arm(self) -> list[str]:
        """An arm from beyond a random side of the board to a hand over the area."""
        r = self.rng
        g = self.g
        side = r.randrange(4)
        reach = r.uniform(0.15, 0.55)  # how far into the area the hand reaches
        along = r.uniform(0.2, 0.8)
        if side == 0:
            start, tip = (along * g.files, -6.0), (along * g.files, reach * g.ranks)
        elif side == 1:
            start, tip = (g.files + 6.0, along * g.ranks), ((1 - reach) * g.files, along * g.ranks)
        elif side == 2:
            start, tip = (along * g.files, g.ranks + 6.0), (along * g.files, (1 - reach) * g.ranks)
        else:
            start, tip = (-6.0, along * g.ranks), (reach * g.files, along * g.ranks)
        h = r.uniform(0.04, 0.14) / self.cell  # hand height above the board, cells
        skin = _linear(r.choice([(150, 180, 225), (110, 140, 190), (70, 95, 140), (45, 65, 100)]))
        sleeve = _linear((r.randrange(30, 200), r.randrange(30, 200), r.randrange(30, 200)))
        wrist_u = 0.75
        wx = start[0] + (tip[0] - start[0]) * wrist_u
        wy = start[1] + (tip[1] - start[1]) * wrist_u
        radius = r.uniform(0.03, 0.042)
        self.objects.append({
            "kind": "capsule", "at": self.world(start[0], start[1], h + 2.5 / self.cell * 0.1),
            "to": self.world(wx, wy, h + 0.3), "radius": radius,
            "material": {"rgb": sleeve if r.random() < 0.5 else skin, "roughness": 0.7},
        })  # fmt: skip
        heading = math.degrees(math.atan2(-(tip[1] - wy), tip[0] - wx))
        hx, hy = (wx + tip[0]) / 2, (wy + tip[1]) / 2
        self.objects.append({
            "kind": "ellipsoid", "at": self.world(hx, hy, h), "turn": heading,
            "radii": [0.055, 0.045, 0.018], "material": {"rgb": skin, "roughness": 0.6},
        })  # fmt: skip
        return []

    def light(self) -> tuple[list[Json], float]:
        r = self.rng
        kelvin = r.uniform(2700, 6500)
        gain = light_gain(kelvin)  # BGR
        rgb = [gain[2] / max(gain), gain[1] / max(gain), gain[0] / max(gain)]
        height = r.uniform(0.7, 2.0)
        off = r.uniform(0.0, 0.9)
        turn = r.uniform(0, 2 * math.pi)
        at = [off * math.cos(turn), off * math.sin(turn), height]
        d2 = height * height + off * off
        if r.random() < 0.5:
            light = {"type": "AREA", "size": r.uniform(0.15, 0.9), "watts": 60 * d2}
        else:
            light = {"type": "POINT", "size": r.uniform(0.02, 0.2), "watts": 60 * d2}
        light.update({"rgb": rgb, "at": at})
        return [light], kelvin

    def camera(self) -> Json:
        """Distance 0.4-1.2 m (at least what fits the board), tilt 0-30 degrees."""
        r = self.rng
        x0, y0, x1, y1 = self.g.extent(0.15)
        half = max(x1 - x0, (y1 - y0)) / 2 * self.cell
        tilt = r.uniform(0, 30) if r.random() < 0.8 else 0.0
        vhalf = math.atan(math.tan(math.radians(FOV / 2)) * HEIGHT / WIDTH)
        fit = half / math.tan(vhalf) * (1.0 + 0.5 * math.sin(math.radians(tilt))) * 1.08
        lo = max(0.4, fit)
        dist = lo + (max(lo, 1.2) - lo) * r.random() ** 1.5
        azimuth = math.radians(r.uniform(0, 360))
        t = math.radians(tilt)
        at = [
            dist * math.sin(t) * math.cos(azimuth),
            dist * math.sin(t) * math.sin(azimuth),
            dist * math.cos(t),
        ]
        target = [r.uniform(-0.02, 0.02), r.uniform(-0.02, 0.02), 0.0]
        # roll so that the board's top stays roughly up in the picture
        roll = r.uniform(-15, 15)
        return {"fov": FOV, "at": at, "target": target, "roll": roll,
                "distance": dist, "tilt": tilt}  # fmt: skip


def build(game: str, k: int, tex_dir: Path, exr: Path) -> tuple[Json, Json]:
    """The scene description for Blender and the truth file's content."""
    b = Builder(game, k, tex_dir)
    truth = random_position(game, b.rng)
    if game == "quixo":
        truth = {c: t or "." for c, t in truth.items()}
    b.board()
    b.pieces(truth)
    hand = b.rng.random() < 0.17
    if hand:
        b.arm()
    lights, kelvin = b.light()
    cam = b.camera()
    ambient = {"rgb": [0.8, 0.85, 1.0], "strength": b.rng.uniform(0.05, 0.3)}
    scene = {"samples": SAMPLES, "width": WIDTH, "height": HEIGHT, "objects": b.objects,
             "lights": lights, "camera": cam, "ambient": ambient, "exr": str(exr)}  # fmt: skip
    post = {
        "wb": b.rng.uniform(0.3, 0.8),  # share of the cast the camera's white balance removes
        "exposure": b.rng.uniform(0.75, 0.95),
        "k1": b.rng.uniform(-0.02, 0.07),  # barrel distortion (negative: pincushion)
        "noise": b.rng.uniform(0.5, 3.0),
    }
    cells = dict(sorted(truth.items()))
    meta = {"game": game, "cells": cells, "hand": hand, "fov": FOV, "kelvin": round(kelvin),
            "camera": {"distance": round(cam["distance"], 3), "tilt": round(cam["tilt"], 1)},
            "light": lights[0]["type"].lower(), "post": post}  # fmt: skip
    if game == "quinque":  # skydiver (x, y) covers the unit square from (ox + x, oy - y - 1)
        meta["origin"] = [round(b.origin[0], 4), round(b.origin[1], 4)]
    return scene, meta


def finish(exr: Path, meta: Json, out: Path) -> None:
    """Camera processing: exposure, partial white balance, sRGB, lens distortion, JPEG."""
    npy = Path(str(exr) + ".npy")
    if not npy.exists():
        raise SystemExit(f"Blender wrote no picture at {npy}")
    img = np.maximum(np.load(npy)[:, :, ::-1].astype(np.float32), 0)  # RGB -> BGR
    post = meta["post"]
    grey = img.reshape(-1, 3).mean(axis=0)
    cast = grey / grey.mean()
    img /= cast ** post["wb"]
    lum = img.mean(axis=2)
    img *= post["exposure"] / max(1e-6, float(np.percentile(lum, 97)))
    img = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    h, w = img.shape[:2]
    f = w / 2 / math.tan(math.radians(FOV / 2))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = (xx - (w - 1) / 2) / f, (yy - (h - 1) / 2) / f
    k = 1 + post["k1"] * (u * u + v * v)
    img = cv2.remap(img, u * k * f + (w - 1) / 2, v * k * f + (h - 1) / 2, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    rng = np.random.default_rng(zlib.crc32(out.name.encode()))
    img = img * 255 + rng.normal(0, post["noise"], img.shape)
    cv2.imwrite(str(out), np.clip(img, 0, 255).astype(np.uint8),
                [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])  # fmt: skip
    meta = {key: value for key, value in meta.items() if key != "post"} | {"post": post}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Render ``--frames`` frames per game into OUT_DIR, in batches of ``--batch``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--batch", type=int, default=6)
    parser.add_argument("--blender-python",
                        default=str(HERE.parents[1] / ".venv-render/bin/python"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(k, game) for k in range(args.start, args.start + args.frames) for game in args.games]
    jobs = [(k, g) for k, g in jobs if not (args.out / f"{g}-{k:03d}.jpg").exists()]
    with tempfile.TemporaryDirectory(prefix="render3d-") as tmp:
        work = Path(os.environ.get("RENDER3D_WORK", tmp))
        for first in range(0, len(jobs), args.batch):
            batch = jobs[first : first + args.batch]
            scenes, metas = [], []
            for k, game in batch:
                scene, meta = build(game, k, work, work / f"{game}-{k:03d}.exr")
                scenes.append(scene)
                metas.append(meta)
            spec = work / "scenes.json"
            spec.write_text(json.dumps(scenes), encoding="utf-8")
            quiet = not os.environ.get("RENDER3D_VERBOSE")
            subprocess.run([args.blender_python, str(HERE / "blender_scene.py"), str(spec)],
                           check=True, stdout=subprocess.DEVNULL if quiet else None)
            for (k, game), meta in zip(batch, metas, strict=True):
                exr = work / f"{game}-{k:03d}.exr"
                finish(exr, meta, args.out / f"{game}-{k:03d}.jpg")
                exr.unlink()
                Path(str(exr) + ".npy").unlink()
                print(f"{game}-{k:03d}", flush=True)
            for png in work.glob("*-p*.png"):
                png.unlink()
            for png in work.glob("*-s*.png"):
                png.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
