"""The rules engines and their registry.

>>> from tavola.games import new_game, GAMES
>>> sorted(GAMES)[:2]
['draughts', 'morris']
>>> new_game("checkers").options["variant"]
'english'
>>> g = new_game("morris")   # typed: mypy knows g is a Morris
>>> g.apply("d2"); g.history
(MorrisMove.from_text('d2'),)

Games are imported only when asked for, so the daemon loads just the game in play.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .base import (
    CAPABILITIES,
    Capability,
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    Param,
    Reason,
    legal_turns,
    perft,
)

if TYPE_CHECKING:  # the modules are imported at run time only when a game is asked for
    from .draughts import Draughts
    from .morris import Morris
    from .quinque import Quinque
    from .quixo import Quixo
    from .sequence_kids import SequenceKids
    from .tessere import Tessere

__all__ = [
    "ALIASES",
    "CAPABILITIES",
    "GAMES",
    "Capability",
    "Game",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "Param",
    "Reason",
    "game_class",
    "legal_turns",
    "new_game",
    "perft",
]

# Registry name -> "module:Class". An explicit table, not an import side effect.
_TABLE: dict[str, str] = {
    "morris": "tavola.games.morris:Morris",
    "draughts": "tavola.games.draughts:Draughts",
    "quixo": "tavola.games.quixo:Quixo",
    "tessere": "tavola.games.tessere:Tessere",
    "sequence-kids": "tavola.games.sequence_kids:SequenceKids",
    "quinque": "tavola.games.quinque:Quinque",
}

# Other names people use -> (registry name, parameters the alias implies).
ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "muehle": ("morris", {}),
    "mühle": ("morris", {}),
    "mill": ("morris", {}),
    "nine-mens-morris": ("morris", {}),
    "dame": ("draughts", {"variant": "dame"}),
    "checkers": ("draughts", {"variant": "english"}),
    "shashki": ("draughts", {"variant": "russian"}),
    "sequence": ("sequence-kids", {}),
    "sequence_kids": ("sequence-kids", {}),
}


class _Registry(Mapping[str, type[Game[Any]]]):
    """Registry name -> game class, importing a game's module on first use."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self._table = dict(table)
        self._loaded: dict[str, type[Game[Any]]] = {}

    def __getitem__(self, name: str) -> type[Game[Any]]:
        if name not in self._loaded:
            module, _, cls = self._table[name].partition(":")
            self._loaded[name] = getattr(importlib.import_module(module), cls)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


GAMES: Mapping[str, type[Game[Any]]] = _Registry(_TABLE)


def _lookup(name: str) -> tuple[str, dict[str, Any]]:
    key = name.strip().lower()
    if key in _TABLE:
        return key, {}
    if key in ALIASES:
        return ALIASES[key][0], dict(ALIASES[key][1])
    known = ", ".join(sorted(_TABLE))
    aliases = ", ".join(sorted(ALIASES))
    raise ValueError(f"unknown game {name!r}; known games: {known} (aliases: {aliases})")


def game_class(name: str) -> type[Game[Any]]:
    """The class behind a registry name or alias; ValueError names the known ones."""
    return GAMES[_lookup(name)[0]]


# One overload per game, on its registry name and aliases (as spelled in the tables), so a
# scripter's type checker knows which class new_game returns.
@overload
def new_game(
    name: Literal["morris", "muehle", "mühle", "mill", "nine-mens-morris"], **params: Any
) -> Morris: ...
@overload
def new_game(
    name: Literal["draughts", "dame", "checkers", "shashki"], **params: Any
) -> Draughts: ...
@overload
def new_game(name: Literal["quixo"], **params: Any) -> Quixo: ...
@overload
def new_game(name: Literal["tessere"], **params: Any) -> Tessere: ...
@overload
def new_game(
    name: Literal["sequence-kids", "sequence", "sequence_kids"], **params: Any
) -> SequenceKids: ...
@overload
def new_game(name: Literal["quinque"], **params: Any) -> Quinque: ...
@overload
def new_game(name: str, **params: Any) -> Game[Any]: ...
def new_game(name: str, **params: Any) -> Game[Any]:
    """A new game by registry name or alias, e.g. ``new_game("draughts", variant="russian")``.

    Unknown names or parameters raise ValueError naming the known ones.
    """
    key, implied = _lookup(name)
    implied.update(params)
    return GAMES[key](**implied)
