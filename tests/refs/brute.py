"""Exhaustive pure-Python reference: obviously correct, only for small positions.

``partition``: take the lowest real card left, try every valid meld containing it drawn
from the remaining multiset, recurse; memoised on the remaining multiset.
``solve``: try the sub-multisets of the hand, heaviest first; the first one whose union with
the table can be partitioned is optimal. Meant for tables of ~12 cards and hands of ~6.
``canonical``: every sub-multiset of the hand whose union with the table can be partitioned,
and of those of the best weight the one the solver's tie-break names (``canonical_key``),
chosen by plain comparison of the count vectors, independently of the solver's key.

Every candidate meld is confirmed by ``fastmach.core.validate.is_valid_meld`` (the single
statement of the meld rules); the generator only has to be complete, and
``tests/core/test_refs.py`` checks it against blind subset enumeration.
"""
from __future__ import annotations

import itertools
from collections import Counter
from typing import Sequence

from fastmach.errors import FastmachError
from fastmach.core.validate import is_valid_meld

JOKER = 52
NCARD = 53
Meld = tuple[int, ...]


def _counts(cards: Sequence[int], what: str) -> list[int]:
    counts = [0] * NCARD
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NCARD:
            raise FastmachError(f"{what}: {c!r} is not a card id (0..52)")
        counts[c] += 1
    return counts


def _check_rules(decks: int, ace_high: bool, jokers_per_meld: int) -> None:
    if decks not in (2, 3):
        raise FastmachError(f"decks must be 2 or 3, got {decks!r}")
    if jokers_per_meld not in (0, 1):
        raise FastmachError(f"jokers_per_meld must be 1 or 0, got {jokers_per_meld!r}")


def melds_containing(c: int, counts: Sequence[int], *, ace_high: bool,
                     jokers_per_meld: int, ace_both_ends: bool = True) -> list[Meld]:
    """Every valid meld (sorted tuple) holding real card ``c``, drawn from ``counts``."""
    assert c != JOKER and counts[c] > 0
    jmax = counts[JOKER] if jokers_per_meld == 0 else min(counts[JOKER], jokers_per_meld)
    suit, q = divmod(c, 13)
    found: set[Meld] = set()
    # groups: c, some other suits of its rank, some jokers; 3 or 4 cards
    others = [t * 13 + q for t in range(4) if t != suit and counts[t * 13 + q] > 0]
    for size in range(len(others) + 1):
        for chosen in itertools.combinations(others, size):
            for k in range(jmax + 1):
                if 3 <= 1 + size + k <= 4:
                    found.add(tuple(sorted((c, *chosen) + (JOKER,) * k)))
    # runs: a window lo..hi of positions (A=1, and 14 for an ace when ace_high) holding c at
    # one of its positions; every other position gets its real card or a joker
    top = 14 if ace_high else 13
    positions = [q + 1] + ([14] if q == 0 and ace_high else [])

    def fill(window: list[int], i: int, used: Counter, jokers: int, acc: list[int]) -> None:
        if i == len(window):
            found.add(tuple(sorted(acc)))
            return
        card = suit * 13 + (window[i] - 1) % 13
        if used[card] < counts[card]:
            used[card] += 1
            fill(window, i + 1, used, jokers, acc + [card])
            used[card] -= 1
        if jokers < jmax:
            fill(window, i + 1, used, jokers + 1, acc + [JOKER])

    for pc in positions:
        for lo in range(1, pc + 1):
            for hi in range(max(pc, lo + 2), top + 1):
                if hi - lo == 13 and not ace_both_ends:
                    continue   # A 2 ... K A: an ace low and high at once
                window = [p for p in range(lo, hi + 1) if p != pc]
                fill(window, 0, Counter({c: 1}), 0, [c])
    out = sorted(found)
    for meld in out:
        if not is_valid_meld(meld, ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                             ace_both_ends=ace_both_ends):
            raise AssertionError(f"brute generated an invalid meld {meld}")
    return out


class _Search:
    """Partition search for fixed rules, memoised on the remaining multiset."""

    def __init__(self, ace_high: bool, jokers_per_meld: int, ace_both_ends: bool = True):
        self.ace_high = ace_high
        self.ace_both_ends = ace_both_ends
        self.jokers_per_meld = jokers_per_meld
        self.memo: dict[tuple[int, ...], tuple[Meld, ...] | None] = {}

    def run(self, counts: tuple[int, ...]) -> tuple[Meld, ...] | None:
        if counts in self.memo:
            return self.memo[counts]
        result: tuple[Meld, ...] | None = None
        first = next((c for c in range(JOKER) if counts[c]), None)
        if first is None:
            result = () if counts[JOKER] == 0 else None   # leftover jokers cannot meld
        else:
            for meld in melds_containing(first, counts, ace_high=self.ace_high,
                                         jokers_per_meld=self.jokers_per_meld,
                                         ace_both_ends=self.ace_both_ends):
                rest = list(counts)
                for x in meld:
                    rest[x] -= 1
                sub = self.run(tuple(rest))
                if sub is not None:
                    result = (meld,) + sub
                    break
        self.memo[counts] = result
        return result


def partition(cards: Sequence[int], *, decks: int, ace_high: bool,
              jokers_per_meld: int, ace_both_ends: bool = True) -> list[list[int]] | None:
    """Melds using exactly ``cards`` (each meld sorted), or None when impossible."""
    _check_rules(decks, ace_high, jokers_per_meld)
    counts = _counts(cards, "cards")
    found = _Search(ace_high, jokers_per_meld, ace_both_ends).run(tuple(counts))
    return None if found is None else [list(m) for m in found]


def solve(table: Sequence[int], hand: Sequence[int], *, decks: int, ace_high: bool,
          jokers_per_meld: int, card_w: Sequence[int] | None = None,
          ace_both_ends: bool = True) -> tuple[int, list[int], list[list[int]]] | None:
    """Heaviest ``placed`` ⊆ hand such that table + placed can be partitioned into melds.

    Returns ``(weight of placed, placed (sorted), melds)``, or None when the table alone
    cannot be partitioned. ``card_w``: 53 ints (default 1 each = most cards).
    """
    _check_rules(decks, ace_high, jokers_per_meld)
    w = [1] * NCARD if card_w is None else [int(x) for x in card_w]
    if len(w) != NCARD:
        raise FastmachError(f"card_w must hold {NCARD} weights, got {len(w)}")
    tcount = _counts(table, "table")
    hcount = _counts(hand, "hand")
    for c in range(JOKER):
        if tcount[c] + hcount[c] > decks:
            raise FastmachError(f"card id {c}: {tcount[c] + hcount[c]} copies, decks={decks}")
    search = _Search(ace_high, jokers_per_meld, ace_both_ends)
    if search.run(tuple(tcount)) is None:
        return None
    kinds = [c for c in range(NCARD) if hcount[c]]
    choices = []
    for ks in itertools.product(*(range(hcount[c] + 1) for c in kinds)):
        placed = [c for c, k in zip(kinds, ks) for _ in range(k)]
        choices.append((-sum(w[c] for c in placed), -len(placed), placed))
    choices.sort()
    for neg_w, _, placed in choices:
        counts = list(tcount)
        for c in placed:
            counts[c] += 1
        melds = search.run(tuple(counts))
        if melds is not None:
            return -neg_w, placed, [list(m) for m in melds]
    raise AssertionError("unreachable: the empty placement is always feasible here")


#: the tie-break's order of the real cards: by rank 2, 3, ..., K, then the aces; within a
#: rank spades, hearts, diamonds, clubs
KEY_ORDER = [s * 13 + r for r in list(range(1, 13)) + [0] for s in range(4)]


def canonical_key(placed: Sequence[int]) -> tuple[int, ...]:
    """The documented tie-break (docs/solver.md): the placed cards as copies per card in
    KEY_ORDER (2S 2H 2D 2C 3S ... KC AS AH AD AC), then the jokers; of two placements of
    equal weight the lexicographically greater tuple wins (the table's cards are the same
    in both)."""
    counts = [0] * NCARD
    for c in placed:
        counts[c] += 1
    return tuple(counts[c] for c in KEY_ORDER) + (counts[JOKER],)


def canonical(table: Sequence[int], hand: Sequence[int], *, decks: int, ace_high: bool,
              jokers_per_meld: int, card_w: Sequence[int] | None = None,
              ace_both_ends: bool = True) -> tuple[int, list[int], int] | None:
    """``(weight, placed, ties)`` of the canonical answer: the best weight, then the
    greatest ``canonical_key`` among the placements of that weight (``ties`` of them),
    found by trying every sub-multiset of the hand; None when the table alone cannot be
    partitioned."""
    _check_rules(decks, ace_high, jokers_per_meld)
    w = [1] * NCARD if card_w is None else [int(x) for x in card_w]
    tcount = _counts(table, "table")
    hcount = _counts(hand, "hand")
    search = _Search(ace_high, jokers_per_meld, ace_both_ends)
    if search.run(tuple(tcount)) is None:
        return None
    kinds = [c for c in range(NCARD) if hcount[c]]
    best: tuple[int, tuple[int, ...]] | None = None
    best_placed: list[int] = []
    ties = 0
    for ks in itertools.product(*(range(hcount[c] + 1) for c in kinds)):
        placed = [c for c, k in zip(kinds, ks) for _ in range(k)]
        rank = (sum(w[c] for c in placed), canonical_key(placed))
        if best is not None and rank[0] < best[0]:
            continue
        counts = list(tcount)
        for c in placed:
            counts[c] += 1
        if search.run(tuple(counts)) is None:
            continue
        if best is None or rank[0] > best[0]:
            ties = 0
        ties += 1
        if best is None or rank > best:
            best, best_placed = rank, placed
    assert best is not None
    return best[0], sorted(best_placed), ties
