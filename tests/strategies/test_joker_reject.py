"""The joker reject (fastmach/strategies/_joker_reject.pyx): where it says a union of cards
with jokers (one joker per meld) splits into no melds, neither the exact solver nor a
brute-force partition search finds a partition, on random, adversarial and game unions
under every ace rule; and the strong player's games do not change with it."""
from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.engine import play_games
from fastmach.strategies import _joker_reject
from fastmach.strategies._joker_reject import joker_split_impossible_counts
from tests.positions import (ADVERSARIAL, JOKER, NCARD, cards, counts, game_positions,
                             rand_hand, rand_table)

ONES = np.ones(NCARD, dtype=np.int32)
ONES_J = np.ones(16, dtype=np.int32)
ACE_RULES = (0, 1, 2)   # low only; low or high (a 14-card run stands); low or high, never both


def brute_splits(cnt, ace_high: int) -> bool:
    """Whether the cards (53 counts) split into melds of at most one joker each, every
    joker used: the lowest real card left goes into every group or run that could hold
    it (with or without a joker), recursively."""
    top = 14 if ace_high else 13

    def card(s: int, p: int) -> int:
        return s * 13 + (0 if p == 14 else p - 1)

    @lru_cache(maxsize=None)
    def go(c: tuple) -> bool:
        i = next((x for x in range(52) if c[x]), None)
        if i is None:
            return c[JOKER] == 0
        s, r = divmod(i, 13)
        others = [t for t in range(4) if t != s and c[t * 13 + r]]
        for j in range(min(1, c[JOKER]) + 1):
            for k in range(max(0, 2 - j), 4 - j):
                for comb in combinations(others, k):
                    d = list(c)
                    d[JOKER] -= j
                    for x in (i, *(t * 13 + r for t in comb)):
                        d[x] -= 1
                    if go(tuple(d)):
                        return True
        for p in [r + 1] + ([14] if r == 0 and ace_high else []):
            for a in range(max(1, p - 13), p + 1):
                for b in range(max(p, a + 2), top + 1):
                    if ace_high == 2 and b - a == 13:
                        continue
                    # the joker (at most one) at no position or one position but p
                    for jq in [None] + [q for q in range(a, b + 1) if q != p]:
                        d = list(c)
                        if jq is not None:
                            d[JOKER] -= 1
                        for q in range(a, b + 1):
                            if q != jq:
                                d[card(s, q)] -= 1
                        if min(d) >= 0 and go(tuple(d)):
                            return True
        return False

    return go(tuple(int(x) for x in cnt))


def solver_splits(cnt, decks: int, ace_high: int) -> bool:
    """Whether the exact solver partitions the cards (as a table, with no hand)."""
    total, _, _, _ = _solver.solve_counts(np.asarray(cnt, np.uint8), np.zeros(NCARD, np.uint8),
                                          decks, ace_high, 1, ONES, ONES_J, False)
    return total >= 0


def _small_union(rng: random.Random, decks: int, ace_high: int) -> np.ndarray:
    """Some random melds, 1-4 jokers in them or added, then maybe a few cards added or
    taken away: a good share of them split."""
    top = 14 if ace_high else 13
    cnt = np.zeros(NCARD, dtype=np.int64)
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.45:
            r = rng.randrange(13)
            for s in rng.sample(range(4), rng.choice((3, 4))):
                cnt[s * 13 + r] += 1
        else:
            s, n = rng.randrange(4), rng.choice((3, 3, 4, 5, 6, 8))
            n = min(n, top)
            lo = rng.randint(1, top - n + 1)
            for p in range(lo, lo + n):
                cnt[s * 13 + (p - 1) % 13] += 1
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        x = rng.randrange(52)
        if rng.random() < 0.5:
            cnt[x] += 1
        elif cnt[x]:
            cnt[x] -= 1
    real = cnt[:52].nonzero()[0]
    for _ in range(rng.randint(1, 4)):   # a card turned joker, or a joker added
        if len(real) and rng.random() < 0.6:
            x = rng.choice(list(real))
            if cnt[x]:
                cnt[x] -= 1
        cnt[JOKER] += 1
    cnt[:52] = np.minimum(cnt[:52], decks)
    return cnt.astype(np.uint8)


@pytest.mark.parametrize("ace_high", ACE_RULES)
def test_a_rejected_small_union_has_no_partition_by_brute_force(ace_high):
    rng = random.Random(20 + ace_high)
    rejected = splits = 0
    for _ in range(700):
        decks = rng.choice((2, 2, 3))
        cnt = _small_union(rng, decks, ace_high)
        if cnt[:52].sum() > 16:
            continue
        ok = brute_splits(cnt, ace_high)
        assert ok == solver_splits(cnt, decks, ace_high), (cnt.nonzero(), ace_high)
        splits += ok
        if joker_split_impossible_counts(cnt, ace_high):
            rejected += 1
            assert not ok, (cnt.nonzero(), ace_high)
    assert rejected > 100 and splits > 100   # both kinds were met: the check is not vacuous


def _positions(seed: int, n: int):
    """Random and adversarial unions of a table and a hand with 1-4 jokers."""
    rng = random.Random(seed)
    for i in range(n):
        decks, ace_high = rng.choice((2, 2, 3)), rng.choice(ACE_RULES)
        rules = dict(decks=decks, ace_high=bool(ace_high), jokers_per_meld=1)
        if i % 3 == 0:
            table, hand = ADVERSARIAL[rng.choice(sorted(ADVERSARIAL))](rng, rules)
        else:
            table = rand_table(rng, rng.randint(0, 40), rules, rng.randint(0, 4))
            hand = rand_hand(rng, table, decks, rng.randint(1, 14), near_p=rng.random())
        cnt = counts(table) + counts(hand)
        if not cnt[JOKER]:
            cnt[JOKER] = rng.randint(1, 2)
        cnt[JOKER] = min(cnt[JOKER], 4)
        yield decks, ace_high, cnt


def test_a_rejected_union_has_no_partition_by_the_exact_solver():
    rejected = 0
    for decks, ace_high, cnt in _positions(4, 5000):
        if joker_split_impossible_counts(cnt, ace_high):
            rejected += 1
            assert not solver_splits(cnt, decks, ace_high), (cnt.nonzero(), ace_high)
    assert rejected > 1000


def test_unions_of_melds_are_never_rejected():
    # tables of melds with one joker at most each: every one splits
    rng = random.Random(5)
    for _ in range(2000):
        decks, ace_high = rng.choice((2, 3)), rng.choice(ACE_RULES)
        rules = dict(decks=decks, ace_high=bool(ace_high), jokers_per_meld=1)
        table = rand_table(rng, rng.randint(3, 90), rules, 4,
                           lengths=(3, 3, 4, 5, 6, 7, 9, 12, 13, 14))
        if ace_high == 2:   # no 14-card run where an ace is never both
            continue
        assert not joker_split_impossible_counts(counts(table), ace_high), (table, ace_high)


@pytest.mark.parametrize("text,ace_high,splits,rejected", [
    ("5H 7H JK", 1, True, False),              # 5H JK 7H
    ("5H 6H JK", 1, True, False),              # JK 5H 6H
    ("5H 8H JK", 1, False, True),              # two positions apart: no run
    ("5H 5S JK", 1, True, False),              # a group of two and a joker
    ("5H 5H JK", 1, False, True),              # the same card twice
    ("5H JK JK", 1, False, True),              # one real card, one joker per meld
    ("5H 6H 7H 9H JK JK", 1, True, False),     # 5H 6H JK and 7H JK 9H
    ("5H 6H 7H 10H JK JK", 1, False, True),    # 10H with no real card near it
    ("5H 6H 7H 8H 9H JK JK", 1, True, False),  # 5H 6H JK and 7H 8H 9H JK
    ("QS KS JK", 0, True, False),              # JK QS KS
    ("KS AS JK", 0, False, True), ("KS AS JK", 1, True, False),  # the ace high where allowed
    ("KS 2S JK", 1, False, True),              # no run wraps
    ("2H 2H 2S 2D JK", 1, False, True),        # two groups with a 2H: one joker short
    ("2H 2H 2S 2S 2D JK", 1, True, False),     # 2H 2S 2D and 2H 2S JK
    # a joker too many is not seen: only the fewest jokers each meld needs are counted
    ("5H 6H 7H JK JK", 1, False, False),
])
def test_known_unions(text, ace_high, splits, rejected):
    cnt = counts(cards(text.replace("JK", "")))
    cnt[JOKER] = text.count("JK")
    assert joker_split_impossible_counts(cnt, ace_high) == rejected
    assert brute_splits(cnt, ace_high) == splits


def test_without_a_joker_or_with_more_than_four_it_says_maybe():
    cnt = counts(cards("5H 9H"))
    assert not joker_split_impossible_counts(cnt, 1)
    cnt[JOKER] = 5
    assert not joker_split_impossible_counts(cnt, 1)


def test_a_rejected_game_union_has_no_partition_by_the_exact_solver():
    r, positions = game_positions("jokers", ["strong", "expert", "expert", "expert"], 30, 3)
    rejected = 0
    for st in positions:
        cnt = counts([]) + st._hands[st.current_player].astype(np.uint8)
        for m in st._melds:
            cnt += counts(m)
        if cnt[JOKER] and joker_split_impossible_counts(cnt, r.ace_code):
            rejected += 1
            assert not solver_splits(cnt, r.decks, r.ace_code)
    assert rejected > 100


@pytest.mark.parametrize("rules", ["jokers", "jokers(jokers_per_meld=0)",
                                   "classic(jokers=2)"])
def test_strong_games_are_the_same_without_the_joker_reject(rules, tmp_path):
    # every move of every game (the logs) and every row, with the reject and without
    lineup = ["strong", "expert", "strong", "expert"]
    out = []
    for on in (1, 0):
        log = tmp_path / f"{on}.jsonl"
        _joker_reject._set_enabled(on)
        try:
            games, hands = play_games(rules, lineup, 4, range(40), hands=True, log=log)
        finally:
            _joker_reject._set_enabled(1)
        cols = [c for c in games.columns if "time" not in c]
        out.append((games[cols], hands, log.read_text()))
    assert out[0][0].equals(out[1][0]) and out[0][1].equals(out[1][1])
    assert out[0][2] == out[1][2]
