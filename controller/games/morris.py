"""Nine Men's Morris (Mühle, jeu de marelle, tavola a mulino): seed 004, RULES.md section 5.

Rules as implemented
--------------------
- Two players, White (0) and Black (1), 9 men each, all in hand at the start. White starts.
- The board has 24 points on three nested squares joined at the side midpoints; the 16
  three-point lines are the mills (RULES.md 5.2).
- While a player has men in hand, their turn is to place one on any empty point. Once a
  player's hand is empty, their turn is to slide one man along a line to a neighbouring empty
  point. A player with exactly 3 men (and none in hand) flies instead: any man to any empty
  point (``flying``). When both have 3, both fly.
- A placement, slide or fly that closes a mill of the mover's colour earns a removal: the
  same player then removes one opposing man from the board, as a separate action. Men in a
  mill are protected while the opponent has a man outside every mill; when all are in mills,
  any man may be taken (``strict_seed``: none may, and the mill earns nothing). A move that
  closes two mills at once earns one removal (``remove_per_mill=2``: two). The turn passes
  when the removals are done, or at once if there is nothing the rules allow to remove.
- Removed men are out for good. A player whose men on the board plus in hand fall below 3
  loses at once ("too few men"). A player who must slide and has no slide loses ("blocked");
  this can happen at the first move of the moving phase.
- Draws: the third occurrence of a position (the same men on the same points, the same
  player to move, the same men in hand) ends the game ("threefold repetition"), and so does
  the 100th ply in a row of slides and flies without a removal ("plies without a
  removal"). A blocked player loses even if the ply that blocked them also triggers a draw.
- Decisions where the seed is silent (RULES.md 5.3): a re-formed mill counts every time by
  default (``reformed_mills``); a removal is compulsory by default (``optional_removal``);
  a mill closed when the opponent has no man on the board earns nothing.

Parameters: see ``Morris.params``. Notation (RULES.md): a placement is the point (``d2``), a
slide or fly is origin-destination (``a1-a4``), a removal is ``x`` and the point (``xg7``),
passing up a removal (only with ``optional_removal``) is ``pass``.

Tokens: ``W`` and ``B`` (an occupancy sensor is enough: ``needs = "occupancy"``). Cells are
the 24 point names a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7.

>>> g = Morris()
>>> for text in ("a1", "b2", "a4", "b4"):
...     g.apply(text)
>>> g.apply("a7")  # White closes the mill a1-a4-a7 ...
>>> g.current_player, [str(m) for m in g.legal_moves()]  # ... and must remove first
(0, ['xb2', 'xb4'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .base import Game, Outcome, Param, Reason

# ----------------------------------------------------------------------------- geometry
# Point index = 8 * ring + k: ring 0 outer, 1 middle, 2 inner; k = 0..7 clockwise from the
# top-left corner, so even k are corners and odd k are side midpoints. In this order a
# ring step is a rotation within one byte of a bitboard and a cross step is a shift by 8.
POINTS: tuple[str, ...] = (
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4",
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4",
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4",
)  # fmt: skip
INDEX: dict[str, int] = {name: i for i, name in enumerate(POINTS)}
BIT: tuple[int, ...] = tuple(1 << i for i in range(24))
_BY_NAME: tuple[tuple[str, int], ...] = tuple((name, 1 << INDEX[name]) for name in sorted(POINTS))
FULL = (1 << 24) - 1
_MIDPOINTS = 0xAAAAAA  # odd k on every ring: the points joined across rings

MILLS: tuple[tuple[int, int, int], ...] = tuple(
    [(8 * r + k, 8 * r + k + 1, 8 * r + (k + 2) % 8) for r in range(3) for k in (0, 2, 4, 6)]
    + [(k, 8 + k, 16 + k) for k in (1, 3, 5, 7)]
)
MILL_MASKS: tuple[int, ...] = tuple(BIT[a] | BIT[b] | BIT[c] for a, b, c in MILLS)
# The (two) mills through each point, as masks.
MILLS_AT: tuple[tuple[int, ...], ...] = tuple(
    tuple(MILL_MASKS[n] for n, mill in enumerate(MILLS) if i in mill) for i in range(24)
)


def _neighbours(i: int) -> tuple[int, ...]:
    ring, k = divmod(i, 8)
    out = [8 * ring + (k + 7) % 8, 8 * ring + (k + 1) % 8]
    if k % 2:
        out += [8 * r + k for r in (ring - 1, ring + 1) if 0 <= r < 3]
    return tuple(sorted(out))


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(24))
ADJACENT: tuple[int, ...] = tuple(sum(BIT[j] for j in NEIGHBOURS[i]) for i in range(24))


def _next_to(points: int) -> int:
    """Every point that has a neighbour in ``points`` (a bitboard)."""
    cw = ((points << 1) & 0xFEFEFE) | ((points >> 7) & 0x010101)
    ccw = ((points >> 1) & 0x7F7F7F) | ((points << 7) & 0x808080)
    return cw | ccw | (((points << 8) | (points >> 8)) & _MIDPOINTS & FULL)


# ----------------------------------------------------------------------------- moves
PLACE, SHIFT, REMOVE, PASS = 0, 1, 2, 3


@dataclass(frozen=True, slots=True, repr=False)
class MorrisMove:
    """One atomic action: place on ``dst``, slide or fly ``src`` -> ``dst``, remove the man
    on ``dst``, or pass up a removal. Points are indices into :data:`POINTS`; -1 if unused.

    Every move exists once (module tables); :meth:`Morris.parse_move` returns those objects.
    """

    kind: int
    src: int
    dst: int
    text: str = field(compare=False, repr=False)
    # Precomputed for _apply, the hot path: the bits the action toggles on a bitboard
    # (the mover's for a placement or slide, the victim's for a removal), and a slide as
    # src * 24 + dst and as its reverse (to spot a man moving straight back).
    flip: int = field(init=False, compare=False, repr=False)
    code: int = field(init=False, compare=False, repr=False)
    back: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        src, dst = self.src, self.dst
        flip = (1 << dst if dst >= 0 else 0) | (1 << src if src >= 0 else 0)
        object.__setattr__(self, "flip", flip)
        object.__setattr__(self, "code", src * 24 + dst)
        object.__setattr__(self, "back", dst * 24 + src)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"MorrisMove.from_text({self.text!r})"

    @staticmethod
    def from_text(text: str) -> MorrisMove:
        """The move written ``text`` ('d2', 'a1-a4', 'xg7', 'pass'); ValueError if none."""
        move = _BY_TEXT.get(text.strip().lower())
        if move is None:
            raise ValueError(f"{text!r} is not a morris move")
        return move


PLACES: tuple[MorrisMove, ...] = tuple(MorrisMove(PLACE, -1, i, POINTS[i]) for i in range(24))
REMOVES: tuple[MorrisMove, ...] = tuple(
    MorrisMove(REMOVE, -1, i, "x" + POINTS[i]) for i in range(24)
)
# SHIFTS[i][j]: the slide or fly i -> j (None for i == j).
SHIFTS: tuple[tuple[MorrisMove | None, ...], ...] = tuple(
    tuple(
        MorrisMove(SHIFT, i, j, f"{POINTS[i]}-{POINTS[j]}") if i != j else None for j in range(24)
    )
    for i in range(24)
)
PASS_MOVE = MorrisMove(PASS, -1, -1, "pass")
_BY_TEXT: dict[str, MorrisMove] = {
    m.text: m
    for m in (*PLACES, *REMOVES, PASS_MOVE, *(s for row in SHIFTS for s in row if s is not None))
}


# Bitboard -> moves, one table per byte, so move generation is three lookups.
def _by_byte(moves: tuple[Any, ...]) -> tuple[tuple[tuple[Any, ...], ...], ...]:
    return tuple(
        tuple(tuple(moves[base + b] for b in range(8) if byte >> b & 1) for byte in range(256))
        for base in (0, 8, 16)
    )


_PLACE_T = _by_byte(PLACES)
_REMOVE_T = _by_byte(REMOVES)
_INDEX_T: tuple[tuple[tuple[int, ...], ...], ...] = _by_byte(tuple(range(24)))


def _slide_table(i: int) -> dict[int, tuple[MorrisMove, ...]]:
    table = {}
    nbrs = NEIGHBOURS[i]
    for pick in range(1 << len(nbrs)):
        chosen = [j for n, j in enumerate(nbrs) if pick >> n & 1]
        table[sum(BIT[j] for j in chosen)] = tuple(
            s for j in chosen if (s := SHIFTS[i][j]) is not None
        )
    return table


# _SLIDES[i][targets]: the slides from i to the points of ``targets`` (a subset of ADJACENT[i]).
_SLIDES: tuple[dict[int, tuple[MorrisMove, ...]], ...] = tuple(_slide_table(i) for i in range(24))
# _MEN_T[ring][byte]: (ADJACENT[i], _SLIDES[i]) for each man i of that byte of a bitboard, so
# the slides of a whole army are three lookups and then one dict lookup per man.
_MEN_T: tuple[tuple[tuple[tuple[int, dict[int, tuple[MorrisMove, ...]]], ...], ...], ...] = (
    _by_byte(tuple(zip(ADJACENT, _SLIDES, strict=True)))
)


def _fly_table(i: int) -> tuple[tuple[tuple[MorrisMove, ...], ...], ...]:
    """[ring][byte]: the flies from ``i`` to the points of that byte of a bitboard."""
    flies = SHIFTS[i]
    rings = []
    for base in (0, 8, 16):
        # Each byte's flies are those of the byte without its highest bit, and one more
        # (one concatenation per tuple: the 18,432 tuples are built quickly at import).
        table: list[tuple[MorrisMove, ...]] = [()]
        for byte in range(1, 256):
            high = byte.bit_length() - 1
            fly = flies[base + high]
            table.append(table[byte ^ 1 << high] + ((fly,) if fly is not None else ()))
        rings.append(tuple(table))
    return tuple(rings)


# _FLIES_T[ring][byte]: _fly_table(i) for each man i of that byte of a bitboard.
_FLIES_T: tuple[tuple[tuple[Any, ...], ...], ...] = _by_byte(
    tuple(_fly_table(i) for i in range(24))
)


def _ring_mill_points(byte: int) -> int:
    """The points of one ring (a byte) that lie in a mill of that ring."""
    out = 0
    for k in (0, 2, 4, 6):
        m = 1 << k | 1 << (k + 1) | 1 << ((k + 2) % 8)
        if byte & m == m:
            out |= m
    return out


_RING_MILLS: tuple[int, ...] = tuple(_ring_mill_points(b) for b in range(256))


def _in_mills(men: int) -> int:
    """The men of the bitboard ``men`` that stand in a mill: a ring's mills are a table
    lookup per byte; a cross mill is a midpoint held on all three rings."""
    cross = men & (men >> 8) & (men >> 16) & 0xAA
    return (
        _RING_MILLS[men & 255] | _RING_MILLS[(men >> 8) & 255] << 8
        | _RING_MILLS[men >> 16] << 16 | cross * 0x010101
    )


def _indices(bits: int) -> tuple[int, ...]:
    t = _INDEX_T
    return t[0][bits & 255] + t[1][(bits >> 8) & 255] + t[2][bits >> 16]


def _points(bits: int) -> list[str]:
    return sorted(POINTS[i] for i in _indices(bits))


# The size of _end_turn's Bloom filter of recent position keys: about one false alarm (a
# scan for nothing) in 10 slides after 50 quiet plies.
_WINDOW_BITS = 509


def _bloom(keys: list[Any]) -> int:
    """The Bloom filter of ``keys`` (position keys, ints): one bit per key."""
    bits = 0
    for key in keys:
        bits |= 1 << key % _WINDOW_BITS
    return bits

COLOURS = ("W", "B")
NAMES = ("White", "Black")
MEN = 9


# ----------------------------------------------------------------------------- the game
class Morris(Game[MorrisMove]):
    """Nine Men's Morris with the RULES.md defaults; every open question is a parameter."""

    name = "morris"
    needs = "occupancy"
    player_names = NAMES
    params = (
        Param(
            "strict_seed",
            False,
            "the seed read literally: a man in a mill is never removed, so a mill earns "
            "nothing when every opposing man is in a mill (default: then any man may go)",
        ),
        Param(
            "remove_per_mill",
            1,
            "removals earned by a move that closes two mills at once: 1 (one per move, "
            "the usual rule) or 2 (one per mill)",
            choices=(1, 2),
        ),
        Param(
            "flying",
            True,
            "a player with 3 men (none in hand) moves a man to any empty point",
        ),
        Param(
            "reformed_mills",
            "count",
            "a mill re-formed by the man that left it on its owner's previous turn, moving "
            "straight back: 'count' (earns a removal, as the seed says) or 'no-removal'",
            choices=("count", "no-removal"),
        ),
        Param(
            "optional_removal",
            False,
            "a player who closed a mill may pass the removal up (action 'pass'); "
            "default: the removal is compulsory",
        ),
        Param(
            "threefold_repetition",
            True,
            "the third occurrence of a position (board, player to move, men in hand) is a draw",
        ),
        Param(
            "no_removal_plies",
            100,
            "draw after this many slides and flies in a row without a removal; 0 = never",
            minimum=0,
        ),
    )
    # Non-default rules that the registry-wide conformance test also plays.
    CONFORMANCE_PARAMS: ClassVar[tuple[dict[str, Any], ...]] = (
        {"strict_seed": True, "remove_per_mill": 2},
        {"flying": False, "reformed_mills": "no-removal", "optional_removal": True},
        {"threefold_repetition": False, "no_removal_plies": 20},
    )

    _keys_in_apply = True  # _end_turn records each position's key

    # State (all in _snapshot): men per player as bitboards, men in hand, player to move,
    # removals still owed in this turn, slides/flies since the last removal or placement,
    # each player's last slide (src * 24 + dst, -1 if none), the recent keys as a Bloom
    # filter (see _end_turn) and the outcome.
    _men: list[int]
    _hand: list[int]
    _turn: int
    _pending: int
    _quiet: int
    _last: list[int]
    _window: int  # the Bloom filter of _end_turn, up to date from 8 quiet plies on
    _result: Outcome | None

    # ------------------------------------------------------------------ setup and state
    def _setup(self) -> None:
        opts = self.options
        self._strict: bool = opts["strict_seed"]
        self._per_mill: int = opts["remove_per_mill"]
        self._flying: bool = opts["flying"]
        self._no_reform: bool = opts["reformed_mills"] == "no-removal"
        self._optional: bool = opts["optional_removal"]
        self._threefold: bool = opts["threefold_repetition"]
        self._quiet_limit: int = opts["no_removal_plies"]
        self._men = [0, 0]
        self._hand = [MEN, MEN]
        self._turn = 0
        self._pending = 0
        self._quiet = 0
        self._last = [-1, -1]
        self._window = 0
        self._result = None

    def _snapshot(self) -> Any:
        men, hand, last = self._men, self._hand, self._last
        return (
            men[0], men[1], hand[0], hand[1], self._turn, self._pending, self._quiet,
            last[0], last[1], self._window, self._result,
        )  # fmt: skip

    def _restore(self, state: Any) -> None:
        (w, b, hw, hb, self._turn, self._pending, self._quiet, lw, lb, self._window,
         self._result) = state
        self._men = [w, b]
        self._hand = [hw, hb]
        self._last = [lw, lb]

    def _current_player(self) -> int:
        return self._turn

    def _outcome(self) -> Outcome | None:
        return self._result

    def _position_key(self) -> int | None:
        if self._pending:
            return None  # the middle of a turn is not a position to repeat
        men, hand = self._men, self._hand
        return men[0] | men[1] << 24 | self._turn << 48 | hand[0] << 49 | hand[1] << 53

    # ------------------------------------------------------------------ rules
    def _flies(self, player: int) -> bool:
        return self._flying and not self._hand[player] and self._men[player].bit_count() <= 3

    def _removable(self, victim: int) -> int:
        """The men of ``victim`` that may be removed now (a bitboard)."""
        theirs = self._men[victim]
        free = theirs & ~_in_mills(theirs)
        if free or self._strict:
            return free
        return theirs

    def _legal_moves(self) -> tuple[MorrisMove, ...]:
        me = self._turn
        men = self._men
        if self._pending:
            t = _REMOVE_T
            mask = self._removable(me ^ 1)
            removals = t[0][mask & 255] + t[1][(mask >> 8) & 255] + t[2][mask >> 16]
            return (*removals, PASS_MOVE) if self._optional else removals
        empty = FULL ^ (men[0] | men[1])
        if self._hand[me]:
            t = _PLACE_T
            return t[0][empty & 255] + t[1][(empty >> 8) & 255] + t[2][empty >> 16]
        own = men[me]
        out: tuple[MorrisMove, ...] = ()
        if self._flying and own.bit_count() <= 3:
            e0, e1, e2 = empty & 255, (empty >> 8) & 255, empty >> 16
            t = _FLIES_T
            for flies in t[0][own & 255] + t[1][(own >> 8) & 255] + t[2][own >> 16]:
                out += flies[0][e0] + flies[1][e1] + flies[2][e2]
            return out
        t = _MEN_T
        for adjacent, slides in t[0][own & 255] + t[1][(own >> 8) & 255] + t[2][own >> 16]:
            out += slides[adjacent & empty]
        return out

    def _apply(self, move: MorrisMove) -> None:
        me = self._turn
        men = self._men
        kind = move.kind
        if kind == SHIFT:  # the common action first: most of a game is slides
            own = men[me] ^ move.flip
            men[me] = own
            self._quiet += 1
            last = self._last
            back = last[me] == move.back
            last[me] = move.code
            a, b = MILLS_AT[move.dst]
            closed = (own & a == a) + (own & b == b)
            if closed and not (back and self._no_reform) and self._removable(me ^ 1):
                self._pending = closed if self._per_mill == 2 else 1
                return
            self._end_turn(me, ADJACENT[move.src])
            return
        if kind == REMOVE:
            victim = me ^ 1
            men[victim] ^= move.flip
            self._quiet = 0
            if men[victim].bit_count() + self._hand[victim] < 3:
                self._pending = 0
                self._turn = victim
                self._result = Outcome(me, Reason.TOO_FEW_MEN)
                self._keys.append(self._position_key())
                return
            self._pending -= 1
            if self._pending and self._removable(victim):
                return
            self._end_turn(me, ADJACENT[move.dst])
            return
        if kind == PASS:
            self._end_turn(me, 0)
            return
        own = men[me] ^ move.flip  # PLACE
        men[me] = own
        self._hand[me] -= 1
        self._quiet = 0
        self._last[me] = -1
        a, b = MILLS_AT[move.dst]
        closed = (own & a == a) + (own & b == b)
        if closed and self._removable(me ^ 1):
            self._pending = closed if self._per_mill == 2 else 1
            return
        self._end_turn(me, 0)

    def _end_turn(self, me: int, freed: int) -> None:
        """The turn of ``me`` is over: pass it on, record the position's key and decide
        whether the game ended. ``freed``: the points next to a point the turn emptied
        (a slide's origin, a removed man's point), or 0."""
        nxt = me ^ 1
        self._turn = nxt
        self._pending = 0
        men = self._men
        theirs = men[nxt]
        hand = self._hand
        key = men[0] | men[1] << 24 | nxt << 48 | hand[0] << 49 | hand[1] << 53
        keys = self._keys
        keys.append(key)  # _position_key, written out: the base leaves it to us
        if not (hand[nxt] or freed & theirs or (self._flying and theirs.bit_count() <= 3)):
            # They slide and none of their men is next to the point just emptied: blocked
            # unless a point next to one of their men is empty (_next_to inlined).
            cw = ((theirs << 1) & 0xFEFEFE) | ((theirs >> 7) & 0x010101)
            ccw = ((theirs >> 1) & 0x7F7F7F) | ((theirs << 7) & 0x808080)
            cross = ((theirs << 8) | (theirs >> 8)) & _MIDPOINTS
            if not (cw | ccw | cross) & ~(men[me] | theirs) & FULL:
                self._result = Outcome(me, Reason.BLOCKED)
                return
        quiet = self._quiet
        # A position can only recur after 4 plies without a placement or removal, so its
        # third occurrence needs at least 8. From there the keys recorded since the last
        # placement or removal (the only ones this position can repeat) are also kept as
        # a Bloom filter, one bit per key: they are scanned only when the new key's bit
        # was set before, not on every slide. Every turn records one key and the player to
        # move alternates, so of the keys before this one only every second, from the one
        # two back, can be equal: the others are skipped rather than compared
        # (:meth:`Game._seen` compares them all).
        if quiet >= 8 and self._threefold:
            window = self._window if quiet > 8 else _bloom(keys[-quiet - 1 : -1])
            bit = 1 << key % _WINDOW_BITS
            self._window = window | bit
            if window & bit and keys[-3 : -quiet - 2 : -2].count(key) >= 2:
                self._result = Outcome(None, Reason.THREEFOLD_REPETITION)
                return
        if self._quiet_limit and quiet >= self._quiet_limit:
            self._result = Outcome(None, Reason.NO_REMOVAL)

    # ------------------------------------------------------------------ notation
    def _parse_move(self, text: str) -> MorrisMove:
        low = text.lower()
        move = _BY_TEXT.get(low)
        if move is not None:
            return move
        if low.startswith("x"):
            parts = [low[1:]]
        elif "-" in low:
            parts = low.split("-")
            if len(parts) != 2:
                raise ValueError(f"{text!r}: a slide or fly is two points joined by '-': a1-a4")
            if parts[0] == parts[1] and parts[0] in INDEX:
                raise ValueError(f"{text!r}: a man must move to another point")
        else:
            parts = [low]
        for part in parts:
            if part not in INDEX:
                raise ValueError(
                    f"{part!r} is not a point of the morris board; points are "
                    + " ".join(sorted(POINTS))
                )
        raise ValueError(
            f"{text!r} is not morris notation: place 'd2', slide or fly 'a1-a4', remove 'xg7'"
        )

    def men_in_hand(self, player: int) -> int:
        """How many men ``player`` has still to place (the board cannot show them)."""
        return self._hand[player]

    def expectation(self) -> str:
        """After a mill: 'White formed a mill: remove a black man (not one in a mill)'."""
        if not self._pending or self._result is not None:
            return ""
        me = self._turn
        other = NAMES[me ^ 1].lower()
        theirs = self._men[me ^ 1]
        count = "a" if self._pending == 1 else "two"
        men = "man" if self._pending == 1 else "men"
        rule = ""
        if self._removable(me ^ 1) != theirs:
            rule = " (not one in a mill)"
        elif any(theirs & m == m for m in MILL_MASKS):
            rule = " (all are in mills: any of them)"
        return f"{NAMES[me]} formed a mill: remove {count} {other} {men}{rule}"

    def _explain(self, move: MorrisMove) -> str:
        me = self._turn
        colour, other = NAMES[me].lower(), NAMES[me ^ 1].lower()
        men = self._men
        kind = move.kind
        if self._pending:
            if kind == PASS:
                return "a removal cannot be passed up (parameter optional_removal is off)"
            if kind != REMOVE:
                return f"remove a {other} man first: you closed a mill"
            where = POINTS[move.dst]
            if men[me] & BIT[move.dst]:
                return f"{where} holds your own man: remove a {other} man"
            if not men[me ^ 1] & BIT[move.dst]:
                return f"{where} is empty: remove a {other} man"
            allowed = _points(self._removable(me ^ 1))
            return (
                f"the {other} man on {where} is in a mill and others are not: "
                f"remove one of {', '.join(allowed)}"
            )
        if kind == REMOVE:
            return f"there is nothing to remove: {move} only follows a move that closes a mill"
        if kind == PASS:
            return "there is no removal to pass up"
        occupied = men[0] | men[1]
        where = POINTS[move.dst]
        if kind == PLACE:
            if not self._hand[me]:
                return f"all {colour} men are placed: move one along a line, e.g. a1-a4"
            if occupied & BIT[move.dst]:
                return f"{where} is occupied"
            return "not a legal placement"
        src = POINTS[move.src]
        if self._hand[me]:
            return f"place a man first: {colour} still has {self._hand[me]} in hand"
        if not men[me] & BIT[move.src]:
            return f"{src} has no {colour} man"
        if occupied & BIT[move.dst]:
            return f"{where} is occupied"
        if not self._flies(me) and not ADJACENT[move.src] & BIT[move.dst]:
            why = (
                f" (a player flies only with 3 men; {colour} has {men[me].bit_count()})"
                if self._flying
                else " (flying is off)"
            )
            return (
                f"{src} and {where} are not neighbours: a man slides along a line to the "
                f"next point{why}"
            )
        return "not a legal move in this position"

    # ------------------------------------------------------------------ serialisation
    def _state_dict(self) -> dict[str, Any]:
        board = self._view()
        return {
            "board": board,
            "hand": list(self._hand),
            "to_move": self._turn,
            "pending_removals": self._pending,
            "quiet_plies": self._quiet,
            "last_slides": [str(SHIFTS[c // 24][c % 24]) if c >= 0 else None for c in self._last],
            "outcome": self._result.to_dict() if self._result else None,
        }

    def _load_state(self, d: dict[str, Any]) -> None:
        """Load a position. Only ``board`` is required: ``hand`` defaults to [0, 0],
        ``to_move`` to 0, the counters to 0; without ``outcome`` it is worked out."""
        men = [0, 0]
        for cell, token in dict(d.get("board", {})).items():
            if cell not in INDEX:
                raise ValueError(f"{cell!r} is not a point of the morris board")
            if token in ("", None):
                continue
            if token not in COLOURS:
                raise ValueError(f"{cell}: token must be 'W', 'B' or '', got {token!r}")
            men[COLOURS.index(token)] |= BIT[INDEX[cell]]
        hand = [int(h) for h in d.get("hand", (0, 0))]
        turn = int(d.get("to_move", 0))
        pending = int(d.get("pending_removals", 0))
        if len(hand) != 2 or turn not in (0, 1) or pending not in (0, 1, 2):
            raise ValueError("hand must be two counts, to_move 0 or 1, pending_removals 0-2")
        for p in (0, 1):
            if hand[p] < 0 or men[p].bit_count() + hand[p] > MEN:
                raise ValueError(f"{NAMES[p]} has more than {MEN} men or a negative hand")
        last = [-1, -1]
        for p, text in enumerate(d.get("last_slides", (None, None))):
            if text is not None:
                m = self._parse_move(text)
                if m.kind != SHIFT:
                    raise ValueError(f"last_slides: {text!r} is not a slide")
                last[p] = m.src * 24 + m.dst
        self._men, self._hand, self._turn = men, hand, turn
        self._pending, self._quiet, self._last = pending, int(d.get("quiet_plies", 0)), last
        self._window = _bloom([] if pending else [self._position_key()])  # the start's key
        if "outcome" in d:
            self._result = Outcome.from_dict(d["outcome"]) if d["outcome"] else None
            return
        self._result = None
        for p in (0, 1):
            if men[p].bit_count() + hand[p] < 3:
                self._result = Outcome(p ^ 1, Reason.TOO_FEW_MEN)
                return
        if pending and not self._removable(turn ^ 1):
            raise ValueError(f"{NAMES[turn]} owes a removal but no man may be removed")
        empty = FULL ^ (men[0] | men[1])
        blocked = not men[turn] & _next_to(empty)
        if not pending and not hand[turn] and not self._flies(turn) and blocked:
            self._result = Outcome(turn ^ 1, Reason.BLOCKED)

    # ------------------------------------------------------------------ views
    def _view(self) -> dict[str, str]:
        w, b = self._men
        return {name: "W" if w & bit else "B" if b & bit else "" for name, bit in _BY_NAME}

    def _board_str(self) -> str:
        cells = self._view()

        def c(name: str) -> str:
            return cells[name] or "."

        rows = [
            f"7 {c('a7')}-----------{c('d7')}-----------{c('g7')}",
            "  |           |           |",
            f"6 |   {c('b6')}-------{c('d6')}-------{c('f6')}   |",
            "  |   |       |       |   |",
            f"5 |   |   {c('c5')}---{c('d5')}---{c('e5')}   |   |",
            "  |   |   |       |   |   |",
            f"4 {c('a4')}---{c('b4')}---{c('c4')}       {c('e4')}---{c('f4')}---{c('g4')}",
            "  |   |   |       |   |   |",
            f"3 |   |   {c('c3')}---{c('d3')}---{c('e3')}   |   |",
            "  |   |       |       |   |",
            f"2 |   {c('b2')}-------{c('d2')}-------{c('f2')}   |",
            "  |           |           |",
            f"1 {c('a1')}-----------{c('d1')}-----------{c('g1')}",
            "  a   b   c   d   e   f   g",
        ]
        rows.append(self._status())
        return "\n".join(rows)

    def _status(self) -> str:
        men, hand = self._men, self._hand
        counts = "; ".join(
            f"{NAMES[p]} {men[p].bit_count()} on board, {hand[p]} in hand" for p in (0, 1)
        )
        if self._result is not None:
            r = self._result
            who = "draw" if r.winner is None else f"{NAMES[r.winner]} wins"
            return f"{counts}\nGame over: {who} ({r.reason})."
        me = self._turn
        if self._pending:
            doing = f"remove {self._pending} {NAMES[me ^ 1].lower()} man"
            doing += "" if self._pending == 1 else "s"
        elif hand[me]:
            doing = "place"
        elif self._flies(me):
            doing = "fly"
        else:
            doing = "slide"
        return f"{counts}\n{NAMES[me]} to {doing}."
