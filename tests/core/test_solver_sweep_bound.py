"""One sweep of the solver and its bound, against the brute-force reference.

A sweep drops every state that cannot beat a known value (``lb``): with ``lb`` one below
the optimum it must still find the optimum (no state on an optimal path is cut), with
``lb`` at the optimum it must find nothing above it (a final state at ``lb`` may be left,
which proves nothing), and without a bound it is the exact search. Aces low only and aces high (each sweep on its own), jokers one per meld (the
exact model, runs flagged by their joker) and unlimited.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from tests.positions import JOKER, NCARD, adv_jokers, counts, rand_hand, rand_table, text
from tests.refs import brute


def _position(rng):
    rules = dict(decks=rng.choice((2, 3)), ace_high=rng.random() < 0.5,
                 jokers_per_meld=rng.choice((0, 1)))
    if rng.random() < 0.3:
        table, hand = adv_jokers(rng, rules)
    else:
        table = rand_table(rng, rng.randint(3, 13), rules, max_jokers=rng.choice((0, 1, 2)))
        hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 5),
                         jokers=rng.randint(0, min(2, 3 - table.count(JOKER))))
    w = np.array([rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5
                 else [1] * NCARD, dtype=np.int32)
    return table, hand, rules, w


def _sweep(table, hand, rules, w, lb):
    jw = np.full(16, int(w[JOKER]), dtype=np.int32)
    lim = rules["jokers_per_meld"]
    best, states = _solver._one_sweep(counts(table), counts(hand), int(rules["ace_high"]), lim,
                                      int(lim == 0), w, jw, lb)
    assert states > 0
    return best


@pytest.mark.parametrize("seed", range(3))
def test_a_sweep_bounded_below_the_optimum_finds_it_and_one_at_it_finds_nothing_above(seed):
    rng = random.Random(f"sweep-bound-{seed}")
    checked = 0
    for _ in range(50):
        table, hand, rules, w = _position(rng)
        ref = brute.solve(table, hand, card_w=w.tolist(), ace_both_ends=True, **rules)
        if ref is None:
            continue
        opt = ref[0] + int((w.astype(np.int64) * counts(table)).sum())
        where = f"table {text(table)} hand {text(hand)} {rules}"
        assert _sweep(table, hand, rules, w, -1) == opt, where
        assert _sweep(table, hand, rules, w, opt - 1) == opt, where
        assert _sweep(table, hand, rules, w, opt) <= opt, where   # (-1: no final state)
        checked += 1
    assert checked >= 30
