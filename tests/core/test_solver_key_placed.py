"""A solve asked for no melds reads its placed cards from its answer's tie-break key
(fastmach/core/_key_placed.pxi) instead of rebuilding the melds: the value and the placed
cards must be those of the same solve asked for its melds, and those of the rebuild
(_set_key_placed(0)), on random, adversarial, held and game positions under every rules
grid point and several weights; a planted fault must be seen; Solver.place_all without
melds must say what it says with them.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, NCARD, adv_aces, adv_duplicates, adv_full_suit, adv_jokers,
                             adv_long_runs, counts, rand_hand, rand_table, weights_in_turn,
                             where)

JW = np.ones(16, dtype=np.int32)
ONES = np.ones(NCARD, dtype=np.int32)
RULES = [(decks, ace, jpm) for decks in (1, 2, 3) for ace in (0, 1, 2) for jpm in (0, 1)]


@pytest.fixture
def switches():
    _solver._set_memo(0)
    yield
    _solver._set_key_placed(1)
    _solver._set_memo(1)


def _answer(table, hand, rules, w, witness: bool, mode: int = 1):
    _solver._set_key_placed(mode)
    total, placed, _, _ = _solver.solve_counts(table, hand, *rules, w, JW, witness)
    return int(total), None if placed is None else placed.tolist()


def _position(rng: random.Random, rules):
    decks, ace, jpm = rules
    r = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=jpm)
    pick = rng.random()
    if pick < 0.35:
        adv = rng.choice((adv_aces, adv_full_suit, adv_long_runs, adv_duplicates))
        table, hand = adv(rng, dict(r, decks=max(2, decks)))
        if decks == 1 and (max(counts(table) + counts(hand)) > 1):
            table = rand_table(rng, rng.randint(0, 30), r, max_jokers=0)
            hand = rand_hand(rng, table, decks, rng.randint(1, 12), jokers=0)
        table = [c for c in table if c != JOKER]
        hand = [c for c in hand if c != JOKER]
    elif pick < 0.7:   # a large hand on a large table (a player who held its cards)
        table = rand_table(rng, rng.randint(20, 55), r, max_jokers=0)
        hand = rand_hand(rng, table, decks, rng.randint(12, 44), near_p=0.9)
    else:
        table = rand_table(rng, rng.randint(0, 45), r, max_jokers=0)
        hand = rand_hand(rng, table, decks, rng.randint(1, 16))
    return counts(table), counts(hand)


@pytest.mark.parametrize("rules", RULES, ids=[f"d{d}-a{a}-j{j}" for d, a, j in RULES])
def test_placed_cards_without_melds_are_those_with_them(switches, rules):
    rng = random.Random(f"key-placed-{rules}")
    for i in range(40):
        table, hand = _position(rng, rules)
        w = weights_in_turn(rng, i)
        want = _answer(table, hand, rules, w, True)
        got = _answer(table, hand, rules, w, False)
        rebuilt = _answer(table, hand, rules, w, False, mode=0)
        assert got == want == rebuilt, where((table, hand))


def test_a_hand_of_many_card_types_settles_its_key_in_parts(switches):
    # 30+ card types: the key does not hold every digit; the placed cards come from the
    # melds as before
    rng = random.Random("key-placed-wide")
    seen = 0
    for _ in range(30):
        rules = (2, 1, 1)
        r = dict(decks=2, ace_high=True, jokers_per_meld=1)
        table = rand_table(rng, rng.randint(10, 40), r, max_jokers=0)
        hand = rand_hand(rng, table, 2, rng.randint(36, 50), near_p=0.2)
        t, h = counts(table), counts(hand)
        seen += int((h > 0).sum()) > 29
        assert _answer(t, h, rules, ONES, False) == \
            _answer(t, h, rules, ONES, True)
    assert seen > 5


def test_positions_with_jokers_keep_the_rebuild(switches):
    rng = random.Random("key-placed-jokers")
    for _ in range(40):
        r = dict(decks=2, ace_high=True, jokers_per_meld=1)
        table, hand = adv_jokers(rng, r)
        t, h = counts(table), counts(hand)
        assert _answer(t, h, (2, 1, 1), ONES, False) == \
            _answer(t, h, (2, 1, 1), ONES, True)


def test_a_planted_fault_in_the_key_reading_is_seen(switches):
    rng = random.Random("key-placed-fault")
    differs = 0
    for _ in range(30):
        table, hand = _position(rng, (2, 1, 1))
        w = ONES
        differs += _answer(table, hand, (2, 1, 1), w, False, mode=-1) != \
            _answer(table, hand, (2, 1, 1), w, True)
    assert differs > 10


def test_place_all_without_melds_says_what_it_says_with_them(switches):
    rng = random.Random("key-placed-all")
    outs = set()
    for _ in range(60):
        rules = rng.choice(RULES)
        table, hand = _position(rng, rules)
        w = np.ones(NCARD, dtype=np.int32)
        melds = _solver.place_all_counts(table, hand, *rules, w, JW)
        bare = _solver.place_all_counts(table, hand, *rules, w, JW, False)
        assert (melds is not None) == (bare is True) and (bare is None) == (melds is None)
        outs.add(bare is True)
    assert outs == {True, False}


@pytest.mark.parametrize("preset", ["classic", "ace-low", "italian"])
def test_game_positions_place_the_same_cards(switches, preset):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=4, seed=5)
    assert len(tables) > 100
    sr = (rules.decks, rules.ace_code, rules.jokers_per_meld)
    for objective in ("cards", "points"):
        w, _ = weights(rules, objective)
        for t, h in zip(tables, hands):
            assert _answer(t, h, sr, w, False) == _answer(t, h, sr, w, True), where((t, h))
