"""Files that are never found half written: the few the daemon reads at every start and
a program writes now and then (the morris endgame cache, a camera calibration). The
journal keeps its own, appending, discipline (:mod:`tavola.journal`)."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """``data`` to ``path`` through a temporary file beside it, synced before it replaces
    the old file: a write stopped part way (Ctrl-C, a power cut, a full disk) leaves the
    old file as it was, never a file cut short."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
