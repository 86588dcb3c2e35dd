"""The split reject (fastmach/core/_split_reject.pyx): where it says a union of cards
splits into no melds, neither the exact solver nor a brute-force partition search finds a
partition, on random, adversarial and game unions under every ace rule; and the strong
player's games do not change with it."""
from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest

from fastmach.core import _solver, _split_reject
from fastmach.engine import play_games
from fastmach.core._split_reject import split_impossible_counts
from tests.positions import (ADVERSARIAL, JOKER, NCARD, cards, counts, game_positions,
                             rand_hand, rand_table)

ONES = np.ones(NCARD, dtype=np.int32)
ONES_J = np.ones(16, dtype=np.int32)
ACE_RULES = (0, 1, 2)   # low only; low or high (a 14-card run stands); low or high, never both


def brute_splits(cnt, ace_high: int) -> bool:
    """Whether the cards (52 counts, no jokers) split into melds: the lowest card left goes
    into every group or run that could hold it, recursively."""
    top = 14 if ace_high else 13

    def card(s: int, p: int) -> int:
        return s * 13 + (0 if p == 14 else p - 1)

    @lru_cache(maxsize=None)
    def go(c: tuple) -> bool:
        i = next((x for x in range(52) if c[x]), None)
        if i is None:
            return True
        s, r = divmod(i, 13)
        others = [t for t in range(4) if t != s and c[t * 13 + r]]
        for k in (2, 3):
            for comb in combinations(others, k):
                d = list(c)
                for x in (i, *(t * 13 + r for t in comb)):
                    d[x] -= 1
                if go(tuple(d)):
                    return True
        for p in [r + 1] + ([14] if r == 0 and ace_high else []):
            for a in range(max(1, p - 13), p + 1):
                for b in range(max(p, a + 2), top + 1):
                    d = list(c)
                    for q in range(a, b + 1):
                        d[card(s, q)] -= 1
                    if min(d) >= 0 and go(tuple(d)):
                        return True
        return False

    return go(tuple(int(x) for x in cnt[:52]))


def solver_splits(cnt, decks: int, ace_high: int) -> bool:
    """Whether the exact solver partitions the cards (as a table, with no hand)."""
    total, _, _, _ = _solver.solve_counts(np.asarray(cnt, np.uint8), np.zeros(NCARD, np.uint8),
                                          decks, ace_high, 1, ONES, ONES_J, False)
    return total >= 0


def _small_union(rng: random.Random, decks: int, ace_high: int) -> np.ndarray:
    """Some random melds (duplicates, long runs, aces at both ends), then maybe a few cards
    added or taken away: about half of them split."""
    top = 14 if ace_high else 13
    cnt = np.zeros(NCARD, dtype=np.int64)
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.45:
            r = rng.randrange(13)
            for s in rng.sample(range(4), rng.choice((3, 4))):
                cnt[s * 13 + r] += 1
        else:
            s, n = rng.randrange(4), rng.choice((3, 3, 4, 5, 6, 8, 13, 14))
            n = min(n, top)
            lo = rng.randint(1, top - n + 1)
            for p in range(lo, lo + n):
                cnt[s * 13 + (p - 1) % 13] += 1
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        x = rng.randrange(52)
        if rng.random() < 0.5:
            cnt[x] += 1
        elif cnt[x]:
            cnt[x] -= 1
    return np.minimum(cnt, decks).astype(np.uint8)


@pytest.mark.parametrize("ace_high", ACE_RULES)
def test_a_rejected_small_union_has_no_partition_by_brute_force(ace_high):
    rng = random.Random(10 + ace_high)
    rejected = splits = 0
    for _ in range(2500):
        decks = rng.choice((2, 2, 3))
        cnt = _small_union(rng, decks, ace_high)
        if cnt.sum() > 22:
            continue
        ok = brute_splits(cnt, ace_high)
        splits += ok
        if split_impossible_counts(cnt, ace_high):
            rejected += 1
            assert not ok, (cnt.nonzero(), ace_high)
    assert rejected > 500 and splits > 500   # both kinds were met: the check is not vacuous


def _positions(seed: int, n: int):
    """Random and adversarial unions of a table and a hand (no jokers), any size."""
    rng = random.Random(seed)
    gens = [g for name, g in ADVERSARIAL.items() if name != "jokers"]
    for i in range(n):
        decks, ace_high = rng.choice((2, 2, 3)), rng.choice(ACE_RULES)
        rules = dict(decks=decks, ace_high=bool(ace_high), jokers_per_meld=1)
        if i % 3 == 0:
            table, hand = rng.choice(gens)(rng, rules)
        else:
            table = rand_table(rng, rng.randint(0, 70), rules, 0)
            hand = rand_hand(rng, table, decks, rng.randint(1, 26), near_p=rng.random())
        yield decks, ace_high, counts(table) + counts(hand)


def test_a_rejected_union_has_no_partition_by_the_exact_solver():
    rejected = 0
    for decks, ace_high, cnt in _positions(2, 3000):
        if split_impossible_counts(cnt, ace_high):
            rejected += 1
            assert not solver_splits(cnt, decks, ace_high), (cnt.nonzero(), ace_high)
    assert rejected > 500


def test_unions_of_melds_are_never_rejected():
    # tables are unions of valid melds: every one splits (the hand left out)
    rng = random.Random(3)
    for _ in range(3000):
        decks, ace_high = rng.choice((2, 3)), rng.choice(ACE_RULES)
        rules = dict(decks=decks, ace_high=bool(ace_high), jokers_per_meld=1)
        table = rand_table(rng, rng.randint(3, 104), rules, 0,
                           lengths=(3, 3, 4, 5, 6, 7, 9, 12, 13, 14))
        assert not split_impossible_counts(counts(table), ace_high), (table, ace_high)


@pytest.mark.parametrize("text,ace_high,impossible", [
    ("5H 5H 5S 5D", 1, True),                     # a group takes one 5H at most
    ("5H 5H 5S 5D 4H 6H", 1, False),              # 4H 5H 6H and the group
    ("QS KS AS", 1, False), ("QS KS AS", 0, True),  # the ace high, only where allowed
    ("KS AS 2S", 1, True),                        # no run wraps
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 1, False),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 2, False),   # laid as two runs
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 0, True),
    ("3S 4S 5S 6S 7S 5H 5D 5C 5C", 1, True),      # the group steals 5S once, two 5C left
    ("3S 4S 5S 6S 7S 8S 5H 5D", 1, True),         # the group's 5S leaves 3S 4S alone
    ("3S 4S 5S 6S 7S 8S 5H 5D 5S", 1, False),     # ... unless a second 5S joins it
    ("2S 3S 4S 2S 3S 4S 2S 3S 4S", 1, False),     # three decks of one run
    ("2H 2S 2D 2C 2H 2S 2D 2C 2H", 1, False),     # three groups, each with a 2H
    ("2H 2S 2D 2H 2S 2H", 1, True),               # three 2H need three groups: 9 cards
])
def test_known_unions(text, ace_high, impossible):
    cnt = counts(cards(text))
    assert split_impossible_counts(cnt, ace_high) == impossible
    assert brute_splits(cnt, ace_high) == (not impossible)


def test_a_union_with_a_joker_is_never_rejected():
    cnt = counts(cards("5H 5H 5S 5D"))
    cnt[JOKER] = 1
    assert not split_impossible_counts(cnt, 1)


@pytest.mark.parametrize("rules", ["classic(match=single)", "ace-low(match=single)"])
def test_a_rejected_game_union_has_no_partition_by_the_exact_solver(rules):
    r, positions = game_positions(rules, ["strong", "expert", "expert", "expert"], 6, 3)
    ace_high = 0 if r.ace == "low-only" else 1
    rejected = 0
    for st in positions:
        cnt = counts([]) + st._hands[st.current_player].astype(np.uint8)
        for m in st._melds:
            cnt += counts(m)
        if split_impossible_counts(cnt, ace_high):
            rejected += 1
            assert not solver_splits(cnt, r.decks, ace_high)
    assert rejected > 100


@pytest.mark.parametrize("rules", ["classic", "jokers", "ace-low", "italian",
                                   "classic(match=single)"])
def test_strong_games_are_the_same_without_the_split_reject(rules, tmp_path):
    # every move of every game (the logs) and every row, with the reject and without
    lineup = ["strong", "expert", "strong", "expert"]
    out = []
    for on in (1, 0):
        log = tmp_path / f"{on}.jsonl"
        _split_reject._set_enabled(on)
        try:
            games, hands = play_games(rules, lineup, 4, range(40), hands=True, log=log)
        finally:
            _split_reject._set_enabled(1)
        cols = [c for c in games.columns if "time" not in c]
        out.append((games[cols], hands, log.read_text()))
    assert out[0][0].equals(out[1][0]) and out[0][1].equals(out[1][1])
    assert out[0][2] == out[1][2]
