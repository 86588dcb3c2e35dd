"""A deepening ends where a sweep proves there is no partition (fastmach/core/_solver.pyx,
_deepening; the switch _solver._set_deepen_stop, on by default).

The iterative deepening (large hands, four jokers) sweeps with a growing allowance D for
the weight left out: D changes only the bound. A sweep that found no final state and
dropped no move by its bound made the states a sweep without bound makes, so no larger D
finds a partition: the deepening returns "none" at once (with aces high the search then
goes on as after any aces-low search that found none). Every answer stays, melds
included; a planted fault (ending at any sweep that found nothing) must be seen.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.tools.bench import game_positions
from tests.positions import cards, counts, rand_hand, rand_table, whole_answers


@pytest.fixture
def stop_on():
    _solver._set_memo(0)
    yield
    _solver._set_deepen_stop(1)
    _solver._set_memo(1)


def _searches(rules, tables, hands, mode: int) -> tuple[list, int]:
    _solver._set_deepen_stop(mode)
    return whole_answers(rules, tables, hands, count="searches")


def _jokers_game_positions(games: int):
    """Positions of `jokers` expert games (four jokers in the deck: some deepen whatever
    the hand, and some of those have no partition with aces low)."""
    rules = resolve_rules("jokers")
    return rules, *game_positions(rules, games=games, seed=11)


def _large_hands(n: int):
    """Random classic positions with hands of 10 to 16 cards (deepened), tables of 9 to
    40, most of them holding the run Q K A of hearts."""
    rules = resolve_rules("classic")
    d = dict(decks=rules.decks, ace_high=rules.ace_high, jokers_per_meld=rules.jokers_per_meld)
    rng = random.Random("deepen-stop")
    high = cards("QH KH AH")
    tables, hands = [], []
    for _ in range(n):
        table = rand_table(rng, rng.randint(6, 37), d, max_jokers=0)
        if all(table.count(c) < d["decks"] for c in high):
            table += high
        hand = rand_hand(rng, table, d["decks"], rng.randint(10, 16), jokers=0)
        tables.append(counts(table))
        hands.append(counts(hand))
    return rules, np.array(tables), np.array(hands)


def test_the_stop_keeps_every_answer_of_jokers_games_and_spares_searches(stop_on):
    rules, tables, hands = _jokers_game_positions(40)
    on, searches_on = _searches(rules, tables, hands, 1)
    off, searches_off = _searches(rules, tables, hands, 0)
    assert on == off   # (values, placed cards, melds, stands)
    assert searches_on < searches_off   # (some deepening ended early)


def test_the_stop_keeps_every_answer_of_large_hands(stop_on):
    rules, tables, hands = _large_hands(60)
    on, _ = _searches(rules, tables, hands, 1)
    off, _ = _searches(rules, tables, hands, 0)
    assert on == off


def test_a_stop_at_any_empty_sweep_is_caught(stop_on):
    """Ending the deepening at a sweep that found nothing because its bound dropped the
    partitions loses them: values change."""
    rules, tables, hands = _large_hands(40)
    wrong, _ = _searches(rules, tables, hands, -1)
    right, _ = _searches(rules, tables, hands, 0)
    assert sum(a[0] != b[0] for a, b in zip(wrong, right)) >= 5
