"""The useless hand cards of a position without jokers, dropped on bitmasks (fastmach/core/
_plain_drop.pxi), against the general walk of _drop_useless (_set_plain_drop(0)): the same
counts kept, on random and adversarial positions (two and three decks, aces low only and
high) and the positions of expert games; and the same answers from the solver.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import plain_position, where


@pytest.fixture
def switches():
    _solver._set_memo(0)
    yield
    _solver._set_plain_drop(1)
    _solver._set_memo(1)


def _kept(mode: int, table, hand, ace_high: int):
    _solver._set_plain_drop(mode)
    return _solver._useful_counts(table, hand, ace_high)


def _position(rng: random.Random):
    decks = rng.choice((2, 2, 3))
    rules = dict(decks=decks, ace_high=rng.random() < 0.7, jokers_per_meld=1)
    table, hand = plain_position(rng, rules, table_cards=(0, 40), hand_cards=(1, 25))
    return table, hand, decks


@pytest.mark.parametrize("seed", range(4))
def test_plain_drop_keeps_the_cards_of_the_general_walk(switches, seed):
    rng = random.Random(f"plain-drop-{seed}")
    dropped = 0
    for _ in range(300):
        table, hand, decks = _position(rng)
        for ace in (0, 1):
            fast = _kept(1, table, hand, ace)
            slow = _kept(0, table, hand, ace)
            assert fast == slow, where((table, hand, decks, ace))
            dropped += int(np.sum(table[:52] + hand[:52])) - sum(map(sum, fast))
    assert dropped > 0


@pytest.mark.parametrize("preset", ["classic", "ace-low", "italian"])
def test_plain_drop_on_the_positions_of_expert_games(switches, preset):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=5, seed=13)
    w, jw = weights(rules, "cards")
    for t, h in zip(tables, hands):
        assert _kept(1, t, h, rules.ace_code) == _kept(0, t, h, rules.ace_code)
        answers = []
        for mode in (1, 0):
            _solver._set_plain_drop(mode)
            r = _solver.solve_counts(t, h, rules.decks, rules.ace_code, rules.jokers_per_meld,
                                     w, jw, True)
            answers.append((r[0], None if r[1] is None else r[1].tolist(), r[2], r[3]))
        assert answers[0] == answers[1], where((t, h, rules.decks, rules.ace_code))
