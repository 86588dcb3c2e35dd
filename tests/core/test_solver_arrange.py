"""The canonical arrangement of an answer's cards into melds (fastmach/core/_arrange.pxi,
the switch _solver._set_arrange, off by default: docs/solver.md, "Which melds") against its
pure-Python reference (tests/refs/arrange.py, the same rule with melds made by blind
enumeration and checked by fastmach.core.validate).

* the compiled rule on the used cards of answers (random, adversarial and tie-heavy
  positions, every rules grid point, jokers weighing by the value they stand for);
* the solver with the switch on returns the reference's melds and stands, every partition
  checked by validate, and the same whole answer with the jokers' need test on and off;
* with the switch off some answers are arranged otherwise (the comparison is not idle);
* a joker that may stand for a high ace counts at its weight there (the aces-high search
  is not skipped when jokers weigh by value).
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.core.validate import check_partition
from tests.positions import (ADVERSARIAL, JOKER, NCARD, cards, check_stands, counts, listing,
                             rand_hand, rand_table, text)
from tests.refs import arrange as ref

RULE_GRID = [dict(decks=d, ace_high=ah, jokers_per_meld=lim)
             for d in (2, 3) for ah in (1, 0, 2) for lim in (1, 0)]


def _rid(r: dict) -> str:
    return (f"d{r['decks']}-{('low', 'high', 'either')[r['ace_high']]}-"
            f"{'j1' if r['jokers_per_meld'] else 'jinf'}")


@pytest.fixture
def arrange_on():
    _solver._set_memo(0)
    _solver._set_arrange(1)
    yield
    _solver._set_arrange(0)
    _solver._set_joker_need(1)
    _solver._set_memo(1)


def _weights(rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """Random card weights and joker weights by value (the high ace's as the low one's)."""
    w = np.array([rng.randint(1, 9) for _ in range(NCARD)], dtype=np.int32)
    jw = np.array([rng.randint(1, 12) for _ in range(16)], dtype=np.int32)
    jw[14] = jw[1]
    return w, jw


def _position(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    r = dict(rules, ace_high=rules["ace_high"] > 0)
    kind = rng.random()
    if kind < 0.3:
        return rng.choice(list(ADVERSARIAL.values()))(rng, r)
    if kind < 0.5:
        # tie-heavy: two or three copies of short runs and groups, a joker or two
        table = rand_table(rng, rng.randint(6, 14), r, max_jokers=2, lengths=(3, 4))
        table = table + [c for c in table if c != JOKER and rng.random() < 0.5]
        table = [c for c, k in Counter(table).items() for _ in range(min(k, rules["decks"]))]
        hand = rand_hand(rng, table, rules["decks"], rng.randint(0, 4), jokers=rng.randint(0, 1))
        return table, hand
    table = rand_table(rng, rng.randint(0, 16), r, max_jokers=rng.choice((0, 1, 2)))
    hand = rand_hand(rng, table, rules["decks"], rng.randint(0, 6),
                     jokers=rng.choice((0, 0, 1, 2)))
    return table, hand


def _solve(table, hand, rules, w, jw):
    return _solver.solve_counts(counts(table), counts(hand), rules["decks"], rules["ace_high"],
                                rules["jokers_per_meld"], w, jw, True)


def _reference(used: np.ndarray, val: int, rules: dict, w, jw):
    return ref.arrange(used, val, ace_high=rules["ace_high"] > 0,
                       jokers_per_meld=rules["jokers_per_meld"],
                       ace_both_ends=rules["ace_high"] != 2, card_w=w, joker_w=jw)


@pytest.mark.parametrize("rules", RULE_GRID, ids=_rid)
def test_solver_melds_are_the_reference_arrangement(arrange_on, rules):
    rng = random.Random(f"arrange-{_rid(rules)}")
    checked = jokers = 0
    for trial in range(60):
        table, hand = _position(rng, rules)
        w, jw = _weights(rng) if trial % 2 else (np.ones(NCARD, np.int32),
                                                 np.ones(16, np.int32))
        val, placed, melds, stands = _solve(table, hand, rules, w, jw)
        if val < 0:
            continue
        used = counts(table) + placed
        want = _reference(used, int(val), rules, w, jw)
        assert want is not None, (rules, text(listing(used)), val)
        assert (melds, stands) == want, (
            f"rules {rules} table {text(table)} hand {text(hand)}\n got"
            f" {[text(m) for m in melds]}\n want {[text(m) for m in want[0]]}")
        check_partition(melds, listing(used), decks=rules["decks"],
                        ace_high=rules["ace_high"] > 0,
                        jokers_per_meld=rules["jokers_per_meld"],
                        ace_both_ends=rules["ace_high"] != 2)
        check_stands(melds, stands, dict(rules, ace_high=rules["ace_high"] > 0))
        # the jokers' need test leaves the whole answer
        _solver._set_joker_need(0)
        again = _solve(table, hand, rules, w, jw)
        _solver._set_joker_need(1)
        assert repr(again) == repr((val, placed, melds, stands))
        checked += 1
        jokers += int(used[JOKER]) > 0
    assert checked >= 45 and jokers >= 10


@pytest.mark.parametrize("rules", RULE_GRID[:6], ids=_rid)
def test_compiled_rule_matches_the_reference_on_used_cards(rules):
    """The rule alone (_arrange_counts, its first partition found by the exact test) on
    the cards of answers: the same melds and stands; a value no arrangement reaches gives
    none in both."""
    rng = random.Random(f"arrange-counts-{_rid(rules)}")
    for trial in range(40):
        table, hand = _position(rng, rules)
        w, jw = _weights(rng)
        val, placed, _, _ = _solve(table, hand, rules, w, jw)
        if val < 0:
            continue
        used = (counts(table) + placed).astype(np.uint8)
        got = _solver._arrange_counts(used, rules["ace_high"], rules["jokers_per_meld"],
                                      w, jw, int(val))
        want = _reference(used, int(val), rules, w, jw)
        assert got is not None and want is not None
        assert (got[0], got[1]) == want
        if used[JOKER]:
            assert _solver._arrange_counts(used, rules["ace_high"], rules["jokers_per_meld"],
                                           w, jw, int(val) + 10_000) is None
            assert _reference(used, int(val) + 10_000, rules, w, jw) is None


def test_the_switch_off_arranges_some_answers_otherwise():
    """Without the rule the melds follow the search: on tie-heavy positions some differ
    from the reference (so the comparison above can fail)."""
    rng = random.Random("arrange-off")
    rules = dict(decks=2, ace_high=1, jokers_per_meld=1)
    _solver._set_memo(0)
    differ = 0
    for _ in range(80):
        table, hand = _position(rng, rules)
        w, jw = np.ones(NCARD, np.int32), np.ones(16, np.int32)
        val, placed, melds, stands = _solve(table, hand, rules, w, jw)
        if val >= 0:
            differ += (melds, stands) != _reference(counts(table) + placed, int(val), rules, w, jw)
    _solver._set_memo(1)
    assert differ >= 5


def test_the_rule_takes_runs_first_longest_and_lowest_first_real_cards_before_jokers(arrange_on):
    rules = dict(decks=2, ace_high=1, jokers_per_meld=1)
    w, jw = np.ones(NCARD, np.int32), np.ones(16, np.int32)
    # 5S..8S and 8H 8D: the run 5-8 leaves 8H 8D without a meld, so 5-7 and a group
    val, _, melds, _ = _solve(cards("5S 6S 7S 8S 8H 8D"), [], rules, w, jw)
    assert [text(m) for m in melds] == ["5S 6S 7S", "8S 8H 8D"]
    # a joker: the longest run, of those the one starting lower (the joker as 4S)
    val, _, melds, stands = _solve(cards("5S 6S 7S JK"), [], rules, w, jw)
    assert melds == [[JOKER] + cards("5S 6S 7S")] and stands == [cards("4S 5S 6S 7S")]
    # of one window, a real card before a joker: 5S 6S 7S, not JK(5S) 6S 7S with 5S left
    val, _, melds, stands = _solve(cards("5S 5S 6S 6S 7S 7S JK"), [], rules, w, jw)
    assert [text(s) for s in stands][0] == "4S 5S 6S 7S" and melds[0][1] == cards("5S")[0]


def test_a_joker_standing_for_a_high_ace_counts_at_its_weight():
    """Q K and a joker, the joker weighing most as the high ace: the solver places it there
    (the aces-high search runs although no real ace is held)."""
    w = np.ones(NCARD, np.int32)
    jw = np.ones(16, np.int32)
    jw[1] = jw[14] = 9
    _solver._set_memo(0)
    val, _, melds, stands = _solver.solve_counts(counts([]), counts(cards("QS KS JK")), 2, 1, 1,
                                                 w, jw, True)
    _solver._set_memo(1)
    assert val == 2 + 9
    assert stands == [cards("QS KS AS")]
