"""The daemon's settings: defaults, a TOML file, ``TAVOLA_*`` environment, CLI flags.

:func:`load_config` layers them in that order (a later layer wins) into a frozen
:class:`Config`. Every problem is a :class:`ConfigError` whose message names where the
value came from (the file, the environment variable or the flag), the key
(``clock.increment``), the value and the fix. docs/config.md lists every key.

>>> cfg = load_config(None, {"TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5",
...                          "TAVOLA_CLOCK_INCREMENT": "3", "HOME": "/home/pi"},
...                   {"game": "tessere"})
>>> cfg.game.name, cfg.clock.increment, str(cfg.journal.directory)
('tessere', 3.0, '/home/pi/.local/state/tavola')

A bad value stops start-up with a message like ``TAVOLA_INFERENCE_SETTLE: inference.settle
= '300': must be at most 5; seconds, not milliseconds (e.g. settle = 0.3)``.

Backend names are only checked to be non-empty here: the hardware registry checks them
at start-up, where it can also say what to install.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from tavola.ai import LEVELS
from tavola.clock import CLOCK_MODES, ClockSpec, ClockSpecError
from tavola.games import GAMES, Game, game_class
from tavola.hints import ComputerPlayer, HintSettings
from tavola.inference import GRACE_SECONDS, SETTLE_SECONDS
from tavola.session import POLICIES, Policy

LOG_LEVELS: tuple[str, ...] = ("debug", "info", "warning", "error")
FLAGS: dict[str, tuple[str, str]] = {  # CLI override name -> (section, key)
    "game": ("game", "name"),
    "variant": ("game", "variant"),
    "sensor": ("sensor", "backend"),
    "leds": ("leds", "backend"),
}
ENV_SHORT: dict[str, tuple[str, str]] = {f"TAVOLA_{k.upper()}": v for k, v in FLAGS.items()}
# The ``tavola run`` flags that set a dotted key: an error names the flag the user typed.
DOTTED_FLAGS: dict[str, str] = {
    "journal.directory": "--journal",
    "game.opponent": "--opponent",
    "game.opponent_level": "--level",
    "game.opponent_side": "--ai-plays",
}
ENV_CONFIG = "TAVOLA_CONFIG"


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


class ConfigError(ValueError):
    """A setting that stops start-up; the message says where, which key, what value, the fix."""


# --------------------------------------------------------------------- the sections
@dataclass(frozen=True)
class GameConfig:
    """``[game]``: what is played and how the daemon behaves as a referee."""

    name: str = "morris"
    variant: str = ""  # "" = the game's default rule set
    params: Mapping[str, Any] = field(
        default_factory=_empty
    )  # game parameters, checked by the game
    policy: Policy = "teaching"
    hints: bool = True
    opponent: ComputerPlayer | None = None  # opponent = "ai": the engine plays a side

    def new_game(self) -> Game[Any]:
        """A new game with these settings (already validated by :func:`load_config`)."""
        from tavola.games import new_game

        extra = {"variant": self.variant} if self.variant else {}
        return new_game(self.name, **extra, **dict(self.params))


@dataclass(frozen=True)
class SensorConfig:
    """``[sensor]``: the sensor backend by registry name, and its options."""

    backend: str = "sim"
    options: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True)
class LedsConfig:
    """``[leds]``: the LED backend by registry name, its brightness and options."""

    backend: str = "sim"
    brightness: float = 0.3
    options: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True)
class LayoutConfig:
    """``[layout]``: the board geometry file; None = the game's default layout."""

    file: Path | None = None


@dataclass(frozen=True)
class InferenceConfig:
    """``[inference]``: how long a reading must hold still, and the grace before a mismatch."""

    settle: float = SETTLE_SECONDS
    grace: float = GRACE_SECONDS


@dataclass(frozen=True)
class JournalConfig:
    """``[journal]``: where the game in progress and the finished games are kept."""

    directory: Path


@dataclass(frozen=True)
class LogConfig:
    """``[log]``: the log level."""

    level: str = "info"


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the live view and referee console (docs/web.md); off unless enabled.

    ``pin`` is the referee's PIN, read from ``pin`` or ``pin_file`` ('' = no console).
    """

    enabled: bool = False
    host: str = "127.0.0.1"  # loopback by default: a LAN address is an explicit choice
    port: int = 8080
    pin: str = field(default="", repr=False)


@dataclass(frozen=True)
class EventConfig:
    """``[event]``: publish this board's table to a club event's MQTT broker, and the
    broker and console settings of ``tavola event`` (docs/event.md); off unless enabled.

    ``password`` is read from ``password`` or ``password_file``.
    """

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 1883
    tls: bool = False
    ca_file: Path | None = None  # TLS: the broker's CA (None: the system's CAs)
    username: str = ""
    password: str = field(default="", repr=False)
    event: str = ""
    table: str = ""
    console_host: str = "127.0.0.1"  # `tavola event`'s page
    console_port: int = 8090


@dataclass(frozen=True)
class Config:
    """The whole configuration, one frozen value per section.

    ``path`` is the config file read (None: none); ``sources`` maps every key that was set
    (``"clock.minutes"``) to where it came from, for ``--debug`` and error messages.
    """

    game: GameConfig
    sensor: SensorConfig
    leds: LedsConfig
    layout: LayoutConfig
    inference: InferenceConfig
    clock: ClockSpec
    journal: JournalConfig
    log: LogConfig
    web: WebConfig = field(default_factory=WebConfig)
    hints: HintSettings = field(default_factory=HintSettings)
    event: EventConfig = field(default_factory=EventConfig)
    path: Path | None = None
    sources: Mapping[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------- the schema
Kind = Literal["str", "name", "float", "int", "bool", "table", "choice", "path"]


@dataclass(frozen=True)
class Key:
    """One config key: its type, default, limits and an example for error messages."""

    kind: Kind
    default: Any
    example: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    hint: str = ""  # said when the value is out of range


SCHEMA: dict[str, dict[str, Key]] = {
    "game": {
        "name": Key("name", "morris", 'name = "draughts"'),
        "variant": Key("str", "", 'variant = "russian"'),
        "params": Key("table", {}, "params = { flying = false }"),
        "policy": Key("choice", "teaching", 'policy = "arbiter"', POLICIES),
        "hints": Key("bool", True, "hints = false"),
        "opponent": Key("choice", "none", 'opponent = "ai"', ("none", "ai")),
        "opponent_level": Key("choice", "club", 'opponent_level = "beginner"', tuple(LEVELS)),
        "opponent_side": Key("int", 1, "opponent_side = 1", minimum=0, maximum=3,
                             hint="the player the computer plays, 0 = the first"),
    },
    "hints": {
        "level": Key("choice", "strongest", 'level = "club"', tuple(LEVELS)),
        "per_turn": Key("int", 3, "per_turn = 3", minimum=1, maximum=20),
        "nodes": Key("int", 0, "nodes = 12000", minimum=0, maximum=10_000_000,
                     hint="positions searched; 0 = the level's own budget"),
        "seconds": Key("float", 1.0, "seconds = 1", minimum=0, maximum=60,
                       hint="a cap on the search time; 0 = none"),
        "gesture": Key("bool", True, "gesture = false"),
        "cell": Key("str", "", 'cell = "z1"'),
        "arbiter": Key("bool", False, "arbiter = true"),
        "feedback": Key("bool", False, "feedback = true"),
        "threshold": Key("int", 150, "threshold = 150", minimum=1, maximum=100_000,
                         hint="hundredths of a man"),
    },
    "sensor": {
        "backend": Key("name", "sim", 'backend = "reed"'),
        "options": Key("table", {}, 'options = { port = "/dev/ttyACM0" }'),
    },
    "leds": {
        "backend": Key("name", "sim", 'backend = "neopixel"'),
        "brightness": Key(
            "float",
            0.3,
            "brightness = 0.3",
            minimum=0,
            maximum=1,
            hint="a fraction of full brightness",
        ),
        "options": Key("table", {}, 'options = { name = "value" }'),
    },
    "layout": {"file": Key("path", "", 'file = "/etc/tavola/my-board.toml"')},
    "inference": {
        "settle": Key(
            "float", SETTLE_SECONDS, "settle = 0.3", minimum=0, maximum=5,
            hint="seconds, not milliseconds",
        ),
        "grace": Key(
            "float", GRACE_SECONDS, "grace = 3", minimum=0, maximum=60,
            hint="seconds, not milliseconds",
        ),
    },
    "clock": {
        "mode": Key("choice", "none", 'mode = "fischer"', CLOCK_MODES),
        "move_seconds": Key("float", 0.0, "move_seconds = 60", minimum=0),
        "minutes": Key("float", 0.0, "minutes = 5", minimum=0),
        "increment": Key("float", 0.0, "increment = 3", minimum=0, hint="seconds per move"),
        "moves": Key("int", 0, "moves = 40", minimum=0),
        "then_minutes": Key("float", 0.0, "then_minutes = 30", minimum=0),
        "then_moves": Key("int", 0, "then_moves = 0", minimum=0),
    },
    "journal": {"directory": Key("path", "", 'directory = "/var/lib/tavola"')},
    "log": {"level": Key("choice", "info", 'level = "debug"', LOG_LEVELS)},
    "web": {
        "enabled": Key("bool", False, "enabled = true"),
        "listen": Key("str", "127.0.0.1:8080", 'listen = "0.0.0.0:8080"'),
        "pin": Key("str", "", 'pin = "4711"'),
        "pin_file": Key("path", "", 'pin_file = "/etc/tavola/referee.pin"'),
    },
    "event": {
        "enabled": Key("bool", False, "enabled = true"),
        "broker": Key("str", "127.0.0.1:1883", 'broker = "arbiter.local:1883"'),
        "tls": Key("bool", False, "tls = true"),
        "ca_file": Key("path", "", 'ca_file = "/etc/tavola/event-ca.crt"'),
        "username": Key("str", "", 'username = "7"'),
        "password": Key("str", "", 'password = "s3cret"'),
        "password_file": Key("path", "", 'password_file = "/etc/tavola/event.password"'),
        "event": Key("str", "", 'event = "club-2026-11"'),
        "table": Key("str", "", 'table = "7"'),
        "console_listen": Key("str", "127.0.0.1:8090", 'console_listen = "0.0.0.0:8090"'),
    },
}


# --------------------------------------------------------------------- loading
# One value of one layer: (section, key, sub key of a table or None, value, source).
_Item = tuple[str, str, str | None, Any, str]


@dataclass
class _Setting:
    value: Any
    source: str  # the file, the variable or the flag
    text: bool  # from the environment or a flag: a string to convert


@dataclass
class _Layers:
    """Every value set so far, with where it came from; later layers overwrite."""

    values: dict[tuple[str, str], _Setting] = field(default_factory=dict)
    subs: dict[tuple[str, str], dict[str, _Setting]] = field(default_factory=dict)

    def set(self, section: str, key: str, setting: _Setting) -> None:
        if SCHEMA[section][key].kind == "table":
            if not setting.text and not isinstance(setting.value, dict):
                raise _error(setting, f"{section}.{key}", "must be a table", SCHEMA[section][key])
            table = _table_from_text(setting) if setting.text else setting.value
            self.subs[(section, key)] = {
                k: _Setting(v, setting.source, False) for k, v in table.items()
            }
        else:
            self.values[(section, key)] = setting

    def set_sub(self, section: str, key: str, sub: str, setting: _Setting) -> None:
        self.subs.setdefault((section, key), {})[sub] = setting

    def get(self, section: str, key: str) -> _Setting | None:
        return self.values.get((section, key))


def load_config(
    path: Path | None,
    env: Mapping[str, str],
    overrides: Mapping[str, str | None],
) -> Config:
    """Defaults, then the TOML file, then ``TAVOLA_*`` from ``env``, then ``overrides``.

    ``path`` is ``--config`` (None: ``TAVOLA_CONFIG``, else no file). ``overrides`` maps
    the flags ``game``, ``variant``, ``sensor``, ``leds`` (or ``section.key``) to values;
    None values are ignored. Raises :class:`ConfigError`.
    """
    layers = _Layers()
    if path is None and env.get(ENV_CONFIG):
        path = Path(env[ENV_CONFIG])
    base = path.parent if path is not None else None
    if path is not None:
        _apply(layers, _read_file(path), text=False)
    _apply(layers, _env_settings(env), text=True)
    _apply(layers, _flag_settings(overrides), text=True)
    return _build(layers, env, base, path)


def _read_file(path: Path) -> list[_Item]:
    """The file's settings as (section, key, sub key, value, source); checks every name."""
    where = str(path)
    fix_path = "check the path given to --config or TAVOLA_CONFIG"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such config file; {fix_path}") from None
    except OSError as exc:
        raise ConfigError(
            f"{where}: cannot read the config file ({exc.strerror}); "
            f"{fix_path}, and that the tavola user may read it"
        ) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start}); save the file as UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_message(where, raw, exc)) from None
    out: list[_Item] = []
    for section, table in data.items():
        if section not in SCHEMA:
            if not isinstance(table, dict):
                owner = [s for s, keys in SCHEMA.items() if section in keys]
                fix = f"put it under [{owner[0]}]" if owner else "remove it"
                raise ConfigError(f"{where}: key {section!r} outside any section; {fix}")
            raise ConfigError(
                f"{where}: unknown section [{section}]; {_suggest(section, SCHEMA, '[{}]')}"
            )
        if not isinstance(table, dict):
            raise ConfigError(
                f"{where}: {section} must be a section: write [{section}] "
                f"on a line of its own, then its keys"
            )
        for key, value in table.items():
            _check_name(where, section, key)
            out.append((section, key, None, value, where))
    return out


def _toml_message(where: str, raw: bytes, exc: tomllib.TOMLDecodeError) -> str:
    text = str(exc)
    m = re.search(r"\(at line (\d+), column (\d+)\)", text)
    if m is None:
        return f"{where}: not valid TOML: {text}; see docs/config.md for the syntax"
    line = int(m.group(1))
    lines = raw.decode("utf-8", "replace").splitlines()
    shown = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    reason = text[: m.start()].strip()
    return (
        f"{where}: line {line}, column {m.group(2)}: not valid TOML ({reason}): "
        f'{shown!r}; strings need quotes (name = "draughts"), tables '
        f"braces (params = {{ flying = false }})"
    )


def _check_name(where: str, section: str, key: str) -> None:
    if key in SCHEMA[section]:
        return
    owner = [s for s, keys in SCHEMA.items() if key in keys and s != section]
    if owner:
        fix = f"it belongs in [{owner[0]}]"
    elif section == "game" and (games := _games_with_parameter(key)):
        # "flying = true" straight in [game]: a rule of the game, not a board setting.
        default = game_class(games[0]).param_table()[key].default
        example = json.dumps(default) if isinstance(default, bool | int | float | str) else "..."
        fix = (f"{key!r} is a parameter of {', '.join(games)}: write it in [game.params] "
               f"(e.g. params = {{ {key} = {example} }}; 'tavola rules GAME' lists them)")
    else:
        fix = _suggest(key, SCHEMA[section], "{!r}")
    raise ConfigError(f"{where}: unknown key {key!r} in [{section}]; {fix}")


def _games_with_parameter(key: str) -> list[str]:
    """The games that have a parameter called ``key``, by registry name."""
    return [name for name in GAMES if key in game_class(name).param_table()]


def _suggest(word: str, known: Mapping[str, Any] | list[str], form: str) -> str:
    names = list(known)
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    listed = ", ".join(form.format(n) for n in names)
    if close:
        return f"did you mean {form.format(close[0])}? (known: {listed})"
    return f"known: {listed}"


def _env_settings(env: Mapping[str, str]) -> list[_Item]:
    """``TAVOLA_GAME`` and friends, then ``TAVOLA_<SECTION>_<KEY>[_<SUBKEY>]``.

    Variables whose first word is not (close to) a section name belong to someone else
    (``TAVOLA_SLOW`` for the tests) and are left alone.
    """
    short: list[_Item] = []
    general: list[_Item] = []
    for name in sorted(env):
        if not name.startswith("TAVOLA_") or name == ENV_CONFIG:
            continue
        value = env[name]
        if name in ENV_SHORT:
            short.append((*ENV_SHORT[name], None, value, name))
            continue
        first, _, rest = name[len("TAVOLA_") :].lower().partition("_")
        if first not in SCHEMA:
            if difflib.get_close_matches(first, list(SCHEMA), n=1, cutoff=0.8):
                raise ConfigError(
                    f"{name}: unknown section {first!r}; {_suggest(first, SCHEMA, 'TAVOLA_{}_...')}"
                )
            continue
        section = first
        if rest in SCHEMA[section]:
            general.append((section, rest, None, value, name))
            continue
        table = next(
            (
                k
                for k, key in SCHEMA[section].items()
                if key.kind == "table" and rest.startswith(k + "_")
            ),
            None,
        )
        if table is None or rest == table + "_":
            _check_name(name, section, rest)
        else:
            general.append((section, table, rest[len(table) + 1 :], value, name))
    return short + general  # the general form wins over the short one


def _flag_settings(
    overrides: Mapping[str, str | None],
) -> list[_Item]:
    out: list[_Item] = []
    for flag, value in overrides.items():
        if value is None:
            continue
        if flag in FLAGS:
            out.append((*FLAGS[flag], None, value, f"--{flag}"))
            continue
        section, _, key = flag.partition(".")
        key, _, sub = key.partition(".")  # game.params.flying: one entry of a table
        source = (f"-p {sub}" if (section, key) == ("game", "params")
                  else DOTTED_FLAGS.get(flag, f"override {flag}"))
        if section not in SCHEMA:
            raise ConfigError(
                f"{source}: unknown section {section!r}; {_suggest(section, SCHEMA, '{}')}"
            )
        _check_name(source, section, key)
        out.append((section, key, sub or None, value, source))
    return out


def _apply(layers: _Layers, settings: list[_Item], *, text: bool) -> None:
    """One layer. A layer that names another game than an earlier layer did drops the
    variant and parameters of the earlier layers first: they were meant for that game."""
    old = layers.get("game", "name")
    names = [value for s, k, _, value, _ in settings if (s, k) == ("game", "name")]
    if old is not None and names and _canonical(names[-1]) != _canonical(old.value):
        layers.values.pop(("game", "variant"), None)
        layers.subs.pop(("game", "params"), None)
    for section, key, sub, value, source in settings:
        setting = _Setting(value, source, text)
        if sub is None:
            layers.set(section, key, setting)
        else:
            layers.set_sub(section, key, sub, setting)


def _canonical(value: Any) -> str:
    name = str(value)
    try:
        return game_class(name).name
    except Exception:  # checked properly in _build; here only for comparison
        return name.strip().lower()


# --------------------------------------------------------------------- checking
def _build(layers: _Layers, env: Mapping[str, str], base: Path | None, path: Path | None) -> Config:
    values: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for section, keys in SCHEMA.items():
        values[section] = {}
        for key, spec in keys.items():
            if spec.kind == "table":
                table: dict[str, Any] = {}
                for sub, entry in layers.subs.get((section, key), {}).items():
                    table[sub] = _scalar_from_text(entry.value) if entry.text else entry.value
                    sources[f"{section}.{key}.{sub}"] = entry.source
                values[section][key] = table
                continue
            setting = layers.get(section, key)
            if setting is None:
                values[section][key] = spec.default
                continue
            sources[f"{section}.{key}"] = setting.source
            values[section][key] = _convert(setting, f"{section}.{key}", spec)

    game = _game(values["game"], layers, path, env)
    clock = _clock(values["clock"], layers)
    layout_file = values["layout"]["file"]
    return Config(
        game=game,
        sensor=SensorConfig(
            values["sensor"]["backend"], MappingProxyType(values["sensor"]["options"])
        ),
        leds=LedsConfig(
            values["leds"]["backend"],
            values["leds"]["brightness"],
            MappingProxyType(values["leds"]["options"]),
        ),
        layout=LayoutConfig(
            _path(layout_file, env, base, layers.get("layout", "file")) if layout_file else None
        ),
        inference=InferenceConfig(**values["inference"]),
        clock=clock,
        journal=JournalConfig(_journal_dir(values["journal"]["directory"], env, base, layers)),
        log=LogConfig(values["log"]["level"]),
        web=_web(values["web"], layers, env, base),
        hints=_hints(values["hints"]),
        event=_event(values["event"], layers, env, base),
        path=path,
        sources=MappingProxyType(sources),
    )


def _convert(setting: _Setting, name: str, spec: Key) -> Any:
    """The value checked against ``spec``, converted from text if it came as text."""
    value = setting.value
    kind = spec.kind
    if kind in ("str", "name", "path", "choice"):
        if not isinstance(value, str):
            raise _error(setting, name, "must be a string (in quotes)", spec)
        value = value.strip()
        if kind == "name" and not value:
            raise _error(setting, name, "must not be empty", spec)
        if kind == "choice":
            value = value.lower()
            if value not in spec.choices:
                close = difflib.get_close_matches(value, spec.choices, n=1)
                guess = f"; did you mean {close[0]!r}?" if close else ""
                raise _error(setting, name, f"must be one of {', '.join(spec.choices)}{guess}",
                             spec)
        return value
    if kind == "bool":
        if setting.text and isinstance(value, str):
            low = value.strip().lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
        if not isinstance(value, bool):
            raise _error(setting, name, "must be true or false", spec)
        return value
    # numbers
    if setting.text and isinstance(value, str):
        try:
            value = int(value) if kind == "int" else float(value)
        except ValueError:
            what = "a whole number" if kind == "int" else "a number"
            raise _error(setting, name, f"must be {what}", spec) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error(setting, name, "must be a number (without quotes)", spec)
    if kind == "int" and not isinstance(value, int):
        raise _error(setting, name, "must be a whole number", spec)
    if kind == "float":
        value = float(value)
        if not math.isfinite(value):
            raise _error(setting, name, "must be a finite number", spec)
    if spec.minimum is not None and value < spec.minimum:
        raise _error(setting, name, f"must be at least {spec.minimum:g}", spec, out_of_range=True)
    if spec.maximum is not None and value > spec.maximum:
        raise _error(setting, name, f"must be at most {spec.maximum:g}", spec, out_of_range=True)
    return value


def _error(
    setting: _Setting, name: str, problem: str, spec: Key, *, out_of_range: bool = False
) -> ConfigError:
    hint = f"; {spec.hint}" if spec.hint and out_of_range else ""
    return ConfigError(
        f"{setting.source}: {name} = {setting.value!r}: {problem}{hint} (e.g. {spec.example})"
    )


def looks_like_file_name(value: Any) -> bool:
    """Whether a file parameter's value names a file (one line, no ``=``) rather than
    holding the file's content."""
    return isinstance(value, str) and bool(value) and "\n" not in value and "=" not in value


def read_file_params(game: str, params: Mapping[str, Any], base: Path | None = None,
                     env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``params`` with every file parameter of ``game`` (Sequence for Kids' ``layout``)
    that names a file replaced by the file's text; a relative name is relative to ``base``.

    OSError if a file cannot be read.
    """
    out = dict(params)
    for key in getattr(game_class(game), "file_params", ()):
        value = out.get(key)
        if isinstance(value, str) and looks_like_file_name(value):
            path = _home(env or {}) / value[2:] if value.startswith("~/") else Path(value)
            if not path.is_absolute() and base is not None:
                path = base / path
            out[key] = path.read_text(encoding="utf-8")
    return out


def _game(values: dict[str, Any], layers: _Layers, path_of_config: Path | None,
          env: Mapping[str, str]) -> GameConfig:
    """Check the game by building it: name, then variant, then every parameter; a file
    parameter is read here, so the game (and its record) holds the content."""
    name_setting = layers.get("game", "name") or _Setting(values["name"], "default", False)
    variant_setting = layers.get("game", "variant")
    name, variant, params = values["name"], values["variant"], values["params"]
    try:
        cls = game_class(name)
    except ValueError as exc:
        raise ConfigError(f"{name_setting.source}: game.name = {name!r}: {exc}") from None
    except ImportError as exc:
        raise ConfigError(
            f"{name_setting.source}: game.name = {name!r}: the game's module "
            f"could not be loaded ({exc}); reinstall tavola"
        ) from None
    if variant:
        where = variant_setting.source if variant_setting else "default"
        if not cls.variants:
            raise ConfigError(
                f"{where}: game.variant = {variant!r}: "
                f"{cls.name} has no variants; remove the variant"
            )
        if variant not in cls.variants:
            raise ConfigError(
                f"{where}: game.variant = {variant!r}: "
                f"unknown {cls.name} variant; "
                f"{_suggest(variant, list(cls.variants), '{!r}')}"
            )
    table = cls.param_table()
    subs = layers.subs.get(("game", "params"), {})
    checked: dict[str, Any] = {}
    for key, value in params.items():
        where = subs[key].source if key in subs else "default"
        if key == "variant" or key not in table:
            fix = (
                "set it as [game] variant"
                if key == "variant"
                else _suggest(key, [k for k in table if k != "variant"] or ["(none)"], "{!r}")
            )
            raise ConfigError(
                f"{where}: game.params.{key}: {cls.name} has no parameter "
                f"{key!r}; {fix}; 'tavola rules {cls.name}' lists them"
            )
        try:
            checked[key] = table[key].check(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: game.params.{key} = {value!r}: {exc}") from None
        if key in getattr(cls, "file_params", ()) and looks_like_file_name(checked[key]):
            in_file = path_of_config is not None and where == str(path_of_config)
            base = path_of_config.parent if in_file and path_of_config else None
            try:
                checked.update(read_file_params(name, {key: checked[key]}, base, env))
            except OSError as exc:
                raise ConfigError(
                    f"{where}: game.params.{key} = {value!r}: cannot read the file "
                    f"({exc.strerror or exc}); give the path of a TOML {key} file"
                ) from None
            try:
                GameConfig(name, variant, checked).new_game()
            except ValueError as exc:
                raise ConfigError(f"{where}: game.params.{key} = {value!r}: {exc}") from None
    try:
        GameConfig(name, variant, checked).new_game()
    except Exception as exc:  # a combination the game refuses
        shown = {k: ("(file content)" if k in getattr(cls, "file_params", ()) else v)
                 for k, v in checked.items()}
        raise ConfigError(
            f"{name_setting.source}: [game] {name!r} with variant {variant!r} "
            f"and params {shown!r}: {exc}"
        ) from None
    opponent = None
    if values["opponent"] == "ai":
        players = GameConfig(name, variant, checked).new_game().num_players
        side = values["opponent_side"]
        if side >= players:
            setting = layers.get("game", "opponent_side")
            raise ConfigError(
                f"{setting.source if setting else 'default'}: game.opponent_side = {side}: "
                f"{cls.name} has players 0 to {players - 1}; choose one "
                f"(e.g. opponent_side = 1)")
        opponent = ComputerPlayer(side, values["opponent_level"])
    return GameConfig(name, variant, MappingProxyType(checked), values["policy"], values["hints"],
                      opponent)


def _hints(values: dict[str, Any]) -> HintSettings:
    """``[hints]``: 0 nodes or seconds mean the level's own budget, no time cap."""
    return HintSettings(values["level"], values["per_turn"], values["nodes"] or None,
                        values["seconds"] or None, values["gesture"], values["cell"],
                        values["arbiter"], values["feedback"], values["threshold"])


def _clock(values: dict[str, Any], layers: _Layers) -> ClockSpec:
    try:
        return ClockSpec(**values)
    except ClockSpecError as exc:
        setting = layers.get("clock", exc.key)
        mode = layers.get("clock", "mode")
        where = setting.source if setting else (mode.source if mode else "default")
        shown = repr(values[exc.key]) + ("" if setting else " (not set)")
        raise ConfigError(
            f"{where}: clock.{exc.key} = {shown}: {exc}; see docs/clocks.md"
        ) from None


def _web(values: dict[str, Any], layers: _Layers, env: Mapping[str, str],
         base: Path | None) -> WebConfig:
    """``[web]`` checked: ``listen`` as HOST:PORT, a PIN from ``pin`` or ``pin_file``."""
    def where(key: str) -> str:
        setting = layers.get("web", key)
        return setting.source if setting else "default"

    listen = values["listen"]
    address = _host_port(listen)
    if address is None:
        raise ConfigError(f"{where('listen')}: web.listen = {listen!r}: must be HOST:PORT, "
                          f"a port up to 65535 (e.g. listen = \"127.0.0.1:8080\", or "
                          f"\"0.0.0.0:8080\" for the LAN)")
    host, port = address
    pin = _secret(values, "web", "pin", "the PIN", "/etc/tavola/referee.pin", layers, env, base)
    if pin and len(pin) < 4:
        key = "pin_file" if values["pin_file"] else "pin"
        raise ConfigError(f"{where(key)}: web.{key}: the PIN must have at least 4 characters "
                          f"(e.g. pin = \"4711\")")
    return WebConfig(values["enabled"], host, port, pin)


def _secret(values: dict[str, Any], section: str, key: str, what: str, example: str,
            layers: _Layers, env: Mapping[str, str], base: Path | None) -> str:
    """A secret given as ``key`` or read from ``key``_file (so it need not sit in a config
    that others may read), not both; an unreadable file names itself and the fix."""
    file_key = f"{key}_file"
    setting = layers.get(section, file_key)
    where = setting.source if setting else "default"
    secret = str(values[key])
    if secret and values[file_key]:
        raise ConfigError(f"{where}: {section}.{file_key} is set and so is {section}.{key}; "
                          f"keep one of them (e.g. only {file_key} = \"{example}\")")
    if values[file_key]:
        file = _path(values[file_key], env, base, setting)
        try:
            secret = file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"{where}: {section}.{file_key} = {str(file)!r}: cannot be "
                              f"read ({exc.strerror or exc}); write {what} in it, alone on "
                              f"one line") from None
    return secret


def _host_port(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (an IPv6 host in brackets) split, or None if it is not that."""
    host, sep, port_text = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        return None
    return host, int(port_text)


def _event(values: dict[str, Any], layers: _Layers, env: Mapping[str, str],
           base: Path | None) -> EventConfig:
    """``[event]`` checked: the broker and the console as HOST:PORT, topic-safe event and
    table names (both needed once enabled), a password from ``password`` or its file."""
    from tavola.event.topics import check_name  # the topics' own rule, said once

    def where(key: str) -> str:
        setting = layers.get("event", key)
        return setting.source if setting else "default"

    addresses = {}
    for key, example in (("broker", '"arbiter.local:1883"'), ("console_listen", '"0.0.0.0:8090"')):
        address = _host_port(values[key])
        if address is None:
            raise ConfigError(f"{where(key)}: event.{key} = {values[key]!r}: must be HOST:PORT, "
                              f"a port up to 65535 (e.g. {key} = {example})")
        addresses[key] = address
    for key in ("event", "table"):
        if values[key]:
            try:
                check_name(values[key], f"event.{key}")
            except ValueError as exc:
                raise ConfigError(f"{where(key)}: {exc}") from None
        elif values["enabled"]:
            raise ConfigError(f"{where('enabled')}: event.enabled = true needs event.{key} "
                              f"(e.g. {SCHEMA['event'][key].example})")
    password = _secret(values, "event", "password", "the broker password",
                       "/etc/tavola/event.password", layers, env, base)
    if password and not values["username"]:
        raise ConfigError(f"{where('username')}: event.username is empty but a password is "
                          f"set; name the broker account (e.g. username = \"7\")")
    ca = values["ca_file"]
    ca_file = _path(ca, env, base, layers.get("event", "ca_file")) if ca else None
    if ca_file is not None:
        _check_ca(ca_file, where("ca_file"))
    return EventConfig(
        values["enabled"], *addresses["broker"], values["tls"], ca_file,
        values["username"], password, values["event"], values["table"],
        *addresses["console_listen"])


def _check_ca(path: Path, where: str) -> None:
    """The CA file loads as TLS trust (read now, not at the first connection)."""
    import ssl  # only for this check

    try:
        ssl.create_default_context(cafile=str(path))
    except OSError as exc:
        if isinstance(exc, ssl.SSLError):
            raise ConfigError(f"{where}: event.ca_file = {str(path)!r}: is not a PEM "
                              f"certificate ({exc.reason}); name the CA certificate that "
                              f"signed the broker's (e.g. ca_file = \"/etc/tavola/event-ca.crt\")"
                              ) from None
        raise ConfigError(f"{where}: event.ca_file = {str(path)!r}: cannot be read "
                          f"({exc.strerror or exc}); copy the CA certificate that signed the "
                          f"broker's there") from None


def _path(value: str, env: Mapping[str, str], base: Path | None, setting: _Setting | None) -> Path:
    """``~`` expanded from ``env``; a relative path in the file is relative to the file."""
    home = value == "~" or value.startswith("~/")
    path = _home(env) / value[2:] if home else Path(value)
    if not path.is_absolute() and base is not None and setting is not None and not setting.text:
        path = base / path
    return path


def _home(env: Mapping[str, str]) -> Path:
    return Path(env["HOME"]) if env.get("HOME") else Path.home()


def _journal_dir(value: str, env: Mapping[str, str], base: Path | None, layers: _Layers) -> Path:
    """The set directory, else ``$STATE_DIRECTORY`` (systemd), else the XDG state folder."""
    if value:
        return _path(value, env, base, layers.get("journal", "directory"))
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])  # systemd may list several
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "tavola"
    return _home(env) / ".local" / "state" / "tavola"


def _table_from_text(setting: _Setting) -> dict[str, Any]:
    """A whole table from an environment variable: a TOML inline table ``{ a = 1 }``."""
    try:
        value = tomllib.loads(f"v = {setting.value}")["v"]
    except tomllib.TOMLDecodeError:
        value = None
    if not isinstance(value, dict):
        raise ConfigError(
            f"{setting.source} = {setting.value!r}: must be a TOML inline "
            f"table, e.g. {{ flying = false }}"
        )
    return value


def _scalar_from_text(text: Any) -> Any:
    """An option from the environment: a TOML value if it reads as one (60, true, 0.5),
    else the string itself (/dev/ttyACM0)."""
    if not isinstance(text, str):
        return text
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
