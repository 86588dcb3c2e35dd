"""The strong player's one-card plays (place=1: the card of the most hand points that a
play of it alone places; the botch: the first card in card order that fits the table
alone): the hand's cards weighed by points first and the joker reject asked before the
solver must give the games of every card solved in card order (_strong._set_alone(0)),
every play and meld of every turn."""
from __future__ import annotations

import pytest

from fastmach.engine import play_games
from fastmach.rules import Rules
from fastmach.strategies import _strong


@pytest.fixture
def alone_reference():
    yield
    _strong._set_alone(1)


@pytest.mark.parametrize("rules,lineup", [
    ("jokers(match=single)", ["strong(place=1)"] * 4),
    ("jokers", ["strong(place=1)", "expert", "strong(place=1,botch_below=0)", "expert"]),
    ("italian(jokers=2)", ["strong(place=1)", "strong(place=1)", "expert"]),
    ("classic(match=single)", ["strong(keep=2,place=1,botch_below=0)", "expert",
                               "strong(place=1)", "expert"]),
    ("jokers(joker_swap=hand)", ["strong(place=1)", "expert", "strong(place=1)"]),
])
def test_one_card_plays_weighed_by_points_first_give_the_same_games(
        alone_reference, rules, lineup, tmp_path):
    r = Rules.parse(rules).replace(players=len(lineup))
    logs = {}
    for on in (0, 1):
        _strong._set_alone(on)
        logs[on] = tmp_path / f"log{on}.jsonl"
        play_games(r, lineup, 47, range(10), log=logs[on], check=True)
    assert logs[0].read_bytes() == logs[1].read_bytes()
