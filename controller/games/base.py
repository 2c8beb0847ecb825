"""The game contract: one base class that every rules engine derives from.

The public methods live here, once, and are final: legality checks, undo, history,
serialisation, sensor views. A game writes only the private hooks listed under
``Game`` (``_setup``, ``_legal_moves``, ``_apply``, ...), as in OpenSpiel.

Every action is atomic: one sensed change on the board at most. A turn that is made of
several actions (a mill and its removal, each jump of a draughts chain, Quinque's optional
second action) is several calls to :meth:`Game.apply` by the same player;
:attr:`Game.current_player` changes only when the turn ends. :func:`legal_turns` and
:func:`perft` work on whole turns.

>>> from tavola.games import new_game
>>> g = new_game("morris")
>>> g.apply("d2")                      # a move's notation, or the move itself
>>> g.current_player, g.history[-1]
(1, MorrisMove.from_text('d2'))
>>> str(g.undo()), len(g.history)
('d2', 0)
>>> move = g.legal_moves()[0]
>>> g.push(move)                       # known legal (it came from legal_moves): no check
>>> g.outcome() is None
True
"""

from __future__ import annotations

import contextlib
import copy as _copy
import re
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

Capability = Literal["occupancy", "identity"]
CAPABILITIES: tuple[Capability, ...] = ("occupancy", "identity")
OCCUPIED = "#"  # what an occupancy sensor reports for a filled cell
EMPTY = ""  # what any sensor reports for an empty cell


class IllegalMoveError(ValueError):
    """A move that is not legal in the current position (or the game is over)."""


class Move(Protocol):
    """What every game's move type is: hashable, and printable in the game's notation."""

    def __hash__(self) -> int: ...
    def __str__(self) -> str: ...


M = TypeVar("M", bound=Move)


class Reason(StrEnum):
    """Why a game ended: one name per ending, shared by every game and by the session.

    The value is what records store and people read (``str(Reason.LINE) == "line"``).
    Records written before the enumeration existed are read with :meth:`parse`.

    >>> Reason.parse("line made by the opponent")
    Reason.OPPONENT_LINE
    >>> str(Reason.OPPONENT_LINE)
    'line completed by the opponent'
    """

    # Wins by the rules.
    LINE = "line"  # a line, configuration or sequence of the winner's (quixo, tessere, quinque)
    OPPONENT_LINE = "line completed by the opponent"  # the mover completed the other's line
    SEQUENCE = "sequence"  # sequence-kids: the cards' row of chips
    SECOND_BLOCK = "second block"  # tessere: the second block placed
    TOO_FEW_MEN = "too few men"  # morris: fewer than three men left
    NO_PIECES = "no pieces left"  # draughts: a player has no piece
    BLOCKED = "blocked"  # no legal move: a loss (morris, draughts) or a draw (sequence-kids)
    # Draws by the rules.
    THREEFOLD_REPETITION = "threefold repetition"
    NO_REMOVAL = "plies without a removal"  # morris: no_removal_plies slides and flies in a row
    KING_MOVES = "moves of kings only"  # draughts: king_moves_draw moves each, no capture
    KING_VS_KING = "king vs king"
    KING_VS_TWO_KINGS = "king vs two kings"
    MOVE_CAP = "move cap"  # quixo: max_plies reached
    STALLED = "stalled"  # sequence-kids: nobody can place a chip
    OUT_OF_BACKPACKS = "out of backpacks"  # quinque
    NO_FREE_SKYDIVER = "no free skydiver"  # quinque
    # Endings from outside the rules (the session, the clock, the daemon).
    TIME = "time"
    AGREEMENT = "agreement"
    RESIGNATION = "resignation"
    ABANDONED = "abandoned"
    NEW_GAME = "abandoned for a new game"
    ADJUDICATION = "adjudication"  # the referee decided (web console)
    FORFEIT = "forfeit"  # the referee declared a forfeit (web console)

    def __repr__(self) -> str:
        return f"Reason.{self.name}"  # pastes back, as every repr in the games

    @classmethod
    def parse(cls, text: str) -> Reason:
        """The reason written ``text``, old spellings included; ValueError if none."""
        try:
            return cls(text)
        except ValueError:
            pass
        for pattern, reason in _OLD_REASONS:
            if pattern.fullmatch(text):
                return reason
        known = ", ".join(repr(r.value) for r in cls)
        raise ValueError(f"unknown outcome reason {text!r}; reasons are {known}") from None


# Free-text reasons of records written before Reason existed.
_OLD_REASONS: tuple[tuple[re.Pattern[str], Reason], ...] = (
    (re.compile("line made by the opponent"), Reason.OPPONENT_LINE),
    (re.compile("no move possible"), Reason.BLOCKED),
    (re.compile("repetition"), Reason.THREEFOLD_REPETITION),
    (re.compile(r"\d+ plies without a removal"), Reason.NO_REMOVAL),
    (re.compile(r"\d+ moves of kings only"), Reason.KING_MOVES),
)


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    ``winner`` is a player index (0 moves first) or None for a draw. ``winners`` lists
    every winning player, for team games (it is ``(winner,)`` otherwise). ``reason`` is a
    :class:`Reason`; text is converted (old spellings too), so records read back.

    >>> Outcome(1, Reason.TIME).to_dict()
    {'winner': 1, 'reason': 'time', 'winners': [1]}
    >>> Outcome.from_dict({"winner": None, "reason": "100 plies without a removal"})
    Outcome(winner=None, reason=Reason.NO_REMOVAL, winners=())
    """

    winner: int | None
    reason: Reason
    winners: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.reason, Reason):
            object.__setattr__(self, "reason", Reason.parse(self.reason))
        if not self.winners and self.winner is not None:
            object.__setattr__(self, "winners", (self.winner,))

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-safe data (the reason as its text)."""
        return {"winner": self.winner, "reason": self.reason.value, "winners": list(self.winners)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Outcome:
        """The outcome ``to_dict`` wrote, from any version of the records."""
        return cls(d["winner"], Reason.parse(d["reason"]), tuple(d.get("winners", ())))


@dataclass(frozen=True)
class Param:
    """One named game parameter: the declarative header of a game module."""

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None  # allowed values, or None for any of the type
    type: type | None = None  # defaults to type(default)
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        """Return ``value`` converted to this parameter's type, or raise ValueError."""
        want = self.type or type(self.default)
        if want is bool and isinstance(value, str):
            low = value.strip().lower()
            if low in ("true", "yes", "on", "1"):
                value = True
            elif low in ("false", "no", "off", "0"):
                value = False
        elif want is int and isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = int(value)
        elif want is float and isinstance(value, (str, int)) and not isinstance(value, bool):
            with contextlib.suppress(ValueError):
                value = float(value)
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if self.default is None and value is None:
            ok = True
        if not ok:
            raise ValueError(
                f"parameter {self.name!r} must be {want.__name__}, got {value!r} ({self.doc})"
            )
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise ValueError(f"parameter {self.name!r} must be one of {allowed}, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"parameter {self.name!r} must be >= {self.minimum}, got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"parameter {self.name!r} must be <= {self.maximum}, got {value!r}")
        return value


# What undo restores: the game's snapshot, how many position keys there were, the legal
# moves if they had been generated. A plain tuple: push and undo are the search's hot path.
_Saved = tuple[Any, int, "tuple[Any, ...] | None"]


class Game(ABC, Generic[M]):
    """A game state behind the one public contract.

    A subclass sets the class attributes ``name``, ``params`` (a tuple of :class:`Param`),
    ``needs`` (the sensor capability the game needs), ``player_names`` and, for games with
    named rule sets, ``variants`` (variant name -> parameter overrides; the ``variant``
    parameter then exists, its default the first key). It must implement:

    - ``_setup()``: the start position, from ``self.params``;
    - ``_legal_moves()``: the legal atomic actions (never called once the game is over),
      best as a tuple (the base keeps it as the position's ``legal_moves()``; a list is
      converted);
    - ``_apply(move)``: play a legal action; update the player to move and the outcome;
    - ``_current_player()``, ``_outcome()``;
    - ``_parse_move(text)``: the notation's parser (``str(move)`` is its twin);
    - ``_snapshot()`` / ``_restore(state)``: the whole mutable state, for undo and copy
      (the default copies the attributes named in ``_state_fields`` one level deep);
    - ``_state_dict()`` / ``_load_state(d)``: the position as JSON-safe data;
    - ``_view()``: cell name -> piece token, as an identity sensor reads it;
    - ``_board_str()``: an ASCII board.

    It may override ``_position_key()`` (for repetition draws: see :meth:`_seen`; the
    base records the key after each action, or, with ``_keys_in_apply = True``, the game's
    ``_apply`` appends it to ``self._keys`` itself whenever the key is not None),
    ``_explain(move)`` (why a move is illegal), ``_time_out(player)`` and
    ``move_seconds`` (a per-move limit that is part of the rules), and ``private_text``
    (with ``hidden_information = True``).
    """

    name: ClassVar[str]
    params: ClassVar[tuple[Param, ...]] = ()
    variants: ClassVar[dict[str, dict[str, Any]]] = {}
    needs: ClassVar[Capability] = "occupancy"
    hidden_information: ClassVar[bool] = False  # players hold something the others must not see
    player_names: tuple[str, ...] = ("White", "Black")  # ``_setup`` may set it per instance
    _state_fields: ClassVar[tuple[str, ...]] = ()
    # A game whose _apply appends the new position's key to self._keys itself (it works
    # the key out anyway, for its repetition rule) sets this; push then leaves it alone.
    _keys_in_apply: ClassVar[bool] = False
    # Whether push records _position_key after _apply: only for games that override it
    # and do not record it themselves (set per subclass, below).
    _keyed: ClassVar[bool] = False
    _param_cache: ClassVar[dict[str, Param] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        overridden = cls._position_key is not Game._position_key
        cls._keyed = overridden and not cls._keys_in_apply

    def __init__(self, **params: Any) -> None:
        self.options: dict[str, Any] = self.resolve_params(params)
        self._history: list[M] = []
        self._undo: list[_Saved] = []
        self._keys: list[Hashable] = []
        self._legal: tuple[M, ...] | None = None
        self._adjudicated: Outcome | None = None
        self._start: dict[str, Any] | None = None
        self._setup()
        self._record_key()

    # ----------------------------------------------------------------- parameters
    @classmethod
    def param_table(cls) -> dict[str, Param]:
        """Every parameter this game accepts, ``variant`` included when it has variants."""
        return dict(cls._params_by_name())

    @classmethod
    def _params_by_name(cls) -> dict[str, Param]:
        # Built once per class: every new game (each playout of a search) resolves its
        # parameters against it. Looked up in the class's own __dict__, not inherited.
        table: dict[str, Param] | None = cls.__dict__.get("_param_cache")
        if table is None:
            table = {p.name: p for p in cls.params}
            if cls.variants:
                names = tuple(cls.variants)
                table["variant"] = Param("variant", names[0], "the rule set", choices=names)
            cls._param_cache = table
        return table

    @classmethod
    def resolve_params(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults, then the variant's presets, then ``given``; every value checked."""
        table = cls._params_by_name()
        unknown = [key for key in given if key not in table]
        if unknown:
            known = ", ".join(sorted(table)) or "none"
            raise ValueError(
                f"{cls.name}: unknown parameter {', '.join(map(repr, sorted(unknown)))}; "
                f"known parameters: {known}"
            )
        values = {name: p.default for name, p in table.items()}
        if cls.variants:
            variant = table["variant"].check(given.get("variant", values["variant"]))
            values.update(cls.variants[variant])
            values["variant"] = variant
        for key, value in given.items():
            values[key] = table[key].check(value)
        return values

    @property
    def num_players(self) -> int:
        return len(self.player_names)

    # ----------------------------------------------------------------- the contract
    def legal_moves(self) -> tuple[M, ...]:
        """The legal atomic actions of the player to move (empty once the game is over).

        A tuple, generated once per position and handed out as it is (it cannot be changed,
        so no copy is made): ask for it as often as you like.
        """
        # Generated once per position, when first asked for: a position reached at a leaf
        # of a search, or passed through by push, never pays for its moves.
        legal = self._legal
        if legal is None:
            if self._adjudicated is None and self._outcome() is None:
                moves = self._legal_moves()
                legal = moves if type(moves) is tuple else tuple(moves)
            else:
                legal = ()
            self._legal = legal
        return legal

    def is_legal(self, move: M) -> bool:
        """Whether ``move`` may be played now."""
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        for m in legal:  # identity first: moves usually come from legal_moves()
            if m is move:
                return True
        return move in legal

    def apply(self, move: M | str) -> None:
        """Play one atomic action, given as a move or in the game's notation.

        Raises :class:`IllegalMoveError` if it is not legal now, ValueError if the text is
        not notation. A move taken from :meth:`legal_moves` is found by identity, so the
        check costs little; :meth:`push` skips it.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        for m in legal:  # is_legal inlined: apply is the playouts' hot path
            if m is move:
                break
        else:
            if move not in legal:
                raise IllegalMoveError(self.explain(move))
        # push, inlined (one call less per action): keep the two alike.
        keys = self._keys
        self._undo.append((self._snapshot(), len(keys), legal))
        self._legal = None
        self._apply(move)
        self._history.append(move)
        if self._keyed:
            key = self._position_key()
            if key is not None:
                keys.append(key)

    def push(self, move: M) -> None:
        """Play a move known to be legal, without checking it: the fast path for search.

        Only for moves taken from :meth:`legal_moves` in this very position (as
        python-chess's ``push``); anything else leaves the game in an undefined state.
        :meth:`undo` takes it back like any other action.
        """
        keys = self._keys
        self._undo.append((self._snapshot(), len(keys), self._legal))
        self._legal = None
        self._apply(move)
        self._history.append(move)
        if self._keyed:
            key = self._position_key()
            if key is not None:
                keys.append(key)

    def undo(self) -> M:
        """Take back the last action and return it. Raises IndexError if there is none."""
        if not self._undo:
            raise IndexError("nothing to undo")
        state, keys, self._legal = self._undo.pop()
        self._restore(state)
        del self._keys[keys:]
        self._adjudicated = None
        return self._history.pop()

    @property
    def current_player(self) -> int:
        """0 for the player who moves first, 1, ... (unchanged within a turn)."""
        return self._current_player()

    @property
    def history(self) -> tuple[M, ...]:
        """Every action played since the start position, oldest first."""
        return tuple(self._history)

    def outcome(self) -> Outcome | None:
        """None while the game runs, else who won and why."""
        return self._adjudicated or self._outcome()

    def adjudicate(self, outcome: Outcome) -> None:
        """End the game from outside the rules: agreement, resignation, a flag fall."""
        self._adjudicated = outcome
        self._legal = None

    @property
    def adjudicated(self) -> Outcome | None:
        """The outcome decided from outside the rules (:meth:`adjudicate`), if any."""
        return self._adjudicated

    def reopen(self) -> None:
        """Withdraw an adjudicated outcome (the referee's result taken back); the rules'
        own outcome stands until an action is undone."""
        self._adjudicated = None
        self._legal = None

    def time_out(self, player: int) -> Outcome | None:
        """``player`` ran out of time; apply the game's policy and return the outcome, if any.

        The default is a loss on time for two-player games.
        """
        result = self._time_out(player)
        self._legal = None  # a policy may have changed the position (a forced pass)
        if result is not None:
            self.adjudicate(result)
        return result

    def _time_out(self, player: int) -> Outcome | None:
        if self.num_players == 2:
            return Outcome(1 - player, Reason.TIME)
        return None

    @property
    def move_seconds(self) -> float | None:
        """A per-move time limit that belongs to the game's rules (None: no limit)."""
        return None

    def copy(self) -> Game[M]:
        """An independent game with the same position, history and undo stack."""
        new = _copy.copy(self)
        new._history = list(self._history)
        new._undo = list(self._undo)
        new._keys = list(self._keys)
        new._restore(self._snapshot())
        return new

    def parse_move(self, text: str) -> M:
        """The move written ``text`` in the game's notation (not checked for legality)."""
        return self._parse_move(text.strip())

    def explain(self, move: M) -> str:
        """Why ``move`` cannot be played now (for the terminal and the journal)."""
        result = self.outcome()
        if result is not None:
            return f"{move}: the game is over ({result.reason})"
        return f"{move}: {self._explain(move)}"

    def _explain(self, move: M) -> str:
        return "not a legal move in this position"

    def view(self, capability: Capability = "identity") -> dict[str, str]:
        """What a sensor of ``capability`` should read: cell name -> token ('' empty)."""
        if capability not in CAPABILITIES:
            raise ValueError(f"capability must be one of {CAPABILITIES}, got {capability!r}")
        cells = self._view()
        if capability == "identity":
            return cells
        return {cell: (OCCUPIED if tok else EMPTY) for cell, tok in cells.items()}

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild this game: rules, start, actions, position."""
        return {
            "game": self.name,
            "params": dict(self.options),
            "start": self._start,
            "moves": [str(m) for m in self._history],
            "state": self._state_dict(),
            "adjudicated": self._adjudicated.to_dict() if self._adjudicated else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Game[Any]:
        """Rebuild a game by replaying its actions; raises ValueError if they disagree."""
        if d.get("game") not in (None, cls.name):
            raise ValueError(f"not a {cls.name} record: game is {d.get('game')!r}")
        game = cls(**d.get("params", {}))
        if d.get("start") is not None:
            game.set_position(d["start"])
        for ply, text in enumerate(d.get("moves", ()), 1):
            try:
                game.apply(game.parse_move(text))
            except ValueError as exc:
                raise ValueError(f"move {ply} ({text!r}): {exc}") from exc
        state = d.get("state")
        if state is not None and state != game._state_dict():
            raise ValueError("the recorded position does not match the recorded moves")
        if d.get("adjudicated"):
            game.adjudicate(Outcome.from_dict(d["adjudicated"]))
        return game

    def set_position(self, state: Mapping[str, Any]) -> None:
        """Start from ``state`` (a ``to_dict()['state']``): for puzzles, tests, setups.

        Clears the history; the position becomes the new start.
        """
        self._load_state(dict(state))
        self._start = self._state_dict()
        self._history.clear()
        self._undo.clear()
        self._keys.clear()
        self._legal = None
        self._adjudicated = None
        self._record_key()

    @classmethod
    def turn_notation(cls, texts: list[str]) -> str:
        """One whole turn, written from its actions' notation, for game records."""
        return " ".join(texts)

    def winning_cells(self) -> tuple[str, ...]:
        """The cells of the line that won (for the gold LEDs); () when none or no line."""
        return ()

    def expectation(self) -> str:
        """What the rules ask of the player to move beyond an ordinary turn, as a sentence
        for the status ('White formed a mill: remove a black man'); '' when nothing special."""
        return ""

    def resignation(self, player: int) -> Outcome:
        """The outcome when ``player`` resigns: every other side wins (a team game names
        the other team; with three or four players each of the others wins)."""
        winners = tuple(p for p in range(self.num_players) if p != player)
        return Outcome(winners[0], Reason.RESIGNATION, winners)

    def private_text(self, player: int) -> str:
        """What only ``player`` may see (a hand of cards); '' for open games."""
        return ""

    def view_for(self, player: int) -> dict[str, Any]:
        """Everything ``player`` may see, as data (a game with hidden information adds the
        player's own hand and the public cards)."""
        if not 0 <= player < self.num_players:
            raise ValueError(f"player must be 0..{self.num_players - 1}, got {player}")
        result = self.outcome()
        return {
            "board": self.view("identity"),
            "player": player,
            "to_move": self.current_player,
            "outcome": result.to_dict() if result else None,
        }

    def __str__(self) -> str:
        return self._board_str()

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"<{type(self).__name__} {self.name}({opts}) ply {len(self._history)}>"

    # ----------------------------------------------------------------- repetition
    def _record_key(self) -> None:
        key = self._position_key()
        if key is not None:
            self._keys.append(key)

    def _seen(self, key: Hashable, recent: int = 0) -> int:
        """How often ``key`` occurred in earlier positions of this game (for repetition).

        Call it from ``_apply`` with the new position's key; the base records that key
        after ``_apply`` returns. ``recent`` > 0 looks only at the last ``recent`` recorded
        positions (those since the last irreversible action: no earlier one can match).
        """
        keys = self._keys
        return (keys[-recent:] if 0 < recent < len(keys) else keys).count(key)

    def _position_key(self) -> Hashable | None:
        return None

    def position_key(self) -> Hashable | None:
        """The position as a hashable key (None where the game keeps none): for search."""
        return self._position_key()

    # ----------------------------------------------------------------- hooks
    def _snapshot(self) -> Any:
        return tuple(_shallow_copy(getattr(self, f)) for f in self._state_fields)

    def _restore(self, state: Any) -> None:
        for f, value in zip(self._state_fields, state, strict=True):
            setattr(self, f, _shallow_copy(value))

    @abstractmethod
    def _setup(self) -> None: ...

    @abstractmethod
    def _legal_moves(self) -> Sequence[M]: ...

    @abstractmethod
    def _apply(self, move: M) -> None: ...

    @abstractmethod
    def _current_player(self) -> int: ...

    @abstractmethod
    def _outcome(self) -> Outcome | None: ...

    @abstractmethod
    def _parse_move(self, text: str) -> M: ...

    @abstractmethod
    def _state_dict(self) -> dict[str, Any]: ...

    @abstractmethod
    def _load_state(self, d: dict[str, Any]) -> None: ...

    @abstractmethod
    def _view(self) -> dict[str, str]: ...

    @abstractmethod
    def _board_str(self) -> str: ...


def _shallow_copy(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, set):
        return set(value)
    return value


# --------------------------------------------------------------------- whole turns
def legal_turns(game: Game[Any]) -> list[tuple[Any, ...]]:
    """Every whole turn of the player to move: action sequences until the player changes.

    A turn that ends the game early is a turn too. Used by perft and by hint engines.
    """
    player = game.current_player
    turns: list[tuple[Any, ...]] = []

    def walk(prefix: tuple[Any, ...]) -> None:
        for move in game.legal_moves():
            game.push(move)
            seq = (*prefix, move)
            if game.current_player != player or game.outcome() is not None:
                turns.append(seq)
            else:
                walk(seq)
            game.undo()

    walk(())
    return turns


def perft(game: Game[Any], depth: int) -> int:
    """Leaves of the tree of whole turns ``depth`` turns deep.

    A turn that ends the game is a leaf only at the last level; earlier, it adds nothing.
    """
    if depth == 0:
        return 1
    total = 0
    player = game.current_player
    turn = game._current_player  # the hooks, not the properties: this is the hot loop
    push, undo = game.push, game.undo
    for move in game.legal_moves():
        push(move)
        if turn() != player:
            # A finished game has no legal moves, so below depth 1 it adds nothing: the
            # outcome need not be worked out at the leaves.
            total += 1 if depth == 1 else perft(game, depth - 1)
        elif game.outcome() is not None:
            total += 1 if depth == 1 else 0
        else:
            total += perft(game, depth)
        undo()
    return total


def iter_cells(files: int, ranks: int) -> Iterator[str]:
    """Cell names a1, b1, ... for a rectangular board, rank by rank from the bottom."""
    for r in range(ranks):
        for f in range(files):
            yield f"{chr(ord('a') + f)}{r + 1}"
