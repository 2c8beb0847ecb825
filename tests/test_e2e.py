"""Whole games through the simulator: raw sensor events in, journal and LED frames out.

The harness is the daemon's loop in miniature on virtual time: the simulated sensor's
snapshots and a 50 ms tick go into a Session; journal entries are appended (and the game
filed when it ends), frames go to simulated LEDs. Raw events for an action are derived
from the board change the action makes (lift what leaves, place what arrives), so every
game is driven the same way a person moves pieces, independent of its notation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tavola.clock import Clock, ClockSpec
from tavola.feedback import GOLD, GREEN, RED
from tavola.games import Game, new_game
from tavola.hardware.layout import Layout
from tavola.hardware.sim import SimLeds, SimSensor
from tavola.inference import Ambiguous
from tavola.journal import Journal
from tavola.record import ActionEntry, Entry, IllegalEntry, ResultEntry, StartEntry, replay
from tavola.session import Session
from tests.games.test_transcripts import TRANSCRIPTS, parse
from tests.positions import morris_moving_phase

TICK = 0.05


class Board:
    """A game on a simulated board, followed by a session, journaled in ``directory``."""

    def __init__(self, game: Game[Any], directory: Path, *, capability: str | None = None,
                 policy: str = "teaching", clock: Clock | None = None,
                 grace: float = 1.0) -> None:
        self.layout = Layout.for_game(game.name)
        self.sensor = SimSensor(self.layout, capability or game.needs,  # type: ignore[arg-type]
                                start=game.view("identity"), hand_time=0.1)
        self.leds = SimLeds(self.layout, clock=lambda: self.sensor.now)
        self.journal = Journal(directory)
        self.journal.begin(StartEntry.of(game, game_id="e2e", wall=0.0))
        self.session = Session(game, self.layout, self.sensor.capability,
                               cells=self.layout.cells, policy=policy,  # type: ignore[arg-type]
                               settle=0.25, grace=grace, clock=clock)
        self.entries: list[Entry] = []
        self.logs: list[str] = []
        self.apply(self.session.start(0.0, 0.0))
        self.apply_events()

    @property
    def game(self) -> Game[Any]:
        return self.session.game

    def apply(self, fx: Any) -> None:
        for entry in fx.journal:
            self.entries.append(entry)
            if isinstance(entry, ResultEntry):
                self.journal.finish(entry)
            else:
                self.journal.append(entry)
        if fx.frame is not None:
            self.leds.show(fx.frame)
        self.logs += fx.log

    def apply_events(self) -> None:
        for event in self.sensor.drain():
            now = self.sensor.now
            if hasattr(event, "cells"):
                self.apply(self.session.on_snapshot(event.cells, now, now))
                self.session.prepare()
            else:
                self.apply(self.session.on_fault(event.message, now))

    def run(self, seconds: float) -> None:
        """Let time pass in ticks, as the daemon's loop does."""
        end = self.sensor.now + seconds
        while self.sensor.now < end - 1e-9:
            self.sensor.advance(TICK)
            self.apply_events()
            now = self.sensor.now
            self.apply(self.session.tick(now, now))

    def act(self, *commands: str, then: float = 0.6) -> None:
        """Raw sensor commands, then time for them to happen and settle."""
        for command in commands:
            self.sensor.command(command)
        self.run(self.sensor._plan.cursor - self.sensor.now + then)

    def move(self, text: str, *, bounce: bool = False, like: Game[Any] | None = None) -> bool:
        """Move the pieces as ``text`` does (lifts, then placements); False if the action
        changes nothing a sensor can see (it is then taken with the next one). ``like``:
        the game to read the move against, when it is ahead of the board's game."""
        game = like or self.game
        before = game.view(self.sensor.capability)
        probe = game.copy()
        probe.apply(probe.parse_move(text))
        after = probe.view("identity")
        commands = [f"lift {c}" for c in sorted(before) if before[c] and before[c] !=
                    (after[c] if self.sensor.capability == "identity" else
                     ("#" if after[c] else ""))]
        verb = "bounce" if bounce else "place"
        commands += [f"{verb} {c} {after[c]}" for c in sorted(after) if after[c] and
                     (before[c] != (after[c] if self.sensor.capability == "identity" else "#"))]
        if not commands:
            return False
        self.act(*commands)
        if "ambiguous" in self.session.status():  # a person types which one it was
            self.apply(self.session.command(text, self.sensor.now, self.sensor.now))
        return True

    def kinds(self) -> list[str]:
        return [e.TYPE for e in self.entries]

    def played(self) -> list[str]:
        return [str(m) for m in self.game.history]


def lit(leds: SimLeds, colour: tuple[int, int, int]) -> set[str]:
    return {c for c in leds.layout.cells if leds.colour_of(c) == colour}


def transcript(stem: str) -> tuple[dict[str, str], list[str]]:
    path = next(p for p in TRANSCRIPTS if p.stem == stem)
    header, moves, _ = parse(path)
    return header, moves


@pytest.mark.parametrize("stem", ["morris-seeded-win", "draughts-dame-huffs",
                                  "quixo-seeded", "tessere-second-block",
                                  "sequence-kids-corner-win"])
def test_a_whole_game_through_the_simulator(stem: str, tmp_path: Path) -> None:
    header, moves = transcript(stem)
    game = new_game(header["game"], **json.loads(header.get("params", "{}")))
    board = Board(game, tmp_path, capability="identity" if game.needs == "identity" else None)
    reference = new_game(header["game"], **json.loads(header.get("params", "{}")))
    for n, text in enumerate(moves):
        seen = board.move(text, bounce=n % 3 == 0, like=reference)
        reference.apply(reference.parse_move(text))
        if not seen:  # e.g. an O pushed along Os: it is inferred with the next action
            continue
        # The same position (a Quixo push of blanks may be recorded as another blank's).
        if board.game.to_dict()["state"] != reference.to_dict()["state"]:
            pytest.fail(f"after {text!r}: played {board.played()[-3:]}, logs {board.logs[-3:]}")
        if not board.game.outcome():
            changed = set(board.session.last_move)
            assert changed and lit(board.leds, GREEN) == changed
    outcome = board.game.outcome()
    assert outcome is not None
    winner, _, reason = header["result"].partition(" ")
    assert (outcome.winner, outcome.reason) == (None if winner == "draw" else int(winner),
                                               reason)
    # The journal holds every action and the result (written once the last action can no
    # longer be corrected: the grace time); replaying it gives the same game.
    board.run(board.session.inference.grace + 0.1)
    record = board.journal.load("e2e")
    assert [e.move for e in record.entries if isinstance(e, ActionEntry)] == board.played()
    assert len(board.played()) == len(moves)
    assert replay(record).game.to_dict() == board.game.to_dict()
    if board.game.winning_cells():
        assert lit(board.leds, GOLD) == set(board.game.winning_cells())


def test_a_mill_then_its_removal_slides_and_a_takeback(tmp_path: Path) -> None:
    board = Board(new_game("morris"), tmp_path)
    for text in ("a1", "b2", "a4", "b4"):
        board.move(text)
    board.act("bounce a7 #")
    assert board.played()[-1] == "a7" and board.game.current_player == 0
    board.act("lift a7", then=1.2)  # White thinks again: the mill is taken back
    assert board.played()[-1] == "b4" and board.kinds()[-1] == "undo"
    board.act("place a7 #")
    board.act("lift b2")
    assert board.played()[-2:] == ["a7", "xb2"]
    # Putting the removed man back reads as Black placing a man there as well as a
    # takeback of the removal: the board cannot tell, the player says which.
    board.act("place b2 #")
    assert board.played()[-1] == "xb2" and isinstance(board.session.result, Ambiguous)
    board.apply(board.session.command("b2", board.sensor.now, board.sensor.now))
    assert board.played()[-1] == "b2" and board.game.current_player == 0


def test_a_slide_over_a_legal_square_waits_to_settle(tmp_path: Path) -> None:
    game = morris_moving_phase()
    legal = sorted(str(m) for m in game.legal_moves())
    assert legal == ["c5-c4", "c5-d5"]  # the position this placement order reaches
    board = Board(game, tmp_path)
    # The man pauses on c4 for 0.1 s (longer than the debounce, so c4 is sensed, shorter
    # than the settle time) on its way to d5: c5-c4 is not taken.
    board.act("slide c5 c4 d5 0.1")
    assert board.played()[-1] == "c5-d5"
    assert "c5-c4" not in board.played()


def test_a_mismatch_blinks_red_is_journaled_and_recovers(tmp_path: Path) -> None:
    board = Board(new_game("morris"), tmp_path)
    board.move("d2")
    board.act("place a1 #", "place g7 #", then=1.5)  # Black: two men at once
    assert board.kinds()[-1] == "illegal"
    frames_red = [f for f in board.leds.frames
                  if f.frame[board.layout.led_of("a1")] == RED]
    assert frames_red, "the two cells blinked red"
    illegal = board.entries[-1]
    assert isinstance(illegal, IllegalEntry) and illegal.sensed == {"a1": "#", "g7": "#"}
    board.act("lift g7")
    assert board.played() == ["d2", "a1"] and not lit(board.leds, RED)


def test_a_huff_in_draughts(tmp_path: Path) -> None:
    board = Board(new_game("draughts"), tmp_path)  # dame: optional capture with huffing
    for text in ("c3-d4", "f6-e5", "g3-h4"):  # White ignores d4xf6
        board.move(text)
    huffable = [str(m) for m in board.game.legal_moves() if str(m).startswith("huff")]
    assert huffable == ["huff d4"]
    board.act("lift d4")
    assert board.played()[-1] == "huff d4" and board.game.current_player == 1


def test_an_ambiguous_card_is_resolved_from_the_console(tmp_path: Path) -> None:
    game = new_game("sequence-kids", cards="declared", seed=1)
    board = Board(game, tmp_path)
    layout_cell = next(str(m).split("@")[1] for m in game.legal_moves()
                       if "@" in str(m) and not str(m).startswith("unicorn"))
    board.act(f"place {layout_cell} R")
    candidates = [str(m) for m in game.legal_moves() if str(m).endswith("@" + layout_cell)]
    assert len(candidates) >= 2  # the animal's card, or a unicorn
    assert "ambiguous" in board.session.status()
    board.apply(board.session.command(candidates[0], 5.0, 5.0))
    assert board.played() == [candidates[0]]


@pytest.mark.parametrize(("policy", "ended"), [("warn", False), ("lose", True)])
def test_the_move_timer_under_both_policies(policy: str, ended: bool, tmp_path: Path) -> None:
    game = new_game("tessere", on_timeout=policy)
    clock = Clock(ClockSpec("none"), 2, game_move_seconds=game.move_seconds)
    board = Board(game, tmp_path, clock=clock)
    board.move("RY@c3")
    board.run(61.0)  # Player 2 never moves
    assert "timeout" in board.kinds()
    assert (board.game.outcome() is not None) == ended
    if ended:
        assert board.kinds()[-1] == "result" and board.game.outcome().winner == 0  # type: ignore[union-attr]
    else:
        assert any("out of time (warning)" in line for line in board.logs)
        board.move("GB@a1")  # play goes on
        assert board.played() == ["RY@c3", "GB@a1"]


def test_an_unplugged_board_keeps_the_game_and_resyncs(tmp_path: Path) -> None:
    board = Board(new_game("morris"), tmp_path)
    board.move("d2")
    board.sensor.unplug()
    board.run(0.2)
    assert board.session.status().startswith("board disconnected")
    board.act("place a1 #")  # moved while unplugged: nobody sees it yet
    assert board.played() == ["d2"]
    board.sensor.replug()
    board.run(0.3)
    assert board.played() == ["d2", "a1"] and board.session.disconnected is None


def test_knocks_and_noise_change_nothing_that_is_put_right(tmp_path: Path) -> None:
    board = Board(new_game("morris"), tmp_path)
    board.move("d2")
    board.act("noise 6")  # glitches shorter than the debounce
    board.act("knock d2", "place d2 #", then=0.3)  # knocked off and put straight back
    assert board.played() == ["d2"] and "illegal" not in board.kinds()


@pytest.mark.parametrize("stem", ["quinque-tile-move-win", "quinque-seeded-line"])
def test_quinque_through_the_session_from_camera_readings(stem: str) -> None:
    # Quinque has no board for the simulator's cells (tiles on an open table): its readings
    # are what the camera reports, the cluster's skydivers, handed to the session.
    header, moves = transcript(stem)
    params = json.loads(header.get("params", "{}"))
    game = new_game("quinque", **params)
    layout = Layout.for_game("quinque")
    session = Session(game, layout, "identity", cells=layout.cells, settle=0.25)
    reference = new_game("quinque", **params)
    now = 0.0
    for text in moves:
        reference.apply(reference.parse_move(text))
        now += 2.0
        if reference.view() == game.view():  # a pass: said, not seen
            continue
        session.on_snapshot(reference.view(), now, now)
        session.tick(now + 0.5, now + 0.5)
        assert game.view() == reference.view(), f"after {text!r}: {session.result}"
    assert game.outcome() is not None and reference.outcome() is not None
    assert game.outcome().reason == reference.outcome().reason  # type: ignore[union-attr]
