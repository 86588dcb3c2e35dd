"""The independent references agree, and the validator enforces each meld rule clause.

The references (tests/refs/brute.py, tests/refs/milp.py) and fastmach/core/validate.py are what
the compiled solver is tested against, so they are themselves checked here: against each
other on seeded random and adversarial positions, against blind enumeration, and clause by
clause of docs/rules.md ("Melds").
"""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from fastmach.errors import FastmachError
from fastmach.core.validate import (ValidationError, check_partition, check_play, is_valid_meld,
                               meld_kind)
from tests.refs import brute, milp

JOKER = 52
JK = JOKER


def C(text: str) -> int:
    """Test-local card notation ("10H", "AS", "JK"), independent of fastmach.core.cards."""
    if text == "JK":
        return JOKER
    rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text[:-1]) or int(text[:-1])
    return "SHDC".index(text[-1]) * 13 + rank - 1


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


HIGH1 = dict(ace_high=True, jokers_per_meld=1)
HIGH0 = dict(ace_high=True, jokers_per_meld=0)
LOW1 = dict(ace_high=False, jokers_per_meld=1)
LOW0 = dict(ace_high=False, jokers_per_meld=0)


def valid(text: str, rules: dict) -> bool:
    return is_valid_meld(cards(text), **rules)


# --------------------------------------------------------------------------- validator
# One test per clause of docs/rules.md "Melds".

def test_group_is_three_or_four_cards_of_one_rank():
    assert meld_kind(cards("8H 8D 8C"), **HIGH1) == "group"
    assert meld_kind(cards("8S 8H 8D 8C"), **HIGH1) == "group"
    assert not valid("8H 8D", HIGH1)
    assert not valid("8H 8D 9C", HIGH1)
    assert not valid("8S 8H 8D 8C JK", HIGH0)      # 5 cards: no fifth suit for the joker


def test_group_suits_all_different():
    assert not valid("8H 8H 8D", HIGH1)             # 000: 8♥ 8♥ 8♦ no
    assert not valid("8S 8H 8H 8D", HIGH1)
    assert not valid("8H 8H JK", HIGH1)


def test_group_jokers_take_missing_suits():
    assert meld_kind(cards("8H 8D JK"), **HIGH1) == "group"
    assert meld_kind(cards("8S 8H 8D JK"), **HIGH1) == "group"
    assert valid("8H JK JK JK", HIGH0)              # unlimited: 1 real + 3 jokers
    assert not valid("8S 8H 8D JK JK", HIGH0)


def test_run_three_consecutive_ranks_one_suit():
    assert meld_kind(cards("5C 6C 7C"), **HIGH1) == "run"
    assert valid("5C 6C 7C 8C 9C 10C JC", LOW1)
    assert not valid("5C 6C", HIGH1)
    assert not valid("5C 6C 7D", HIGH1)             # mixed suits
    assert not valid("5C 6C 8C", HIGH1)             # gap, no joker
    assert not valid("5C 5C 6C 7C", HIGH0)          # duplicate rank in a run


def test_run_jokers_fill_gaps_and_extend_ends():
    assert valid("5C JK 7C", HIGH1)
    assert valid("5C 6C JK", HIGH1)
    assert valid("JK 5C 6C", HIGH1)
    assert valid("5C JK 7C JK 9C", HIGH0)
    assert not valid("5C JK 7C JK 9C", HIGH1)       # two jokers, one allowed
    assert not valid("5C JK 8C", HIGH1)             # gap of two, one joker
    assert valid("KS JK JK", LOW0)                  # J Q K
    assert valid("AS JK JK", LOW0)                  # A 2 3


def test_ace_low_or_high():
    assert valid("AS 2S 3S", HIGH1) and valid("AS 2S 3S", LOW1)
    assert valid("QS KS AS", HIGH1)
    assert not valid("QS KS AS", LOW1)              # ace-low: Q-K-A invalid
    assert valid("KS AS JK", HIGH1)                 # Q K A
    assert not valid("KS AS JK", LOW1)


def test_no_wrap_around_king_ace_two():
    assert not valid("KS AS 2S", HIGH1)
    assert not valid("KS AS 2S", LOW1)
    assert not valid("QS KS AS 2S", HIGH0)
    assert not valid("KS JK 2S", HIGH1)             # joker as the ace does not wrap either


def test_fourteen_card_run_ace_at_both_ends():
    full = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
    assert valid(full, HIGH1)
    assert not valid(full, LOW1)
    assert valid("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", LOW1)   # 13 cards low-only
    assert valid("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS JK AS", HIGH1)
    assert not valid("AS AS 2S", HIGH1)             # two aces need both ends
    assert not valid(full + " JK", HIGH0)           # 15 positions do not exist
    assert not valid("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK", LOW0)


def test_meld_holds_a_real_card():
    assert not valid("JK JK JK", HIGH0)
    assert not valid("JK JK JK JK", HIGH0)


def test_jokers_per_meld_limit():
    assert not valid("8H JK JK", HIGH1)
    assert valid("8H JK JK", HIGH0)
    assert not valid("5C JK JK", LOW1)
    assert valid("5C JK JK", LOW0)


def test_meld_validity_ignores_card_order():
    rng = random.Random(7)
    for text in ("5C JK 7C JK 9C", "QS AS KS", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
                 "8C JK 8S"):
        meld = cards(text)
        for _ in range(10):
            rng.shuffle(meld)
            assert is_valid_meld(meld, **HIGH0)


def _substitution_oracle(meld: list[int], ace_high: bool, jokers_per_meld: int) -> bool:
    """Meld validity by a different route: try every real value for each joker and test
    the resulting all-real meld directly (sorted positions consecutive)."""
    real = [c for c in meld if c != JOKER]
    k = len(meld) - len(real)
    if len(meld) < 3 or not real or (jokers_per_meld and k > jokers_per_meld):
        return False
    for subst in itertools.product(range(52), repeat=k):
        full = real + list(subst)
        if len(full) <= 4 and len({c % 13 for c in full}) == 1 \
                and len({c // 13 for c in full}) == len(full):
            return True
        if len({c // 13 for c in full}) != 1:
            continue
        ranks = [c % 13 + 1 for c in full]
        n_aces = ranks.count(1)
        for high in range(n_aces + 1 if ace_high else 1):   # how many aces stand at 14
            pos = sorted([r for r in ranks if r != 1] + [1] * (n_aces - high) + [14] * high)
            if pos == list(range(pos[0], pos[0] + len(pos))):
                return True
    return False


def test_validator_matches_joker_substitution_oracle():
    rng = random.Random(11)
    checked = 0
    for _ in range(1500):
        n = rng.randint(2, 6)
        suit = rng.randrange(4)
        lo = rng.randint(1, 12)
        meld = []
        for _ in range(n):
            u = rng.random()
            if u < 0.25:
                meld.append(JOKER)
            elif u < 0.75:              # near a run
                meld.append(suit * 13 + (lo - 1 + rng.randint(0, 5)) % 13)
            else:                       # near a group
                meld.append(rng.randrange(4) * 13 + lo - 1)
        if meld.count(JOKER) > 2:
            continue
        for rules in (HIGH1, HIGH0, LOW1, LOW0):
            assert is_valid_meld(meld, **rules) == _substitution_oracle(meld, **rules), \
                (meld, rules)
            checked += 1
    assert checked > 3000


def test_check_partition_names_the_problem():
    kw = dict(decks=2, **HIGH1)
    check_partition([cards("5C 6C 7C"), cards("8D 8H 8S")], cards("8S 5C 6C 8D 7C 8H"), **kw)
    with pytest.raises(ValidationError, match=r"meld 1 \[8H 8H 8D\]"):
        check_partition([cards("5C 6C 7C"), cards("8H 8H 8D")], cards("5C 6C 7C 8H 8H 8D"),
                        **kw)
    with pytest.raises(ValidationError, match="card 9C missing"):
        check_partition([cards("5C 6C 7C")], cards("5C 6C 7C 9C"), **kw)
    with pytest.raises(ValidationError, match="extra card 8C"):
        check_partition([cards("5C 6C 7C 8C")], cards("5C 6C 7C"), **kw)
    with pytest.raises(ValidationError, match="3 copies of 5C"):
        check_partition([cards("5C 6C 7C")] * 3, cards("5C 6C 7C") * 3, **kw)
    with pytest.raises(ValidationError, match="99"):
        check_partition([[99, 1, 2]], [99, 1, 2], **kw)
    with pytest.raises(FastmachError, match="decks"):
        check_partition([], [], decks=4, **HIGH1)
    with pytest.raises(FastmachError, match="jokers_per_meld"):
        check_partition([], [], decks=2, ace_high=True, jokers_per_meld=2)


def test_check_play():
    kw = dict(decks=2, **HIGH1)
    table, hand = cards("5C 6C 7C 8C"), cards("8D 8H 2S")
    after = [cards("5C 6C 7C"), cards("8C 8D 8H")]
    check_play(table, after, hand, cards("8D 8H"), **kw)
    with pytest.raises(ValidationError, match="placed card 8S"):
        check_play(table, [cards("5C 6C 7C"), cards("8C 8D 8S")], hand, cards("8D 8S"), **kw)
    with pytest.raises(ValidationError, match="placed is empty"):
        check_play(table, [table], hand, [], **kw)
    check_play(table, [table], hand, [], allow_empty=True, **kw)
    with pytest.raises(ValidationError, match="card 5C missing"):   # a table card left
        check_play(table + cards("5C"), after, hand, cards("8D 8H"), **kw)
    with pytest.raises(ValidationError, match="extra card 8H"):     # not declared placed
        check_play(table, after, hand, cards("8D"), **kw)
    with pytest.raises(ValidationError, match="3 copies of 8D"):
        check_play(table + cards("8D 8D"), after, hand, cards("8D 8H"), **kw)


# --------------------------------------------------------------------------- references

def _blind_melds_containing(c, counts, rules):
    """Every sub-multiset holding c that the validator accepts (no cleverness at all)."""
    kinds = [x for x in range(53) if counts[x]]
    out = set()
    for ks in itertools.product(*(range(counts[x] + 1) for x in kinds)):
        meld = tuple(sorted(x for x, k in zip(kinds, ks) for _ in range(k)))
        if c in meld and is_valid_meld(meld, **rules):
            out.add(meld)
    return out


def test_brute_meld_generator_is_complete():
    rng = random.Random(3)
    for _ in range(150):
        suit = rng.randrange(4)
        counts = [0] * 53
        for _ in range(rng.randint(3, 9)):
            u = rng.random()
            x = JOKER if u < 0.2 else (suit * 13 + rng.choice((0, 1, 2, 3, 10, 11, 12))
                                       if u < 0.7 else rng.randrange(4) * 13)
            if counts[x] < (3 if x == JOKER else 2):
                counts[x] += 1
        present = [x for x in range(52) if counts[x]]
        if not present:
            continue
        c = rng.choice(present)
        for rules in (HIGH1, HIGH0, LOW1, LOW0):
            got = brute.melds_containing(c, counts, **rules)
            assert len(got) == len(set(got))
            assert set(got) == _blind_melds_containing(c, counts, rules), (counts, c, rules)


def _rand_meld(rng, ace_high, lim, with_jokers, long_runs=True):
    top = 14 if ace_high else 13
    if rng.random() < 0.45:
        q = rng.randrange(13)
        meld = [s * 13 + q for s in rng.sample(range(4), rng.choice((3, 4)))]
    else:
        s = rng.randrange(4)
        lengths = (3, 3, 4, 4, 5, 6, 7, 9, 13, top) if long_runs else (3, 3, 3, 4, 5)
        n = rng.choice(lengths)
        lo = rng.randint(1, top - n + 1)
        meld = [s * 13 + (p - 1) % 13 for p in range(lo, lo + n)]
    if with_jokers and rng.random() < 0.5:
        for i in rng.sample(range(len(meld)), rng.randint(1, lim or len(meld) - 1)):
            meld[i] = JOKER
    return meld


def _rand_table(rng, target, decks, ace_high, lim, max_jokers, long_runs=True):
    """A table built as a union of random valid melds (so it is known to be valid)."""
    counts = Counter()
    for _ in range(300):
        if sum(counts.values()) >= target:
            break
        meld = _rand_meld(rng, ace_high, lim, max_jokers > 0, long_runs)
        new = counts + Counter(meld)
        if sum(counts.values()) + len(meld) > target + 2 or new[JOKER] > max_jokers \
                or any(new[x] > decks for x in range(52)):
            continue
        assert is_valid_meld(meld, ace_high=ace_high, jokers_per_meld=lim)
        counts = new
    return sorted(counts.elements())


def _rand_hand(rng, table, decks, size, joker_p):
    left = Counter({x: decks for x in range(52)}) - Counter(table)
    pool = sorted(left.elements())
    near = [x for x in pool if any(x // 13 == t // 13 and abs(x - t) <= 2 or x % 13 == t % 13
                                   for t in table if t != JOKER)]
    src = near if near and rng.random() < 0.7 else pool
    hand = rng.sample(src, min(size, len(src)))
    if rng.random() < joker_p:
        hand.append(JOKER)
    return hand


def _check_solution(table, hand, sol, rules, card_w=None):
    weight, placed, melds = sol
    w = card_w or [1] * 53
    assert weight == sum(w[x] for x in placed)
    check_play(table, melds, hand, placed, allow_empty=True, **rules)


def _agree(table, hand, rules, card_w=None):
    a = brute.solve(table, hand, card_w=card_w, **rules)
    b = milp.solve(table, hand, card_w=card_w, known_valid=True, **rules)
    assert a is not None and b is not None
    assert a[0] == b[0], (table, hand, rules, a, b)
    _check_solution(table, hand, a, rules, card_w)
    _check_solution(table, hand, b, rules, card_w)
    return a


@pytest.mark.parametrize("ace_high", [True, False])
@pytest.mark.parametrize("lim", [1, 0])
@pytest.mark.parametrize("decks", [2, 3])
def test_references_agree_on_random_positions(ace_high, lim, decks):
    rng = random.Random(f"agree-{ace_high}-{lim}-{decks}")
    rules = dict(decks=decks, ace_high=ace_high, jokers_per_meld=lim)
    placed_something = 0
    for trial in range(80):
        table = _rand_table(rng, rng.randint(0, 12), decks, ace_high, lim, 2)
        hand = _rand_hand(rng, table, decks, rng.randint(0, 6), 0.3)
        card_w = [rng.randint(1, 5) for _ in range(53)] if trial % 3 == 0 else None
        placed_something += _agree(table, hand, rules, card_w)[0] > 0
    assert placed_something >= 20       # the positions are not all trivial


@pytest.mark.parametrize("ace_high", [True, False])
@pytest.mark.parametrize("lim", [1, 0])
def test_references_agree_on_partition_feasibility(ace_high, lim):
    """Perturbed valid tables (a card dropped, added or swapped): feasible or not, both
    references give the same verdict and any partition they return checks out."""
    rng = random.Random(f"part-{ace_high}-{lim}")
    rules = dict(decks=2, ace_high=ace_high, jokers_per_meld=lim)
    verdicts = Counter()
    for _ in range(100):
        cards_ = _rand_table(rng, rng.randint(3, 14), 2, ace_high, lim, 2)
        u = rng.random()
        if u < 0.35 and cards_:
            cards_.remove(rng.choice(cards_))
        elif u < 0.7:
            extra = _rand_hand(rng, cards_, 2, 1, 0.15)
            cards_ += extra
        a = brute.partition(cards_, **rules)
        b = milp.partition(cards_, **rules)
        assert (a is None) == (b is None), (cards_, rules, a, b)
        for found in (a, b):
            if found is not None:
                check_partition(found, cards_, **rules)
        verdicts[a is None] += 1
    assert verdicts[True] >= 5 and verdicts[False] >= 5


# Worked examples of the rule texts (docs/rules.md, the sources).
def test_worked_example_run_gives_its_end_to_a_group():
    rules = dict(decks=2, **HIGH1)
    a = _agree(cards("5C 6C 7C 8C"), cards("8D 8H"), rules)
    assert sorted(a[1]) == sorted(cards("8D 8H"))


def test_worked_example_three_card_run_cannot_give_a_card():
    rules = dict(decks=2, **HIGH1)
    a = _agree(cards("6C 7C 8C"), cards("8D 8H"), rules)
    assert a[0] == 0 and a[1] == []


def test_worked_example_long_run_gives_a_middle_card():
    rules = dict(decks=2, **HIGH1)
    a = _agree(cards("3C 4C 5C 6C 7C 8C 9C"), cards("6D 6H"), rules)
    assert sorted(a[1]) == sorted(cards("6D 6H"))
    assert sorted(cards("6C 6D 6H")) in [sorted(m) for m in a[2]]


ADVERSARIAL = [
    # (table, hand, rules, expected placed weight, or None when the table is invalid)
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "", HIGH1, 0),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "", LOW1, None),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "AS", HIGH1, 1),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "AS", LOW1, 0),
    ("KS AS 2S", "", HIGH1, None),                       # K-A-2 is no run
    ("", "KS AS 2S", HIGH1, 0),
    ("", "QS KS AS 2S 3S", HIGH1, 3),
    ("", "QS KS AS 2S 3S", LOW1, 3),
    ("AS 2S 3S QS KS AS", "", HIGH1, 0),                 # an ace at each end
    ("AS 2S 3S QS KS AS", "", LOW1, None),
    ("5C 6C 7C 5C 6C 7C", "5C 6C 7C", HIGH1, 0),          # decks=2: third copies refused
    ("5C JK 7C", "6C", HIGH1, 1),                         # the 6C frees nothing but fits
    ("5C JK JK JK JK JK JK", "", HIGH0, 0),               # one real card: a 7-card run
    ("AS 2S JK JK JK JK JK JK JK JK JK JK JK JK", "", HIGH0, 0),
    ("AS 2S JK JK JK JK JK JK JK JK JK JK JK JK", "", LOW0, 0),   # AS+3JK, 10-card run
    ("8H JK JK", "8S 8D", HIGH0, 1),                   # 5 cards, groups hold 4
    ("8H JK JK", "", HIGH1, None),
    ("JK JK JK", "5C", HIGH0, None),      # the table alone must partition
    ("JK JK JK", "", HIGH0, None),
    ("5C 6C", "7C", HIGH1, None),                        # the hand cannot rescue a table
    ("5C 6C 7C 8C 9C 10C JC QC KC", "5H 5D 9H 9D KH KD", LOW1, 6),
]


@pytest.mark.parametrize("table,hand,rules,expected", ADVERSARIAL)
def test_references_agree_on_adversarial_cases(table, hand, rules, expected):
    full = dict(decks=2, **rules)
    t, h = cards(table) if table else [], cards(hand) if hand else []
    if "5C 6C 7C 5C 6C 7C" in table:          # three copies of 5C: refused as input
        with pytest.raises(FastmachError):
            brute.solve(t, h, **full)
        with pytest.raises(FastmachError):
            milp.solve(t, h, **full)
        t, h, full = t, h, dict(full, decks=3)
        expected = 3
    a = brute.solve(t, h, **full)
    b = milp.solve(t, h, **full)
    if expected is None:
        assert a is None and b is None
        return
    assert a is not None and b is not None
    assert a[0] == b[0] == expected
    _check_solution(t, h, a, full)
    _check_solution(t, h, b, full)


def test_full_duplicates_three_decks():
    rules = dict(decks=3, **HIGH1)
    table = cards("5C 6C 7C") * 3 + cards("9H 9D 9S") * 3
    a = _agree(table, cards("8C 8C 8C 9C 9C"), rules)
    assert a[0] == 5                  # 5C..9C three times over: every hand card fits


def test_milp_handles_large_tables():
    """80+-card tables built from random melds: the MILP finds a partition that checks out,
    and places cards from a large hand (weights compared only between references elsewhere).
    """
    rng = random.Random(2006)
    for trial in range(16):
        ace_high, lim, decks = trial % 2 == 0, (trial // 2) % 2, 2 + (trial // 4) % 2
        rules = dict(decks=decks, ace_high=ace_high, jokers_per_meld=lim)
        table = _rand_table(rng, 85, decks, ace_high, lim, 4)
        assert len(table) >= 80
        found = milp.partition(table, known_valid=True, **rules)
        check_partition(found, table, **rules)
        hand = _rand_hand(rng, table, decks, 15, 0.5)
        sol = milp.solve(table, hand, known_valid=True, **rules)
        _check_solution(table, hand, sol, rules)


def test_milp_infeasible_on_known_valid_table_is_a_reference_failure():
    with pytest.raises(milp.ReferenceFailure, match="known to be valid"):
        milp.solve(cards("KS AS 2S"), [], decks=2, known_valid=True, **HIGH1)
