"""Shared pytest setup: the slow and hardware markers."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_slow = config.getoption("--slow") or os.environ.get("TAVOLA_SLOW") == "1"
    skip_slow = pytest.mark.skip(reason="slow: run with --slow or TAVOLA_SLOW=1")
    skip_hw = pytest.mark.skip(reason="hardware: needs a Raspberry Pi board (TAVOLA_HARDWARE=1)")
    on_hardware = os.environ.get("TAVOLA_HARDWARE") == "1"
    for item in items:
        # get_closest_marker, not keywords: a folder named tests/hardware is a keyword too.
        if item.get_closest_marker("slow") and not run_slow:
            item.add_marker(skip_slow)
        if item.get_closest_marker("hardware") and not on_hardware:
            item.add_marker(skip_hw)
