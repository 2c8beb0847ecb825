"""The camera as a referee on the committed 3D set (bench/referee3d.py): the game is set to
each frame's position (or to one found an action before it) and the reading goes to the
daemon's inference. A misread trusted could be recorded as a move nobody made (a phantom)
or as another move than the one made; a misread doubted is left to the rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.referee3d import GAMES, before_move, judge, position, tally_set, verdicts
from tavola.vision.source import read_image

DATA = Path(__file__).parent / "data3d"
# Frames shown as a mismatch (a false alarm, never a move recorded): none in Quinque now.
# quinque-086's orange backpack, lit short of blown with its footprint, was read free
# and is doubted now; -135 (a new game's one tile under an area light, no tile found)
# is named from the position and doubted. Red backpacks a cool
# light tints pink (quinque-110, -163), once
# read free and trusted, are doubted now: their moves wait; since Quinque's frames were
# rendered again with markers sized in tiles, -196 (a red backpack blown out but for a
# faint pink) waits too, and -123 (a red lit pink, not blown) is read right.
# draughts-208: a black king mirroring a point lamp, as white as paper, read white with
# confidence 0.502 (its top fades by 7.7 in lightness; white men's fade up to 9).
MISMATCHES = {"draughts": 1}
# Moves that wait (the cells the move changed are doubted, so nothing surely changed: the
# piece may still be in the hand) or ask the players which (morris: a man read nowhere
# surely may have gone to either of two doubted points). About one move in ten; most are
# a piece a lamp's reflection blows out on its new cell (tessere-008, morris-007).
# Quinque's frames 177-196 add three (quinque-190: a cluster of seven tiles an area
# light's reflection blows out, all doubted).
# Frames 197-216 add two in morris, one in draughts and one in tessere.
WAITS = {"morris": 9, "draughts": 3, "quixo": 9, "tessere": 11, "quinque": 15}


def test_a_trusted_misread_a_legal_move_explains_is_a_phantom_and_a_doubted_one_is_not() -> None:
    # The judge can fail: a morris man read one point over, trusted, is a slide recorded.
    for path in sorted(DATA.glob("morris-*.json")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        game = position("morris", cells)
        slides = [m for m in game.legal_moves() if str(m).count("-") == 1]
        if slides:
            break
    src, dst = str(slides[0]).split("-")
    moved = dict(cells) | {src: "", dst: cells[src]}
    assert judge(game, moved, frozenset()) == "phantom"
    assert judge(game, moved, frozenset({src, dst})) == "right"
    assert judge(game, dict(cells), frozenset()) == "right"


def test_a_move_read_with_a_trusted_misread_is_recorded_wrong_and_a_doubted_one_waits() -> None:
    # draughts-000: the man that stepped to b4 came from a3 (before_move finds it).
    cells = json.loads((DATA / "draughts-000.json").read_text(encoding="utf-8"))["cells"]
    found = before_move("draughts", cells)
    assert found is not None
    game, move = found
    assert str(move) == "a3-b4" and game.view("identity")["a3"] == "W"
    assert judge(game, dict(cells), frozenset(), move) == "right"
    # A reading that another legal action explains (misreads trusted) records that one.
    other = next(m for m in game.legal_moves() if str(m) != str(move))
    game.apply(other)
    misread = {c: v[:1] for c, v in game.view("identity").items()}  # colours, as read
    game.undo()
    assert judge(game, misread, frozenset(), move) == "wrong"
    # The man's new square doubted: the only action that explains the rest is his step.
    assert judge(game, dict(cells) | {"b4": ""}, frozenset({"b4"}), move) == "right"
    # Both squares doubted: nothing read surely changed, so nothing is recorded (yet).
    assert judge(game, dict(cells), frozenset({"a3", "b4"}), move) == "missed"


@pytest.mark.parametrize("game", GAMES)
def test_the_first_still_frames_record_nothing(game: str) -> None:
    for path in sorted(DATA.glob(f"{game}-*.json"))[:6]:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if not meta["hand"]:
            for kind in verdicts(game, meta, read_image(path.with_suffix(".jpg"))):
                assert kind in ("right", "unloadable", "hand"), (path.stem, kind)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_no_frame_of_the_set_records_a_move_not_made(game: str) -> None:
    still, moved, named = tally_set(DATA, game)
    assert still["phantom"] == still["takeback"] == still["asked"] == 0, named
    assert still["mismatch"] <= MISMATCHES.get(game, 0), named
    assert still["right"] >= 100, still  # most of the set's positions load
    assert moved["wrong"] == moved["takeback"] == 0, named
    assert moved["mismatch"] <= MISMATCHES.get(game, 0), named
    assert moved["missed"] + moved["asked"] <= WAITS.get(game, 0), named
