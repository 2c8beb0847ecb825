"""Tessere: the 5x5 colour-checker game of seed 000 (RULES.md section 1).

Rules as implemented:

- 2 players, a 5x5 board (cells a1 ... e5), all 25 pieces off the board at the start.
- 23 shared checkers, each known by its set of colours red, yellow, green, blue: the 4
  one-colour checkers ``R`` ``Y`` ``G`` ``B``, 3 each of the six two-colour sets ``RY`` ``RG``
  ``RB`` ``YG`` ``YB`` ``GB``, and one four-colour ``RYGB``. Each colour is on 11 of them.
  Plus one black block (``K``) per player.
- A turn places one piece on an empty cell: any shared checker still off the board, or the
  player's own block (never the opponent's). When no shared checker is left, the own block
  is the only choice.
- A player who completes a configuration wins at once, whoever placed the other pieces: 4
  checkers that share at least one colour on a window of 4 consecutive cells of a row, a
  column or a counted diagonal, or on the four corners. A block never counts toward a line.
  ``RYGB`` shares every colour, so it completes any three that share one.
- With no line, the board fills (25 pieces, 25 cells) and the player who placed their block
  second wins (reason ``"second block"``). A line win has reason ``"line"``.

Parameters: ``diagonals`` (``long`` 25 configurations, ``short`` 25, ``all`` 29),
``on_timeout`` (``warn``, ``lose``, ``pass``) and ``move_seconds`` (60; 0 = no limit). The
move limit is part of the rules: :attr:`Tessere.move_seconds` gives it to the daemon's clock,
which calls :meth:`Game.time_out` for the player to move when it runs out (a call for the
other player, or after the end, changes nothing):

- ``warn``: nothing changes (the daemon only warns);
- ``lose``: the player to move loses (reason ``"time"``);
- ``pass``: the player to move loses the turn: the engine plays the action ``pass`` for them,
  so the lost turn is in the history like any action (undo takes it back, records replay).
  Under this policy ``pass`` is legal on every turn: waiting out the clock gives up the turn
  anyway, so a player may as well say so. A pass changes nothing on the board, so no sensor
  can see it: it comes from the clock or from a player's declaration. Two passes in a row do
  not end the game; the board still has to fill (or someone completes a line).

A player with nothing to place (every checker down, their block down, only the opponent's
block in hand) must ``pass``, whatever ``on_timeout`` says; the opponent then places the last
piece, their block, and wins the tie-break. RULES.md 1.4 says this cannot happen, but it does
without any timeout: Player 1 places the block early, Player 2 keeps theirs, and after the
23rd checker it is Player 1's 13th turn with only Player 2's block off the board.

Players: 0 ("Player 1") moves first, 1 ("Player 2").

Notation: ``RY@c3`` places a checker by its colour set (letters in the order R Y G B; the
parser accepts any order and lower case), ``K@c3`` places the mover's own block, ``pass``.

Tokens (:meth:`Game.view`): the colour set of a checker (``R`` ... ``RYGB``), ``K`` for a
block, ``""`` for an empty cell. The game needs an identity sensor.

For the daemon: :meth:`Tessere.off_board` (what is still off the board),
:meth:`Tessere.winning_cells` (the cells of the completed configurations, for the gold LEDs),
:meth:`Tessere.block_cell` (whose block is where) and :attr:`Tessere.configurations`.

>>> g = Tessere()
>>> for text in ("G@a1", "YG@e5", "GB@e1", "RYGB@a5"):
...     g.apply(text)
>>> g.outcome()
Outcome(winner=1, reason=Reason.LINE, winners=(1,))
>>> g.winning_cells()
('a1', 'e1', 'a5', 'e5')
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any, ClassVar

from .base import Game, Outcome, Param, Reason, iter_cells

SIZE = 5
CELLS: tuple[str, ...] = tuple(iter_cells(SIZE, SIZE))
INDEX: dict[str, int] = {c: i for i, c in enumerate(CELLS)}
COLOURS = "RYGB"
BIT = {c: 1 << i for i, c in enumerate(COLOURS)}

# Shared checkers: token -> how many physical checkers carry that colour set (RULES.md 1.3).
CHECKERS: dict[str, int] = {
    "R": 1, "Y": 1, "G": 1, "B": 1,
    "RY": 3, "RG": 3, "RB": 3, "YG": 3, "YB": 3, "GB": 3,
    "RYGB": 1,
}  # fmt: skip
BLOCK = "K"
TOKENS: tuple[str, ...] = (*CHECKERS, BLOCK)
# Colour mask of what stands on a cell; empty cells and blocks share no colour with anything.
MASK: dict[str, int] = {t: sum(BIT[c] for c in t) for t in CHECKERS}
MASK[""] = MASK[BLOCK] = 0
PLAYER_NAMES = ("Player 1", "Player 2")
DIAGONAL_CHOICES = ("long", "short", "all")
TIMEOUT_CHOICES = ("warn", "lose", "pass")


@dataclass(frozen=True, slots=True)
class Place:
    """Put the checker ``token`` (or the mover's own block, ``K``) on ``cell``."""

    token: str
    cell: str

    def __str__(self) -> str:
        return f"{self.token}@{self.cell}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Give up the turn (``on_timeout=pass``, or forced: nothing left to place)."""

    def __str__(self) -> str:
        return "pass"


TessereMove = Place | Pass
PASS = Pass()
# Every placement, built once: PLACE[token][cell index].
PLACE: dict[str, tuple[Place, ...]] = {t: tuple(Place(t, c) for c in CELLS) for t in TOKENS}


def _configurations(diagonals: str) -> tuple[tuple[int, ...], ...]:
    """The winning configurations as tuples of cell indices (25, 25 or 29 of them)."""

    def at(f: int, r: int) -> int:
        return r * SIZE + f

    lines: list[tuple[int, ...]] = []
    for r in range(SIZE):
        for f0 in (0, 1):
            lines.append(tuple(at(f0 + k, r) for k in range(4)))
    for f in range(SIZE):
        for r0 in (0, 1):
            lines.append(tuple(at(f, r0 + k) for k in range(4)))
    if diagonals in ("long", "all"):  # a1-e5 and a5-e1, two windows each
        for s in (0, 1):
            lines.append(tuple(at(s + k, s + k) for k in range(4)))
            lines.append(tuple(at(s + k, 4 - s - k) for k in range(4)))
    if diagonals in ("short", "all"):  # b1-e4, a2-d5, a4-d1, b5-e2
        lines.append(tuple(at(1 + k, k) for k in range(4)))
        lines.append(tuple(at(k, 1 + k) for k in range(4)))
        lines.append(tuple(at(k, 3 - k) for k in range(4)))
        lines.append(tuple(at(1 + k, 4 - k) for k in range(4)))
    lines.append((at(0, 0), at(4, 0), at(0, 4), at(4, 4)))
    return tuple(lines)


CONFIGURATIONS: dict[str, tuple[tuple[int, ...], ...]] = {
    d: _configurations(d) for d in DIAGONAL_CHOICES
}
# For each cell, the other three cells of every configuration through it.
THROUGH: dict[str, tuple[tuple[tuple[int, ...], ...], ...]] = {
    d: tuple(
        tuple(tuple(x for x in line if x != i) for line in lines if i in line)
        for i in range(len(CELLS))
    )
    for d, lines in CONFIGURATIONS.items()
}


def _complete(board: list[str], line: tuple[int, ...]) -> bool:
    mask = 15
    for i in line:
        mask &= MASK[board[i]]
    return mask != 0


class Tessere(Game[TessereMove]):
    """The 5x5 colour-checker game: shared checkers, one block each, 4 sharing a colour win."""

    name = "tessere"
    params = (
        Param(
            "diagonals",
            "long",
            "which diagonals count: long (the two 5-cell diagonals, 25 configurations), "
            "short (the four 4-cell diagonals, 25) or all (29)",
            choices=DIAGONAL_CHOICES,
        ),
        Param(
            "on_timeout",
            "warn",
            "when the move time runs out: warn (advisory only), lose (the player to move "
            "loses), pass (the player to move loses the turn)",
            choices=TIMEOUT_CHOICES,
        ),
        Param("move_seconds", 60, "seconds per move; 0 = no limit", minimum=0),
    )
    needs = "identity"
    player_names = PLAYER_NAMES
    CONFORMANCE_PARAMS: ClassVar[tuple[dict[str, Any], ...]] = (
        {"diagonals": "short"},
        {"diagonals": "all", "on_timeout": "pass"},
    )
    # The state (copied by ``_snapshot``):
    board: list[str]  # token per cell index, "" for empty
    supply: dict[str, int]  # shared checkers off the board, by token
    blocks: list[int]  # players in the order they placed their block
    block_at: list[int]  # cell index of each player's block, -1 while in hand
    to_move: int
    result: Outcome | None
    win_cells: tuple[int, ...]

    # ----------------------------------------------------------------- public extras
    @property
    def configurations(self) -> tuple[tuple[str, ...], ...]:
        """The winning configurations of this game's ``diagonals`` setting, as cell names."""
        return tuple(
            tuple(CELLS[i] for i in line) for line in CONFIGURATIONS[self.options["diagonals"]]
        )

    def off_board(self) -> dict[str, int]:
        """Every token -> how many such pieces are still off the board (``K``: blocks).

        At the start: ``{"R": 1, ..., "RY": 3, ..., "RYGB": 1, "K": 2}``.
        """
        counts = dict(self.supply)
        counts[BLOCK] = 2 - len(self.blocks)
        return counts

    def block_cell(self, player: int) -> str | None:
        """Where ``player``'s block stands, or None while it is off the board."""
        at = self.block_at[player]
        return CELLS[at] if at >= 0 else None

    def winning_cells(self) -> tuple[str, ...]:
        """The cells of the completed configuration(s) once the game is won by a line, else ()."""
        if self.outcome() != self.result:  # adjudicated (a loss on time) after all
            return ()
        return tuple(CELLS[i] for i in self.win_cells)

    @property
    def move_seconds(self) -> float | None:
        """The per-move limit of the rules (``move_seconds``), None when it is 0."""
        seconds = self.options["move_seconds"]
        return float(seconds) if seconds else None

    # ----------------------------------------------------------------- rules
    def _setup(self) -> None:
        self._through = THROUGH[self.options["diagonals"]]
        self.board = [""] * len(CELLS)
        self.supply = dict(CHECKERS)
        self.blocks = []
        self.block_at = [-1, -1]
        self.to_move = 0
        self.result = None
        self.win_cells = ()

    def _snapshot(self) -> Any:  # the default, written out: it runs on every action
        return (
            list(self.board),
            dict(self.supply),
            list(self.blocks),
            list(self.block_at),
            self.to_move,
            self.result,
            self.win_cells,
        )

    def _restore(self, state: Any) -> None:
        board, supply, blocks, block_at, self.to_move, self.result, self.win_cells = state
        self.board, self.supply = list(board), dict(supply)
        self.blocks, self.block_at = list(blocks), list(block_at)

    def _nothing_to_place(self) -> bool:
        return self.block_at[self.to_move] >= 0 and not any(self.supply.values())

    def _legal_moves(self) -> list[TessereMove]:
        if self._nothing_to_place():
            return [PASS]
        empty = [i for i, token in enumerate(self.board) if not token]
        # One C-level call per token: itemgetter picks the empty cells' moves from a row.
        pick = itemgetter(*empty) if len(empty) > 1 else lambda row: (row[empty[0]],)
        moves: list[TessereMove] = []
        for token, left in self.supply.items():
            if left:
                moves.extend(pick(PLACE[token]))
        if self.block_at[self.to_move] < 0:
            moves.extend(pick(PLACE[BLOCK]))
        if self.options["on_timeout"] == "pass":
            moves.append(PASS)
        return moves

    def _apply(self, move: TessereMove) -> None:
        player = self.to_move
        self.to_move = 1 - player
        if isinstance(move, Pass):
            return
        cell = INDEX[move.cell]
        token = move.token
        board = self.board
        board[cell] = token
        if token == BLOCK:
            self.blocks.append(player)
            self.block_at[player] = cell
        else:
            self.supply[token] -= 1
            won: set[int] = set()
            mask = MASK[token]
            for others in self._through[cell]:
                m = mask
                for i in others:
                    m &= MASK[board[i]]
                if m:
                    won.update(others)
            if won:
                won.add(cell)
                self.win_cells = tuple(sorted(won))
                self.result = Outcome(player, Reason.LINE)
                return
        if all(board):
            self.result = Outcome(self.blocks[1], Reason.SECOND_BLOCK)

    def _current_player(self) -> int:
        return self.to_move

    def _outcome(self) -> Outcome | None:
        return self.result

    def _time_out(self, player: int) -> Outcome | None:
        if self.outcome() is not None or player != self.to_move:
            return None  # a stale report (the turn is already over) must not cost a turn
        policy = self.options["on_timeout"]
        if policy == "lose":
            return Outcome(1 - player, Reason.TIME)
        if policy == "pass":
            self.apply(PASS)  # an action, so the history and the records keep the lost turn
        return None

    def _explain(self, move: TessereMove) -> str:
        me = PLAYER_NAMES[self.to_move]
        if isinstance(move, Pass):
            return (
                f"passing is not allowed (on_timeout is {self.options['on_timeout']}); "
                "place a checker or your block"
            )
        if self._nothing_to_place():
            return f"{me} has nothing left to place (only the opponent's block): play pass"
        cell = INDEX[move.cell]
        if self.board[cell]:
            return f"{move.cell} is occupied (by {self.board[cell]})"
        if move.token == BLOCK:
            return f"your block is already on the board at {CELLS[self.block_at[self.to_move]]}"
        total = CHECKERS[move.token]
        if total == 1:
            at = self.board.index(move.token)
            return f"the {move.token} checker is already on the board at {CELLS[at]}"
        return f"all {total} {move.token} checkers are already on the board"

    # ----------------------------------------------------------------- notation
    def _parse_move(self, text: str) -> TessereMove:
        if text.lower() == "pass":
            return PASS
        token, at, cell = text.partition("@")
        token, cell = token.strip().upper(), cell.strip().lower()
        if not at or not token or not cell:
            raise ValueError(
                f"{text!r} is not a tessere move; write a checker and a cell like RY@c3, "
                "K@c3 for your block, or pass"
            )
        if cell not in INDEX:
            raise ValueError(f"{cell!r} is not a cell of the 5x5 board; cells are a1 ... e5")
        return PLACE[_canonical_token(token)][INDEX[cell]]

    # ----------------------------------------------------------------- serialisation
    def _state_dict(self) -> dict[str, Any]:
        return {
            "board": {CELLS[i]: t for i, t in enumerate(self.board) if t},
            "blocks": [[p, CELLS[self.block_at[p]]] for p in self.blocks],
            "to_move": self.to_move,
            "outcome": self.result.to_dict() if self.result else None,
        }

    def _load_state(self, d: dict[str, Any]) -> None:
        """Load a position; ValueError says what is inconsistent.

        ``board`` maps cells to tokens; ``blocks`` lists ``[player, cell]`` in the order the
        blocks were placed (the later one wins a full board); ``to_move`` is 0 or 1;
        ``outcome`` may be omitted: a full board is then decided by the blocks, and a board
        that already shows a completed configuration is refused (who completed it is unknown).
        """
        self._setup()
        for cell, raw in dict(d.get("board", {})).items():
            if cell not in INDEX:
                raise ValueError(f"{cell!r} is not a cell of the 5x5 board; cells are a1 ... e5")
            token = _canonical_token(str(raw).upper())
            if token != BLOCK:
                if self.supply[token] == 0:
                    raise ValueError(f"too many {token} checkers: the set has {CHECKERS[token]}")
                self.supply[token] -= 1
            self.board[INDEX[cell]] = token
        for entry in d.get("blocks", []):
            player, cell = entry if len(entry) == 2 else (None, None)
            if player not in (0, 1) or self.block_at[player] >= 0:
                raise ValueError(f"blocks: {entry!r} (each player 0 or 1 places one block)")
            if cell not in INDEX or self.board[INDEX[cell]] != BLOCK:
                raise ValueError(f"blocks: {entry!r} but there is no K on {cell!r}")
            self.blocks.append(player)
            self.block_at[player] = INDEX[cell]
        if self.board.count(BLOCK) != len(self.blocks):
            raise ValueError("every K on the board must be listed in blocks as [player, cell]")
        self.to_move = d.get("to_move", 0)
        if type(self.to_move) is not int or self.to_move not in (0, 1):
            raise ValueError(f"to_move must be 0 or 1, got {self.to_move!r}")
        complete = sorted(
            {i for line in CONFIGURATIONS[self.options["diagonals"]] for i in line
             if _complete(self.board, line)}
        )  # fmt: skip
        if d.get("outcome"):
            self.result = Outcome.from_dict(d["outcome"])
            if self.result.reason == "line":
                if not complete:
                    raise ValueError("the outcome says line but no configuration is complete")
                self.win_cells = tuple(complete)
        elif complete:
            raise ValueError(
                "the board already has a complete configuration ("
                + " ".join(CELLS[i] for i in complete)
                + "): give the outcome too"
            )
        elif all(self.board):
            self.result = Outcome(self.blocks[1], Reason.SECOND_BLOCK)

    # ----------------------------------------------------------------- views
    def _view(self) -> dict[str, str]:
        return dict(zip(CELLS, self.board, strict=True))

    def _cell_text(self, cell: int) -> str:
        token = self.board[cell] or "."
        if token == BLOCK:  # the ASCII board says whose block it is: K1, K2
            token += str(self.block_at.index(cell) + 1)
        return token

    def _board_str(self) -> str:
        files = "    " + "".join(f"{chr(ord('a') + f):<6}" for f in range(SIZE))
        rows = [files.rstrip()]
        for r in range(SIZE - 1, -1, -1):
            tokens = (self._cell_text(r * SIZE + f) for f in range(SIZE))
            rows.append(f"{r + 1}   " + "".join(f"{t:<6}" for t in tokens) + f"{r + 1}")
        rows.append(files.rstrip())
        left = [f"{t}x{n}" if n > 1 else t for t, n in self.supply.items() if n]
        blocks = [PLAYER_NAMES[p] for p in (0, 1) if self.block_at[p] < 0]
        rows.append("off the board: " + (" ".join(left) or "no checkers"))
        rows.append("blocks in hand: " + (", ".join(blocks) or "none"))
        return "\n".join(rows)


def _canonical_token(token: str) -> str:
    """``"yr"`` -> ``"RY"``; ValueError for anything that is not a piece of the set."""
    if token == BLOCK:
        return BLOCK
    known = ", ".join(CHECKERS)
    if set(token) - set(COLOURS) or len(set(token)) != len(token):
        raise ValueError(
            f"{token!r} is not a checker: write its colours once each in the order R Y G B "
            f"({known}), or K for your block"
        )
    canonical = "".join(c for c in COLOURS if c in token)
    if canonical not in CHECKERS:
        raise ValueError(f"no checker has the colours {canonical}: the set has {known}")
    return canonical
