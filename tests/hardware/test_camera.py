"""The camera backend: rendered frames in, snapshots and faults out, and whole games.

Frames come from vision.render, drawn from the positions a game goes through; a frame
source in memory stands in for the camera and a fake clock for time (each frame is half a
second after the last, so the session's settle time passes between frames).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tavola.games import Game, new_game
from tavola.hardware import load_sensor
from tavola.hardware.base import SensorBackend, SensorFault, Snapshot
from tavola.hardware.camera import CameraSensor
from tavola.hardware.layout import Layout
from tavola.inference import Accepted, Inference, Pending
from tavola.record import ActionEntry, ResultEntry
from tavola.session import Effects, Session
from tavola.vision.classify import RIM_ADOPT
from tavola.vision.render import Conditions, render
from tavola.vision.source import FrameList
from tests.games.test_transcripts import TRANSCRIPTS, parse

LIGHT = Conditions(tilt=14.0, turn=4.0, kelvin=3600.0, gradient=0.1, noise=1.5, seed=3)
HAND = dataclasses.replace(LIGHT, hand=0.25)
FRAME_SECONDS = 0.5


class Frames(FrameList):
    """In-memory frames that count themselves: the fake clock reads the count."""

    def __init__(self, frames: list[Any]) -> None:
        super().__init__(frames)
        self.count = 0

    def read(self) -> Any:
        frame = super().read()
        if frame is not None:
            self.count += 1
        return frame

    def clock(self) -> float:
        return self.count * FRAME_SECONDS


def frame(game: str, cells: dict[str, str], conditions: Conditions = LIGHT) -> Any:
    return render(game, cells, conditions).image


def drain(sensor: CameraSensor) -> list[Any]:
    async def run() -> list[Any]:
        return [event async for event in sensor.events()]

    return asyncio.run(run())


def sensor_for(game: str, frames: Frames, **options: Any) -> CameraSensor:
    return CameraSensor(Layout.for_game(game), game=game, source=frames, fps=0,
                        clock=frames.clock, **options)


def test_the_backend_is_registered_and_reads_identity() -> None:
    cls = load_sensor("camera")
    assert cls.cls is CameraSensor
    sensor = cls(Layout.for_game("tessere"), game="tessere", source=FrameList([]))
    assert isinstance(sensor, SensorBackend)
    assert sensor.capability == "identity" and sensor.cells == Layout.for_game("tessere").cells
    sensor.close()
    sensor.close()  # idempotent


def test_a_reading_is_reported_once_agreed_and_hands_are_skipped() -> None:
    empty = {c: "" for c in Layout.for_game("tessere").cells}
    one = dict(empty, c3="RY")
    still, placed = frame("tessere", empty), frame("tessere", one)
    hand = frame("tessere", one, HAND)
    frames = Frames([still] * 3 + [hand, placed, hand] + [placed] * 4)
    sensor = sensor_for("tessere", frames, agree=3)
    events = drain(sensor)
    assert [type(e) for e in events] == [Snapshot, Snapshot]
    first, second = events
    assert dict(first.cells) == empty and first.time == 1.0  # read at the third frame
    assert dict(second.cells) == one and not second.uncertain
    assert second.time == 4.0  # the second hand broke the run: frames 6, 7, 8 agree
    assert sensor.skipped == 2 and sensor.frames == 10


def test_lost_markers_raise_a_fault_after_a_while_then_a_resync() -> None:
    empty = {c: "" for c in Layout.for_game("quixo").cells}
    cubes = {c: "." for c in empty}
    board = frame("quixo", cubes)
    covered = board.copy()
    covered[:] = 60  # a cloth over the camera
    frames = Frames([board] * 3 + [covered] * 8 + [board] * 3)
    sensor = sensor_for("quixo", frames, lost_after=3.0)
    events = drain(sensor)
    assert [type(e).__name__ for e in events] == ["Snapshot", "SensorFault", "Snapshot"]
    fault = events[1]
    assert fault.message.startswith("camera: no board markers seen for 3 s")
    assert dict(events[2].cells) == dict(events[0].cells)  # a full reading again


def test_a_directory_of_images_is_a_source(tmp_path: Path) -> None:
    cells = {c: "" for c in Layout.for_game("morris").cells} | {"d2": "W", "a7": "B"}
    image = frame("morris", cells)
    for k in range(3):
        cv2.imwrite(str(tmp_path / f"frame{k:02d}.png"), image)
    sensor = CameraSensor(Layout.for_game("morris"), game="morris", source=str(tmp_path),
                          fps=0)
    (snapshot,) = drain(sensor)
    assert isinstance(snapshot, Snapshot) and dict(snapshot.cells) == cells


@pytest.mark.parametrize(("option", "value", "message"), [
    ("agree", 0, "agree = 0: must be a whole number from 1 to 100 (frames that must agree"),
    ("fps", -3, "fps = -3: must be a number from 0 to 240"),
    ("lost_after", float("nan"), "lost_after = nan: must be a number from 0 to 3600"),
    # These three were taken as they came: a negative size asked of the camera, a field of
    # view of 0 degrees in the parallax sums, a fresh marker search at every frame.
    ("width", -5, "width = -5: must be a whole number from 160 to 8192 (pixels, e.g. 1280)"),
    ("fov", 0, "fov = 0: must be a number from 20 to 170 (degrees across, e.g. 62)"),
    ("redetect_every", -1, "redetect_every = -1: must be a whole number from 0"),
])
def test_a_bad_option_is_named_with_its_range(option: str, value: object, message: str) -> None:
    with pytest.raises(ValueError) as error:
        CameraSensor(Layout.for_game("quixo"), game="quixo", source=FrameList([]),
                     **{option: value})  # type: ignore[arg-type]
    assert str(error.value).startswith(f"[sensor.options] {message}"), error.value


def test_bad_options_are_named() -> None:
    layout = Layout.for_game("quixo")
    with pytest.raises(ValueError, match="cannot read 'chess'"):
        CameraSensor(layout, game="chess", source=FrameList([]))
    with pytest.raises(ValueError, match="layout '5x5' has cell 'b1'"):
        CameraSensor(layout, game="draughts", source=FrameList([]))


def test_a_camera_that_cannot_be_opened_is_a_fault(tmp_path: Path) -> None:
    sensor = CameraSensor(Layout.for_game("quixo"), game="quixo",
                          source=str(tmp_path / "nothing-here"), fps=0)

    async def first() -> Any:
        async for event in sensor.events():
            sensor.close()
            return event
        return None

    event = asyncio.run(first())
    assert isinstance(event, SensorFault) and "camera source" in event.message


def test_a_camera_that_keeps_failing_is_retried_with_growing_pauses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    sensor = CameraSensor(Layout.for_game("quixo"), game="quixo",
                          source=str(tmp_path / "nothing-here"), fps=0, clock=lambda: now[0])
    pauses: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds  # time passes while the daemon waits
        if len(pauses) >= 5 + 45:
            sensor.close()

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    with caplog.at_level(logging.WARNING, logger="tavola.camera"):
        events = drain(sensor)
    assert [type(e) for e in events] == [SensorFault]  # the fault is reported once
    assert pauses == [1.0, 2.0, 4.0, 8.0, 16.0] + [30.0] * 45  # never a busy loop
    tries = [r.getMessage() for r in caplog.records]
    # Each step once, then every ten minutes (it was every 30 s: 120 lines an hour).
    assert len(tries) == 8 and tries[5].endswith("trying again in 30 s"), tries
    assert tries[6].endswith("still trying every 30 s (21 tries so far)"), tries
    assert tries[7].endswith("still trying every 30 s (41 tries so far)"), tries


def test_a_board_where_nothing_moves_is_read_in_full_only_now_and_then() -> None:
    cells = {c: "" for c in Layout.for_game("morris").cells} | {"d2": "W"}
    still = frame("morris", cells)
    moved = frame("morris", cells | {"a7": "B"})
    frames = Frames([still] * 20 + [moved] * 5)
    sensor = sensor_for("morris", frames, agree=3)
    events = drain(sensor)
    assert [dict(e.cells) for e in events] == [cells, cells | {"a7": "B"}]
    assert sensor.frames == 25 and sensor.analysed == 2  # the first frame and the change


# --------------------------------------------------------------------------- whole games
def transcript(stem: str) -> tuple[dict[str, str], list[str]]:
    header, moves, _ = parse(next(p for p in TRANSCRIPTS if p.stem == stem))
    return header, moves


def play_through_the_camera(game: Game[Any], moves: list[str]) -> tuple[Session, list[Effects]]:
    """Render the positions the moves go through (a hand over the board before each one)
    and let the camera backend feed a session with what it reads."""
    name = game.name
    reference = game.copy()
    images = [frame(name, reference.view("identity"))] * 3
    for text in moves:
        reference.apply(reference.parse_move(text))
        after = reference.view("identity")
        images += [frame(name, after, HAND), *[frame(name, after)] * 3]
    frames = Frames(images)
    layout = Layout.for_game(name)
    sensor = sensor_for(name, frames, players=game.num_players)
    session = Session(game, layout, "identity", cells=layout.cells, settle=0.25, grace=1.0)
    effects = [session.start(0.0, 0.0)]

    async def run() -> None:
        async for event in sensor.events():
            assert isinstance(event, Snapshot), event
            effects.append(session.on_snapshot(event.cells, event.time, event.time,
                                               event.uncertain))
            session.prepare()
            later = event.time + 0.3  # the reading stands until the next frame
            effects.append(session.tick(later, later))
            last[0] = later

    last = [0.0]
    asyncio.run(run())
    assert sensor.skipped == len(moves)  # every hand frame was skipped
    end = last[0] + 1.1  # the result of a game's last action waits the grace time (1 s)
    effects.append(session.tick(end, end))
    return session, effects


@pytest.mark.parametrize(("stem", "count"), [("quixo-column-win", 9),
                                             ("tessere-second-block", 8)])
def test_a_game_played_through_the_camera(stem: str, count: int) -> None:
    header, moves = transcript(stem)
    moves = moves[:count]
    game = new_game(header["game"], **json.loads(header.get("params", "{}")))
    session, effects = play_through_the_camera(game, moves)
    played = [e.move for fx in effects for e in fx.journal if isinstance(e, ActionEntry)]
    assert played == moves
    assert [str(m) for m in session.game.history] == moves
    logs = [line for fx in effects for line in fx.log]
    assert not any("does not match" in line or "illegal" in line for line in logs), logs
    frames_shown = [fx.frame for fx in effects if fx.frame is not None]
    assert frames_shown  # the LEDs followed the game
    if stem.startswith("quixo"):
        outcome = session.game.outcome()
        assert outcome is not None and outcome.winner == 0
        assert [e for fx in effects for e in fx.journal if isinstance(e, ResultEntry)]


def test_quinque_tiles_are_named_in_the_games_coordinates() -> None:
    game = new_game("quinque")
    for text in ("m 0,0", "t 2,1", "pass", "t -1,0"):
        game.apply(game.parse_move(text))
    view = game.view("identity")
    frames = Frames([frame("quinque", view)] * 3)
    sensor = CameraSensor(Layout.for_game("quinque"), game="quinque", source=frames, fps=0,
                          clock=frames.clock, start=view)
    assert sensor.cells == ()
    (snapshot,) = drain(sensor)
    assert dict(snapshot.cells) == view


def test_the_uncertain_cells_reach_the_snapshot() -> None:
    cells = {c: "" for c in Layout.for_game("tessere").cells}
    image = frame("tessere", cells)
    smudged = image.copy()
    sensor = sensor_for("tessere", Frames([smudged] * 3))
    # A grey smudge over c3: neither a checker nor the board.
    recogniser = sensor.recogniser
    fix = recogniser.tracker.update(image)
    centre = cv2.perspectiveTransform(np.array([[[2.5, 2.5]]]), fix.homography)[0, 0]
    cv2.circle(smudged, (int(centre[0]), int(centre[1])), 30, (128, 128, 128), -1)
    recogniser.tracker.reset()
    (snapshot,) = drain(sensor)
    assert "c3" in snapshot.uncertain


def test_kings_read_as_their_colour_never_make_a_mismatch() -> None:
    # The camera reads a king as its colour (a double stack has no crown); the game knows
    # its rank. Inference must take such readings for what they are (RULES.md tokens).
    game = new_game("draughts")
    game.set_position({"board": {"c3": "WK", "g7": "W", "f6": "B", "h8": "B"}, "turn": 0})
    inference = Inference("identity", settle=0.0, grace=1.0)

    def seen(cells: dict[str, str]) -> dict[str, str]:
        return {c: v[:1] for c, v in cells.items()}

    still = inference.update(game, seen(game.view("identity")), 0.0)
    assert isinstance(still, Pending) and not still.changed
    assert isinstance(inference.update(game, None, 5.0), Pending)  # never a mismatch
    moved = seen(game.view("identity")) | {"c3": "", "a5": "W"}  # the king flies c3-a5
    accepted = inference.update(game, moved, 6.0)
    assert isinstance(accepted, Accepted) and [str(m) for m in accepted.moves] == ["c3-a5"]
    game.apply(accepted.moves[0])
    game.apply(game.parse_move("f6-e5"))
    crowned = seen(game.view("identity")) | {"g7": "", "f8": "W"}  # a man reaches the far rank
    promoted = inference.update(game, crowned, 7.0)
    assert isinstance(promoted, Accepted) and [str(m) for m in promoted.moves] == ["g7-f8"]


def test_the_calibration_is_refreshed_from_the_last_clean_frame() -> None:
    cells = {c: "" for c in Layout.for_game("tessere").cells} | {
        "a1": "R", "b1": "Y", "c1": "G", "d1": "B", "e1": "K"}
    frames = Frames([frame("tessere", cells)] * 3)
    sensor = sensor_for("tessere", frames)
    assert not sensor.refresh_calibration(cells)  # no frame read yet
    (snapshot,) = drain(sensor)
    assert dict(snapshot.cells) == cells
    assert not sensor.refresh_calibration({"a1": "K", "b1": "K", "c1": "K"})  # not the picture
    assert sensor.recogniser.calibration is None
    assert sensor.refresh_calibration(cells)
    assert sensor.recogniser.calibration is not None


def test_the_frame_thread_refreshes_from_the_accepted_position_and_health_says_so() -> None:
    cells = {c: "" for c in Layout.for_game("tessere").cells} | {"a1": "R", "b1": "Y"}
    frames = Frames([frame("tessere", cells)] * 6)
    sensor = sensor_for("tessere", frames, refresh_every=1.0)
    sensor.follow_position(cells)  # what the daemon offers after each snapshot
    drain(sensor)
    health = sensor.health()
    assert health.board_seen and health.missing_markers == () and health.lost_for is None
    assert health.refreshed_at is not None and health.refresh_failed == 0
    assert sensor.recogniser.calibration is not None
    # A position the picture does not show is never learned from.
    other = Frames([frame("tessere", cells)] * 6)
    wrong = sensor_for("tessere", other, refresh_every=1.0)
    wrong.follow_position(cells | {"c3": "K"})
    drain(wrong)
    assert wrong.health().refreshed_at is None and wrong.recogniser.calibration is None


def test_health_names_the_markers_out_of_sight() -> None:
    board = frame("quixo", {c: "." for c in Layout.for_game("quixo").cells})
    covered = board.copy()
    covered[:] = 60
    frames = Frames([board] * 2 + [covered] * 5)
    sensor = sensor_for("quixo", frames, lost_after=10.0)
    drain(sensor)
    health = sensor.health()
    assert not health.board_seen and health.missing_markers == (0, 1, 2, 3)
    assert health.lost_for == 2.5 and health.camera_ok  # since 1.0, the first covered read


def test_a_quinque_frame_with_squares_hidden_by_a_reflection_still_refreshes() -> None:
    # quinque-101 (3D set): a reflection on the mat beside the tiles is read as doubted
    # empty cells, named though no tile is there. The accepted position (here the tiles as
    # read) does not name them; an empty cell and a cell not named are alike, so the
    # calibration is still refreshed from the frame.
    data = Path(__file__).parents[1] / "vision" / "data3d"
    truth = json.loads((data / "quinque-101.json").read_text(encoding="utf-8"))["cells"]
    image = cv2.imread(str(data / "quinque-101.jpg"))
    sensor = sensor_for("quinque", Frames([image] * 6), refresh_every=1.0, start=truth)
    (snapshot,) = drain(sensor)
    assert {c for c, token in snapshot.cells.items() if not token}  # the hidden squares
    accepted = {c: token for c, token in snapshot.cells.items() if token}
    again = sensor_for("quinque", Frames([image] * 6), refresh_every=1.0, start=truth)
    again.follow_position(accepted)
    drain(again)
    assert again.health().refreshed_at is not None


def test_a_reflection_taken_for_a_hand_is_learned_as_the_rim_and_the_board_reads_again() -> None:
    # quixo-118 (3D set): a lamp's reflection on the rim is taken for a hand. A hand moves;
    # a reflection stays put, so after RIM_ADOPT still frames it becomes the bare rim and
    # the position is reported: a steady lamp never stalls the board.
    data = Path(__file__).parents[1] / "vision" / "data3d"
    truth = json.loads((data / "quixo-118.json").read_text(encoding="utf-8"))
    assert not truth["hand"]
    image = cv2.imread(str(data / "quixo-118.jpg"))
    sensor = sensor_for("quixo", Frames([image] * (RIM_ADOPT + 10)), fov=truth["fov"])
    events = drain(sensor)
    assert sensor.skipped >= 1  # taken for a hand at first
    (snapshot,) = events
    assert isinstance(snapshot, Snapshot)
    wrong = {c for c, token in truth["cells"].items() if snapshot.cells.get(c) != token}
    assert wrong <= snapshot.uncertain


def test_health_names_the_cells_a_lamps_reflection_blows_out_and_refreshes_go_on() -> None:
    # quixo-040 (3D set): an area lamp's reflection blows five cubes out to white. The
    # health line (the web view's) names them and what to do; the light refreshes, once
    # all refused by those five cells, are kept.
    data = Path(__file__).parents[1] / "vision" / "data3d"
    truth = json.loads((data / "quixo-040.json").read_text(encoding="utf-8"))["cells"]
    image = cv2.imread(str(data / "quixo-040.jpg"))
    sensor = sensor_for("quixo", Frames([image] * 6), refresh_every=1.0)
    sensor.follow_position(truth)
    drain(sensor)
    health = sensor.health()
    assert health.glare == ("c4", "c5", "d3", "d5", "e3")
    assert "a lamp's reflection over c4, c5, d3, d5, e3 (move the lamp" in health.summary()
    assert health.refreshed_at is not None and health.refresh_failed == 0


def test_the_setup_is_judged_once_from_the_first_clean_frame(
        caplog: pytest.LogCaptureFixture) -> None:
    # A club's table has no screen: what 'tavola vision check' would say to fix is logged
    # when the camera first sees the board clearly.
    data = Path(__file__).parents[1] / "vision" / "data3d"
    image = cv2.imread(str(data / "quixo-040.jpg"))
    sensor = sensor_for("quixo", Frames([image] * 4))
    with caplog.at_level(logging.WARNING, logger="tavola.camera"):
        drain(sensor)
    assert sensor.setup is not None and not sensor.setup.ok
    said = [r.getMessage() for r in caplog.records if "camera setup" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith(
        "camera setup: glare: a lamp's reflection blows out c4, c5, d3, d5, e3")
    good = sensor_for("quixo", Frames([cv2.imread(str(data / "quixo-000.jpg"))] * 2))
    drain(good)
    assert good.setup is not None and good.setup.ok


def test_a_setup_check_that_fails_costs_no_reading(monkeypatch: pytest.MonkeyPatch,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    # Advice must never cost the board: a setup check that raises is logged once, and
    # every frame is still read and reported.
    import tavola.hardware.camera as camera

    calls = []

    def broken(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise RuntimeError("a bug in the setup check")

    monkeypatch.setattr(camera, "check_setup", broken)
    cells = {c: "" for c in Layout.for_game("tessere").cells} | {"a1": "R"}
    sensor = sensor_for("tessere", Frames([frame("tessere", cells)] * 4))
    with caplog.at_level(logging.ERROR, logger="tavola.camera"):
        events = drain(sensor)
    assert len(calls) == 1 and sensor.setup is None
    assert [e.cells["a1"] for e in events if isinstance(e, Snapshot)] == ["R"]
    assert any("the setup could not be judged" in r.getMessage() for r in caplog.records)


def test_a_soft_focus_found_at_the_start_stays_on_the_health_line() -> None:
    # The referee looks at the web view, not the log: what the first clear frame showed to
    # fix that stays (here a lens out of focus) is on the camera's health line.
    data = Path(__file__).parents[1] / "vision" / "data3d"
    sharp_image = cv2.imread(str(data / "quixo-000.jpg"))
    assert sharp_image is not None
    soft = cv2.GaussianBlur(sharp_image, (0, 0), 1.5)
    sensor = sensor_for("quixo", Frames([soft] * 3))
    drain(sensor)
    health = sensor.health()
    assert health.setup == ("focus",)
    assert "setup to fix: focus ('tavola vision check' tells how)" in health.summary()
    sharp = sensor_for("quixo", Frames([sharp_image] * 2))
    drain(sharp)
    assert sharp.health().setup == ()


def test_a_live_camera_is_judged_once_its_first_frames_have_settled() -> None:
    # A live camera's first frames still settle its exposure and white balance (as
    # 'tavola vision check --source' waits for): the setup is judged after them.
    from tavola.vision.setup_check import WARM_UP_FRAMES
    from tavola.vision.source import read_image

    data = Path(__file__).parents[1] / "vision" / "data3d"
    image = read_image(data / "quixo-040.jpg")
    sensor = sensor_for("quixo", Frames([]))
    sensor._live = True  # as for source "0" (the frames are fed here, no camera opened)
    for k in range(WARM_UP_FRAMES):
        sensor.feed(image, float(k))
    assert sensor.setup is None
    sensor.feed(image, float(WARM_UP_FRAMES))  # the picture did not change: read no more
    assert sensor.analysed == 1 and sensor.setup is not None and not sensor.setup.ok


def test_a_new_game_of_another_kind_is_read_as_that_game() -> None:
    # `new tessere` on a 5x5 board set up for Quixo: the camera went on reading cubes, and
    # every tessere move was an illegal position ("a1 should be empty, reads .").
    cubes = {c: "." for c in Layout.for_game("quixo").cells}
    checker = {c: "" for c in cubes} | {"c3": "RY"}
    frames = Frames([frame("quixo", cubes)] * 3 + [frame("tessere", checker)] * 3)
    sensor = sensor_for("quixo", frames)

    async def run() -> list[dict[str, str]]:
        seen = []
        async for event in sensor.events():
            assert isinstance(event, Snapshot)
            seen.append(dict(event.cells))
            if len(seen) == 1:
                sensor.read_game("tessere", 2, {})
        return seen

    first, second = asyncio.run(run())
    assert first == cubes and second == checker
    assert sensor.game == "tessere" and sensor.recogniser.game == "tessere"
