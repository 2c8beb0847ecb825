"""Sequence for Kids: the rules of RULES.md section 3 and every parameter, edge by edge.

Positions are set up with ``set_position``: in ``cards=dealt`` with chosen hands (the other
cards go to the deck), in ``cards=declared`` with hidden hands ('?') and chosen discards.
The default board (controller/games/data/sequence_kids_layout.toml), rank by rank:

    7  free      fox       ostrich   gorilla   whale     free
    6  alligator elephant  lion      tiger     zebra     giraffe
    5  monkey    panda     penguin   kangaroo  hippo     rhino
    4  koala     camel     parrot    parrot    camel     koala
    3  rhino     hippo     kangaroo  penguin   panda     monkey
    2  giraffe   zebra     tiger     lion      elephant  alligator
    1  free      whale     gorilla   ostrich   fox       free
"""

from __future__ import annotations

import json
import random
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from tavola.games import IllegalMoveError, new_game
from tavola.games.sequence_kids import (
    WINDOWS,
    Dead,
    Dragon,
    Pass,
    Place,
    SequenceKids,
    load_layout,
    parse_layout,
)

ANIMALS = [
    "alligator",
    "camel",
    "elephant",
    "fox",
    "giraffe",
    "gorilla",
    "hippo",
    "kangaroo",
    "koala",
    "lion",
    "monkey",
    "ostrich",
    "panda",
    "parrot",
    "penguin",
    "rhino",
    "tiger",
    "whale",
    "zebra",
]
FULL_DECK = Counter({**{a: 2 for a in ANIMALS}, "dragon": 2, "unicorn": 2})
CORNERS = {"a1", "f1", "a7", "f7"}
CELLS = [f"{f}{r}" for r in range(1, 8) for f in "abcdef"]

# A full board (19 R, 19 Y) where no colour has 4 in a line, corners included.
FULL_BOARD = """
*YRRY*
YYRYRY
RRRYYR
YYYRRR
RRRYYY
YYYRRY
*RYRR*
"""


def picture(text: str) -> dict[str, str]:
    """A board drawn rank 7 first: '.' empty, '*' a corner, a letter a chip."""
    rows = [line.strip() for line in text.strip().splitlines()]
    assert len(rows) == 7 and all(len(r) == 6 for r in rows)
    board = {}
    for top, row in enumerate(rows):
        for f, ch in enumerate(row):
            if ch not in ".*":
                board[f"{'abcdef'[f]}{7 - top}"] = ch
    return board


def dealt(
    hands: list[list[str]],
    board: dict[str, str] | None = None,
    deck_top: tuple[str, ...] = (),
    discards: list[list[str]] | None = None,
    to_move: int = 0,
    **params: Any,
) -> SequenceKids:
    """A dealt game with the given hands; the other cards lie in the deck under deck_top."""
    g = SequenceKids(seed=1, players=len(hands), **params)
    piles = discards or [[] for _ in hands]
    rest = FULL_DECK.copy()
    for card in [*(c for h in hands for c in h), *deck_top, *(c for p in piles for c in p)]:
        rest[card] -= 1
        assert rest[card] >= 0, card
    state = {
        "board": board or {},
        "hands": hands,
        "deck": [*deck_top, *sorted(rest.elements())],
        "discards": piles,
        "to_move": to_move,
    }
    g.set_position(state)
    return g


def declared(
    board: dict[str, str] | None = None,
    discards: list[list[str]] | None = None,
    deck: int | None = None,
    players: int = 2,
    to_move: int = 0,
    **params: Any,
) -> SequenceKids:
    """A declared-cards game: hands and deck unknown, the discard piles as given."""
    g = SequenceKids(cards="declared", players=players, **params)
    piles = discards or [[] for _ in range(players)]
    used = sum(len(p) for p in piles)
    size = 42 - 3 * players - used if deck is None else deck
    g.set_position(
        {
            "board": board or {},
            "hands": [["?"] * 3 for _ in range(players)],
            "deck": ["?"] * size,
            "discards": piles,
            "to_move": to_move,
        }
    )
    return g


def play(g: SequenceKids, *moves: str) -> None:
    for text in moves:
        g.apply(g.parse_move(text))


def lines_of(view: dict[str, str], colour: str) -> int:
    """Lines of 4 of ``colour`` or corners, counted independently of the engine."""
    at = {(ord(c[0]) - 97, int(c[1:]) - 1): t for c, t in view.items()}
    corners = {(0, 0), (5, 0), (0, 6), (5, 6)}
    found = 0
    for f, r in at:
        for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = [(f + df * k, r + dr * k) for k in range(4)]
            if all(p in at and (p in corners or at[p] == colour) for p in run):
                found += 1
    return found


def hands_of(g: SequenceKids) -> list[list[str]]:
    return [list(h) for h in g.to_dict()["state"]["hands"]]


# --------------------------------------------------------------------------- layout
def test_default_layout_is_symmetric_with_19_animals_on_two_spaces() -> None:
    layout = load_layout()
    assert sorted(layout.animals) == sorted(ANIMALS)
    for i, cell in enumerate(CELLS):
        f, r = ord(cell[0]) - 97, int(cell[1]) - 1
        opposite = f"{'abcdef'[5 - f]}{7 - r}"
        assert layout.animal_at[i] == layout.animal_at[CELLS.index(opposite)], cell
        assert (layout.animal_at[i] == "") == (cell in CORNERS)
    for animal in ("fox", "ostrich", "gorilla", "whale", "alligator", "elephant"):
        assert len(layout.spaces[animal]) == 2
    assert [CELLS[i] for i in layout.spaces["fox"]] == ["e1", "b7"]


def test_default_layout_ships_in_the_package() -> None:
    data = resources.files("tavola.games").joinpath("data", "sequence_kids_layout.toml")
    assert data.is_file()
    assert parse_layout(data.read_text()).animal_at == load_layout().animal_at


def test_lines_of_four_on_the_board() -> None:
    # RULES.md 3.3: 69 windows of 4, 12 of them through a corner.
    assert len(WINDOWS) == 69
    corner_idx = {CELLS.index(c) for c in CORNERS}
    assert sum(1 for w in WINDOWS if corner_idx & set(w)) == 12


def _rows() -> list[list[str]]:
    text = resources.files("tavola.games").joinpath("data", "sequence_kids_layout.toml")
    import tomllib

    rows: list[list[str]] = tomllib.loads(text.read_text())["rows"]
    return [list(r) for r in rows]


def _toml(rows: list[list[str]]) -> str:
    return "rows = [\n" + "".join(f"  {json.dumps(r)},\n" for r in rows) + "]\n"


def _mutated(change: str) -> str:
    rows = _rows()
    if change == "six rows":
        rows = rows[:6]
    elif change == "short rank":
        rows[3] = rows[3][:5]
    elif change == "corner animal":
        rows[0][0] = "fox"
    elif change == "free inside":
        rows[3][2] = "free"
        rows[3][3] = "free"
    elif change == "three foxes":
        rows[1][0] = "fox"
    elif change == "lonely":
        rows[1][0] = "aardvark"
    elif change == "capital":
        rows[1][0] = "Alligator"
        rows[5][5] = "Alligator"
    elif change == "two words":
        rows[1][0] = "polar bear"
    elif change == "dragon":
        rows[1][0] = "dragon"
        rows[5][5] = "dragon"
    elif change == "not toml":
        return "rows = [[\n"
    elif change == "unknown key":
        return _toml(rows) + "colours = 4\n"
    return _toml(rows)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("six rows", r"wrong size: 6 rows; the board has 7 ranks"),
        ("short rank", r"wrong size: rank 4 has 5 spaces"),
        ("corner animal", r"a7 is a corner, a free space: write 'free', not 'fox'"),
        ("free inside", r"c4 says 'free' but only the corners"),
        (
            "three foxes",
            r"'fox' is on 3 space\(s\) \(e1 a6 b7\); every animal must be on exactly 2",
        ),
        ("lonely", r"'alligator' is on 1 space\(s\) \(f2\)"),
        ("capital", r"a6: 'Alligator' is not an animal name"),
        ("two words", r"a6: 'polar bear' is not an animal name"),
        ("dragon", r"a6: 'dragon' is a card"),
        ("not toml", r"not valid TOML"),
        ("unknown key", r"unknown key 'colours'"),
    ],
)
def test_bad_layouts_say_what_is_wrong(change: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        new_game("sequence-kids", layout=_mutated(change))


def test_the_engine_takes_the_layout_not_a_file_name() -> None:
    with pytest.raises(ValueError, match=r"layout = '/no/such\.toml': the parameter holds"):
        SequenceKids(layout="/no/such.toml")


def test_a_user_layout_replaces_the_default(tmp_path: Path) -> None:
    rows = _rows()
    rows[0][1], rows[0][4] = "whale", "fox"  # fox now on e7 and e1, whale on b7 and b1
    path = tmp_path / "mine.toml"
    path.write_text(_toml(rows))
    g = SequenceKids(layout=path.read_text(), cards="declared")
    assert "fox@e7" in {str(m) for m in g.legal_moves()}
    assert "fox@b7" not in {str(m) for m in g.legal_moves()}
    with pytest.raises(IllegalMoveError, match="b7 is not a fox space: the fox is on e1 and e7"):
        play(g, "fox@b7")
    saved = g.to_dict()
    path.unlink()  # the record carries the layout: the file may go
    again = SequenceKids.from_dict(saved)
    assert again.legal_moves() == g.legal_moves()


# --------------------------------------------------------------------------- deck and deal
@pytest.mark.parametrize(("players", "deck"), [(2, 36), (3, 33), (4, 30)])
def test_deal_three_cards_each_from_a_42_card_deck(players: int, deck: int) -> None:
    g = SequenceKids(players=players, seed=11)
    state = g.to_dict()["state"]
    assert [len(h) for h in state["hands"]] == [3] * players
    assert len(state["deck"]) == deck
    everything = [c for h in state["hands"] for c in h] + state["deck"]
    assert Counter(everything) == FULL_DECK
    assert sum(FULL_DECK.values()) == 42


def test_the_seed_fixes_the_deal_and_a_missing_seed_is_recorded() -> None:
    assert SequenceKids(seed=5).to_dict() == SequenceKids(seed=5).to_dict()
    deals = {json.dumps(SequenceKids(seed=s).to_dict()["state"]["hands"]) for s in range(6)}
    assert len(deals) > 1
    g = SequenceKids()
    assert isinstance(g.options["seed"], int)
    rng = random.Random(3)
    while len(g.history) < 20 and g.outcome() is None:
        play(g, str(rng.choice(g.legal_moves())))
    again = SequenceKids.from_dict(json.loads(json.dumps(g.to_dict())))
    assert again.to_dict() == g.to_dict()


def test_the_player_draws_the_top_card_of_the_deck() -> None:
    g = dealt([["fox", "lion", "zebra"], ["whale", "tiger", "hippo"]], deck_top=("panda", "koala"))
    play(g, "fox@b7")
    assert hands_of(g)[0] == ["lion", "zebra", "panda"]
    assert g.to_dict()["state"]["discards"] == [["fox"], []]
    assert g.current_player == 1
    play(g, "whale@e7")
    assert hands_of(g)[1] == ["tiger", "hippo", "koala"]


def test_an_empty_deck_is_rebuilt_from_all_discard_piles() -> None:
    piles = [["lion", "lion", "tiger"], ["whale", "whale"]]
    hands = [["fox", "zebra", "dragon"], ["tiger", "hippo", "dragon"]]
    rest = FULL_DECK.copy()
    for c in [*(c for h in hands for c in h), *(c for p in piles for c in p)]:
        rest[c] -= 1
    g = SequenceKids(seed=9)
    state = {"board": {}, "hands": hands, "deck": [], "discards": [*piles], "to_move": 0}
    state["discards"] = [piles[0] + sorted(rest.elements()), piles[1]]
    g.set_position(state)
    play(g, "fox@b7")  # the deck is empty: the piles and this fox become the new deck
    after = g.to_dict()["state"]
    assert after["discards"] == [[], []]
    assert after["reshuffles"] == 1
    assert len(after["deck"]) == 36 + 1 - 1  # 36 discards and the fox, minus the draw
    assert Counter(after["deck"] + [c for h in after["hands"] for c in h]) == FULL_DECK
    # The reshuffle comes from the seed: the same position gives the same new deck.
    twin = SequenceKids(seed=9)
    twin.set_position(state)
    play(twin, "fox@b7")
    assert twin.to_dict()["state"] == after


# --------------------------------------------------------------------------- placing chips
def test_an_animal_card_goes_on_either_of_its_two_empty_spaces() -> None:
    g = dealt([["fox", "dragon", "dragon"], ["whale", "tiger", "hippo"]])
    moves = {str(m) for m in g.legal_moves()}
    assert moves == {"fox@b7", "fox@e1", "dead dragon"}
    g = dealt([["fox", "dragon", "dragon"], ["whale", "tiger", "hippo"]], board={"b7": "Y"})
    assert "fox@b7" not in {str(m) for m in g.legal_moves()}
    with pytest.raises(IllegalMoveError, match="b7 is already covered by a yellow chip"):
        play(g, "fox@b7")
    play(g, "fox@e1")
    assert g.view()["e1"] == "R"


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("fox@a1", "a1 is a free corner: no chip may be placed there"),
        ("unicorn@f7", "f7 is a free corner: no chip may be placed there"),
        ("fox@c3", "c3 is not a fox space: the fox is on e1 and b7"),
        ("lion@c6", "you hold no lion card"),
        ("dragon xa7", "a7 is a free corner: there is no chip to remove"),
        ("dragon xc3", "c3 is empty: a dragon removes a chip of another colour"),
        ("dragon xb7", "b7 holds your own chip"),
        ("dead fox", "fox is not dead: e1 is still open"),
        ("pass", "you cannot pass: you can still play a card"),
    ],
)
def test_illegal_actions_are_explained(move: str, message: str) -> None:
    g = dealt([["fox", "unicorn", "dragon"], ["whale", "tiger", "hippo"]], board={"b7": "R"})
    with pytest.raises(IllegalMoveError, match=message):
        play(g, move)


def test_the_unicorn_goes_on_any_empty_space_but_not_a_corner() -> None:
    board = {"b7": "R", "c3": "Y", "d4": "R"}
    g = dealt([["unicorn", "dragon", "dragon"], ["whale", "tiger", "hippo"]], board=board)
    unicorns = {m.cell for m in g.legal_moves() if isinstance(m, Place)}
    assert unicorns == set(CELLS) - CORNERS - set(board)
    assert len(unicorns) == 35
    play(g, "unicorn@c4")
    assert g.view()["c4"] == "R"


def test_free_corners_report_nothing_in_the_view() -> None:
    g = SequenceKids(seed=1)
    view = g.view()
    assert set(view) == set(CELLS)
    assert all(view[c] == "" for c in CORNERS)
    assert set(g.view("occupancy").values()) == {""}


# --------------------------------------------------------------------------- dead cards
def test_a_dead_card_is_exchanged_then_the_same_player_plays() -> None:
    board = {"b7": "Y", "e1": "R"}
    g = dealt([["fox", "lion", "zebra"], ["whale", "tiger", "hippo"]], board, deck_top=("panda",))
    assert "dead fox" in {str(m) for m in g.legal_moves()}
    play(g, "dead fox")
    assert g.current_player == 0
    assert hands_of(g)[0] == ["lion", "zebra", "panda"]
    assert g.to_dict()["state"]["discards"][0] == ["fox"]
    play(g, "panda@b5")
    assert g.current_player == 1


def test_one_dead_card_a_turn_by_default() -> None:
    board = {"b7": "Y", "e1": "R", "c6": "Y", "d2": "Y"}
    g = dealt([["fox", "lion", "zebra"], ["whale", "tiger", "hippo"]], board, deck_top=("fox",))
    play(g, "dead lion")  # draws the second fox, dead too
    assert "dead fox" not in {str(m) for m in g.legal_moves()}
    with pytest.raises(IllegalMoveError, match="only 1 dead card\\(s\\) a turn"):
        play(g, "dead fox")
    play(g, "zebra@e6")
    play(g, "whale@e7")
    assert "dead fox" in {str(m) for m in g.legal_moves()}  # a new turn


@pytest.mark.parametrize(("limit", "allowed"), [(2, 2), (0, 3)])
def test_dead_card_limit_parameter(limit: int, allowed: int) -> None:
    board = {"b7": "Y", "e1": "R", "c6": "Y", "d2": "Y", "e6": "R", "b2": "Y"}
    g = dealt(
        [["fox", "lion", "zebra"], ["whale", "tiger", "hippo"]],
        board,
        deck_top=("fox", "lion", "zebra"),
        dead_cards=limit,
    )
    for card in ("fox", "lion", "zebra")[:allowed]:
        play(g, f"dead {card}")
        assert g.current_player == 0
    if limit:
        assert not any(isinstance(m, Dead) for m in g.legal_moves())


def test_a_dragon_with_nothing_to_remove_counts_as_dead() -> None:
    g = dealt([["dragon", "fox", "fox"], ["whale", "tiger", "hippo"]], board={"c3": "R"})
    assert "dead dragon" in {str(m) for m in g.legal_moves()}
    g = dealt(
        [["dragon", "fox", "fox"], ["whale", "tiger", "hippo"]],
        board={"c3": "R"},
        dragon_dead=False,
    )
    assert "dead dragon" not in {str(m) for m in g.legal_moves()}
    with pytest.raises(IllegalMoveError, match="not a dead card here \\(dragon_dead=false\\)"):
        play(g, "dead dragon")


def test_a_unicorn_is_dead_only_on_a_full_board() -> None:
    full = picture(FULL_BOARD)
    g = dealt([["unicorn", "fox", "lion"], ["whale", "tiger", "hippo"]], board=full)
    moves = {str(m) for m in g.legal_moves()}
    assert {"dead unicorn", "dead fox", "dead lion"} <= moves
    assert not any(isinstance(m, Place) for m in g.legal_moves())


def test_pass_only_when_nothing_can_be_played_or_exchanged() -> None:
    full = picture(FULL_BOARD)
    g = dealt([["fox", "fox", "lion"], ["whale", "tiger", "hippo"]], board=full)
    with pytest.raises(IllegalMoveError, match="exchange your dead card first"):
        play(g, "pass")
    play(g, "dead fox")  # the limit is used up and the new card is dead too
    assert g.legal_moves() == (Pass(),)
    play(g, "pass")
    assert g.current_player == 1
    assert g.outcome() is None


def test_everyone_passing_in_turn_is_a_blocked_draw() -> None:
    # Out of chips and holding only placement cards: nothing can be played or exchanged.
    g = dealt(
        [["fox", "lion", "zebra"], ["whale", "tiger", "hippo"]],
        board={"c3": "R", "d3": "Y"},
        chips=1,
    )
    assert g.legal_moves() == (Pass(),)
    play(g, "pass")
    assert g.legal_moves() == (Pass(),)
    play(g, "pass")
    outcome = g.outcome()
    assert outcome is not None and outcome.winner is None and outcome.reason == "blocked"


# --------------------------------------------------------------------------- dragons
def test_the_dragon_removes_an_opponent_chip_and_ends_the_turn() -> None:
    g = dealt([["dragon", "fox", "lion"], ["whale", "tiger", "hippo"]], board={"c3": "Y"})
    assert g.to_dict()["state"]["chips"] == {"R": 21, "Y": 20}
    play(g, "dragon xc3")
    assert g.view()["c3"] == ""
    assert g.current_player == 1  # the space cannot be refilled in the same turn
    assert g.to_dict()["state"]["chips"] == {"R": 21, "Y": 21}  # back to its owner


def test_chips_removed_by_a_dragon_can_leave_the_game() -> None:
    g = dealt(
        [["dragon", "fox", "lion"], ["whale", "tiger", "hippo"]],
        board={"c3": "Y"},
        chips_returned=False,
    )
    play(g, "dragon xc3")
    assert g.to_dict()["state"]["chips"] == {"R": 21, "Y": 20}


def test_a_player_out_of_chips_can_still_play_a_dragon() -> None:
    g = dealt(
        [["dragon", "fox", "lion"], ["whale", "tiger", "hippo"]],
        board={"c3": "R", "d3": "R", "d4": "Y"},
        chips=2,
    )
    assert [str(m) for m in g.legal_moves()] == ["dragon xd4"]
    with pytest.raises(IllegalMoveError, match="Red has no chips left"):
        play(g, "fox@b7")


def test_team_dragons_spare_the_partner() -> None:
    hands = [["dragon", "fox", "lion"], ["whale", "tiger", "hippo"], ["zebra"] * 2 + ["koala"]]
    hands.append(["panda", "panda", "koala"])
    g = dealt(hands, board={"c3": "R", "d3": "Y"})
    assert [str(m) for m in g.legal_moves() if isinstance(m, Dragon)] == ["dragon xd3"]
    with pytest.raises(IllegalMoveError, match="c3 holds your team's chip"):
        play(g, "dragon xc3")


def test_three_players_may_remove_either_opponent() -> None:
    hands = [["dragon", "fox", "lion"], ["whale", "tiger", "hippo"], ["zebra", "zebra", "koala"]]
    g = dealt(hands, board={"c3": "R", "d3": "Y", "e3": "B"})
    assert {str(m) for m in g.legal_moves() if isinstance(m, Dragon)} == {
        "dragon xd3",
        "dragon xe3",
    }


# --------------------------------------------------------------------------- winning
@pytest.mark.parametrize(
    ("chips", "last"),
    [
        (("b3", "c3", "d3"), "e3"),  # a row
        (("c2", "c3", "c4"), "c5"),  # a column
        (("b2", "c3", "d4"), "e5"),  # a diagonal
        (("e2", "d3", "c4"), "b5"),  # the other diagonal
        (("b1", "c1", "d1"), "e1"),  # 4 chips on the edge
    ],
)
def test_four_in_a_line_wins(chips: tuple[str, ...], last: str) -> None:
    g = declared(board=dict.fromkeys(chips, "R"))
    play(g, f"unicorn@{last}")
    outcome = g.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "sequence"
    assert g.legal_moves() == ()


@pytest.mark.parametrize(
    ("chips", "last"),
    [
        (("b1", "c1"), "d1"),  # a1 corner + 3 chips along rank 1
        (("f2", "f3"), "f4"),  # f1 corner + 3 chips up file f
        (("b6", "c5"), "d4"),  # a7 corner + 3 chips down a diagonal
        (("e6", "d6"), "c6"),  # f7 corner is not on rank 6: no line here
    ],
)
def test_the_free_corners_count_for_everyone(chips: tuple[str, ...], last: str) -> None:
    for colour, player in (("R", 0), ("Y", 1)):
        g = declared(board=dict.fromkeys(chips, colour), to_move=player)
        play(g, f"unicorn@{last}")
        outcome = g.outcome()
        if chips[0] == "e6":
            assert outcome is None
        else:
            assert outcome is not None and outcome.winner == player, (colour, last)


def test_three_chips_with_a_gap_or_an_opponent_chip_do_not_win() -> None:
    g = declared(board={"b3": "R", "c3": "R", "d3": "Y"})
    play(g, "unicorn@e3")
    assert g.outcome() is None
    g = declared(board={"b3": "R", "c3": "R"})
    play(g, "unicorn@e3")  # b3 c3 . e3
    assert g.outcome() is None
    g = declared(board={"c1": "R", "d1": "R"})
    play(g, "unicorn@b2")  # a1 corner, b2 and two chips not in line
    assert g.outcome() is None


def test_a_team_wins_with_the_partners_chips() -> None:
    g = declared(board={"b3": "R", "c3": "R"}, players=4, to_move=2)
    assert g.player_names == ("Red 1", "Yellow 1", "Red 2", "Yellow 2")
    play(g, "penguin@d3")  # Red 2 (player 2): three in a row, no win yet
    play(g, "rhino@a3")  # Yellow 2 blocks one end
    assert g.outcome() is None
    play(g, "panda@e3")  # Red 1 (player 0) completes b3 c3 d3 e3 with the partner's chips
    outcome = g.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.winners == (0, 2)


def test_colours_by_seat() -> None:
    assert [SequenceKids(players=2).colour_of(p) for p in range(2)] == ["R", "Y"]
    assert [SequenceKids(players=3).colour_of(p) for p in range(3)] == ["R", "Y", "B"]
    assert [SequenceKids(players=4).colour_of(p) for p in range(4)] == ["R", "Y", "R", "Y"]
    solo = SequenceKids(players=4, teams=False)
    assert [solo.colour_of(p) for p in range(4)] == ["R", "Y", "B", "G"]
    assert solo.player_names == ("Red", "Yellow", "Blue", "Green")


def test_four_players_without_teams_each_win_alone() -> None:
    g = declared(board={"b3": "G", "c3": "G", "d3": "G"}, players=4, to_move=3, teams=False)
    play(g, "unicorn@e3")
    outcome = g.outcome()
    assert outcome is not None and outcome.winners == (3,)


# --------------------------------------------------------------------------- hidden cards
def test_view_for_shows_only_the_players_own_hand() -> None:
    hands = [["fox", "lion", "dragon"], ["whale", "tiger", "unicorn"]]
    g = dealt(hands)
    mine = g.view_for(0)
    assert mine["hand"] == ["fox", "lion", "dragon"]
    assert mine["hand_sizes"] == [3, 3]
    assert mine["deck"] == 36 and mine["discards"] == [[], []]
    assert mine["board"] == g.view()
    text = json.dumps(mine)
    assert all(card not in text for card in ("whale", "tiger", "unicorn"))
    assert g.view_for(1)["hand"] == ["whale", "tiger", "unicorn"]
    assert g.hidden_information is True
    with pytest.raises(ValueError, match=r"player must be 0 \.\.\. 1"):
        g.view_for(2)


def test_the_public_board_does_not_depend_on_the_hands() -> None:
    a = dealt([["fox", "lion", "dragon"], ["whale", "tiger", "unicorn"]])
    b = dealt([["whale", "tiger", "unicorn"], ["fox", "lion", "dragon"]])
    assert str(a) == str(b) and a.view() == b.view()
    assert a.to_dict() != b.to_dict()  # the daemon's record keeps the hands


def test_private_text_lists_the_hand_and_marks_dead_cards() -> None:
    g = dealt(
        [["fox", "lion", "dragon"], ["whale", "tiger", "unicorn"]], board={"b7": "Y", "e1": "Y"}
    )
    assert g.private_text(0) == "Red's cards: fox (dead), lion, dragon"
    assert g.private_text(1) == "Yellow's cards: tiger, whale, unicorn"


def test_the_whole_state_round_trips_with_the_deck_order() -> None:
    g = SequenceKids(seed=21, players=3)
    rng = random.Random(21)
    while len(g.history) < 30 and g.outcome() is None:
        play(g, str(rng.choice(g.legal_moves())))
    record = json.loads(json.dumps(g.to_dict()))
    assert record["state"]["deck"] == g.to_dict()["state"]["deck"]
    again = SequenceKids.from_dict(record)
    assert again.to_dict() == g.to_dict()
    fresh = SequenceKids(seed=1, players=3)
    fresh.set_position(record["state"])
    assert fresh.to_dict()["state"] == record["state"]


def test_set_position_rejects_a_deck_that_does_not_add_up() -> None:
    g = SequenceKids(seed=1)
    state = g.to_dict()["state"]
    state["deck"] = state["deck"][1:]
    with pytest.raises(ValueError, match="must hold the 42 cards exactly once"):
        g.set_position(state)
    state = g.to_dict()["state"]
    state["board"] = {"a1": "R"}
    with pytest.raises(ValueError, match="a1 is a free corner"):
        g.set_position(state)
    state["board"] = {"c3": "B"}
    with pytest.raises(ValueError, match="the colours in play are R Y"):
        g.set_position(state)


# --------------------------------------------------------------------------- declared cards
def test_declared_cards_list_every_action_consistent_with_the_table() -> None:
    g = SequenceKids(cards="declared")
    moves = g.legal_moves()
    # 19 animals x 2 spaces, a unicorn on any of 38 spaces, and a dragon with no target.
    assert len(moves) == 38 + 38 + 1
    assert Dead("dragon") in moves
    assert g.view_for(0)["hand"] is None
    assert g.view_for(0)["deck"] == 36
    assert g.private_text(0) == "Red: you hold the real cards (cards=declared)"


def test_declared_cards_two_of_each_per_deck_cycle() -> None:
    g = declared(discards=[["fox"], ["fox"]])
    assert not any(str(m).startswith("fox") for m in g.legal_moves())
    with pytest.raises(IllegalMoveError, match="both fox cards are already on the discard piles"):
        play(g, "fox@b7")
    g = declared(discards=[["dragon", "unicorn"], ["dragon", "unicorn"]], board={"c3": "Y"})
    with pytest.raises(IllegalMoveError, match="both dragon cards"):
        play(g, "dragon xc3")
    with pytest.raises(IllegalMoveError, match="both unicorn cards"):
        play(g, "unicorn@c4")


def test_declared_cards_come_back_after_the_reshuffle() -> None:
    # 42 = 6 in the hands + 1 in the deck + 35 discards: both foxes and 33 other cards.
    rest = FULL_DECK.copy()
    for card in ("fox", "lion", "whale"):
        rest[card] -= 2
    others = sorted(rest.elements())[:33]
    g = declared(discards=[["fox", "fox", *others], []], deck=1)
    play(g, "lion@c6")  # draws the last card
    assert g.view_for(0)["deck"] == 0
    play(g, "whale@e7")  # Yellow must draw: the piles become the new deck
    assert g.view_for(0)["deck"] == 35 + 2 - 1
    assert g.view_for(0)["discards"] == [[], []]
    play(g, "fox@b7")
    assert g.view()["b7"] == "R"


def test_declared_dead_cards_and_pass() -> None:
    board = {"b7": "Y", "e1": "R"}
    g = declared(board=board)
    assert Dead("fox") in g.legal_moves()
    assert Dead("lion") not in g.legal_moves()
    with pytest.raises(IllegalMoveError, match="lion is not dead: d2 and c6 are still open"):
        play(g, "dead lion")
    assert Pass() not in g.legal_moves()
    play(g, "dead fox")
    assert g.current_player == 0 and g.view_for(0)["deck"] == 35
    # Only one fox is left: a hand of three stuck cards is impossible, so no pass.
    assert Pass() not in g.legal_moves()
    g = declared(board=picture(FULL_BOARD))
    play(g, "dragon xb7")  # Red removes a yellow chip
    play(g, "dead lion")  # Yellow: every animal but the fox (b7) is dead
    assert Pass() in g.legal_moves()  # Yellow may hold only dead cards
    play(g, "pass")
    assert g.current_player == 0


# --------------------------------------------------------------------------- stalled board
def _stalled_game(stall_cycles: int) -> SequenceKids:
    rest = FULL_DECK.copy()
    for card in ("fox", "lion", "unicorn", "dragon"):
        rest[card] -= 2
    piles = [sorted(rest.elements()), []]  # 34 cards; 6 in the hands, 2 in the deck
    return declared(board=picture(FULL_BOARD), discards=piles, deck=2, stall_cycles=stall_cycles)


def _exchange_and_pass(g: SequenceKids) -> None:
    g.apply(next(m for m in g.legal_moves() if isinstance(m, Dead)))
    if g.outcome() is None:  # the exchange's draw may end a stalled game
        play(g, "pass")


def test_a_stalled_board_is_drawn_after_two_deck_cycles() -> None:
    g = _stalled_game(2)
    play(g, "dragon xb7")  # Red removes a yellow chip ...
    play(g, "unicorn@b7")  # ... and Yellow puts it back: the board is as it was
    turns = 0
    while g.outcome() is None:
        _exchange_and_pass(g)
        turns += 1
        if g.to_dict()["state"]["reshuffles"] == 1:
            assert g.outcome() is None  # one quiet cycle is not enough
    outcome = g.outcome()
    assert outcome is not None and outcome.winner is None and outcome.reason == "stalled"
    assert g.to_dict()["state"]["reshuffles"] == 2
    assert turns > 30  # the second cycle went through the whole rebuilt deck
    assert g.view() == {c: picture(FULL_BOARD).get(c, "") for c in CELLS}


def test_a_board_that_changed_over_the_cycle_is_not_stalled() -> None:
    g = _stalled_game(1)
    play(g, "dragon xd6")  # Red removes a yellow chip
    play(g, "dead lion", "pass")  # Yellow draws the last card
    play(g, "unicorn@d6")  # Red takes the space and must draw: the deck is rebuilt
    state = g.to_dict()["state"]
    assert state["reshuffles"] == 1 and state["quiet_cycles"] == 0
    assert g.outcome() is None
    g = _stalled_game(1)
    play(g, "dead fox", "pass", "dead lion", "pass", "dead fox")  # the deck runs out
    outcome = g.outcome()
    assert outcome is not None and outcome.reason == "stalled"


def test_stall_cycles_zero_plays_on() -> None:
    g = _stalled_game(0)
    for _ in range(100):
        _exchange_and_pass(g)
    assert g.to_dict()["state"]["reshuffles"] >= 2
    assert g.outcome() is None


# --------------------------------------------------------------------------- notation
@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("fox@b3", Place("fox", "b3")),
        ("unicorn@c4", Place("unicorn", "c4")),
        ("dragon xc4", Dragon("c4")),
        ("dead fox", Dead("fox")),
        ("dead dragon", Dead("dragon")),
        ("pass", Pass()),
    ],
)
def test_notation_round_trips(text: str, move: object) -> None:
    g = SequenceKids(seed=1)
    assert g.parse_move(text) == move
    assert str(move) == text


def test_notation_is_forgiving_about_case_and_spaces() -> None:
    g = SequenceKids(seed=1)
    assert g.parse_move("  Fox @ B3 ") == Place("fox", "b3")
    assert g.parse_move("DRAGON  XC4") == Dragon("c4")
    assert g.parse_move("dragon c4") == Dragon("c4")
    assert g.parse_move("Dead   Lion") == Dead("lion")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fox@g1", "'g1' is not a cell of the Sequence for Kids board; cells are a1 ... f7"),
        ("fox@a8", "'a8' is not a cell"),
        ("cat@b3", "'cat' is not a card of this board; the cards are alligator, camel"),
        ("dragon@c4", "a dragon removes a chip: write 'dragon xc4'"),
        ("dead cat", "'cat' is not a card"),
        ("b3", "cannot read 'b3'"),
        ("dead", "cannot read 'dead'"),
    ],
)
def test_bad_notation_is_explained(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SequenceKids(seed=1).parse_move(text)


@pytest.mark.parametrize(
    "params",
    [{"players": 5}, {"players": 1}, {"cards": "shown"}, {"dead_cards": -1}, {"chips": 0}],
)
def test_bad_parameters_are_refused(params: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="parameter"):
        new_game("sequence-kids", **params)


# --------------------------------------------------------------------------- random games
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"players": 3},
        {"players": 4},
        {"players": 4, "teams": False},
        {"cards": "declared"},
        {"cards": "declared", "players": 3},
        {"chips": 5, "chips_returned": False, "dead_cards": 0},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default",
)
def test_random_games_keep_cards_and_chips(params: dict[str, Any]) -> None:
    declared_cards = params.get("cards") == "declared"
    for seed in range(8):
        rng = random.Random(seed)
        g = SequenceKids(**({} if declared_cards else {"seed": seed}), **params)
        chips = params.get("chips", 21)
        colours = sorted({g.colour_of(p) for p in range(g.num_players)})
        for _ in range(400):
            state = g.to_dict()["state"]
            view = g.view()
            every = [c for h in state["hands"] for c in h] + state["deck"]
            every += [c for p in state["discards"] for c in p]
            assert len(every) == 42 or g.outcome() is not None
            if declared_cards:
                seen = Counter(c for p in state["discards"] for c in p)
                assert all(n <= 2 for n in seen.values())
            elif g.outcome() is None:
                assert Counter(every) == FULL_DECK
            on_board = Counter(t for t in view.values() if t)
            for c in colours:
                if params.get("chips_returned", True):
                    assert on_board[c] + state["chips"][c] == chips
                else:
                    assert on_board[c] + state["chips"][c] <= chips
            assert all(view[c] == "" for c in CORNERS)
            outcome = g.outcome()
            if outcome is not None:
                if outcome.reason == "sequence":
                    assert lines_of(view, g.colour_of(outcome.winners[0])) > 0
                break
            assert all(lines_of(view, c) == 0 for c in colours)
            assert [len(h) for h in state["hands"]] == [3] * g.num_players
            play(g, str(rng.choice(g.legal_moves())))
        if not declared_cards:  # the same seed and moves replay the same game
            replay = SequenceKids(seed=seed, **params)
            for move in g.history:
                replay.apply(move)
            assert replay.to_dict() == g.to_dict()


def test_the_printed_animals_are_public_and_leave_the_corners_blank() -> None:
    game = new_game("sequence-kids")
    animals = game.animals()
    assert len(animals) == len(game.view()) - 4  # the four corners carry no animal
    assert set(game.view()) - set(animals) == {"a1", "a7", "f1", "f7"}
    assert all(animals.values())
