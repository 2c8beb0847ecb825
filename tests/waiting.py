"""Waiting in tests for something the daemon does on its loop or in a worker process.

A test fails when the wait runs out, never on how long it took: the patience is generous
because the machines that run the suite are shared and may be loaded by other jobs (an
engine search in a worker process can then take tens of seconds), and only a failing test
ever waits that long.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

PATIENCE = 120.0  # seconds


async def until(condition: Callable[[], bool], seconds: float = PATIENCE,
                why: Callable[[], str] | None = None) -> None:
    """Poll ``condition`` on the running loop until it holds; AssertionError (with
    ``why()`` if given) after ``seconds``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not condition():
        if loop.time() > end:
            raise AssertionError(why() if why else "timed out waiting")
        await asyncio.sleep(0.01)
