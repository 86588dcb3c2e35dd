"""Where no melds are asked for, the solver searches the partitions with every ace high (the
aces-low search of the position turned over) before the search with aces high, which the
better answer then bounds, or which it skips where that answer places every usable card
(fastmach/core/_high_only.pxi). The answer is a value and a tie-break key: it must be the
one of the search without it (_set_high_only(0)) and of the solve asked for its melds, on
held hands (a large hand on a large table), random and ace-heavy positions, under several
weights; the brute force's canonical answer on small positions; and place_all's.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from tests.positions import (NCARD, adv_aces, check_canonical, counts, rand_hand, rand_table,
                             weights_in_turn, where)

JW = np.ones(16, dtype=np.int32)
HIGH_RULES = [(decks, jpm) for decks in (1, 2, 3) for jpm in (0, 1)]


@pytest.fixture
def switches():
    _solver._set_memo(0)
    yield
    _solver._set_high_only(1)
    _solver._set_memo(1)


def _answer(table, hand, decks, jpm, w, *, witness=False, high_only=(1, 0)):
    """(value, placed) with the switch at high_only ((1, 0): wherever it applies)."""
    _solver._set_high_only(*high_only)
    total, placed, _, _ = _solver.solve_counts(table, hand, decks, 1, jpm, w, JW, witness)
    return int(total), None if placed is None else placed.tolist()


def _held(rng: random.Random, decks: int, jpm: int):
    rules = dict(decks=decks, ace_high=True, jokers_per_meld=jpm)
    table = rand_table(rng, rng.randint(20, 55), rules, max_jokers=0)
    hand = rand_hand(rng, table, decks, rng.randint(10, 44), near_p=0.9)
    return counts(table), counts(hand)


@pytest.mark.parametrize("decks,jpm", HIGH_RULES)
def test_held_hands_answer_as_without_it(switches, decks, jpm):
    rng = random.Random(f"high-only-held-{decks}-{jpm}")
    for i in range(30):
        table, hand = _held(rng, decks, jpm)
        w = weights_in_turn(rng, i)
        got = _answer(table, hand, decks, jpm, w)
        assert got == _answer(table, hand, decks, jpm, w, high_only=(0, 0)), where((table, hand))
        assert got == _answer(table, hand, decks, jpm, w, witness=True), where((table, hand))


@pytest.mark.parametrize("decks,jpm", [(2, 1), (2, 0), (3, 1)])
def test_ace_heavy_positions_are_the_brute_forces_canonical_answer(switches, decks, jpm):
    rng = random.Random(f"high-only-brute-{decks}-{jpm}")
    rules = dict(decks=decks, ace_high=True, jokers_per_meld=jpm)
    for i in range(40):
        table, hand = adv_aces(rng, rules)
        w = weights_in_turn(rng, i)
        got = _answer(counts(table), counts(hand), decks, jpm, w)
        check_canonical(table, hand, rules, w, got[0], got[1])


def test_every_ace_high_beats_aces_low_and_skips_the_search(switches):
    # Q K A of two suits on the table and the hand's Q K A of a third: only aces high place
    # them; the search with aces high is not needed once every card is placed
    table = counts([11, 12, 0, 24, 25, 13])
    hand = counts([37, 38, 26])
    w = np.ones(NCARD, dtype=np.int32)
    got = _answer(table, hand, 2, 1, w)
    assert got == (9, hand.tolist())
    stats = _solver._sweep_stats()
    assert stats and all(s[2] == 0 for s in stats)   # (no sweep with aces high)
    assert got == _answer(table, hand, 2, 1, w, high_only=(0, 0))


def test_held_hands_make_fewer_states(switches):
    rng = random.Random("high-only-states")
    on = off = 0
    for i in range(40):
        table, hand = _held(rng, 2, 1)
        w = np.ones(NCARD, dtype=np.int32)
        _answer(table, hand, 2, 1, w, high_only=(1, 2048))
        on += sum(s[0] for s in _solver._sweep_stats())
        _answer(table, hand, 2, 1, w, high_only=(0, 0))
        off += sum(s[0] for s in _solver._sweep_stats())
    assert on < 0.9 * off


def test_place_all_says_the_same(switches):
    rng = random.Random("high-only-place-all")
    outs = set()
    for _ in range(40):
        table, hand = _held(rng, 2, 1)
        w = np.ones(NCARD, dtype=np.int32)
        _solver._set_high_only(1, 0)
        a = _solver.place_all_counts(table, hand, 2, 1, 1, w, JW, False)
        _solver._set_high_only(0, 0)
        b = _solver.place_all_counts(table, hand, 2, 1, 1, w, JW, False)
        assert a == b
        outs.add(a)
    assert outs == {True, None}


def test_a_planted_fault_in_the_search_turned_over_is_seen(switches):
    rng = random.Random("high-only-fault")
    differs = 0
    for i in range(30):
        table, hand = _held(rng, 2, 1)
        w = np.ones(NCARD, dtype=np.int32)
        differs += _answer(table, hand, 2, 1, w, high_only=(-1, 0)) != \
            _answer(table, hand, 2, 1, w, high_only=(0, 0))
    assert differs >= 5
