"""What the relaxation's aces-low search tells the exact search
(fastmach/core/_relax_low.pxi, the switch _solver._set_relax_low, on by default): after a
relaxation of one joker per meld that fell back, the exact search skips its aces-low search
when the relaxation's found no partition, and runs its search with aces high first when the
relaxation's aces-low partition is exact (no meld of two jokers), the aces-low search then
only when that search beats nothing.

The tests compare whole answers (value, placed cards, melds and stands) with the switch on
and off on the positions of jokers games and on random jokers positions where the
relaxation falls back, the switch on against the brute force (value and canonical
placement) and the integer program, check that it skips searches (fewer states on such
positions), and that a planted wrong bound (the value alone, not the tie-break key) is
seen.
"""
from __future__ import annotations

import random

import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.core.test_solver_relax_key import RULES, _rid, _two_jokers
from tests.positions import (check_fast, fast, rand_weights, text, whole_answers)
from tests.refs import brute, milp


@pytest.fixture
def low_on():
    _solver._set_memo(0)
    _solver._set_relax_low(1)
    yield
    _solver._set_relax_low(1)
    _solver._set_memo(1)


@pytest.mark.parametrize("rules", RULES, ids=_rid)
def test_low_on_matches_brute_and_milp(low_on, rules):
    rng = random.Random(f"relax-low-{_rid(rules)}")
    answered = 0
    for trial in range(40):
        table, hand = _two_jokers(rng, rules)
        if not brute.solve(table, [], **rules):
            continue   # (not a valid table)
        card_w = rand_weights(rng) if trial % 3 == 0 else None
        ref = brute.solve(table, hand, card_w=card_w, **rules)
        can = brute.canonical(table, hand, card_w=card_w, **rules)
        got = fast(table, hand, rules, card_w)
        check_fast(table, hand, rules, got, card_w)
        assert got[0] == ref[0], (rules, text(table), text(hand), card_w)
        assert sorted(got[1]) == can[1], (rules, text(table), text(hand), card_w)
        if card_w is None:
            assert got[0] == milp.solve(table, hand, known_valid=True, **rules)[0], \
                (rules, text(table), text(hand))
        answered += 1
    assert answered >= 20


@pytest.mark.parametrize("rules", RULES, ids=_rid)
def test_low_on_and_off_agree_on_random_positions(low_on, rules):
    rng = random.Random(f"relax-low-same-{_rid(rules)}")
    h0 = _solver._relax_low_hits()
    for trial in range(60):
        table, hand = _two_jokers(rng, rules)
        if not brute.solve(table, [], **rules):
            continue
        card_w = rand_weights(rng) if trial % 2 else None
        got = []
        for mode in (0, 1):
            _solver._set_relax_low(mode)
            got.append(fast(table, hand, rules, card_w))
        assert repr(got[0]) == repr(got[1]), (rules, text(table), text(hand), card_w)
    assert _solver._relax_low_hits() != h0   # (the positions took its paths)


def _answers(rules, tables, hands, mode: int) -> tuple[list, int]:
    """Whole answers under both objectives with the switch at `mode`, and the searches."""
    _solver._set_relax_low(mode)
    return whole_answers(rules, tables, hands, count="searches")


@pytest.mark.parametrize("preset", ["jokers", "jokers(joker_swap=hand,opening_points=40)"])
def test_low_on_keeps_every_answer_of_game_positions(low_on, preset):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=20, seed=11)
    f0, h0 = _solver._relax_fallbacks(), _solver._relax_low_hits()
    on, searches_on = _answers(rules, tables, hands, 1)
    assert _solver._relax_fallbacks() > f0   # (some relaxations fell back)
    h1 = _solver._relax_low_hits()
    assert h1[0] > h0[0] and h1[1] > h0[1]   # (both paths taken)
    off, searches_off = _answers(rules, tables, hands, 0)
    assert on == off
    assert searches_on < searches_off   # (it skipped searches)


def test_a_wrong_bound_is_caught(low_on):
    """Bounding the search with aces high by the value alone drops its partitions that
    beat the aces-low answer by the tie-break key only."""
    rules = resolve_rules("jokers")
    tables, hands = game_positions(rules, games=120, seed=1)
    wrong, _ = _answers(rules, tables, hands, -1)
    right, _ = _answers(rules, tables, hands, 0)
    assert sum(a[:2] != b[:2] for a, b in zip(wrong, right)) >= 1


def test_a_jokers_solve_leaves_the_next_one_alone(low_on):
    """Positions of classic games solved alone and each right after one of a jokers game
    (one solver): the same answers, melds included (what a relaxation's aces-low search
    told stays with its solve: one that found none once made the next position without
    jokers skip its aces-low search)."""
    jk, cl = resolve_rules("jokers"), resolve_rules("classic")
    jt, jh = game_positions(jk, games=10, seed=3)
    ct, ch = game_positions(cl, games=10, seed=3)
    n = min(len(jt), len(ct))
    wj, jwj = weights(jk, "cards")
    wc, jwc = weights(cl, "cards")

    def classic(i):
        return repr(_solver.solve_counts(ct[i], ch[i], cl.decks, cl.ace_code,
                                         cl.jokers_per_meld, wc, jwc, True))

    alone = [classic(i) for i in range(n)]
    after = []
    for i in range(n):
        _solver.solve_counts(jt[i], jh[i], jk.decks, jk.ace_code, jk.jokers_per_meld, wj,
                             jwj, True)
        after.append(classic(i))
    assert alone == after

