"""The compiled solver against the two independent references, and a property test.

* brute force (``tests/refs/brute.py``) on small positions, random and adversarial (long
  runs, full duplicates, aces at both ends, jokers with 1 or unlimited per meld, 2 and 3
  decks), with unit and random card weights;
* integer programming (``tests/refs/milp.py``, HiGHS with presolve off) on real positions
  of greedy 4-player games under every preset (jokers added where a preset has none), up
  to 90-card tables, and on synthetic 80-card tables;
* every partition the solver returns is checked by ``fastmach.core.validate.check_partition``
  (table + placed, exactly), and every joker's "stands for" card is checked too.

All generators are seeded (``random.Random(<text>)``, hypothesis ``derandomize=True``).
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastmach
from fastmach import FastmachError, Rules
from fastmach.tools.bench import game_positions
from fastmach.core.validate import check_partition, check_play, is_valid_meld
from tests.positions import (ADVERSARIAL, JOKER, NCARD, RULES_GRID, check_fast, fast, listing,
                             rand_hand, rand_table, rand_weights, rules_id, text)
from tests.refs import brute, milp

TIES: Counter = Counter()   # positions by whether their best weight has several placements


def _compare_brute(table, hand, rules, card_w=None) -> int:
    """Fast solver == brute force on the placed weight, and the fast answer places the
    canonical cards (the tie-break, chosen by brute force among every placement of the best
    weight); the fast answer checks out."""
    ref = brute.solve(table, hand, card_w=card_w, **rules)
    assert ref is not None, f"generator made an invalid table {text(table)}"
    can = brute.canonical(table, hand, card_w=card_w, **rules)
    assert can is not None and can[0] == ref[0]
    got = fast(table, hand, rules, card_w)
    check_fast(table, hand, rules, got, card_w)
    assert got[0] == ref[0], (
        f"fast {got[0]} != brute {ref[0]} placed; rules {rules}\n table {text(table)}\n"
        f" hand {text(hand)}\n card_w {card_w}\n fast placed {text(got[1])}\n"
        f" brute placed {text(ref[1])} melds {[text(m) for m in ref[2]]}")
    assert sorted(got[1]) == can[1], (
        f"fast placed {text(got[1])}, the canonical placement is {text(can[1])}; rules"
        f" {rules}\n table {text(table)}\n hand {text(hand)}\n card_w {card_w}")
    TIES[can[2] > 1] += 1
    return got[0]


# --------------------------------------------------------------------------- brute force

@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_fast_matches_brute_on_random_positions(rules):
    rng = random.Random(f"brute-random-{rules_id(rules)}")
    nonzero = 0
    for trial in range(120):
        table = rand_table(rng, rng.randint(0, 12), rules, max_jokers=rng.choice((0, 1, 2)))
        k = Counter(table)[JOKER]
        hand = rand_hand(rng, table, rules["decks"], rng.randint(0, 6),
                         jokers=rng.choice((0, 0, 1, 2)) if k < 2 else 0)
        card_w = rand_weights(rng) if trial % 2 else None
        nonzero += _compare_brute(table, hand, rules, card_w) > 0
    assert nonzero >= 30          # the positions are not trivial


@pytest.mark.parametrize("kind", sorted(ADVERSARIAL))
@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_fast_matches_brute_on_adversarial_positions(kind, rules):
    rng = random.Random(f"brute-adv-{kind}-{rules_id(rules)}")
    make = ADVERSARIAL[kind]
    nonzero = 0
    for trial in range(25):
        table, hand = make(rng, rules)
        card_w = rand_weights(rng) if trial % 3 == 0 else None
        nonzero += _compare_brute(table, hand, rules, card_w) > 0
    assert nonzero >= 3


@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_partition_and_table_check_match_brute(rules):
    """Perturbed valid tables (a card dropped, added or swapped): fastmach.partition and
    brute agree on feasibility, and fastmach.solve refuses exactly the invalid ones."""
    rng = random.Random(f"brute-partition-{rules_id(rules)}")
    r = Rules(decks=rules["decks"], jokers=4, jokers_per_meld=rules["jokers_per_meld"],
              ace="low-or-high" if rules["ace_high"] else "low-only")
    verdicts = Counter()
    for _ in range(50):
        cs = rand_table(rng, rng.randint(3, 13), rules, max_jokers=rng.choice((0, 2)))
        u = rng.random()
        if u < 0.4:
            cs.remove(rng.choice(cs))
        elif u < 0.8:
            cs += rand_hand(rng, cs, rules["decks"], rng.randint(1, 2),
                            jokers=int(rng.random() < 0.15 and Counter(cs)[JOKER] < 4))
        ref = brute.partition(cs, **rules)
        got = fastmach.partition(cs, r)
        assert (got is None) == (ref is None), (text(cs), rules, got, ref)
        if got is not None:
            check_partition(got, cs, **rules)
        else:
            with pytest.raises(FastmachError, match="does not split"):
                fastmach.solve(cs, [], r)
        verdicts[got is None] += 1
    assert verdicts[True] >= 5 and verdicts[False] >= 5


@pytest.mark.parametrize("preset", ["jokers", "ace-low(jokers=2)", "italian(jokers=4)",
                                    "classic(decks=3)"])
def test_objective_points_matches_brute(preset):
    """fastmach.solve(objective="points") == brute with weights points*256 + 1 (points
    first, then cards), on small positions of each point scheme."""
    r = Rules.parse(preset)
    rules = dict(decks=r.decks, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld)
    pts = r.points_table()
    card_w = [int(p) * 256 + 1 for p in pts]
    rng = random.Random(f"points-{preset}")
    for _ in range(60):
        table = rand_table(rng, rng.randint(0, 10), rules, max_jokers=min(r.jokers, 2))
        free = min(r.jokers, 2) - Counter(table)[JOKER]
        hand = rand_hand(rng, table, r.decks, rng.randint(1, 6),
                         jokers=rng.randint(0, max(free, 0)))
        ref = brute.solve(table, hand, card_w=card_w, **rules)
        sol = fastmach.solve(table, hand, r, objective="points")
        check_play(table, sol.melds, hand, sol.placed, allow_empty=True, **rules)
        assert sum(card_w[c] for c in sol.placed) == ref[0], (preset, text(table), text(hand))
        assert sol.points == sum(int(pts[c]) for c in sol.placed)


def _opening_oracle(hand: list[int], rules: dict) -> tuple[int, int]:
    """Best (opening points, cards) of hand-only melds, with at most one joker: the joker
    is replaced in turn by every real card (brute force on the substituted hand).
    Opening points: A 1, 2-10 face, J/Q/K 10; a joker counts as its card."""
    value = [1 if c % 13 == 0 else min(c % 13 + 1, 10) for c in range(52)]
    w = [v * 256 + 1 for v in value] + [0]
    real = [c for c in hand if c != JOKER]
    subs = [None] + (list(range(52)) if JOKER in hand else [])
    best = 0
    for s in subs:
        h = real + ([s] if s is not None else [])
        # decks=3 only lifts the copy check: a joker may stand for a card held twice
        found = brute.solve([], h, card_w=w, decks=3, ace_high=rules["ace_high"],
                            jokers_per_meld=rules["jokers_per_meld"])
        best = max(best, found[0])
    return best // 256, best % 256


@pytest.mark.parametrize("preset", ["ace-low(jokers=2,opening_points=36)", "jokers",
                                    "italian(jokers=2)"])
def test_opening_matches_substitution_oracle(preset):
    r = Rules.parse(preset)
    rules = dict(decks=r.decks, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld)
    rng = random.Random(f"opening-{preset}")
    seen_joker_used = 0
    for trial in range(16):
        core = rand_table(rng, rng.randint(3, 6), rules, max_jokers=0, lengths=(3, 4))
        hand = core + rand_hand(rng, core, r.decks, rng.randint(0, 2), jokers=trial % 2)
        ref_pts, ref_n = _opening_oracle(hand, rules)
        sol = fastmach.opening(hand, r, 0)
        assert sol is not None and (sol.points, sol.n_placed) == (ref_pts, ref_n), \
            (preset, text(hand), sol, ref_pts, ref_n)
        check_partition(sol.melds, sol.placed, **rules)
        assert not Counter(sol.placed) - Counter(hand)
        seen_joker_used += JOKER in sol.placed
        above = fastmach.opening(hand, r, ref_pts + 1)
        assert above is None
    assert seen_joker_used >= 3


# --------------------------------------------------------------------------- MILP

GAME_PRESETS = ["classic", "jokers", "ace-low", "italian(jokers=2)", "ace-low(jokers=2)",
                "classic(decks=3)", "italian(jokers=4)"]


def _sample_game_positions(r: Rules, n: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """``n`` positions of 4-player expert games, a third of them from 51+-card tables."""
    tables, hands = game_positions(r, games=30, seed=seed, players=4)
    size = tables.sum(axis=1)
    rng = np.random.default_rng(seed)
    big = np.flatnonzero((size >= 51) & (size <= 90))
    mid = np.flatnonzero((size >= 21) & (size <= 50))
    small = np.flatnonzero(size <= 20)
    pick = []
    for idx, k in ((big, n // 3), (mid, n // 3), (small, n)):
        k = min(k, len(idx), n - len(pick))
        pick += rng.choice(idx, size=k, replace=False).tolist()
    return [(listing(tables[i]), listing(hands[i])) for i in pick]


@pytest.mark.parametrize("preset", GAME_PRESETS)
def test_fast_matches_milp_on_game_positions(preset):
    r = Rules.parse(preset)
    rules = dict(decks=r.decks, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld)
    positions = _sample_game_positions(r, 80, seed=2006)
    rng = random.Random(f"milp-game-{preset}")
    assert len(positions) == 80
    big = sum(len(t) >= 51 for t, _ in positions)
    assert big >= 15, f"only {big} positions with 51+ table cards"
    for i, (table, hand) in enumerate(positions):
        card_w = rand_weights(rng) if i % 3 == 0 else None
        ref = milp.solve(table, hand, card_w=card_w, known_valid=True, **rules)
        got = fast(table, hand, rules, card_w)
        check_fast(table, hand, rules, got, card_w)
        assert got[0] == ref[0], (
            f"fast {got[0]} != milp {ref[0]} ({preset}) table {text(table)} hand {text(hand)}"
            f" card_w {card_w}")


@pytest.mark.parametrize("rules,jokers", [
    (dict(decks=2, ace_high=True, jokers_per_meld=1), 0),
    (dict(decks=2, ace_high=False, jokers_per_meld=1), 2),
    (dict(decks=3, ace_high=True, jokers_per_meld=0), 0),
    (dict(decks=3, ace_high=False, jokers_per_meld=0), 2),
], ids=lambda x: rules_id(x) if isinstance(x, dict) else f"jk{x}")
def test_fast_matches_milp_on_80_card_tables(rules, jokers):
    """Synthetic 80+-card tables of random melds (long runs, 13/14-card runs, duplicates),
    a 13-15 card hand (jokers with aces high: the next test)."""
    rng = random.Random(f"milp-80-{rules_id(rules)}")
    for trial in range(6):
        table = rand_table(rng, 82, rules, max_jokers=jokers)
        assert len(table) >= 80
        hand = rand_hand(rng, table, rules["decks"], rng.randint(13, 15))
        card_w = rand_weights(rng) if trial % 2 else None
        ref = milp.solve(table, hand, card_w=card_w, known_valid=True, **rules)
        got = fast(table, hand, rules, card_w)
        check_fast(table, hand, rules, got, card_w)
        assert got[0] == ref[0], (rules, text(table), text(hand), card_w)


# --------------------------------------------------------------------------- property

@st.composite
def _meld(draw, ace_high: bool, lim: int, jokers: bool) -> list[int]:
    top = 14 if ace_high else 13
    if draw(st.booleans()):
        q = draw(st.integers(0, 12))
        suits = draw(st.permutations(range(4)))[:draw(st.sampled_from((3, 4)))]
        meld = [s * 13 + q for s in suits]
    else:
        s = draw(st.integers(0, 3))
        n = draw(st.integers(3, top))
        lo = draw(st.integers(1, top - n + 1))
        meld = [s * 13 + (p - 1) % 13 for p in range(lo, lo + n)]
    if jokers:
        k = draw(st.integers(0, lim or len(meld) - 1))
        for i in draw(st.permutations(range(len(meld))))[:k]:
            meld[i] = JOKER
    return meld


@st.composite
def _position(draw):
    decks = draw(st.sampled_from((2, 3)))
    ace_high = draw(st.booleans())
    lim = draw(st.sampled_from((1, 0)))
    jokers = draw(st.booleans())
    rules = dict(decks=decks, ace_high=ace_high, jokers_per_meld=lim)
    have: Counter = Counter()

    def fits(cs) -> bool:
        new = have + Counter(cs)
        return new[JOKER] <= 4 and all(new[c] <= decks for c in range(52))

    table = []
    for meld in draw(st.lists(_meld(ace_high, lim, jokers), max_size=8)):
        if fits(meld):
            have.update(meld)
            table += meld
    hand_meld = draw(_meld(ace_high, lim, jokers))
    if not fits(hand_meld):
        hand_meld = []
    have.update(hand_meld)
    extra = []
    for c in draw(st.lists(st.integers(0, NCARD - 1), max_size=8)):
        if fits([c]):
            have.update([c])
            extra.append(c)
    return rules, sorted(table), hand_meld, extra


@settings(derandomize=True, max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_position())
def test_property_placed_at_least_any_hand_meld(pos):
    """On a table of random valid melds, with a hand holding a valid meld M plus random
    cards: the solver places at least |M| cards, its play is legal, and the placed cards
    can all be put on the table again (solving table + placed cards' own problem)."""
    rules, table, hand_meld, extra = pos
    assert not hand_meld or is_valid_meld(hand_meld, ace_high=rules["ace_high"],
                                          jokers_per_meld=rules["jokers_per_meld"])
    r = Rules(decks=rules["decks"], jokers=4, jokers_per_meld=rules["jokers_per_meld"],
              ace="low-or-high" if rules["ace_high"] else "low-only")
    hand = hand_meld + extra
    sol = fastmach.solve(table, hand, r)
    check_play(table, sol.melds, hand, sol.placed, allow_empty=True, **rules)
    assert sol.n_placed >= len(hand_meld)
    again = fastmach.solve(table, sol.placed, r)
    assert again.n_placed == sol.n_placed
    # the meld laid alone is a lower bound for the hand meld's own cards too
    alone = fastmach.solve(table, hand_meld, r)
    assert alone.n_placed == len(hand_meld)


def _fast_or_fail(table, hand, rules, ref_weight):
    """The fast answer, or a test failure naming the position when the solver gives up
    (its state limit raises a RuntimeError subclass) on a position the MILP solved."""
    try:
        return fast(table, hand, rules)
    except RuntimeError as err:
        pytest.fail(f"solver gave up ({err}) where the MILP places weight {ref_weight}; "
                    f"rules {rules}\n table {text(table)}\n hand {text(hand)}")


@pytest.mark.parametrize("lim", [1, 0], ids=["j1", "jinf"])
@pytest.mark.parametrize("jokers", [2, 4])
def test_fast_matches_milp_on_80_card_tables_with_jokers_aces_high(lim, jokers):
    """80+-card tables with 2 or 4 jokers, aces high (the jokers and italian presets),
    a 13-card hand: the exact solver must answer them, and agree with the MILP."""
    rules = dict(decks=2, ace_high=True, jokers_per_meld=lim)
    rng = random.Random(f"milp-80-jokers-{lim}-{jokers}")
    for _ in range(2):
        table = rand_table(rng, 82, rules, max_jokers=jokers)
        assert len(table) >= 80 and Counter(table)[JOKER] == jokers
        hand = rand_hand(rng, table, 2, 13)
        ref = milp.solve(table, hand, known_valid=True, **rules)
        got = _fast_or_fail(table, hand, rules, ref[0])
        check_fast(table, hand, rules, got)
        assert got[0] == ref[0], (rules, text(table), text(hand))


# A valid 65-card table under the jokers preset (4 jokers, one per meld), no hand: minimised
# from a random 82-card table on which the solver raised SolverLimitError ("position too
# large", more than 2^21 states) while the MILP partitions it in about 10 ms.
TABLE_65_FOUR_JOKERS = (
    "AS 2S 2S 3S 4S 5S 5S 6S 6S 7S 7S 8S 8S 9S 9S 10S 10S JS AH 2H 2H 3H 4H 5H 5H 6H 6H "
    "7H 7H 8H AD 2D 4D 5D 5D 6D 6D 7D 7D 8D 8D 9D 10D AC AC 2C 2C 3C 3C 4C 4C 5C 5C 6C 6C "
    "7C 7C 8C 8C 9C 10C JK JK JK JK")


def test_fast_partitions_65_card_table_with_four_jokers():
    r = Rules.parse("jokers")
    rules = dict(decks=2, ace_high=True, jokers_per_meld=1)
    table = fastmach.parse_cards(TABLE_65_FOUR_JOKERS)
    assert len(table) == 65
    ref = milp.partition(table, known_valid=True, **rules)
    check_partition(ref, table, **rules)                 # the table is valid
    try:
        got = fastmach.partition(table, r)
    except FastmachError as err:
        pytest.fail(f"fastmach.partition gave up on a valid 65-card table: {err}")
    assert got is not None
    check_partition(got, table, **rules)
    sol = fastmach.solve(table, "KS QC", r)               # and with a hand
    check_play(table, sol.melds, fastmach.parse_cards("KS QC"), sol.placed, allow_empty=True,
               **rules)


# A valid 78-card table with 4 jokers under italian(jokers=4) (unlimited per meld, aces
# high) and a 7-card hand: minimised from a random 82-card table + 13-card hand on which the
# solver raised SolverLimitError (more than 2^23 states) while the MILP places all 7 cards.
TABLE_78_FOUR_JOKERS = (
    "AS AS 3S 4S 5S 6S 6S 7S 7S 8S 9S 9S 10S 10S JS QS QS KS AH AH 2H 3H 4H 5H 6H 6H 7H 7H "
    "8H 8H 9H 9H 10H JH QH QH KH AD AD 2D 3D 4D 4D 5D 5D 6D 6D 7D 7D 8D 8D 9D 9D 10D 10D JD "
    "JD QD QD KD 2C 3C 3C 4C 4C 5C 5C 6C 7C 7C 8C 9C 9C 10C JK JK JK JK")
HAND_78 = "JS 4H 5H 10H JH 3D 8C"


def test_fast_solves_78_card_table_four_jokers_unlimited():
    r = Rules.parse("italian(jokers=4)")
    rules = dict(decks=2, ace_high=True, jokers_per_meld=0)
    table, hand = fastmach.parse_cards(TABLE_78_FOUR_JOKERS), fastmach.parse_cards(HAND_78)
    assert len(table) == 78 and len(hand) == 7
    ref = milp.solve(table, hand, known_valid=True, **rules)
    assert ref[0] == 7
    try:
        sol = fastmach.solve(table, hand, r)
    except FastmachError as err:
        pytest.fail(f"fastmach.solve gave up on a valid 78-card table (the MILP places all "
                    f"7 hand cards): {err}")
    check_play(table, sol.melds, hand, sol.placed, allow_empty=True, **rules)
    assert sol.n_placed == 7


@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_fast_returns_the_canonical_placement_among_equal_ones(rules):
    """Positions with many placements of the best weight (unit weights, a hand that
    repeats a meld's ranks in other suits, hand jokers that could stand for a held card,
    hands of high ranks that the solver solves mirrored): the fast answer places the
    cards the tie-break names (brute force over every placement; the check is not idle:
    many positions have several placements of the best weight)."""
    rng = random.Random(f"brute-ties-{rules_id(rules)}")
    before = TIES[True]
    for trial in range(60):
        table = rand_table(rng, rng.randint(0, 9), rules, max_jokers=rng.choice((0, 1)))
        q = rng.randint(7, 10) if trial % 2 else rng.randint(0, 10)
        suits = rng.sample(range(4), 4)
        # a run from (suit, q) or a group of q: not both (one copy of the shared card)
        hand = [suits[0] * 13 + q + d for d in range(3)]
        hand += [t * 13 + q for t in suits[1:3]]
        hand += rand_hand(rng, table + hand, rules["decks"], trial % 3)
        hand = [c for c in hand if Counter(table)[c] + hand.count(c) <= rules["decks"]]
        k = Counter(table)[JOKER]
        hand += [JOKER] * (trial % 3 if k + trial % 3 <= 2 else 0)
        _compare_brute(table, hand, rules, None if trial % 5 else rand_weights(rng))
    assert TIES[True] - before >= 20


def test_fast_returns_the_canonical_placement_past_one_key():
    """Hands whose tie-break digits pass one 63-bit key (three copies of every 7..K of
    each suit, which every best answer places, beside a tie-heavy core of aces to fours
    that no run can join to them): the fast answer places the core's canonical cards
    (brute force on the core alone) and every far card, settled a part at a time."""
    rules = dict(decks=3, ace_high=False, jokers_per_meld=1)
    far = [s * 13 + q for s in range(4) for q in range(6, 13) for _ in range(3)]
    rng = random.Random("brute-ties-past-one-key")
    ties = 0
    for trial in range(12):
        q, suits = rng.randint(0, 1), rng.sample(range(4), 4)
        # a run from (suit, q) or a group of q (not both), and other low cards
        core = [suits[0] * 13 + q + d for d in range(3)] + [t * 13 + q for t in suits[1:3]]
        low = [s * 13 + r for s in range(4) for r in range(4) if s * 13 + r not in core]
        core += rng.sample(low, rng.randint(3, 5))
        table = [] if trial % 2 else [s * 13 + q for s in rng.sample(range(4), 3) for q in (1,)]
        hand = core + far
        counts = Counter(table + hand)
        bits = sum(np.log2(counts[c] + 1) for c in set(hand))
        assert bits > 63, bits   # (the key does not hold every digit: the split runs)
        can = brute.canonical(table, core, **rules)
        got = fast(table, hand, rules)
        check_fast(table, hand, rules, got)
        assert sorted(got[1]) == sorted(can[1] + far), (text(table), text(core))
        ties += can[2] > 1
    assert ties >= 3
