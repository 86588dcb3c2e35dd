"""The solver's shortcuts for large positions, checked against the MILP reference.

Fallible players draw penalty cards and end up with 15-40-card hands; there the solver
first solves with aces low only (a lower bound for high aces, then branch and bound) and
deepens an allowance for the weight left out. These tests play real games with fallible
players, take the positions with large hands, and compare the fast solver's number of
placed cards with scipy's HiGHS model (tests/refs/milp.py, presolve off); every partition
is checked by the independent validator.
"""
from __future__ import annotations

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.game import Game
from fastmach.rules import Rules
from fastmach.solver import weights
from fastmach.core.validate import check_partition
from tests.refs import milp

CASES = [
    ("classic(players=2,match=single)", ["expert(error=0.3)", "expert"], 3),
    ("ace-low(players=3,match=single)", ["expert(error=0.3)"] * 3, 2),
    ("classic(players=3,match=single,failed_penalty=1)", ["expert(error=0.3)"] * 3, 2),
    ("italian(jokers=2,players=2)", ["expert(error=0.3)", "expert"], 2),
]


def _large_positions(rules_text: str, seats: list[str], games: int, min_hand: int = 10):
    """(table counts, hand counts) met by the seat to move, hands of min_hand+ cards."""
    rules = Rules.parse(rules_text)
    game = Game(rules, seats)
    out = []
    for rep in range(games):
        st = game.new_initial_state(7, rep)
        while not st.is_terminal():
            hand = np.zeros(53, dtype=np.uint8)
            for c in st.hands[st.current_player]:
                hand[c] += 1
            if hand.sum() >= min_hand:
                out.append((st.table_counts().astype(np.uint8), hand))
            st.step()
    return rules, out


@pytest.mark.parametrize("rules_text,seats,games", CASES)
def test_large_hands_match_the_milp_reference(rules_text, seats, games):
    rules, positions = _large_positions(rules_text, seats, games)
    assert len(positions) >= 10, "the games should produce large hands"
    picks = np.random.default_rng(0).choice(len(positions), min(25, len(positions)), replace=False)
    w, jw = weights(rules, "cards")
    biggest = 0
    for i in picks:
        t, h = positions[i]
        biggest = max(biggest, int(h.sum()))
        total, placed, melds, _ = _solver.solve_counts(
            t, h, rules.decks, rules.ace_high, rules.jokers_per_meld, w, jw)
        tl = np.repeat(np.arange(53), t).tolist()
        hl = np.repeat(np.arange(53), h).tolist()
        ref = milp.solve(tl, hl, decks=rules.decks, ace_high=rules.ace_high,
                         jokers_per_meld=rules.jokers_per_meld, known_valid=True)
        assert ref is not None
        assert int(placed.sum()) == ref[0], (rules_text, tl, hl)
        check_partition(melds, tl + np.repeat(np.arange(53), placed).tolist(), decks=rules.decks,
                        ace_high=rules.ace_high, jokers_per_meld=rules.jokers_per_meld)
    assert biggest >= 14
