"""Batches nobody reads the melds of (Engine.play_batch, Context.melds): where every seat's
decisions read only cards (melds_blind), and the batch keeps no record, has no observer, no
invariant check and no Python bot, the seats' plays carry no melds (the solver reads the
placed cards from its answer's key, or with jokers scopes its dominance pass by the layer's
size; the strong player asks only whether its hand goes out). The games must be those of
the same batch with the melds made: the checked engine (which verifies the table's melds
after every turn) and the recording one are the references.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fastmach.engine import make_engine, play_games
from fastmach.rules import resolve_rules

BLIND_LINEUPS = {
    "experts": ["expert"] * 4,
    "strong + 3 experts": ["strong", "expert", "expert", "expert"],
    "four strong": ["strong"] * 4,
    "patient + held": ["patient", "strong(botch=false)", "expert", "strong(place=1,keep_from=8)"],
}


@pytest.mark.parametrize("rules", ["classic(match=single)", "classic", "ace-low(match=single)",
                                   "italian(match=single)",
                                   "classic(match=single,opening_points=30)",
                                   "jokers(match=single)", "jokers(match=single,ace=low-only)"])
@pytest.mark.parametrize("lineup", sorted(BLIND_LINEUPS))
def test_games_without_melds_are_the_games_with_them(rules, lineup, tmp_path):
    seats = BLIND_LINEUPS[lineup]
    games = 8 if rules == "classic" else 24
    _, _, engine = make_engine(rules, seats)
    assert engine.melds_unread, (rules, lineup)
    blind = play_games(rules, seats, 11, range(games), hands=True)
    checked = play_games(rules, seats, 11, range(games), hands=True, check=True)
    logged = play_games(rules, seats, 11, range(games), hands=True, log=tmp_path / "g.jsonl")
    for ref in (checked, logged):
        pd.testing.assert_frame_equal(blind[0], ref[0])
        pd.testing.assert_frame_equal(blind[1], ref[1])


@pytest.mark.parametrize("rules,seats", [
    ("jokers(match=single,joker_swap=hand)", ["expert"] * 4),   # takes jokers back by stands
    ("classic(match=single)", ["beginner"] + ["expert"] * 3),   # lays off onto melds
    ("classic(match=single)", ["intermediate"] + ["expert"] * 3),
    ("classic(match=single)", ["expert(error=0.1)"] + ["expert"] * 3),   # dissolved melds
    ("classic(match=single)", ["lookahead"] + ["expert"] * 3),
])
def test_a_seat_or_deck_that_reads_melds_keeps_them(rules, seats):
    _, _, engine = make_engine(rules, seats)
    assert not engine.melds_unread


def test_a_position_decided_after_a_blind_batch_carries_its_melds():
    _, _, engine = make_engine("classic(match=single)", ["expert"] * 4)
    assert engine.melds_unread
    engine.play_batch(3, [0, 1])          # (the seats' plays carried no melds here)
    hands = np.zeros((4, 53), dtype=np.uint8)
    hands[0, [2, 3, 4, 20]] = 1           # 3 4 5 of spades and a stray card
    hands[1:, 30] = 1
    action, placed, taken, melds, stands, _ = engine.decide_position(
        0, hands, [], [], [1, 1, 1, 1], 40, 1)
    assert action == "play" and sorted(np.flatnonzero(placed)) == [2, 3, 4]
    assert melds == [[2, 3, 4]]


def test_melds_blind_is_what_each_strategy_says():
    rules = resolve_rules("classic(match=single)")
    _, _, engine = make_engine(rules, ["expert", "strong", "patient", "beginner"])
    assert [s.melds_blind for s in engine.seats] == [True, True, True, False]
    _, _, swap = make_engine("jokers(match=single,joker_swap=hand)", ["expert"] * 4)
    assert not any(s.melds_blind for s in swap.seats)   # takes table jokers back by stands
