"""The steps of a sweep without jokers against the general ones they replace: the dominance
pass in one suit (fastmach/core/_plain_prune.pxi, _set_plain_prune(0)) and the group step
(_plain_groups.pxi, _set_plain_groups(0)). Every layer must hold the same states in the
same order (keys, values) and every answer must be the same (value, placed cards, melds),
on random and adversarial positions without jokers (two and three decks, every ace rule,
one joker per meld and jokers unlimited, with and without a bound on the weight to come)
and the positions of expert games.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import NCARD, plain_position, where


SWITCHES = {"prune": _solver._set_plain_prune, "groups": _solver._set_plain_groups}


@pytest.fixture
def switches():
    _solver._set_memo(0)
    yield
    for switch in SWITCHES.values():
        switch(1)
    _solver._set_memo(1)


def _position(rng: random.Random):
    decks, ace, jpm = rng.choice((2, 2, 3)), rng.choice((0, 1, 2)), rng.choice((0, 1, 1))
    table, hand = plain_position(rng, dict(decks=decks, ace_high=ace > 0, jokers_per_meld=jpm),
                                 hand_cards=(1, 18))
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    return table, hand, decks, ace, jpm, np.array(w, dtype=np.int32)


def _layers():
    return [_solver._layer_keys(i) for i in range(len(_solver._layer_sizes()))]


def _run(switch, mode: int, table, hand, decks, ace, jpm, w, jw=None):
    jw = np.full(16, int(w[-1]), dtype=np.int32) if jw is None else jw
    switch(mode)
    total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, jpm, w, jw, True)
    out = [(int(total), None if placed is None else placed.tolist(), melds, stands), _layers()]
    for high in (0, 1) if ace else (0,):
        best, _ = _solver._one_sweep(table, hand, high, jpm, 1 if jpm == 0 else 0, w, jw, -1)
        for lb in sorted({-1, best - 2, best - 1}):
            out.append((_solver._one_sweep(table, hand, high, jpm, 1 if jpm == 0 else 0, w, jw,
                                           lb), _layers()))
    return out


@pytest.mark.parametrize("step", sorted(SWITCHES))
@pytest.mark.parametrize("seed", range(3))
def test_plain_steps_make_the_states_of_the_general_ones(switches, step, seed):
    rng = random.Random(f"plain-steps-{seed}")
    for _ in range(50):
        pos = _position(rng)
        assert _run(SWITCHES[step], 1, *pos) == _run(SWITCHES[step], 0, *pos), where(pos)


@pytest.mark.parametrize("step", sorted(SWITCHES))
@pytest.mark.parametrize("preset,games", [("classic", 5), ("italian", 3)])
def test_plain_steps_on_the_positions_of_expert_games(switches, step, preset, games):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=19)
    w, jw = weights(rules, "cards")
    for t, h in zip(tables, hands):
        pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
        assert _run(SWITCHES[step], 1, *pos)[:2] == _run(SWITCHES[step], 0, *pos)[:2], \
            where(pos)
