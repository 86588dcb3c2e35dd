"""The quick reject of the aces-low search (fastmach/core/_low_reject.pxi): where a table ace,
2, queen or king has no place with aces low only (no jokers), the solver does not run the
aces-low sweep. The reject must never fire where that sweep finds a partition (the slow reference:
one aces-low sweep without a bound, _one_sweep), on random and adversarial positions and
those of expert games; every answer must be the same with the reject off; a planted wrong
reject must be seen.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import NCARD, cards, counts, plain_position, where

ONES = np.ones(NCARD, dtype=np.int32)
JW = np.ones(16, dtype=np.int32)


@pytest.fixture
def switches():
    _solver._set_memo(0)
    yield
    _solver._set_low_reject(1)
    _solver._set_memo(1)


def _position(rng: random.Random):
    decks = rng.choice((2, 2, 3))
    rules = dict(decks=decks, ace_high=True, jokers_per_meld=1)
    table, hand = plain_position(rng, rules, table_cards=(3, 45), hand_cards=(0, 12),
                                 adv_share=0.5)
    return table, hand, decks


def _low_partition_exists(table, hand) -> bool:
    best, _ = _solver._one_sweep(table, hand, 0, 1, 0, ONES, JW, -1)
    return best >= 0


def _answer(mode: int, table, hand, decks, ace, jpm=1, w=ONES, jw=JW):
    _solver._set_low_reject(mode)
    total, placed, melds, stands = _solver.solve_counts(table, hand, decks, ace, jpm, w, jw, True)
    return int(total), None if placed is None else placed.tolist(), melds, stands


def test_a_table_qka_without_a_low_place_is_rejected():
    table = counts(cards("QS KS AS 5H 6H 7H"))
    assert _solver._low_rejected(table, counts(cards("2S")))
    assert _solver._low_rejected(table, counts(cards("2S 3S")))   # A-2-3, but no J-Q-K
    assert not _solver._low_rejected(table, counts(cards("2S 3S JS")))    # A-2-3 and J-Q-K
    assert not _solver._low_rejected(table, counts(cards("AH AD JS")))    # a group; J-Q-K


def test_a_table_two_or_queen_without_a_low_place_is_rejected():
    # two 2s of hearts need two runs through 3H (A-2-3 or 2-3-4) or groups of 2s
    table = counts(cards("2H 3H 4H 2H 2S 2C"))
    assert not _solver._low_rejected(table, counts([]))                  # 2H 2S 2C a group
    assert _solver._low_rejected(counts(cards("2H 3H 4H 2H 5H 6H")), counts([]))
    assert not _solver._low_rejected(counts(cards("2H 3H 4H 2H 5H 6H")), counts(cards("3H")))
    # a queen needs a jack of its suit (10-J-Q or J-Q-K), or a group of queens
    assert _solver._low_rejected(counts(cards("10D QD KD 7C 8C 9C")), counts(cards("AD")))
    assert not _solver._low_rejected(counts(cards("10D QD KD")), counts(cards("JD")))


@pytest.mark.parametrize("seed", range(4))
def test_low_reject_never_fires_where_a_low_partition_exists(switches, seed):
    rng = random.Random(f"low-reject-{seed}")
    fired = 0
    for _ in range(150):
        table, hand, decks = _position(rng)
        if _solver._low_rejected(table, hand):
            fired += 1
            assert not _low_partition_exists(table, hand), where((table, hand, decks))
        for ace in (0, 1, 2):
            pos = (table, hand, decks, ace)
            assert _answer(1, *pos) == _answer(0, *pos), where(pos)
    assert fired > 0


@pytest.mark.parametrize("preset", ["classic", "classic(match=single)", "italian"])
def test_low_reject_on_the_positions_of_expert_games(switches, preset):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=6, seed=11)
    w, jw = weights(rules, "cards")
    fired = 0
    for t, h in zip(tables, hands):
        if _solver._low_rejected(t, h):
            fired += 1
            assert not _low_partition_exists(t, h)
        pos = (t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw)
        assert _answer(1, *pos) == _answer(0, *pos), where(pos)
    assert fired > 0


def test_low_reject_planted_wrong_is_seen(switches):
    rng = random.Random("low-reject-planted")
    seen = 0
    for _ in range(100):
        table, hand, decks = _position(rng)
        pos = (table, hand, decks, 1)
        seen += _answer(-1, *pos) != _answer(0, *pos)
    assert seen > 0
