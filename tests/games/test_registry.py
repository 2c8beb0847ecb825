"""The registry's lookup and its typing: new_game's overloads name every game and alias."""

from __future__ import annotations

import doctest
import typing
from pathlib import Path
from typing import assert_type

from tavola.games import ALIASES, GAMES, Game, new_game
from tavola.games.draughts import Draughts
from tavola.games.morris import Morris


def test_new_game_is_typed_per_game() -> None:
    morris = new_game("morris")
    assert_type(morris, Morris)  # checked by mypy; the isinstance by pytest
    assert isinstance(morris, Morris)
    checkers = new_game("checkers")
    assert_type(checkers, Draughts)
    assert isinstance(checkers, Draughts) and checkers.options["variant"] == "english"


def test_every_name_and_alias_has_the_overload_of_its_class() -> None:
    hints = typing.get_type_hints(new_game)  # resolves the lazy names on the implementation
    assert hints["return"] == Game[typing.Any]
    typed: dict[str, str] = {}
    for overload in typing.get_overloads(new_game):
        annotations = overload.__annotations__
        returned = str(annotations["return"])
        literal = annotations["name"]
        if literal == "str":
            continue
        for name in typing.get_args(eval(literal, vars(typing))):
            typed[name] = returned
    names = set(GAMES) | set(ALIASES)
    assert set(typed) == names, "an overload for every registry name and alias"
    for name in names:
        registry_name = ALIASES[name][0] if name in ALIASES else name
        assert typed[name] == GAMES[registry_name].__name__, name


def test_the_python_guide_runs() -> None:
    guide = Path(__file__).parents[2] / "docs" / "games" / "python.md"
    result = doctest.testfile(str(guide), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
