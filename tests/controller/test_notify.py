"""sd_notify datagrams, received on a real unix socket as systemd would."""

from __future__ import annotations

import logging
import os
import socket
import threading
from pathlib import Path

import pytest

from tavola.notify import Notifier


def test_ready_status_watchdog_reach_the_socket(notify_socket: tuple[socket.socket, str]) -> None:
    sock, path = notify_socket
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000"})
    assert n.enabled and n.watchdog_interval == 5.0
    n.ready("morris, White to move")
    assert sock.recv(4096) == b"READY=1\nSTATUS=morris, White to move"
    n.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    n.status("Black to move")
    n.status("Black to move")  # unchanged: not sent again
    n.status("board disconnected")
    assert sock.recv(4096) == b"STATUS=Black to move"
    assert sock.recv(4096) == b"STATUS=board disconnected"
    n.close()


def test_abstract_socket_names() -> None:
    name = f"tavola-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    try:
        Notifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert sock.recv(4096) == b"READY=1"
    finally:
        sock.close()


def test_outside_systemd_nothing_happens_and_a_dead_socket_is_not_fatal(tmp_path: Path) -> None:
    n = Notifier({})
    assert not n.enabled and n.watchdog_interval is None and not n.send("READY=1")
    gone = Notifier({"NOTIFY_SOCKET": str(tmp_path / "nobody.sock")})
    assert gone.send("WATCHDOG=1") is False


def test_watchdog_for_another_pid_is_not_ours() -> None:
    n = Notifier({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"})
    assert n.watchdog_interval is None


def test_a_full_socket_never_blocks_the_sender(
    notify_socket: tuple[socket.socket, str], caplog: pytest.LogCaptureFixture
) -> None:
    sock, path = notify_socket  # nobody reads it: its queue fills up
    n = Notifier({"NOTIFY_SOCKET": path})
    sent: list[bool] = []

    def flood() -> None:
        for k in range(5000):
            sent.append(n.send(f"STATUS={k:0200d}"))

    worker = threading.Thread(target=flood, daemon=True)
    with caplog.at_level(logging.WARNING, logger="tavola.notify"):
        worker.start()
        worker.join(10)
    assert not worker.is_alive(), "a full notify socket blocked the daemon"
    assert len(sent) == 5000 and sent[0] and not all(sent)  # some dropped, none waited
    assert caplog.text.count("sd_notify failed") == 1  # one warning, not one per message
    sock.recv(4096)
    assert n.send("WATCHDOG=1")  # room again: it goes through
    n.close()
