"""What real hands do with the pieces, one behaviour at a time (issue 11).

Each test is a minimal reproduction: a few raw contact changes, debounced as the sensor
does (5 ms) and fed to a :class:`Session` with the daemon's defaults (settle 0.3 s, grace
3 s, a tick every 0.05 s), in arbiter policy so that any flag would show. Time is virtual.
"""

from __future__ import annotations

from typing import Any

import pytest

from tavola.config import InferenceConfig
from tavola.daemon import TICK_SECONDS
from tavola.games import Game, new_game
from tavola.hardware.hands import Raw, settled
from tavola.hardware.layout import Layout
from tavola.hardware.sim import SimSensor
from tavola.inference import Ambiguous
from tavola.record import (
    ActionEntry,
    AmendEntry,
    Entry,
    Record,
    ResultEntry,
    StartEntry,
    replay,
)
from tavola.session import Session
from tests.positions import morris_moving_phase

CFG = InferenceConfig()


class Table:
    """A session fed from raw contact changes on a physical board (cell -> token)."""

    def __init__(self, game: Game[Any], *, policy: str = "arbiter") -> None:
        self.layout = Layout.for_game(game.name)
        self.occupancy = game.needs == "occupancy"
        self.session = Session(game, self.layout, game.needs, cells=self.layout.cells,
                               policy=policy,  # type: ignore[arg-type]
                               settle=CFG.settle, grace=CFG.grace)
        self.board = game.view("identity")
        self.now = 0.0
        self.entries: list[Entry] = []
        self.logs: list[str] = []
        self.session.start(0.0, 0.0)
        self.session.on_snapshot(self._reading(self.board), 0.0, 0.0)

    def _reading(self, board: dict[str, str]) -> dict[str, str]:
        return {c: ("#" if self.occupancy and t else t) for c, t in board.items()}

    def hands(self, *steps: tuple[float, str, str], then: float = 1.5) -> None:
        """Raw changes ``(seconds after the last one, cell, token)``, then ``then`` seconds
        of stillness."""
        raw: list[Raw] = []
        at = self.now
        for delay, cell, token in steps:
            at += delay
            raw.append((at, cell, token))
        snaps = settled(raw, self.board, 0.005, self.occupancy)
        for _, cell, token in raw:
            self.board[cell] = token
        end = at + then
        i = 0
        tick = self.now
        while True:
            tick_next = tick + TICK_SECONDS
            snap_at = snaps[i][0] if i < len(snaps) else float("inf")
            if min(tick_next, snap_at) > end:
                break
            if snap_at <= tick_next:
                self._take(self.session.on_snapshot(snaps[i][1], snap_at, snap_at))
                i += 1
            else:
                tick = tick_next
                self._take(self.session.tick(tick, tick))
        self.now = end

    def _take(self, fx: Any) -> None:
        self.entries += fx.journal
        self.logs += fx.log

    def play(self, *texts: str) -> None:
        """Set the game and the board to after these actions (played cleanly)."""
        game = self.session.game
        for text in texts:
            game.apply(game.parse_move(text))
        self.session.inference.reset()
        self.session.window = 0
        self.board = game.view("identity")
        self.session.on_snapshot(self._reading(self.board), self.now, self.now)

    @property
    def played(self) -> list[str]:
        return [str(m) for m in self.session.game.history]

    def kinds(self) -> list[str]:
        return [e.TYPE for e in self.entries if e.TYPE != "clock"]

    @property
    def flags(self) -> int:
        return sum(self.session.flags)


def morris_moving() -> Game[Any]:
    """Morris with all 18 men placed and no mill: the moving phase."""
    game = morris_moving_phase()
    return game


# ------------------------------------------------------------------ slides and rests
def two_places(game: Game[Any]) -> tuple[str, str]:
    """Two cells where the Sequence player to move can put a chip with one card each."""
    cells: dict[str, int] = {}
    for move in game.legal_moves():
        if "@" in str(move):
            cell = str(move).split("@")[1]
            cells[cell] = cells.get(cell, 0) + 1
    unique = sorted(c for c, n in cells.items() if n == 1)
    assert len(unique) >= 2
    return unique[0], unique[1]


@pytest.mark.parametrize(("name", "token", "over", "target", "move"), [
    ("morris", "W", "d3", "d2", "d2"),
    ("tessere", "RY", "c4", "c3", "RY@c3"),
    ("sequence-kids", "R", "", "", ""),
])
def test_a_piece_slid_in_resting_on_a_free_cell_is_placed_where_it_stops(
        name: str, token: str, over: str, target: str, move: str) -> None:
    t = Table(new_game(name, **({"seed": 7} if name == "sequence-kids" else {})))
    if name == "sequence-kids":
        over, target = two_places(t.session.game)
    t.hands((0.0, over, token), (0.12, over, ""), (0.0, target, token))
    assert t.played[-1].endswith(move or "@" + target) and len(t.played) == 1
    assert t.kinds() == ["action"] and t.flags == 0


def test_a_slide_across_cells_in_draughts_is_one_move() -> None:
    t = Table(new_game("draughts"))
    t.hands((0.0, "c3", ""), (0.05, "d4", "W"), (0.1, "d4", ""), (0.0, "e5", "W"), then=0.1)
    t.hands((0.0, "e5", ""), (0.0, "d4", "W"))  # changed their mind: c3-d4
    assert t.played == ["c3-d4"] and t.kinds() == ["action"]


# ------------------------------------------------------------------ wrong cell, corrected
@pytest.mark.parametrize("rest", [0.15, 1.5])
@pytest.mark.parametrize("lift_off", [False, True])
def test_a_morris_man_set_on_the_wrong_cell_and_moved_is_a_correction(
        rest: float, lift_off: bool) -> None:
    t = Table(new_game("morris"))
    air = 0.3 if lift_off else 0.01
    t.hands((0.0, "d3", "W"), (rest, "d3", ""), (air, "d2", "W"))
    assert t.played == ["d2"]
    assert t.flags == 0 and "illegal" not in t.kinds() and "undo" not in t.kinds()
    if rest > CFG.settle:  # it had been accepted on d3: now amended, for the record
        assert t.kinds() == ["action", "amend"]
        amend = t.entries[-1]
        assert isinstance(amend, AmendEntry)
        assert (amend.replaced, amend.moves, amend.player) == (("d3",), ("d2",), 0)
        assert any("corrected to d2" in line for line in t.logs)
    else:
        assert t.kinds() == ["action"]


@pytest.mark.parametrize(("name", "first", "wrong", "right", "token"), [
    ("tessere", (), "c4", "c3", "RY"),
    ("sequence-kids", (), "", "", "R"),
    ("draughts", (), "b4", "d4", "W"),
    ("morris", ("moving",), "", "", "W"),
])
def test_a_correction_after_a_second_is_an_amendment_in_every_game(
        name: str, first: tuple[str, ...], wrong: str, right: str, token: str) -> None:
    if name == "morris":
        game = morris_moving()
        moves = [m for m in game.legal_moves()]
        origin = str(moves[0])[:2]
        dests = [str(m)[3:] for m in moves if str(m).startswith(origin)]
        if len(dests) < 2:
            pytest.skip("no man with two destinations")
        wrong, right = dests[0], dests[1]
        t = Table(game)
        t.hands((0.0, origin, ""), (0.2, wrong, token), then=1.5)
    else:
        t = Table(new_game(name, **({"seed": 7} if name == "sequence-kids" else {})))
        if name == "sequence-kids":
            wrong, right = two_places(t.session.game)
        if name == "draughts":
            t.hands((0.0, "c3", ""), (0.2, wrong, token), then=1.5)
        else:
            t.hands((0.0, wrong, token), then=1.5)
    before = len(t.played)
    assert wrong in t.played[-1]
    t.hands((0.0, wrong, ""), (0.01, right, token))
    assert len(t.played) == before and right in t.played[-1] and wrong not in t.played[-1]
    assert t.kinds() == ["action", "amend"] and t.flags == 0


def test_a_tessere_piece_one_cell_off_that_completes_a_line_does_not_end_the_game() -> None:
    t = Table(new_game("tessere"))
    t.play("G@a1", "YG@e5", "GB@e1")  # RYGB on a5 would complete the corners
    t.hands((0.0, "a5", "RYGB"), (0.15, "a5", ""), (0.01, "b5", "RYGB"))
    assert t.played[-1] == "RYGB@b5" and t.session.game.outcome() is None
    assert "result" not in t.kinds()


@pytest.mark.parametrize("lift_off", [True, False])
def test_a_winning_piece_resting_on_the_wrong_cell_then_moved_is_an_amendment(
    lift_off: bool,
) -> None:
    t = Table(new_game("tessere"))
    t.play("G@a1", "YG@e5", "GB@e1")  # RYGB on a5 would complete the corners
    # It rests 1.2 s on a5 (accepted: the game is won), then goes to b5 after all,
    # lifted off or slid over.
    t.hands((0.0, "a5", "RYGB"), (1.2, "a5", ""), (0.15 if lift_off else 0.01, "b5", "RYGB"),
            then=CFG.grace + 1.0)
    assert t.played[-1] == "RYGB@b5" and t.session.game.outcome() is None
    assert t.kinds() == ["action", "amend"] and t.flags == 0
    assert not any(line.startswith("Game over") for line in t.logs)
    replayed = replay(Record(HEADER_TESSERE, (*set_up("G@a1", "YG@e5", "GB@e1"), *t.entries)))
    assert replayed.game.history == t.session.game.history and replayed.result is None


def test_a_winning_piece_corrected_to_another_winning_cell_is_one_result() -> None:
    t = Table(new_game("tessere"))
    t.play("G@a1", "YG@e5", "GB@e1")
    t.hands((0.0, "b5", "RYGB"), (1.2, "b5", ""), (0.15, "a5", "RYGB"), then=1.0)
    assert t.played[-1] == "RYGB@a5" and t.kinds() == ["action", "amend"]
    t.hands(then=3.0)  # the result waits for the grace time, then is journaled once
    assert t.kinds() == ["action", "amend", "result"]
    assert any(line.startswith("Game over") for line in t.logs)


def test_the_result_of_a_winning_piece_left_in_place_is_journaled_after_the_grace_time(
) -> None:
    t = Table(new_game("tessere"))
    t.play("G@a1", "YG@e5", "GB@e1")
    t.hands((0.0, "a5", "RYGB"), then=1.0)
    assert t.kinds() == ["action"] and t.session.game.outcome() is not None
    t.hands(then=CFG.grace)
    assert t.kinds() == ["action", "result"]
    action, result = t.entries
    assert isinstance(action, ActionEntry) and isinstance(result, ResultEntry)
    assert result.mono == pytest.approx(action.mono)  # dated when the game was won
    replayed = replay(Record(HEADER_TESSERE, (*set_up("G@a1", "YG@e5", "GB@e1"), *t.entries)))
    assert replayed.game.outcome() is not None and replayed.result is not None


HEADER_TESSERE = StartEntry.of(new_game("tessere"), game_id="x", wall=0.0)


def set_up(*texts: str) -> tuple[ActionEntry, ...]:
    """Journal entries for tessere actions played before a test's hands."""
    game = new_game("tessere")
    entries = []
    for text in texts:
        player = game.current_player
        game.apply(game.parse_move(text))
        entries.append(ActionEntry(text, player, len(game.history), 0.0, 0.0))
    return tuple(entries)


def test_the_correction_window_closes_when_the_next_player_acts() -> None:
    t = Table(new_game("morris"))
    t.hands((0.0, "d3", "W"))
    t.hands((0.0, "a1", "B"))  # Black replied: White's d3 stands
    t.hands((0.0, "d3", ""), (0.01, "d2", "W"), then=4.0)
    assert t.played == ["d3", "a1"] and "amend" not in t.kinds()
    assert t.kinds()[-1] == "illegal"


# ------------------------------------------------------------------ touches and dropouts
def test_a_finger_on_a_neighbour_cell_is_nothing() -> None:
    t = Table(new_game("morris"))
    t.hands((0.0, "d2", "W"))
    t.hands((0.0, "d3", "W"), (0.15, "d3", ""))
    assert t.played == ["d2"] and t.kinds() == ["action"]


@pytest.mark.parametrize("length", [0.01, 0.03])
def test_a_reed_dropout_under_the_last_piece_is_nothing(length: float) -> None:
    t = Table(new_game("morris"))
    t.hands((0.0, "d2", "W"))
    t.hands((0.0, "d2", ""), (length, "d2", "W"))
    assert t.played == ["d2"] and t.kinds() == ["action"] and t.flags == 0


def test_a_dropout_while_a_piece_settles_only_delays_it() -> None:
    t = Table(new_game("morris"))
    t.hands((0.0, "d2", "W"), (0.2, "d2", ""), (0.02, "d2", "W"))
    assert t.played == ["d2"] and t.kinds() == ["action"]


# ------------------------------------------------------------------ morris removals
def mill_ready() -> Table:
    t = Table(new_game("morris"))
    t.play("a1", "b2", "a4", "b4")  # White closes a1-a4-a7 with a7
    return t


def test_the_opponents_man_removed_before_the_mill_is_closed() -> None:
    t = mill_ready()
    t.hands((0.0, "b2", ""), (0.6, "a7", "W"))
    assert t.played[-2:] == ["a7", "xb2"] and t.kinds() == ["action", "action"]


def test_a_mill_and_its_removal_in_quick_succession() -> None:
    t = mill_ready()
    t.hands((0.0, "a7", "W"), (0.15, "b4", ""))
    assert t.played[-2:] == ["a7", "xb4"]


def test_a_removed_man_put_back_is_ambiguous_in_the_placement_phase() -> None:
    t = mill_ready()
    t.hands((0.0, "a7", "W"), (0.5, "b2", ""))
    assert t.played[-1] == "xb2"
    t.hands((0.0, "b2", "B"))  # put back: a takeback, or Black placing on b2?
    result = t.session.result
    assert isinstance(result, Ambiguous) and result.takeback == 1
    assert [str(s[0]) for s in result.candidates] == ["b2"]
    assert t.played[-1] == "xb2" and "ambiguous: type play b2 or undo" in t.session.status()
    t.hands((0.0, "b4", ""))  # no: White takes the other man
    assert t.played[-2:] == ["a7", "xb4"] and t.kinds()[-1] == "amend" and t.flags == 0


def test_a_removal_taken_back_in_the_moving_phase_is_not_flagged() -> None:
    game = new_game("morris")
    board = dict.fromkeys(game.view(), "")
    board.update(a1="W", a4="W", d7="W", f4="W", b2="B", d5="B", e3="B", g1="B")
    game.set_position({"board": board, "hand": [0, 0], "to_move": 0})
    t = Table(game)
    t.hands((0.0, "d7", ""), (0.2, "a7", "W"))  # a1-a4-a7 closes the mill
    assert t.played == ["d7-a7"]
    t.hands((0.0, "d5", ""))
    assert t.played == ["d7-a7", "xd5"]
    t.hands((0.0, "d5", "B"))  # put back: Black cannot place, so it is a takeback
    t.hands((0.0, "g1", ""))  # and the man White meant
    assert t.played == ["d7-a7", "xg1"] and t.flags == 0 and "illegal" not in t.kinds()


def moving_phase_mill() -> Table:
    """White, in the moving phase, about to close a1-a4-a7 with d7-a7."""
    game = new_game("morris")
    board = dict.fromkeys(game.view(), "")
    board.update(a1="W", a4="W", d7="W", f4="W", b2="B", d5="B", e3="B", g1="B")
    game.set_position({"board": board, "hand": [0, 0], "to_move": 0})
    return Table(game)


def test_a_removed_man_held_then_put_back_and_another_taken_is_one_removal() -> None:
    t = moving_phase_mill()
    t.hands((0.0, "d7", ""), (0.2, "a7", "W"))
    t.hands((0.0, "d5", ""), (0.6, "d5", "B"), then=0.5)  # held 0.6 s, then put back
    t.hands((0.0, "g1", ""))  # and the man White meant
    assert t.played == ["d7-a7", "xg1"]
    assert t.kinds() == ["action", "action", "amend"] and t.flags == 0


def test_a_removed_man_put_back_for_good_is_taken_back() -> None:
    t = moving_phase_mill()
    t.hands((0.0, "d7", ""), (0.2, "a7", "W"))
    t.hands((0.0, "d5", ""), (0.6, "d5", "B"), then=2.0)
    assert t.played == ["d7-a7"] and t.kinds() == ["action", "action", "undo"]
    assert t.flags == 0


@pytest.mark.parametrize("steps", [
    ((0.0, "d5", ""), (0.5, "e4", "B")),  # the man taken first
    ((0.0, "e4", "B"), (0.15, "d5", "")),  # the mill first, and the man taken at once
])
def test_a_mill_that_takes_the_man_just_placed_or_that_man_moved_on_is_asked(
    steps: tuple[tuple[float, str, str], ...],
) -> None:
    t = Table(new_game("morris"))
    t.play("a1", "e3", "g7", "e5")
    t.hands((0.0, "d5", "W"))
    # Black closes e3-e4-e5 and takes the man White just put on d5; read as it ends, that
    # is also White moving the d5 man on to e4 (a man brushing e4 just before would look
    # the same): the board asks.
    t.hands(*steps)
    assert isinstance(t.session.result, Ambiguous) and t.played[-1] == "d5"


def test_a_mill_left_to_settle_before_the_man_is_taken_is_two_actions() -> None:
    t = Table(new_game("morris"))
    t.play("a1", "e3", "g7", "e5")
    t.hands((0.0, "d5", "W"))
    t.hands((0.0, "e4", "B"), (0.5, "d5", ""))
    assert t.played[-3:] == ["d5", "e4", "xd5"] and t.kinds() == ["action"] * 3


def test_a_man_set_down_where_a_removed_man_stood_is_the_next_players_move() -> None:
    game = new_game("morris")
    board = dict.fromkeys(game.view(), "")
    board.update(a1="W", a4="W", d7="W", g7="W", f4="B", e5="B", b2="B", d2="B", c3="B")
    game.set_position({"board": board, "hand": [0, 0], "to_move": 0})
    t = Table(game)
    t.hands((0.0, "d7", ""), (0.2, "a7", "W"))
    t.hands((0.0, "f4", ""))
    assert t.played == ["d7-a7", "xf4"]
    # Black's man from e5 rests a second and a half on f4 on its way to e4: not White
    # putting f4 back and taking e5 instead.
    t.hands((0.0, "e5", ""), (0.01, "f4", "B"), (1.5, "f4", ""), (0.01, "e4", "B"))
    assert t.played == ["d7-a7", "xf4", "e5-e4"] and "amend" not in t.kinds()


# ------------------------------------------------------------------ draughts captures
def capture_position(variant: str) -> Table:
    t = Table(new_game("draughts", variant=variant))
    # White c3 can jump d4 to e5, then f6 to g7.
    t.session.game.set_position({"board": {"c3": "W", "d4": "B", "f6": "B", "a7": "B",
                                           "h2": "W"}, "turn": 0})
    t.session.inference.reset()
    t.board = t.session.game.view("identity")
    t.session.on_snapshot(t._reading(t.board), t.now, t.now)
    return t


@pytest.fixture(params=["dame", "german"])
def variant(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_captured_pieces_lifted_all_at_once_after_the_last_jump(variant: str) -> None:
    t = capture_position(variant)
    t.hands((0.0, "c3", ""), (0.2, "e5", "W"), (0.5, "e5", ""), (0.2, "g7", "W"),
            (0.4, "d4", ""), (0.01, "f6", ""))
    assert t.played[-2:] == ["c3xe5", "e5xg7"] and "undo" not in t.kinds()


def test_captured_pieces_lifted_one_by_one(variant: str) -> None:
    t = capture_position(variant)
    t.hands((0.0, "c3", ""), (0.2, "e5", "W"), (0.2, "d4", ""), (0.4, "e5", ""),
            (0.2, "g7", "W"), (0.2, "f6", ""))
    assert t.played[-2:] == ["c3xe5", "e5xg7"] and "undo" not in t.kinds()


def test_a_fast_chain_read_only_at_its_end(variant: str) -> None:
    t = capture_position(variant)
    t.hands((0.0, "c3", ""), (0.1, "e5", "W"), (0.1, "e5", ""), (0.1, "g7", "W"),
            (0.1, "d4", ""), (0.01, "f6", ""))
    assert t.played[-2:] == ["c3xe5", "e5xg7"]


def test_the_captured_piece_lifted_first_is_a_capture_not_a_huff(variant: str) -> None:
    t = capture_position(variant)
    t.hands((0.0, "d4", ""), (0.8, "c3", ""), (0.2, "e5", "W"), (0.5, "e5", ""),
            (0.2, "g7", "W"), (0.2, "f6", ""))
    assert t.played[-2:] == ["c3xe5", "e5xg7"]
    assert not any(m.startswith("huff") for m in t.played) and t.flags == 0


def test_a_king_set_one_square_off_and_corrected_is_not_read_as_the_opponents_jump() -> None:
    t = Table(new_game("draughts"))
    # Black's king c3 is going to d4; White's king h8 could jump it from e5 and land on d4.
    t.session.game.set_position({"board": {"c3": "BK", "h8": "WK", "a7": "B", "h2": "W"},
                                 "turn": 1})
    t.session.inference.reset()
    t.board = t.session.game.view("identity")
    t.session.on_snapshot(t._reading(t.board), t.now, t.now)
    t.hands((0.0, "c3", ""), (0.01, "e5", "BK"))  # one square too far: a legal move
    assert t.played == ["c3-e5"]
    t.hands((0.0, "e5", ""), (0.02, "d4", "BK"))  # moved back to d4: h8 still stands
    assert t.played == ["c3-d4"] and t.kinds() == ["action", "amend"]


# ------------------------------------------------------------------ sequence, quixo, quinque
def test_a_sequence_chip_touched_down_and_lifted_is_nothing() -> None:
    t = Table(new_game("sequence-kids", cards="declared"))
    t.hands((0.0, "c4", "R"), (0.1, "c4", ""))
    assert t.played == [] and t.kinds() == []


def test_a_quixo_push_put_back_is_a_takeback() -> None:
    t = Table(new_game("quixo"))
    # a1>e1: the cube lifted off a1, the row slid towards a1, the cube pushed in at e1.
    t.hands((0.0, "a1", ""), (0.2, "a1", "."), (0.01, "e1", "O"))
    assert t.played == ["a1>e1"]
    t.hands((0.0, "e1", ""), (0.2, "e1", "."))  # the cube taken back out, blank again
    assert t.played == [] and t.kinds() == ["action", "undo"]


def push_back_position() -> tuple[Table, dict[str, str], dict[str, str]]:
    """Quixo after e4>e5, where Circle's reply e4>e5 leaves the board as it was before
    it: a takeback and the reply read the same once done. The table, the board before
    the last push and after it."""
    t = Table(new_game("quixo"))
    t.play("b1>b5", "c1>c5", "a4>e4", "a5>e5", "a4>e4", "e2>a2")
    before = dict(t.board)
    t.play("e4>e5")
    return t, before, dict(t.board)


@pytest.mark.parametrize(("first", "then"), [("e5", "e4"), ("e4", "e5")])
def test_a_push_back_and_a_reply_are_told_apart_by_the_cube_lifted_first(
    first: str, then: str,
) -> None:
    t, before, after = push_back_position()
    assert {c for c in after if after[c] != before[c]} == {"e4", "e5"}
    # Pushing the last push back takes out the cube it pushed in (e5) first; Circle's
    # reply e4>e5 takes out its cube at e4 first.
    t.hands((0.0, first, ""), (0.03, then, ""), (0.2, then, before[then]),
            (0.02, first, before[first]))
    if first == "e5":
        assert t.played[-1] == "e2>a2" and t.kinds() == ["undo"]
    else:
        assert t.played[-2:] == ["e4>e5", "e4>e5"] and t.kinds() == ["action"]


# A bench game: after its last push, c1>e1 and d1>e1 both undo it on the board.
BLANK_PUSHES = (
    "a2>e2", "a5>a1", "a3>e3", "a4>e4", "a3>a1", "c5>a5", "d1>d5", "e4>a4", "c1>a1", "e4>e1",
    "b1>a1", "b5>b1", "e4>e1", "d1>d5", "e4>a4", "a2>e2", "c1>e1", "e5>e1", "e4>a4", "e4>e5",
    "e4>e5", "a3>a5", "a3>a1", "e1>a1", "b1>a1", "c5>c1", "a1>a5", "e4>e5", "e2>a2", "a4>a5",
    "a1>e1", "a1>a5", "a3>a1", "c5>e5", "d1>a1", "a4>a5", "e1>e5", "b5>a5", "d1>e1", "d5>e5",
    "d5>d1", "e5>e1", "a1>e1", "a4>a1", "a3>a5", "d5>d1", "e4>a4", "d1>e1",
)


@pytest.mark.parametrize("first", ["d1", "e1"])
def test_a_reply_that_has_an_equivalent_push_is_told_from_a_takeback(first: str) -> None:
    t = Table(new_game("quixo"))
    t.play(*BLANK_PUSHES[:-1])
    before = dict(t.board)
    t.play(BLANK_PUSHES[-1])
    assert {c for c in before if before[c] != t.board[c]} == {"d1", "e1"}
    # The reply d1>e1 (the same position as c1>e1) takes out d1 first; pushing d1>e1
    # back takes out e1 first.
    then = "e1" if first == "d1" else "d1"
    t.hands((0.0, first, ""), (0.03, then, ""), (0.2, "d1", before["d1"]),
            (0.02, "e1", before["e1"]))
    if first == "d1":
        assert t.played[-2:] == ["d1>e1", "d1>e1"] and t.kinds() == ["action"]
    else:
        assert t.played[-1] == BLANK_PUSHES[-2] and t.kinds() == ["undo"]


def test_a_push_back_lifted_in_one_reading_is_ambiguous() -> None:
    t, before, _ = push_back_position()
    t.hands((0.0, "e5", ""), (0.0, "e4", ""), (0.2, "e4", before["e4"]),
            (0.02, "e5", before["e5"]))
    result = t.session.result
    assert isinstance(result, Ambiguous) and result.takeback == 1 and t.kinds() == []


def test_a_quixo_push_is_recorded_as_the_push_the_player_made() -> None:
    game = new_game("quixo")
    layout = Layout.for_game("quixo")
    sensor = SimSensor(layout, "identity", start=game.view())
    session = Session(game, layout, "identity", cells=layout.cells,
                      settle=CFG.settle, grace=CFG.grace)
    session.start(0.0, 0.0)
    sensor.command(session.complete_sim_move("e5>a5"))  # the documented notation
    now = 0.0
    for _ in range(40):
        now += TICK_SECONDS
        sensor.advance(TICK_SECONDS)
        for event in sensor.drain():
            session.on_snapshot(event.cells, now, now)  # type: ignore[union-attr]
        session.tick(now, now)
    assert [str(m) for m in game.history] == ["e5>a5"]  # not the equivalent a1>a5


def test_a_dropout_just_before_a_push_does_not_name_the_cube_taken() -> None:
    t = Table(new_game("quixo"))
    # b1>a1 and c1>a1 leave the same board; a 15 ms misread of c1 comes first.
    t.hands((0.0, "c1", ""), (0.015, "c1", "."), (0.0, "b1", ""), (0.2, "b1", "."),
            (0.01, "a1", "O"))
    assert t.played == ["b1>a1"]


def test_the_tile_the_opponent_just_added_moved_by_the_player_to_move() -> None:
    game = new_game("quinque")
    t = Table(game)
    t.play("m 0,0", "t 2,0")  # Orange adds tile (1,0) and marks (2,0)
    t.play("pass")
    moves = [str(m) for m in game.legal_moves() if str(m).startswith("1,0>")]
    assert moves
    probe = game.copy()
    probe.apply(probe.parse_move(moves[0]))
    after = probe.view("identity")
    steps = [(0.0, c, "") for c in sorted(t.board) if c not in after]
    steps += [(0.3 if i == 0 else 0.01, c, after[c])
              for i, c in enumerate(sorted(c for c in after if c not in t.board))]
    t.hands(*steps)
    assert t.played[-1] == moves[0] and "undo" not in t.kinds()


# ------------------------------------------------------------------ takebacks by hand
def test_a_quinque_takeback_of_three_actions_one_at_a_time() -> None:
    game = new_game("quinque")
    t = Table(game)
    t.play("m 1,1", "t 0,-1", "0,0>0,-2", "0,-2>-1,-1", "-1,-1>0,0")  # the tile, twice
    views = [_view_after(game, len(game.history) - k) for k in (2, 1, 0)]
    t.hands(*_steps(t.board, _view_after(game, None, "m 1,-2")))  # the opponent marks
    assert t.played[-1] == "m 1,-2"
    # Taken back one action at a time: the mark (off for 0.8 s: it may still be in a
    # hand), then the tile back along its way, held a second (that could also be the
    # opponent moving it back instead of marking: the board asks), then on. Once done,
    # the board is also the opponent's mark replaced by moving the tile straight back (an
    # amendment of one action, cheaper than undoing three); the position shown on the way
    # says it is the takeback.
    for view, hold in zip(reversed(views), (0.8, 1.1, 1.5), strict=True):
        t.hands(*_steps(t.board, view), then=hold)
    assert t.played == ["m 1,1", "t 0,-1", "0,0>0,-2"] and t.kinds()[1:] == ["undo"] * 3


def _view_after(game: Game[Any], ply: int | None, *more: str) -> dict[str, str]:
    """The identity view of ``game`` at ``ply`` (None: now), then ``more`` actions."""
    probe = game.copy()
    while ply is not None and len(probe.history) > ply:
        probe.undo()
    for text in more:
        probe.apply(probe.parse_move(text))
    view: dict[str, str] = probe.view("identity")
    return view


def _steps(board: dict[str, str], view: dict[str, str]) -> list[tuple[float, str, str]]:
    """Raw changes from ``board`` to ``view``: pieces off first, then pieces on."""
    off = [(0.01, c, "") for c in sorted(board) if board[c] and view.get(c, "") != board[c]]
    on = [(0.01, c, v) for c, v in sorted(view.items()) if v and board.get(c, "") != v]
    return off + on



@pytest.mark.parametrize("plies", [1, 2, 3])
def test_takebacks_of_one_to_three_moves_by_hand(plies: int) -> None:
    game = morris_moving()
    t = Table(game)
    history: list[tuple[str, str]] = []
    for _ in range(3):  # three slides, the pieces moved on the board
        move = next(m for m in game.legal_moves() if "-" in str(m))
        src, dst = str(move).split("-")
        token = t.board[src]
        t.hands((0.0, src, ""), (0.2, dst, token))
        history.append((src, dst))
    played = list(t.played)
    for src, dst in reversed(history[-plies:]):
        token = t.board[dst]
        t.hands((0.0, dst, ""), (0.2, src, token), then=0.6)
    t.hands(then=1.0)
    assert t.played == played[: len(played) - plies]
    assert t.kinds().count("undo") == plies


def test_two_quick_placements_are_both_read() -> None:
    t = Table(new_game("morris"))
    t.hands((0.0, "d2", "W"), (0.2, "a1", "B"))
    assert t.played == ["d2", "a1"]


def test_an_amendment_replays_from_the_journal() -> None:
    t = Table(new_game("morris"))
    t.hands((0.0, "d3", "W"))
    t.hands((0.0, "d3", ""), (0.01, "d2", "W"))
    header = StartEntry.of(new_game("morris"), game_id="x", wall=0.0)
    replayed = replay(Record(header, tuple(t.entries))).game
    assert [str(m) for m in replayed.history] == ["d2"]
