"""The strategies' quick reject (fastmach/strategies/_reject.pxd) against the exact solver:
where it says no card of a set could lie in a meld, the solver never places one of them."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.strategies._reject import none_can_join_counts
from tests.positions import JOKER, NCARD, cards, counts, rand_hand, rand_table

ONES = np.ones(NCARD, dtype=np.int32)
ONES_J = np.ones(16, dtype=np.int32)


def _placed(table, hand, decks, ace_high) -> np.ndarray:
    total, placed, _, _ = _solver.solve_counts(counts(table), counts(hand), decks, ace_high,
                                               1, ONES, ONES_J, False)
    assert total >= 0
    return np.asarray(placed)


def _positions(seed: int, n: int):
    rng = random.Random(seed)
    for _ in range(n):
        decks, ace_high = rng.choice((2, 2, 3)), rng.choice((0, 1, 2))
        rules = dict(decks=decks, ace_high=bool(ace_high), jokers_per_meld=1)
        table = rand_table(rng, rng.randint(0, 45), rules, 0)
        hand = rand_hand(rng, table, decks, rng.randint(1, 14), near_p=rng.random())
        yield rng, decks, ace_high, table, hand


def test_a_rejected_hand_has_no_play_on_random_positions():
    rejected = 0
    for _, decks, ace_high, table, hand in _positions(1, 1500):
        if none_can_join_counts(counts(table), counts(hand), ace_high=ace_high):
            rejected += 1
            assert not _placed(table, hand, decks, ace_high).any(), (table, hand, ace_high)
    assert rejected > 50  # the reject fires: the check above is not vacuous


def test_rejected_cards_are_never_placed_whatever_the_rest_of_the_hand_does():
    rejected = 0
    for rng, decks, ace_high, table, hand in _positions(2, 1500):
        cand = rng.sample(hand, rng.randint(1, len(hand)))
        if none_can_join_counts(counts(table), counts(hand), counts(cand), ace_high):
            rejected += 1
            placed = _placed(table, hand, decks, ace_high)
            assert not (placed[counts(cand) > 0]).any(), (table, hand, cand, ace_high)
    assert rejected > 100


def test_a_table_without_a_play_needs_one_of_the_new_cards():
    """What the expert remembers: no play from hand H on table T, then H plus new cards N
    on the same T; where no card of N could lie in a meld, there is still no play."""
    checked = 0
    for rng, decks, ace_high, table, hand in _positions(3, 2500):
        if _placed(table, hand, decks, ace_high).any():
            continue
        new = rand_hand(rng, table + hand, decks, rng.randint(1, 3), near_p=0.5)
        both = hand + new
        if none_can_join_counts(counts(table), counts(both), counts(new), ace_high):
            checked += 1
            assert not _placed(table, both, decks, ace_high).any(), (table, hand, new)
    assert checked > 50


@pytest.mark.parametrize("ace_high, joins", [(0, False), (1, True), (2, True)])
def test_an_ace_after_the_king_joins_only_where_the_ace_is_high(ace_high, joins):
    hand = cards("QS KS AS 5H")   # an empty table: Q K A is a run only with the ace high
    assert none_can_join_counts(counts([]), counts(hand), ace_high=ace_high) is not joins
    assert bool(_placed([], hand, 2, ace_high).any()) is joins


def test_a_group_needs_three_suits_and_a_run_three_consecutive_ranks():
    table = cards("7S 8S 9S")
    assert none_can_join_counts(counts(table), counts(cards("7H 2D")))   # two suits of 7
    assert not none_can_join_counts(counts(table), counts(cards("7H 7D")))   # 7S 7H 7D
    assert not none_can_join_counts(counts(table), counts(cards("10S")))   # extends the run
    assert none_can_join_counts(counts(table), counts(cards("JS")))   # a gap at 10S


def test_a_joker_anywhere_says_nothing():
    assert not none_can_join_counts(counts(cards("7S 8S JK")), counts(cards("2H")))
    assert not none_can_join_counts(counts(cards("7S 8S 9S")), counts(cards("2H JK")))
    assert none_can_join_counts(counts(cards("7S 8S 9S")), counts(cards("2H")))


def test_counts_of_the_wrong_length_are_refused():
    with pytest.raises(ValueError, match="length 53"):
        none_can_join_counts(np.zeros(JOKER), np.zeros(NCARD))
