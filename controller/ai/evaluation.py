"""What the engine knows about each game: a static evaluation, a position key, the sides.

Every evaluation scores the position for the player to move (positive: good for them), in
hundredths of a man, from what the game shows publicly (``view()``, ``player_names``, the
games' public extras). Each is written from the game's strategy:

- morris: material (men on the board and in hand), mills, open twos (two men of a mill with
  the third point empty), double mills, blocked men, mobility; weighted by phase (placing,
  moving, flying);
- draughts, per variant: material with kings worth more where they fly, tempo (how far the
  men have come), the back rank kept, the centre, runaway men near the crown;
- quixo: lines still open for each side (four of five weigh most: the opponent's are
  threats), the centre cube, own cubes (:mod:`tavola.ai.quixo_lines`, on bitboards, which
  also tells the searcher who can complete a line in one push);
- tessere: the race for safe placements (a checker that leaves three of a configuration
  sharing a colour another checker carries hands over the win), who makes the last safe
  one, who holds the last block (the second block wins a full board);
- sequence-kids: lines of four still open for each colour, free corners, dragons and
  unicorns in the hand of the player to move (never an opponent's hand);
- quinque: lines of five across tiles still open (those on tiles that cannot move weigh
  more), the completions each side threatens and whether the other can still stop them
  all with a backpack and a tile move, backpacks held in reserve
  (:mod:`tavola.ai.quinque_lines`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from tavola.ai.quinque_lines import evaluate as _quinque
from tavola.ai.quinque_lines import wins_in_one as _quinque_wins_in_one
from tavola.ai.quixo_lines import evaluate as _quixo
from tavola.ai.quixo_lines import wins_in_one as _quixo_wins_in_one
from tavola.games import Game
from tavola.games.morris import Morris
from tavola.games.tessere import CONFIGURATIONS as TESSERE_CONFIGURATIONS
from tavola.games.tessere import MASK as TESSERE_MASK

WIN = 1_000_000  # a won game; minus the plies it takes, so sooner is better
# How much worse than an even game a Quixo cycle is for the searching side (hundredths of
# a man; an open four weighs 60): an even, quiet position is no reason to repeat.
QUIXO_CONTEMPT = 40
# The same for a Quinque position met again (a four weighs 40): shuffling tiles while
# backpacks are in hand only puts off the game.
QUINQUE_CONTEMPT = 40
Evaluator = Callable[[Game[Any]], int]


@dataclass(frozen=True)
class Knowledge:
    """One game's evaluation, position key and team structure, for the searchers.

    ``key`` returns None for positions that must not be shared in the transposition table.
    ``side`` maps a player to the side (team) that wins together.
    """

    evaluate: Evaluator
    key: Callable[[Game[Any]], Hashable | None]
    side: Callable[[Game[Any], int], int]
    hidden: bool = False  # cards hidden from the player to move: search by MCTS
    # Whether the later actions of one turn (a removal, the next jump) cost no search depth:
    # true where they are few and a leaf inside a turn would misjudge it.
    free_continuation: bool = True
    # Whether the legal actions of a position force an exchange that a static evaluation
    # would misjudge (a compulsory capture): the search goes on there past its depth.
    forcing: Callable[[Sequence[Any]], bool] | None = None
    # How urgent each action is, from the public board (MCTS: playouts and priors).
    action_scores: Callable[[Game[Any], Sequence[Any]], list[int]] | None = None
    # Whether the player to move (True) or the other side (False: its threat) can win with
    # one action now, answered without playing the moves: the searcher then scores a node
    # won at once, and at the horizon answers a threat instead of standing pat on it.
    # Only for games of two sides; True must be certain, False may miss a win.
    wins_in_one: Callable[[Game[Any], bool], bool] | None = None
    # Whether a threat at the horizon is answered by searching every answer one action
    # more: where a turn is one action (Quixo). Quinque's first actions run to hundreds
    # and its second action could still break the threat, so one action more says little.
    threat_extension: bool = True
    # The score, for the side to move at the root, of a position met again (earlier in the
    # game or on the search path); None: never. Where play can cycle without end (Quixo) a
    # draw by cycling is worth less than a plan that keeps the game going, so the engine
    # shuffles the same pushes only when it thinks itself clearly worse (a contempt).
    repetition_score: int | None = None
    # Whether a leaf with one legal action is searched on (a forced reply that a static
    # score would misjudge: a lone capture, a mill's removal). Where one action is left
    # only at the very end (tessere's last placement, or a pass), the leaf is scored at
    # once and its moves are never generated.
    extend_lone_reply: bool = True


def _two_sides(game: Game[Any], player: int) -> int:
    return player


def _teams(game: Game[Any], player: int) -> int:
    """Quixo and Sequence with four players: seats 0 and 2, 1 and 3 win together."""
    if game.num_players == 4 and game.options.get("teams", True):
        return player % 2
    return player


# ----------------------------------------------------------------------------- morris
def _morris(game: Game[Any]) -> int:
    from tavola.games.morris import ADJACENT, INDEX, MILL_MASKS, MILLS_AT

    me = game.current_player
    own = opp = 0
    for cell, token in game.view().items():
        if token:
            bit = 1 << INDEX[cell]
            if (token == "W") == (me == 0):
                own |= bit
            else:
                opp |= bit
    assert isinstance(game, Morris)
    hand = [game.men_in_hand(0), game.men_in_hand(1)]  # not in the board's view
    empty = ((1 << 24) - 1) & ~(own | opp)
    n_own, n_opp = own.bit_count(), opp.bit_count()
    placing = hand[0] or hand[1]
    score = 120 * (n_own + hand[me] - n_opp - hand[1 - me])
    mills = twos = 0
    for m in MILL_MASKS:
        a, b = own & m, opp & m
        if a == m:
            mills += 1
        elif b == m:
            mills -= 1
        elif not b and a.bit_count() == 2:
            twos += 1
        elif not a and b.bit_count() == 2:
            twos -= 1
    score += 25 * mills + 12 * twos
    if placing:
        # A point where two of one's open twos meet is a fork: the opponent blocks one only.
        for i in range(24):
            if empty >> i & 1:
                mine = sum(1 for m in MILLS_AT[i] if (own & m).bit_count() == 2 and not opp & m)
                theirs = sum(1 for m in MILLS_AT[i] if (opp & m).bit_count() == 2 and not own & m)
                score += 20 * ((mine == 2) - (theirs == 2))
        return score
    mob_own = mob_opp = blocked = 0
    for i in range(24):
        free = (ADJACENT[i] & empty).bit_count()
        if own >> i & 1:
            mob_own += free
            blocked += free == 0
        elif opp >> i & 1:
            mob_opp += free
            blocked -= free == 0
    flying_own, flying_opp = n_own == 3, n_opp == 3
    if not flying_own and not flying_opp:
        score += 6 * (mob_own - mob_opp) - 10 * blocked
        if mob_opp == 0:
            score += 400  # the opponent is nearly blocked
    # A double mill (a man swinging between two mills) wins a man every second turn.
    for m in MILL_MASKS:
        if own & m == m:
            for i in range(24):
                if m >> i & 1 and any(
                    (own & n).bit_count() == 2 and not (opp & n) and n & ADJACENT[i] & empty
                    for n in MILL_MASKS
                    if n != m and not n >> i & 1
                ):
                    score += 30
    if flying_opp and not flying_own:
        score += 40  # the flier is one removal from losing
    return score


# ----------------------------------------------------------------------------- draughts
def _draughts(game: Game[Any]) -> int:
    me = game.current_player
    mine = game.player_names[me][0]  # "W" or "B": the token of this player's men
    flying = game.options["flying_kings"]
    king_value = 250 if flying else 160
    score: int = 0
    for cell, token in game.view().items():
        if not token:
            continue
        file, rank = ord(cell[0]) - 97, int(cell[1:]) - 1
        ours = token[0] == mine
        forward = rank if (ours and me == 0) or (not ours and me == 1) else 7 - rank
        if len(token) > 1:
            value = king_value
        else:
            value = 100 + 3 * forward + (12 if forward >= 6 else 0)  # tempo; near the crown
            if forward == 0:
                value += 6  # the back rank keeps the opponent's men from crowning
        if 2 <= file <= 5 and 3 <= rank <= 4:
            value += 6
        score += value if ours else -value
    return score


def _draughts_capture(moves: Sequence[Any]) -> bool:
    """Every legal action captures (capturing is compulsory; a variant with huffing may
    leave a capture optional, and then the position is not forcing)."""
    return bool(moves) and all("x" in str(m) for m in moves)


# ----------------------------------------------------------------------------- tessere
# Tessere is a race for safe placements: a checker that leaves three of a configuration
# sharing a colour that some checker still off the board carries hands the opponent the
# win. The checkers are shared, so safe placements are a common pool the players take turns
# to use; a held block is one more safe turn (it can go on a cell no checker may take), and
# the player who finds none left must give the win away. A full board goes to the player
# who placed their block second.
_TESSERE_PARITY = 90  # the last safe placement, at the end; less while the board is open
# Holding one's block while the opponent's is down: the last block wins a full board, and
# until then it is a safe turn in hand (40 before; with 80 the search stopped giving its
# block away early, which let greedy put its own down second).
_TESSERE_BLOCK = 80
# The parity of safe placements is read only from this many empty cells on: with the board
# open it is noise (every turn scored within a few points), which decided early blocks.
_TESSERE_PARITY_FROM = 15
_TESSERE_MASK = {t: m for t, m in TESSERE_MASK.items() if t not in ("", "K")}
_TESSERE_ALL = (1 << 25) - 1
# Per ``diagonals`` setting, each configuration as a bitboard of its four cells.
_TESSERE_LINES = {
    d: tuple(sum(1 << i for i in line) for line in lines)
    for d, lines in TESSERE_CONFIGURATIONS.items()
}


def _tessere(game: Game[Any]) -> int:
    """The race for safe placements, read on bitboards (cell i is bit i; one board of the
    cells whose checker carries each colour): about six times as fast as reading the view
    cell by cell, the same scores (``tests/ai/test_evaluation.py`` checks both agree)."""
    g: Any = game
    me = g.to_move
    lines = _TESSERE_LINES[g.options["diagonals"]]
    occupied = blocked = 0
    colour = [0, 0, 0, 0]
    bit = 1
    for token in g.board:
        if token:
            if token == "K":
                blocked |= bit
            else:
                occupied |= bit
                mask = _TESSERE_MASK[token]
                if mask & 1:
                    colour[0] |= bit
                if mask & 2:
                    colour[1] |= bit
                if mask & 4:
                    colour[2] |= bit
                if mask & 8:
                    colour[3] |= bit
        bit <<= 1
    carried = [0, 0, 0, 0]
    masks = []  # the colour sets of the checkers left, once each
    for token, n in g.supply.items():
        if n:
            mask = _TESSERE_MASK[token]
            masks.append(mask)
            for c in range(4):
                if mask >> c & 1:
                    carried[c] += n
    available = twice = 0  # colours some checker left carries; two or more carry
    for c in range(4):
        if carried[c]:
            available |= 1 << c
            if carried[c] >= 2:
                twice |= 1 << c
    r, y, gr, b = colour
    danger = [0, 0, 0, 0]  # per colour, the empty cells where a checker carrying it is unsafe
    for line in lines:
        if line & blocked:
            continue
        on = line & occupied
        if on & (on - 1) == 0:  # at most one checker: nothing shared yet
            continue
        shared = ((on & r == on) | (on & y == on) << 1 | (on & gr == on) << 2
                  | (on & b == on) << 3)
        if not shared:
            continue
        count = on.bit_count()
        if count == 3:
            if shared & available:
                return 5000  # the player to move completes it now
        elif count == 2:
            free = line & ~on
            for c in range(4):
                if shared >> c & 1:
                    danger[c] |= free
    empty = _TESSERE_ALL & ~(occupied | blocked)
    # A checker on a cell is unsafe when it shares one of those colours with the two and
    # another checker left carries that colour (the one that completes the line).
    safe_cells = 0
    for mask in set(masks):
        unsafe = 0
        risky = mask & twice
        for c in range(4):
            if risky >> c & 1:
                unsafe |= danger[c]
        safe_cells |= empty & ~unsafe
    safe = safe_cells.bit_count()
    mine, theirs = g.block_at[me] >= 0, g.block_at[1 - me] >= 0  # placed
    if not safe and masks and mine:
        return -3000  # every placement left to the player to move hands over a line
    held = (not mine) + (not theirs)
    score = 0
    if theirs and not mine:
        score += _TESSERE_BLOCK  # the player to move holds the last block: a full board
    elif mine and not theirs:
        score -= _TESSERE_BLOCK
    # Who makes the last safe placement: the player to move when the count is odd.
    weight = 0
    empties = empty.bit_count()
    if empties <= _TESSERE_PARITY_FROM:
        weight = _TESSERE_PARITY * (25 - empties) // 25
    score += weight if (safe + held) % 2 else -weight
    return score


def _colour_mask(token: str) -> int:
    return sum(1 << "RYGB".index(c) for c in token if c in "RYGB")


# ----------------------------------------------------------------------------- sequence
_SEQ_LINE = (0, 2, 8, 40, 0)


def _sequence(game: Game[Any]) -> int:
    from tavola.games.sequence_kids import CELLS, CORNERS, WINDOWS

    me = game.current_player
    colour = game.colour_of(me)  # type: ignore[attr-defined]
    view = game.view()
    board = ["*" if c in CORNERS else view[c] for c in CELLS]
    score = 0
    for window in WINDOWS:
        own = opp = 0
        for i in window:
            t = board[i]
            if t == colour or t == "*":
                own += 1
            elif t:
                opp += 1
        free = sum(1 for i in window if board[i] == "*")
        if not opp:
            score += _SEQ_LINE[own]
        elif own == free:
            score -= _SEQ_LINE[opp + free]
    hand = game.view_for(me).get("hand") or []
    score += 15 * sum(1 for card in hand if card in ("dragon", "unicorn"))
    return score


_SEQ_WIN = 10_000  # a placement that completes a line
_SEQ_BLOCK = 5_000  # one that fills the last cell of the opponent's three
_SEQ_BREAK = 3_000  # a dragon that breaks a line the opponent completes next turn
_SEQ_SPEND = {"dragon": 30, "unicorn": 20}  # keep the wild cards for when they matter


def sequence_action_scores(game: Game[Any], moves: Sequence[Any]) -> list[int]:
    """How urgent each of ``moves`` (one action of Sequence for Kids) is for the player to
    move, from the board alone: completing a line first, then filling the last cell of the
    opponent's three, a dragon breaking such a three, then growing one's own open lines and
    spoiling the opponent's; a dragon or unicorn costs something, so it is kept for those.

    The playouts and the tree's priors of :mod:`tavola.ai.mcts` follow these scores; they
    read only the board and the moves, never a hidden card.
    """
    from tavola.games.sequence_kids import CELLS, CORNERS, INDEX, WINDOWS

    colour = game.colour_of(game.current_player)  # type: ignore[attr-defined]
    view = game.view()
    board = ["*" if c in CORNERS else view[c] for c in CELLS]
    at = _windows_at(len(CELLS), WINDOWS)
    scores: list[int] = []
    for move in moves:
        cell = getattr(move, "cell", None)
        if cell is None:  # a dead card's exchange (a new card for nothing) or a pass
            scores.append(5 if str(move).startswith("dead") else 0)
            continue
        i = INDEX[cell]
        card = getattr(move, "card", "dragon")
        score = -_SEQ_SPEND.get(card, 0)
        for window in at[i]:
            own = opp = 0
            for j in window:
                t = board[j]
                if j == i:
                    continue
                if t == "*" or t == colour:
                    own += 1
                elif t:
                    opp += 1
            frees = sum(1 for j in window if board[j] == "*")
            mine = own - frees  # own chips only
            if card == "dragon":  # removes the opponent's chip on i
                if mine == 0:  # their line through i loses a chip
                    theirs = opp + 1 + frees
                    score += _SEQ_BREAK if theirs >= 3 else _SEQ_LINE[theirs]
                elif opp == 0:  # i was the only thing spoiling one's own line
                    score += _SEQ_LINE[own]
                continue
            if opp == 0:
                score += _SEQ_WIN if own == 3 else _SEQ_LINE[own + 1] - _SEQ_LINE[own]
            elif mine == 0:
                score += _SEQ_BLOCK if opp + frees == 3 else _SEQ_LINE[opp + frees]
        scores.append(score)
    return scores


_WINDOWS_AT_CACHE: dict[int, list[list[tuple[int, ...]]]] = {}


def _windows_at(cells: int, windows: tuple[tuple[int, ...], ...]) -> list[list[tuple[int, ...]]]:
    found = _WINDOWS_AT_CACHE.get(cells)
    if found is None:
        found = [[w for w in windows if i in w] for i in range(cells)]
        _WINDOWS_AT_CACHE[cells] = found
    return found


# ----------------------------------------------------------------------------- keys
def _key_from_game(game: Game[Any]) -> Hashable | None:
    return game.position_key()


def _quixo_key(game: Game[Any]) -> Hashable:
    g: Any = game
    return (tuple(g.board), tuple(g.dots), g.player)


def _tessere_key(game: Game[Any]) -> Hashable:
    g: Any = game
    return (tuple(g.board), tuple(g.blocks), g.to_move)


def _quinque_key(game: Game[Any]) -> Hashable:
    g: Any = game
    return (
        frozenset(g.tiles.items()), frozenset(g.sky.items()), tuple(g.left), g.supply,
        g.player, g.phase, g.marked,
    )  # fmt: skip


def _no_key(game: Game[Any]) -> None:
    return None


KNOWLEDGE: dict[str, Knowledge] = {
    "morris": Knowledge(_morris, _key_from_game, _two_sides),
    "draughts": Knowledge(_draughts, _key_from_game, _two_sides, forcing=_draughts_capture),
    "quixo": Knowledge(_quixo, _quixo_key, _teams, wins_in_one=_quixo_wins_in_one,
                       repetition_score=-QUIXO_CONTEMPT),
    "tessere": Knowledge(_tessere, _tessere_key, _two_sides, extend_lone_reply=False),
    "sequence-kids": Knowledge(
        _sequence, _no_key, _teams, hidden=True, action_scores=sequence_action_scores
    ),
    # Contempt: without it strongest and greedy moved the same tiles back and forth
    # with backpacks in hand, each breaking the other's lines, to the bench's ply cap.
    "quinque": Knowledge(_quinque, _quinque_key, _two_sides, free_continuation=False,
                         wins_in_one=_quinque_wins_in_one, threat_extension=False,
                         repetition_score=-QUINQUE_CONTEMPT),
}


def knowledge(game: Game[Any]) -> Knowledge:
    """The engine's knowledge of ``game``'s kind; ValueError for a game it does not know."""
    try:
        return KNOWLEDGE[game.name]
    except KeyError:
        raise ValueError(
            f"no engine for game {game.name!r}; known: {', '.join(KNOWLEDGE)}"
        ) from None
