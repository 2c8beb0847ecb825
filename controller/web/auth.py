"""The referee's login: the PIN, its rate limit, sessions that expire, CSRF tokens.

Pure apart from :func:`secrets`: time comes in as ``now``. The PIN is compared in constant
time; a client that got it wrong :data:`MAX_FAILURES` times within :data:`WINDOW_SECONDS`
is refused (without checking) until the oldest failure leaves the window, so a 4-digit
PIN takes days to guess, not minutes. A session is a random id in an HttpOnly,
SameSite=Strict cookie; every POST must also carry the session's CSRF token.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field

SESSION_SECONDS = 4 * 3600.0  # a session ends after a long round
MAX_FAILURES = 5
WINDOW_SECONDS = 60.0


@dataclass
class RefereeSession:
    """One logged-in referee: who (the client address), the CSRF token, the expiry."""

    sid: str
    who: str
    csrf: str
    expires: float


class RateLimited(Exception):
    """Too many wrong PINs from this client; ``retry_after`` seconds to wait."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many wrong PINs; try again in {retry_after:.0f} s")
        self.retry_after = retry_after


@dataclass
class Referees:
    """The PIN and the sessions it opened. ``pin`` '' disables the console."""

    pin: str
    session_seconds: float = SESSION_SECONDS
    _sessions: dict[str, RefereeSession] = field(default_factory=dict)
    _failures: dict[str, list[float]] = field(default_factory=dict)

    @property
    def enabled(self) -> bool:
        """Whether a PIN is configured at all."""
        return bool(self.pin)

    def login(self, pin: str, client: str, now: float) -> RefereeSession | None:
        """A new session for the right PIN, None for a wrong one; RateLimited while the
        client is locked out (the PIN is not even compared then)."""
        recent = [t for t in self._failures.get(client, []) if now - t < WINDOW_SECONDS]
        self._failures[client] = recent
        if len(recent) >= MAX_FAILURES:
            raise RateLimited(WINDOW_SECONDS - (now - recent[0]))
        if not self.enabled or not hmac.compare_digest(pin.encode(), self.pin.encode()):
            recent.append(now)
            return None
        self._failures.pop(client, None)
        self._expire(now)
        session = RefereeSession(secrets.token_urlsafe(24), f"referee@{client}",
                                 secrets.token_urlsafe(24), now + self.session_seconds)
        self._sessions[session.sid] = session
        return session

    def session(self, sid: str | None, now: float) -> RefereeSession | None:
        """The live session of cookie ``sid``, or None (unknown or expired)."""
        if not sid:
            return None
        found = self._sessions.get(sid)
        if found is None or found.expires <= now:
            self._sessions.pop(sid, None)
            return None
        return found

    def logout(self, sid: str | None) -> None:
        """End the session ``sid`` (nothing if there is none)."""
        if sid:
            self._sessions.pop(sid, None)

    def _expire(self, now: float) -> None:
        for sid in [s for s, v in self._sessions.items() if v.expires <= now]:
            del self._sessions[sid]


def csrf_ok(session: RefereeSession, token: str) -> bool:
    """Whether a form's ``token`` is this session's CSRF token (constant time)."""
    return hmac.compare_digest(token.encode(), session.csrf.encode())
