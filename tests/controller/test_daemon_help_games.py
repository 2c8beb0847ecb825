"""The engine's help through the daemon on the simulator, in every game: a hint asked at
the console is a legal turn lit blue; the computer's turn is taken only as made on the board
(another legal move put there is refused and shown wrong); the help is in the journal and in
``tavola export``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tavola.cli import main as tavola
from tavola.daemon import Daemon, board_events
from tavola.games import Game, new_game
from tavola.journal import Journal
from tavola.record import ActionEntry, HintEntry, StartEntry
from tests.controller.test_daemon_help import blue, daemon_for, run
from tests.positions import random_position
from tests.waiting import until

# Sequence for Kids' hints go to a seat page only (its hands are hidden): the seat pages
# are the web's (tests/web); the console refusal is tested in test_daemon_help.py.
OPEN_GAMES = ("morris", "draughts", "quixo", "tessere", "quinque")


def journal_of(path: Path, game: Game[Any]) -> None:
    """Write ``game`` as the game in progress in the journal at ``path`` (the daemon
    resumes it: the simulated board starts in its position)."""
    journal = Journal(path)
    start = new_game(game.name, **dict(game.options))
    journal.begin(StartEntry.of(start, game_id=journal.new_id(0.0, game.name), wall=0.0))
    for ply, move in enumerate(game.history, 1):
        journal.append(ActionEntry(str(move), start.current_player, ply, 0.0, 0.0))
        start.apply(move)


def two_hints(state: Path, game: Game[Any]) -> list[tuple[Any, ...]]:
    """Resume ``game`` from the journal at ``state``, ask ``hint`` twice at the console;
    each hint is checked legal and lit blue. The turns hinted, in order."""
    journal_of(state, game)
    daemon = daemon_for(state, game=game.name, **{"hints.per_turn": "2"})
    hints: list[tuple[Any, ...]] = []

    async def ask(d: Daemon) -> None:
        assert d.session.game.history == game.history  # resumed there
        for rank in (1, 2):
            d.console_line("hint")
            await until(lambda: len(d.session.help.given) == rank)  # noqa: B023
            shown = d.session.help.hint
            assert shown is not None
            work = d.session.game.copy()
            for move in shown.turn:
                work.apply(move)  # raises if the hint is not legal
            # Lit blue where the board has LEDs (Quinque's table has none: the status and
            # the console say it).
            assert blue(d) == shown.steps[0].all & set(d.layout.cells)
            assert f"hint: {shown.text}" in d.session.status()
            hints.append(shown.turn)

    run(daemon, ask)
    return hints


@pytest.mark.parametrize("name", OPEN_GAMES)
def test_a_hint_at_the_console_is_a_legal_turn_lit_blue(tmp_path: Path, name: str) -> None:
    for seed in (1, 2):
        state = tmp_path / str(seed)
        game = random_position(name, seed, 6 + 5 * seed)
        hints = two_hints(state, game)
        assert hints[0] != hints[1]  # the second hint is the next best
        record = Journal(state).resume()
        assert record is not None
        journaled = [e for e in record.entries if isinstance(e, HintEntry)]
        assert [(e.kind, e.rank, e.ply) for e in journaled] == [
            ("hint", 1, len(game.history)), ("hint", 2, len(game.history))]
        assert [e.moves for e in journaled] == [tuple(map(str, t)) for t in hints]


@pytest.mark.parametrize("name", (*OPEN_GAMES, "sequence-kids"))
def test_the_computers_turn_is_taken_only_as_made_on_the_board(
        tmp_path: Path, name: str) -> None:
    game = random_position(name, 3, 8)
    journal_of(tmp_path, game)
    daemon = daemon_for(tmp_path, game=name, **{
        "game.opponent": "ai", "game.opponent_level": "beginner",
        "game.opponent_side": str(game.current_player)})

    async def make(d: Daemon) -> None:
        await until(lambda: d.session.help.computer is not None)
        shown = d.session.help.computer
        assert shown is not None
        played = len(game.history)
        now = game.view("identity")
        meant = game.copy()
        meant.apply(shown.turn[0])
        others = []
        for move in game.legal_moves():
            probe = game.copy()
            probe.apply(move)
            if probe.view("identity") != meant.view("identity"):
                others.append(probe.view("identity"))
        assert others, "the position has no other move to refuse"
        sim: Any = d.sensor
        sim.run_script(board_events(now, others[0]))
        await until(lambda: bool(d.session.scene(0.0).error))  # shown wrong (blinking red)
        assert len(d.session.game.history) == played and "put it back" in " ".join(
            d._log_tail)
        sim.run_script(board_events(others[0], now))
        await until(lambda: not d.session.scene(0.0).error)
        work = game.copy()
        for move in shown.turn:  # a player makes it, one action at a time
            before = work.view("identity")
            work.apply(move)
            sim.run_script(board_events(before, work.view("identity")))
            await until(lambda: d.session.game.history == work.history)
        assert d.session.game.history == work.history

    run(daemon, make)
    journal = Journal(tmp_path)
    record = journal.resume() or journal.load(journal.records()[0].id)  # or ended, filed
    shown = [e for e in record.entries if isinstance(e, HintEntry) and e.kind == "computer"]
    assert shown[0].ply == len(game.history)


def test_hints_and_blunders_are_in_the_export(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    daemon = daemon_for(tmp_path, **{"hints.feedback": "true", "hints.threshold": "50",
                                     "hints.nodes": "400"})

    async def play(d: Daemon) -> None:
        for ply, move in enumerate(("a1", "b2", "a4", "b4"), 1):
            d.console_line(move)
            await until(lambda: len(d.session.game.history) == ply)  # noqa: B023
        d.console_line("hint")
        await until(lambda: d.session.help.hint is not None)
        d.console_line("g7")  # not the hint: a blunder
        await until(lambda: len(d.session.game.history) == 5)
        await until(lambda: d.session.help.review is not None
                    and d.session.help.review.at == tuple(d.session.game.history))
        d.console_line("resign")
        await until(lambda: d.session.game.outcome() is not None)

    run(daemon, play)
    filed, = Journal(tmp_path).records()
    assert tavola(["export", filed.id, "--journal", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "{White asked, hint 1: a7 xb2}" in text
    assert re.search(r"\{White: blunder \(\d+\.\d men worse\), better a7 xb2\}", text), text


def test_under_the_arbiter_hints_wait_for_the_referee_across_a_restart(tmp_path: Path) -> None:
    arbiter = {"game.policy": "arbiter"}

    async def allow(d: Daemon) -> None:
        d.console_line("hint")
        assert "unless the referee allows them" in d._log_tail[-1]
        assert d.session.help.hint is None
        d.console_line("hints on")

    run(daemon_for(tmp_path, **arbiter), allow)

    async def ask(d: Daemon) -> None:
        assert d.session.hints_allowed  # the referee's word, from the journal
        d.console_line("hint")
        await until(lambda: d.session.help.hint is not None)
        d.console_line("hints off")
        assert not blue(d)
        d.console_line("hint")
        assert "unless the referee allows them" in d._log_tail[-1]

    run(daemon_for(tmp_path, **arbiter), ask)

    async def configured(d: Daemon) -> None:
        d.console_line("hint")
        await until(lambda: d.session.help.hint is not None)

    run(daemon_for(tmp_path / "allowed", **arbiter, **{"hints.arbiter": "true"}), configured)
