"""The morris endgame tables: the encoding, the cache, and the values against search."""

from __future__ import annotations

import random
from array import array
from pathlib import Path
from typing import Any

import pytest

from tavola.ai import WIN, hint
from tavola.ai.evaluation import knowledge
from tavola.ai.morris_endgames import Endgames, default_directory, load, save, sets_of
from tavola.ai.search import AlphaBeta, Budget
from tavola.games import Game, legal_turns, new_game
from tavola.games.morris import INDEX, POINTS


def _position(white: str, black: str, to_move: int = 0, **params: Any) -> Game[Any]:
    game = new_game("morris", **params)
    board = {p: "W" for p in white.split()} | {p: "B" for p in black.split()}
    game.set_position({"board": board, "to_move": to_move})
    return game


def _mask(points: str) -> int:
    return sum(1 << INDEX[p] for p in points.split())


def _one_value_table(mover: str, opponent: str, value: int) -> Endgames:
    rank = {m: i for i, m in enumerate(sets_of(3))}
    table = array("h", bytes(2 * 2024 * 2024))
    table[rank[_mask(mover)] * 2024 + rank[_mask(opponent)]] = value
    return Endgames({"3v3": table})


def test_probe_reads_the_player_to_move_and_the_rules() -> None:
    tables = _one_value_table("a1 d1 c5", "b6 f6 e3", 990)  # won in 10 turns
    assert tables.probe(_position("a1 d1 c5", "b6 f6 e3", to_move=0)) == WIN - 10
    assert tables.probe(_position("b6 f6 e3", "a1 d1 c5", to_move=1)) == WIN - 10
    assert tables.probe(_position("a1 d1 c5", "b6 f6 e3", to_move=1)) == 0  # not that one
    assert tables.probe(_position("a1 d1 c5", "b6 f6 e3", flying=False)) is None
    assert tables.probe(_position("a1 d1 c5 g7", "b6 f6 e3 g1")) is None  # no 4v4 table


def _table_value(v: int) -> int:
    return WIN - (1000 - v) if v > 0 else -WIN + (1000 + v) if v < 0 else 0


def test_the_probe_reads_the_public_board_like_the_table() -> None:
    """On sampled positions the probe gives exactly the table's entry for the men it sees
    on the board (a table of random values: any misread point or side shows)."""
    table = array("h")
    table.frombytes(random.Random(1).randbytes(2 * 2024 * 2024))
    tables = Endgames({"3v3": table})
    rank = {m: i for i, m in enumerate(sets_of(3))}
    rng = random.Random(2)
    for _ in range(200):
        points = rng.sample(POINTS, 6)
        to_move = rng.randrange(2)
        game = _position(" ".join(points[:3]), " ".join(points[3:]), to_move)
        if game.outcome() is not None:
            continue
        mover, other = (points[:3], points[3:]) if to_move == 0 else (points[3:], points[:3])
        expected = table[rank[_mask(" ".join(mover))] * 2024 + rank[_mask(" ".join(other))]]
        assert tables.probe(game) == _table_value(expected), game.view()
        assert tables.probe(game) == tables.probe(game)  # remembered: the same answer


def test_the_probe_answers_only_whole_positions_without_men_in_hand() -> None:
    tables = _one_value_table("a1 d1 c5", "b6 f6 e3", 990)
    game = _position("a7 d7 g1", "b6 d6 f4", to_move=0)
    game.apply(game.parse_move("g1-g7"))  # a mill: the removal is owed, the turn goes on
    assert game.expectation()
    assert tables.probe(game) is None
    placing = new_game("morris")
    for text in ("a1", "b6", "d1", "f6", "c5", "e3"):
        placing.apply(placing.parse_move(text))
    assert placing.men_in_hand(0) == 6
    assert tables.probe(placing) is None  # the same men, but more to come from the hand


def test_the_searcher_follows_the_tables() -> None:
    # Every White move but one leads to a position the (made-up) table calls drawn; the
    # one it calls lost for Black is the move the hint must give.
    game = _position("a1 c5 f6", "b6 e3 g4", to_move=0)
    tables = _one_value_table("b6 e3 g4", "a1 c4 f6", -990)  # Black to move, lost
    best = hint(game, "strongest", nodes=2000, count=1, endgames=tables)[0]
    assert best.text == "c5-c4" and best.wins


def test_the_cache_round_trips_and_ignores_other_versions(tmp_path: Path) -> None:
    numpy = pytest.importorskip("numpy")
    values = numpy.zeros(2024 * 2024, dtype=numpy.int16)
    values[5] = -998
    save({"3v3": values}, tmp_path, {})
    loaded = load(tmp_path)
    assert loaded is not None and loaded.tables == ("3v3",)
    assert loaded.value(sets_of(3)[0], sets_of(3)[5]) == -998
    meta = tmp_path / "meta.json"
    meta.write_text(meta.read_text().replace('"version": 1', '"version": 0'))
    assert load(tmp_path) is None
    assert load(tmp_path / "absent") is None


def test_a_cache_cut_short_is_left_out_not_read(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """A build stopped while writing (Ctrl-C, a power cut) left a table short or its
    description torn. Read as it was, a short table raised IndexError in the engine's every
    search of such an endgame, and a torn meta.json stopped `tavola play`; now such a cache
    is left out (the engine searches without it) and the log says to build it again."""
    numpy = pytest.importorskip("numpy")
    save({"3v3": numpy.zeros(2024 * 2024, dtype=numpy.int16),
          "3v4": numpy.zeros(2024 * 10626, dtype=numpy.int16)}, tmp_path, {})
    assert not list(tmp_path.glob("*.tmp"))  # each file written whole, then put in place
    short = tmp_path / "3v4.i16"
    short.write_bytes(short.read_bytes()[: 2 * 1000])
    loaded = load(tmp_path)
    assert loaded is not None and loaded.tables == ("3v3",)
    assert loaded.value(sets_of(3)[0], sets_of(4)[5000]) is None  # not an IndexError
    assert "3v4.i16 holds 1000 positions, not 21507024" in caplog.text
    assert "tavola endgames build" in caplog.text
    meta = tmp_path / "meta.json"
    meta.write_text(meta.read_text()[:20])
    assert load(tmp_path) is None
    assert f"{meta} is not readable" in caplog.text


def test_the_cache_directory_follows_the_environment() -> None:
    assert default_directory({"TAVOLA_ENDGAMES": "/x"}) == Path("/x")
    assert default_directory({"CACHE_DIRECTORY": "/var/cache/tavola"}) == Path(
        "/var/cache/tavola/endgames")
    assert default_directory({"HOME": "/home/p"}) == Path("/home/p/.cache/tavola/endgames")


@pytest.fixture(scope="module")
def built() -> Endgames:
    pytest.importorskip("numpy")
    from tavola.ai.morris_retrograde import build

    tables = build(("3v3", "3v4", "4v3"))
    return Endgames({name: array("h", v.astype("<i2").tobytes()) for name, v in tables.items()})


@pytest.mark.slow
def test_known_positions(built: Endgames) -> None:
    # An open two (a7 d7, g7 empty): flown shut at once.
    assert built.value(_mask("a7 d7 g1"), _mask("b6 d6 f4")) == 999
    # Black threatens g1 and a7 at once; White cannot mill first and blocks only one.
    assert built.value(_mask("c5 e3 f6"), _mask("a1 d1 a4")) == -998
    # Nobody can ever be forced in 3 v 4 with the flier to move (found by the build, and
    # checked here against the rule that 4 sliding men make one threat at a time).
    assert built.value(_mask("c5 e3 f6"), _mask("a1 d1 a4 b2")) is not None


def _sample(rng: random.Random, mover: int, opponent: int) -> Game[Any]:
    while True:
        points = rng.sample(POINTS, mover + opponent)
        me = rng.randrange(2)
        own, other = " ".join(points[:mover]), " ".join(points[mover:])
        game = _position(own, other, me) if me == 0 else _position(other, own, me)
        if game.outcome() is None:
            return game


@pytest.mark.slow
@pytest.mark.parametrize(("mover", "opponent"), [(3, 3), (3, 4), (4, 3)])
def test_the_tables_agree_with_search_to_the_end(built: Endgames, mover: int,
                                                 opponent: int) -> None:
    """Short results must be found by search with the same sign; a drawn position must
    never be proved won or lost by search."""
    rng = random.Random(mover * 10 + opponent)
    short = drawn = 0
    for _ in range(3000):
        if short >= 6 and drawn >= 4:
            break
        game = _sample(rng, mover, opponent)
        value = built.probe(game)
        assert value is not None
        is_short = value != 0 and abs(value) >= WIN - 2
        if (is_short and short >= 6) or (value == 0 and drawn >= 4) or (
                value != 0 and not is_short):
            continue
        result = AlphaBeta(game.copy(), knowledge(game), Budget(nodes=20_000), None,
                           max_depth=6).run()
        score = result.ranked[0].score
        if is_short:
            short += 1
            assert abs(score) > WIN // 2 and (score > 0) == (value > 0), game.view()
        else:
            drawn += 1
            assert abs(score) < WIN // 2, game.view()
    assert drawn >= (1 if (mover, opponent) == (3, 3) else 4)  # 3 v 3: 0.15 % are drawn
    # The flier's mill against four men leads into 3 v 3, never a result within two turns.
    assert short >= 6 or (mover, opponent) == (3, 4)


@pytest.mark.slow
def test_a_won_endgame_is_never_thrown_away(built: Endgames) -> None:
    rng = random.Random(9)
    checked = 0
    while checked < 25:
        game = _sample(rng, 3, rng.choice((3, 4)))
        value = built.probe(game)
        if value is None or value <= 0:
            continue
        me = game.current_player
        for move in hint(game, "strongest", nodes=3000, count=1, endgames=built)[0].turn:
            game.apply(move)
        outcome = game.outcome()
        after = built.probe(game)
        assert (outcome is not None and outcome.winner == me) or (after is not None and
                                                                   after < 0)
        checked += 1


@pytest.mark.slow
def test_a_won_endgame_is_played_out_to_the_win(built: Endgames) -> None:
    """From won positions, the hint against the tables' most stubborn defence wins, and
    never later than the tables say: every hint keeps the win and brings it closer."""
    rng = random.Random(5)
    played = 0
    while played < 6:
        game = _sample(rng, 3, rng.choice((3, 4)))
        value = built.probe(game)
        if value is None or value <= 0:
            continue
        winner = game.current_player
        turns = WIN - value  # won in this many of the winner's turns
        for _ in range(turns):
            for move in hint(game, "strongest", nodes=3000, count=1, endgames=built)[0].turn:
                game.apply(move)
            if game.outcome() is not None:
                break
            # The defender plays the turn after which the winner's win is longest.
            defences = []
            for turn in legal_turns(game):
                work = game.copy()
                for move in turn:
                    work.apply(move)
                if work.outcome() is None:
                    left = built.probe(work)
                    assert left is not None and left > 0, (game.view(), turn)
                    defences.append((left, turn))
            assert defences, "the defender always has a move that does not lose at once"
            for move in min(defences, key=lambda d: d[0])[1]:
                game.apply(move)
        outcome = game.outcome()
        assert outcome is not None and outcome.winner == winner, game.view()
        played += 1
