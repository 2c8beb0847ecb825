"""Quixo (Gigamic, Thierry Chapeau, 1995): push cubes in from the edge, make a line of five.

Rules as implemented (RULES.md section 2, seed 001, Hungarian edition):

- The board holds ``size`` x ``size`` cubes (5x5; 3x3 and 4x4 for study), all blank face
  up at the start. One side plays circles (``O``), the other crosses (``X``); circles start
  unless ``first="cross"``. Player 0 is always the side that moves first.
- A move takes one cube from the border (the outer ring), blank or showing the mover's
  mark, never the opponent's; the cube goes back with the mover's mark on top, pushed in at
  an end of the row or column the gap left, but never where it was taken. The cubes
  between that end and the gap slide one step towards the gap. A corner has 2 ways to
  push in, any other border cube 3: at most 44 moves on the 5x5 board.
- After the move every line (rows, columns, the two long diagonals) is checked: a line of
  the opponent's mark loses for the mover, even if the mover completed a line of their own
  at the same time; otherwise a line of the mover's mark wins. Lines are ended at once
  (``require_announcement`` is not offered: see docs/games/quixo.md).
- The official game has no draw. Optional: ``threefold_repetition`` (the same board with
  the same player to move for the third time) and ``max_plies`` (a move cap). Agreed draws
  and resignations are recorded from outside with ``Game.adjudicate``.

Four players (``players=4``): two teams, partners facing each other. Seats, turn order
clockwise seen from above: 0 = A1 at the south edge (rank 1 side; the first player),
1 = B1 west (file a side), 2 = A2 north, 3 = B2 east. Team A plays the first mark. Every
marked cube carries a dot pointing at one edge of the board: n (towards rank ``size``),
e, s, w. A dot "points at" the player seated at that edge. A player may take a blank cube,
or a cube of the team's mark whose dot points at them; they put it back with the dot
pointing at themselves or at their partner (``sideways_dots=True`` also allows the two
opponents' edges). A player with nothing to take misses the turn: the engine passes the
turn on by itself (the skipped seats are in the state as ``skipped``), so ``legal_moves()``
is never empty while the game runs. A full round in which nobody can move is a draw
("blocked"); it cannot happen unless dots may point sideways. The team that
first has a line wins, whichever way its dots point; ``Outcome.winner`` is the team's
first seat (0 or 1) and ``Outcome.winners`` both seats.

Notation: ``a1>e1`` takes the cube at a1 and pushes it in at e1 (it ends up on e1; b1 ... e1
slide to a1 ... d1). With four players the dot follows: ``a1>e1:n``.

Tokens (``view()``): ``.`` a blank face up, ``O``, ``X``; with four players ``On`` ``Oe``
``Os`` ``Ow`` ``Xn`` ... with the dot. Every cell holds a cube, so an occupancy sensor sees a
full board all game: Quixo needs ``identity`` (the camera).

>>> g = Quixo()
>>> len(g.legal_moves())
44
>>> g.apply("a1>e1")
>>> g.view()["e1"], g.view()["a1"], g.current_player
('O', '.', 1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from .base import Capability, Game, Outcome, Param, Reason

BLANK = "."
DIRECTIONS = ("n", "e", "s", "w")
_DIRECTION_NAMES = {"n": "north", "e": "east", "s": "south", "w": "west"}
_OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
# Four-player seats, clockwise seen from above starting at the first player (south).
SEAT_EDGES = ("s", "w", "n", "e")
SEAT_LABELS = ("A1", "B1", "A2", "B2")
_MARK_NAMES = {"O": "Circle", "X": "Cross"}


_MOVE_RE = re.compile(r"^([a-z]\d+)>([a-z]\d+)(?::([a-z]+))?$")


@dataclass(frozen=True, slots=True)
class QuixoMove:
    """Take the border cube at ``take``, push it in at ``push``; ``dot`` for 4 players."""

    take: str
    push: str
    dot: str = ""

    def __str__(self) -> str:
        text = f"{self.take}>{self.push}"
        return f"{text}:{self.dot}" if self.dot else text


@dataclass(frozen=True)
class _Geometry:
    """Cells, border, push-in ends, slide paths and lines of one board size."""

    size: int
    cells: tuple[str, ...]  # index rank * size + file, from a1
    index: dict[str, int]
    border: tuple[int, ...]
    ends: dict[int, tuple[int, ...]]  # border cell -> where its cube may be pushed in
    lines: tuple[tuple[int, ...], ...]
    path: dict[tuple[int, int], tuple[int, ...]]  # (take, push) -> cells from gap to end
    lines_through: dict[tuple[int, int], tuple[tuple[int, ...], ...]]  # lines a push changes


@cache
def _geometry(n: int) -> _Geometry:
    cells = tuple(f"{chr(ord('a') + i % n)}{i // n + 1}" for i in range(n * n))
    index = {c: i for i, c in enumerate(cells)}
    last = n - 1
    border = tuple(i for i in range(n * n) if i % n in (0, last) or i // n in (0, last))
    lines = (
        [tuple(r * n + f for f in range(n)) for r in range(n)]
        + [tuple(r * n + f for r in range(n)) for f in range(n)]
        + [tuple(k * n + k for k in range(n)), tuple(k * n + last - k for k in range(n))]
    )
    ends: dict[int, tuple[int, ...]] = {}
    path: dict[tuple[int, int], tuple[int, ...]] = {}
    through: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}
    for i in border:
        r, f = divmod(i, n)
        # The ends of the gap's row and of its column, but not the gap itself.
        targets = sorted({r * n, r * n + last, f, last * n + f} - {i})
        ends[i] = tuple(targets)
        for t in targets:
            step = (1 if t > i else -1) * (1 if t // n == r else n)
            cells_on = tuple(range(i, t + step, step))
            path[(i, t)] = cells_on
            touched = set(cells_on)
            through[(i, t)] = tuple(line for line in lines if touched & set(line))
    return _Geometry(n, cells, index, border, ends, tuple(lines), path, through)


@dataclass(frozen=True)
class _MoveTable:
    """Every move object of one rule configuration, built once."""

    # per seat (one entry per player index): border cell -> the moves taking it
    by_take: tuple[dict[int, tuple[QuixoMove, ...]], ...]
    plan: dict[QuixoMove, tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]]
    canonical: dict[QuixoMove, QuixoMove]


@cache
def _move_table(n: int, players: int, sideways: bool) -> _MoveTable:
    geo = _geometry(n)
    plan: dict[QuixoMove, tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}
    made: dict[QuixoMove, QuixoMove] = {}  # one object per move, shared by the seats
    by_take: list[dict[int, tuple[QuixoMove, ...]]] = []
    for seat in range(players):
        if players == 2:
            dots: tuple[str, ...] = ("",)
        elif sideways:
            dots = DIRECTIONS
        else:
            edge = SEAT_EDGES[seat]
            dots = tuple(d for d in DIRECTIONS if d in (edge, _OPPOSITE[edge]))
        table: dict[int, tuple[QuixoMove, ...]] = {}
        for i in geo.border:
            moves = []
            for t in geo.ends[i]:
                for d in dots:
                    move = QuixoMove(geo.cells[i], geo.cells[t], d)
                    move = made.setdefault(move, move)
                    plan[move] = (geo.path[(i, t)], geo.lines_through[(i, t)])
                    moves.append(move)
            table[i] = tuple(moves)
        by_take.append(table)
    return _MoveTable(tuple(by_take), plan, made)


class Quixo(Game[QuixoMove]):
    """Quixo for 2 players, or 4 players in two teams; see the module docstring."""

    name = "quixo"
    needs: ClassVar[Capability] = "identity"
    params = (
        Param("players", 2, "2 players, or 4 in two teams (partners sit opposite)", choices=(2, 4)),
        Param(
            "first",
            "circle",
            "which mark moves first (the Hungarian edition: circle)",
            choices=("circle", "cross"),
        ),
        Param(
            "size", 5, "board size; 3x3 and 4x4 are first-player wins, for study", choices=(3, 4, 5)
        ),
        Param(
            "sideways_dots",
            False,
            "4 players: a dot may also point at an opponent (the rules allow only "
            "the mover or the partner)",
        ),
        Param(
            "threefold_repetition",
            False,
            "draw when the same board with the same player to move occurs a third time "
            "(the official game has no draw)",
        ),
        Param(
            "max_plies", 0, "draw after this many moves in all; 0 = no cap (official)", minimum=0
        ),
    )
    CONFORMANCE_PARAMS: ClassVar[tuple[dict[str, Any], ...]] = (
        {"players": 4},
        {"players": 4, "sideways_dots": True},
        {"first": "cross", "size": 3},
        {"size": 4, "threefold_repetition": True, "max_plies": 60},
    )

    # ----------------------------------------------------------------- setup
    def _setup(self) -> None:
        n: int = self.options["size"]
        players: int = self.options["players"]
        self._geo = _geometry(n)
        self._table = _move_table(n, players, self.options["sideways_dots"])
        first = "O" if self.options["first"] == "circle" else "X"
        second = "X" if first == "O" else "O"
        if players == 2:
            self._marks: tuple[str, ...] = (first, second)
            self.player_names = (_MARK_NAMES[first], _MARK_NAMES[second])
        else:
            self._marks = (first, second, first, second)
            self.player_names = tuple(
                f"{_MARK_NAMES[self._marks[s]]} {_DIRECTION_NAMES[SEAT_EDGES[s]]} "
                f"({SEAT_LABELS[s]})"
                for s in range(4)
            )
        self._players = players
        self._cap: int = self.options["max_plies"]
        self._repetition: bool = self.options["threefold_repetition"]
        self.board: list[str] = [BLANK] * (n * n)  # the top face's mark
        self.dots: list[str] = [""] * (n * n)  # 4 players: the dot's edge, "" on blanks
        self.player = 0
        self.ply = 0  # moves played since the start position
        self.skipped: list[int] = []  # seats that missed their turn after the last move
        self.result: Outcome | None = None

    # ----------------------------------------------------------------- moves
    def _legal_moves(self) -> list[QuixoMove]:
        board = self.board
        mark = self._marks[self.player]
        out: list[QuixoMove] = []
        if self._players == 2:
            for i, moves in self._table.by_take[self.player].items():
                top = board[i]
                if top in (BLANK, mark):
                    out += moves
        else:
            dots = self.dots
            edge = SEAT_EDGES[self.player]
            for i, moves in self._table.by_take[self.player].items():
                top = board[i]
                if top == BLANK or (top == mark and dots[i] == edge):
                    out += moves
        return out

    def _can_move(self, seat: int) -> bool:
        board, dots = self.board, self.dots
        mark, edge = self._marks[seat], SEAT_EDGES[seat]
        for i in self._geo.border:
            top = board[i]
            if top == BLANK or (top == mark and dots[i] == edge):
                return True
        return False

    def _apply(self, move: QuixoMove) -> None:
        path, lines = self._table.plan[move]
        board = self.board
        mark = self._marks[self.player]
        last = len(path) - 1
        for k in range(last):
            board[path[k]] = board[path[k + 1]]
        board[path[last]] = mark
        if move.dot:
            dots = self.dots
            for k in range(last):
                dots[path[k]] = dots[path[k + 1]]
            dots[path[last]] = move.dot
        self.ply += 1
        self.skipped = []
        own = other = False
        for line in lines:
            top = board[line[0]]
            if top == BLANK:
                continue
            for i in line:
                if board[i] != top:
                    break
            else:
                if top == mark:
                    own = True
                else:
                    other = True
        if other:
            self.result = self._team_outcome(self.player + 1, Reason.OPPONENT_LINE)
            return
        if own:
            self.result = self._team_outcome(self.player, Reason.LINE)
            return
        self._pass_turn()
        if self.result is None and self._repetition and self._seen(self._position_key()) >= 2:
            self.result = Outcome(None, Reason.THREEFOLD_REPETITION)
        if self.result is None and self._cap and self.ply >= self._cap:
            self.result = Outcome(None, Reason.MOVE_CAP)

    def _pass_turn(self) -> None:
        """Hand the turn on; with 4 players skip seats with nothing to take."""
        players = self._players
        seat = (self.player + 1) % players
        if players == 2:
            self.player = seat
            return
        for _ in range(players):
            if self._can_move(seat):
                self.player = seat
                return
            self.skipped.append(seat)
            seat = (seat + 1) % players
        self.player = seat
        self.result = Outcome(None, Reason.BLOCKED)

    def resignation(self, player: int) -> Outcome:
        """The other team (or player) wins; with four players both partners resign."""
        return self._team_outcome(player + 1, Reason.RESIGNATION)

    def _team_outcome(self, seat: int, reason: Reason) -> Outcome:
        players = self.num_players
        team = seat % 2
        winners = tuple(s for s in range(players) if s % 2 == team)
        return Outcome(team, reason, winners)

    def _position_key(self) -> tuple[str, str, int] | None:
        if not self._repetition:
            return None
        return ("".join(self.board), "".join(d or "-" for d in self.dots), self.player)

    def _current_player(self) -> int:
        return self.player

    def winning_cells(self) -> tuple[str, ...]:
        """The cells of every full line of the winning team's mark, once won by a line."""
        result = self.result
        if result is None or result.winner is None:
            return ()
        mark = self._marks[result.winner]
        board, geo = self.board, self._geo
        cells = {geo.cells[i] for line in geo.lines if all(board[i] == mark for i in line)
                 for i in line}
        return tuple(sorted(cells))

    def _outcome(self) -> Outcome | None:
        return self.result

    # ----------------------------------------------------------------- notation
    def _parse_move(self, text: str) -> QuixoMove:
        example = "a1>e1:n" if self.num_players == 4 else "a1>e1"
        found = _MOVE_RE.match(text.lower().replace(" ", ""))
        if not found:
            raise ValueError(
                f"{text!r} is not a Quixo move: write the cube you take, '>', and the cell "
                f"where you push it in, e.g. {example}"
            )
        take, push, dot = found.group(1), found.group(2), found.group(3) or ""
        for cell in (take, push):
            if cell not in self._geo.index:
                raise ValueError(
                    f"{cell!r} is not a cell of the {self._geo.size}x{self._geo.size} quixo "
                    f"board; cells are a1 ... {self._geo.cells[-1]}"
                )
        if dot and dot not in DIRECTIONS:
            raise ValueError(
                f"{dot!r} is not a dot direction; use n, e, s or w "
                f"(n = towards rank {self._geo.size}, the far side from the first player)"
            )
        move = QuixoMove(take, push, dot)
        return self._table.canonical.get(move, move)

    def _explain(self, move: QuixoMove) -> str:
        geo = self._geo
        if move.take not in geo.index or move.push not in geo.index:
            return f"cells are a1 ... {geo.cells[-1]}"
        i, t = geo.index[move.take], geo.index[move.push]
        if i not in geo.ends:
            return f"{move.take} is inside the board: take a cube from the outer ring"
        if t == i:
            return f"the cube may not go back where it was taken ({move.take})"
        if t not in geo.ends[i]:
            options = " or ".join(geo.cells[e] for e in geo.ends[i])
            return (
                f"{move.push} is not an end of {move.take}'s row or column: push it in at {options}"
            )
        mark = self._marks[self.player]
        top = self.board[i]
        if top not in (BLANK, mark):
            return (
                f"{move.take} shows the other side's mark ({top}): take a blank cube "
                f"or one of yours"
            )
        if self.num_players == 2:
            if move.dot:
                return f"the 2-player game has no dots: write {move.take}>{move.push}"
            return "not a legal move in this position"
        edge = SEAT_EDGES[self.player]
        if top == mark and self.dots[i] != edge:
            return (
                f"the dot on {move.take} points {_DIRECTION_NAMES[self.dots[i]]}, not at you "
                f"({_DIRECTION_NAMES[edge]}): you may take only blank cubes and your "
                f"team's cubes whose dot points at you"
            )
        allowed = [m.dot for m in self._table.by_take[self.player][i] if m.push == move.push]
        if not move.dot:
            choices = " or ".join(f"{move.take}>{move.push}:{d}" for d in allowed)
            return f"say which way the dot points: {choices}"
        if move.dot not in allowed:
            return (
                f"the dot must point at you ({edge}) or your partner ({_OPPOSITE[edge]}), "
                f"not {move.dot}"
            )
        return "not a legal move in this position"

    # ----------------------------------------------------------------- state
    def _snapshot(self) -> Any:
        return (self.board[:], self.dots[:], self.player, self.ply, self.skipped[:], self.result)

    def _restore(self, state: Any) -> None:
        board, dots, self.player, self.ply, skipped, self.result = state
        self.board, self.dots, self.skipped = board[:], dots[:], skipped[:]

    def _token(self, i: int) -> str:
        return self.board[i] + self.dots[i]

    def _state_dict(self) -> dict[str, Any]:
        n = self._geo.size
        rows = [" ".join(self._token(r * n + f) for f in range(n)) for r in reversed(range(n))]
        return {
            "board": rows,
            "to_move": self.player,
            "ply": self.ply,
            "skipped": list(self.skipped),
            "outcome": self.result.to_dict() if self.result else None,
        }

    def _load_state(self, d: dict[str, Any]) -> None:
        """Load ``d``: ``board`` is a list of rows, top rank first, tokens split by spaces.

        ``to_move`` (default 0), ``ply`` (0), ``skipped`` ([]) and ``outcome`` are optional.
        Without an outcome, a line already on the board ends the game as if the player
        before ``to_move`` had just made it; with 4 players, a seat that cannot move is
        skipped at once.
        """
        n, players = self._geo.size, self.num_players
        rows = d.get("board")
        if not isinstance(rows, list) or len(rows) != n:
            raise ValueError(f"board must be a list of {n} rows, top rank ({n}) first")
        tokens: list[str] = []
        for r, row in zip(range(n, 0, -1), rows, strict=True):
            cells = str(row).split()
            if len(cells) != n:
                raise ValueError(f"rank {r} must have {n} tokens, got {row!r}")
            tokens += cells
        board, dots = [BLANK] * (n * n), [""] * (n * n)
        for k, tok in enumerate(tokens):
            i = (n - 1 - k // n) * n + k % n
            board[i], dots[i] = self._check_token(tok, self._geo.cells[i])
        player = d.get("to_move", 0)
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < players:
            raise ValueError(f"to_move must be a player index 0 ... {players - 1}, got {player!r}")
        ply = d.get("ply", 0)
        if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
            raise ValueError(f"ply must be a count of moves (0 or more), got {ply!r}")
        skipped = d.get("skipped", [])
        if not isinstance(skipped, list) or not all(
            isinstance(s, int) and 0 <= s < players for s in skipped
        ):
            raise ValueError(f"skipped must be a list of player indices, got {skipped!r}")
        skipped = list(skipped)
        self.board, self.dots, self.player, self.ply = board, dots, player, ply
        self.skipped = skipped
        self.result = None
        recorded = d.get("outcome")
        if recorded is not None:
            self.result = Outcome.from_dict(recorded)
            return
        self._judge_loaded()

    def _check_token(self, tok: str, cell: str) -> tuple[str, str]:
        if tok == BLANK:
            return BLANK, ""
        mark, dot = tok[:1], tok[1:]
        if self.num_players == 2:
            if tok in ("O", "X"):
                return tok, ""
            raise ValueError(f"{cell}: {tok!r} is not a 2-player token; use '.', 'O' or 'X'")
        if mark not in ("O", "X") or dot not in DIRECTIONS:
            raise ValueError(
                f"{cell}: {tok!r} is not a 4-player token; use '.', or O or X followed by "
                f"the dot's direction n, e, s or w (e.g. 'On')"
            )
        if not self.options["sideways_dots"]:
            team_edges = [SEAT_EDGES[s] for s in range(4) if self._marks[s] == mark]
            if dot not in team_edges:
                raise ValueError(
                    f"{cell}: {tok!r} points at an opponent, which the rules never allow "
                    f"(set sideways_dots=true for such positions)"
                )
        return mark, dot

    def _judge_loaded(self) -> None:
        """A loaded position's result: lines on the board, then the 4-player skip rule."""
        board, players = self.board, self.num_players
        marks_with_line = set()
        for line in self._geo.lines:
            top = board[line[0]]
            if top != BLANK and all(board[i] == top for i in line):
                marks_with_line.add(top)
        if marks_with_line:
            mover = (self.player - 1) % players
            if self._marks[(mover + 1) % players] in marks_with_line:
                self.result = self._team_outcome(mover + 1, Reason.OPPONENT_LINE)
            else:
                self.result = self._team_outcome(mover, Reason.LINE)
            return
        if players == 4 and not self._can_move(self.player):
            self.player = (self.player - 1) % players
            self.skipped = []
            self._pass_turn()
        if self.result is None and self._cap and self.ply >= self._cap:
            self.result = Outcome(None, Reason.MOVE_CAP)

    # ----------------------------------------------------------------- display
    def _view(self) -> dict[str, str]:
        board, dots = self.board, self.dots
        return {cell: board[i] + dots[i] for i, cell in enumerate(self._geo.cells)}

    def _board_str(self) -> str:
        n = self._geo.size
        width = 2 if self.num_players == 4 else 1
        lines = []
        for r in reversed(range(n)):
            row = " ".join(self._token(r * n + f).ljust(width) for f in range(n))
            lines.append(f"{r + 1} {row}".rstrip())
        lines.append("  " + " ".join(chr(ord("a") + f).ljust(width) for f in range(n)).rstrip())
        if self.result is not None:
            if self.result.winner is None:
                lines.append(f"draw ({self.result.reason})")
            else:
                names = " and ".join(self.player_names[w] for w in self.result.winners)
                lines.append(f"{names} won ({self.result.reason})")
        else:
            status = f"{self.player_names[self.player]} to move"
            if self.skipped:
                missed = ", ".join(self.player_names[s] for s in self.skipped)
                status += f" ({missed} could not move)"
            lines.append(status)
        return "\n".join(lines)
