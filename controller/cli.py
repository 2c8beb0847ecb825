"""The ``tavola`` command.

``tavola play GAME`` plays a game in the terminal; ``tavola games-list`` lists the games
and their parameters. Errors a user can meet print one line and exit 2; ``--debug`` shows
the traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tavola.games import ALIASES, GAMES, game_class, new_game


def _params(pairs: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"-p takes KEY=VALUE, got {pair!r} (e.g. -p flying=false)")
        params[key.strip()] = value.strip()
    return params


def _seconds(text: str) -> float:
    """An option's number of seconds: positive and finite (a negative step flashed every
    LED at once and a NaN never ended)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds "
                                         f"(e.g. 0.5)") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0 "
                                         f"(e.g. 0.5)")
    return value


def _said(exc: OSError) -> str:
    """An OSError as a user reads it: the path and what is wrong with it, not
    "[Errno 2] No such file or directory: '/x/y'"."""
    if not exc.filename or not exc.strerror:
        return str(exc)
    path = Path(exc.filename)
    if exc.errno == errno.ENOENT and not path.parent.exists():
        return f"{path}: the folder {path.parent} does not exist; create it or give another path"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{path}: {exc.strerror.lower()}; give a path this user may write"
    return f"{path}: {exc.strerror.lower()}"


def _saved_game(path: Path, named: str | None) -> Any:
    """The game ``save FILE`` wrote to ``path``; ValueError names the file and what is wrong
    with it, or that it holds another game than ``named`` (the game typed with --load)."""
    from tavola.config import read_file_params

    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read the saved game {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # JSON or UTF-8
        raise ValueError(f"{path} is not a game saved by tavola play (not JSON: {exc})") \
            from None
    if not isinstance(record, dict) or not isinstance(record.get("game"), str):
        raise ValueError(f"{path} is not a game saved by tavola play (it names no game)")
    try:
        cls = game_class(record["game"])
        if named is not None and game_class(named) is not cls:
            raise ValueError(f"it holds a game of {cls.name}, not {named}: leave the game "
                             f"out (tavola play --load {path})")
        # A save from before records carried their files names them: read them now.
        record["params"] = read_file_params(cls.name, record.get("params") or {}, path.parent)
        return cls.from_dict(record)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def _cmd_play(args: argparse.Namespace) -> int:
    from tavola.config import read_file_params
    from tavola.play import Opponent, play

    if args.load:
        game = _saved_game(Path(args.load), args.game)
    elif not args.game:
        raise ValueError("name a game (tavola play morris) or --load a saved one")
    else:
        params: dict[str, Any] = read_file_params(args.game, _params(args.param))
        if args.variant:
            params["variant"] = args.variant
        game = new_game(args.game, **params)
    opponent = None
    if args.opponent == "ai" or args.level != "club" or args.seed:
        from tavola import ai
        from tavola.ai import morris_endgames

        ai.level_named(args.level)  # a bad level stops here, before the game starts
        side = game.num_players - 1 if args.ai_plays is None else args.ai_plays
        if not 0 <= side < game.num_players:
            raise ValueError(f"--ai-plays {side}: players are 0 ... {game.num_players - 1}")
        endgames = morris_endgames.load() if game.name == "morris" else None
        opponent = Opponent(side=side if args.opponent == "ai" else None, level=args.level,
                            seed=args.seed, endgames=endgames)
    play(game, opponent=opponent)
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    names = [args.game] if args.game else list(GAMES)
    for name in names:
        cls = game_class(name)
        aliases = sorted(a for a, (target, _) in ALIASES.items() if target == cls.name)
        print(f"{cls.name}  (needs {cls.needs} sensing)" + (
            f"  aliases: {', '.join(aliases)}" if aliases else ""))
        for p in cls.param_table().values():
            choices = f" [{' | '.join(map(str, p.choices))}]" if p.choices else ""
            print(f"  {p.name} = {p.default!r}{choices}  {p.doc}")
        if cls.variants:
            for variant, preset in cls.variants.items():
                sets = ", ".join(f"{k}={v!r}" for k, v in preset.items()) or "the defaults"
                print(f"  variant {variant}: {sets}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    import os

    from tavola import daemon
    from tavola.config import load_config

    overrides: dict[str, str | None] = {
        "game": args.game, "variant": args.variant, "sensor": args.sensor, "leds": args.leds,
        "journal.directory": args.journal, "game.opponent": args.opponent,
        "game.opponent_level": args.level,
        "game.opponent_side": None if args.ai_plays is None else str(args.ai_plays)}
    for key, value in _params(args.param).items():  # checked by the game, like the config's
        overrides[f"game.params.{key}"] = value
    config = load_config(args.config, os.environ, overrides)
    interactive = sys.stdin.isatty() if args.console == "auto" else args.console == "on"
    extra = {"script": args.script} if args.script else {}
    return daemon.main(
        config,
        console=sys.stdin if interactive else None,
        out=sys.stdout if interactive and sys.stdout.isatty() else None,
        sensor_options=extra,
        resume=args.resume,
    )


def _cmd_selftest(args: argparse.Namespace) -> int:
    import os

    from tavola.config import load_config
    from tavola.selftest import run_selftest

    overrides = {"game": args.game, "sensor": args.sensor, "leds": args.leds}
    config = load_config(args.config, os.environ, overrides)
    return run_selftest(
        config,
        console=sys.stdin if config.sensor.backend == "sim" and sys.stdin.isatty() else None,
        step=args.step,
        listen=args.listen,
        leds_phase=not args.sensor_only,
        sensor_phase=not args.leds_only,
    )


def _cmd_vision(args: argparse.Namespace) -> int:
    from tavola.games import game_class  # an alias (checkers, mill), as `play` takes

    try:
        if args.vision_command == "markers":
            from tavola.vision.markers import write_marker_sheet

            path = write_marker_sheet(args.output, cell_mm=args.cell_mm,
                                      game=args.game and game_class(args.game).name)
            print(f"Wrote {path}: print it at 100% scale (check the 50 mm bar), cut the four "
                  f"markers out and put each beyond its corner of the board (docs/vision.md).")
            return 0
        from tavola.vision import commands

        game = game_class(args.game).name
        if args.vision_command == "calibrate":
            position = (_start_position(game, args.players) if args.position == "start"
                        else args.position)
            commands.calibrate(args.image, game, position, args.output, players=args.players)
            print(f"Wrote {args.output}.")
        elif args.vision_command == "check":
            report = commands.check(args.image, game, source=args.source,
                                    players=args.players, calibration_path=args.calibration)
            print(report)
            return 0 if report.ok else 1
        else:
            print(commands.classify(args.image, game, args.calibration,
                                    as_json=args.json, players=args.players))
        return 0
    except ImportError as exc:
        raise ValueError(f"the camera needs OpenCV: pip install 'tavola[vision]' ({exc})") \
            from exc


def _start_position(game: str, players: int) -> dict[str, str]:
    """``calibrate --position start``: the game's start position (draughts' 24 men, Quixo's
    blank cubes), so the commonest calibration needs no position file written by hand."""
    from tavola.games import new_game

    start = new_game(game, **({"players": players} if players != 2 else {})).view("identity")
    if not any(start.values()):
        raise ValueError(f"{game}'s start position shows no pieces to learn: put one piece "
                         f"of each kind on the board and give their position file "
                         f"(docs/vision.md, Calibration)")
    return dict(start)


def _journal(args: argparse.Namespace) -> Any:
    import os

    from tavola.config import load_config
    from tavola.journal import journal_to_read

    config = load_config(args.config, os.environ, {"journal.directory": args.journal})
    return journal_to_read(config.journal.directory, config.sources.get("journal.directory"))


def _cmd_games(args: argparse.Namespace) -> int:
    journal = _journal(args)
    records = journal.records()
    if not records:
        besides = journal.unfinished()
        print(f"No finished games yet in {journal.directory}" +
              (f"; it holds {besides}." if besides else "."))
    for r in records:
        variant = f" ({r.variant})" if r.variant else ""
        print(f"{r.id}  {r.date} UTC  {r.game}{variant}  {r.score} {r.reason}  {r.actions} actions")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from tavola.export import export_record

    print(export_record(_journal(args).load(args.id)), end="")
    return 0


def _cmd_event(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from tavola.config import load_config

    overrides = {"event.event": args.event, "event.broker": args.broker,
                 "event.console_listen": args.listen}
    config = load_config(args.config, os.environ, overrides)
    if not config.event.event:
        raise ValueError("name the event: [event] event = \"club-2026-11\" in the config, "
                         "or --event club-2026-11")
    try:
        from tavola.event.console import serve
    except ImportError as exc:
        raise ValueError(f"tavola event needs aiomqtt and aiohttp ({exc}): "
                         f"pip install 'tavola[event]'") from None
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config.event, config.web.pin))
    return 0


def _cmd_endgames(args: argparse.Namespace) -> int:
    import tempfile
    import time

    from tavola.ai import morris_endgames
    from tavola.ai.morris_retrograde import build

    directory = Path(args.dir) if args.dir else morris_endgames.default_directory()
    tables = tuple(t.strip() for t in args.tables.split(",") if t.strip())
    unknown = [t for t in tables if t not in morris_endgames.TABLES]
    if unknown or not tables:
        raise ValueError(f"--tables {args.tables!r}: choose from "
                         f"{','.join(morris_endgames.TABLES)}")
    try:  # before the build, not after its minutes: can the tables be kept there?
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as exc:
        raise ValueError(f"cannot keep the endgame tables in {directory} "
                         f"({exc.strerror or exc}); give --dir a folder this user may "
                         f"write, or set TAVOLA_ENDGAMES") from None
    start = time.monotonic()
    say = print if args.verbose else (lambda text: None)
    built = build(tables, say)
    stats = {name: {"won": int((v > 0).sum()), "lost": int((v < 0).sum()),
                    "longest_win_turns": int(1000 - v[v > 0].min()) if (v > 0).any() else 0}
             for name, v in built.items()}
    morris_endgames.save(built, directory, stats)
    for name, row in stats.items():
        print(f"{name}: {row['won']} won and {row['lost']} lost for the player to move, "
              f"longest win {row['longest_win_turns']} turns")
    print(f"Wrote {', '.join(sorted(built))} to {directory} in {time.monotonic() - start:.0f} s.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tavola", description="An electronic referee for wooden board games."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("play", help="play a game in the terminal (two or more people)")
    p.add_argument("game", nargs="?", help=f"one of: {', '.join(GAMES)}")
    p.add_argument("--variant", help="rule set, e.g. russian for draughts")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a game parameter (repeatable), e.g. -p flying=false")
    p.add_argument("--load", metavar="FILE", help="resume a game saved with 'save FILE'")
    p.add_argument("--opponent", choices=("ai",), help="the computer plays one side")
    p.add_argument("--level", default="club", help="the computer's strength: beginner, "
                   "club, strongest (docs/ai.md)")
    p.add_argument("--ai-plays", type=int, metavar="PLAYER",
                   help="the player the computer plays (0 moves first; default: the last)")
    p.add_argument("--seed", type=int, default=0, help="replays the computer's choices")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("run", help="run the board daemon (the simulator unless configured)")
    p.add_argument("--config", type=Path, help="a TOML config (default: $TAVOLA_CONFIG)")
    p.add_argument("--game", help="override [game] name")
    p.add_argument("--variant", help="override [game] variant")
    p.add_argument("--sensor", help="override [sensor] backend: sim, reed, serial, camera")
    p.add_argument("--leds", help="override [leds] backend: sim, neopixel, none")
    p.add_argument("--journal", help="override [journal] directory")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a game parameter (repeatable), e.g. -p players=4; overrides "
                   "[game.params]")
    p.add_argument("--opponent", choices=("ai",),
                   help="the computer plays one side; its moves are shown on the board")
    p.add_argument("--level", help="override [game] opponent_level: beginner, club, strongest")
    p.add_argument("--ai-plays", type=int, metavar="PLAYER",
                   help="override [game] opponent_side: the player the computer plays (0 first)")
    p.add_argument("--script", help="simulator: a file of sensor events to play")
    p.add_argument("--resume", metavar="ID", help="go on with a game kept unfinished when "
                   "another was asked for (its id is in the message that kept it)")
    p.add_argument("--console", choices=("auto", "on", "off"), default="auto",
                   help="read commands and simulated sensor events from the terminal")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("selftest", help="light every LED in turn, then name each sensor "
                       "as it changes: finds a swapped wire in a minute")
    p.add_argument("--config", type=Path, help="a TOML config (default: $TAVOLA_CONFIG)")
    p.add_argument("--game", help="the board to test, by game (its default layout)")
    p.add_argument("--sensor", help="override [sensor] backend")
    p.add_argument("--leds", help="override [leds] backend")
    p.add_argument("--step", type=_seconds, default=0.3, help="seconds each LED stays lit")
    p.add_argument("--listen", type=_seconds, default=60.0,
                   help="seconds to listen to the sensors")
    only = p.add_mutually_exclusive_group()
    only.add_argument("--leds-only", action="store_true", help="only the LED phase")
    only.add_argument("--sensor-only", action="store_true", help="only the sensor phase")
    p.set_defaults(func=_cmd_selftest)

    for name, helptext, func in (("games", "list the finished games", _cmd_games),
                                 ("export", "print a game by its id (finished, put "
                                  "aside or in progress) in its standard notation (PDN "
                                  "for draughts)",
                                  _cmd_export)):
        p = sub.add_parser(name, help=helptext)
        if name == "export":
            p.add_argument("id", help="a game id from 'tavola games'")
        p.add_argument("--config", type=Path, help="a TOML config (default: $TAVOLA_CONFIG)")
        p.add_argument("--journal", help="the journal directory")
        p.set_defaults(func=func)

    p = sub.add_parser("vision", help="the overhead camera: marker sheet, calibration, "
                       "reading a picture")
    vsub = p.add_subparsers(dest="vision_command", required=True)
    v = vsub.add_parser("markers", help="write the printable ArUco marker sheet")
    v.add_argument("--cell-mm", type=float, default=40.0,
                   help="the board's cell size in mm (Quinque: a skydiver, half a tile's side)")
    v.add_argument("--game", help="label the sheet for this game's board")
    v.add_argument("-o", "--output", default="markers.svg", help="an .svg or .pdf file")
    v = vsub.add_parser("calibrate", help="learn the pieces' colours from one picture of a "
                        "known position")
    v.add_argument("image")
    v.add_argument("--game", required=True)
    v.add_argument("--position", required=True, help='JSON {"cells": {"a1": "RY", ...}}, or '
                   '"start": the game\'s start position (draughts, Quixo)')
    v.add_argument("-o", "--output", required=True, help="the calibration file to write")
    v.add_argument("--players", type=int, default=2)
    v = vsub.add_parser("check", help="judge the camera's setup from one picture: markers, "
                        "tilt, glare, focus (exit status 1 if something needs fixing)")
    v.add_argument("image", nargs="?", help="a picture of the board (or --source)")
    v.add_argument("--game", required=True)
    v.add_argument("--source", help="take the picture with this camera: 0, 1 ... (USB), "
                   "picamera2, or a video file (stop tavola run first)")
    v.add_argument("--calibration", help="read as with this file from 'tavola vision "
                   "calibrate'")
    v.add_argument("--players", type=int, default=2)
    v = vsub.add_parser("classify", help="read the position in a picture")
    v.add_argument("image")
    v.add_argument("--game", required=True)
    v.add_argument("--calibration", help="a file from 'tavola vision calibrate'")
    v.add_argument("--json", action="store_true", help='print {"cells": {...}}')
    v.add_argument("--players", type=int, default=2)
    p.set_defaults(func=_cmd_vision)

    p = sub.add_parser("endgames", help="build the morris endgame tables used by hints and "
                       "the computer opponent (needs numpy; a minute or two)")
    p.add_argument("action", choices=("build",))
    p.add_argument("--dir", help="where to cache them (default: $TAVOLA_ENDGAMES, else "
                   "$CACHE_DIRECTORY/endgames, else ~/.cache/tavola/endgames)")
    p.add_argument("--tables", default="3v3,3v4,4v3", help="which material, e.g. 3v3")
    p.add_argument("-v", "--verbose", action="store_true", help="show every sweep")
    p.set_defaults(func=_cmd_endgames)

    p = sub.add_parser("event", help="the arbiter's console of a club event: every table "
                       "live from the MQTT broker, referee actions, results (docs/event.md)")
    p.add_argument("--config", type=Path, help="a TOML config with [event] (the broker, the "
                   "arbiter's account) and [web] pin (default: $TAVOLA_CONFIG)")
    p.add_argument("--event", help="override [event] event")
    p.add_argument("--broker", help="override [event] broker, HOST:PORT")
    p.add_argument("--listen", help="override [event] console_listen, HOST:PORT")
    p.set_defaults(func=_cmd_event)

    p = sub.add_parser("rules", help="list the games, their parameters and variants")
    p.add_argument("game", nargs="?")
    p.set_defaults(func=_cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
        return result
    except KeyboardInterrupt:
        return 130
    except (ValueError, OSError) as exc:
        if args.debug:
            raise
        print(f"tavola: error: {_said(exc) if isinstance(exc, OSError) else exc}",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
