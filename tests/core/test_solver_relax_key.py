"""The relaxation's answer as a bound on the exact search with aces high
(fastmach/core/_relax_key.pxi, the switch _solver._set_relax_key, on by default): when a
relaxation of one joker per meld falls back to the exact search and that search's aces-low
answer reaches the relaxation's value and tie-break key, its search with aces high is not
run (it could find nothing better).

The tests compare whole answers (value, placed cards, melds and stands) with the switch on
and off on the positions of jokers games and on random jokers positions where the
relaxation falls back, the switch on against the brute force (value and canonical
placement), check that it skips searches (fewer states on such positions), and that a
planted wrong skip (whenever the relaxation's answer is known) is seen.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, adv_aces, check_fast, fast, rand_hand, rand_table,
                             rand_weights, text, whole_answers)
from tests.refs import brute

RULES = [dict(decks=2, ace_high=True, jokers_per_meld=1),
         dict(decks=3, ace_high=True, jokers_per_meld=1)]


def _rid(r: dict) -> str:
    return f"d{r['decks']}"


@pytest.fixture
def key_on():
    _solver._set_memo(0)
    _solver._set_relax_key(1)
    yield
    _solver._set_relax_key(1)
    _solver._set_memo(1)


def _two_jokers(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Two or three jokers between table and hand, aces at both ends: the relaxation's
    answer often holds a meld of two jokers (it falls back)."""
    if rng.random() < 0.5:
        table, hand = adv_aces(rng, rules)
        table = table + [JOKER]
    else:
        table = rand_table(rng, rng.randint(3, 9), rules, max_jokers=2, lengths=(3, 4))
        hand = []
    k = Counter(table)[JOKER]
    extra = rand_hand(rng, table, rules["decks"], rng.randint(1, 3), jokers=max(0, 2 - k))
    hand = [c for c in hand + extra
            if c == JOKER or Counter(table)[c] + Counter(hand + extra)[c] <= rules["decks"]]
    return sorted(table), sorted(hand)


@pytest.mark.parametrize("rules", RULES, ids=_rid)
def test_key_on_matches_brute(key_on, rules):
    rng = random.Random(f"relax-key-{_rid(rules)}")
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
        answered += 1
    assert answered >= 20


def _answers(rules, tables, hands, mode: int) -> tuple[list, int]:
    """Whole answers under both objectives with the switch at `mode`, and the states."""
    _solver._set_relax_key(mode)
    return whole_answers(rules, tables, hands)


@pytest.mark.parametrize("preset", ["jokers", "jokers(joker_swap=hand,opening_points=40)"])
def test_key_on_keeps_every_answer_of_game_positions(key_on, preset):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=20, seed=11)
    f0 = _solver._relax_fallbacks()
    on, states_on = _answers(rules, tables, hands, 1)
    assert _solver._relax_fallbacks() > f0   # (some relaxations fell back)
    off, states_off = _answers(rules, tables, hands, 0)
    assert on == off
    assert states_on < states_off   # (it skipped searches)


def test_a_wrong_skip_is_caught(key_on):
    """Skipping the search with aces high whenever the relaxation fell back loses answers
    where that search beats the aces-low one."""
    rules = resolve_rules("jokers")
    tables, hands = game_positions(rules, games=80, seed=11)
    wrong, _ = _answers(rules, tables, hands, -1)
    right, _ = _answers(rules, tables, hands, 0)
    assert sum(a[:2] != b[:2] for a, b in zip(wrong, right)) >= 4


def test_a_skipped_search(key_on):
    """A position of a jokers game whose relaxation holds a meld of two jokers and whose
    exact aces-low answer reaches it: the search with aces high is skipped (two sweeps
    fewer), the answer the same."""
    rules = resolve_rules("jokers")
    w, jw = weights(rules, "cards")
    tables, hands = game_positions(rules, games=80, seed=11)
    found = 0
    for t, h in zip(tables, hands):
        got, sweeps = [], []
        for mode in (0, 1):
            _solver._set_relax_key(mode)
            got.append(repr(_solver.solve_counts(t, h, rules.decks, rules.ace_code,
                                                 rules.jokers_per_meld, w, jw, True)))
            sweeps.append(len(_solver._sweep_stats()))
        assert got[0] == got[1]
        found += sweeps[1] < sweeps[0]
    assert found >= 2
