"""``python -m tests.controller.faulty_journal run ...``: the ``tavola`` command whose journal
writes fail with "No space left on device" while a file ``FAULT`` exists in the journal's
directory. The soak test uses it to make the disk fail under a running daemon."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from tavola import journal
from tavola.cli import main

_real_write_all = journal._write_all


def _write_all(fd: int, data: bytes) -> None:
    folder = Path(os.readlink(f"/proc/self/fd/{fd}")).parent
    if (folder / "FAULT").exists():
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    _real_write_all(fd, data)


if __name__ == "__main__":
    journal._write_all = _write_all
    sys.exit(main(sys.argv[1:]))
