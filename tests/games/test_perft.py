"""Perft from the start position against counts from independent programs (perft.txt)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.mark import ParameterSet

from tavola.games import new_game, perft

PERFT_FILE = Path(__file__).with_name("perft.txt")


def _cases() -> list[ParameterSet]:
    cases: list[ParameterSet] = []
    for line in PERFT_FILE.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, params_text, depth, leaves, *flags = line.split()
        params = {}
        if params_text != "-":
            params = dict(kv.split("=", 1) for kv in params_text.split(","))
        marks = [pytest.mark.slow] if "slow" in flags else []
        case_id = f"{name}-{params_text}-d{depth}"
        cases.append(pytest.param(name, params, int(depth), int(leaves), marks=marks, id=case_id))
    return cases


@pytest.mark.parametrize(("name", "params", "depth", "leaves"), _cases())
def test_perft(name: str, params: dict[str, str], depth: int, leaves: int) -> None:
    assert perft(new_game(name, **params), depth) == leaves
