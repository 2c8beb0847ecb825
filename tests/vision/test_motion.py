"""The change gate (vision/motion.py): sensor noise is no change, a piece or a drift is."""

from __future__ import annotations

import numpy as np

from tavola.vision.motion import ChangeGate
from tavola.vision.render import Conditions, render


def _noisy(image: np.ndarray, seed: int, sigma: float = 3.0) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0, sigma, image.shape)
    return np.asarray(np.clip(image + noise, 0, 255), np.uint8)


def test_noise_is_no_change_but_a_piece_is() -> None:
    empty = render("morris", {}, Conditions(seed=1)).image
    placed = render("morris", {"g7": "B"}, Conditions(seed=1)).image
    gate = ChangeGate()
    assert gate.changed(_noisy(empty, 0))
    assert not any(gate.changed(_noisy(empty, k)) for k in range(1, 30))
    assert gate.changed(_noisy(placed, 30))  # one dark disc in a corner of the board
    assert not gate.changed(_noisy(placed, 31))


def test_a_slow_drift_adds_up_and_a_full_read_comes_now_and_then() -> None:
    frame = np.full((720, 1280, 3), 120, np.uint8)
    gate = ChangeGate(refresh=50)
    assert gate.changed(frame)
    seen = [gate.changed(np.full_like(frame, 120 + k)) for k in range(1, 10)]
    assert seen.index(True) == 6  # 7 grey levels darker than the kept frame: changed
    quiet = [gate.changed(np.full_like(frame, 127)) for _ in range(60)]
    assert quiet.count(True) == 1  # the forced full read after `refresh` frames
