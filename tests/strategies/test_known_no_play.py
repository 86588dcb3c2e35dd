"""Positions known without a play (fastmach/strategies/_reject.pxd: NoPlays), against the
exact solver: after the most a hand can place, the cards left have no play on the table
it leaves; a remembered position on the same table, with the cards drawn since unable to
join a meld, has none either, whatever other positions were remembered in between (the
expert's seats share one memory). The expert answers such turns without the solver:
its games are the same with the memory off, and differ when it remembers a false fact.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.engine import play_games
from fastmach.strategies import _expert
from fastmach.strategies._reject import KnownNoPlays
from tests.positions import NCARD, counts, rand_hand, rand_table

ONES = np.ones(NCARD, dtype=np.int32)
ONES_J = np.ones(16, dtype=np.int32)


def _placed(table, hand, decks, ace_high) -> np.ndarray:
    total, placed, _, _ = _solver.solve_counts(table, hand, decks, ace_high, 1, ONES, ONES_J,
                                               False)
    assert total >= 0
    return np.asarray(placed)


def _position(rng):
    decks, ace_high = rng.choice((2, 2, 3)), rng.choice((0, 1, 2))
    rules = dict(decks=decks, ace_high=bool(ace_high), jokers_per_meld=1)
    table = rand_table(rng, rng.randint(0, 45), rules, 0)
    hand = rand_hand(rng, table, decks, rng.randint(1, 14), near_p=rng.random())
    return decks, ace_high, counts(table), counts(hand)


def test_after_the_best_play_the_cards_left_have_no_play():
    rng = random.Random("after-best-play")
    played = 0
    for _ in range(400):
        decks, ace_high, table, hand = _position(rng)
        p = _placed(table, hand, decks, ace_high)
        played += p.any()
        assert not _placed(table + p, hand - p, decks, ace_high).any()
    assert played > 50


def test_a_known_position_has_no_play_whatever_was_remembered_since():
    # four seats share one memory: each draws a card, or plays its best, in turn; the
    # table changes only when a seat plays
    rng = random.Random("known-no-play")
    known = 0
    for _ in range(40):
        decks, ace_high, table, _ = _position(rng)
        stock = [c for c in range(52) for _ in range(decks - table[c])]
        rng.shuffle(stock)
        seats = []
        for _ in range(4):
            size = rng.randint(1, 8)
            seats.append(counts(stock[:size]))
            del stock[:size]
        mem = KnownNoPlays()
        for turn in range(24):
            hand = seats[turn % 4]
            p = _placed(table, hand, decks, ace_high)
            if mem.known(table, hand, ace_high):
                known += 1
                assert not p.any()
            if p.any():
                table, hand = table + p, hand - p
                mem.seen(table, hand)
            else:
                mem.seen(table, hand)
                if stock:
                    hand = hand + counts([stock.pop()])
            seats[turn % 4] = hand
    assert known > 20


def _games(rules, seed):
    return play_games(rules, ["expert"] * 4, seed, range(30))


@pytest.mark.parametrize("rules,seed", [("classic(match=single)", 3), ("ace-low", 4),
                                        ("classic(decks=3,players=4)", 5)])
def test_the_experts_games_are_the_same_without_the_memory(rules, seed):
    try:
        _expert._set_known(0)
        ask = _games(rules, seed)
    finally:
        _expert._set_known(1)
    assert _games(rules, seed).equals(ask)


def test_a_false_fact_changes_the_experts_games():
    try:
        _expert._set_known(0)
        ask = _games("classic(match=single)", 3)
        _expert._set_known(-1)
        wrong = _games("classic(match=single)", 3)
    finally:
        _expert._set_known(1)
    assert not wrong.equals(ask)
