"""The evaluations' game knowledge: threats each game's strategy says decide it."""

from __future__ import annotations

import random
from typing import Any

from tavola.ai import evaluate, hint
from tavola.games import Game, new_game


def test_tessere_a_line_the_mover_completes_is_near_won() -> None:
    game = new_game("tessere")
    game.set_position({"board": {"a1": "R", "b1": "RY", "c1": "RG"}, "to_move": 1})
    assert evaluate(game) >= 5000


def _tessere_by_view(game: Game[Any]) -> int:
    """The tessere evaluation as it was first written, cell by cell from the public view
    (``view()``, ``off_board()``, ``block_cell()``): the reference the bitboard one must
    match score for score."""

    def mask(token: str) -> int:
        return sum(1 << "RYGB".index(c) for c in token if c in "RYGB")

    g: Any = game
    me = game.current_player
    board = game.view()
    supply = g.off_board()
    masks = {mask(t) for t, n in supply.items() if n and t != "K"}
    available = carried_twice = 0
    for bit in (1, 2, 4, 8):
        carried = sum(n for t, n in supply.items() if t != "K" and mask(t) & bit)
        available |= bit if carried else 0
        carried_twice |= bit if carried >= 2 else 0
    danger: dict[str, int] = {}
    for config in g.configurations:
        shared, placed, empty = 15, 0, []
        for c in config:
            t = board[c]
            if not t:
                empty.append(c)
                continue
            if t == "K":
                shared = 0
                break
            placed += 1
            shared &= mask(t)
        if not shared:
            continue
        if placed == 3 and shared & available:
            return 5000
        if placed == 2:
            for c in empty:
                danger[c] = danger.get(c, 0) | shared
    empties = [c for c, t in board.items() if not t]
    safe = sum(1 for c in empties if any(not m & danger.get(c, 0) & carried_twice for m in masks))
    mine, theirs = g.block_cell(me), g.block_cell(1 - me)
    if not safe and masks and mine is not None:
        return -3000
    held = (mine is None) + (theirs is None)
    score = 80 if theirs is not None and mine is None else -80 if mine is not None and (
        theirs is None) else 0
    weight = 90 * (25 - len(empties)) // 25 if len(empties) <= 15 else 0
    return score + (weight if (safe + held) % 2 else -weight)


def test_tessere_bitboard_evaluation_scores_as_the_view_did() -> None:
    """The evaluation reads bitboards for speed (strongest's budget counts on it); every
    position of random games, under each ``diagonals`` setting, scores as before."""
    checked = 0
    for diagonals in ("long", "short", "all"):
        rng = random.Random(diagonals)
        for _ in range(25):
            game = new_game("tessere", diagonals=diagonals)
            if rng.random() < 0.5:
                game.apply("K@" + rng.choice("abcde") + rng.choice("12345"))
            while game.outcome() is None:
                assert evaluate(game) == _tessere_by_view(game), game
                checked += 1
                moves = game.legal_moves()
                game.apply(moves[rng.randrange(len(moves))])
    assert checked > 1000


def test_tessere_no_safe_placement_left_means_every_placement_hands_over_a_line() -> None:
    """Wherever the evaluation finds no safe placement (and the mover's block is down),
    every legal placement lets the opponent complete a configuration at once."""
    seen = 0
    for seed in range(60):
        rng = random.Random(seed)
        game = new_game("tessere")
        while game.outcome() is None:
            if evaluate(game) <= -3000:
                seen += 1
                for move in game.legal_moves():
                    work = game.copy()
                    work.apply(move)
                    assert work.outcome() is None
                    assert any(_wins(work, reply) for reply in work.legal_moves()), move
            moves = game.legal_moves()
            move = rng.choice(moves)
            for _ in range(8):  # a few tries for a placement that does not lose at once
                if not _hands_over(game, move):
                    break
                move = rng.choice(moves)
            game.apply(move)
        if seen >= 3:
            return
    raise AssertionError(f"only {seen} positions without a safe placement met")


def _wins(game: Game[Any], move: Any) -> bool:
    work = game.copy()
    work.apply(move)
    outcome = work.outcome()
    return outcome is not None and outcome.winner == game.current_player


def _hands_over(game: Game[Any], move: Any) -> bool:
    work = game.copy()
    work.apply(move)
    return work.outcome() is None and any(_wins(work, r) for r in work.legal_moves())


def _quinque(backpacks: dict[str, str], phase: str = "first") -> object:
    game = new_game("quinque")
    game.set_position({"tiles": ["0,0", "1,0", "2,0", "0,1", "1,1", "2,1"],
                       "backpacks": backpacks, "player": 0, "phase": phase,
                       "marked": "0,0" if phase == "second" else None})
    return game


def test_quinque_a_four_with_a_free_fifth_is_completed() -> None:
    four = {"0,0": "R", "1,0": "R", "2,0": "R", "3,0": "R", "0,3": "O", "1,3": "O"}
    game = _quinque(four)
    best = hint(game, "club", nodes=300, count=1)[0]  # type: ignore[arg-type]
    assert best.wins and "4,0" in best.text


def test_quinque_the_opponents_open_four_weighs_against_the_mover() -> None:
    quiet = {"0,0": "O", "1,0": "O", "0,3": "R", "1,3": "R"}
    four = {"0,0": "O", "1,0": "O", "2,0": "O", "3,0": "O", "0,3": "R", "1,3": "R"}
    assert evaluate(_quinque(four)) < evaluate(_quinque(quiet))  # type: ignore[arg-type]


def _sequence_position(board: dict[str, str], hand: list[str]) -> Game[Any]:
    """Red to move holding ``hand`` on ``board``; every other card in the deck."""
    from tavola.games.sequence_kids import load_layout

    game = new_game("sequence-kids", seed=1)
    deck = load_layout().deck()
    for card in [*hand, "fox", "fox", "whale"]:
        deck.remove(card)
    game.set_position({"board": board, "hands": [hand, ["fox", "fox", "whale"]],
                       "deck": deck, "discards": [[], []], "to_move": 0})
    return game


def _most_urgent(game: Game[Any]) -> set[str]:
    from tavola.ai.evaluation import sequence_action_scores

    moves = game.legal_moves()
    scores = sequence_action_scores(game, moves)
    return {str(m) for m, s in zip(moves, scores, strict=True) if s == max(scores)}


def test_sequence_urgency_completes_a_line_first() -> None:
    # a1 is a free corner: b1 c1 and the ostrich's d1 make four.
    game = _sequence_position({"b1": "R", "c1": "R", "b3": "Y", "c3": "Y"},
                              ["ostrich", "dragon", "unicorn"])
    assert _most_urgent(game) == {"ostrich@d1"}  # the unicorn is kept


def test_sequence_urgency_blocks_a_three_before_spending_a_dragon() -> None:
    game = _sequence_position({"b1": "Y", "c1": "Y", "c3": "R"}, ["ostrich", "dragon", "hippo"])
    assert _most_urgent(game) == {"ostrich@d1"}
    # Without the card for d1 the dragon breaks the three.
    game = _sequence_position({"b1": "Y", "c1": "Y", "c3": "R"}, ["camel", "dragon", "hippo"])
    assert _most_urgent(game) <= {"dragon xb1", "dragon xc1"}


def test_sequence_urgency_keeps_the_wild_cards_for_when_they_matter() -> None:
    game = _sequence_position({}, ["unicorn", "hippo", "camel"])
    assert not any(m.startswith("unicorn") for m in _most_urgent(game))


def test_quinque_a_backpack_that_completes_five_is_seen_without_playing_it() -> None:
    """The searcher's check of a win in one action (a backpack on a tile on the table or
    on a tile added next to it) agrees with playing every such action; it never claims a
    win that is not there."""
    from tavola.ai.quinque_lines import wins_in_one
    from tavola.games.quinque import AddTile, Mark

    seen = {True: 0, False: 0}
    for seed in range(12):
        rng = random.Random(seed)
        game = new_game("quinque")
        while game.outcome() is None and len(game.history) < 120:
            if game.phase == 1:  # a turn's first action
                placing = [m for m in game.legal_moves() if isinstance(m, Mark | AddTile)]
                expected = any(_wins(game, m) for m in placing)
                assert wins_in_one(game) == expected, game.to_dict()
                seen[expected] += 1
            game.apply(rng.choice(game.legal_moves()))
    assert seen[True] >= 20 and seen[False] >= 200, seen


def _quinque_chain(backpacks: dict[str, str], player: int = 0) -> Any:
    """Six tiles in a row, tiles -1,0 to 4,0: the four in the middle hold the row
    together and cannot move; the two at the ends can."""
    game = new_game("quinque")
    game.set_position({"tiles": [f"{x},0" for x in range(-1, 5)], "backpacks": backpacks,
                       "player": player, "phase": "first"})
    return game


def test_quinque_tiles_that_cannot_move() -> None:
    from tavola.ai.quinque_lines import fixed_tiles

    chain = frozenset((x, 0) for x in range(-1, 5))
    assert fixed_tiles(chain) == {(0, 0), (1, 0), (2, 0), (3, 0)}
    square = frozenset((x, y) for x in range(3) for y in range(3))
    assert fixed_tiles(square) == {(1, 1)}  # closed on four sides
    assert fixed_tiles(frozenset({(0, 0)})) == {(0, 0)}  # a lone tile


def _quinque_cross(backpacks: dict[str, str], player: int = 0) -> Any:
    """A row of tiles -1,0 to 3,0 and a column 1,1 to 1,4 on it: every tile but the
    three ends holds the cluster together and cannot move."""
    tiles = [f"{x},0" for x in range(-1, 4)] + [f"1,{y}" for y in range(1, 5)]
    game = new_game("quinque")
    game.set_position({"tiles": tiles, "backpacks": backpacks, "player": player,
                       "phase": "first"})
    return game


def test_quinque_two_fours_on_fixed_tiles_cannot_be_stopped() -> None:
    """Orange's fours 0,0-3,0 (fifth 4,0) and 2,2-2,5 (fifth 2,6, or 2,1) lie on tiles that
    cannot move and share none: a backpack blocks one, and one tile move, or two (the
    first freeing a tile for the second), never break the other. The evaluation says so,
    and every turn Red can play indeed leaves Orange a completion."""
    from tavola.ai.quinque_lines import UNSTOPPABLE, wins_in_one

    fours = {f"{x},0": "O" for x in range(0, 4)} | {f"2,{y}": "O" for y in range(2, 6)}
    game = _quinque_cross(fours | {"-1,0": "R", "3,2": "R", "0,1": "R"})
    assert evaluate(game) <= -UNSTOPPABLE // 2
    for first in game.legal_moves():
        game.push(first)
        for second in game.legal_moves():
            game.push(second)
            assert game.outcome() is not None or wins_in_one(game), (first, second)
            game.undo()
        game.undo()


def test_quinque_one_four_on_fixed_tiles_is_stopped_by_two_moves() -> None:
    """Orange's open four 1,0-4,0 on a row of tiles: both ends are on tiles holding the
    row together, but a move of the end tile frees the next one, and moving that breaks
    the four. A threat, not a lost game."""
    from tavola.ai.quinque_lines import UNSTOPPABLE

    four = {f"{x},0": "O" for x in range(1, 5)} | {"1,1": "R", "3,1": "R"}
    assert -UNSTOPPABLE // 2 < evaluate(_quinque_chain(four)) < 0


def test_quinque_a_four_on_tiles_that_move_can_be_stopped() -> None:
    """The same four with one end on a tile that can move (tile -1,0): a backpack on the
    fixed end and that tile moved away stop it, so it is a threat, not a lost game."""
    from tavola.ai.quinque_lines import UNSTOPPABLE

    four = {f"{x},0": "O" for x in range(0, 4)} | {"1,1": "R", "3,1": "R"}
    assert -UNSTOPPABLE // 2 < evaluate(_quinque_chain(four)) < 0


def test_quinque_the_search_makes_two_fours_nobody_stops() -> None:
    """Red's 0,0 1,0 3,0 and 2,2-2,4 on fixed tiles: a backpack on 2,0 makes two fours at
    once (fifths 4,0 and 2,1), which Orange cannot both stop: a win next turn."""
    lines = {"0,0": "R", "1,0": "R", "3,0": "R"} | {f"2,{y}": "R" for y in range(2, 5)}
    position = _quinque_cross(lines | {"-1,0": "O", "3,2": "O", "0,1": "O"})
    best = hint(position, "strongest", count=1)[0]
    assert best.text.startswith("m 2,0") and best.score > 2000, best
