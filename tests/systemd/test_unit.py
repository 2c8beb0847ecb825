"""The systemd unit as install.sh writes it passes `systemd-analyze verify` silently."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "tavola.service"


def render(prefix: Path) -> str:
    """What install.sh installs for ``prefix`` (its sed line, in Python)."""
    return UNIT.read_text().replace("@PREFIX@", str(prefix))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_unit_verifies_without_any_output(tmp_path: Path) -> None:
    prefix = tmp_path / "opt" / "tavola"
    exe = prefix / "venv" / "bin" / "tavola"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    unit = tmp_path / "tavola.service"
    unit.write_text(render(prefix))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_unit_keeps_the_design_rules() -> None:
    text = UNIT.read_text()
    settings = dict(
        line.split("=", 1) for line in text.splitlines() if "=" in line and line[0] != "#"
    )
    assert settings["Type"] == "notify"
    assert settings["Restart"] == "on-failure"
    assert int(settings["WatchdogSec"]) > 0
    assert settings["User"] == "tavola" and settings["User"] != "root"
    assert set(settings["SupplementaryGroups"].split()) == {"gpio", "spi", "dialout", "video"}
    assert settings["StateDirectory"] == "tavola"
    assert "ExecStop" not in settings
    assert settings["NoNewPrivileges"] == "yes" and settings["ProtectSystem"] == "strict"


def test_install_script_is_valid_bash_and_renders_the_prefix() -> None:
    script = ROOT / "systemd" / "install.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    assert 's|@PREFIX@|$prefix|g' in script.read_text()
