"""The event's MQTT topics and messages (docs/event.md), as names and JSON. Pure.

Every board owns ``tavola/v1/<event>/<table>/...``: ``state`` (retained), ``move``,
``clock``, ``alert``, ``presence`` (retained; the last will says ``offline``) and ``ack``;
the arbiter alone writes its ``cmd``. Each message is one JSON object with ``v`` (the
format's version), so a consumer can refuse what it does not understand.

>>> t = Topics("club-2026", "7")
>>> t.state, t.cmd
('tavola/v1/club-2026/7/state', 'tavola/v1/club-2026/7/cmd')
>>> parse_topic("tavola/v1/club-2026/7/move")
('club-2026', '7', 'move')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

ROOT = "tavola/v1"
VERSION = 1
KINDS = ("state", "move", "clock", "alert", "presence", "cmd", "ack")
# QoS per kind (docs/event.md says why): what a late or reconnecting consumer must get is
# QoS 1 (at least once; the ply and the command id make a repeat harmless); the clocks'
# ticking is QoS 0, the next one replaces a lost one.
QOS = {"state": 1, "move": 1, "clock": 0, "alert": 1, "presence": 1, "cmd": 1, "ack": 1}
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # no MQTT wildcard or level separator
ONLINE, OFFLINE = "online", "offline"
MAX_LAYOUT_CHARS = 65_536  # a board's own layout in its state: longer is not sent


def check_name(value: str, what: str) -> str:
    """``value`` if it can be one topic level (an event id, a table), else ValueError."""
    if not NAME.fullmatch(value):
        raise ValueError(f"{what} = {value!r}: use 1 to 64 letters, digits, '-', '_' or '.' "
                         f"(it is a level of the MQTT topic)")
    return value


@dataclass(frozen=True)
class Topics:
    """The topics of one table of one event."""

    event: str
    table: str

    def of(self, kind: str) -> str:
        """The topic of ``kind`` (one of :data:`KINDS`)."""
        return f"{ROOT}/{self.event}/{self.table}/{kind}"

    @property
    def state(self) -> str:
        """Retained: everything a late console needs about the table."""
        return self.of("state")

    @property
    def move(self) -> str:
        """One message per accepted action or takeback, with its ply."""
        return self.of("move")

    @property
    def clock(self) -> str:
        """The clocks while they run, about once a second."""
        return self.of("clock")

    @property
    def alert(self) -> str:
        """Something the arbiter should look at."""
        return self.of("alert")

    @property
    def presence(self) -> str:
        """Retained ``online`` / ``offline`` (the board's last will)."""
        return self.of("presence")

    @property
    def cmd(self) -> str:
        """The arbiter's commands to this board."""
        return self.of("cmd")

    @property
    def ack(self) -> str:
        """The board's answer to each command."""
        return self.of("ack")


def event_filter(event: str) -> str:
    """The subscription that sees every table of ``event``."""
    return f"{ROOT}/{event}/+/+"


def parse_topic(topic: str) -> tuple[str, str, str] | None:
    """(event, table, kind) of one of our topics, else None."""
    parts = topic.split("/")
    if len(parts) != 5 or "/".join(parts[:2]) != ROOT or parts[4] not in KINDS:
        return None
    return parts[2], parts[3], parts[4]


def encode(message: dict[str, Any]) -> bytes:
    """A message as its payload, with the format's version."""
    return json.dumps({"v": VERSION, **message}, separators=(",", ":")).encode()


def decode(payload: bytes | bytearray | str) -> dict[str, Any] | None:
    """A payload as a message; None if it is not one of ours (bad JSON, other version)."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        return None
    return data


@dataclass(frozen=True)
class Command:
    """One arbiter's command: a referee action (tavola.web.referee.ACTIONS) by ``who``,
    with ``id`` so that a repeat is applied once."""

    id: str
    action: str
    fields: dict[str, str]
    who: str

    def to_message(self, wall: float) -> dict[str, Any]:
        """The ``cmd`` message."""
        return {"id": self.id, "action": self.action, "fields": self.fields, "who": self.who,
                "wall": wall}

    @classmethod
    def from_message(cls, data: dict[str, Any]) -> Command:
        """The command of a ``cmd`` message; ValueError naming what is wrong."""
        ident, action, who = data.get("id"), data.get("action"), data.get("who", "arbiter")
        fields = data.get("fields", {})
        if not isinstance(ident, str) or not 1 <= len(ident) <= 64:
            raise ValueError("a command needs an id (a string of 1 to 64 characters)")
        if not isinstance(action, str) or not isinstance(who, str):
            raise ValueError("a command needs an action and who as strings")
        if not isinstance(fields, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in fields.items()):
            raise ValueError("a command's fields must map strings to strings")
        return cls(ident, action, dict(fields), who[:80])
