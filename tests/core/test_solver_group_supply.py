"""The groups a value's suits still to come must and can make (fastmach/core/_group_supply.pxi,
the switch _solver._set_group_supply, on by default with the jokers' need test): a suit
step of the searches with jokers makes no state whose cards set aside for groups, and the
table cards of the suits to come that no open run or new run can take, cannot form groups
from what those suits' runs leave and the jokers their runs do not need; nor, with aces
high, one whose table aces left for 14 can find neither a run ending with them nor a
group of aces.

Such a state reaches no partition, so every answer stays whole, melds included (the
dominance pass's fixed scope, as for the need test). The tests compare the answers with
the switch on against the brute force (value and canonical placement) on random and
adversarial jokers positions, among them tables of groups beside runs that share their
cards, against the integer-programming model on long tables, and against the switch off
on the positions of jokers games (whole answers); a planted wrong test (one joker short)
must be seen, and the switch must make fewer states.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from fastmach.core import _solver
from fastmach.core.validate import check_partition
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, RULES_GRID, adv_aces, adv_jokers, cards, check_fast, counts,
                             fast, listing, rand_hand, rand_table, rand_weights, rules_id, text,
                             whole_answers)
from tests.refs import brute, milp


@pytest.fixture
def supply_on():
    _solver._set_memo(0)
    _solver._set_joker_need(1)
    _solver._set_group_supply(1)
    yield
    _solver._set_group_supply(1)
    _solver._set_joker_need(1)
    _solver._set_memo(1)


def _groups_and_runs(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Groups of three or four beside runs of the same values (the runs take the cards
    the groups would need), a joker or two, a hand of a few cards of those values."""
    v = rng.randint(2, 10)
    table: list[int] = []
    for k in range(rng.randint(1, 3)):
        w = v + k
        suits = rng.sample(range(4), rng.choice((3, 4)))
        table += [s * 13 + w - 1 for s in suits]
    for _ in range(rng.randint(1, 2)):
        s = rng.randrange(4)
        start = rng.randint(max(1, v - 2), v + 1)
        table += [s * 13 + w - 1 for w in range(start, min(start + rng.randint(3, 4), 14))]
    table = [c for c in table if Counter(table)[c] <= rules["decks"]]
    table += [JOKER] * rng.randint(0, 1)
    pool = [s * 13 + w - 1 for s in range(4) for w in range(max(1, v - 2), min(v + 4, 14))]
    hand = [c for c in rng.sample(pool, rng.randint(1, 5))
            if Counter(table)[c] + 1 <= rules["decks"]]
    return sorted(table), sorted(hand + [JOKER] * rng.randint(0, 2))


def _table_then(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """A random valid table with a joker or two and a hand of cards and jokers."""
    table = rand_table(rng, rng.randint(6, 12), rules, max_jokers=2, lengths=(3, 4))
    k = Counter(table)[JOKER]
    hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 4), jokers=rng.randint(0, 3 - min(k, 2)))
    return table, hand


def _aces_and_jokers(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Table aces in low runs, high runs and groups of aces, with a joker on the table or in
    the hand, and queens, kings and aces in the hand (the aces left for 14)."""
    table, hand = adv_aces(rng, rules)
    if rng.random() < 0.5:
        table = sorted(table + rand_table(rng, rng.randint(3, 6), rules, max_jokers=1,
                                          lengths=(3, 4)))
    table = [c for c in table if c == JOKER or Counter(table)[c] <= rules["decks"]]
    jokers = Counter(table)[JOKER]
    hand = [c for c in hand if Counter(table)[c] + Counter(hand)[c] <= rules["decks"]]
    return table, sorted(hand + [JOKER] * rng.randint(1 if jokers == 0 else 0, 2))


KINDS = {"groups_and_runs": _groups_and_runs, "table_then": _table_then, "jokers": adv_jokers,
         "aces_and_jokers": _aces_and_jokers}


def _brute_check(table, hand, rules, card_w=None) -> int:
    ref = brute.solve(table, hand, card_w=card_w, **rules)
    can = brute.canonical(table, hand, card_w=card_w, **rules)
    got = fast(table, hand, rules, card_w)
    if ref is None:
        assert got is None, (rules, text(table), text(hand))
        return -1
    assert can is not None and can[0] == ref[0]
    check_fast(table, hand, rules, got, card_w)
    assert got[0] == ref[0], (rules, text(table), text(hand), card_w, text(got[1]))
    assert sorted(got[1]) == can[1], (rules, text(table), text(hand), card_w, text(got[1]))
    return got[0]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_supply_on_matches_brute_on_joker_positions(supply_on, kind, rules):
    rng = random.Random(f"group-supply-{kind}-{rules_id(rules)}")
    make = KINDS[kind]
    answered = 0
    for trial in range(25):
        table, hand = make(rng, rules)
        if not brute.solve(table, [], **rules):
            continue   # (a table that is not itself valid melds: not a position)
        card_w = rand_weights(rng) if trial % 3 == 0 else None
        answered += _brute_check(table, hand, rules, card_w) >= 0
    assert answered >= 10


@pytest.mark.parametrize("rules", [dict(decks=2, ace_high=True, jokers_per_meld=1),
                                   dict(decks=3, ace_high=False, jokers_per_meld=1)], ids=rules_id)
def test_supply_on_matches_milp_on_long_tables(supply_on, rules):
    """40- to 70-card tables holding jokers, hands of 3 to 10 cards and jokers."""
    rng = random.Random(f"group-supply-milp-{rules_id(rules)}")
    for trial in range(4):
        table = rand_table(rng, rng.randint(40, 70), rules, max_jokers=2)
        k = Counter(table)[JOKER]
        hand = rand_hand(rng, table, rules["decks"], rng.randint(3, 10),
                         jokers=rng.randint(0, 2 - min(k, 2)) + (k == 0))
        card_w = rand_weights(rng) if trial % 2 else None
        ref = milp.solve(table, hand, card_w=card_w, known_valid=True, **rules)
        got = fast(table, hand, rules, card_w)
        check_fast(table, hand, rules, got, card_w)
        assert got[0] == ref[0], (rules, text(table), text(hand), card_w)


def _answers(rules, tables, hands, mode: int) -> tuple[list, int]:
    """Whole answers under both objectives with the switch at `mode`, and the states (the
    partitions validated with the switch on)."""
    _solver._set_group_supply(mode)
    return whole_answers(rules, tables, hands, check=mode == 1)


@pytest.mark.parametrize("preset", ["jokers", "jokers(jokers_per_meld=unlimited)",
                                    "italian(jokers=4)"])
def test_supply_on_keeps_every_answer_of_game_positions(supply_on, preset):
    """The whole answer, melds and stands included, as with the switch off (and with the
    test of the value's groups alone)."""
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=12, seed=7)
    on, states_on = _answers(rules, tables, hands, 1)
    groups, states_groups = _answers(rules, tables, hands, 2)
    off, states_off = _answers(rules, tables, hands, 0)
    assert on == groups == off
    assert states_on <= states_groups < 0.95 * states_off   # (it drops states)


def test_a_wrong_supply_is_caught(supply_on):
    """Dropping the states one joker short as well loses answers: some change."""
    rules = resolve_rules("jokers")
    tables, hands = game_positions(rules, games=6, seed=7)
    wrong, _ = _answers(rules, tables, hands, -1)
    right, _ = _answers(rules, tables, hands, 0)
    assert sum(a != b for a, b in zip(wrong, right)) >= 5


def test_a_table_card_only_a_group_can_take(supply_on):
    """3S on the table with no 4S or 5S: only a group of threes (or leading jokers) takes
    it; 3D and 3C are there, so the solver places the group and the rest."""
    rules = dict(decks=2, ace_high=False, jokers_per_meld=1)
    table = cards("3S 3D 3C 4D 5D 6D JK")
    hand = cards("2D 7D")
    for mode in (0, 1):
        _solver._set_group_supply(mode)
        got = fast(table, hand, rules)
        check_fast(table, hand, rules, got)
        assert got[0] == 2 and sorted(got[1]) == sorted(hand)   # (both hand cards placed)


def test_table_aces_left_for_14(supply_on):
    """With aces high, the table's ace of clubs (in a run J Q JK A beside 4H 5H 6H) and a
    hand of queens, kings and an ace of diamonds (a position of a jokers game): the states
    that keep an ace for 14 that no group of aces and no run Q K A can take are dropped,
    and the answer is the same."""
    rules = resolve_rules("jokers")
    table = counts(cards("4H 5H 6H AC JC QC JK"))
    hand = counts(cards("2S 9S JS 10H JH QH QH AD 3D 5D QD KD 5C"))
    w, jw = weights(rules, "cards")
    got, states = [], []
    for mode in (0, 2, 1):   # (off, the groups of each value only, and the aces too)
        _solver._set_group_supply(mode)
        got.append(_solver.solve_counts(table, hand, rules.decks, rules.ace_code,
                                        rules.jokers_per_meld, w, jw, True))
        states.append(sum(s[0] for s in _solver._sweep_stats()))
    assert repr(got[0]) == repr(got[1]) == repr(got[2])
    val, placed, melds, _ = got[2]
    check_partition(melds, listing(table) + listing(placed), decks=2, ace_high=True,
                    jokers_per_meld=1)
    assert states[2] < states[1] <= states[0], states


def test_the_supply_drops_states(supply_on):
    """On a table whose groups share their values with runs the switch makes fewer
    states and the same answer."""
    rules = resolve_rules("jokers")
    table = counts(cards("3S 3H 3C 4S 4H 4C 5S 5H 5C 3D 4D 5D 6D 7D JK"))
    hand = counts(cards("6S 6H 2D JK 8D"))
    w, jw = weights(rules, "cards")
    got, states = [], []
    for mode in (0, 1):
        _solver._set_group_supply(mode)
        got.append(_solver.solve_counts(table, hand, rules.decks, rules.ace_code,
                                        rules.jokers_per_meld, w, jw, True))
        states.append(sum(s[0] for s in _solver._sweep_stats()))
    assert repr(got[0]) == repr(got[1])
    assert states[1] < states[0], states
