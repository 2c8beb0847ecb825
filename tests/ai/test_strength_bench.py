"""The strength bench plays on from a given game (``--first``), so a row too long for one
sitting is measured in parts that add new games rather than replaying the first ones."""

from __future__ import annotations

import pytest

from bench import strength


def _games_played(monkeypatch: pytest.MonkeyPatch, options: list[str]) -> list[int]:
    """The numbers of the games a run of the bench with ``options`` plays (in-process)."""
    played: list[int] = []
    real = strength.play_one

    def recording(task: tuple[int, strength.Pairing, int]) -> strength.Result:
        played.append(task[2])
        return real(task)

    monkeypatch.setattr(strength, "play_one", recording)
    assert strength.main([*options, "--levels", "beginner", "--parts", "random", "-j", "1",
                          "quixo"]) == 0
    return played


def test_first_plays_the_games_after_a_run(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert _games_played(monkeypatch, ["-n", "3", "--first", "35"]) == [35, 36, 37]
    assert "games 35 on" in capsys.readouterr().out


@pytest.mark.parametrize(("seat", "games"), [("first", [36, 38]), ("second", [35, 37])])
def test_seat_plays_only_the_games_of_one_colour(seat: str, games: list[int],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # Tessere's losses are all as the second player: its games are measured alone.
    played = _games_played(monkeypatch, ["-n", "2", "--first", "35", "--seat", seat])
    assert played == games  # tavola.ai moves first in even games (play_one)
    header = capsys.readouterr().out.splitlines()[0]
    assert f"moves {seat}" in header and "alternating" not in header


@pytest.mark.parametrize("first", [0, 1, 34, 35])
def test_seat_takes_the_next_games_of_its_colour_from_any_first_game(first: int) -> None:
    for seat, parity in (("first", 0), ("second", 1)):
        numbers = strength.game_numbers(first, 3, seat)
        assert len(numbers) == 3 and numbers[0] in (first, first + 1)
        assert all(k % 2 == parity for k in numbers)
        assert numbers == list(range(numbers[0], numbers[0] + 6, 2))
    assert strength.game_numbers(first, 3, "both") == [first, first + 1, first + 2]


@pytest.mark.parametrize(("flag", "value"), [("--first", "-1"), ("--jobs", "0")])
def test_a_bad_option_is_refused_before_any_work(flag: str, value: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # morris would build its endgame tables first if the check came after that.
    with pytest.raises(SystemExit):
        strength.main([flag, value, "morris"])
    captured = capsys.readouterr()
    assert flag in captured.err
    assert "endgame tables" not in captured.out


def test_a_row_names_the_games_lost_so_they_can_be_replayed() -> None:
    pairing = strength.Pairing("quinque: strongest v greedy", "quinque", {},
                               strength.Side("tavola"), strength.Side("greedy"), 60)
    tally = strength.Tally(won=58, lost=2, lost_games=[47, 33])
    row = strength.row_text(pairing, tally, 1.0)
    assert "58    0    2" in row
    assert row.endswith("lost game(s) 33, 47")
    assert "lost game" not in strength.row_text(pairing, strength.Tally(won=3), 1.0)


def test_luck_measures_the_ceiling_of_both_targets_where_cards_are_hidden() -> None:
    plan = strength.pairings([("sequence-kids", {}), ("morris", {})], {"luck"}, 10, 4, 0,
                             0.5, ["club"], "")
    oracles = {p.label: (p.ai, p.other.kind, p.games) for p in plan if p.ai.kind == "all-seeing"}
    assert oracles == {
        "sequence-kids: club seeing every card v random":
            (strength.Side("all-seeing", "club"), "random", 10),
        "sequence-kids: strongest seeing every card v greedy":
            (strength.Side("all-seeing", "strongest"), "greedy", 4),
    }  # and none for morris, where nothing is hidden
