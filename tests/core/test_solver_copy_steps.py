"""The solver's copied layers against the full steps: a suit step where the suit has no
card and no state an open run of it, and a group step where no suit has a card (or the
aces' value 1 with aces high), are done as a copy of the layer (_copy_step). Done in full
instead, every layer of the last sweep must hold the same states in the same order (keys
and values), and every answer must be the same (value, placed cards, melds, what each
joker stands for): on random and adversarial positions, without jokers and joker-heavy,
every ace rule, one joker per meld and unlimited, and the positions of expert games.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, NCARD, adv_aces, adv_full_suit, adv_jokers, adv_long_runs,
                             counts, rand_hand, rand_table, text)

ACES = (0, 1, 2)   # the solver's ace codes: low only, low or high, never both


@pytest.fixture
def full_steps():
    _solver._set_memo(0)   # (every answer searched: none read back from the memo)
    yield
    _solver._set_copy_steps(1)
    _solver._set_memo(1)


def _position(rng):
    decks, ace, lim = rng.choice((2, 2, 3)), rng.choice(ACES), rng.choice((1, 1, 0))
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)
    pick = rng.random()
    if pick < 0.4:
        adv = rng.choice((adv_aces, adv_full_suit, adv_jokers, adv_long_runs))
        table, hand = adv(rng, rules)
    else:
        jokers = rng.choice((0, 0, 1, 2, 3))
        table = rand_table(rng, rng.randint(0, 40), rules, max_jokers=jokers)
        hand = rand_hand(rng, table, decks, rng.randint(1, 12),
                         jokers=rng.randint(0, max(0, min(2, jokers - table.count(JOKER)))))
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    return counts(table), counts(hand), decks, ace, lim, np.array(w, dtype=np.int32)


def _run(table, hand, decks, ace, lim, w, jw=None):
    jw = np.full(16, int(w[JOKER]), dtype=np.int32) if jw is None else jw
    total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, lim, w, jw, True)
    sizes = _solver._layer_sizes()
    layers = [_solver._layer_keys(i) for i in range(len(sizes))]
    return (int(total), None if placed is None else placed.tolist(), melds, stands), layers


def _same_both_ways(*pos, where=""):
    _solver._set_copy_steps(0)
    full = _run(*pos)
    _solver._set_copy_steps(1)
    copied = _run(*pos)
    assert copied[0] == full[0], where
    assert copied[1] == full[1], where


@pytest.mark.parametrize("seed", range(4))
def test_copied_layers_hold_the_states_and_answers_of_the_full_steps(full_steps, seed):
    rng = random.Random(f"copy-steps-{seed}")
    for _ in range(80):
        pos = _position(rng)
        table, hand = pos[0], pos[1]
        _same_both_ways(*pos, where=f"table {text(np.repeat(np.arange(NCARD), table))} "
                                    f"hand {text(np.repeat(np.arange(NCARD), hand))} {pos[2:5]}")


@pytest.mark.parametrize("preset,games", [("classic", 6), ("jokers", 4), ("ace-low", 3)])
def test_copied_layers_on_the_positions_of_expert_games(full_steps, preset, games):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=5)
    w, jw = weights(rules, "points")
    for t, h in zip(tables, hands):
        _same_both_ways(t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
