"""Fixtures for the controller tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """A datagram socket where systemd would listen: (socket, its path for NOTIFY_SOCKET)."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    yield sock, path
    sock.close()
