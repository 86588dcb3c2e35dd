"""The solver's exact shortcuts around its sweeps, against the brute-force reference.

* aces high: when the aces-low partition already holds every card that could be placed
  (the weight bound), the aces-high search is skipped; positions built so that every
  hand card fits with aces low, so that only high aces (Q-K-A) place everything, and so
  that both compete for the same aces;
* jokers (adversarial): table jokers standing at the ends of runs and for aces (A-2-JK,
  Q-JK-A), jokers that a hand card could free, two or three table jokers with hand cards
  that fit several places, under one joker per meld and unlimited.

Every answer is also checked on its own (placed cards from the hand, the partition valid,
each joker's card).
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.positions import JOKER, NCARD, check_fast, fast, text
from tests.refs import brute

RULES = [dict(decks=d, ace_high=True, jokers_per_meld=lim) for d in (2, 3) for lim in (1, 0)]


def _rid(r):
    return f"d{r['decks']}-{'j1' if r['jokers_per_meld'] else 'jinf'}"


def _fits(cards, decks):
    c = Counter(cards)
    return all(c[x] <= decks for x in range(JOKER))


def _compare(table, hand, rules, card_w=None):
    ref = brute.solve(table, hand, card_w=card_w, **rules)
    assert ref is not None, f"invalid table {text(table)}"
    got = fast(table, hand, rules, card_w)
    check_fast(table, hand, rules, got, card_w)
    assert got[0] == ref[0], (f"fast {got[0]} != brute {ref[0]}; rules {rules}\n"
                              f" table {text(table)}\n hand {text(hand)}")
    return got[0], ref


def _run(s, lo, n):
    """The cards of a run of suit s over positions lo .. lo+n-1 (14 is the high ace)."""
    return [s * 13 + (p - 1) % 13 for p in range(lo, lo + n)]


def _aces_position(rng, rules):
    """Low runs, a high run and groups competing for the aces; the hand may complete all."""
    s, t = rng.sample(range(4), 2)
    table = []
    if rng.random() < 0.7:
        table += _run(s, 1, rng.randint(3, 4))           # A-2-3(-4)
    if rng.random() < 0.7:
        table += _run(t, 12 - rng.randint(0, 1), 3 + rng.randint(0, 1))[-3:]  # (J-)Q-K-A
    if rng.random() < 0.4:
        table += [u * 13 for u in rng.sample(range(4), 3)]  # a group of aces
    if not table:
        table = _run(s, 1, 3)
    # cards that extend those melds (4 and 5 of s, J and 10 of t, aces), and a few others
    fits = [s * 13 + 3, s * 13 + 4, t * 13 + 10, t * 13 + 9] + [u * 13 for u in range(4)]
    pool = [x * 13 + r for x in (s, t) for r in (0, 1, 2, 10, 11, 12)]
    hand = rng.sample(fits, rng.randint(1, 3)) + rng.sample(pool, rng.choice((0, 0, 1, 2)))
    if rng.random() < 0.3:
        hand.append(JOKER)
    return table, hand


@pytest.mark.parametrize("rules", RULES, ids=_rid)
def test_aces_low_partition_holding_everything_is_optimal_with_aces_high(rules):
    rng = random.Random(f"weight-bound-{_rid(rules)}")
    everything = high_only = 0
    for trial in range(150):
        table, hand = _aces_position(rng, rules)
        if not _fits(table + hand, rules["decks"]) or brute.solve(table, [], **rules) is None:
            continue
        card_w = [rng.randint(1, 5) for _ in range(NCARD)] if trial % 2 else None
        got, ref = _compare(table, hand, rules, card_w)
        w = card_w or [1] * NCARD
        if got == sum(w[c] for c in hand):
            everything += 1
            low = brute.solve(table, hand, card_w=card_w, **dict(rules, ace_high=False)) \
                if brute.solve(table, [], **dict(rules, ace_high=False)) is not None else None
            high_only += low is None or low[0] < got
    assert everything >= 10 and high_only >= 5, (everything, high_only)   # both ways met


ADV_JOKERS = {
    # a joker at the low or high end of a run, or standing for an ace
    "joker_ends": lambda rng, s: ([JOKER] + _run(s, 2, 3), [s * 13, s * 13 + 4, JOKER]),
    "joker_for_ace_high": lambda rng, s: (_run(s, 12, 2) + [JOKER], [s * 13, s * 13 + 10]),
    "joker_for_ace_low": lambda rng, s: ([JOKER] + _run(s, 2, 2), [s * 13, s * 13 + 3]),
    # a joker in a group that the hand's real card could replace, freeing the joker
    "freeable": lambda rng, s: ([s * 13 + 6, (s + 1) % 4 * 13 + 6, JOKER] + _run(s, 8, 3),
                                [(s + 2) % 4 * 13 + 6, s * 13 + 10, s * 13 + 11]),
    # two jokers on the table, hand cards fitting several runs and groups
    "two_table_jokers": lambda rng, s: (_run(s, 3, 2) + [JOKER] + [t * 13 + 8 for t in range(3)]
                                        + [JOKER, (s + 1) % 4 * 13 + 4, (s + 1) % 4 * 13 + 5],
                                        [s * 13 + 5, s * 13 + 6, (s + 1) % 4 * 13 + 3,
                                         (s + 3) % 4 * 13 + 8]),
    # three jokers: runs with a joker each, and a group
    "three_table_jokers": lambda rng, s: ([JOKER] + _run(s, 5, 2) + [JOKER] + _run((s + 1) % 4, 9, 2)
                                          + [JOKER, (s + 2) % 4 * 13 + 1, (s + 3) % 4 * 13 + 1],
                                          [s * 13 + 3, (s + 1) % 4 * 13 + 10, s * 13 + 1,
                                           (s + 1) % 4 * 13 + 1]),
}


@pytest.mark.parametrize("kind", sorted(ADV_JOKERS))
@pytest.mark.parametrize("rules", RULES, ids=_rid)
def test_adversarial_joker_positions_match_brute_force(kind, rules):
    rng = random.Random(f"adv-jokers-{kind}-{_rid(rules)}")
    for trial in range(12):
        s = rng.randrange(4)
        table, hand = ADV_JOKERS[kind](rng, s)
        # a random subset of the hand, and sometimes a spare joker
        hand = [c for c in hand if rng.random() < 0.8] + ([JOKER] if rng.random() < 0.3 else [])
        if not _fits(table + hand, rules["decks"]) or brute.solve(table, [], **rules) is None:
            continue
        card_w = [rng.randint(1, 4) for _ in range(NCARD)] if trial % 3 == 0 else None
        _compare(sorted(table), hand, rules, card_w)


def test_adversarial_joker_tables_are_valid_somewhere():
    # the generators make valid tables under one joker per meld (else the test above skips)
    for kind, make in ADV_JOKERS.items():
        table, _ = make(random.Random(0), 0)
        assert brute.solve(table, [], decks=2, ace_high=True, jokers_per_meld=1) is not None, kind
