"""The engine's questions and answers, the cells of a turn, the hint gesture."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavola.ai.evaluation import WIN
from tavola.export import export_record
from tavola.games import Game, legal_turns, new_game
from tavola.hardware.layout import Layout
from tavola.hints import Gesture, Search, ShownTurn, answer, turn_cells
from tavola.record import ActionEntry, HintEntry, Record, StartEntry, entry_from_json, replay

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("morris", {}), ("draughts", {"variant": "russian"}), ("quixo", {}), ("tessere", {}),
    ("sequence-kids", {}),
]


def random_position(name: str, params: dict[str, Any], plies: int, seed: int) -> Game[Any]:
    game = new_game(name, **params)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.outcome() is not None:
            break
        game.apply(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize(("name", "params"), GAMES, ids=[n for n, _ in GAMES])
@pytest.mark.parametrize("purpose", ["hint", "opponent"])
def test_every_answer_is_legal_and_shows_on_board_cells(
        name: str, params: dict[str, Any], purpose: str) -> None:
    layout_cells = set(Layout.for_game(name).cells)
    for seed in range(3):
        game = random_position(name, params, plies=10 + 7 * seed, seed=seed)
        if game.outcome() is not None:
            continue
        before = game.to_dict()
        found = answer(Search(purpose, game.copy(), game.history, "club", nodes=200,  # type: ignore[arg-type]
                              seed=seed))
        assert found.best is not None and game.to_dict() == before
        work = game.copy()
        for move in found.best.turn:
            work.apply(move)  # raises if not legal
        shown = ShownTurn.of(game, found.best)
        assert shown.steps[0].all <= layout_cells
        assert shown.played(game.history) == 0


def test_the_next_hint_excludes_those_shown() -> None:
    game = random_position("morris", {}, plies=20, seed=1)
    first = answer(Search("hint", game.copy(), game.history, nodes=300)).best
    assert first is not None
    second = answer(Search("hint", game.copy(), game.history, nodes=300,
                           exclude=(first.turn,))).best
    assert second is not None and second.turn != first.turn


def test_a_capture_chain_shows_its_start_its_end_and_every_man_taken() -> None:
    rng = random.Random(3)
    for _ in range(300):
        game = new_game("draughts", variant="russian")
        while game.outcome() is None and len(game.history) < 80:
            turns = legal_turns(game)
            chains = [t for t in turns if len(t) >= 2 and all("x" in str(m) for m in t)]
            if chains:
                turn = chains[0]
                cells = turn_cells(game, turn)
                start, end = str(turn[0])[:2], str(turn[-1])[-2:]
                assert cells.origin == {start} and cells.targets == {end}
                assert len(cells.removed) == len(turn)
                assert str(turn[0])[-2:] not in cells.all - {end}  # passed through only
                return
            for move in rng.choice(turns):
                game.apply(move)
    raise AssertionError("no capture chain met")


def test_a_quixo_push_takes_its_cube_from_the_origin() -> None:
    game = new_game("quixo")
    push = game.parse_move("a1>e1")
    cells = turn_cells(game, (push,))
    assert cells.origin == {"a1"} and "e1" in cells.targets and not cells.removed


def test_a_shown_turn_follows_its_actions_and_ends_when_the_game_leaves_it() -> None:
    game = new_game("morris")
    for text in ("a1", "b2", "a4", "b4"):
        game.apply(game.parse_move(text))
    best = answer(Search("hint", game.copy(), game.history, nodes=500)).best
    assert best is not None
    shown = ShownTurn.of(game, best)
    mill, removal = best.turn
    assert shown.expects(game.history, (mill,)) and not shown.expects(game.history, (removal,))
    game.apply(mill)
    assert shown.remaining(game.history) == turn_cells(game, (removal,))
    game.apply(removal)
    assert shown.played(game.history) is None  # done
    game.undo()
    game.undo()
    game.apply(game.parse_move("g7"))
    assert shown.played(game.history) is None  # another move


def test_the_gesture_needs_the_same_piece_twice_and_nothing_else_moved() -> None:
    board = {"a1": "#", "a4": "#", "a7": ""}
    lifted = {**board, "a1": ""}
    g = Gesture()
    assert [g.feed(board, r, t) for t, r in ((0.0, lifted), (0.2, board), (0.4, lifted),
                                             (0.6, board))] == [False, False, False, True]
    g = Gesture()
    other = {**board, "a4": ""}
    assert not any(g.feed(board, r, t) for t, r in ((0.0, lifted), (0.2, board),
                                                    (0.4, other), (0.6, board)))
    g = Gesture()
    moved = {**board, "a1": "", "a7": "#"}
    assert not any(g.feed(board, r, t) for t, r in ((0.0, lifted), (0.2, board),
                                                    (0.4, moved), (0.5, lifted),
                                                    (0.6, board)))


def test_a_hint_entry_reads_back_and_changes_nothing_on_replay() -> None:
    entry = HintEntry("computer", 1, 3, ("a7", "xb2"), 10.0, 2.0, 1, 120)
    assert entry_from_json(entry.to_json()) == entry
    header = StartEntry.of(new_game("morris"), game_id="g", wall=0.0)
    record = Record.of([header, ActionEntry("d2", 0, 1, 0.0, 0.0), entry,
                        ActionEntry("a1", 1, 2, 0.0, 0.0)])
    assert [str(m) for m in replay(record).game.history] == ["d2", "a1"]


def test_the_exported_record_notes_the_hints_and_blunders() -> None:
    header = StartEntry.of(new_game("morris"), game_id="g", wall=0.0)
    record = Record.of([
        header, ActionEntry("d2", 0, 1, 0.0, 0.0),
        HintEntry("hint", 1, 1, ("a1",), 0.0, 0.0, 1, 0),
        HintEntry("computer", 1, 1, ("g7",), 0.0, 0.0, 1, 0),
        ActionEntry("g7", 1, 2, 0.0, 0.0),
        HintEntry("review", 1, 1, ("a1",), 0.0, 0.0, 1, 0)])
    text = export_record(record)
    assert "{Black asked, hint 1: a1}" in text and "{Black: blunder, better a1}" in text
    assert "g7}" not in text  # the computer's move shown is the move itself


def test_the_exported_blunder_says_what_it_cost() -> None:
    def exported(game: str, score: int, played: int) -> str:
        header = StartEntry.of(new_game(game), game_id="g", wall=0.0)
        return export_record(Record.of([header, HintEntry(
            "review", 0, 0, ("x",), 0.0, 0.0, 1, score, played=played)]))

    assert "{White: blunder (2.4 men worse), better x}" in exported("morris", 90, -150)
    assert "blunder (a won position thrown away), better x" in exported(
        "draughts", WIN - 7, 20)
    # Sequence for Kids' sampled search scores chances of winning in per mille.
    assert "blunder (35 % less likely to win)" in exported("sequence-kids", 600, 250)
