"""Config: the layers, and an error for every kind of mistake naming where, key, value, fix."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tavola.clock import ClockSpec
from tavola.config import SCHEMA, ConfigError, load_config
from tavola.games import game_class
from tavola.hints import ComputerPlayer

ROOT = Path(__file__).resolve().parents[2]
HOME = {"HOME": "/home/pi"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tavola.toml"
    path.write_text(text)
    return path


def error(path: Path | None, env: dict[str, str], flags: dict[str, str | None]) -> str:
    with pytest.raises(ConfigError) as err:
        load_config(path, {**HOME, **env}, flags)
    return str(err.value)


# --------------------------------------------------------------------- layers
def test_defaults() -> None:
    cfg = load_config(None, HOME, {})
    assert (cfg.game.name, cfg.game.variant, dict(cfg.game.params)) == ("morris", "", {})
    assert (cfg.game.policy, cfg.game.hints) == ("teaching", True)
    assert (cfg.sensor.backend, cfg.leds.backend, cfg.leds.brightness) == ("sim", "sim", 0.3)
    assert cfg.layout.file is None
    assert (cfg.inference.settle, cfg.inference.grace) == (0.3, 3.0)
    assert cfg.clock == ClockSpec()
    assert cfg.journal.directory == Path("/home/pi/.local/state/tavola")
    assert cfg.log.level == "info"
    assert cfg.path is None and dict(cfg.sources) == {}


def test_journal_directory_from_systemd_then_xdg() -> None:
    env = {**HOME, "STATE_DIRECTORY": "/var/lib/tavola:/var/lib/other"}
    assert load_config(None, env, {}).journal.directory == Path("/var/lib/tavola")
    env = {**HOME, "XDG_STATE_HOME": "/xdg"}
    assert load_config(None, env, {}).journal.directory == Path("/xdg/tavola")


def test_file_values(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        [game]
        name = "tessere"
        policy = "Arbiter"
        hints = false
        [game.params]
        diagonals = "all"
        [sensor]
        backend = "serial"
        options = { port = "/dev/ttyACM0", baud = 115200 }
        [leds]
        brightness = 1
        [layout]
        file = "boards/mine.toml"
        [inference]
        settle = 0.5
        grace = 2
        [clock]
        mode = "moves-in-time"
        moves = 40
        minutes = 90
        then_minutes = 30
        increment = 30
        [journal]
        directory = "~/games"
        [log]
        level = "DEBUG"
        """.replace("        ", ""),
    )
    cfg = load_config(path, HOME, {})
    assert (cfg.game.name, cfg.game.policy, cfg.game.hints) == ("tessere", "arbiter", False)
    assert dict(cfg.game.params) == {"diagonals": "all"}
    assert cfg.sensor.backend == "serial"
    assert dict(cfg.sensor.options) == {"port": "/dev/ttyACM0", "baud": 115200}
    assert cfg.leds.brightness == 1.0 and isinstance(cfg.leds.brightness, float)
    assert cfg.layout.file == tmp_path / "boards" / "mine.toml"
    assert (cfg.inference.settle, cfg.inference.grace) == (0.5, 2.0)
    assert cfg.clock == ClockSpec(
        "moves-in-time", moves=40, minutes=90, then_minutes=30, increment=30
    )
    assert cfg.journal.directory == Path("/home/pi/games")
    assert cfg.log.level == "debug"
    assert cfg.path == path
    assert cfg.sources["clock.moves"] == str(path)
    assert cfg.game.new_game().options["diagonals"] == "all"


def test_environment_beats_the_file_and_flags_beat_both(tmp_path: Path) -> None:
    path = write(tmp_path, '[sensor]\nbackend = "reed"\n[leds]\nbackend = "neopixel"\n')
    env = {"TAVOLA_SENSOR": "serial", "TAVOLA_LEDS_BRIGHTNESS": "0.5", "TAVOLA_LEDS": "none"}
    cfg = load_config(path, {**HOME, **env}, {"leds": "sim", "sensor": None})
    assert (cfg.sensor.backend, cfg.leds.backend, cfg.leds.brightness) == ("serial", "sim", 0.5)
    assert cfg.sources["sensor.backend"] == "TAVOLA_SENSOR"
    assert cfg.sources["leds.backend"] == "--leds"
    # The general form wins over the short one.
    env = {"TAVOLA_SENSOR": "serial", "TAVOLA_SENSOR_BACKEND": "camera"}
    assert load_config(None, {**HOME, **env}, {}).sensor.backend == "camera"


def test_config_file_from_the_environment_and_the_flag(tmp_path: Path) -> None:
    a = write(tmp_path, "[log]\nlevel = 'error'\n")
    b = tmp_path / "b.toml"
    b.write_text("[log]\nlevel = 'warning'\n")
    assert load_config(None, {**HOME, "TAVOLA_CONFIG": str(a)}, {}).log.level == "error"
    assert load_config(b, {**HOME, "TAVOLA_CONFIG": str(a)}, {}).log.level == "warning"


def test_environment_conversions() -> None:
    env = {
        "TAVOLA_GAME": "tessere",
        "TAVOLA_GAME_HINTS": "no",
        "TAVOLA_GAME_PARAMS_MOVE_SECONDS": "45",
        "TAVOLA_SENSOR_OPTIONS_PORT": "/dev/ttyACM0",
        "TAVOLA_SENSOR_OPTIONS_BAUD": "115200",
        "TAVOLA_LEDS_OPTIONS": "{ order = 'GRB', count = 30 }",
        "TAVOLA_CLOCK_MODE": "move",
        "TAVOLA_CLOCK_MOVE_SECONDS": "30",
        "TAVOLA_SLOW": "1",  # not ours: left alone
        "TAVOLA_HARDWARE": "1",
    }
    cfg = load_config(None, {**HOME, **env}, {})
    assert cfg.game.hints is False
    assert dict(cfg.game.params) == {"move_seconds": 45}
    assert dict(cfg.sensor.options) == {"port": "/dev/ttyACM0", "baud": 115200}
    assert dict(cfg.leds.options) == {"order": "GRB", "count": 30}
    assert cfg.clock == ClockSpec("move", move_seconds=30)


def test_dotted_overrides() -> None:
    cfg = load_config(
        None, HOME, {"game": "tessere", "clock.mode": "move", "clock.move_seconds": "20"}
    )
    assert cfg.clock.move_seconds == 20.0
    assert "unknown key 'mod' in [clock]; did you mean 'mode'?" in error(
        None, {}, {"clock.mod": "x"}
    )


def test_a_dotted_override_from_a_flag_is_named_by_the_flag() -> None:
    # `tavola run --level foo` said "override game.opponent_level: ... strongest;; (e.g.":
    # neither the flag the user typed nor plain punctuation.
    message = error(None, {}, {"game.opponent_level": "foo"})
    assert message.startswith("--level: game.opponent_level = 'foo': must be one of "
                              "beginner, club, strongest (e.g."), message
    message = error(None, {}, {"game.opponent": "ai", "game.opponent_side": "7"})
    assert message.startswith("--ai-plays: game.opponent_side = '7':"), message
    assert error(None, {}, {"journal.directory": "3", "clock.mode": "blitz"}).startswith(
        "override clock.mode: clock.mode = 'blitz': must be one of none, move, sudden-death, "
        "fischer, moves-in-time (e.g.")


def test_a_new_game_drops_the_old_games_variant_and_params(tmp_path: Path) -> None:
    path = write(tmp_path, '[game]\nname = "tessere"\nparams = { diagonals = "all" }\n')
    cfg = load_config(path, HOME, {"game": "morris"})
    assert (cfg.game.name, dict(cfg.game.params)) == ("morris", {})
    # The same game under another spelling keeps them.
    cfg = load_config(path, {**HOME, "TAVOLA_GAME": "Tessere"}, {})
    assert dict(cfg.game.params) == {"diagonals": "all"}
    # Params set in the same layer as the new game stay.
    env = {"TAVOLA_GAME": "morris", "TAVOLA_GAME_PARAMS_FLYING": "false"}
    assert dict(load_config(path, {**HOME, **env}, {}).game.params) == {"flying": False}


def test_config_is_frozen() -> None:
    cfg = load_config(None, HOME, {"game": "tessere"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.game.name = "morris"  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.game.params["x"] = 1  # type: ignore[index]


def test_backend_names_are_not_checked_here() -> None:
    cfg = load_config(None, HOME, {"sensor": "abacus"})  # the hardware registry says no later
    assert cfg.sensor.backend == "abacus"
    assert "sensor.backend = '': must not be empty" in error(None, {}, {"sensor": ""})


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[sensor]\nbacknd = 'reed'\n",
            "unknown key 'backnd' in [sensor]; did you mean 'backend'?",
        ),
        ("[game]\nbrightness = 0.5\n", "unknown key 'brightness' in [game]; it belongs in [leds]"),
        # A rule of the game written straight in [game], where only 'params' was suggested
        # (or nothing: "flying" is like no key of [game]).
        ("[game]\nname = 'morris'\nflying = false\n",
         "unknown key 'flying' in [game]; 'flying' is a parameter of morris: write it in "
         "[game.params] (e.g. params = { flying = true }"),
        ("[game]\nname = 'quixo'\nplayers = 4\n",
         "'players' is a parameter of quixo, sequence-kids: write it in [game.params]"),
        ("[sensr]\nbackend = 'reed'\n", "unknown section [sensr]; did you mean [sensor]?"),
        ("brightness = 0.5\n", "key 'brightness' outside any section; put it under [leds]"),
        ("game = 'draughts'\n", "game must be a section: write [game]"),
        ("[leds]\nbrightness = 'high'\n", "leds.brightness = 'high': must be a number"),
        ("[leds]\nbrightness = 1.5\n", "leds.brightness = 1.5: must be at most 1; a fraction"),
        ("[clock]\nincrement = -2\n", "clock.increment = -2: must be at least 0"),
        ("[clock]\nmoves = 40.5\n", "clock.moves = 40.5: must be a whole number"),
        ("[clock]\nmode = 'blitz'\n", "clock.mode = 'blitz': must be one of none, move"),
        ("[game]\nhints = 'yes'\n", "game.hints = 'yes': must be true or false"),
        (
            "[game]\npolicy = 'arbitre'\n",
            "policy = 'arbitre': must be one of teaching, arbiter; did you mean 'arbiter'?",
        ),
        ("[sensor]\noptions = 'port=x'\n", "sensor.options = 'port=x': must be a table"),
        ("[journal]\ndirectory = 3\n", "journal.directory = 3: must be a string"),
        ("[hints]\nper_turn = 0\n", "hints.per_turn = 0: must be at least 1"),
        ("[hints]\nlevel = 'master'\n", "hints.level = 'master': must be one of beginner,"),
        ("[game]\nopponent = 'robot'\n", "game.opponent = 'robot': must be one of none, ai"),
        ("[game]\nopponent = 'ai'\nopponent_side = 2\n",
         "game.opponent_side = 2: morris has players 0 to 1; choose one"),
    ],
)
def test_file_errors_name_file_key_value_and_fix(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    message = error(path, {}, {})
    assert message.startswith(f"{path}: ")
    assert expected in message


def test_malformed_toml_gives_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[game]\nname = "morris"\npolicy = arbiter\n')
    message = error(path, {}, {})
    assert message.startswith(f"{path}: line 3, column 10: not valid TOML")
    assert "'policy = arbiter'" in message and "strings need quotes" in message


def test_missing_file(tmp_path: Path) -> None:
    message = error(tmp_path / "nope.toml", {}, {})
    assert "nope.toml: no such config file; check the path given to --config" in message


def test_game_errors() -> None:
    message = error(None, {}, {"game": "chess"})
    assert message.startswith("--game: game.name = 'chess': unknown game 'chess'; known games:")
    message = error(None, {}, {"game": "tessere", "variant": "russian"})
    assert message.startswith("--variant: game.variant = 'russian': tessere has no variants")
    message = error(None, {"TAVOLA_GAME_PARAMS_DIAGNALS": "all"}, {"game": "tessere"})
    assert message.startswith("TAVOLA_GAME_PARAMS_DIAGNALS: game.params.diagnals: tessere has no")
    assert "did you mean 'diagonals'?" in message and "'tavola rules tessere'" in message
    message = error(None, {"TAVOLA_GAME_PARAMS_DIAGONALS": "diag"}, {"game": "tessere"})
    assert "game.params.diagonals = 'diag': parameter 'diagonals' must be one of" in message
    message = error(None, {"TAVOLA_GAME_PARAMS": "{ variant = 'x' }"}, {"game": "tessere"})
    assert "set it as [game] variant" in message


def test_game_variant_checked_against_the_game() -> None:
    try:
        game_class("draughts")
    except ImportError:
        pytest.skip("the draughts engine is not installed")
    message = error(None, {"TAVOLA_VARIANT": "rusian"}, {"game": "draughts"})
    assert message.startswith("TAVOLA_VARIANT: game.variant = 'rusian': unknown draughts variant")
    assert "did you mean 'russian'?" in message
    cfg = load_config(None, {**HOME, "TAVOLA_VARIANT": "russian"}, {"game": "draughts"})
    assert cfg.game.new_game().options["variant"] == "russian"


def test_clock_cross_checks_name_the_missing_key(tmp_path: Path) -> None:
    path = write(tmp_path, "[clock]\nmode = 'fischer'\nincrement = 3\n")
    message = error(path, {}, {"game": "tessere"})
    assert message.startswith(f"{path}: clock.minutes = 0.0 (not set): mode 'fischer' needs")
    assert "minutes = 5" in message and "docs/clocks.md" in message


def test_environment_errors() -> None:
    message = error(None, {"TAVOLA_INFERENCE_SETTLE": "300"}, {})
    assert message == (
        "TAVOLA_INFERENCE_SETTLE: inference.settle = '300': must be at most 5; "
        "seconds, not milliseconds (e.g. settle = 0.3)"
    )
    message = error(None, {"TAVOLA_INFERNCE_SETTLE": "0.3"}, {})
    assert "TAVOLA_INFERNCE_SETTLE: unknown section 'infernce'; did you mean" in message
    message = error(None, {"TAVOLA_CLOCK_INCREMNT": "3"}, {})
    assert "TAVOLA_CLOCK_INCREMNT: unknown key 'incremnt' in [clock]; did you mean" in message
    message = error(None, {"TAVOLA_CLOCK_MOVES": "many"}, {})
    assert "clock.moves = 'many': must be a whole number" in message
    message = error(None, {"TAVOLA_SENSOR_OPTIONS": "port"}, {})
    assert "TAVOLA_SENSOR_OPTIONS = 'port': must be a TOML inline table" in message


# --------------------------------------------------------------------- the example and docs
def test_the_example_config_loads_and_sets_every_key() -> None:
    example = ROOT / "systemd" / "tavola.example.toml"
    cfg = load_config(example, HOME, {})
    assert cfg.path == example
    set_keys = {k for k in cfg.sources if k.count(".") == 1}
    assert set_keys == {
        f"{s}.{k}" for s, keys in SCHEMA.items() for k in keys if keys[k].kind != "table"
    }
    text = example.read_text()
    for section, keys in SCHEMA.items():
        for key in keys:
            assert re.search(rf"^{key} = ", text, re.M), f"{section}.{key} not in the example"


def test_the_docs_describe_every_key() -> None:
    docs = (ROOT / "docs" / "config.md").read_text()
    for section, keys in SCHEMA.items():
        for key in keys:
            assert f"`{section}.{key}`" in docs, f"{section}.{key} not in docs/config.md"


def test_a_layout_file_parameter_is_read_into_the_game(tmp_path: Path) -> None:
    from importlib import resources

    shipped = resources.files("tavola.games").joinpath("data", "sequence_kids_layout.toml")
    (tmp_path / "board.toml").write_text(shipped.read_text())
    config = tmp_path / "tavola.toml"
    config.write_text('[game]\nname = "sequence-kids"\nparams = { layout = "board.toml" }\n')
    cfg = load_config(config, {}, {})
    assert cfg.game.params["layout"] == shipped.read_text()  # the content, not the name
    game = cfg.game.new_game()
    (tmp_path / "board.toml").unlink()  # the game and its record do not need the file
    assert game.options["layout"] == shipped.read_text()

    with pytest.raises(ConfigError, match=r"game.params.layout = 'board.toml': cannot read"):
        load_config(config, {}, {})
    (tmp_path / "board.toml").write_text("rows = []\n")
    with pytest.raises(ConfigError, match=r"game.params.layout = 'board.toml': .*wrong size"):
        load_config(config, {}, {})


def test_hints_and_the_computer_opponent_are_read(tmp_path: Path) -> None:
    path = write(tmp_path, "[game]\nopponent = 'ai'\nopponent_level = 'beginner'\n"
                 "opponent_side = 0\n[hints]\nper_turn = 2\nnodes = 500\nseconds = 0\n"
                 "feedback = true\n")
    cfg = load_config(path, HOME, {})
    assert cfg.game.opponent == ComputerPlayer(0, "beginner")
    assert (cfg.hints.per_turn, cfg.hints.nodes, cfg.hints.seconds, cfg.hints.feedback) == (
        2, 500, None, True)
    assert load_config(None, HOME, {}).game.opponent is None
