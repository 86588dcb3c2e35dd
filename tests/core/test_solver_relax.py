"""One joker per meld: the solver first solves a relaxation (runs counted by length only,
whatever jokers they hold) and keeps its partition only when every meld holds at most
one joker; otherwise the exact search decides. Both paths must give the same answers.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from tests.positions import JOKER, NCARD, cards, check_fast, counts, fast, rand_hand, rand_table


@pytest.fixture
def relax_off():
    _solver._set_relax(0)
    yield
    _solver._set_relax(1)


def _total(table, hand, rules, w):
    jw = np.full(16, int(w[JOKER]), dtype=np.int32)
    return int(_solver.solve_counts(counts(table), counts(hand), rules["decks"],
                                    rules["ace_high"], 1, w, jw, False)[0])


def test_relaxation_with_two_jokers_in_a_run_falls_back_to_the_exact_search():
    # the relaxation's best joins 3D-J-5D and 6D-J-8D into one run with two jokers;
    # with one joker per meld they must stay two runs (8 cards placed, not 7)
    rules = dict(decks=3, ace_high=True, jokers_per_meld=1)
    table = cards("5S 6S 5H 6H 5D 6D 4C 5C 6C 6C")
    hand = cards("6S 7S 8S 3D 8D 5C JK JK")
    got = fast(table, hand, rules)
    check_fast(table, hand, rules, got)
    assert got[0] == 8


@pytest.mark.parametrize("decks,ace_high", [(2, True), (2, False), (3, True)])
def test_relaxation_on_and_off_agree(decks, ace_high, relax_off):
    rules = dict(decks=decks, ace_high=ace_high, jokers_per_meld=1)
    rng = random.Random(f"relax-{decks}-{ace_high}")
    before = _solver._relax_fallbacks()
    for _ in range(150):
        table = rand_table(rng, rng.randint(6, 40), rules, max_jokers=rng.choice((1, 2, 3)))
        k = table.count(JOKER)
        hand = rand_hand(rng, table, decks, rng.randint(2, 10), jokers=rng.choice((0, 1, 2)) if k < 3 else 0)
        w = np.array([rng.randint(1, 9) for _ in range(NCARD)], dtype=np.int32)
        _solver._set_relax(0)
        exact = _total(table, hand, rules, w)
        _solver._set_relax(1)
        relaxed = _total(table, hand, rules, w)
        assert relaxed == exact
    assert _solver._relax_fallbacks() > before   # both paths were exercised
