"""bench/tessere_verdicts.py: each position of a bench game solved, and a win thrown away
marked where the mover held one and so does the next mover."""

from __future__ import annotations

import pytest

from bench import tessere_verdicts as tv
from tavola.games import new_game

# Game 296 of the bench's strongest v greedy (2 Dec): tavola.ai first, lost on a full board.
RECORD_296 = ["R@a1", "GB@b4", "Y@b1", "G@c3", "B@c1", "RYGB@b2", "RY@d1", "GB@d5", "RY@e1",
              "YB@d4", "RY@e2", "GB@c5", "RG@d3", "YB@a3", "RG@a2", "YG@a4", "K@b5", "YB@b3",
              "YG@e5", "YG@e4", "RG@e3", "RB@a5", "RB@c4", "RB@c2"]


def _verdict(text: str) -> tv.Verdict:
    empty, mover, wins = text[:-3], text[-3], text[-1]
    return tv.Verdict(int(empty), mover == "A", {"W": True, "L": False, "?": None}[wins])


def test_a_win_is_thrown_away_where_both_movers_in_turn_hold_one() -> None:
    found = [_verdict(t) for t in ("16A:?", "15g:W", "14A:L", "13g:W", "12A:W", "11g:L")]
    assert tv.thrown(found) == [False, False, False, True, False, False]  # greedy's, at 13
    assert tv.thrown([_verdict("13g:W"), _verdict("12A:L"), _verdict("11g:W")]) == [False] * 3
    assert tv.thrown([]) == []


def test_the_record_of_game_296_reads_lost_at_every_move_of_its_tail() -> None:
    game = new_game("tessere")
    for text in RECORD_296:
        game.apply(text)
    game.apply("pass")  # tavola.ai has nothing left to place
    game.apply("K@d2")  # greedy's block, placed second: a full board is greedy's
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    found = tv.verdicts(game, ai_first=True, empties=12, nodes=50_000)
    assert tv.line(296, "greedy", found) == (
        "296 won by greedy: 12g:W 11A:L 10g:W 9A:L 8g:W 7A:L 6g:W 5A:L 4g:W 3A:L 2g:W "
        "1A:L 1g:W")


def test_a_bench_game_ends_with_its_winner_holding_the_win(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Whatever the engine plays, the last position's mover makes the winning move.
    assert tv.main(["--empties", "6", "--nodes", "20000", "1"]) == 0
    out = capsys.readouterr().out.strip()
    head, cells = out.split(": ")
    last = cells.split()[-1]
    winner_is_ai = head.endswith("tavola.ai")
    assert last[-1] == "W" and (last[-2] == "A") == winner_is_ai, out
