"""The solver's move lists without jokers against the walk they replace: a suit step
without jokers takes each state's moves from a list made once per case (its open runs
of the suit, the cards that must / may be used, whether short runs may stay open, the
aces' low value: fastmach/core/_plain_moves.pxi). Walking the choices for every state
instead (_set_plain_moves(0)), every layer must hold the same states in the same order
(keys, values) and every answer must be the same (value, placed cards, melds): on random
and adversarial positions without jokers, two and three decks, every ace rule, with and
without a bound on the weight to come, and the positions of expert games. Lists planted
wrong (two moves out of order) must be seen by the same comparison.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (NCARD, adv_aces, adv_duplicates, adv_full_suit, adv_long_runs,
                             counts, rand_hand, rand_table, where)

ACES = (0, 1, 2)   # the solver's ace codes: low only, low or high, never both


@pytest.fixture
def switches():
    _solver._set_memo(0)   # (every answer searched: none read back from the memo)
    yield
    _solver._set_plain_moves(1)
    _solver._set_memo(1)


def _position(rng):
    decks, ace = rng.choice((2, 2, 3)), rng.choice(ACES)
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=1)
    if rng.random() < 0.4:
        adv = rng.choice((adv_aces, adv_full_suit, adv_long_runs, adv_duplicates))
        table, hand = adv(rng, rules)
    else:
        table = rand_table(rng, rng.randint(0, 45), rules, max_jokers=0)
        hand = rand_hand(rng, table, decks, rng.randint(1, 16), jokers=0)
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    return counts(table), counts(hand), decks, ace, np.array(w, dtype=np.int32)


def _layers():
    return [_solver._layer_keys(i) for i in range(len(_solver._layer_sizes()))]


def _solve(table, hand, decks, ace, w, jw=None):
    jw = np.full(16, int(w[-1]), dtype=np.int32) if jw is None else jw
    total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, 1, w, jw, True)
    return (int(total), None if placed is None else placed.tolist(), melds, stands), _layers()


def _sweeps(table, hand, ace, w, jw=None):
    """Single sweeps (aces low only; high) without a bound and with bounds that prune."""
    jw = np.full(16, int(w[-1]), dtype=np.int32) if jw is None else jw
    out = []
    for high in (0, 1) if ace else (0,):
        best, _ = _solver._one_sweep(table, hand, high, 1, 0, w, jw, -1)
        for lb in sorted({-1, best - 2, best - 1, best}):
            out.append((_solver._one_sweep(table, hand, high, 1, 0, w, jw, lb), _layers()))
    return out


def _both(pos):
    _solver._set_plain_moves(0)
    walk = _solve(*pos), _sweeps(pos[0], pos[1], pos[3], pos[4])
    _solver._set_plain_moves(1)
    lists = _solve(*pos), _sweeps(pos[0], pos[1], pos[3], pos[4])
    return walk, lists


@pytest.mark.parametrize("seed", range(4))
def test_move_lists_make_the_states_and_answers_of_the_walk(switches, seed):
    rng = random.Random(f"plain-moves-{seed}")
    for _ in range(60):
        pos = _position(rng)
        walk, lists = _both(pos)
        assert lists == walk, where(pos)


@pytest.mark.parametrize("preset,games", [("classic", 6), ("ace-low", 3)])
def test_move_lists_on_the_positions_of_expert_games(switches, preset, games):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=7)
    w, jw = weights(rules, "points")
    for t, h in zip(tables, hands):
        if t[-1] or h[-1]:
            continue
        _solver._set_plain_moves(0)
        walk = _solve(t, h, rules.decks, rules.ace_code, w, jw)
        _solver._set_plain_moves(1)
        assert _solve(t, h, rules.decks, rules.ace_code, w, jw) == walk


def test_move_lists_planted_out_of_order_are_seen(switches):
    rng = random.Random("plain-moves-planted")
    seen = 0
    for _ in range(60):
        pos = _position(rng)
        _solver._set_plain_moves(0)
        walk = _solve(*pos), _sweeps(pos[0], pos[1], pos[3], pos[4])
        _solver._set_plain_moves(-1)
        seen += (_solve(*pos), _sweeps(pos[0], pos[1], pos[3], pos[4])) != walk
    assert seen > 0
