"""Where no melds are asked for and a better partition with aces high could leave out only
a few hand cards, the solver takes its answer from those sets of cards (each set whose
leaving out would beat the best answer known, rejected by split_impossible or asked of
Solver.place_all in order of weight then key: fastmach/core/_left_out.pxi) instead of the
search with aces high. The answer (a value and a key) must be the one of the search
(_set_left_out(0)) and of the solve asked for its melds, on held hands under several
weights, the brute force's canonical answer on small ace-heavy positions, and the same
solver's next answers (the nested questions leave nothing behind).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from tests.positions import (JOKER, NCARD, adv_aces, check_canonical, counts, rand_hand,
                             rand_meld, rand_table, weights_in_turn, where)

JW = np.ones(16, dtype=np.int32)
HIGH_RULES = [(decks, jpm) for decks in (1, 2, 3) for jpm in (0, 1)]
EVERYWHERE = (1, 1 << 20)   # tried wherever it applies, whatever the aces-low search's size


@pytest.fixture
def switches():
    _solver._set_memo(0)
    _solver._set_high_only(1, 0)
    yield
    _solver._set_left_out(1)
    _solver._set_high_only(1)
    _solver._set_memo(1)


def _answer(table, hand, decks, jpm, w, *, witness=False, left_out=EVERYWHERE):
    _solver._set_left_out(*left_out)
    total, placed, _, _ = _solver.solve_counts(table, hand, decks, 1, jpm, w, JW, witness)
    return int(total), None if placed is None else placed.tolist()


def _held(rng: random.Random, decks: int, jpm: int):
    """A hand of whole melds and a few strays on a table of melds (with aces high runs
    at both ends): a better partition could leave out only a few of its cards."""
    melds, used = [], np.zeros(NCARD, dtype=np.int64)
    while used.sum() < rng.randint(30, 80):
        m = rand_meld(rng, True, jpm, False, (3, 3, 4, 5))
        if rng.random() < 0.3:   # a run through an ace, low or high
            s = rng.randrange(4)
            m = [s * 13 + r for r in ((0, 1, 2) if rng.random() < 0.5 else (11, 12, 0))]
        if all(used[c] + m.count(c) <= decks for c in set(m)):
            melds.append(m)
            for c in m:
                used[c] += 1
    table, hand = [], []
    for m in melds:
        (hand if rng.random() < 0.45 else table).extend(m)
    free = [c for c in range(JOKER) for _ in range(decks - int(used[c]))]
    hand += rng.sample(free, min(len(free), rng.randint(0, 3)))
    return counts(table), counts(hand)


@pytest.mark.parametrize("decks,jpm", HIGH_RULES)
def test_held_hands_answer_as_the_search(switches, decks, jpm):
    rng = random.Random(f"left-out-held-{decks}-{jpm}")
    _solver._left_out_stats(True)
    for i in range(30):
        table, hand = _held(rng, decks, jpm)
        w = weights_in_turn(rng, i, lowest=1)
        got = _answer(table, hand, decks, jpm, w)
        assert got == _answer(table, hand, decks, jpm, w, left_out=(0, 16)), where((table, hand))
        assert got == _answer(table, hand, decks, jpm, w, witness=True), where((table, hand))
    assert _solver._left_out_stats()[0] > 0   # (answers made that way)


@pytest.mark.parametrize("decks,jpm", [(2, 1), (2, 0), (3, 1)])
def test_ace_heavy_positions_are_the_brute_forces_canonical_answer(switches, decks, jpm):
    rng = random.Random(f"left-out-brute-{decks}-{jpm}")
    rules = dict(decks=decks, ace_high=True, jokers_per_meld=jpm)
    for i in range(40):
        table, hand = adv_aces(rng, rules)
        w = weights_in_turn(rng, i, lowest=1)
        got = _answer(counts(table), counts(hand), decks, jpm, w)
        check_canonical(table, hand, rules, w, got[0], got[1])


def test_the_nested_questions_leave_the_solver_as_it_was(switches):
    # a solve that asked place_all, then solves of other positions on the same solver:
    # each as a fresh solver answers it (the key's digits, the direction, the mode)
    rng = random.Random("left-out-nested")
    solver = _solver.Solver()
    _solver._left_out_stats(True)
    for i in range(40):
        table, hand = _held(rng, 2, 1)
        w = weights_in_turn(rng, i, lowest=1)
        witness = i % 4 == 3
        _solver._set_left_out(*EVERYWHERE)
        got = _solver.solve_counts(table, hand, 2, 1, 1, w, JW, witness, solver)
        want = _solver.solve_counts(table, hand, 2, 1, 1, w, JW, witness, _solver.Solver())
        assert int(got[0]) == int(want[0]) and got[1].tolist() == want[1].tolist()
        assert got[2] == want[2]
    assert _solver._left_out_stats()[1] > 0   # (place_all asked, then other solves)


def test_a_planted_fault_in_the_questions_is_seen(switches):
    # the first set split_impossible does not reject taken as splitting, unasked
    rng = random.Random("left-out-fault")
    rules = dict(decks=2, ace_high=True, jokers_per_meld=1)
    differs = 0
    for i in range(300):
        cards = rand_table(rng, rng.randint(25, 55), rules, max_jokers=0)
        table = counts(cards)
        hand = counts(rand_hand(rng, cards, 2, rng.randint(12, 40), near_p=0.9))
        w = np.ones(NCARD, dtype=np.int32)
        differs += _answer(table, hand, 2, 1, w, left_out=(-1, 1 << 20)) != \
            _answer(table, hand, 2, 1, w, left_out=(0, 16))
    assert differs >= 2
