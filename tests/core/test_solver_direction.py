"""Which direction the solver sweeps a position in (fastmach/core/_direction.pxi).

A position with jokers is solved mirrored when its cards (table and hand, aces aside) lie
low, a mean rank under 7.25; one without jokers when its hand's weighted mean rank is above
the middle. Either direction gives the same value and placed cards (the canonical
tie-break); the melds are those of the direction taken, so the default answer must be the
one of the direction the rule names, whole.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, NCARD, RULES_GRID, adv_aces, adv_jokers, adv_long_runs,
                             counts, mirrored_by_rule, rand_hand, rand_table, rules_id,
                             whole_answers)


@pytest.fixture
def directions():
    yield
    _solver._set_direction(0)
    _solver._set_dense_first(1)


def _answer(t, h, rules, w, jw):
    val, placed, melds, stands = _solver.solve_counts(
        t, h, rules["decks"], rules["ace_high"], rules["jokers_per_meld"], w, jw, True)
    return int(val), None if placed is None else placed.tobytes(), melds, stands


def _position(rng: random.Random, rules: dict) -> tuple[np.ndarray, np.ndarray]:
    kind = rng.random()
    if kind < 0.3:
        adv = rng.choice((adv_aces, adv_jokers, adv_long_runs))
        table, hand = adv(rng, rules)
    else:
        table = rand_table(rng, rng.randint(6, 40), rules, max_jokers=rng.choice((0, 1, 2, 3)))
        hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 9),
                         jokers=rng.choice((0, 0, 1)) if table.count(JOKER) < 3 else 0)
    return counts(table), counts(hand)


@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_either_direction_gives_the_same_value_and_placed_cards(directions, rules):
    rng = random.Random(f"direction-{rules_id(rules)}")
    for trial in range(80):
        t, h = _position(rng, rules)
        w = np.array([rng.randint(1, 9) for _ in range(NCARD)], dtype=np.int32)
        jw = np.full(16, rng.randint(1, 25), dtype=np.int32)
        got = []
        for way in (0, 1, 2):
            _solver._set_direction(way)
            got.append(_answer(t, h, rules, w, jw)[:2])
        assert got[0] == got[1] == got[2], (rules_id(rules), t.tobytes(), h.tobytes())


@pytest.mark.parametrize("preset", ["jokers", "classic(jokers=2)", "italian(jokers=2)",
                                    "ace-low(jokers=1)", "classic"])
def test_every_position_takes_the_direction_its_rule_names(directions, preset):
    """Game positions (where the two directions' melds often differ): the default answer,
    melds included, is the one of the direction the rule names."""
    r = resolve_rules(preset)
    rules = dict(decks=r.decks, ace_high=r.ace_code, jokers_per_meld=r.jokers_per_meld)
    tables, hands = game_positions(r, games=6, seed=3)
    taken, differ = {False: 0, True: 0}, 0
    for objective in ("cards", "points"):
        w, jw = weights(r, objective)
        for t, h in zip(tables, hands):
            _solver._set_direction(0)
            got = _answer(t, h, rules, w, jw)
            mirrored = mirrored_by_rule(t, h, w, r.ace_high)
            _solver._set_direction(2 if mirrored else 1)
            assert _answer(t, h, rules, w, jw) == got
            _solver._set_direction(1 if mirrored else 2)
            differ += _answer(t, h, rules, w, jw)[2:] != got[2:]
            taken[mirrored] += 1
    assert taken[False] > 0 and taken[True] > 0, taken
    if preset == "jokers":
        assert differ > 0   # (there the melds tell the directions apart)


def _answers(preset: str, games: int, dense_first: int, **kw) -> tuple[list, int]:
    """Whole answers of the positions of `games` expert games of `preset` (both
    objectives) with the direction of positions with jokers by their cards (1) or by
    their hand (0), and the states made."""
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=5)
    _solver._set_dense_first(dense_first)
    return whole_answers(rules, tables, hands, **kw)


def test_cards_direction_keeps_every_value_and_placed_card_of_jokers_games(directions):
    by_hand, states_hand = _answers("jokers", 12, 0)
    by_cards, states_cards = _answers("jokers", 12, 1, check=True)
    assert [a[:2] for a in by_cards] == [a[:2] for a in by_hand]
    assert any(a[2] != b[2] for a, b in zip(by_cards, by_hand))   # (other melds, some)
    assert states_cards < states_hand


def test_positions_without_jokers_keep_the_hands_direction(directions):
    assert _answers("classic", 4, 1)[0] == _answers("classic", 4, 0)[0]
