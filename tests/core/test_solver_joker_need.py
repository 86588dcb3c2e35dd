"""The jokers a state's open runs still need (fastmach/core/_joker_need.pxi, the switch
_solver._set_joker_need, on by default): with it on, the searches with jokers do not make
a state whose runs of length 1 and 2 need more jokers than are left.

Such a state reaches no partition, so the answer keeps its value and its placed cards
(the canonical tie-break); only the melds of some answers may be arranged otherwise. The
tests compare the answers with the switch on against the brute force (the value and the
canonical placement) on random and adversarial jokers positions (many jokers, jokers with
few cards, 13- and 14-card runs), against the integer-programming model on long tables,
and against the switch off on the positions of jokers games; a planted wrong need (a
state one joker short dropped as well) must be seen, and the switch must make fewer
states where it claims to. The need is kept with each state and each move of a suit's
list (_solver._set_need_kept): the same states, one by one, as the need made again at every
step, and a need kept one too many is seen.
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.core.validate import check_partition
from fastmach.rules import resolve_rules
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, RULES_GRID, adv_full_suit, adv_jokers, check_fast, counts,
                             fast, listing, rand_hand, rand_table, rand_weights, rules_id, text,
                             whole_answers)
from tests.refs import brute, milp


@pytest.fixture
def need_on():
    _solver._set_memo(0)
    _solver._set_joker_need(1)
    yield
    _solver._set_joker_need(1)
    _solver._set_need_kept(1)
    _solver._set_fixed_scope(1)
    _solver._set_memo(1)


def _many_jokers(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Up to four jokers between table and hand (three on the table when melds may hold
    several), a small table."""
    lim = rules["jokers_per_meld"]
    table = rand_table(rng, rng.randint(3, 9), rules, max_jokers=3 if lim == 0 else 2,
                       lengths=(3, 4, 5))
    k = Counter(table)[JOKER]
    hand = rand_hand(rng, table, rules["decks"], rng.randint(0, 3), jokers=4 - k)
    return table, hand


def _few_cards(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Jokers with few real cards: one or two melds on the table, a hand of jokers and a
    card or two."""
    table = rand_table(rng, rng.randint(0, 4), rules, max_jokers=1, lengths=(3, 4))
    k = Counter(table)[JOKER]
    hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 2), jokers=rng.randint(1, 3 - k))
    return table, hand


def _long_run(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """The 13- or 14-card run of one suit with a card of it a joker, extra aces and
    kings around, a joker in the hand."""
    table, hand = adv_full_suit(rng, rules)
    table = list(table)
    table[rng.randrange(13)] = JOKER
    return sorted(table), sorted(hand + [JOKER])


KINDS = {"many_jokers": _many_jokers, "few_cards": _few_cards, "jokers": adv_jokers,
         "long_run": _long_run}


def _brute_check(table, hand, rules, card_w=None) -> int:
    """The answer with the switch on: brute force's value and canonical placement, a valid
    partition."""
    ref = brute.solve(table, hand, card_w=card_w, **rules)
    can = brute.canonical(table, hand, card_w=card_w, **rules)
    assert ref is not None and can is not None and can[0] == ref[0]
    got = fast(table, hand, rules, card_w)
    check_fast(table, hand, rules, got, card_w)
    assert got[0] == ref[0], (rules, text(table), text(hand), card_w, text(got[1]))
    assert sorted(got[1]) == can[1], (rules, text(table), text(hand), card_w, text(got[1]))
    return got[0]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_need_on_matches_brute_on_joker_positions(need_on, kind, rules):
    rng = random.Random(f"joker-need-{kind}-{rules_id(rules)}")
    make = KINDS[kind]
    nonzero = with_jokers = 0
    for trial in range(30):
        table, hand = make(rng, rules)
        with_jokers += JOKER in table or JOKER in hand
        card_w = rand_weights(rng) if trial % 3 == 0 else None
        nonzero += _brute_check(table, hand, rules, card_w) > 0
    assert nonzero >= 5 and with_jokers >= 15


@pytest.mark.parametrize("rules", [dict(decks=2, ace_high=True, jokers_per_meld=1),
                                   dict(decks=2, ace_high=False, jokers_per_meld=0),
                                   dict(decks=3, ace_high=True, jokers_per_meld=0)], ids=rules_id)
def test_need_on_matches_milp_on_long_tables(need_on, rules):
    """40- to 70-card tables holding jokers, hands of 3 to 10 cards and jokers."""
    rng = random.Random(f"joker-need-milp-{rules_id(rules)}")
    for trial in range(5):
        table = rand_table(rng, rng.randint(40, 70), rules, max_jokers=2)
        k = Counter(table)[JOKER]
        hand = rand_hand(rng, table, rules["decks"], rng.randint(3, 10),
                         jokers=rng.randint(0, 2 - min(k, 2)) + (k == 0))
        card_w = rand_weights(rng) if trial % 2 else None
        ref = milp.solve(table, hand, card_w=card_w, known_valid=True, **rules)
        got = fast(table, hand, rules, card_w)
        check_fast(table, hand, rules, got, card_w)
        assert got[0] == ref[0], (rules, text(table), text(hand), card_w)


def _game_positions(preset: str, games: int):
    """The rules and the positions of `games` expert games of `preset` (played with the
    switch off)."""
    rules = resolve_rules(preset)
    _solver._set_joker_need(0)
    return rules, *game_positions(rules, games=games, seed=5)


def _answers(rules, tables, hands, mode: int) -> tuple[list, int]:
    """Whole answers under both objectives with the switch at `mode`, and the states (the
    partitions validated with the switch on)."""
    _solver._set_joker_need(mode)
    return whole_answers(rules, tables, hands, check=mode == 1)


@pytest.mark.parametrize("preset", ["jokers", "jokers(jokers_per_meld=unlimited)",
                                    "italian(jokers=4)"])
def test_need_on_keeps_every_answer_of_game_positions(need_on, preset):
    """The whole answer, melds and stands included (the dominance pass's fixed scope)."""
    rules, tables, hands = _game_positions(preset, 12)
    on, states_on = _answers(rules, tables, hands, 1)
    off, states_off = _answers(rules, tables, hands, 0)
    assert on == off
    assert states_on < 0.8 * states_off   # (the states it drops are many)


def test_with_the_scope_by_size_the_need_changes_some_melds(need_on):
    """Scoped by the layer's size, the dominance pass skips the smaller layers the need
    test makes: some answers come back arranged otherwise (the same values and cards), so
    the fixed scope is what keeps them."""
    _solver._set_fixed_scope(0)
    rules, tables, hands = _game_positions("jokers", 12)
    on, _ = _answers(rules, tables, hands, 1)
    off, _ = _answers(rules, tables, hands, 0)
    assert [a[:2] for a in on] == [b[:2] for b in off]
    assert sum(a != b for a, b in zip(on, off)) >= 10


def test_a_wrong_need_is_caught(need_on):
    """Dropping the states one joker short as well loses answers: some values change."""
    rules, tables, hands = _game_positions("jokers", 6)
    wrong, _ = _answers(rules, tables, hands, -1)
    right, _ = _answers(rules, tables, hands, 0)
    assert sum(a != b for a, b in zip(wrong, right)) >= 5


def test_need_counts_runs_that_must_go_on(need_on):
    """Two open runs of hearts of length 1 (5H 5H) with one 6H and no joker left cannot
    both go on: the solver still finds the partition that needs no such state."""
    rules = dict(decks=2, ace_high=False, jokers_per_meld=1)
    table = counts([JOKER] + [13 + r for r in (3, 4, 5, 4, 5, 6)])   # JK 4H 5H 6H 5H 6H 7H
    hand = counts([13 + 7])                                           # 8H
    for mode in (0, 1):
        _solver._set_joker_need(mode)
        val, placed, melds, _ = _solver.solve_counts(
            table, hand, rules["decks"], 0, 1, np.ones(53, np.int32), np.ones(16, np.int32), True)
        assert val == 8 and listing(placed) == [20]
        check_partition(melds, listing(table) + [20], **rules)


def _per_position(rules, tables, hands, kept: int) -> list:
    """Each position's whole answer and the states of each of its searches, under both
    objectives, with the need kept (1), made again (0) or kept wrongly (-1)."""
    _solver._set_need_kept(kept)
    return whole_answers(rules, tables, hands, count="each")[0]


@pytest.mark.parametrize("preset", ["jokers", "jokers(jokers_per_meld=unlimited)",
                                    "italian(jokers=4)", "ace-low(jokers=2)"])
def test_the_kept_need_makes_the_states_of_the_need_made_again(need_on, preset):
    """Game positions: every search makes as many states, every answer the same."""
    rules, tables, hands = _game_positions(preset, 10)
    _solver._set_joker_need(1)
    assert _per_position(rules, tables, hands, 1) == _per_position(rules, tables, hands, 0)


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_the_kept_need_on_random_positions(need_on, kind, rules):
    """Random and adversarial positions of every rules grid point (aces high: the need at
    14 reads the aces used low, asked per state): the same states and answers."""
    rng = random.Random(f"need-kept-{kind}-{rules_id(rules)}")
    resolved = resolve_rules(f"classic(decks={rules['decks']},jokers=4,"
                             f"jokers_per_meld={'1' if rules['jokers_per_meld'] else 'unlimited'},"
                             f"ace={'low-or-high' if rules['ace_high'] else 'low-only'})")
    positions = [KINDS[kind](rng, rules) for _ in range(25)]
    tables = [counts(t) for t, _ in positions]
    hands = [counts(h) for _, h in positions]
    assert _per_position(resolved, tables, hands, 1) == _per_position(resolved, tables, hands, 0)


def test_a_wrong_kept_need_is_caught(need_on):
    """A need read one too many drops states that reach partitions: answers change."""
    rules, tables, hands = _game_positions("jokers", 6)
    _solver._set_joker_need(1)
    wrong = _per_position(rules, tables, hands, -1)
    right = _per_position(rules, tables, hands, 1)
    assert sum(a[:2] != b[:2] for a, b in zip(wrong, right)) >= 5
