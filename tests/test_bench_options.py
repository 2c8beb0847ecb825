"""The benchmarks that took their arguments by hand now refuse a bad one before any work,
naming it, where they crashed with a traceback (sensing_serial), ran a minute ignoring it
(sensing) or printed an empty table (paper_clip)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bench import paper_clip, sensing, sensing_serial


@pytest.mark.parametrize(("main", "argv", "said"), [
    (sensing_serial.main, ["--help"], None),
    (sensing_serial.main, ["many"], "invalid int value: 'many'"),
    (sensing_serial.main, ["0"], "samples: at least 1"),
    (sensing.main, ["--frames", "9"], "unrecognized arguments: --frames 9"),
    (paper_clip.main, ["--verbose"], "unrecognized arguments: --verbose"),
])
def test_a_bad_argument_is_refused_before_any_work(
        main: Callable[[list[str]], None], argv: list[str], said: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    captured = capsys.readouterr()
    if said is None:  # --help: the usage, and success
        assert stopped.value.code == 0 and "usage:" in captured.out
    else:
        assert stopped.value.code == 2 and said in captured.err


def test_paper_clip_names_a_directory_without_frames(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        paper_clip.main([str(tmp_path)])
    assert f"{tmp_path}: no truth files (*.json) there" in capsys.readouterr().err
