"""Without melds (a solve that asks for none: the plays of a batch nobody reads the melds
of, Context.melds 0) the searches with jokers run the dominance pass by the layer's size, as
those without jokers do, instead of after every suit step on that suit
(fastmach/core/_solver.pyx, _scope_fixed). The value and the placed cards must be those of
the same solve asked for its melds and of the same solve with the fixed scope
(_set_free_scope(0)), on random and adversarial jokers positions under every rules grid
point and random weights, and on the positions of jokers games under both objectives; small
positions must give the brute force's value and canonical placement; and the scope must be
in effect (other state counts on some positions).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, NCARD, RULES_GRID, adv_jokers, check_canonical, counts,
                             listing, rand_hand, rand_table, rules_id, text)


@pytest.fixture
def free():
    _solver._set_memo(0)
    yield
    _solver._set_free_scope(1)
    _solver._set_memo(1)


def _answer(pos, witness: bool, free_scope: int = 1):
    """(value, placed counts, states of each search) of one solve."""
    _solver._set_free_scope(free_scope)
    total, placed, _, _ = _solver.solve_counts(*pos, witness)
    states = [s[0] for s in _solver._sweep_stats()]
    _solver._set_free_scope(1)
    return int(total), None if placed is None else placed.tolist(), states


def _drawn(rng: random.Random, rules: dict, large: bool):
    """(table, hand, the solve's arguments): a jokers position of these rules and random
    weights (one for every card half the time)."""
    table, hand = _position(rng, rules, large)
    if rng.random() < 0.5:
        w = np.ones(NCARD, dtype=np.int32)
    else:
        w = np.array([rng.randint(1, 9) for _ in range(NCARD)], dtype=np.int32)
    jw = np.full(16, int(w[JOKER]), dtype=np.int32)
    return table, hand, (counts(table), counts(hand), rules["decks"], int(rules["ace_high"]),
                         rules["jokers_per_meld"], w, jw)


def _position(rng: random.Random, rules: dict, large: bool):
    if rng.random() < 0.3:
        table, hand = adv_jokers(rng, rules)
    else:
        jokers = rng.choice((1, 2, 3))
        lo, hi = (20, 50) if large else (3, 9)
        table = rand_table(rng, rng.randint(lo, hi), rules, max_jokers=jokers)
        spare = max(0, min(2, jokers - table.count(JOKER)))
        hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 10 if large else 4),
                         jokers=rng.randint(0, spare))
    return table, hand


@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_without_melds_the_value_and_placed_cards_are_those_with_them(free, rules):
    rng = random.Random(f"free-scope-{rules_id(rules)}")
    for _ in range(40):
        table, hand, pos = _drawn(rng, rules, large=True)
        with_melds = _answer(pos, True)
        without = _answer(pos, False)
        fixed = _answer(pos, False, free_scope=0)
        assert without[:2] == with_melds[:2] == fixed[:2], (text(table), text(hand))
        assert fixed[2] == with_melds[2]   # (the fixed scope: the searches with melds)


def test_on_the_positions_of_jokers_games(free):
    rules = resolve_rules("jokers(match=single)")
    tables, hands = game_positions(rules, games=10, seed=7)
    changed = 0
    for objective in ("cards", "points"):
        w, jw = weights(rules, objective)
        for t, h in zip(tables, hands):
            pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
            with_melds = _answer(pos, True)
            without = _answer(pos, False)
            assert without[:2] == with_melds[:2], (text(listing(t)), text(listing(h)))
            changed += without[2] != with_melds[2]
    # the scope is in effect: some searches make other states without melds
    assert changed > 0


@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_small_positions_without_melds_are_the_brute_force_answer(free, rules):
    rng = random.Random(f"free-scope-small-{rules_id(rules)}")
    for _ in range(12):
        table, hand, pos = _drawn(rng, rules, large=False)
        value, placed, _ = _answer(pos, False)
        check_canonical(table, hand, rules, pos[5], value, placed)
