"""The plain sweep on large tables: the positions a holding player makes (strong + expert
games, where the experts meet tables of 50 to 95 cards and the strong seat solves hands of
20 to 45 cards) and random and adversarial large tables, without jokers.

- The tie-break's bound in the plain suit step is made once per state
  (`_tie_left`, fastmach/core/_solver.pyx) where the walk (_set_plain_moves(0)) asks
  `_tie_lost` for every move: every layer the same (keys, values, in order), every answer
  the same (value, placed cards, melds), with and without a bound on the weight to come.
- The hash table of a sweep is cleared only where it is in use (a table grows by a rehash
  that clears it whole): a solver that has just solved a large table gives every later
  position the layers and answer of a fresh solver.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.core.cards import NCARD
from fastmach.engine import make_engine
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from tests.positions import counts, plain_position, rand_hand, rand_table, where

LINEUP = ("strong", "expert", "expert", "expert")


def _strong_expert_positions(preset: str, games: int, seed: int):
    """(table, hand, seat's strategy) before each turn of strong + 3 x expert games, from
    the engine's record of them."""
    rules = resolve_rules(preset)
    eng = make_engine(rules, list(LINEUP))[2]
    out = []
    for game in eng.play_batch(seed, np.arange(games), record=True)["log"]:
        for hand in game:
            held = np.zeros((rules.players, NCARD), dtype=np.uint8)
            for s, cards in enumerate(hand["hands"]):
                np.add.at(held[s], cards, 1)
            table = np.zeros(NCARD, dtype=np.uint8)
            for turn in hand["turns"]:
                s = turn["seat"]
                out.append((table.copy(), held[s].copy(), LINEUP[s]))
                np.subtract.at(held[s], turn["placed"], 1)
                np.add.at(held[s], turn["taken"] + turn["drawn"], 1)
                table = np.zeros(NCARD, dtype=np.uint8)
                for m in turn["table"]:
                    np.add.at(table, m, 1)
    return rules, out


@pytest.fixture(scope="module")
def large_positions():
    """Positions of 30 classic strong + expert games: the experts' of 51+ table cards, the
    strong seat's of 20+ hand cards on 25+ table cards (the solver's deepening, bounded)."""
    rules, pos = _strong_expert_positions("classic", 30, 1)
    experts = [(t, h) for t, h, who in pos if who == "expert" and t.sum() > 50]
    strong = [(t, h) for t, h, who in pos if who == "strong" and h.sum() >= 20 and t.sum() >= 25]
    assert len(experts) >= 8 and len(strong) >= 10   # (the games still make such tables)
    return rules, experts[:10] + strong[::max(1, len(strong) // 10)][:10]


@pytest.fixture
def switches():
    _solver._set_memo(0)   # (every answer searched: none read back from the memo)
    yield
    _solver._set_plain_moves(1)
    _solver._set_memo(1)


def _layers(solver=None):
    return [_solver._layer_keys(i, solver) for i in range(len(_solver._layer_sizes(solver)))]


def _solve(pos, solver=None):
    table, hand, decks, ace, w, jw = pos
    total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, 1, w, jw,
                                                        True, solver)
    return (int(total), None if placed is None else placed.tolist(), melds, stands), \
        _layers(solver)


def _walk_and_lists(pos):
    out = []
    for mode in (0, 1):
        _solver._set_plain_moves(mode)
        res = [_solve(pos)]
        table, hand, decks, ace, w, jw = pos
        for high in (0, 1) if ace else (0,):
            best, _ = _solver._one_sweep(table, hand, high, 1, 0, w, jw, -1)
            for lb in sorted({best - 2, best - 1}):
                res.append((_solver._one_sweep(table, hand, high, 1, 0, w, jw, lb), _layers()))
        out.append(res)
    return out


def _large_random(rng: random.Random):
    decks, ace = rng.choice((2, 2, 3)), rng.choice((0, 1, 1, 2))
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=1)
    if rng.random() < 0.3:
        table, hand = plain_position(rng, rules, adv_share=1.0)
    else:
        table = counts(rand_table(rng, rng.randint(50, 30 * decks), rules, max_jokers=0))
        hand = counts(rand_hand(rng, np.repeat(np.arange(NCARD), table).tolist(), decks,
                                rng.randint(1, 14), jokers=0))
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    w = np.array(w, dtype=np.int32)
    return table, hand, decks, ace, w, np.full(16, int(w[-1]), dtype=np.int32)


def test_bound_made_once_per_state_on_strong_expert_positions(switches, large_positions):
    rules, positions = large_positions
    for objective in ("cards", "points"):
        w, jw = weights(rules, objective)
        for t, h in positions:
            pos = (t, h, rules.decks, rules.ace_code, w, jw)
            walk, lists = _walk_and_lists(pos)
            assert walk == lists, where(pos)


@pytest.mark.parametrize("seed", range(2))
def test_bound_made_once_per_state_on_random_large_tables(switches, seed):
    rng = random.Random(f"large-tables-{seed}")
    for _ in range(12):
        pos = _large_random(rng)
        walk, lists = _walk_and_lists(pos)
        assert walk == lists, where(pos)


def test_a_solver_after_a_large_table_answers_as_a_fresh_one(switches, large_positions):
    rules, positions = large_positions
    w, jw = weights(rules, "cards")
    rng = random.Random("after-large")
    shared = _solver.Solver()
    small = [plain_position(rng, dict(decks=rules.decks, ace_high=True, jokers_per_meld=1))
             for _ in range(6)]
    # each large table followed by positions of every size (the table shrinks and grows)
    for t, h in positions[:12]:
        for pt, ph in [(t, h)] + small[:3] + [(t, h)] + small[3:]:
            pos = (pt, ph, rules.decks, rules.ace_code, w, jw)
            assert _solve(pos, shared) == _solve(pos, _solver.Solver()), where(pos)
