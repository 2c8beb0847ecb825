"""Draughts (Dame, checkers, shashki) on the 8x8 board: seed 004, RULES.md section 6.

Rules as implemented
--------------------
- 8x8 board, play on the 32 dark squares (a1 is dark). Player 0 moves first and starts with 12
  men on ranks 1-3, player 1 with 12 men on ranks 6-8. Player 0 is White, except with
  ``first_player="black"`` (``english``): then Black sits on ranks 1-3 and moves first.
- A man moves one square diagonally forward onto an empty square. It captures by jumping an
  adjacent opposing piece onto the empty square right behind it: forward only, or in all four
  directions with ``men_capture_backward``.
- A king moves any distance along a diagonal over empty squares (``flying_kings``; otherwise
  one square). A flying king captures from a distance: it passes over empty squares, jumps the
  one opposing piece it meets and lands on any empty square behind it (long landing), or only
  on the square right behind it with ``king_short_landing``. It cannot jump two pieces at once.
- Capture chains: after a jump, the same piece may jump again (zig-zag allowed). Every jump is
  its own action; the turn passes when the chain ends. A piece is never jumped twice, and the
  pieces captured in a chain stay on the board as blockers (they cannot be jumped or passed
  over) until the chain ends, when they are all removed (the "Turkish strike" rule).
- Promotion: a man whose move ends on the far rank becomes a king. A man that reaches the far
  rank in the middle of a chain (``promotion_mid_capture``): ``international`` stays a man and
  goes on capturing as a man, promoted only if the chain ends there; ``russian`` is promoted
  at once and goes on capturing as a king; ``english``: the chain ends on promotion.
- Capture obligation (``capture``):
  - ``compulsory``: a player who can capture must, and must finish the chain: while the
    capturing piece can jump again it must. A flying king that can go on capturing from some
    landing square behind the piece it jumps must land on such a square.
    With ``majority`` the player must choose a chain that takes the most pieces (kings and men
    count the same), and every jump must keep to such a chain.
  - ``huff`` (the seed): capturing is optional, and a chain may be stopped early with the
    ``stop`` action (never huffable). A player who makes a non-capturing move while any of
    their pieces (man or king) could capture may be huffed: at the start of the next turn
    the opponent may remove one piece that could have captured, as an action before moving
    (``huff d4``): the moved piece if it could have captured, otherwise a piece of the
    opponent's choice among those that could. The huff does not use up the opponent's move
    (``huff_uses_move`` makes it the whole turn); the right lapses once the opponent moves.
    With ``huff_may_force`` the opponent may instead ``force``: the non-capturing move is
    taken back and the offender must capture (the chain then follows the usual rules).
  - ``free``: capturing is optional and nothing happens to a missed capture; chains may stop.
- End: a player with no piece, or no legal action, at the start of their turn loses. Draws
  (each a parameter): one king against one king (``draw_king_vs_king``), one king against two
  kings (``draw_king_vs_two_kings``), the third occurrence of a position with the same player
  to move (``threefold_repetition``), ``king_moves_draw`` moves of each player in a row with
  kings only and no capture (0: off).

Variants (``variant``): ``dame`` (the seed, the defaults above), ``german`` (compulsory,
men capture backwards, K v K and K v 2K draws), ``russian`` (compulsory, men capture
backwards, mid-capture promotion, 15 king-only moves draw), ``brazilian`` (compulsory,
men capture backwards, majority rule), ``english`` (compulsory, men capture forward, short
kings, the chain ends on promotion, Black first; no K v K draw).

Notation: cells a1 ... h8 (dark squares only). A quiet move ``c3-d4``; one jump ``c3xe5``
(a king's long jump names its landing square: ``a1xf6``); a huff ``huff d4`` (the square of
the piece removed); stopping a chain early ``stop e5`` (the square where the capturing piece
stands); forcing a missed capture ``force``. In ``english``, moves may also be typed in the
1-32 checkers numbering (``9-13``, ``9x18``); they print in cell names. A whole turn is
recorded with :func:`turn_text` (``c3xe5xg7``, ``huff d4 c3-d4``) and read back with
:func:`turn_actions`.

Tokens (``view()``): ``W`` and ``B`` for men, ``WK`` and ``BK`` for kings (a king is a double
stack, which a camera sees); an occupancy sensor is enough (``needs = "occupancy"``). During a
chain the pieces already jumped are reported as gone (players lift them as they go), although
the rules still treat them as blockers until the chain ends.

>>> g = Draughts()
>>> g.apply("c3-d4")
>>> g.current_player, g.view()["d4"], g.view()["c3"]
(1, 'W', '')
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any, ClassVar

from .base import Game, Outcome, Param, Reason

# ----------------------------------------------------------------------------- geometry
# Square index = 4 * rank + file // 2 over the dark squares only (rank and file from 0).
SIZE = 8
N_SQUARES = 32


def _name(file: int, rank: int) -> str:
    return f"{chr(ord('a') + file)}{rank + 1}"


CELLS: tuple[str, ...] = tuple(
    _name(f, r) for r in range(SIZE) for f in range(SIZE) if (f + r) % 2 == 0
)
INDEX: dict[str, int] = {name: i for i, name in enumerate(CELLS)}
_RANK: tuple[int, ...] = tuple(int(name[1]) - 1 for name in CELLS)
_FILE: tuple[int, ...] = tuple(ord(name[0]) - ord("a") for name in CELLS)
# Directions as (file step, rank step): 0 and 1 go up the board (player 0's forward).
_DIRS: tuple[tuple[int, int], ...] = ((1, 1), (-1, 1), (1, -1), (-1, -1))
_FORWARD: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 1), (2, 3))
_CROWN: tuple[int, int] = (SIZE - 1, 0)  # the rank where each player's men promote


def _ray(sq: int, d: int) -> tuple[int, ...]:
    df, dr = _DIRS[d]
    f, r = _FILE[sq] + df, _RANK[sq] + dr
    out = []
    while 0 <= f < SIZE and 0 <= r < SIZE:
        out.append(INDEX[_name(f, r)])
        f, r = f + df, r + dr
    return tuple(out)


_RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(sq, d) for d in range(4)) for sq in range(N_SQUARES)
)

# Piece codes on the internal board. DEAD marks a piece jumped in the chain under way: it
# blocks like a piece but can be neither jumped nor passed over, and goes when the chain ends.
EMPTY, DEAD = 0, 5
MAN: tuple[int, int] = (1, 3)
KING: tuple[int, int] = (2, 4)
# _ENEMY[side][code]: is a piece with this code an opposing piece that may be jumped?
_ENEMY: tuple[tuple[bool, ...], ...] = (
    (False, False, False, True, True, False),
    (False, True, True, False, False, False),
)


# _CODE_ONLY[code]: a bytes.translate table that keeps ``code`` (as 1) and blanks the rest,
# so that itertools.compress lists the squares holding it.
_CODE_ONLY: tuple[bytes, ...] = tuple(bytes(c == code for c in range(256)) for code in range(6))
_SQUARES: tuple[int, ...] = tuple(range(N_SQUARES))

# The start position: player 0's men on ranks 1-3, player 1's on ranks 6-8.
_START = bytes(
    MAN[0] if _RANK[sq] < 3 else MAN[1] if _RANK[sq] >= SIZE - 3 else EMPTY
    for sq in range(N_SQUARES)
)


# ----------------------------------------------------------------------------- moves
QUIET, JUMP, HUFF, STOP, FORCE = "-", "x", "huff", "stop", "force"


@dataclass(frozen=True, slots=True, repr=False)
class DraughtsMove:
    """One atomic draughts action; ``str`` is its notation, ``repr`` pastes back.

    ``kind`` is ``"-"`` (quiet move), ``"x"`` (one jump of a chain), ``"huff"``, ``"stop"``
    (end a chain early) or ``"force"``; ``src`` and ``dst`` are square indices (see
    :data:`CELLS`; -1 when unused), so ``from_cell`` and ``to_cell`` name them. Build moves
    with :meth:`from_text` (or :meth:`Draughts.parse_move`, which also reads the English
    1-32 numbering) or take them from ``legal_moves()``: the module keeps one object per move.

    >>> DraughtsMove.from_text("c3xe5")
    DraughtsMove.from_text('c3xe5')
    >>> DraughtsMove.from_text("c3xe5").from_cell
    'c3'
    """

    kind: str
    src: int = -1
    dst: int = -1

    def __str__(self) -> str:
        if self.kind == QUIET or self.kind == JUMP:
            return f"{CELLS[self.src]}{self.kind}{CELLS[self.dst]}"
        if self.kind == FORCE:
            return FORCE
        return f"{self.kind} {CELLS[self.src]}"

    def __repr__(self) -> str:
        return f"DraughtsMove.from_text({str(self)!r})"

    @property
    def from_cell(self) -> str:
        """The cell the action starts from (the piece moved, huffed or stopped); '' if none."""
        return CELLS[self.src] if self.src >= 0 else ""

    @property
    def to_cell(self) -> str:
        """The cell a move or jump lands on; '' for the other actions."""
        return CELLS[self.dst] if self.kind in (QUIET, JUMP) else ""

    @staticmethod
    def from_text(text: str) -> DraughtsMove:
        """The action written ``text`` in cell names (``c3-d4``, ``c3xe5``, ``huff d4``,
        ``stop e5``, ``force``); ValueError if it is none."""
        return _parse(text, numbered=False)


def _on_diagonal(a: int, b: int) -> bool:
    return a != b and abs(_FILE[a] - _FILE[b]) == abs(_RANK[a] - _RANK[b])


def _between(a: int, b: int) -> tuple[int, ...]:
    df = 1 if _FILE[b] > _FILE[a] else -1
    dr = 1 if _RANK[b] > _RANK[a] else -1
    d = _DIRS.index((df, dr))
    ray = _RAYS[a][d]
    return ray[: ray.index(b)]


# One object per move, built once: the hot path never constructs a dataclass.
_QUIET_MOVE: dict[tuple[int, int], DraughtsMove] = {}
_JUMP_MOVE: dict[tuple[int, int], DraughtsMove] = {}
_BETWEEN: dict[tuple[int, int], tuple[int, ...]] = {}
for _a in range(N_SQUARES):
    for _b in range(N_SQUARES):
        if _on_diagonal(_a, _b):
            _QUIET_MOVE[_a, _b] = DraughtsMove(QUIET, _a, _b)
            _JUMP_MOVE[_a, _b] = DraughtsMove(JUMP, _a, _b)
            _BETWEEN[_a, _b] = _between(_a, _b)
_HUFF_MOVE: tuple[DraughtsMove, ...] = tuple(DraughtsMove(HUFF, s, s) for s in range(N_SQUARES))
_STOP_MOVE: tuple[DraughtsMove, ...] = tuple(DraughtsMove(STOP, s, s) for s in range(N_SQUARES))
_FORCE_MOVE = DraughtsMove(FORCE)

_Jump = tuple[tuple[int, int, DraughtsMove], ...]  # (jumped, landing, move) per direction
_Ray = tuple[tuple[int, DraughtsMove, DraughtsMove], ...]  # (square, quiet, jump) outward


def _jumps(sq: int, dirs: Iterable[int]) -> _Jump:
    out = []
    for d in dirs:
        ray = _RAYS[sq][d]
        if len(ray) >= 2:
            out.append((ray[0], ray[1], _JUMP_MOVE[sq, ray[1]]))
    return tuple(out)


# A man's neighbourhood in one table, so that one pass over its directions finds both its
# steps and its jumps: (neighbour, the step there or None, landing square, the jump or
# None) per direction, for men that capture forward only or in all four directions.
_ManDir = tuple[int, DraughtsMove | None, int, DraughtsMove | None]


def _man_dirs(sq: int, side: int, backward: bool) -> tuple[_ManDir, ...]:
    out = []
    for d in range(4):
        ray = _RAYS[sq][d]
        if not ray:
            continue
        forward = d in _FORWARD[side]
        if not forward and not backward:
            continue
        step = _QUIET_MOVE[sq, ray[0]] if forward else None
        land = ray[1] if len(ray) >= 2 else ray[0]
        jump = _JUMP_MOVE[sq, ray[1]] if len(ray) >= 2 else None
        out.append((ray[0], step, land, jump))
    return tuple(out)


# _MAN_DIRS[backward][side][sq]
_MAN_DIRS: tuple[tuple[tuple[tuple[_ManDir, ...], ...], ...], ...] = tuple(
    tuple(tuple(_man_dirs(sq, side, backward) for sq in range(N_SQUARES)) for side in (0, 1))
    for backward in (False, True)
)
# A short king's neighbourhood, as _MAN_DIRS for a man: (neighbour, step, landing, the jump
# or None) in each of the four directions.
_KingDir = tuple[int, DraughtsMove, int, DraughtsMove | None]
_KING_DIRS: tuple[tuple[_KingDir, ...], ...] = tuple(
    tuple(
        (ray[0], _QUIET_MOVE[sq, ray[0]], ray[1] if len(ray) >= 2 else ray[0],
         _JUMP_MOVE[sq, ray[1]] if len(ray) >= 2 else None)
        for ray in _RAYS[sq]
        if ray
    )
    for sq in range(N_SQUARES)
)
_JUMPS_FORWARD: tuple[tuple[_Jump, ...], ...] = tuple(
    tuple(_jumps(sq, _FORWARD[side]) for sq in range(N_SQUARES)) for side in (0, 1)
)
_JUMPS_ALL: tuple[_Jump, ...] = tuple(_jumps(sq, range(4)) for sq in range(N_SQUARES))
_KING_RAYS: tuple[tuple[_Ray, ...], ...] = tuple(
    tuple(
        tuple((t, _QUIET_MOVE[sq, t], _JUMP_MOVE[sq, t]) for t in _RAYS[sq][d])
        for d in range(4)
        if _RAYS[sq][d]
    )
    for sq in range(N_SQUARES)
)


# Checkers numbering (English): 1-32 from player 0's side, each row from player 0's right.
def _number_to_square(n: int) -> int:
    return 4 * ((n - 1) // 4) + 3 - (n - 1) % 4


_NUMBER: tuple[int, ...] = tuple(
    sorted(range(1, 33), key=_number_to_square)
)  # _NUMBER[sq] = checkers number of square sq

_MOVE_RE = re.compile(r"([a-z]+\d+|\d+)\s*([-x])\s*([a-z]+\d+|\d+)")

_Groups = list[tuple[int, list[tuple[int, DraughtsMove]]]]  # (jumped, [(landing, move)])


def _square(text: str, numbered: bool) -> int:
    """The square named ``text`` (a cell, or with ``numbered`` a checkers number 1-32)."""
    if text.isdigit():
        if not numbered:
            raise ValueError(
                f"{text!r}: numbered squares (1-32) are English checkers notation; "
                "write cells such as c3"
            )
        n = int(text)
        if not 1 <= n <= N_SQUARES:
            raise ValueError(f"{text!r} is not a square number; squares are 1 ... 32")
        return _number_to_square(n)
    if text in INDEX:
        return INDEX[text]
    if re.fullmatch(r"[a-h][1-8]", text):
        raise ValueError(
            f"{text!r} is a light square; draughts is played on the dark squares "
            "(a1, c1, ... h8)"
        )
    raise ValueError(
        f"{text!r} is not a cell of the draughts board; cells are the dark squares "
        "a1, c1, e1, g1, b2 ... h8"
    )


def _parse(text: str, numbered: bool) -> DraughtsMove:
    """The action written ``text``; the module's one object for it."""
    t = text.strip().lower()
    if t == FORCE:
        return _FORCE_MOVE
    word, _, rest = t.partition(" ")
    if word in (HUFF, STOP) and rest.strip():
        sq = _square(rest.strip(), numbered)
        return (_HUFF_MOVE if word == HUFF else _STOP_MOVE)[sq]
    if t.count("x") > 1 or t.count("-") > 1:
        raise ValueError(f"{text!r} is a whole turn; enter one jump at a time (c3xe5, then e5xg7)")
    m = _MOVE_RE.fullmatch(t)
    if m is None:
        raise ValueError(
            f"{text!r} is not a draughts action; write c3-d4 (move), c3xe5 (one jump), "
            "huff d4, stop e5 or force"
        )
    src, sep, dst = _square(m[1], numbered), m[2], _square(m[3], numbered)
    if not _on_diagonal(src, dst):
        raise ValueError(f"{text!r}: {CELLS[src]} and {CELLS[dst]} are not on one diagonal")
    if sep == JUMP:
        if len(_BETWEEN[src, dst]) == 0:
            raise ValueError(
                f"{text!r}: a jump passes over a piece, so it goes at least two squares"
            )
        return _JUMP_MOVE[src, dst]
    return _QUIET_MOVE[src, dst]


# ----------------------------------------------------------------------------- the game
class Draughts(Game[DraughtsMove]):
    """Draughts on 8x8: the seed's Dame and the German, Russian, Brazilian, English rules."""

    name = "draughts"
    needs = "occupancy"
    params = (
        Param(
            "capture",
            "huff",
            "capture obligation: huff (optional, a missed capture may be huffed), "
            "compulsory, or free (optional, never punished)",
            choices=("huff", "compulsory", "free"),
        ),
        Param(
            "huff_may_force",
            False,
            "instead of huffing, the opponent may force the missed capture to be played",
        ),
        Param(
            "huff_uses_move",
            False,
            "huffing is the huffer's whole turn (default: huff, then move)",
        ),
        Param("men_capture_backward", False, "men capture backwards as well as forwards"),
        Param("flying_kings", True, "kings move and capture any distance along a diagonal"),
        Param(
            "king_short_landing",
            False,
            "a flying king lands right behind the piece it captures (default: any empty "
            "square behind it)",
        ),
        Param(
            "promotion_mid_capture",
            "international",
            "a man reaching the far rank mid-chain: international (stays a man, promoted "
            "only if the chain ends there), russian (promoted, goes on as a king), english "
            "(the chain ends there)",
            choices=("international", "russian", "english"),
        ),
        Param("majority", False, "a capture must take the most pieces (needs compulsory)"),
        Param(
            "first_player",
            "white",
            "the colour of player 0, who starts on ranks 1-3 and moves first",
            choices=("white", "black"),
        ),
        Param("draw_king_vs_king", True, "one king against one king is a draw"),
        Param("draw_king_vs_two_kings", False, "one king against two kings is a draw"),
        Param("threefold_repetition", True, "the third occurrence of a position is a draw"),
        Param(
            "king_moves_draw",
            0,
            "draw after this many moves of each player in a row with kings only and no "
            "capture (0: off; the Russian club rule uses 15 or 25)",
            minimum=0,
        ),
    )
    variants: ClassVar[dict[str, dict[str, Any]]] = {
        "dame": {},
        "german": {
            "capture": "compulsory",
            "men_capture_backward": True,
            "draw_king_vs_two_kings": True,
        },
        "russian": {
            "capture": "compulsory",
            "men_capture_backward": True,
            "promotion_mid_capture": "russian",
            "draw_king_vs_king": False,
            "king_moves_draw": 15,
        },
        "brazilian": {
            "capture": "compulsory",
            "men_capture_backward": True,
            "majority": True,
            "draw_king_vs_king": False,
        },
        "english": {
            "capture": "compulsory",
            "flying_kings": False,
            "promotion_mid_capture": "english",
            "first_player": "black",
            "draw_king_vs_king": False,
        },
    }
    CONFORMANCE_PARAMS: ClassVar[tuple[dict[str, Any], ...]] = (
        {"huff_may_force": True},
        {"huff_uses_move": True, "king_short_landing": True},
        {"capture": "free", "men_capture_backward": True, "promotion_mid_capture": "russian"},
        {"variant": "german", "king_moves_draw": 25, "draw_king_vs_king": False},
    )

    # ------------------------------------------------------------------ setup
    @classmethod
    def turn_notation(cls, texts: list[str]) -> str:
        """A whole turn for records: the jumps of a chain joined (``c3xe5xg7``), a ``stop``
        left out, a huff before the move (``huff d4 c3-d4``)."""
        out: list[str] = []
        for text in texts:
            if text.startswith("stop"):
                continue
            if out and "x" in text and "x" in out[-1] and not out[-1].startswith("huff") \
                    and out[-1].rsplit("x", 1)[1] == text.split("x", 1)[0]:
                out[-1] += text[text.index("x"):]
            else:
                out.append(text)
        return " ".join(out)

    def _setup(self) -> None:
        o = self.options
        if o["majority"] and o["capture"] != "compulsory":
            raise ValueError(
                "draughts: majority=True needs capture='compulsory' (a player who may "
                "stop a chain or skip a capture cannot be made to take the most pieces)"
            )
        self._compulsory = o["capture"] == "compulsory"
        self._huffing = o["capture"] == "huff"
        self._flying = bool(o["flying_kings"])
        self._short_landing = bool(o["king_short_landing"])
        self._promo = str(o["promotion_mid_capture"])
        self._majority = bool(o["majority"])
        self._king_draws = bool(o["draw_king_vs_king"] or o["draw_king_vs_two_kings"])
        self._king_moves_limit = int(o["king_moves_draw"])
        self._threefold = bool(o["threefold_repetition"])
        backward = bool(o["men_capture_backward"])
        self._man_jumps = (
            (_JUMPS_ALL, _JUMPS_ALL) if backward else (_JUMPS_FORWARD[0], _JUMPS_FORWARD[1])
        )
        self._man_dirs = _MAN_DIRS[backward]
        first = "W" if o["first_player"] == "white" else "B"
        second = "B" if first == "W" else "W"
        self._colours = (first, second)
        self.player_names = ("White", "Black") if first == "W" else ("Black", "White")
        self._tokens = ("", first, first + "K", second, second + "K", "")
        self._board = bytearray(_START)  # one byte per square: cheap to copy and scan
        self._turn = 0
        self._chain = -1  # square of the piece capturing in a chain under way, else -1
        self._captured: tuple[int, ...] = ()  # squares jumped in that chain (DEAD)
        self._huff: tuple[int, ...] = ()  # squares the player to move may huff
        self._force: tuple[tuple[int, ...], int] | None = None  # (board, quiet) to go back to
        self._must = False  # a forced turn: the player must capture
        self._quiet = 0  # turns in a row of king moves without capture
        self._result: Outcome | None = None
        # The legal actions, generated when first asked for (None until then): a position
        # reached at a leaf of a search is never asked, and never pays for them.
        self._next: tuple[DraughtsMove, ...] | None = None

    # ------------------------------------------------------------------ state
    def _snapshot(self) -> Any:
        return (
            bytes(self._board),
            self._turn,
            self._chain,
            self._captured,
            self._huff,
            self._force,
            self._must,
            self._quiet,
            self._result,
            self._next,
        )

    def _restore(self, state: Any) -> None:
        (
            board,
            self._turn,
            self._chain,
            self._captured,
            self._huff,
            self._force,
            self._must,
            self._quiet,
            self._result,
            self._next,
        ) = state
        self._board = bytearray(board)

    def _current_player(self) -> int:
        return self._turn

    def _outcome(self) -> Outcome | None:
        if self._next is None:
            self._moves()  # "no legal action" is an outcome too
        return self._result

    def _legal_moves(self) -> tuple[DraughtsMove, ...]:
        moves = self._next  # generated already: the base asks _outcome first
        return self._moves() if moves is None else moves

    def _moves(self) -> tuple[DraughtsMove, ...]:
        """The legal actions; generated on first use, and the game lost without any."""
        moves = self._next
        if moves is None:
            self._next = moves = self._turn_moves()
            if not moves:
                board, me = self._board, self._turn
                # A loss outranks a draw found at the start of the turn.
                if board.count(MAN[me]) + board.count(KING[me]):
                    self._result = Outcome(1 - me, Reason.BLOCKED)
                else:
                    self._result = Outcome(1 - me, Reason.NO_PIECES)
        return moves

    # No _position_key: no key is recorded per action (that would cost every push);
    # :meth:`_repeats` finds earlier occurrences in the undo stack's snapshots instead.
    def _repeats(self) -> int:
        """How often the current position (board, player to move, huff rights, a forced
        capture) occurred before in this game: the threefold-repetition count.

        Only the last ``quiet`` actions can have left it, each a king's quiet move: a
        man's move, a capture or a huff changes the position for good.
        """
        board, turn, huff, must = self._board, self._turn, self._huff, self._must
        count = 0
        undo = self._undo
        for k in range(1, min(self._quiet, len(undo)) + 1):
            state = undo[-k][0]  # the _snapshot taken before that action
            if state[1] == turn and state[0] == board and state[4] == huff \
                    and state[6] == must and state[2] < 0:
                count += 1
        return count

    # ------------------------------------------------------------------ move generation
    def _landed(self, code: int, land: int) -> tuple[int, bool]:
        """The code of a piece that jumped onto ``land``, and whether its chain may go on."""
        if code & 1 and _RANK[land] == _CROWN[code >> 1]:
            if self._promo == "russian":
                return code + 1, True
            if self._promo == "english":
                return code, False
        return code, True

    def _piece_jumps(self, sq: int, code: int) -> _Groups:
        """The jumps of the piece ``code`` on ``sq``, grouped by the piece they take."""
        board = self._board
        side = (code - 1) >> 1
        enemy = _ENEMY[side]
        out: _Groups = []
        if code & 1:
            for over, land, move in self._man_jumps[side][sq]:
                if enemy[board[over]] and not board[land]:
                    out.append((over, [(land, move)]))
        elif self._flying:
            for ray in _KING_RAYS[sq]:
                i, n = 0, len(ray)
                while i < n and not board[ray[i][0]]:
                    i += 1
                if i >= n - 1 or not enemy[board[ray[i][0]]]:
                    continue
                lands: list[tuple[int, DraughtsMove]] = []
                for t, _quiet, jump in ray[i + 1 :]:
                    if board[t]:
                        break
                    lands.append((t, jump))
                    if self._short_landing:
                        break
                if lands:
                    out.append((ray[i][0], lands))
        else:
            for over, land, move in _JUMPS_ALL[sq]:
                if enemy[board[over]] and not board[land]:
                    out.append((over, [(land, move)]))
        return out

    def _jump_after(self, sq: int, code: int, over: int, land: int) -> tuple[int, int]:
        """Play the jump sq x over -> land on the board: (old code of ``over``, new code)."""
        board = self._board
        taken = board[over]
        board[sq] = EMPTY
        board[over] = DEAD
        code2, _go_on = self._landed(code, land)
        board[land] = code2
        return taken, code2

    def _continues(self, sq: int, code: int, over: int, land: int) -> bool:
        """Whether the piece can jump again after the jump sq x over -> land."""
        if not self._landed(code, land)[1]:
            return False
        board = self._board
        taken, code2 = self._jump_after(sq, code, over, land)
        more = bool(self._piece_jumps(land, code2))
        board[land], board[over], board[sq] = EMPTY, taken, code
        return more

    def _depth(self, sq: int, code: int) -> int:
        """The most pieces the piece ``code`` on ``sq`` can still take in this chain."""
        best = 0
        for over, lands in self._piece_jumps(sq, code):
            for land, _move in lands:
                depth = self._depth_after(sq, code, over, land)
                if depth > best:
                    best = depth
        return best

    def _depth_after(self, sq: int, code: int, over: int, land: int) -> int:
        if not self._landed(code, land)[1]:
            return 1
        board = self._board
        taken, code2 = self._jump_after(sq, code, over, land)
        depth = 1 + self._depth(land, code2)
        board[land], board[over], board[sq] = EMPTY, taken, code
        return depth

    def _options(self, sq: int, code: int) -> list[tuple[int, int, DraughtsMove]]:
        """The jumps the piece may make now: (jumped, landing, move), landing rule applied."""
        out = []
        for over, lands in self._piece_jumps(sq, code):
            if len(lands) > 1 and self._compulsory:
                # A king that can go on capturing must land where it can (it must finish).
                going_on = [(t, m) for t, m in lands if self._continues(sq, code, over, t)]
                if going_on:
                    lands = going_on
            for land, move in lands:
                out.append((over, land, move))
        return out

    def _most(self, options: list[tuple[int, int, int, DraughtsMove]]) -> list[DraughtsMove]:
        """The majority rule: of the jumps (src, code, jumped, move), those that start a
        chain taking the most pieces."""
        scored = [
            (self._depth_after(sq, code, over, move.dst), move) for sq, code, over, move in options
        ]
        best = max(depth for depth, _ in scored)
        return [move for depth, move in scored if depth == best]

    def _turn_moves(self) -> tuple[DraughtsMove, ...]:
        """Every legal action at the start of a turn (huffs and force first)."""
        board = self._board
        side = self._turn
        man, king = MAN[side], KING[side]
        enemy = _ENEMY[side]
        man_dirs = self._man_dirs[side]
        caps: list[DraughtsMove] = []
        quiets: list[DraughtsMove] = []
        # The squares of the men found in C (translate marks them, compress picks them),
        # not by a Python loop over all 32 squares.
        for sq in compress(_SQUARES, board.translate(_CODE_ONLY[man])):
            # One look at each neighbour: empty, a step (forward only); an enemy, a jump
            # if the square behind it is free. Captures come first in the end anyway.
            for over, step, land, jump in man_dirs[sq]:
                there = board[over]
                if not there:
                    if step is not None:
                        quiets.append(step)
                elif jump is not None and enemy[there] and not board[land]:
                    caps.append(jump)
        kings = compress(_SQUARES, board.translate(_CODE_ONLY[king])) if king in board else ()
        if self._flying:
            for sq in kings:
                options = self._options(sq, king)
                if options:
                    caps.extend(move for _over, _land, move in options)
                for ray in _KING_RAYS[sq]:
                    for t, quiet, _jump in ray:
                        if board[t]:
                            break
                        quiets.append(quiet)
        else:  # a short king: one look at each neighbour, as for a man
            for sq in kings:
                for over, kstep, land, jump in _KING_DIRS[sq]:
                    there = board[over]
                    if not there:
                        quiets.append(kstep)
                    elif jump is not None and enemy[there] and not board[land]:
                        caps.append(jump)
        if caps and self._majority:
            caps = self._most([(m.src, board[m.src], self._jumped(m), m) for m in caps])
        # Where capturing is optional, captures and quiet moves are both on offer.
        moves = (caps or quiets) if self._compulsory or self._must else caps + quiets
        if self._huff:
            extra = [_HUFF_MOVE[sq] for sq in self._huff]
            if self._force is not None:
                extra.append(_FORCE_MOVE)
            return (*extra, *moves)
        return tuple(moves)

    def _jumped(self, move: DraughtsMove) -> int:
        """The square a legal jump takes: the one occupied square between src and dst."""
        board = self._board
        for sq in _BETWEEN[move.src, move.dst]:
            if board[sq]:
                return sq
        raise AssertionError(f"{move} jumps nothing")

    def _chain_moves(self, sq: int, code: int) -> list[DraughtsMove]:
        """The next jumps of a chain under way (majority and landing rule applied)."""
        options = self._options(sq, code)
        if not options:
            return []
        if self._majority and len(options) > 1:
            return self._most([(sq, code, over, move) for over, _land, move in options])
        return [move for _over, _land, move in options]

    # ------------------------------------------------------------------ applying
    def _apply(self, move: DraughtsMove) -> None:
        kind = move.kind
        board = self._board
        if kind == QUIET:
            src, dst = move.src, move.dst
            code = board[src]
            self._huff, self._force = (), None  # an unused huff lapses
            if self._huffing:
                capturers = {m.src for m in self._moves() if m.kind == JUMP}
                if capturers:  # a missed capture: the opponent may huff
                    self._huff = (dst,) if src in capturers else tuple(sorted(capturers))
                    if self.options["huff_may_force"]:
                        self._force = (tuple(board), self._quiet)
            board[src] = EMPTY
            if code & 1:
                self._quiet = 0
                if _RANK[dst] == _CROWN[self._turn]:
                    code += 1
            else:
                self._quiet += 1
            board[dst] = code
            self._end_turn()
        elif kind == JUMP:
            src, dst = move.src, move.dst
            code = board[src]
            over = self._jumped(move)
            board[src] = EMPTY
            board[over] = DEAD
            self._captured = (*self._captured, over)
            code, go_on = self._landed(code, dst)
            board[dst] = code
            nxt = self._chain_moves(dst, code) if go_on else []
            if nxt:
                self._chain = dst
                self._huff, self._force, self._must = (), None, False
                if not self._compulsory:
                    nxt.append(_STOP_MOVE[dst])
                self._next = tuple(nxt)
            else:
                self._end_chain(dst)
        elif kind == STOP:
            self._end_chain(move.src)
        elif kind == HUFF:
            board[move.src] = EMPTY
            self._huff, self._force, self._quiet = (), None, 0
            if self.options["huff_uses_move"]:
                self._end_turn()
            else:
                self._start_turn(check_repetition=True, check_opponent=True)
        else:  # FORCE: take the missed capture's move back; the offender must capture
            assert self._force is not None
            before, quiet = self._force
            self._board = bytearray(before)
            self._quiet = quiet
            self._huff, self._force = (), None
            self._turn ^= 1
            self._must = True
            self._start_turn(check_repetition=True)

    def _end_chain(self, sq: int) -> None:
        board = self._board
        for over in self._captured:
            board[over] = EMPTY
        self._captured = ()
        self._chain = -1
        code = board[sq]
        if code & 1 and _RANK[sq] == _CROWN[self._turn]:
            board[sq] = code + 1
        self._huff, self._force = (), None
        self._quiet = 0
        self._end_turn()

    def _end_turn(self) -> None:
        self._turn ^= 1
        self._must = False
        self._start_turn(check_repetition=True)

    def _start_turn(self, check_repetition: bool, check_opponent: bool = False) -> None:
        """The player to move begins (part of) a turn: the outcome, except "no legal
        action", which :meth:`_moves` decides when the actions are first asked for."""
        self._next = None
        self._result = None
        board = self._board
        me = self._turn
        if check_opponent and not board.count(MAN[1 - me]) + board.count(KING[1 - me]):
            self._result = Outcome(me, Reason.NO_PIECES)
            return
        if self._king_draws and N_SQUARES - board.count(EMPTY) <= 3:
            o = self.options
            pieces = N_SQUARES - board.count(EMPTY)
            kings = (board.count(KING[0]), board.count(KING[1]))
            if pieces == 2 and kings == (1, 1) and o["draw_king_vs_king"]:
                self._result = Outcome(None, Reason.KING_VS_KING)
                return
            if pieces == 3 and sorted(kings) == [1, 2] and o["draw_king_vs_two_kings"]:
                self._result = Outcome(None, Reason.KING_VS_TWO_KINGS)
                return
        quiet = self._quiet
        limit = self._king_moves_limit
        if limit and quiet >= 2 * limit:
            self._result = Outcome(None, Reason.KING_MOVES)
        elif (
            check_repetition
            and quiet >= 8  # a position recurs only after 4 reversible turns
            and self._threefold
            and self._repeats() >= 2
        ):
            self._result = Outcome(None, Reason.THREEFOLD_REPETITION)

    # ------------------------------------------------------------------ notation
    def _square(self, text: str) -> int:
        return _square(text, numbered=self.options["variant"] == "english")

    def _parse_move(self, text: str) -> DraughtsMove:
        return _parse(text, numbered=self.options["variant"] == "english")

    # ------------------------------------------------------------------ explanations
    def expectation(self) -> str:
        """A chain under way ('White's capture chain must go on from e5'), a forced capture,
        a huff that may be taken; '' otherwise."""
        if self._result is not None:
            return ""
        name = self.player_names[self._turn]
        jumps = [str(m) for m in self._moves() if m.kind == JUMP]
        if self._chain >= 0:
            at = CELLS[self._chain]
            if self._compulsory:
                return f"{name}'s capture chain must go on from {at} ({', '.join(jumps)})"
            return f"{name}'s capture chain may go on from {at} ({', '.join(jumps)}) or stop"
        if jumps and (self._compulsory or self._must):
            return f"{name} must capture: {', '.join(jumps)}"
        if self._huff:
            targets = ", ".join(CELLS[s] for s in self._huff)
            return f"{name} to move; may first huff {targets} (a capture was missed)"
        return ""

    def _explain(self, move: DraughtsMove) -> str:
        board = self._board
        me = self._turn
        legal = self._moves()
        kind = move.kind
        if self._chain >= 0:
            at = CELLS[self._chain]
            options = ", ".join(str(m) for m in legal if m.kind == JUMP)
            if kind == JUMP and move.src == self._chain:
                return self._explain_jump(move) or f"the piece on {at} can jump: {options}"
            if self._compulsory:
                return f"finish the capture: the piece on {at} must jump again ({options})"
            return f"the piece on {at} may jump again ({options}) or stop (stop {at})"
        if kind == STOP:
            return "there is no capture under way to stop"
        if kind == HUFF:
            if not self._huff:
                return "there is nothing to huff: your opponent did not miss a capture"
            targets = ", ".join(CELLS[s] for s in self._huff)
            return f"{CELLS[move.src]} cannot be huffed; you may huff {targets}"
        if kind == FORCE:
            if self._force is None:
                return "there is no missed capture to force"
            return "forcing a missed capture is not allowed in these rules"
        code = board[move.src]
        src, dst = CELLS[move.src], CELLS[move.dst]
        if code == EMPTY:
            return f"there is no piece on {src}"
        if code not in (MAN[me], KING[me]):
            return f"the piece on {src} is not yours"
        if board[move.dst]:
            return f"{dst} is occupied"
        if kind == QUIET:
            if code & 1:
                if _RANK[move.dst] - _RANK[move.src] != (1 if me == 0 else -1):
                    if (_RANK[move.dst] > _RANK[move.src]) != (me == 0):
                        return "a man moves forward only"
                    return "a man moves one square"
            elif not self._flying and len(_BETWEEN[move.src, move.dst]) > 0:
                return "a king moves one square in these rules"
            for sq in _BETWEEN[move.src, move.dst]:
                if board[sq]:
                    return f"the way from {src} to {dst} is blocked at {CELLS[sq]}"
            caps = [str(m) for m in legal if m.kind == JUMP]
            if caps and (self._compulsory or self._must):
                return f"you must capture: {', '.join(caps)}"
            return "not a legal move in this position"
        return self._explain_jump(move) or "not a legal move in this position"

    def _explain_jump(self, move: DraughtsMove) -> str:
        board = self._board
        me = self._turn
        code = board[move.src]
        src, dst = CELLS[move.src], CELLS[move.dst]
        if board[move.dst]:
            return f"the landing square {dst} is occupied"
        between = [sq for sq in _BETWEEN[move.src, move.dst] if board[sq]]
        if not between:
            return f"there is no piece to jump between {src} and {dst}"
        if len(between) > 1:
            names = " and ".join(CELLS[sq] for sq in between[:2])
            return f"a jump takes one piece at a time; {names} are both in the way"
        over = between[0]
        if board[over] == DEAD:
            return f"the piece on {CELLS[over]} is already taken in this capture"
        if not _ENEMY[me][board[over]]:
            return f"you cannot jump your own piece on {CELLS[over]}"
        gap = _BETWEEN[move.src, move.dst].index(over)
        after = len(_BETWEEN[move.src, move.dst]) - gap - 1
        if code & 1 or not self._flying:
            piece = "a man" if code & 1 else "a king"
            if gap or after:
                return f"{piece} jumps an adjacent piece onto the square right behind it"
            backward = (_RANK[move.dst] > _RANK[move.src]) != (me == 0)
            if code & 1 and backward and not self.options["men_capture_backward"]:
                return "a man captures forward only in these rules"
        elif after and self._short_landing:
            return "a king lands on the square right behind the piece it captures"
        jumps = [m for m in self._moves() if m.kind == JUMP]
        if self._majority:
            return f"you must take the most pieces: play {', '.join(map(str, jumps))}"
        if self._compulsory and any(m.src == move.src for m in jumps):
            return "the king must land where it can go on capturing: " + ", ".join(
                str(m) for m in jumps if m.src == move.src
            )
        if self._must and jumps:
            return f"you must capture: {', '.join(map(str, jumps))}"
        return ""

    # ------------------------------------------------------------------ serialisation
    def _board_dict(self, board: Sequence[int]) -> dict[str, str]:
        tokens = self._tokens
        return {CELLS[sq]: tokens[code] for sq, code in enumerate(board) if tokens[code]}

    def _state_dict(self) -> dict[str, Any]:
        force = None
        if self._force is not None:
            force = {"board": self._board_dict(self._force[0]), "quiet": self._force[1]}
        return {
            "board": self._board_dict(self._board),
            "turn": self._turn,
            "chain": CELLS[self._chain] if self._chain >= 0 else None,
            "captured": [CELLS[sq] for sq in self._captured],
            "huff": [CELLS[sq] for sq in self._huff],
            "force": force,
            "must_capture": self._must,
            "quiet": self._quiet,
            "outcome": result.to_dict() if (result := self._outcome()) else None,
        }

    def _read_board(self, cells: Any) -> list[int]:
        codes = {tok: code for code, tok in enumerate(self._tokens) if tok}
        board = [EMPTY] * N_SQUARES
        if not isinstance(cells, dict):
            raise ValueError("draughts position: 'board' must map cells to W, WK, B or BK")
        for name, token in cells.items():
            sq = self._square(str(name).lower())
            if token in ("", None):
                continue
            if token not in codes:
                raise ValueError(
                    f"draughts position: {name}: unknown piece {token!r}; pieces are W, WK, B, BK"
                )
            board[sq] = codes[token]
        return board

    def _load_state(self, d: dict[str, Any]) -> None:
        board = self._read_board(d.get("board", {}))
        turn = d.get("turn", 0)
        if isinstance(turn, str):
            names = [n.lower() for n in self.player_names]
            if turn.lower() not in names:
                raise ValueError(f"draughts position: turn must be 0, 1 or {names}, got {turn!r}")
            turn = names.index(turn.lower())
        if turn not in (0, 1):
            raise ValueError(f"draughts position: turn must be 0 or 1, got {turn!r}")
        chain = d.get("chain")
        chain_sq = self._square(chain) if chain else -1
        captured = tuple(self._square(c) for c in d.get("captured", ()))
        for sq in captured:
            board[sq] = DEAD
        for sq, code in enumerate(board):
            if code in MAN and _RANK[sq] == _CROWN[code >> 1] and sq != chain_sq:
                raise ValueError(
                    f"draughts position: a man on {CELLS[sq]} would have been crowned; "
                    "write it as a king"
                )
        if chain_sq >= 0 and board[chain_sq] not in (MAN[turn], KING[turn]):
            raise ValueError(f"draughts position: no piece of the player to move on {chain}")
        self._board = bytearray(board)
        self._turn = turn
        self._chain = chain_sq
        self._captured = captured
        self._huff = tuple(self._square(c) for c in d.get("huff", ()))
        for sq in self._huff:
            if board[sq] not in (MAN[1 - turn], KING[1 - turn]):
                raise ValueError(
                    f"draughts position: huff {CELLS[sq]}: no piece of the opponent there"
                )
        force = d.get("force")
        self._force = None
        if force is not None:
            self._force = (tuple(self._read_board(force["board"])), int(force.get("quiet", 0)))
        self._must = bool(d.get("must_capture", False))
        self._quiet = int(d.get("quiet", 0))
        if chain_sq >= 0:
            nxt = self._chain_moves(chain_sq, board[chain_sq])
            if not nxt:
                raise ValueError(f"draughts position: the piece on {chain} cannot jump again")
            if not self._compulsory:
                nxt.append(_STOP_MOVE[chain_sq])
            self._next = tuple(nxt)
            self._result = None
        else:
            self._start_turn(check_repetition=False, check_opponent=True)
        if d.get("outcome"):
            self._moves()  # decided now, so the recorded outcome is the last word
            self._result = Outcome.from_dict(d["outcome"])

    def _view(self) -> dict[str, str]:
        tokens = self._tokens
        board = self._board
        return {CELLS[sq]: tokens[board[sq]] for sq in range(N_SQUARES)}

    def _board_str(self) -> str:
        first, second = self._colours
        glyph = (".", first.lower(), first, second.lower(), second, "x")
        lines = ["   +-----------------+"]
        for rank in range(SIZE - 1, -1, -1):
            row = []
            for file in range(SIZE):
                name = _name(file, rank)
                row.append(glyph[self._board[INDEX[name]]] if name in INDEX else " ")
            lines.append(f" {rank + 1} | {' '.join(row)} |")
        lines.append("   +-----------------+")
        lines.append("     a b c d e f g h")
        r = self._outcome()
        if r is not None:
            who = "draw" if r.winner is None else f"{self.player_names[r.winner]} wins"
            lines.append(f"{who}: {r.reason}")
        else:
            status = f"{self.player_names[self._turn]} to move"
            if self._chain >= 0:
                status += f", capturing with the piece on {CELLS[self._chain]}"
            if self._huff:
                status += f", may huff {' '.join(CELLS[s] for s in self._huff)}"
            if self._must:
                status += ", must capture"
            lines.append(status)
        return "\n".join(lines)


# ----------------------------------------------------------------------------- records
def turn_text(actions: Sequence[DraughtsMove], numeric: bool = False) -> str:
    """A whole turn as written in a game record: ``c3xe5xg7``, ``huff d4 c3-d4``.

    The jumps of a chain are joined; a ``stop`` is left out (the chain simply ends there).
    ``numeric`` writes squares in the 1-32 checkers numbering (English records).

    >>> g = Draughts()
    >>> turn_text([g.parse_move("c3xe5"), g.parse_move("e5xg7")])
    'c3xe5xg7'
    """

    def cell(sq: int) -> str:
        return str(_NUMBER[sq]) if numeric else CELLS[sq]

    parts: list[str] = []
    chain_at = -1
    for move in actions:
        if move.kind == JUMP:
            if move.src == chain_at and parts:
                parts[-1] += f"x{cell(move.dst)}"
            else:
                parts.append(f"{cell(move.src)}x{cell(move.dst)}")
            chain_at = move.dst
            continue
        chain_at = -1
        if move.kind == QUIET:
            parts.append(f"{cell(move.src)}-{cell(move.dst)}")
        elif move.kind == HUFF:
            parts.append(f"huff {cell(move.src)}")
        elif move.kind == FORCE:
            parts.append(FORCE)
    return " ".join(parts)


def turn_actions(game: Draughts, text: str) -> list[DraughtsMove]:
    """The actions of the whole turn ``text`` (as :func:`turn_text` writes it) in ``game``.

    A chain that could go on but ends in the record gets its ``stop``. Raises ValueError if
    the turn is not legal in the game's current position (the game itself is not changed).
    """
    probe = game.copy()
    player = probe.current_player
    actions: list[DraughtsMove] = []
    words = text.replace(",", " ").split()
    i = 0

    def play(move: DraughtsMove) -> None:
        if not probe.is_legal(move):
            raise ValueError(f"{text!r}: {probe.explain(move)}")
        probe.apply(move)
        actions.append(move)

    while i < len(words):
        word = words[i]
        if word.lower() in (HUFF, STOP) and i + 1 < len(words):
            play(probe.parse_move(f"{word} {words[i + 1]}"))
            i += 2
            continue
        i += 1
        if "x" in word.lower():
            squares = word.lower().split("x")
            for a, b in itertools.pairwise(squares):
                play(probe.parse_move(f"{a}x{b}"))
            if probe.current_player == player and probe.outcome() is None:
                stop = [m for m in probe.legal_moves() if m.kind == STOP]
                if stop:
                    play(stop[0])
        else:
            play(probe.parse_move(word))
    return actions


def game_record(game: Draughts, numeric: bool = False) -> list[str]:
    """The game's history as whole turns, one string per turn (see :func:`turn_text`)."""
    replay = Draughts(**game.options)
    start = game.to_dict()["start"]
    if start is not None:
        replay.set_position(start)
    turns: list[str] = []
    current: list[DraughtsMove] = []
    for move in game.history:
        player = replay.current_player
        replay.apply(move)
        current.append(move)
        if replay.current_player != player or replay.outcome() is not None:
            turns.append(turn_text(current, numeric))
            current = []
    if current:
        turns.append(turn_text(current, numeric))
    return turns
