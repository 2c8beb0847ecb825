"""Every ``>>>`` example in the package runs, so the docs cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tavola

MODULES = sorted(m.name for m in pkgutil.walk_packages(tavola.__path__, "tavola."))


def _has_examples(name: str) -> bool:
    module = importlib.import_module(name)
    return bool(doctest.DocTestFinder().find(module)) and any(
        t.examples for t in doctest.DocTestFinder().find(module))


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


def test_the_entry_points_have_examples() -> None:
    # The scripter's way in: the package, the game registry and base, the layouts.
    for name in ("tavola.games", "tavola.games.base", "tavola.hardware.layout"):
        assert _has_examples(name), name
