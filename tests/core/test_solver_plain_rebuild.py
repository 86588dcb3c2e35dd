"""The melds of a solve without jokers against the rebuild they replace: without jokers the
solver rebuilds its melds by one walk of each suit's open runs (fastmach/core/
_plain_rebuild.pxi) instead of the searches of the general rebuild (_set_plain_rebuild(0)).
Every answer must be the same (value, placed cards, melds and their order, stands): on
random and adversarial positions without jokers, two and three decks, every ace rule, one
joker per meld and jokers unlimited (runs counted by length only), and on the positions of
expert games. A wrong choice of the runs that go on, planted, must be seen.
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

ACES = (0, 1, 2)   # the solver's ace codes: low only, low or high, never both


@pytest.fixture
def switches():
    _solver._set_memo(0)   # (every answer searched: none read back from the memo)
    yield
    _solver._set_plain_rebuild(1)
    _solver._set_memo(1)


def _position(rng: random.Random):
    decks, ace, jpm = rng.choice((2, 2, 3)), rng.choice(ACES), rng.choice((0, 1, 1))
    table, hand = plain_position(rng, dict(decks=decks, ace_high=ace > 0, jokers_per_meld=jpm))
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    return table, hand, decks, ace, jpm, np.array(w, dtype=np.int32)


def _solve(mode: int, table, hand, decks, ace, jpm, w, jw=None):
    jw = np.full(16, int(w[-1]), dtype=np.int32) if jw is None else jw
    _solver._set_plain_rebuild(mode)
    try:
        total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, jpm, w,
                                                            jw, True)
    except RuntimeError as e:   # (an internal error is an answer to compare too)
        return repr(e)
    return int(total), None if placed is None else placed.tolist(), melds, stands


@pytest.mark.parametrize("seed", range(4))
def test_plain_rebuild_gives_the_melds_of_the_general_one(switches, seed):
    rng = random.Random(f"plain-rebuild-{seed}")
    for _ in range(80):
        pos = _position(rng)
        assert pos[0][52] == 0 and pos[1][52] == 0
        assert _solve(1, *pos) == _solve(0, *pos), where(pos)


@pytest.mark.parametrize("preset,games", [("classic", 6), ("italian", 4), ("ace-low", 3)])
def test_plain_rebuild_on_the_positions_of_expert_games(switches, preset, games):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=5)
    w, jw = weights(rules, "points")
    for t, h in zip(tables, hands):
        pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
        assert _solve(1, *pos) == _solve(0, *pos), where(pos)


def test_plain_rebuild_planted_wrong_is_seen(switches):
    rules = resolve_rules("classic")
    tables, hands = game_positions(rules, games=4, seed=3)
    w, jw = weights(rules, "cards")
    seen = 0
    for t, h in zip(tables, hands):
        pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
        seen += _solve(-1, *pos) != _solve(0, *pos)
    assert seen > 0
