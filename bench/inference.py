"""Inference under real hands: noisy games on the simulated board, and what got recorded.

Run: ``.venv/bin/python bench/inference.py [--games N] [--seed S] [GAME ...]``. Random
games of every game and variant are played by :class:`tavola.hardware.hands.Hands` (slides
resting on free cells, pieces set on the wrong cell and corrected, touches, reed dropouts,
Morris removals before the mill is closed or taken and put back, Draughts captures lifted
at once or one by one, Sequence chips touched down and lifted, hand-made takebacks of 1-3
actions) and fed to a :class:`Session` exactly as the daemon does: debounced snapshots, a
tick every 0.05 s, settle and grace from ``controller/config.py``, arbiter policy. Before
the next player acts, the record is compared with what was played. Printed per game:

- ``actions``: actions played (takebacks not counted);
- ``wrong``: actions recorded that nobody played;
- ``stuck``: the board right and still, the session behind it;
- ``undo``: spurious accept-then-undo pairs (an undo nobody made);
- ``flags``: arbiter flags raised in legal play (takebacks excluded);
- ``tb>mv``: hand-made takebacks read as moves;
- ``asked``: ambiguous readings the player resolved at the console (typed the move);
- ``amend``: actions corrected in place (a piece moved on from the wrong cell);
- ``equiv``: an action recorded that leaves the very position played (pushing a blank Quixo
  cube along blanks towards one end or the other: the board cannot tell them apart);
- ``p50``/``p99``: confirmation latency in seconds, from the last contact change of an
  action to the journal entry that records it.

After a divergence the session is set to the true game and play goes on, so every action
is scored. Deterministic for a seed and a fixed ``PYTHONHASHSEED`` (the hash seed orders
some legal-move lists). A hand-made takeback takes up first the piece the action undone
put down (a push is pushed back from its far end).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tavola.config import InferenceConfig
from tavola.daemon import TICK_SECONDS
from tavola.games import Game, new_game
from tavola.hardware.hands import Habits, Hands, settled
from tavola.hardware.layout import Layout
from tavola.inference import Ambiguous
from tavola.session import Effects, Session

DEBOUNCE = 0.005  # the reed and simulated sensors' default
MAX_ACTIONS = 80  # per game: long Quinque and Draughts endings add little
TAKEBACK = 0.03  # per action: a hand-made takeback of 1-3 actions

VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("morris", {}),
    ("morris", {"flying": False}),
    ("draughts", {"variant": "dame"}),
    ("draughts", {"variant": "german"}),
    ("draughts", {"variant": "russian"}),
    ("draughts", {"variant": "brazilian"}),
    ("draughts", {"variant": "english"}),
    ("quixo", {}),
    ("quixo", {"players": 4}),
    ("tessere", {}),
    ("sequence-kids", {}),
    ("sequence-kids", {"players": 3}),
    ("sequence-kids", {"players": 4}),
    ("quinque", {}),
    ("quinque", {"advanced": True}),
)
_CELL = re.compile(r"[a-z][0-9]+")


@dataclass
class Tally:
    """What one or more noisy games recorded, against what was played."""

    games: int = 0
    actions: int = 0
    wrong: int = 0
    stuck: int = 0
    undo: int = 0
    flags: int = 0
    takeback_as_move: int = 0
    asked: int = 0
    amend: int = 0
    equiv: int = 0
    takebacks: int = 0
    latency: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Sum ``other`` into this tally."""
        for name in ("games", "actions", "wrong", "stuck", "undo", "flags",
                     "takeback_as_move", "asked", "amend", "equiv", "takebacks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.latency += other.latency


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Table:
    """One noisy game: the true game, the hands, and the session that follows them."""

    def __init__(self, name: str, options: dict[str, Any], seed: int, habits: Habits) -> None:
        self.rng = random.Random(seed)
        if name == "sequence-kids":
            options = {**options, "seed": self.rng.randrange(10**6)}
        self.name, self.options = name, options
        self.truth = new_game(name, **options)
        self.capability = self.truth.needs
        self.layout = Layout.for_game(name)
        cfg = InferenceConfig()
        self.settle, self.grace = cfg.settle, cfg.grace
        self.hands = Hands(self.truth.view("identity"), self.rng, habits)
        self.tally = Tally(games=1)
        self.clock = 0.0  # the last tick
        self.silent: list[bool] = []  # per truth action: changed nothing on the board
        self.session = self._new_session(self.truth.copy())
        self.flags_seen = 0
        self.verbose = False
        self.fed = dict(self.hands.board)  # the physical board as last handed to the sensor
        self.effects: list[tuple[float, Effects]] = []

    # ------------------------------------------------------------- the session side
    def _new_session(self, game: Game[Any]) -> Session:
        session = Session(game, self.layout, self.capability, cells=self.layout.cells,
                          policy="arbiter", settle=self.settle, grace=self.grace)
        session.start(self.hands.now, self.hands.now)
        session.on_snapshot(self._reading(), self.hands.now, self.hands.now)
        return session

    def _reading(self) -> dict[str, str]:
        occupancy = self.capability == "occupancy"
        return {c: ("#" if occupancy and t else t) for c, t in self.hands.board.items()}

    def _feed(self, until: float) -> None:
        """Hand the snapshots of the raw changes so far, and the ticks, to the session up
        to ``until``; the effects go to :attr:`effects`."""
        raw = self.hands.take_raw()
        snaps = settled(raw, self.fed, DEBOUNCE, self.capability == "occupancy")
        self.fed = dict(self.hands.board)
        out = self.effects
        i = 0
        while True:
            tick = self.clock + TICK_SECONDS
            snap_at = snaps[i][0] if i < len(snaps) else float("inf")
            if min(tick, snap_at) > until:
                assert i == len(snaps), "raw changes scheduled past the time fed"
                return
            if snap_at <= tick:
                out.append((snap_at, self.session.on_snapshot(snaps[i][1], snap_at, snap_at)))
                self.session.prepare()
                i += 1
            else:
                self.clock = tick
                out.append((tick, self.session.tick(tick, tick)))

    def _expected(self) -> tuple[Any, ...]:
        """The true history (actions the board cannot show are typed by the player)."""
        return tuple(self.truth.history)

    # ------------------------------------------------------------- one step
    def step(self) -> bool:
        """Play one turn (or a takeback) by hand, then score the record; False at the end."""
        truth = self.truth
        if truth.outcome() is not None or self.tally.actions >= MAX_ACTIONS:
            return False
        self.effects = []
        self.hands.fidget()
        takeback = self._maybe_takeback()
        played = 0 if takeback else self._play_turn()
        if played < 0:
            return False
        done = max((at for at, _, _ in self.hands.raw), default=self.hands.now)
        pause = self.hands.draw(self.hands.habits.think)
        if takeback:
            pause = max(pause, 1.5)
        self.hands.wait(pause)
        self._feed(self.hands.now)
        self._score(self.effects, done, takeback, played)
        return True

    def _maybe_takeback(self) -> int:
        truth = self.truth
        n = self.rng.choice((1, 1, 1, 2, 3))
        if (not self.rng.random() < TAKEBACK or len(truth.history) < n + 1
                or any(self.silent[-n - 1:])):
            return 0
        for i in range(n):
            before = truth.view("identity")
            undone = truth.undo()
            self.silent.pop()
            # The piece the action put down is taken up first (a push is pushed back).
            self.hands.move(before, truth.view("identity"), quiet=True,
                            first=_last_cell(undone))
            if i < n - 1:
                self.hands.wait(self.hands.draw((0.4, 1.0)))
        self.tally.takebacks += 1
        return n

    def _choose(self) -> Any:
        truth, rng = self.truth, self.rng
        moves = truth.legal_moves()
        last = truth.history[-1] if truth.history else None
        if self.name == "quinque" and last is not None and str(last).startswith("t "):
            sx, sy = (int(v) for v in str(last)[2:].split(","))
            prefix = f"{sx // 2},{sy // 2}>"
            own = [m for m in moves if str(m).startswith(prefix)]
            if own and rng.random() < 0.3:  # move the tile the opponent just added
                return rng.choice(own)
        return rng.choice(moves)

    def _play_turn(self) -> int:
        """The player to move plays a whole turn (several actions for a mill's removal or a
        capture chain); the number of actions, -1 if the game cannot go on."""
        truth, hands, rng = self.truth, self.hands, self.rng
        player = truth.current_player
        turn: list[tuple[Any, dict[str, str], dict[str, str]]] = []
        while truth.outcome() is None and truth.current_player == player:
            if not truth.legal_moves():
                return -1
            move = self._choose() if not turn else rng.choice(truth.legal_moves())
            before = truth.view("identity")
            truth.apply(move)
            after = truth.view("identity")
            self.silent.append(before == after)
            turn.append((move, before, after))
            if self.name in ("quinque", "sequence-kids", "tessere", "quixo"):
                break  # a second action of these comes as its own step
        if self.name == "sequence-kids" and rng.random() < 0.1:
            free = [c for c, t in hands.board.items() if not t and c in self.layout.cells]
            if free:  # a chip touched down for a moment and lifted
                cell = rng.choice(free)
                hands.set(cell, "R")
                hands.wait(hands.draw((0.06, 0.14)))
                hands.set(cell, "")
                hands.wait(hands.draw((0.2, 0.6)))
        special = (self.name == "morris" and len(turn) == 2) or (
            self.name == "draughts" and any("x" in str(m) for m, _, _ in turn))
        if self.name == "morris" and len(turn) == 2:
            self._morris_mill(turn)
        elif self.name == "draughts" and any("x" in str(m) for m, _, _ in turn):
            self._draughts_chain(turn)
        else:
            for move, before, after in turn:
                if before != after:
                    hands.move(before, after, first=_first_cell(move))
                    hands.wait(hands.draw((0.3, 0.8)))
                else:
                    self._declare(move)
        if special:
            for move, before, after in turn:
                if before == after:
                    self._declare(move)
        self.tally.actions += len(turn)
        return len(turn)

    def _declare(self, move: Any) -> None:
        """An action the board cannot show (a chain stopped, a pass): the player types it."""
        hands = self.hands
        hands.wait(hands.draw((0.3, 0.8)))
        self._feed(hands.now)
        self.session.command(str(move), hands.now, hands.now)

    def _morris_mill(self, turn: list[tuple[Any, dict[str, str], dict[str, str]]]) -> None:
        hands, rng = self.hands, self.rng
        (move, b0, a0), (_, b1, a1) = turn
        gone = next(c for c in b1 if b1[c] and not a1[c])
        r = rng.random()
        if r < 0.3:  # the opponent's man first, then the move that closes the mill
            hands.remove([gone])
            hands.wait(hands.draw((0.2, 1.0)))
            hands.move({**b0, gone: ""}, {**a0, gone: ""}, first=_first_cell(move))
            return
        hands.move(b0, a0, first=_first_cell(move))
        hands.wait(hands.draw((0.3, 0.8)))
        if r < 0.4:  # a man taken and put back, then the right one
            others = [c for c in b1 if b1[c] and b1[c] != a0[_first_cell(move) or ""]]
            cell = rng.choice(others or [gone])
            token = hands.board[cell]
            hands.set(cell, "")
            hands.wait(hands.draw((0.2, 1.2)))
            hands.set(cell, token)
            hands.wait(hands.draw((0.3, 0.8)))
        hands.move(b1, a1)

    def _draughts_chain(self, turn: list[tuple[Any, dict[str, str], dict[str, str]]]) -> None:
        hands, rng = self.hands, self.rng
        style = rng.choice(("each", "each", "all", "all", "first"))
        captured: list[str] = []
        for i, (move, before, after) in enumerate(turn):
            if before == after:
                continue
            src = _first_cell(move)
            took = [c for c in before if before[c] and not after[c] and c != src]
            if style == "first" and i == 0 and took:
                hands.remove(took)  # the captured piece lifted before the jump
                hands.wait(hands.draw((0.1, 0.5)))
                hands.move({**before, **dict.fromkeys(took, "")}, after, first=src)
            else:
                hands.move(before, after, first=src, keep=took if style != "each" else ())
                captured += took if style != "each" else []
            hands.wait(hands.draw((0.15, 0.8)))
        if captured:
            hands.lift_together(c for c in captured if hands.board.get(c))

    # ------------------------------------------------------------- scoring
    def _score(self, entries: list[tuple[float, Effects]], done: float, takeback: int,
               played: int) -> None:
        tally, session = self.tally, self.session
        expected = self._expected()
        confirmed: float | None = None
        undos = 0
        for at, fx in entries:
            for entry in fx.journal:
                if entry.TYPE == "undo":
                    undos += 1
                elif entry.TYPE == "amend":
                    tally.amend += 1
            if fx.journal and confirmed is None and session.game.history == expected:
                confirmed = at
        tally.undo += max(0, undos - takeback)  # beyond the undos the player made
        if takeback and self.verbose:
            kinds = [e.TYPE for _, fx in entries for e in fx.journal]
            print(f"{self.name} takeback {takeback}: journal {kinds}")
        if isinstance(session.result, Ambiguous) and tuple(session.game.history) != expected:
            tally.asked += 1
            if self.verbose:
                print(f"{self.name} asked (takeback {takeback}): {session.result}, played "
                      f"{[str(m) for m in expected[-3:]]}")
            self._resolve(expected)
        got = tuple(session.game.history)
        if got == expected:
            if confirmed is not None and played and not all(self.silent[-played:]):
                tally.latency.append(max(0.0, confirmed - done))
        elif _state(session.game) == _state(self.truth):
            tally.equiv += 1  # the same position by another action (a blank Quixo push)
        else:
            common = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False))
                           if str(a) != str(b)), min(len(got), len(expected)))
            if len(got) > common:
                tally.wrong += len(got) - common
                if takeback:
                    tally.takeback_as_move += 1
            else:
                tally.stuck += 1
        flags = sum(session.flags)
        if not takeback:
            tally.flags += flags - self.flags_seen
        self.flags_seen = flags
        if got != expected:  # set the record right and go on
            if self.verbose:
                print(f"{self.name} at {done:.2f} (takeback {takeback}): recorded "
                      f"{[str(m) for m in got[-4:]]}, played {[str(m) for m in expected[-4:]]}"
                      f" ({session.result})")
                for at, fx in entries:
                    for line in fx.log:
                        print(f"    {at:.2f} {line}")
            self.session = self._new_session(self.truth.copy())
            self.flags_seen = 0

    def _resolve(self, expected: tuple[Any, ...]) -> None:
        """The player answers an ambiguity at the console: ``undo`` back to where the record
        is right, then the actions played."""
        session, now = self.session, self.hands.now
        got = tuple(session.game.history)
        common = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False))
                       if str(a) != str(b)), min(len(got), len(expected)))
        for _ in range(len(got) - common):
            session.command("undo", now, now)
        for move in expected[common:]:
            if tuple(session.game.history) == expected:
                break  # the board showed the rest once the record was right
            session.command(str(move), now, now)


def _state(game: Game[Any]) -> str:
    return json.dumps(game.to_dict()["state"], sort_keys=True, default=str)


def _first_cell(move: Any) -> str | None:
    """The first cell a move's notation names (its origin: ``c3`` of ``c3xe5``)."""
    m = _CELL.search(str(move))
    return m[0] if m else None


def _last_cell(move: Any) -> str | None:
    """The last cell a move's notation names (where it put its piece: ``e1`` of ``a1>e1``)."""
    found = _CELL.findall(str(move))
    return found[-1] if found else None


def play(name: str, options: dict[str, Any], seed: int, habits: Habits | None = None,
         verbose: bool = False) -> Tally:
    """One noisy game of ``name``; its tally (``verbose``: print each divergence)."""
    table = Table(name, options, seed, habits or Habits())
    table.verbose = verbose
    while table.step():
        pass
    return table.tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="registry names (default: all)")
    parser.add_argument("--games-per-variant", "-n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = args.games or sorted({n for n, _ in VARIANTS})
    total = Tally(games=0)
    print(f"{'game':<15}{'games':>6}{'actions':>8}{'wrong':>6}{'stuck':>6}{'undo':>6}"
          f"{'flags':>6}{'tb>mv':>6}{'asked':>6}{'amend':>6}{'equiv':>6}{'p50 s':>7}"
          f"{'p99 s':>7}")
    for name in names:
        tally = Tally(games=0)
        for n, (game, options) in enumerate(VARIANTS):
            if game != name:
                continue
            for k in range(args.games_per_variant):
                tally.add(play(game, options, args.seed * 100_003 + n * 1009 + k))
        total.add(tally)
        _row(name, tally)
    _row("all", total)


def _row(name: str, t: Tally) -> None:
    print(f"{name:<15}{t.games:>6}{t.actions:>8}{t.wrong:>6}{t.stuck:>6}{t.undo:>6}"
          f"{t.flags:>6}{t.takeback_as_move:>6}{t.asked:>6}{t.amend:>6}{t.equiv:>6}"
          f"{percentile(t.latency, 0.5):>7.2f}{percentile(t.latency, 0.99):>7.2f}")


if __name__ == "__main__":
    main()
