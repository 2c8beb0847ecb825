"""Stopping an event connection is bounded (controller/event/publisher.py, stop_task)."""

from __future__ import annotations

import asyncio
import time

from tavola.event.publisher import stop_task


def test_a_connection_whose_goodbye_never_ends_is_stopped_all_the_same() -> None:
    # What aiomqtt 2.5's client exit does on a task's cancellation: wait for the broker's
    # disconnect with no time limit. A task is cancelled once, so awaiting it after one
    # cancel() hangs for ever if that disconnect never comes.
    async def connection() -> None:
        try:
            await asyncio.sleep(3600)  # serving
        finally:
            await asyncio.Event().wait()  # the goodbye that never ends

    async def scenario() -> tuple[bool, float, bool]:
        task = asyncio.create_task(connection())
        await asyncio.sleep(0)
        # The old way, bounded here by the test itself: it does not end.
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=0.2)
        stuck = not done
        start = time.monotonic()
        await stop_task(task, seconds=0.2)
        return stuck, time.monotonic() - start, task.done()

    stuck, took, done = asyncio.run(scenario())
    assert stuck and done and took < 5.0
