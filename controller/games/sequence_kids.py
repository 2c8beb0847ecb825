"""Sequence for Kids (Jax), RULES.md section 3, seed 002.

Rules as implemented:

- Board: 7 ranks x 6 files, cells a1 ... f7. The corners a1 f1 a7 f7 are printed free
  spaces: nobody may put a chip there, and they count as a chip of every colour. The
  other 38 spaces each show one of 19 animals, every animal on two spaces. Which animal
  is where comes from a layout file (``data/sequence_kids_layout.toml``, 180-degree
  symmetric; the real print is unknown) that a user may replace (parameter ``layout``:
  the layout's TOML text; the daemon and ``tavola play`` read the file a user names, so a
  record carries the layout itself and replays whatever becomes of the file).
- Deck: 42 cards, two of each animal, 2 dragons, 2 unicorns. Each player holds 3 cards,
  dealt one at a time from the top of the deck, starting with player 0, who moves first.
- Turn: optionally exchange a dead card first (``dead fox``: discard it and draw the top
  card; at most ``dead_cards`` exchanges a turn), then exactly one action, discarding the
  card on the mover's own face-up pile:

  - an animal card puts a chip on one of that animal's empty spaces (``fox@b3``);
  - a unicorn puts a chip on any empty space (``unicorn@c4``);
  - a dragon removes one chip of another colour (``dragon xc4``); the space stays empty
    for the rest of the turn, which ends at once; the chip goes back to its owner
    (``chips_returned``).

  Then the mover draws the top card and the next player (clockwise) moves. When a card
  must be drawn from an empty deck, all discard piles (the card just played included)
  are shuffled together into a new deck.
- A dead card: an animal whose two spaces are both covered, a unicorn when no space is
  empty, and (``dragon_dead``) a dragon when there is no chip to remove.
- Pass (``pass``): a player who can neither play a card nor exchange one (the exchange
  limit is used up, or out of chips) passes; the turn ends, no card moves.
- Win: a placement that makes 4 cells in a straight line (row, column or diagonal) all of
  the mover's colour or free corners. A dragon's removal never wins.
- Draws: ``stalled`` when ``stall_cycles`` whole deck cycles in a row (from one shuffle
  of the draw deck to the next) each end with the board they began with (RULES.md: offer
  a draw when the deck cycles twice with no change to the board); ``blocked`` when every
  player in turn passes (then nothing can change any more).

Players and colours: 2-4 players, colours in seat order R (red), Y (yellow), B (blue),
G (green). With 4 players and ``teams`` (the default) partners sit opposite: players 0
and 2 play red, players 1 and 3 yellow; each keeps a private hand, a dragon removes only
the other team's chips, and a sequence wins for both partners. A colour has ``chips``
chips (a team shares its colour's chips); a player with none left can still play dragons.

Cards: with ``cards=dealt`` the engine is the dealer: the deck is shuffled from ``seed``
(each reshuffle too), the state holds every hand and the deck order, and a player draws
the engine's next card. With ``cards=declared`` the players hold a real deck; each action
names the card played and the engine checks what it can: the space matches the animal,
the dragon and unicorn are used as the rules allow, and a card is played only if fewer
than two of its kind are on the discard piles (two of each per deck cycle). It tracks the
deck size and the discard piles, not the hands.

Hidden information: ``view_for(player)`` and ``private_text(player)`` show one player's
hand; ``view()``, ``str()`` and the errors show none. ``to_dict()`` holds everything,
deck order included, for the daemon that keeps the game.

Notation: ``fox@b3``, ``unicorn@c4``, ``dragon xc4``, ``dead fox``, ``pass``.
Tokens (``view()``): ``R`` ``Y`` ``B`` ``G`` for chips; empty spaces and the free
corners report ``""``. The game needs occupancy sensing only.

>>> g = SequenceKids(cards="declared")
>>> g.apply("fox@b7")
>>> g.view()["b7"], g.current_player
('R', 1)
"""

from __future__ import annotations

import random
import re
import secrets
import tomllib
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar

from .base import Game, Outcome, Param, Reason, iter_cells

FILES, RANKS = 6, 7
CELLS: tuple[str, ...] = tuple(iter_cells(FILES, RANKS))  # index = rank * 6 + file
INDEX: dict[str, int] = {cell: i for i, cell in enumerate(CELLS)}
CORNERS: tuple[str, ...] = ("a1", "f1", "a7", "f7")
_CORNER_IDX = frozenset(INDEX[c] for c in CORNERS)
SPACES: tuple[int, ...] = tuple(i for i in range(len(CELLS)) if i not in _CORNER_IDX)
COLOURS: tuple[str, ...] = ("R", "Y", "B", "G")
COLOUR_NAMES: dict[str, str] = {"R": "Red", "Y": "Yellow", "B": "Blue", "G": "Green"}
DRAGON, UNICORN, FREE = "dragon", "unicorn", "free"
RESERVED = frozenset({FREE, DRAGON, UNICORN, "dead", "pass"})
COPIES = 2  # of every card in the deck
HAND = 3
LINE = 4
_FREE = "*"  # a corner on the internal board: counts for every colour
_HIDDEN = "?"  # a card the engine cannot see (cards=declared)


def _windows() -> tuple[tuple[int, ...], ...]:
    found = []
    for rank in range(RANKS):
        for file in range(FILES):
            for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_f, end_r = file + df * (LINE - 1), rank + dr * (LINE - 1)
                if 0 <= end_f < FILES and 0 <= end_r < RANKS:
                    cells = ((rank + dr * k) * FILES + file + df * k for k in range(LINE))
                    found.append(tuple(cells))
    return tuple(found)


WINDOWS: tuple[tuple[int, ...], ...] = _windows()  # every line of 4 cells (69)
_WINDOWS_AT: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(w for w in WINDOWS if i in w) for i in range(len(CELLS))
)


# --------------------------------------------------------------------------- moves
@dataclass(frozen=True, slots=True)
class Place:
    """Play an animal card or a unicorn and put a chip on ``cell``: ``fox@b3``."""

    card: str
    cell: str

    def __str__(self) -> str:
        return f"{self.card}@{self.cell}"


@dataclass(frozen=True, slots=True)
class Dragon:
    """Play a dragon and remove the chip on ``cell``: ``dragon xc4``."""

    cell: str

    def __str__(self) -> str:
        return f"dragon x{self.cell}"


@dataclass(frozen=True, slots=True)
class Dead:
    """Exchange a dead card: discard it and draw; the same player then plays: ``dead fox``."""

    card: str

    def __str__(self) -> str:
        return f"dead {self.card}"


@dataclass(frozen=True, slots=True)
class Pass:
    """No card can be played or exchanged: the turn ends: ``pass``."""

    def __str__(self) -> str:
        return "pass"


SequenceMove = Place | Dragon | Dead | Pass
PASS = Pass()
_UNICORN_AT: dict[int, Place] = {i: Place(UNICORN, CELLS[i]) for i in SPACES}
_DRAGON_AT: dict[int, Dragon] = {i: Dragon(CELLS[i]) for i in SPACES}
_PLACE_RE = re.compile(r"([a-z]+)\s*@\s*([a-z]+\d+)")
_DRAGON_RE = re.compile(r"dragon\s*x?\s*([a-z]+\d+)")
_DEAD_RE = re.compile(r"dead\s+([a-z]+)")
_WORD_RE = re.compile(r"[a-z]+")


# --------------------------------------------------------------------------- layout
class BoardPrint:
    """Which animal is printed on which cell of the board (from a TOML layout)."""

    __slots__ = ("animal_at", "animals", "cards", "dead", "order", "places", "source", "spaces")

    def __init__(self, animal_at: tuple[str, ...], source: str) -> None:
        self.source = source
        self.animal_at = animal_at  # per cell index; "" on the corners
        spaces: dict[str, list[int]] = {}
        for i, animal in enumerate(animal_at):
            if animal:
                spaces.setdefault(animal, []).append(i)
        self.animals: tuple[str, ...] = tuple(sorted(spaces))
        self.spaces: dict[str, tuple[int, ...]] = {a: tuple(spaces[a]) for a in self.animals}
        self.cards: tuple[str, ...] = (*self.animals, DRAGON, UNICORN)  # the canonical order
        self.order: dict[str, int] = {card: k for k, card in enumerate(self.cards)}
        self.places: dict[str, tuple[tuple[int, Place], ...]] = {
            a: tuple((i, Place(a, CELLS[i])) for i in self.spaces[a]) for a in self.animals
        }
        self.dead: dict[str, Dead] = {c: Dead(c) for c in self.cards}

    def deck(self) -> list[str]:
        """The 42 cards in the canonical (unshuffled) order."""
        return [card for card in self.cards for _ in range(COPIES)]


def parse_layout(text: str, source: str = "layout") -> BoardPrint:
    """A :class:`BoardPrint` from TOML text; ValueError says what is wrong with it."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML: {exc}") from exc
    unknown = sorted(set(data) - {"rows", "name"})
    if unknown:
        raise ValueError(f"{source}: unknown key {unknown[0]!r}; a layout has only 'rows'")
    rows = data.get("rows")
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise ValueError(f"{source}: 'rows' must be a list of {RANKS} lists of {FILES} names")
    if len(rows) != RANKS:
        raise ValueError(
            f"{source}: wrong size: {len(rows)} rows; the board has {RANKS} ranks "
            f"(rows from rank {RANKS} at the top to rank 1) of {FILES} spaces"
        )
    animal_at = [""] * len(CELLS)
    for top, row in enumerate(rows):
        rank = RANKS - top
        if len(row) != FILES:
            raise ValueError(
                f"{source}: wrong size: rank {rank} has {len(row)} spaces; "
                f"every rank has {FILES} (files a to f)"
            )
        for file, name in enumerate(row):
            cell = f"{chr(ord('a') + file)}{rank}"
            if not isinstance(name, str) or not _WORD_RE.fullmatch(name):
                raise ValueError(
                    f"{source}: {cell}: {name!r} is not an animal name "
                    "(one lowercase word, like 'fox')"
                )
            if cell in CORNERS:
                if name != FREE:
                    raise ValueError(
                        f"{source}: {cell} is a corner, a free space: write 'free', not {name!r}"
                    )
                continue
            if name == FREE:
                raise ValueError(
                    f"{source}: {cell} says 'free' but only the corners "
                    f"{' '.join(CORNERS)} are free spaces"
                )
            if name in RESERVED:
                raise ValueError(
                    f"{source}: {cell}: {name!r} is a card or a word of the notation, "
                    "not an animal of the board"
                )
            animal_at[INDEX[cell]] = name
    where: dict[str, list[str]] = {}
    for i, name in enumerate(animal_at):
        if name:
            where.setdefault(name, []).append(CELLS[i])
    for name, cells in where.items():
        if len(cells) != COPIES:
            raise ValueError(
                f"{source}: {name!r} is on {len(cells)} space(s) ({' '.join(cells)}); "
                f"every animal must be on exactly {COPIES}"
            )
    return BoardPrint(tuple(animal_at), source)


_DEFAULT_LAYOUT = "sequence_kids_layout.toml"
_layout_cache: dict[str, BoardPrint] = {}


def load_layout(text: str = "") -> BoardPrint:
    """The layout in the TOML ``text``, or the shipped default when ``text`` is ''."""
    if text not in _layout_cache:
        if not text:
            data = resources.files(__name__.rpartition(".")[0]).joinpath("data")
            default = data.joinpath(_DEFAULT_LAYOUT).read_text(encoding="utf-8")
            board = parse_layout(default, f"the default layout {_DEFAULT_LAYOUT}")
        elif "\n" not in text and "=" not in text:
            raise ValueError(
                f"layout = {text!r}: the parameter holds the layout's TOML text, not a file "
                "name; 'tavola play -p layout=FILE' and the daemon's config read the file"
            )
        else:
            board = parse_layout(text, "the layout")
        _layout_cache[text] = board
    return _layout_cache[text]


# --------------------------------------------------------------------------- the game
class SequenceKids(Game[SequenceMove]):
    """Sequence for Kids for 2-4 players, with the engine as dealer or with declared cards."""

    name = "sequence-kids"
    needs = "occupancy"
    hidden_information = True
    params = (
        Param(
            "players",
            2,
            "number of players, 2-4 (4 play in two teams unless teams=false)",
            choices=(2, 3, 4),
        ),
        Param(
            "cards",
            "dealt",
            "dealt: the engine shuffles and deals; declared: players hold "
            "real cards and name the card with each action",
            choices=("dealt", "declared"),
        ),
        Param(
            "seed",
            None,
            "seed of the shuffles (cards=dealt); none: a fresh one, recorded "
            "in the game's parameters",
            type=int,
        ),
        Param("layout", "", "a TOML board layout (a file name for -p and the config); "
              "'' = the shipped default"),
        Param("dead_cards", 1, "dead-card exchanges allowed per turn; 0 = any number", minimum=0),
        Param(
            "teams",
            True,
            "with 4 players, two teams of two partners seated opposite, one colour each",
        ),
        Param("dragon_dead", True, "a dragon with no chip to remove counts as a dead card"),
        Param(
            "stall_cycles",
            2,
            "draw when this many deck cycles in a row end with the board they "
            "began with; 0 = never",
            minimum=0,
        ),
        Param(
            "chips_returned",
            True,
            "a chip removed by a dragon goes back to its owner (false: it leaves the game)",
        ),
        Param("chips", 21, "chips of each colour (a team shares its colour's)", minimum=1),
    )
    # Parameters a user gives as a file name: the config and ``tavola play`` pass the
    # file's content instead, so the record holds the layout, not a path.
    file_params: ClassVar[tuple[str, ...]] = ("layout",)
    CONFORMANCE_PARAMS: ClassVar[tuple[dict[str, Any], ...]] = (
        {"cards": "declared"},
        {"players": 3, "seed": 3},
        {"players": 4, "seed": 4},
        {"players": 4, "teams": False, "cards": "declared"},
        {
            "dead_cards": 0,
            "dragon_dead": False,
            "chips_returned": False,
            "chips": 6,
            "stall_cycles": 1,
            "seed": 5,
        },
    )

    # ------------------------------------------------------------------ setup
    def resignation(self, player: int) -> Outcome:
        """Every player of another colour wins: the other team, or each other player."""
        winners = tuple(q for q, c in enumerate(self._colour) if c != self._colour[player])
        return Outcome(winners[0], Reason.RESIGNATION, winners)

    def _setup(self) -> None:
        o = self.options
        n: int = o["players"]
        self._declared: bool = o["cards"] == "declared"
        if not self._declared and o["seed"] is None:
            o["seed"] = secrets.randbelow(2**31)  # recorded, so to_dict() replays the deal
        self._layout = load_layout(o["layout"])
        teams = n == 4 and bool(o["teams"])
        self._colour: tuple[str, ...] = tuple(COLOURS[p % 2 if teams else p] for p in range(n))
        self._in_play: tuple[str, ...] = tuple(dict.fromkeys(self._colour))
        if teams:
            self.player_names = tuple(
                f"{COLOUR_NAMES[self._colour[p]]} {p // 2 + 1}" for p in range(n)
            )
        else:
            self.player_names = tuple(COLOUR_NAMES[c] for c in self._colour)
        self._board: list[str] = [_FREE if i in _CORNER_IDX else "" for i in range(len(CELLS))]
        if self._declared:
            deck = [_HIDDEN] * (len(self._layout.cards) * COPIES)
        else:
            deck = self._layout.deck()
            random.Random(o["seed"]).shuffle(deck)
        self._hands: list[list[str]] = [[] for _ in range(n)]
        for _ in range(HAND):
            for hand in self._hands:
                hand.append(deck.pop(0))
        self._deck: list[str] = deck  # the top card first
        self._discards: list[list[str]] = [[] for _ in range(n)]
        self._supply: dict[str, int] = {c: o["chips"] for c in self._in_play}
        self._to_move = 0
        self._exchanges = 0  # dead cards exchanged in this turn
        self._reshuffles = 0
        self._quiet = 0  # deck cycles in a row that ended with the board they began with
        self._cycle_start = self._board_key()  # the board when this deck cycle began
        self._passes = 0  # passes in a row
        self._result: Outcome | None = None

    def _snapshot(self) -> Any:
        return (
            list(self._board),
            [list(h) for h in self._hands],
            list(self._deck),
            [list(d) for d in self._discards],
            dict(self._supply),
            self._to_move,
            self._exchanges,
            self._reshuffles,
            self._quiet,
            self._cycle_start,
            self._passes,
            self._result,
        )

    def _restore(self, state: Any) -> None:
        (
            board,
            hands,
            deck,
            discards,
            supply,
            self._to_move,
            self._exchanges,
            self._reshuffles,
            self._quiet,
            self._cycle_start,
            self._passes,
            self._result,
        ) = state
        self._board = list(board)
        self._hands = [list(h) for h in hands]
        self._deck = list(deck)
        self._discards = [list(d) for d in discards]
        self._supply = dict(supply)

    # ------------------------------------------------------------------ rules
    def _current_player(self) -> int:
        return self._to_move

    def _outcome(self) -> Outcome | None:
        return self._result

    def _may_exchange(self) -> bool:
        limit: int = self.options["dead_cards"]
        return limit == 0 or self._exchanges < limit

    def _discarded(self) -> Counter[str]:
        return Counter(card for pile in self._discards for card in pile)

    def _playable_cards(self) -> tuple[list[str], Counter[str]]:
        """The kinds of card the mover may hold: its hand, or (declared) any not used up."""
        if self._declared:
            seen = self._discarded()
            return [c for c in self._layout.cards if seen[c] < COPIES], seen
        hand = set(self._hands[self._to_move])
        return sorted(hand, key=self._layout.order.__getitem__), Counter()

    def _legal_moves(self) -> list[SequenceMove]:
        board = self._board
        own = self._colour[self._to_move]
        can_place = self._supply[own] > 0
        may_exchange = self._may_exchange()
        cards, seen = self._playable_cards()
        moves: list[SequenceMove] = []
        stuck: list[str] = []  # cards that can be neither played nor exchanged
        for card in cards:
            if card == DRAGON:
                targets = [_DRAGON_AT[i] for i in SPACES if board[i] and board[i] != own]
                if targets:
                    moves += targets
                    continue
                dead = bool(self.options["dragon_dead"])
            else:
                if card == UNICORN:
                    free: list[SequenceMove] = [_UNICORN_AT[i] for i in SPACES if not board[i]]
                else:
                    free = [m for i, m in self._layout.places[card] if not board[i]]
                if free and can_place:
                    moves += free
                    continue
                dead = not free
            if dead and may_exchange:
                moves.append(self._layout.dead[card])
            else:
                stuck.append(card)
        # Declared: the player may pass if a whole hand of such cards is possible.
        if (sum(COPIES - seen[c] for c in stuck) >= HAND) if self._declared else not moves:
            moves.append(PASS)
        return moves

    def _apply(self, move: SequenceMove) -> None:
        p = self._to_move
        if isinstance(move, Place):
            self._discard(p, move.card)
            i = INDEX[move.cell]
            colour = self._colour[p]
            self._board[i] = colour
            self._supply[colour] -= 1
            self._passes = 0
            if self._wins(i, colour):
                team = tuple(q for q, c in enumerate(self._colour) if c == colour)
                self._result = Outcome(p, Reason.SEQUENCE, team)
                return
            self._draw(p)
            self._end_turn()
        elif isinstance(move, Dragon):
            self._discard(p, DRAGON)
            i = INDEX[move.cell]
            owner = self._board[i]
            self._board[i] = ""
            if self.options["chips_returned"]:
                self._supply[owner] += 1
            self._passes = 0
            self._draw(p)
            self._end_turn()
        elif isinstance(move, Dead):
            self._discard(p, move.card)
            self._exchanges += 1
            self._passes = 0
            self._draw(p)
        else:
            self._passes += 1
            if self._passes >= self.num_players:
                self._result = Outcome(None, Reason.BLOCKED)
            self._end_turn()

    def winning_cells(self) -> tuple[str, ...]:
        """The cells of every full line of the winner's colour (corners included)."""
        result = self._result
        if result is None or result.winner is None:
            return ()
        colour = self._colour[result.winner]
        board = self._board
        cells = {CELLS[j] for window in WINDOWS
                 if all(board[j] in (colour, _FREE) for j in window)
                 and any(board[j] == colour for j in window) for j in window}
        return tuple(sorted(cells))

    def _wins(self, i: int, colour: str) -> bool:
        board = self._board
        for window in _WINDOWS_AT[i]:
            for j in window:
                if board[j] != colour and board[j] != _FREE:
                    break
            else:
                return True
        return False

    def _discard(self, p: int, card: str) -> None:
        hand = self._hands[p]
        if self._declared:
            hand.pop()
        else:
            hand.remove(card)
        self._discards[p].append(card)

    def _draw(self, p: int) -> None:
        if not self._deck:
            self._reshuffle()
        if self._deck:  # always: the card just discarded is in the new deck
            self._hands[p].append(self._deck.pop(0))

    def _reshuffle(self) -> None:
        board = self._board_key()
        self._quiet = self._quiet + 1 if board == self._cycle_start else 0
        self._cycle_start = board
        self._reshuffles += 1
        pile = [card for d in self._discards for card in d]
        for d in self._discards:
            d.clear()
        if self._declared:
            pile = [_HIDDEN] * len(pile)
        else:
            random.Random(f"{self.options['seed']}:{self._reshuffles}").shuffle(pile)
        self._deck = pile
        stall: int = self.options["stall_cycles"]
        if stall and self._quiet >= stall and self._result is None:
            self._result = Outcome(None, Reason.STALLED)

    def _end_turn(self) -> None:
        self._to_move = (self._to_move + 1) % self.num_players
        self._exchanges = 0

    # ------------------------------------------------------------------ explanations
    def _explain(self, move: SequenceMove) -> str:
        p = self._to_move
        own = self._colour[p]
        board = self._board
        if isinstance(move, Pass):
            options = [m for m in self.legal_moves() if not isinstance(m, Pass)]
            plays = [m for m in options if not isinstance(m, Dead)]
            if plays:
                return f"you cannot pass: you can still play a card (e.g. {plays[0]})"
            if options:
                return f"you cannot pass: exchange your dead card first ({options[0]})"
            return "you cannot pass now"
        card = DRAGON if isinstance(move, Dragon) else move.card
        problem = self._card_problem(card)
        if problem:
            return problem
        if isinstance(move, Place):
            i = INDEX[move.cell]
            if i in _CORNER_IDX:
                return f"{move.cell} is a free corner: no chip may be placed there"
            if card != UNICORN and i not in self._layout.spaces[card]:
                a, b = (CELLS[j] for j in self._layout.spaces[card])
                return f"{move.cell} is not a {card} space: the {card} is on {a} and {b}"
            if board[i]:
                return f"{move.cell} is already covered by a {COLOUR_NAMES[board[i]].lower()} chip"
            if self._supply[own] == 0:
                return f"{COLOUR_NAMES[own]} has no chips left: only a dragon can be played"
        elif isinstance(move, Dragon):
            i = INDEX[move.cell]
            if i in _CORNER_IDX:
                return f"{move.cell} is a free corner: there is no chip to remove"
            if not board[i]:
                return f"{move.cell} is empty: a dragon removes a chip of another colour"
            if board[i] == own:
                whose = "your team's" if self._colour.count(own) > 1 else "your own"
                return f"{move.cell} holds {whose} chip: a dragon removes another colour's chip"
        else:
            if not self._may_exchange():
                limit = self.options["dead_cards"]
                return f"you may exchange only {limit} dead card(s) a turn; play a card or pass"
            if card == DRAGON:
                if any(board[i] and board[i] != own for i in SPACES):
                    return "the dragon is not dead: there are chips of another colour to remove"
                return "a dragon with no chip to remove is not a dead card here (dragon_dead=false)"
            if card == UNICORN:
                return "the unicorn is not dead: there are empty spaces to play it on"
            open_ = [CELLS[i] for i in self._layout.spaces[card] if not board[i]]
            verb = "is" if len(open_) == 1 else "are"
            return f"{card} is not dead: {' and '.join(open_)} {verb} still open"
        return super()._explain(move)

    def _card_problem(self, card: str) -> str:
        if self._declared:
            if self._discarded()[card] >= COPIES:
                return (
                    f"both {card} cards are already on the discard piles: no {card} can be "
                    "played until the discards are shuffled into a new deck"
                )
        elif card not in self._hands[self._to_move]:
            return f"you hold no {card} card"
        return ""

    # ------------------------------------------------------------------ notation
    def _parse_move(self, text: str) -> SequenceMove:
        t = " ".join(text.lower().split())
        if t == "pass":
            return PASS
        if m := _PLACE_RE.fullmatch(t):
            card, cell = m.group(1), self._cell(m.group(2))
            if card == DRAGON:
                raise ValueError(f"a dragon removes a chip: write 'dragon x{cell}'")
            self._card(card, placing=True)
            return Place(card, cell)
        if m := _DRAGON_RE.fullmatch(t):
            return Dragon(self._cell(m.group(1)))
        if m := _DEAD_RE.fullmatch(t):
            return Dead(self._card(m.group(1)))
        raise ValueError(
            f"cannot read {text!r}: write a card and a space (fox@b3, unicorn@c4), "
            "'dragon xc4', 'dead fox' or 'pass'"
        )

    @staticmethod
    def _cell(name: str) -> str:
        if name not in INDEX:
            raise ValueError(
                f"{name!r} is not a cell of the Sequence for Kids board; cells are a1 ... f7"
            )
        return name

    def _card(self, name: str, placing: bool = False) -> str:
        if name not in self._layout.cards or (placing and name == DRAGON):
            raise ValueError(
                f"{name!r} is not a card of this board; the cards are "
                f"{', '.join(self._layout.animals)}, dragon and unicorn"
            )
        return name

    # ------------------------------------------------------------------ state
    def _state_dict(self) -> dict[str, Any]:
        return {
            "board": {CELLS[i]: t for i, t in enumerate(self._board) if t and t != _FREE},
            "hands": [list(h) for h in self._hands],
            "deck": list(self._deck),
            "discards": [list(d) for d in self._discards],
            "chips": dict(self._supply),
            "to_move": self._to_move,
            "exchanges": self._exchanges,
            "reshuffles": self._reshuffles,
            "quiet_cycles": self._quiet,
            "cycle_start": self._board_dict(self._cycle_start),
            "passes": self._passes,
            "outcome": self._result.to_dict() if self._result else None,
        }

    def _read_board(self, cells: Any, what: str = "board") -> list[str]:
        board = [_FREE if i in _CORNER_IDX else "" for i in range(len(CELLS))]
        for cell, token in dict(cells).items():
            if cell not in INDEX:
                raise ValueError(f"{what}: {cell!r} is not a cell; cells are a1 ... f7")
            if INDEX[cell] in _CORNER_IDX:
                raise ValueError(f"{what}: {cell} is a free corner; no chip may be on it")
            if token == "":
                continue
            if token not in self._in_play:
                raise ValueError(
                    f"{what}: {cell} holds {token!r}; the colours in play are "
                    f"{' '.join(self._in_play)}"
                )
            board[INDEX[cell]] = token
        return board

    def _board_key(self, board: list[str] | None = None) -> str:
        """The board as one string, a character a cell ('.' empty), to compare boards."""
        return "".join(t or "." for t in (self._board if board is None else board))

    @staticmethod
    def _board_dict(key: str) -> dict[str, str]:
        return {CELLS[i]: t for i, t in enumerate(key) if t not in ".*"}

    def _load_state(self, d: dict[str, Any]) -> None:
        n = self.num_players
        missing = [k for k in ("board", "hands", "deck", "discards", "to_move") if k not in d]
        if missing:
            raise ValueError(f"sequence-kids position: missing {', '.join(missing)}")
        board = self._read_board(d["board"])
        hands = [list(h) for h in d["hands"]]
        discards = [list(p) for p in d["discards"]]
        deck = list(d["deck"])
        if len(hands) != n or len(discards) != n:
            raise ValueError(f"hands and discards must have one list per player ({n})")
        if any(len(h) > HAND for h in hands):
            raise ValueError(f"a hand holds at most {HAND} cards")
        every = [c for h in hands for c in h] + deck + [c for p in discards for c in p]
        if self._declared:
            if any(c != _HIDDEN for c in [*deck, *(c for h in hands for c in h)]):
                raise ValueError(
                    f"with cards=declared the hands and the deck are unknown: write {_HIDDEN!r}"
                )
            total = Counter(c for p in discards for c in p)
            total[_HIDDEN] = 0
            unknown = sorted(set(total) - set(self._layout.cards) - {_HIDDEN})
            over = sorted(c for c in self._layout.cards if total[c] > COPIES)
            if unknown or over or len(every) != len(self._layout.cards) * COPIES:
                raise ValueError(
                    "the discards and counts do not fit a 42-card deck"
                    f"{': ' + ', '.join(unknown + over) if unknown or over else ''}"
                )
        elif Counter(every) != Counter(self._layout.deck()):
            diff = (Counter(every) - Counter(self._layout.deck())) + (
                Counter(self._layout.deck()) - Counter(every)
            )
            raise ValueError(
                "hands, deck and discards must hold the 42 cards exactly once; "
                f"wrong count of: {', '.join(sorted(diff))}"
            )
        chips: int = self.options["chips"]
        on_board = Counter(t for t in board if t and t != _FREE)
        supply = {c: chips - on_board[c] for c in self._in_play}
        given = d.get("chips")
        if given is not None:
            supply = {c: int(given.get(c, supply[c])) for c in self._in_play}
        for c in self._in_play:
            if supply[c] < 0 or supply[c] + on_board[c] > chips:
                raise ValueError(
                    f"{COLOUR_NAMES[c]} has {on_board[c]} chips on the board and "
                    f"{supply[c]} left, more than the {chips} of a colour"
                )
        to_move = int(d["to_move"])
        if not 0 <= to_move < n:
            raise ValueError(f"to_move must be a player 0 ... {n - 1}, got {to_move}")
        self._board = board
        self._hands = hands
        self._deck = deck
        self._discards = discards
        self._supply = supply
        self._to_move = to_move
        self._exchanges = int(d.get("exchanges", 0))
        self._reshuffles = int(d.get("reshuffles", 0))
        self._quiet = int(d.get("quiet_cycles", 0))
        start = d.get("cycle_start")
        if start is None:  # a set-up position: the current deck cycle starts here
            self._cycle_start = self._board_key()
        else:
            self._cycle_start = self._board_key(self._read_board(start, "cycle_start"))
        self._passes = int(d.get("passes", 0))
        out = d.get("outcome")
        self._result = Outcome.from_dict(out) if out else None

    # ------------------------------------------------------------------ views
    def _view(self) -> dict[str, str]:
        return {cell: ("" if t == _FREE else t) for cell, t in zip(CELLS, self._board, strict=True)}

    def colour_of(self, player: int) -> str:
        """The chip token ``player`` plays (R, Y, B or G)."""
        return self._colour[player]

    def _check_player(self, player: int) -> None:
        if not 0 <= player < self.num_players:
            raise ValueError(f"player must be 0 ... {self.num_players - 1}, got {player!r}")

    def view_for(self, player: int) -> dict[str, Any]:
        """What ``player`` may see: the board, their own hand only, and the public cards.

        ``hand`` is None with ``cards=declared`` (the player holds the real cards).
        """
        self._check_player(player)
        out = self.outcome()
        return {
            "board": self.view("identity"),
            "player": player,
            "colour": self._colour[player],
            "to_move": self._to_move,
            "hand": None if self._declared else list(self._hands[player]),
            "hand_sizes": [len(h) for h in self._hands],
            "discards": [list(d) for d in self._discards],
            "deck": len(self._deck),
            "chips": dict(self._supply),
            "exchanges": self._exchanges if player == self._to_move else 0,
            "outcome": out.to_dict() if out else None,
        }

    def animals(self) -> dict[str, str]:
        """The animal printed on each space of this game's board (the corners have none),
        for drawing it: cell name -> animal."""
        return {cell: animal for cell, animal in zip(CELLS, self._layout.animal_at,
                                                      strict=True) if animal}

    def private_text(self, player: int) -> str:
        """``player``'s hand for the terminal, with the dead cards marked."""
        self._check_player(player)
        name = self.player_names[player]
        if self._declared:
            return f"{name}: you hold the real cards (cards=declared)"
        board = self._board
        own = self._colour[player]
        shown = []
        for card in sorted(self._hands[player], key=self._layout.order.__getitem__):
            if card == DRAGON:
                dead = not any(board[i] and board[i] != own for i in SPACES)
            elif card == UNICORN:
                dead = all(board[i] for i in SPACES)
            else:
                dead = all(board[i] for i in self._layout.spaces[card])
            shown.append(f"{card} (dead)" if dead else card)
        return f"{name}'s cards: {', '.join(shown) if shown else 'none'}"

    def _board_str(self) -> str:
        width = max(6, *(len(a) for a in self._layout.animals)) + 2
        files = "".join(chr(ord("a") + f).ljust(width) for f in range(FILES))
        lines = [("   " + files).rstrip()]
        for rank in range(RANKS - 1, -1, -1):
            row = []
            for file in range(FILES):
                i = rank * FILES + file
                t = self._board[i]
                shown = "(free)" if t == _FREE else t or self._layout.animal_at[i]
                row.append(shown.ljust(width))
            lines.append(f"{rank + 1}  " + "".join(row).rstrip())
        piles = []
        for p, pile in enumerate(self._discards):
            top = f" (top {pile[-1]})" if pile else ""
            piles.append(f"{self.player_names[p]} {len(pile)}{top}")
        chips = ", ".join(f"{c} {self._supply[c]}" for c in self._in_play)
        lines.append(f"deck {len(self._deck)}; chips left: {chips}")
        lines.append(f"discard piles: {', '.join(piles)}")
        if self._result is None:
            lines.append(f"{self.player_names[self._to_move]} to move")
        elif self._result.winner is None:
            lines.append(f"draw ({self._result.reason})")
        else:
            names = " and ".join(self.player_names[q] for q in self._result.winners)
            lines.append(f"{names} won ({self._result.reason})")
        return "\n".join(lines)
