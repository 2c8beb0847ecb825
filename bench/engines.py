"""Rules-engine speed: random playouts and perft, per game, and against reference engines.

Run: ``make bench`` (or ``.venv/bin/python bench/engines.py [GAME ...]``). Every figure is
the median of ROUNDS rounds, printed with the min-max of the rounds, in CPU time of this
process (a round of playouts lasts SECONDS of it).

Playouts call the public API a player or hint engine uses: ``legal_moves()`` then
``apply(random choice)``, on fresh games until each ends (or a ply cap). An "action" is one
atomic action (a jump, a removal); a "turn" ends when the player to move changes. Perft
counts the leaves of the whole-turn tree (``tavola.games.perft``).

References, measured in the same process, round by round alternately with ours, so that
the machine's load hits both alike; the ratio is ours / theirs (above 1: we are faster):

- OpenSpiel (``pip install open-spiel``, C++ behind pybind11): ``nine_mens_morris`` against
  morris and ``checkers`` against draughts ``english``. Playouts: ``legal_actions()`` then
  ``apply_action(random choice)``; perft: ``child(action)`` per move, whole turns (a
  multi-jump is several actions by the same player, as in ours).
- py-draughts (pure Python, bitboards): ``RussianBoard`` and ``BrazilianBoard`` against
  draughts ``russian`` and ``brazilian``, used as its authors document: ``legal_moves``
  generated once per ply (it is a property that regenerates on every access, so it is read
  once), ``push``/``pop``; a playout ends when there are no moves or ``is_draw``. Its English
  board does not enforce captures, so OpenSpiel is the English reference.

Perft compares identical trees: both sides' leaf counts at the compared depth are checked
equal before timing, and both make every leaf move (no bulk counting at depth 1).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tavola.games import GAMES, new_game, perft

ROUNDS = 5
SECONDS = 1.0
PLY_CAP = 400
# Every figure is CPU time of this process: on a machine shared with other work, wall-clock
# rounds of a second swing with the load, and the paired rounds of two engines with them.
clock = time.process_time


@dataclass(frozen=True)
class Spread:
    """The median of some rounds' figures, with their minimum and maximum."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        return cls(statistics.median(values), min(values), max(values))

    def __str__(self) -> str:
        return f"{self.median:,.0f} ({self.low:,.0f}-{self.high:,.0f})"

    def ratio(self) -> str:
        """The spread written as ratios (two decimals)."""
        return f"{self.median:.2f}x ({self.low:.2f}-{self.high:.2f})"


def settings() -> list[tuple[str, dict[str, Any]]]:
    """Every game with each variant and the parameters its conformance test plays."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name in GAMES:
        cls = GAMES[name]
        rows: list[dict[str, Any]] = [{"variant": v} for v in cls.variants] or [{}]
        rows += list(getattr(cls, "CONFORMANCE_PARAMS", ()))
        out += [(name, params) for params in rows]
    return out


# ----------------------------------------------------------------------------- ours
def playout_rate(
    name: str, params: dict[str, Any], seed: int, count_turns: bool = True
) -> tuple[float, float]:
    """(actions/s, turns/s) of random games played for about SECONDS.

    The loop is the reference's: ``legal_moves()``, stop if there are none, ``apply`` a
    random one. ``count_turns`` adds one read of ``current_player`` per action (a turn ends
    when it changes, or when the game does); without it turns/s is 0, and the loop does
    exactly the work of OpenSpiel's (``legal_actions``, ``apply_action``).
    """
    rng = random.Random(seed)
    actions = turns = 0
    start = clock()
    while clock() - start < SECONDS:
        game = new_game(name, **params)
        if not count_turns:
            actions += random_playout(game, rng)
            continue
        player = game.current_player
        changed = True
        for _ in range(PLY_CAP):
            moves = game.legal_moves()
            if not moves:
                turns += not changed  # the game ended within the player's turn
                break
            game.apply(rng.choice(moves))
            actions += 1
            now = game.current_player
            changed = now != player
            turns += changed
            player = now
    elapsed = clock() - start
    return actions / elapsed, turns / elapsed


def random_playout(game: Any, rng: random.Random) -> int:
    """Play ``game`` out at random as the references do (``legal_moves()``, stop if there
    are none, ``apply`` a random one), at most PLY_CAP actions; the actions played."""
    actions = 0
    for _ in range(PLY_CAP):
        moves = game.legal_moves()
        if not moves:
            break
        game.apply(rng.choice(moves))
        actions += 1
    return actions


def perft_depth(name: str, params: dict[str, Any]) -> int:
    """The first depth whose perft takes at least 0.2 s (at most 6)."""
    depth, elapsed = 0, 0.0
    while elapsed < 0.2 and depth < 6:
        depth += 1
        start = clock()
        perft(new_game(name, **params), depth)
        elapsed = clock() - start
    return depth


def timed(count: Callable[[], int]) -> tuple[int, float]:
    """(the count, count per second) of one call."""
    start = clock()
    n = count()
    return n, n / (clock() - start)


# ----------------------------------------------------------------------------- OpenSpiel
def spiel_perft(state: Any, depth: int) -> int:
    """Whole-turn perft of an OpenSpiel state (same leaves as tavola.games.perft)."""
    if depth == 0:
        return 1
    total = 0
    player = state.current_player()
    for action in state.legal_actions():
        child = state.child(action)
        if child.is_terminal():
            total += 1 if depth == 1 else 0
        elif child.current_player() != player:
            total += spiel_perft(child, depth - 1)
        else:
            total += spiel_perft(child, depth)
    return total


def spiel_playout_rate(game: Any, seed: int) -> float:
    """OpenSpiel random playouts: actions/s for about SECONDS."""
    rng = random.Random(seed)
    actions = 0
    start = clock()
    while clock() - start < SECONDS:
        state = game.new_initial_state()
        for _ in range(PLY_CAP):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions / (clock() - start)


# ----------------------------------------------------------------------------- py-draughts
def spiel_perft_of(game: Any, depth: int) -> int:
    """OpenSpiel's perft from the game's initial state."""
    return spiel_perft(game.new_initial_state(), depth)


def board_perft_of(board_class: Any, depth: int) -> int:
    """py-draughts' perft from a new board of ``board_class``."""
    return board_perft(board_class(), depth)


def perft_of(name: str, params: dict[str, Any], depth: int) -> int:
    """Our perft from a new game."""
    return perft(new_game(name, **params), depth)


def board_perft(board: Any, depth: int) -> int:
    """py-draughts perft: moves generated once per node, push/pop (each move a turn)."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += board_perft(board, depth - 1)
        board.pop()
    return total


def board_playout_rate(board_class: Any, seed: int) -> float:
    """py-draughts random playouts: moves (whole turns)/s for about SECONDS."""
    rng = random.Random(seed)
    moves_done = 0
    start = clock()
    while clock() - start < SECONDS:
        board = board_class()
        for _ in range(PLY_CAP):
            legal = board.legal_moves  # a property: generated on each access, so read once
            if not legal or board.is_draw:
                break
            board.push(rng.choice(legal))
            moves_done += 1
    return moves_done / (clock() - start)


# ----------------------------------------------------------------------------- comparisons
@dataclass(frozen=True)
class Reference:
    """One of our settings against a reference engine's same game."""

    label: str  # e.g. "morris vs OpenSpiel nine_mens_morris"
    game: str
    params: dict[str, Any]
    unit: str  # what a playout counts: "actions" or "turns"
    depth: int  # the perft depth compared
    their_playout: Callable[[int], float]
    their_perft: Callable[[], int]


def references() -> tuple[list[Reference], list[str]]:
    """The references whose libraries are installed, and notes on those that are not."""
    refs: list[Reference] = []
    notes: list[str] = []
    try:
        import pyspiel
    except ImportError:
        notes.append("OpenSpiel not installed (pip install open-spiel): no reference run")
    else:
        for ours, params, theirs, depth in (
            ("morris", {}, "nine_mens_morris", 4),
            ("draughts", {"variant": "english"}, "checkers", 6),
        ):
            game = pyspiel.load_game(theirs)
            refs.append(Reference(
                f"{ours} {params.get('variant', '')} vs OpenSpiel {theirs}".replace("  ", " "),
                ours, params, "actions", depth,
                functools.partial(spiel_playout_rate, game),
                functools.partial(spiel_perft_of, game, depth),
            ))
    try:
        import draughts
    except ImportError:
        notes.append("py-draughts not installed: no reference run")
    else:
        for variant, board_class in (
            ("russian", draughts.RussianBoard),
            ("brazilian", draughts.BrazilianBoard),
        ):
            refs.append(Reference(
                f"draughts {variant} vs py-draughts {variant.title()}Board",
                "draughts", {"variant": variant}, "turns", 6,
                functools.partial(board_playout_rate, board_class),
                functools.partial(board_perft_of, board_class, 6),
            ))
    return refs, notes


# ----------------------------------------------------------------------------- quinque
QUINQUE_GAMES = 6  # random games per engine and round, played alternately


def quinque_versus_oracle(rounds: int) -> None:
    """Print Quinque's speed against its own engine as issue 13 found it
    (``tests/games/quinque_oracle.py``, which rebuilt the whole geometry for every new
    cluster): random playouts (``random_playout``) and perft depth 3, in CPU
    time, one game or perft of each engine in turn, so that the machine's load hits both
    alike; each round's ratio is ours / theirs."""
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)  # the oracle lives with the tests
    from tests.games.quinque_oracle import OracleQuinque

    def cpu(run: Callable[[], int]) -> tuple[int, float]:
        start = time.process_time()
        n = run()
        return n, time.process_time() - start

    ours_leaves = perft(new_game("quinque"), 3)
    their_leaves = perft(OracleQuinque(), 3)
    same = "identical" if ours_leaves == their_leaves else "DIFFERENT: not comparable"
    mine_p, theirs_p, mine_t, theirs_t = [], [], [], []
    for r in range(rounds):
        counts = [0, 0]
        seconds = [0.0, 0.0]
        for g in range(QUINQUE_GAMES):
            seed = r * 1000 + g
            makers: tuple[Callable[[], Any], ...] = (lambda: new_game("quinque"), OracleQuinque)
            for side, make in enumerate(makers):
                n, t = cpu(functools.partial(random_playout, make(), random.Random(seed)))
                counts[side] += n
                seconds[side] += t
        mine_p.append(counts[0] / seconds[0])
        theirs_p.append(counts[1] / seconds[1])
        n, t = cpu(lambda: perft(new_game("quinque"), 3))
        mine_t.append(n / t)
        n, t = cpu(lambda: perft(OracleQuinque(), 3))
        theirs_t.append(n / t)
    ratio_p = Spread.of([a / b for a, b in zip(mine_p, theirs_p, strict=True)])
    ratio_t = Spread.of([a / b for a, b in zip(mine_t, theirs_t, strict=True)])
    print("\nquinque vs its engine of issue 13 (tests/games/quinque_oracle.py), CPU time")
    print(f"  playouts actions/s: ours {Spread.of(mine_p)}, theirs {Spread.of(theirs_p)};"
          f" ratio {ratio_p.ratio()}")
    print(f"  perft d3 leaves/s: ours {Spread.of(mine_t)}, theirs {Spread.of(theirs_t)};"
          f" ratio {ratio_t.ratio()}")
    print(f"  perft d3 leaves: ours {ours_leaves:,}, theirs {their_leaves:,} ({same})")


# ----------------------------------------------------------------------------- morris
MORRIS_GAMES = 20  # random games replayed per round


def _step_costs(make: Callable[[], Any], games: list[list[Any]]) -> tuple[float, ...]:
    """CPU µs per action over ``games`` (each a list of its actions, replayed on a new game
    from ``make``): the whole step (``legal_moves()``, ``apply``), the engine's hooks alone
    (``_legal_moves()``, ``_apply``), ``_apply`` alone (so the moves generated are the
    hooks' figure less this one, cold in the cache as in play, which a second call to
    ``_legal_moves`` is not) and the replay loop alone."""
    actions = sum(map(len, games))

    def replay(step: Callable[[Any, Any], None]) -> float:
        start = clock()
        for moves in games:
            game = make()
            for move in moves:
                step(game, move)
        return (clock() - start) / actions * 1e6

    def whole(game: Any, move: Any) -> None:
        game.legal_moves()
        game.apply(move)

    def hooks(game: Any, move: Any) -> None:
        game._legal_moves()
        game._apply(move)

    def apply_only(game: Any, move: Any) -> None:
        game._apply(move)

    def nothing(game: Any, move: Any) -> None:
        pass

    return replay(whole), replay(hooks), replay(apply_only), replay(nothing)


def morris_costs(rounds: int) -> None:
    """Print what a morris action costs, part by part (best of ``rounds``, the same
    MORRIS_GAMES random games replayed), beside the random choice and, if installed,
    OpenSpiel's whole step (its playout loop's time per action, random choice included)."""
    games: list[list[Any]] = []
    for g in range(MORRIS_GAMES):
        game = new_game("morris")
        random_playout(game, random.Random(g))
        games.append(list(game.history))
    costs = [_step_costs(lambda: new_game("morris"), games) for _ in range(rounds)]
    step, engine, applying, loop = (min(c[i] for c in costs) for i in range(4))
    rng = random.Random(0)
    moves = [new_game("morris").legal_moves()[:9]] * 100_000
    start = clock()
    for legal in moves:
        rng.choice(legal)
    choice = (clock() - start) / len(moves) * 1e6
    print(f"\nmorris: an action (CPU µs, best of {rounds} replays of {MORRIS_GAMES} random games)")
    print(f"  legal_moves() + apply(): {step - loop:.2f}: generating the moves"
          f" {engine - applying:.2f}, applying one {applying - loop:.2f}, the contract"
          f" and undo snapshot {step - engine:.2f}; a random choice {choice:.2f}")
    try:
        import pyspiel
    except ImportError:
        return
    spiel = pyspiel.load_game("nine_mens_morris")
    theirs = min(1e6 / spiel_playout_rate(spiel, seed) for seed in range(rounds))
    print(f"  OpenSpiel's whole step, random choice included: {theirs:.2f}")


def compare(ref: Reference, rounds: int) -> None:
    """Print one reference's playout and perft figures and ratios, round by round paired."""
    ours_leaves = perft(new_game(ref.game, **ref.params), ref.depth)
    their_leaves = ref.their_perft()
    same = "identical" if ours_leaves == their_leaves else "DIFFERENT: not comparable"
    mine_p, theirs_p, mine_t, theirs_t = [], [], [], []
    for seed in range(rounds):
        by_turns = ref.unit == "turns"
        actions, turns = playout_rate(ref.game, ref.params, seed, count_turns=by_turns)
        mine_p.append(turns if by_turns else actions)
        theirs_p.append(ref.their_playout(seed))
        mine_t.append(timed(lambda: perft(new_game(ref.game, **ref.params), ref.depth))[1])
        theirs_t.append(timed(ref.their_perft)[1])
    print(f"\n{ref.label}")
    ratio_p = Spread.of([a / b for a, b in zip(mine_p, theirs_p, strict=True)])
    ratio_t = Spread.of([a / b for a, b in zip(mine_t, theirs_t, strict=True)])
    print(f"  playouts {ref.unit}/s: ours {Spread.of(mine_p)}, theirs {Spread.of(theirs_p)};"
          f" ratio {ratio_p.ratio()}")
    print(f"  perft d{ref.depth} leaves/s: ours {Spread.of(mine_t)}, theirs {Spread.of(theirs_t)};"
          f" ratio {ratio_t.ratio()}")
    print(f"  perft d{ref.depth} leaves: ours {ours_leaves:,}, theirs {their_leaves:,} ({same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="only these games (default: all)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds per figure")
    parser.add_argument("--no-references", action="store_true", help="only our engines")
    parser.add_argument("--only-references", action="store_true", help="only the comparisons")
    args = parser.parse_args()
    rounds = args.rounds
    print(f"median (min-max) of {rounds} rounds, playouts {SECONDS:.0f} s CPU each; "
          f"Python {sys.version.split()[0]}")
    if not args.only_references:
        print(f"{'game':<15}{'actions/s':>26}{'turns/s':>10}{'perft d':>9}"
              f"{'leaves/s':>26}  params")
        for name, params in settings():
            if args.games and name not in args.games:
                continue
            runs = [playout_rate(name, params, seed) for seed in range(rounds)]
            actions = Spread.of([a for a, _ in runs])
            turns = statistics.median(t for _, t in runs)
            depth = perft_depth(name, params)
            leaves = Spread.of([
                timed(functools.partial(perft_of, name, params, depth))[1]
                for _ in range(rounds)
            ])
            label = ",".join(f"{k}={v}" for k, v in params.items()) or "-"
            print(f"{name:<15}{actions!s:>26}{turns:>10,.0f}{depth:>9}{leaves!s:>26}  {label}")
    if args.no_references:
        return
    refs, notes = references()
    for note in notes:
        print(note)
    for ref in refs:
        if not args.games or ref.game in args.games:
            compare(ref, rounds)
    if not args.games or "morris" in args.games:
        morris_costs(rounds)
    if not args.games or "quinque" in args.games:
        quinque_versus_oracle(rounds)


if __name__ == "__main__":
    main()
