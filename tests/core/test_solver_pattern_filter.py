"""The dominance pass's filter by suit patterns (_pattern_filter.pxi) against looking up
every dominating key its rules name: every layer of the last sweep must hold the same
states in the same order (keys and values), and every answer must be the same (value,
placed cards, melds, what each joker stands for), on random and adversarial positions,
without jokers and joker-heavy (up to four on the table, up to two more in the hand),
every ace rule, one joker per meld and unlimited, and on the positions of expert games.
The filter includes the bitmap of the layer's keys that a lookup reads first (sized to
the layer: large layers, as with big hands and jokers, take a larger one), and the
candidate patterns (those some rule may look up); without candidates every layer must be
the same too. A deliberately wrong filter (one that never finds a 3+ run holding a
joker), a wrong bitmap of keys (one that holds none) and wrong candidates (none with a
3+ run holding a joker) must be caught by the same comparison.
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
                             counts, rand_hand, rand_table, where)

ACES = (0, 1, 2)   # the solver's ace codes: low only, low or high, never both


@pytest.fixture
def filters():
    _solver._set_memo(0)   # (every answer searched: none read back from the memo)
    yield
    _solver._set_pattern_filter(1)
    _solver._set_memo(1)


def _position(rng, jokers_heavy=False):
    decks, ace, lim = rng.choice((2, 2, 3)), rng.choice(ACES), rng.choice((1, 1, 0))
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)
    if not jokers_heavy and rng.random() < 0.4:
        adv = rng.choice((adv_aces, adv_full_suit, adv_jokers, adv_long_runs))
        table, hand = adv(rng, rules)
    else:
        jokers = rng.choice((2, 3, 4)) if jokers_heavy else rng.choice((0, 0, 1, 2, 3))
        table = rand_table(rng, rng.randint(10 if jokers_heavy else 0, 45), rules,
                           max_jokers=jokers)
        spare = 2 if jokers_heavy else max(0, min(2, jokers - table.count(JOKER)))
        hand = rand_hand(rng, table, decks, rng.randint(1, 12), jokers=rng.randint(0, spare))
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    return counts(table), counts(hand), decks, ace, lim, np.array(w, dtype=np.int32)


def _run(table, hand, decks, ace, lim, w, jw=None):
    jw = np.full(16, int(w[JOKER]), dtype=np.int32) if jw is None else jw
    total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, lim, w, jw, True)
    sizes = _solver._layer_sizes()
    layers = [_solver._layer_keys(i) for i in range(len(sizes))]
    return (int(total), None if placed is None else placed.tolist(), melds, stands), layers


def _both(pos, mode):
    _solver._set_pattern_filter(0)
    looked_up = _run(*pos)
    _solver._set_pattern_filter(mode)
    filtered = _run(*pos)
    _solver._set_pattern_filter(1)
    return looked_up, filtered


@pytest.mark.parametrize("seed", range(4))
def test_filtered_dominance_pass_keeps_every_layer_and_answer(filters, seed):
    rng = random.Random(f"pattern-filter-{seed}")
    for k in range(80):
        pos = _position(rng, jokers_heavy=k % 2 == 1)
        looked_up, filtered = _both(pos, 1)
        assert filtered[0] == looked_up[0], where(pos)
        assert filtered[1] == looked_up[1], where(pos)


@pytest.mark.parametrize("preset,games", [("classic", 4), ("jokers", 6), ("ace-low", 2)])
def test_filtered_dominance_pass_on_the_positions_of_expert_games(filters, preset, games):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=11)
    w, jw = weights(rules, "cards")
    for t, h in zip(tables, hands):
        pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
        looked_up, filtered = _both(pos, 1)
        assert filtered[0] == looked_up[0], where(pos)
        assert filtered[1] == looked_up[1], where(pos)


def test_a_wrong_filter_is_caught(filters):
    """The comparison can fail: a filter that hides every pattern with a 3+ run holding a
    joker keeps states the pass would have dropped, on some joker positions."""
    rng = random.Random("pattern-filter-planted")
    caught = 0
    for _ in range(60):
        pos = _position(rng, jokers_heavy=True)
        looked_up, wrong = _both(pos, -1)
        caught += wrong[1] != looked_up[1]
    assert caught > 0


@pytest.mark.parametrize("jokers_heavy", [False, True])
def test_a_wrong_bitmap_of_keys_is_caught(filters, jokers_heavy):
    """The comparison sees the bitmap of keys: one that holds no key (every lookup finds
    nothing, so the pass drops nothing) keeps dominated states, with and without jokers."""
    rng = random.Random(f"key-filter-planted-{jokers_heavy}")
    caught = 0
    for _ in range(60):
        pos = _position(rng, jokers_heavy=jokers_heavy)
        looked_up, wrong = _both(pos, -2)
        caught += wrong[1] != looked_up[1]
    assert caught > 0


@pytest.mark.parametrize("seed", range(2))
def test_candidate_patterns_keep_every_layer_and_answer(filters, seed):
    """Against the bitmaps alone (_set_pattern_filter(2): no candidate patterns)."""
    rng = random.Random(f"pattern-cands-{seed}")
    for k in range(80):
        pos = _position(rng, jokers_heavy=k % 2 == 1)
        _solver._set_pattern_filter(2)
        plain = _run(*pos)
        _solver._set_pattern_filter(1)
        assert _run(*pos) == plain, where(pos)


def test_wrong_candidate_patterns_are_caught(filters):
    rng = random.Random("pattern-cands-planted")
    caught = 0
    for _ in range(60):
        pos = _position(rng, jokers_heavy=True)
        looked_up, wrong = _both(pos, -3)
        caught += wrong[1] != looked_up[1]
    assert caught > 0


def _big_position(rng):
    """A joker position with a big hand (as a player holding cards has): large layers."""
    decks, ace, lim = 2, rng.choice(ACES), rng.choice((1, 1, 0))
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)
    table = rand_table(rng, rng.randint(25, 50), rules, max_jokers=rng.choice((2, 3)))
    hand = rand_hand(rng, table, decks, rng.randint(14, 22), jokers=rng.randint(0, 1))
    return counts(table), counts(hand), decks, ace, lim, np.ones(NCARD, dtype=np.int32)


def test_a_large_layers_bitmap_of_keys_keeps_every_layer_and_answer(filters):
    """Layers past 2,048 states take a bitmap of keys larger than the least one
    (_kbits_fit): the same layers and answers as looking every key up, on positions
    where the last sweep's largest layer is that large."""
    rng = random.Random("key-bitmap-large")
    large = 0
    for _ in range(400):
        pos = _big_position(rng)
        looked_up, filtered = _both(pos, 1)
        assert filtered[0] == looked_up[0], where(pos)
        assert filtered[1] == looked_up[1], where(pos)
        large += max(len(layer) for layer in filtered[1]) > 2048
        if large >= 12:
            break
    assert large >= 12
    least, _, allocated = _solver._key_bitmap_words()
    assert allocated > least
