"""Where a tessere game of the strength bench was decided: each ply's exact verdict.

Replays games of ``bench/strength.py``'s ``strongest v greedy`` pairing by number (game k
is seeded 1000 + k; tavola.ai moves first in even games, so the moves are the bench's) and,
at every ply with at most ``--empties`` empty cells, solves the position for the player to
move (``controller/ai/tessere_endgame.py``) on ``--nodes`` nodes. A line per game::

    296 won by greedy: 15A:W! 14g:W 13A:L 12g:W ...

``15A:W`` reads: 15 empty cells, tavola.ai (``A``; greedy ``g``) to move, the mover wins
with perfect play (``W``; ``L`` loses, ``?`` the budget ran out first). ``!`` marks a win
thrown away: the mover held a win and the next mover holds one too. So the ply where a lost
game was lost, or that it was lost before the solver's reach, can be read off.

Run: ``PYTHONPATH=. .venv/bin/python bench/tessere_verdicts.py [--empties N] [--nodes N]
GAME ...`` (the numbers ``bench/strength.py`` lists as lost). A 15-cell proof may take
500,000 nodes (about 7 s of CPU here); ``?`` at the default budget is common from 14 cells up.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from bench.strength import Pairing, Side, play_game
from tavola.ai.tessere_endgame import solve
from tavola.games import Game, new_game
from tavola.games.tessere import Tessere

PAIRING = Pairing("tessere: strongest v greedy", "tessere", {}, Side("tavola", "strongest"),
                  Side("greedy"), 1)


@dataclass(frozen=True)
class Verdict:
    """The position before a ply: ``empty`` cells, whether tavola.ai is to move, and
    whether the mover wins with perfect play (None: the budget ran out first)."""

    empty: int
    ai_to_move: bool
    wins: bool | None


def thrown(verdicts: Sequence[Verdict]) -> list[bool]:
    """Per verdict, whether its mover threw a win away: it held one, and so does the
    mover of the next position (the opponent, in tessere's one-action turns)."""
    marks = [a.wins is True and b.wins is True and a.ai_to_move != b.ai_to_move
             for a, b in pairwise(verdicts)]
    return [*marks, False] if verdicts else []  # the last position's move ends the game


def verdicts(game: Game[Any], ai_first: bool, empties: int, nodes: int) -> list[Verdict]:
    """The verdicts of the positions of ``game``'s record with at most ``empties`` empty
    cells, each solved on ``nodes`` nodes (the record replayed on a new game)."""
    replay = new_game(game.name, **game.options)
    assert isinstance(replay, Tessere), f"{game.name} is not tessere"
    out = []
    for move in game.history:
        empty = sum(1 for token in replay.view().values() if not token)
        if empty <= empties and replay.outcome() is None:
            mover_is_ai = (replay.current_player == 0) == ai_first
            out.append(Verdict(empty, mover_is_ai, solve(replay, nodes).wins))
        replay.apply(move)
    return out


def line(index: int, winner: str, found: Sequence[Verdict]) -> str:
    """One game's line (see the module's text)."""
    marks = thrown(found)
    cells = " ".join(
        f"{v.empty}{'A' if v.ai_to_move else 'g'}:"
        f"{'?' if v.wins is None else 'W' if v.wins else 'L'}{'!' if mark else ''}"
        for v, mark in zip(found, marks, strict=True))
    return f"{index} won by {winner}: {cells}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("games", nargs="+", type=int, help="game numbers (seeded 1000 + k)")
    parser.add_argument("--empties", type=int, default=16,
                        help="solve the positions with at most this many empty cells (16)")
    parser.add_argument("--nodes", type=int, default=1_500_000,
                        help="the solver's budget a position (1,500,000)")
    args = parser.parse_args(argv)
    if min(args.games) < 0:
        parser.error("a game's number is 0 or more")
    for index in args.games:
        played = play_game(PAIRING, index)
        outcome = played.game.outcome()
        assert outcome is not None and outcome.winner is not None  # tessere has no draw
        winner = "tavola.ai" if (outcome.winner == 0) == played.ai_first else "greedy"
        found = verdicts(played.game, played.ai_first, args.empties, args.nodes)
        print(line(index, winner, found), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
