"""The journal and the record: fsynced appends, resume after a power cut, replay, records
and export."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import random
from pathlib import Path
from typing import Any

import pytest

from tavola.clock import Clock, ClockSpec
from tavola.export import export_text
from tavola.games import GAMES, Game, Outcome, Reason, new_game
from tavola.games.tessere import Tessere
from tavola.journal import Journal, JournalError, encode
from tavola.record import (
    ActionEntry,
    AmendEntry,
    ClockEntry,
    IllegalEntry,
    Record,
    RecordError,
    ResultEntry,
    StartEntry,
    TimeoutEntry,
    UndoEntry,
    WithdrawnEntry,
    checkpoint_due,
    entry_from_json,
    new_game_id,
    replay,
    score,
)

WALL = 1714573812.0  # 2024-05-01 14:30:12 UTC


def begin(journal: Journal, game: Game[Any], clock: ClockSpec | None = None) -> str:
    game_id = journal.new_id(WALL, game.name)
    journal.begin(StartEntry.of(game, game_id=game_id, wall=WALL, clock=clock))
    return game_id


def action_entry(move: object, *, player: int, ply: int, wall: float, now: float) -> ActionEntry:
    return ActionEntry(str(move), player, ply, wall, now)


def undo_entry(move: object, *, player: int, wall: float, now: float) -> UndoEntry:
    return UndoEntry(str(move), player, wall, now)


def moves(record: Record) -> list[str]:
    return [e.move for e in record.entries if isinstance(e, ActionEntry)]


def play(journal: Journal, game: Game[Any], *texts: str, now: float = 0.0) -> None:
    for text in texts:
        player = game.current_player
        game.apply(game.parse_move(text))
        journal.append(ActionEntry(text, player, len(game.history), WALL, now))


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines()


# --------------------------------------------------------------------- writing
def test_append_fsyncs_the_line_before_returning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = Journal(tmp_path / "state")
    seen: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if journal.current.exists():
            seen.append(journal.current.read_text())
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    game = new_game("tessere")
    begin(journal, game)
    assert seen and '"type":"start"' in seen[0]
    seen.clear()
    play(journal, game, "G@a1")
    # One fsync of the file, with the new line already in it (then none for the directory).
    assert len(seen) == 1
    assert seen[0].endswith(
        '"move":"G@a1","player":0,"ply":1,"wall":1714573812.0,"mono":0.0,"clock":null}\n'
    )


def test_append_checks_the_order_of_entries(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    with pytest.raises(ValueError, match="begin"):
        journal.append(action_entry("G@a1", player=0, ply=1, wall=WALL, now=0.0))
    begin(journal, game)
    with pytest.raises(ValueError, match="begin"):
        journal.append(StartEntry.of(game, game_id="again", wall=WALL))
    with pytest.raises(ValueError, match="already in progress"):
        begin(journal, game)
    assert len(lines_of(journal.current)) == 1


def test_every_line_is_one_json_object(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game, ClockSpec("move", move_seconds=60))
    journal.append(
        IllegalEntry(
            sensed={"c3": "RY", "d4": ""},
            reason="RY@c3: all 3 RY checkers are already on the board",
            player=0,
            wall=WALL,
            mono=1.0,
            move="RY@c3",
        )
    )
    entries = [json.loads(line) for line in lines_of(journal.current)]
    assert [e["type"] for e in entries] == ["start", "illegal"]
    header = entries[0]
    assert header["game"] == "tessere" and header["params"]["move_seconds"] == 60
    assert header["clock"]["mode"] == "move"
    assert header["players"] == ["Player 1", "Player 2"]
    assert header["id"] == "20240501-143012-tessere"


def test_ids_are_unique(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    assert new_game_id(WALL, "morris") == "20240501-143012-morris"
    journal.games.mkdir()
    (journal.games / "20240501-143012-morris.jsonl").write_text("")
    assert journal.new_id(WALL, "morris") == "20240501-143012-morris-2"


def test_a_new_id_is_not_the_game_in_progresss(tmp_path: Path) -> None:
    # 'new' within a game's first second: the next id was computed before the game in
    # progress was filed, so both games had one id (filed as ID and ID-2, the second's
    # header still saying ID: an event's results keyed by it merged the two).
    journal = Journal(tmp_path)
    game = new_game("morris")
    journal.begin(StartEntry.of(game, game_id=journal.new_id(WALL, "morris"), wall=WALL))
    second = journal.new_id(WALL, "morris")
    assert second == "20240501-143012-morris-2"
    journal.file()
    journal.begin(StartEntry.of(game, game_id=second, wall=WALL))
    assert journal.new_id(WALL, "morris") == "20240501-143012-morris-3"


# --------------------------------------------------------------------- resume
def test_resume_rebuilds_the_game_and_the_clock(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    assert journal.resume() is None
    game = new_game("tessere")
    clock = Clock(ClockSpec("sudden-death", minutes=5), game_move_seconds=game.move_seconds)
    begin(journal, game, clock.spec)
    clock.start(0, 0.0)
    play(journal, game, "G@a1", "YG@e5")
    journal.append(ClockEntry(clock.to_dict(7.0), WALL, 7.0))

    record = journal.resume()
    assert record is not None
    assert record.lines == (2, 3, 4)
    again = replay(record)
    assert again.game.to_dict() == game.to_dict()
    assert again.clock is not None
    restored = Clock.from_dict(again.clock, now=500.0)
    assert restored.remaining(0, 500.0) == 293.0
    assert again.result is None


def test_power_cut_mid_line_loses_only_that_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1", "YG@e5")
    whole = journal.current.read_bytes()
    journal.current.write_bytes(whole[:-25])  # the last action, cut mid-write

    with caplog.at_level(logging.WARNING, logger="tavola.journal"):
        record = journal.resume()
    assert record is not None
    assert moves(record) == ["G@a1"]
    assert "unfinished last line 3" in caplog.text
    # The torn bytes are cut off, so the next append starts on a line of its own.
    assert journal.current.read_bytes() == whole[: whole.rindex(b"\n", 0, -1) + 1]
    game.undo()
    play(journal, game, "GB@e1")
    record = journal.resume()
    assert record is not None
    assert moves(record) == ["G@a1", "GB@e1"]


def test_a_zero_filled_tail_is_a_torn_line(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1")
    with journal.current.open("ab") as f:
        f.write(b"\x00" * 512)  # what ext4 can leave after a power cut
    record = journal.resume()
    assert record is not None and len(record.entries) == 1


def test_a_torn_header_means_no_game(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    begin(journal, new_game("tessere"))
    journal.current.write_bytes(journal.current.read_bytes()[:30])
    assert journal.resume() is None
    assert not journal.in_progress()
    begin(journal, new_game("tessere"))  # a fresh start works


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1")
    journal.current.write_bytes(journal.current.read_bytes().rstrip(b"\n"))
    record = journal.resume()
    assert record is not None and len(record.entries) == 1
    assert journal.current.read_bytes().endswith(b"}\n")


@pytest.mark.parametrize("bad", [b'{"type":"action","mo\n', b"\x00" * 4096 + b"\n"])
def test_a_corrupt_middle_line_keeps_the_game_before_it_and_the_file(
    tmp_path: Path, bad: bytes
) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1", "YG@e5", "GB@e1")
    lines = journal.current.read_bytes().splitlines(keepends=True)
    lines[2] = bad  # a torn write, or a block of NULs a power cut left, then more lines
    journal.current.write_bytes(b"".join(lines))
    content = journal.current.read_bytes()

    record = journal.resume()
    assert record is not None and moves(record) == ["G@a1"]  # every line before it
    (kept,) = tmp_path.glob("current.corrupt-*.jsonl")
    assert kept.read_bytes() == content  # the whole file, for a person to look at
    assert journal.current.read_bytes() == b"".join(lines[:2])
    play(journal, game.__class__(**game.options), "G@a1")  # and the game goes on
    assert moves(journal.resume() or record) == ["G@a1", "G@a1"]


def test_a_blank_line_and_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1", "YG@e5")
    lines = journal.current.read_bytes().splitlines(keepends=True)
    edited = b"\xef\xbb\xbf" + lines[0] + b"\n" + lines[1] + b"  \r\n" + lines[2]
    journal.current.write_bytes(edited)  # as a text editor may save it
    record = journal.resume()
    assert record is not None and moves(record) == ["G@a1", "YG@e5"]
    assert record.lines == (3, 5)
    assert not list(tmp_path.glob("current.corrupt-*"))


def test_a_header_that_does_not_read_is_an_error(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    tmp_path.joinpath("current.jsonl").write_bytes(b"\x00\x00\n{}\n")
    with pytest.raises(JournalError, match="line 1 is unreadable"):
        journal.resume()
    kept = journal.set_aside()
    assert kept.name.startswith("current.corrupt-") and kept.suffix == ".jsonl"
    assert not journal.current.exists()
    assert journal.resume() is None


def test_a_failed_write_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tavola import journal as journal_module

    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1")
    before = journal.current.read_bytes()
    real = journal_module._write_all

    def half_then_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal_module, "_write_all", half_then_full)
    with pytest.raises(OSError, match="No space"):
        journal.append(action_entry("YG@e5", player=1, ply=2, wall=WALL, now=0.0))
    assert journal.current.read_bytes() == before  # no half line left behind
    monkeypatch.setattr(journal_module, "_write_all", real)
    journal.append(action_entry("YG@e5", player=1, ply=2, wall=WALL, now=0.0))
    record = journal.resume()
    assert record is not None and moves(record) == ["G@a1", "YG@e5"]


def test_set_aside_never_overwrites(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    kept = []
    for _ in range(2):
        begin(journal, new_game("tessere"))
        os.utime(journal.current, (WALL, WALL))
        kept.append(journal.set_aside())
    assert kept[0].name == "current.corrupt-20240501-143012.jsonl"
    assert kept[1].name == "current.corrupt-20240501-143012-2.jsonl"


def test_a_file_without_header_is_an_error(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    tmp_path.joinpath("current.jsonl").write_text('{"type":"action","move":"G@a1","player":0}\n{}\n')
    with pytest.raises(JournalError, match="line 1 is 'action'"):
        journal.resume()


# --------------------------------------------------------------------- replay
def test_replay_applies_takebacks_and_timeouts(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere", on_timeout="pass")
    begin(journal, game)
    play(journal, game, "G@a1", "YG@e5")
    undone = game.undo()
    journal.append(UndoEntry(str(undone), 1, WALL, 3.0))
    before = len(game.history)
    game.time_out(1)  # the pass policy: the game plays "pass" for player 1 by itself
    played = game.history[before:]
    journal.append(TimeoutEntry(1, "move", WALL, 60.0, played=tuple(map(str, played))))
    play(journal, game, "B@b1")
    record = journal.resume()
    assert record is not None
    again = replay(record)
    assert [str(m) for m in again.game.history] == ["G@a1", "pass", "B@b1"]
    assert again.game.current_player == 1
    header = record.header
    text = export_text(record)
    assert text.endswith("\n1. G@a1 pass {Player 2: move time out} 2. B@b1 *\n")
    # A session that journalled the timeout without what the game played is caught.
    silent = (*record.entries[:3], TimeoutEntry(1, "move", WALL, 60.0))
    with pytest.raises(RecordError, match=r"line 5: timeout does not apply.*\['pass'\]"):
        replay(Record(header, silent))


def test_replay_names_the_line_that_does_not_apply(tmp_path: Path) -> None:
    header = StartEntry.of(new_game("tessere"), game_id="x", wall=WALL)
    entries = [
        action_entry("G@a1", player=0, ply=1, wall=WALL, now=0.0),
        action_entry("G@b1", player=1, ply=2, wall=WALL, now=0.0),
    ]
    with pytest.raises(RecordError, match=r"line 3: action 'G@b1' does not apply"):
        replay(Record(header, tuple(entries)))
    wrong_player = (action_entry("G@a1", player=1, ply=1, wall=WALL, now=0.0),)
    with pytest.raises(RecordError, match=r"line 2.*player 0 is to move"):
        replay(Record(header, wrong_player))
    bad_undo = (entries[0], undo_entry("R@c3", player=0, wall=WALL, now=0.0))
    with pytest.raises(RecordError, match=r"line 3.*not 'R@c3'"):
        replay(Record(header, bad_undo))
    with pytest.raises(RecordError, match="line 1: cannot set up 'chess'"):
        replay(Record(dataclasses.replace(header, game="chess"), ()))


def test_replay_from_a_set_up_position() -> None:
    game = new_game("tessere")
    for text in ("G@a1", "YG@e5"):
        game.apply(game.parse_move(text))
    game.set_position(game.to_dict()["state"])
    header = StartEntry.of(game, game_id="x", wall=WALL)
    assert header.start is not None
    again = replay(Record(header, (action_entry("GB@e1", player=0, ply=1, wall=WALL, now=0.0),)))
    assert again.game.view()["a1"] == "G"
    assert [str(m) for m in again.game.history] == ["GB@e1"]


# --------------------------------------------------------------------- records
def finished_tessere(journal: Journal) -> str:
    game = new_game("tessere", diagonals="all")
    game_id = begin(journal, game)
    play(journal, game, "G@a1", "YG@e5", "GB@e1", "RYGB@a5")
    outcome = game.outcome()
    assert outcome is not None
    journal.finish(ResultEntry.of(outcome, 2, wall=WALL + 60, now=60.0))
    return game_id


def test_finish_files_the_game_and_lists_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    assert journal.records() == []
    game_id = finished_tessere(journal)
    assert not journal.current.exists()
    assert (journal.games / f"{game_id}.jsonl").is_file()
    (summary,) = journal.records()
    assert (summary.id, summary.game, summary.variant) == (game_id, "tessere", "")
    assert (summary.date, summary.score, summary.reason, summary.actions) == (
        "2024-05-01 14:30",
        "0-1",
        "line",
        4,
    )
    record = journal.load(game_id)
    assert record.result is not None and record.result.score == "0-1"


def test_games_started_within_one_second_are_listed_in_the_order_they_started(
        tmp_path: Path) -> None:
    """Three quick `new`s share a second, so their ids are X, X-2 ... X-11: by name that is
    X-10, X-11, X-2, ..., X ('-' sorts before '.jsonl'); the list promises oldest first."""
    journal = Journal(tmp_path)
    for n in range(11):
        game = new_game("morris")
        wall = WALL + n / 20
        journal.begin(StartEntry.of(game, game_id=journal.new_id(wall, "morris"), wall=wall))
        journal.append(ResultEntry.of(None, 2, wall=wall, now=0.0, reason=f"game {n}"))
        journal.file()
    assert [r.reason for r in journal.records()] == [f"game {n}" for n in range(11)]
    assert journal.records()[-1].id == "20240501-143012-morris-11"


def test_resume_files_a_game_that_ended_during_finish(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    journal.append(ResultEntry.of(None, 2, wall=WALL, now=1.0, reason="abandoned at start"))
    assert journal.resume() is None
    assert [r.reason for r in journal.records()] == ["abandoned at start"]


def test_records_leave_out_unreadable_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(tmp_path)
    finished_tessere(journal)
    (journal.games / "broken.jsonl").write_text("{nope\n")
    with caplog.at_level(logging.WARNING):
        assert len(journal.records()) == 1
    assert "broken.jsonl: not listed" in caplog.text


def test_load_refuses_unknown_ids_and_paths(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    finished_tessere(journal)
    for bad in ("nope", "../current", "/etc/passwd"):
        with pytest.raises(JournalError, match="'tavola games' lists them"):
            journal.load(bad)


def test_load_finds_a_game_put_aside_and_the_game_in_progress(tmp_path: Path) -> None:
    # 'tavola export ID' of a game not over, or put aside, said "no finished game".
    journal = Journal(tmp_path)
    game = new_game("morris")
    journal.begin(StartEntry.of(game, game_id="aside", wall=WALL))
    journal.append(ActionEntry("d2", 0, 1, WALL, 0.0))
    journal.pause()
    journal.begin(StartEntry.of(game, game_id="playing", wall=WALL))
    assert [e.move for e in journal.load("aside").entries if isinstance(e, ActionEntry)] \
        == ["d2"]
    assert journal.load("playing").id == "playing"
    assert '[Result "*"]' in export_text(journal.load("aside"))


def test_export_is_pgn_like(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game_id = finished_tessere(journal)
    assert export_text(journal.load(game_id)) == "\n".join(
        [
            '[Game "tessere"]',
            '[Params "diagonals=all on_timeout=warn move_seconds=60"]',
            '[Date "2024.05.01"]',
            '[Time "14:30:12 UTC"]',
            f'[Id "{game_id}"]',
            '[Players "Player 1, Player 2"]',
            '[Result "0-1"]',
            '[Termination "line"]',
            "",
            "1. G@a1 YG@e5 2. GB@e1 RYGB@a5 0-1",
            "",
        ]
    )


def test_export_groups_a_turn_of_several_actions() -> None:
    game = new_game("morris")
    header = StartEntry.of(game, game_id="m", wall=WALL)
    entries: list[ActionEntry | UndoEntry] = []
    for text in ("a1", "b2", "a4", "d7", "a7", "xb2", "g7", "g1", "b2"):
        player = game.current_player
        game.apply(game.parse_move(text))
        entries.append(action_entry(text, player=player, ply=0, wall=WALL, now=0.0))
    entries.insert(-1, undo_entry("g1", player=0, wall=WALL, now=0.0))
    entries.insert(-1, action_entry("g1", player=0, ply=0, wall=WALL, now=0.0))
    record = Record(header, tuple(entries))
    text = export_text(record)
    assert text.endswith("\n1. a1 b2 2. a4 d7 3. a7xb2 g7 4. g1 b2 *\n")  # morris: one token
    assert '[Variant "' not in text and '[Result "*"]' in text


def test_export_uses_the_games_turn_notation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        Tessere, "turn_notation", staticmethod(lambda texts: "+".join(texts)), raising=False
    )
    header = StartEntry.of(new_game("tessere"), game_id="t", wall=WALL)
    entries = (
        action_entry("G@a1", player=1, ply=1, wall=WALL, now=0.0),
        action_entry("Y@a2", player=1, ply=2, wall=WALL, now=0.0),
        action_entry("B@a3", player=0, ply=3, wall=WALL, now=0.0),
    )
    text = export_text(Record(header, entries))
    assert text.endswith("\n1... G@a1+Y@a2 2. B@a3 *\n")  # first mover not player 0


def test_export_wraps_long_games_without_splitting_moves() -> None:
    header = StartEntry.of(new_game("tessere"), game_id="w", wall=WALL)
    entries = tuple(
        action_entry("a1-a4", player=i % 2, ply=i, wall=WALL, now=0.0) for i in range(60)
    )
    body = export_text(Record(header, entries), width=40).split("\n\n")[1]
    assert all(len(line) <= 40 for line in body.splitlines())
    assert body.count("a1-a4") == 60


# --------------------------------------------------------------------- small pieces
def test_score_and_checkpoints() -> None:
    assert score(Outcome(0, Reason.LINE), 2) == "1-0"
    assert score(Outcome(1, Reason.TIME), 2) == "0-1"
    assert score(Outcome(None, Reason.THREEFOLD_REPETITION), 2) == "1/2-1/2"
    assert score(Outcome(1, Reason.LINE, (1, 3)), 4) == "0-1-0-1"
    assert score(None, 2) == "*"
    assert checkpoint_due(None, 0.0)
    assert not checkpoint_due(10.0, 14.9)
    assert checkpoint_due(10.0, 15.0)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_replays_from_its_journal(tmp_path: Path, name: str) -> None:
    try:
        game = new_game(name)
    except ImportError:
        pytest.skip(f"{name} is not available")
    rng = random.Random(7)
    journal = Journal(tmp_path)
    begin(journal, game)
    for step in range(40):
        if game.outcome() is not None:
            break
        if step % 7 == 6 and game.history:
            undone = game.undo()
            journal.append(UndoEntry(str(undone), game.current_player, WALL, 0.0))
            continue
        player = game.current_player
        game.apply(rng.choice(game.legal_moves()))
        journal.append(
            action_entry(game.history[-1], player=player, ply=len(game.history), wall=WALL, now=0)
        )
    record = journal.resume()
    assert record is not None
    assert replay(record).game.to_dict() == game.to_dict()
    assert export_text(record).split()[-1] == "*"


def test_export_writes_a_draughts_chain_as_one_turn(tmp_path: Path) -> None:
    from tavola.games import new_game

    game = new_game("draughts", variant="russian")
    journal = Journal(tmp_path)
    journal.begin(StartEntry.of(game, game_id="chain", wall=0.0))
    # A seeded random game, journaled action by action, until it has had a chain.
    import random

    rng = random.Random(7)
    chained = False
    while game.outcome() is None and len(game.history) < 200:
        move = rng.choice(game.legal_moves())
        player = game.current_player
        game.apply(move)
        journal.append(action_entry(move, player=player, ply=len(game.history), wall=0.0,
                                    now=0.0))
        texts = [str(m) for m in game.history[-2:]]
        if len(texts) == 2 and "x" in texts[0] and "x" in texts[1] and \
                texts[0].split("x")[-1] == texts[1].split("x")[0]:
            chained = True
    assert chained, "the seeded game has a chain"
    journal.finish(ResultEntry.of(game.outcome(), 2, wall=1.0, now=1.0))
    text = export_text(journal.load("chain"))
    assert any(word.count("x") >= 2 for word in text.split()), text


def test_an_amendment_replays_and_exports_as_the_corrected_actions() -> None:
    game = new_game("morris")
    header = StartEntry.of(game, game_id="m", wall=WALL)
    entries: list[ActionEntry | AmendEntry] = [
        action_entry("d3", player=0, ply=1, wall=WALL, now=0.0),
        AmendEntry(("d3",), ("d2",), 0, 1, WALL, 1.0),
        action_entry("a1", player=1, ply=2, wall=WALL, now=2.0),
    ]
    for entry in entries:
        assert entry_from_json(entry.to_json()) == entry
    record = Record(header, tuple(entries))
    assert [str(m) for m in replay(record).game.history] == ["d2", "a1"]
    assert export_text(record).endswith("\n1. d2 a1 *\n")
    wrong = Record(header, (entries[0], AmendEntry(("d6",), ("d2",), 0, 1, WALL, 1.0)))
    with pytest.raises(RecordError, match=r"line 3: .*the action replaced is 'd3', not 'd6'"):
        replay(wrong)


# --------------------------------------------------------------------- old records
V1 = Path(__file__).parent / "data" / "journal-v1.jsonl"  # written before the typed record


def test_a_record_of_the_first_format_reads_replays_and_round_trips(tmp_path: Path) -> None:
    for line in V1.read_text().splitlines():
        assert entry_from_json(json.loads(line)).to_json() == json.loads(line)
    journal = Journal(tmp_path)
    journal.directory.mkdir(exist_ok=True)
    lines = V1.read_bytes().splitlines(keepends=True)
    journal.current.write_bytes(b"".join(lines[:-1]))  # unfinished: resumes
    record = journal.resume()
    assert record is not None
    again = replay(record)
    assert [str(m) for m in again.game.history] == ["G@a1", "pass", "B@b1"]
    assert again.clock is not None and again.clock["left"] == [238.0, 300.0]
    journal.current.write_bytes(b"".join(lines))  # finished: filed, listed, exported
    assert journal.resume() is None
    (summary,) = journal.records()
    assert (summary.score, summary.reason, summary.actions) == ("1-0", "resignation", 3)
    # The clock after each turn (the mover's time left) as PGN's %clk comment.
    assert export_text(journal.load(summary.id)).replace("\n", " ").endswith(
        "1. G@a1 {[%clk 0:04:58]} pass {[%clk 0:05:00]} {Player 2: move time out} "
        "2. B@b1 {[%clk 0:03:58]} 1-0 ")


def test_an_older_record_naming_its_layout_file_carries_the_layout_from_resume_on(
    tmp_path: Path,
) -> None:
    from importlib import resources

    text = resources.files("tavola.games").joinpath("data", "sequence_kids_layout.toml")
    board = tmp_path / "board.toml"
    board.write_text(text.read_text())
    game = new_game("sequence-kids", cards="declared", layout=board.read_text())
    header = dataclasses.replace(StartEntry.of(game, game_id="old", wall=WALL),
                                 params={**game.options, "layout": str(board)})
    journal = Journal(tmp_path / "state")
    journal.begin(header)  # as the engine wrote it when it read the file itself
    play(journal, game, str(game.legal_moves()[0]))
    record = journal.resume()
    assert record is not None and record.header.params["layout"] == board.read_text()
    board.unlink()  # from now on the file may go: the record has the layout
    record = journal.resume()
    assert record is not None and len(replay(record).game.history) == 1

    journal.current.write_text(encode([header]).decode())  # an old record, file gone
    with pytest.raises(JournalError, match="names a file that cannot be read"):
        journal.resume()


def test_a_withdrawn_result_reopens_the_game_filed_last(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    game = new_game("tessere")
    begin(journal, game)
    play(journal, game, "G@a1", "YG@e5", "GB@e1", "RYGB@a5")
    assert game.outcome() is not None
    filed = journal.finish(ResultEntry.of(game.outcome(), 2, wall=1.0, now=1.0))
    with pytest.raises(ValueError, match="no game filed"):
        Journal(tmp_path).reopen()  # a restarted daemon: that game is no longer the board's
    before = filed.read_bytes()
    journal.reopen()
    assert not filed.exists() and journal.current.read_bytes() == before  # moved, unchanged
    journal.append(WithdrawnEntry("0-1", "line", 2.0, 2.0),
                   undo_entry("RYGB@a5", player=1, wall=2.0, now=2.0))
    record = journal.resume()
    assert record is not None and record.result is None
    again = replay(record).game
    assert again.outcome() is None and [str(m) for m in again.history] == [
        "G@a1", "YG@e5", "GB@e1"]
    with pytest.raises(ValueError, match="in progress"):
        journal.reopen()
