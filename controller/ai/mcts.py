"""Monte Carlo tree search over determinised deals, for games with hidden cards.

Sequence for Kids hides the other players' hands and the deck. Each iteration deals the
cards the player to move cannot see (the deck's composition minus their own hand and the
face-up discard piles) at random into the other hands and the deck, then walks one shared
tree of actions (information-set MCTS with a single observer: a child's prior counts only
the iterations in which its action was legal), plays the rest at random and backs the
result up. The real hands are never read: the determinised game is rebuilt from what
``view_for(player)`` shows and the public counters of the record.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tavola.games import Game, new_game

from .evaluation import Knowledge
from .search import Budget, OutOfBudget, ScoredTurn, SearchResult

_EXPLORE = 0.7
_ROLLOUT_PLIES = 60
_ROLLOUT_NOISE = 10  # ties and near-ties among the playout's urgent actions break at random
_ROLLOUT_RANDOM = 0.1  # and now and then a playout action is any one
_BIAS = 2.0  # progressive bias: the prior's weight, fading as a child is visited
_PRIOR_SCALE = 1000.0  # urgency worth half the bias: a block or a win, not a mere line
_SHRINK = 4  # pseudo-visits of an even result in a ranked action's score


@dataclass
class _Node:
    move: Any = None
    mover: int = -1
    visits: int = 0
    reward: float = 0.0
    available: int = 0
    prior: float = 0.0  # 0 ... 1, from the action's urgency when it was expanded
    children: dict[str, _Node] = field(default_factory=dict)


def determinise(game: Game[Any], player: int, rng: random.Random) -> Game[Any]:
    """A copy of ``game`` in which every card ``player`` cannot see is dealt at random."""
    from tavola.games.sequence_kids import load_layout

    seen = game.view_for(player)
    record = game.to_dict()
    state = dict(record["state"])
    deck = load_layout(game.options["layout"]).deck()
    own = seen["hand"]
    unseen = list(deck)
    for card in [*(own or []), *(c for pile in seen["discards"] for c in pile)]:
        if card in unseen:
            unseen.remove(card)
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    for p, size in enumerate(seen["hand_sizes"]):
        if p == player and own is not None:
            hands.append(list(own))
        else:
            hands.append([unseen.pop() for _ in range(min(size, len(unseen)))])
    state["hands"] = hands
    state["deck"] = unseen[: seen["deck"]]
    params = dict(record["params"])
    if params.get("cards") == "dealt":
        params["seed"] = rng.randrange(2**31)  # later reshuffles must not follow the real ones
    else:
        params["cards"] = "dealt"  # the determinised deal is the dealer's now
    copy = new_game(game.name, **params)
    copy.set_position(state)
    return copy


def _prior(score: int) -> float:
    """An action's urgency squashed to 0 ... 1 (a win or a block near 1)."""
    return max(0.0, score) / (max(0.0, score) + _PRIOR_SCALE)


@dataclass
class InformationSetMCTS:
    """One search from the point of view of the player to move."""

    game: Game[Any]
    knowledge: Knowledge
    budget: Budget
    rng: random.Random
    nodes: int = 0

    def run(self, count: int = 1, exclude: tuple[Any, ...] = ()) -> SearchResult:
        """Rank the first actions of the player to move by visits; scores in per mille."""
        game = self.game
        if game.outcome() is not None:
            return SearchResult([], 0, 0)
        player = game.current_player
        root = _Node()
        clock = self.budget.clock
        start = clock() if clock else None
        iterations = 0
        excluded = {str(m) for turn in exclude for m in turn[:1]}
        while True:
            try:
                self._check(start, iterations)
            except OutOfBudget:
                break
            self._iterate(root, determinise(game, player, self.rng), excluded)
            iterations += 1
        legal = {str(m): m for m in game.legal_moves()}
        ranked = [ScoredTurn((m,), 500, t) for t, m in legal.items() if self._wins(m)]
        # A small budget visits each first action a few times only, too few for the
        # playouts to outweigh the board's urgency: an action's value is its mean reward
        # pulled towards an even game by a few pseudo-visits, plus the progressive bias
        # of the tree, which fades as the visits grow and the playouts speak for it.
        def value(child: _Node) -> float:
            mean = (child.reward + _SHRINK / 2) / (child.visits + _SHRINK)
            return mean + _BIAS * child.prior / (child.visits + 1)

        children = sorted(root.children.items(), key=lambda kv: (-value(kv[1]), kv[0]))
        for text, child in children:
            if text in legal and all(r.text != text for r in ranked):
                ranked.append(ScoredTurn((legal[text],), round(1000 * value(child)) - 500, text))
        for text, move in legal.items():  # actions never tried come last
            if text not in root.children and all(r.text != text for r in ranked):
                ranked.append(ScoredTurn((move,), -500, text))
        elapsed = clock() - start if clock and start is not None else None
        return SearchResult(ranked, iterations, self.nodes, elapsed)

    def _wins(self, move: Any) -> bool:
        """Whether ``move`` wins at once (no hidden card decides that: it is one's own)."""
        game = self.game
        side = self.knowledge.side
        me = side(game, game.current_player)
        game.push(move)
        try:
            outcome = game.outcome()
            return outcome is not None and any(side(game, w) == me for w in outcome.winners)
        finally:
            game.undo()

    def _check(self, start: float | None, iterations: int) -> None:
        if iterations < 8:
            return  # a handful of deals always: a hint exists
        budget = self.budget
        if budget.nodes is not None and self.nodes >= budget.nodes:
            raise OutOfBudget
        if budget.seconds is not None and budget.clock is not None and start is not None and (
            budget.clock() - start >= budget.seconds
        ):
            raise OutOfBudget

    def _iterate(self, root: _Node, game: Game[Any], excluded: set[str]) -> None:
        rng = self.rng
        node = root
        path = [root]
        while game.outcome() is None:
            moves: Sequence[Any] = game.legal_moves()
            if node is root and excluded:
                moves = [m for m in moves if str(m) not in excluded] or moves
            texts = [str(m) for m in moves]
            for text in texts:
                child = node.children.get(text)
                if child is not None:
                    child.available += 1
            untried = [i for i, t in enumerate(texts) if t not in node.children]
            mover = game.current_player
            scores = self._scores(game, moves)
            if untried:
                # The most urgent action first (ties at random): with a small budget the
                # tree's few iterations go where the board says they matter.
                i = max(untried, key=lambda k: (scores[k], rng.random()))
                child = _Node(moves[i], mover, available=1, prior=_prior(scores[i]))
                node.children[texts[i]] = child
                game.push(moves[i])
                self.nodes += 1
                path.append(child)
                break
            best_i, best = 0, -1.0
            for i, t in enumerate(texts):
                c = node.children[t]
                ucb = (c.reward / c.visits
                       + _EXPLORE * math.sqrt(math.log(c.available) / c.visits)
                       + _BIAS * c.prior / (c.visits + 1))
                if ucb > best:
                    best_i, best = i, ucb
            game.push(moves[best_i])
            self.nodes += 1
            node = node.children[texts[best_i]]
            path.append(node)
        rewards = self._rollout(game)
        side = self.knowledge.side
        for n in path:
            n.visits += 1
            if n.mover >= 0:
                n.reward += rewards[side(game, n.mover)]

    def _scores(self, game: Game[Any], moves: Sequence[Any]) -> list[int]:
        """The knowledge's urgency of each action, or all equal without one."""
        scores = self.knowledge.action_scores
        return scores(game, moves) if scores is not None else [0] * len(moves)

    def _rollout(self, game: Game[Any]) -> dict[int, float]:
        """Random play to the end (or a cut-off judged by the evaluation): reward per side."""
        rng = self.rng
        side = self.knowledge.side
        for _ in range(_ROLLOUT_PLIES):
            if game.outcome() is not None:
                break
            moves = game.legal_moves()
            if len(moves) == 1 or rng.random() < _ROLLOUT_RANDOM:
                game.push(moves[rng.randrange(len(moves))])
            else:
                scores = self._scores(game, moves)
                noisy = [s + _ROLLOUT_NOISE * rng.random() for s in scores]
                game.push(moves[noisy.index(max(noisy))])
            self.nodes += 1
        sides = {side(game, p) for p in range(game.num_players)}
        outcome = game.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return dict.fromkeys(sides, 0.5)
            winners = {side(game, w) for w in outcome.winners}
            return {s: 1.0 if s in winners else 0.0 for s in sides}
        me = side(game, game.current_player)
        p = 1 / (1 + math.exp(-self.knowledge.evaluate(game) / 60))
        return {s: p if s == me else (1 - p) / max(1, len(sides) - 1) for s in sides}
