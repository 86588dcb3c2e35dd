"""The dominance pass's scope (_set_prune_from: the layer sizes from which it compares one
suit, every suit after a suit step, every suit after a group step) changes which of equal
answers is returned, never the value: no pass at all, the pass after every step in every
suit and the default sizes must give the same value and a valid answer of that value, on
random, adversarial and joker-heavy positions and on those of expert games.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, NCARD, adv_aces, adv_jokers, adv_long_runs, counts,
                             rand_hand, rand_table, where)

NEVER = 1 << 30
SCOPES = ((NEVER, NEVER, NEVER), (1, 1, 1), (512, 512, 32))
DEFAULT = (4096, 4096, 32)


@pytest.fixture
def scopes():
    _solver._set_memo(0)
    _solver._set_fixed_scope(0)   # (else the searches with jokers keep their fixed scope)
    yield
    _solver._set_prune_from(*DEFAULT)
    _solver._set_fixed_scope(1)
    _solver._set_memo(1)


def _position(rng):
    decks, ace, lim = rng.choice((2, 2, 3)), rng.choice((0, 1, 2)), rng.choice((1, 1, 0))
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)
    if rng.random() < 0.3:
        table, hand = rng.choice((adv_aces, adv_jokers, adv_long_runs))(rng, rules)
    else:
        jokers = rng.choice((1, 2, 3, 4))
        table = rand_table(rng, rng.randint(6, 40), rules, max_jokers=jokers)
        spare = max(0, min(2, jokers - table.count(JOKER)))
        hand = rand_hand(rng, table, decks, rng.randint(1, 10), jokers=rng.randint(0, spare))
    w = np.array([rng.randint(1, 9) for _ in range(NCARD)], dtype=np.int32)
    return counts(table), counts(hand), decks, ace, lim, w, np.full(16, int(w[JOKER]), np.int32)


def _values(pos):
    out = []
    for scope in (DEFAULT,) + SCOPES:
        _solver._set_prune_from(*scope)
        total, placed, melds, _ = _solver.solve_counts(*pos, True)
        if total >= 0:
            # the answer holds the table and the cards it says it placed
            used = np.zeros(NCARD, dtype=np.int64)
            for m in melds:
                np.add.at(used, m, 1)
            assert (used == pos[0] + placed).all()
        out.append(int(total))
    _solver._set_prune_from(*DEFAULT)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_the_dominance_scope_never_changes_a_value(scopes, seed):
    rng = random.Random(f"prune-scope-{seed}")
    for _ in range(60):
        pos = _position(rng)
        values = _values(pos)
        assert len(set(values)) == 1, (values, where(pos))


def test_the_dominance_scope_on_the_positions_of_expert_jokers_games(scopes):
    rules = resolve_rules("jokers")
    tables, hands = game_positions(rules, games=6, seed=13)
    w, jw = weights(rules, "cards")
    for t, h in zip(tables, hands):
        pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
        values = _values(pos)
        assert len(set(values)) == 1, (values, where(pos))
