"""The exact solver on the worked examples of the rule texts and on each rule clause.

Each test is named after the clause of docs/rules.md ("Melds", "A turn") it defends;
every partition the solver returns is checked by ``fastmach.core.validate`` (which shares no
code with the solver). Comparisons with the references are in ``test_solver_refs.py``.
"""
from __future__ import annotations

from collections import Counter

import pytest

import fastmach
from fastmach import FastmachError, Rules
from fastmach.core.validate import check_partition, meld_kind
from tests.positions import C, cards, check_stands, text

CLASSIC = Rules.parse("classic")
ACE_LOW = Rules.parse("ace-low")
JOKERS = Rules.parse("jokers")                     # 4 jokers, one per meld
ITALIAN_J = Rules.parse("italian(jokers=4)")       # jolly: unlimited per meld


def rules_kw(rules: Rules) -> dict:
    return dict(decks=rules.decks, ace_high=rules.ace_high,
                jokers_per_meld=rules.jokers_per_meld)


def solve(table: str, hand: str, rules: Rules = CLASSIC, objective: str = "cards"):
    """fastmach.solve, with the result checked: placed from hand, partition exact, stands."""
    sol = fastmach.solve(table, hand, rules, objective=objective)
    assert not Counter(sol.placed) - Counter(cards(hand)), "placed cards not in hand"
    check_partition(sol.melds, cards(table) + sol.placed, **rules_kw(rules))
    check_stands(sol.melds, sol.stands, rules_kw(rules))
    return sol


def placed(table: str, hand: str, rules: Rules = CLASSIC) -> str:
    return text(solve(table, hand, rules).placed)


def has_meld(sol, meld: str) -> bool:
    return sorted(cards(meld)) in [sorted(m) for m in sol.melds]


# --------------------------------------------------------------- worked examples (seeds)

def test_worked_example_5c_to_8c_takes_8d_8h():
    """Table 5♣6♣7♣8♣, hand 8♦8♥: the run gives its 8♣ to a group, both are placed."""
    sol = solve("5C 6C 7C 8C", "8D 8H")
    assert text(sol.placed) == "8H 8D"
    assert has_meld(sol, "5C 6C 7C") and has_meld(sol, "8C 8D 8H")
    assert len(sol.melds) == 2


def test_worked_example_6c_7c_8c_takes_nothing():
    """Table 6♣7♣8♣, hand 8♦8♥: taking the 8♣ would leave 6♣7♣, so nothing is placed."""
    sol = solve("6C 7C 8C", "8D 8H")
    assert sol.placed == [] and sol.n_placed == 0
    assert sol.melds == [cards("6C 7C 8C")]


def test_worked_example_long_run_gives_up_its_middle_card():
    """A 3♣..9♣ run gives up 6♣ to a group of sixes: 3-4-5, 6-6-6, 7-8-9."""
    sol = solve("3C 4C 5C 6C 7C 8C 9C", "6D 6H")
    assert text(sol.placed) == "6H 6D"
    for meld in ("3C 4C 5C", "6C 6D 6H", "7C 8C 9C"):
        assert has_meld(sol, meld)


# --------------------------------------------------------------- groups

def test_group_three_or_four_cards_of_one_rank():
    assert placed("", "8H 8D 8C") == "8H 8D 8C"
    assert placed("", "8S 8H 8D 8C") == "8S 8H 8D 8C"
    assert placed("", "8H 8D") == ""
    assert placed("", "8H 8D 9C") == ""
    assert placed("8H 8D 8C", "8S") == "8S"


def test_group_suits_all_different():
    assert placed("", "8H 8H 8D") == ""                     # 000: 8♥ 8♥ 8♦ no
    assert placed("8H 8D 8C", "8H") == ""                   # no fifth card, no repeat suit
    # two copies of each: two groups, never one group with a repeated suit
    sol = solve("", "8H 8H 8D 8D 8C 8C")
    assert sol.n_placed == 6
    assert all(meld_kind(m, ace_high=True, jokers_per_meld=1) == "group" for m in sol.melds)
    # five eights of four suits: one group of four, the fifth stays in hand
    assert solve("", "8S 8H 8D 8C 8S").n_placed == 4


# --------------------------------------------------------------- runs

def test_run_three_or_more_consecutive_ranks_one_suit():
    assert placed("", "5C 6C 7C") == "5C 6C 7C"
    assert placed("", "5C 6C 7D") == ""
    assert placed("", "5C 6C 8C") == ""
    assert placed("", "5C 6C") == ""
    assert solve("", "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH").n_placed == 12
    assert placed("5C 6C 7C", "4C 8C 9C") == "4C 8C 9C"     # a run grows at both ends


def test_run_split_by_a_duplicate_card():
    # 5C..10C + a second 7C and 8C: split into 5-6-7-8 and 7-8-9-10
    sol = solve("5C 6C 7C 8C 9C 10C", "7C 8C")
    assert sol.n_placed == 2 and len(sol.melds) == 2


def test_ace_low_or_high_q_k_a_valid():
    assert placed("", "AS 2S 3S") == "AS 2S 3S"
    assert placed("", "QS KS AS") == "AS QS KS"
    assert placed("QS KS AS", "JS") == "JS"


def test_ace_low_or_high_k_a_2_invalid():
    assert placed("", "KS AS 2S") == ""
    sol = solve("", "QS KS AS 2S 3S")                       # Q-K-A or A-2-3, not both
    assert sol.n_placed == 3
    assert not any({C("KS"), C("2S")} <= set(m) for m in sol.melds)
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve("KS AS 2S", "", CLASSIC)


def test_ace_low_or_high_fourteen_card_run():
    full = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
    sol = solve("", full)
    assert sol.n_placed == 14
    sol = solve("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "AS")
    assert sol.n_placed == 1
    assert len(fastmach.partition(full, CLASSIC)) in (1, 2, 3, 4)   # any split is fine
    assert fastmach.partition(full, ACE_LOW) is None


def test_ace_low_only():
    assert placed("", "AS 2S 3S", ACE_LOW) == "AS 2S 3S"
    assert placed("", "QS KS AS", ACE_LOW) == ""
    assert solve("", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", ACE_LOW).n_placed == 13
    assert placed("JS QS KS", "AS", ACE_LOW) == ""
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve("QS KS AS", "", ACE_LOW)
    # a group of aces is fine under both rules
    assert placed("", "AS AH AD", ACE_LOW) == "AS AH AD"


def test_high_aces_come_from_the_table():
    """A table ace used high (Q-K-A) moves low when the hand completes J-Q-K and 2-3."""
    sol = solve("QS KS AS", "JS 2S 3S")
    assert sol.n_placed == 3
    assert has_meld(sol, "JS QS KS") and has_meld(sol, "AS 2S 3S")
    # and a low table ace moves high: A-2-3-4 gives its ace to Q-K-A
    sol = solve("AS 2S 3S 4S", "QS KS")
    assert sol.n_placed == 2
    assert has_meld(sol, "QS KS AS") and has_meld(sol, "2S 3S 4S")
    # the same under ace-low: the ace cannot go high
    assert placed("AS 2S 3S 4S", "QS KS", ACE_LOW) == ""
    # two table aces of one suit, one at each end of a 14-card run built with the hand
    sol = solve("AS 2S 3S QS KS AS", "4S 5S 6S 7S 8S 9S 10S JS")
    assert sol.n_placed == 8


# --------------------------------------------------------------- jokers

def test_joker_stands_for_any_card():
    assert placed("", "5C 7C JK", JOKERS) == "5C 7C JK"
    assert placed("", "8H 8D JK", JOKERS) == "8H 8D JK"
    sol = solve("", "5C 7C JK", JOKERS)
    assert sol.stands[0][sol.melds[0].index(52)] == cards("6C")[0]


def test_jokers_one_per_meld():
    assert placed("", "5C JK JK", JOKERS) == ""
    assert placed("5C JK 7C", "8C JK", JOKERS) == "8C"            # the 2nd joker has no meld
    assert placed("5C 6C 7C", "JK JK JK", JOKERS) == "JK"
    sol = solve("5C 6C 7C 8C 9C 10C", "JK JK", JOKERS)            # split 6 -> 3 + 3
    assert sol.n_placed == 2
    assert all(m.count(52) <= 1 for m in sol.melds)


def test_jokers_unlimited_per_meld():
    assert placed("", "5C JK JK", ITALIAN_J) == "5C JK JK"
    assert placed("5C JK 7C", "8C JK", ITALIAN_J) == "8C JK"
    assert placed("5C 6C 7C", "JK JK JK", ITALIAN_J) == "JK JK JK"
    assert placed("", "8H JK JK JK", ITALIAN_J) == "8H JK JK JK"  # a group of 1 + 3 jokers


def test_meld_holds_at_least_one_real_card():
    assert placed("", "JK JK JK", ITALIAN_J) == ""
    assert placed("", "JK JK JK JK", ITALIAN_J) == ""
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve("JK JK JK", "5C", ITALIAN_J)
    assert fastmach.partition("JK JK JK", ITALIAN_J) is None


def test_joker_retrieved_by_its_real_card():
    """A table joker freed by the real card it stood for goes into another meld."""
    sol = solve("5C JK 7C", "6C 9H 9D", JOKERS)
    assert sol.n_placed == 3
    assert has_meld(sol, "5C 6C 7C") and has_meld(sol, "9H 9D JK")


# --------------------------------------------------------------- decks

def test_two_decks_refuse_a_third_copy():
    with pytest.raises(FastmachError, match="8H"):
        fastmach.solve("8H 8D 8C", "8H 8H", CLASSIC)
    with pytest.raises(FastmachError, match="5C"):
        fastmach.solve("", "5C 5C 5C 6C 7C", CLASSIC)


def test_three_decks_three_copies():
    r3 = Rules.parse("classic(decks=3)")
    sol = solve("", "5H 6H 7H 5H 6H 7H 5H 6H 7H", r3)
    assert sol.n_placed == 9 and len(sol.melds) == 3
    sol = solve("5C 6C 7C 5C 6C 7C 5C 6C 7C", "8C 8C 8C 9C 9C", r3)
    assert sol.n_placed == 5
    # two groups of one rank from six cards of three suits, three copies each
    assert solve("", "8H 8H 8H 8D 8D 8D 8C 8C 8C", r3).n_placed == 9


# --------------------------------------------------------------- objective

def test_objective_points_uses_the_rules_hand_points():
    """One joker, two uses: aces or nines. A 11 (jokers) prefers the aces, A 1 (ace-low
    with jokers) the nines; the card count cannot tell them apart."""
    hand = "AS AH JK 9S 9H"
    sol = solve("", hand, JOKERS, objective="points")
    assert text(sol.placed) == "AS AH JK" and sol.points == 11 + 11 + 25
    sol = solve("", hand, Rules.parse("ace-low(jokers=2)"), objective="points")
    assert text(sol.placed) == "9S 9H JK" and sol.points == 9 + 9 + 25


def test_objective_points_beats_card_count():
    """The joker makes 2-3-JK-5 (4 cards, 35 points) or K-K-JK (3 cards, 45 points)."""
    hand = "2C 3C 5C KS KH JK"
    assert solve("", hand, JOKERS).n_placed == 4
    sol = solve("", hand, JOKERS, objective="points")
    assert text(sol.placed) == "KS KH JK" and sol.points == 45


def test_objective_points_ties_go_to_more_cards():
    """JK with 10S 10H (45 points, 3 cards) or in 3C 4C JK 6C 7C (45 points, 5 cards)."""
    sol = solve("", "10S 10H 3C 4C 6C 7C JK", JOKERS, objective="points")
    assert sol.points == 45 and sol.n_placed == 5
    assert text(sol.placed) == "3C 4C 6C 7C JK"


def test_objective_points_classic_counts_cards():
    sol = solve("", "QS KS AS AH AD", CLASSIC, objective="points")
    assert sol.points == sol.n_placed == 3


def test_unknown_objective_is_an_error():
    with pytest.raises(FastmachError, match="objective"):
        fastmach.solve("", "5C 6C 7C", CLASSIC, objective="fun")


# --------------------------------------------------------------- opening

def _check_opening(sol, hand: str, rules: Rules) -> None:
    assert not Counter(sol.placed) - Counter(cards(hand))
    check_partition(sol.melds, sol.placed, **rules_kw(rules))
    check_stands(sol.melds, sol.stands, rules_kw(rules))


def test_opening_counts_a1_face_jqk10():
    hand = "AS 2S 3S KH KD KC 7D"
    sol = fastmach.opening(hand, ACE_LOW, 36)
    assert sol is not None and sol.points == 1 + 2 + 3 + 30
    assert text(sol.placed) == "AS 2S 3S KH KD KC"
    _check_opening(sol, hand, ACE_LOW)
    assert fastmach.opening(hand, ACE_LOW, 37) is None
    assert fastmach.opening("JS QS KS", CLASSIC, 30).points == 30
    assert fastmach.opening("QS KS AS", CLASSIC, 0).points == 21      # a high ace is 1 too


def test_opening_threshold_defaults_to_the_rules():
    r36 = Rules.parse("ace-low(opening_points=36)")
    assert fastmach.opening("AS 2S 3S KH KD KC", r36) is not None
    assert fastmach.opening("2S 3S 4S KH KD KC", r36) is not None     # 39
    assert fastmach.opening("AS 2S 3S QH QD QC 5D", r36) is not None  # 36
    assert fastmach.opening("AS 2S 3S JH JD 9C", r36) is None         # only 6
    assert fastmach.opening("", r36, 0) is None                       # nothing to lay


def test_opening_is_hand_cards_only():
    """The best melds of the hand alone, however the cards would fit a table."""
    sol = fastmach.opening("5C 6C 8D 8H 9S 9H 9D", ACE_LOW, 0)
    assert text(sol.placed) == "9S 9H 9D" and sol.points == 27


def test_opening_joker_counts_as_the_card_it_stands_for():
    r = Rules.parse("ace-low(jokers=2)")
    sol = fastmach.opening("JK 2S 3S", r, 0)                # JK as 4S (not AS): 9
    assert sol.points == 9
    _check_opening(sol, "JK 2S 3S", r)
    assert fastmach.opening("JK 2S 3S", r, 10) is None
    sol = fastmach.opening("KH KD JK", r, 30)               # JK as a king: 30
    assert sol is not None and sol.points == 30
    sol = fastmach.opening("JK QH KH", JOKERS, 0)           # J-Q-K 30 beats Q-K-A 21
    assert sol.points == 30
    sol = fastmach.opening("JK 9H 10H JH", JOKERS, 0)       # 9-10-J-Q 39 beats 8-9-10-J
    assert sol.points == 39


# --------------------------------------------------------------- bad input

def test_invalid_table_is_an_error_not_an_answer():
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve("5C 6C", "7C", CLASSIC)          # the hand could mend it: still no
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve("8H 8H 8D", "8C", CLASSIC)
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve("8H JK JK", "", JOKERS)


def test_too_many_copies_names_the_card():
    with pytest.raises(FastmachError, match=r"3 copies of 10H"):
        fastmach.solve("10H JH QH", "10H 10H", CLASSIC)
    with pytest.raises(FastmachError, match=r"4 copies of AS"):
        fastmach.solve("", "AS AS AS AS", Rules.parse("classic(decks=3)"))
    with pytest.raises(FastmachError, match="KC"):
        fastmach.partition("KC KC KC KH KD", CLASSIC)
    with pytest.raises(FastmachError, match="5 jokers"):
        fastmach.solve("5C 6C 7C JK JK", "JK JK JK", ITALIAN_J)


def test_jokers_under_classic_are_an_error():
    with pytest.raises(FastmachError, match="joker"):
        fastmach.solve("", "5C 6C JK", CLASSIC)
    with pytest.raises(FastmachError, match="joker"):
        fastmach.solve("5C JK 7C", "", CLASSIC)
    with pytest.raises(FastmachError, match="joker"):
        fastmach.opening("5C 6C JK", ACE_LOW, 0)


def test_bad_card_text_is_an_error():
    with pytest.raises(FastmachError, match="1X"):
        fastmach.solve("5C 6C 7C", "1X", CLASSIC)


# --------------------------------------------------------------- partition

def test_partition_exactly_these_cards():
    got = fastmach.partition("5C 6C 7C 8C 8D 8H", CLASSIC)
    check_partition(got, cards("5C 6C 7C 8C 8D 8H"), decks=2, ace_high=True, jokers_per_meld=1)
    assert fastmach.partition("5C 6C 7C 8D 8H", CLASSIC) is None
    assert fastmach.partition("", CLASSIC) == []
    got = fastmach.partition("AS 2S 3S QS KS AS", CLASSIC)            # an ace at each end
    check_partition(got, cards("AS 2S 3S QS KS AS"), decks=2, ace_high=True, jokers_per_meld=1)
    assert fastmach.partition("AS 2S 3S QS KS AS", ACE_LOW) is None
    assert fastmach.partition("AS AS 2S 2S 3S 3S QS KS", CLASSIC) is None
