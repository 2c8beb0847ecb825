"""Soak: the daemon as a process, fed noisy play at the console, killed with SIGKILL at random
moments, restarted, its disk failing now and then, switching games; after every kill the
journal must replay to exactly the actions the daemon had accepted.

"Accepted" is what the daemon announced ("White: d2", said only once the action is on disk);
the one batch being written when the kill came may be on disk without its announcement.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tavola.games import Game
from tavola.record import (
    ActionEntry,
    Entry,
    Record,
    ResultEntry,
    StartEntry,
    entry_from_json,
    replay,
)

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("TAVOLA_SOAK_KILLS", "50"))
ANNOUNCED = re.compile(r"^INFO tavola: (White|Black|Player 1|Player 2): (\S+)$")
ENV = {"TAVOLA_INFERENCE_SETTLE": "0.05", "TAVOLA_INFERENCE_GRACE": "5",
       "TAVOLA_LOG_LEVEL": "info", "TAVOLA_LEDS": "none"}


def read_entries(path: Path) -> list[Entry]:
    """The oracle's own reading of a journal file: every complete line (a torn last line,
    never confirmed, is left out). Any other bad line fails the test."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    complete, torn = lines[:-1], lines[-1]
    entries = [entry_from_json(json.loads(line)) for line in complete if line.strip()]
    if torn.strip():
        with contextlib.suppress(ValueError):
            entries.append(entry_from_json(json.loads(torn)))
    return entries


def game_file(state: Path, game_id: str) -> Path | None:
    for path in (state / "current.jsonl", state / "games" / f"{game_id}.jsonl",
                 state / "paused" / f"{game_id}.jsonl"):
        entries = read_entries(path)
        if entries and isinstance(entries[0], StartEntry) and entries[0].id == game_id:
            return path
    return None


def moves_of(entries: list[Entry]) -> list[str]:
    return [e.move for e in entries if isinstance(e, ActionEntry)]


def events_for(game: Game[Any], rng: random.Random) -> list[str]:
    """Simulator commands that play a random legal action as a hand would, with noise."""
    capability = game.needs
    move = rng.choice(game.legal_moves())
    before = game.view(capability)
    probe = game.copy()
    probe.apply(move)
    after = probe.view("identity")
    seen = probe.view(capability)
    out = [f"lift {c}" for c in sorted(before) if before[c] and before[c] != seen[c]]
    for c in sorted(after):
        if after[c] and before[c] != seen[c]:
            token = f" {after[c]}" if capability == "identity" else ""
            out.append(f"{rng.choice(['place', 'place', 'bounce'])} {c}{token}")
    roll = rng.random()
    if roll < 0.2:
        out.insert(rng.randrange(len(out) + 1), "noise")
    elif roll < 0.3:
        cell = rng.choice([c for c in before if before[c]] or list(before))
        out[:0] = [f"knock {cell}", "wait 0.05", f"knock {cell}"]  # off and back
    return out


class Daemon:
    """One ``tavola run`` with the console on a pipe and its log collected."""

    def __init__(self, state: Path, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.controller.faulty_journal", "run", "--journal",
             str(state), "--console", "on", *args],
            cwd=ROOT, env={**os.environ, **ENV}, stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def said(self, text: str) -> bool:
        return any(text in line for line in list(self.lines))

    def announced(self) -> list[str]:
        return [m.group(2) for line in list(self.lines) if (m := ANNOUNCED.match(line))]

    def type(self, line: str) -> bool:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.reader.join(10)


class Round:
    """One life of the daemon: start, play until a random moment, the disk failing in
    half of them for a while; then the test kills it."""

    def __init__(self, rng: random.Random, state: Path, args: list[str]) -> None:
        self.rng, self.state, self.fault = rng, state, state / "FAULT"
        self.daemon = Daemon(state, args)
        # A fifth of the kills come during start-up, the rest while the game is played.
        self.during_start = rng.random() < 0.2
        self.deadline = time.monotonic() + (rng.uniform(0.0, 1.0) if self.during_start
                                            else 30.0)
        self.fault_wanted = rng.random() < 0.5
        self.fault_at: float | None = None
        self.game_id = ""
        self.before: list[str] = []  # the game's actions when it was resumed

    def disk(self) -> None:
        """The disk fails at ``fault_at`` and works again at the next ``fault_at``."""
        if self.fault_at is None or time.monotonic() < self.fault_at:
            return
        if self.fault.exists():
            self.fault.unlink()
            self.fault_at = None
        else:
            self.fault.touch()
            self.fault_at = time.monotonic() + self.rng.uniform(0.3, 1.0)

    def alive(self) -> bool:
        self.disk()
        return time.monotonic() < self.deadline and self.daemon.proc.poll() is None

    def play(self) -> None:
        game: Game[Any] | None = None
        while self.alive():
            if game is None:
                if not self.daemon.said("Type sensor events"):
                    time.sleep(0.01)
                    continue
                entries = read_entries(self.state / "current.jsonl")
                start = entries[0]
                assert isinstance(start, StartEntry)
                self.game_id, self.before = start.id, moves_of(entries)
                game = replay(Record.of(entries)).game
                if not self.during_start:
                    self.deadline = time.monotonic() + self.rng.uniform(0.2, 1.5)
                if self.fault_wanted:  # the disk fails a moment after the start
                    self.fault_at = time.monotonic() + self.rng.uniform(0.0, 0.2)
            if game.outcome() is not None:
                time.sleep(0.01)
                continue
            for line in events_for(game, self.rng):
                self.daemon.type(line)
            accepted = len(self.daemon.announced())
            while len(self.daemon.announced()) == accepted and self.alive():
                time.sleep(0.01)
            path = game_file(self.state, self.game_id)
            if len(self.daemon.announced()) > accepted and path is not None:
                game = replay(Record.of(read_entries(path))).game


def chain(seed: int, state: Path, kills: int) -> tuple[int, int]:
    """``kills`` lives of a daemon on one journal; (rounds that met a failing disk,
    game switches)."""
    rng = random.Random(seed)
    paused: str | None = None
    faults_seen = switches = 0
    for number in range(kills):
        args: list[str] = []
        current = read_entries(state / "current.jsonl")
        header = current[0] if current and isinstance(current[0], StartEntry) else None
        ended = any(isinstance(e, ResultEntry) for e in current)  # filed at the next start
        if number % 10 == 4 and header is not None and header.game == "morris" and not ended:
            args, paused = ["--game", "tessere"], header.id  # switch: morris waits
            switches += 1
        elif number % 10 == 7 and paused is not None:
            args, paused = ["--resume", paused], None  # and comes back
        round_ = Round(rng, state, args)
        round_.play()
        daemon = round_.daemon
        exited = daemon.proc.poll()
        daemon.kill()
        faults_seen += daemon.said("Cannot record the game")
        round_.fault.unlink(missing_ok=True)
        where = f"seed {seed}, round {number}: " + "\n".join(daemon.lines[-15:])
        assert exited is None, where  # it never died by itself
        assert not list(state.glob("current.corrupt-*")), f"set aside: {where}"
        if not round_.game_id:
            continue  # killed before it was ready
        path = game_file(state, round_.game_id)
        assert path is not None, f"game {round_.game_id} vanished; {where}"
        entries = read_entries(path)
        replay(Record.of(entries))  # the journal replays, whatever the moment of the kill
        recorded = moves_of(entries)
        announced = daemon.announced()
        assert recorded[: len(round_.before)] == round_.before, f"changed; {where}"
        new = recorded[len(round_.before):]
        assert new[: len(announced)] == announced, f"{new} {announced}; {where}"
        assert len(new) - len(announced) <= 2, f"{new} {announced}; {where}"  # in flight
    return faults_seen, switches


def test_kills_faults_and_switches_never_lose_or_invent_an_action(tmp_path: Path) -> None:
    # Two boards at once, each its own journal: half the wall time on two cores.
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(chain, seed, tmp_path / f"board{seed}", KILLS // 2)
                for seed in (2024, 2025)]
        results = [run.result() for run in runs]
    assert sum(faults for faults, _ in results) >= 3  # the disk failed under the daemon
    assert all(switches >= 1 for _, switches in results)
