"""Pure-Python reference of the canonical arrangement (docs/solver.md, "Which melds: the
canonical arrangement"): the melds the solver returns for the cards an answer uses.

The rule: take the first card left in the tie-break's order (``brute.KEY_ORDER``: 2S 2H 2D
2C 3S ... KC AS AH AD AC); of the melds that hold it, made of the cards and jokers left,
take the first by ``meld_key`` after which the cards left still split into melds whose
jokers weigh what the value leaves them; repeat until no card is left. ``meld_key``: runs
before groups; a longer run first; of one length the one starting lower; of one window,
position by position from its low end, a real card before a joker; groups of four before
three, fewer jokers first, then the other suits held as a sorted list, the smaller first.

A run lists its cards from its low end (position 1, the low ace, up to 14, the high ace),
each joker standing for its position; a group its real cards by suit, then its jokers
standing for the missing suits in the order S H D C. A joker weighs ``joker_w`` of the
value it stands for (a run's position; a group's rank, aces at 14 when aces may be high).

Independent of the solver on purpose: the candidate melds come from blind enumeration
(every window of positions with every set of joker positions that holds each position
whose card is not left, every set of suits with every number of jokers), are kept when
the cards are left and ``fastmach.core.validate`` accepts them, and are sorted by
``meld_key``; the search is a memoised depth-first search.
"""
from __future__ import annotations

import itertools
from typing import Sequence

from fastmach.core.validate import is_valid_meld
from tests.refs.brute import JOKER, KEY_ORDER, NCARD

Entry = tuple[int, int]   # (card id or JOKER, the card it stands for)


def _pos_card(suit: int, q: int) -> int:
    """The card of ``suit`` at run position q (1..14, 14 the high ace)."""
    return suit * 13 + (q - 1) % 13


def candidates(c: int, counts: Sequence[int], *, ace_high: bool, jokers_per_meld: int,
               ace_both_ends: bool, joker_w: Sequence[int]) -> list[tuple[tuple, list[int],
                                                                           list[int], int]]:
    """Every meld holding real card ``c`` drawn from ``counts``: (meld_key, cards, stands,
    the weight of its jokers), sorted by meld_key."""
    suit, q0 = divmod(c, 13)
    jleft = counts[JOKER]
    jmax = jleft if jokers_per_meld == 0 else min(jleft, jokers_per_meld)
    top = 14 if ace_high else 13
    out = []
    for lo in range(1, top + 1):
        for hi in range(lo + 2, top + 1):
            if hi - lo == 13 and not ace_both_ends:
                continue
            window = list(range(lo, hi + 1))
            if c not in (_pos_card(suit, q) for q in window):
                continue
            # (a position whose card is not left takes a joker; the others either)
            gaps = [q for q in window if counts[_pos_card(suit, q)] == 0]
            free = [q for q in window if q not in gaps]
            for k in range(len(gaps), jmax + 1):
                for extra in itertools.combinations(free, k - len(gaps)):
                    jpos = set(gaps) | set(extra)
                    cards = [JOKER if q in jpos else _pos_card(suit, q) for q in window]
                    if c not in cards or not _left(cards, counts):
                        continue
                    if not is_valid_meld(cards, ace_high=ace_high,
                                         jokers_per_meld=jokers_per_meld,
                                         ace_both_ends=ace_both_ends):
                        continue
                    fill = tuple(int(q in jpos) for q in window)
                    stands = [_pos_card(suit, q) for q in window]
                    out.append(((0, -len(window), lo, fill), cards, stands,
                                sum(joker_w[q] for q in jpos)))
    gv = (14 if ace_high else 1) if q0 == 0 else q0 + 1
    for n in range(1, 5):
        for suits in itertools.combinations(range(4), n):
            if suit not in suits:
                continue
            for k in range(jmax + 1):
                if not 3 <= n + k <= 4:
                    continue
                real = [t * 13 + q0 for t in suits]
                cards = real + [JOKER] * k
                if not _left(cards, counts) or not is_valid_meld(
                        cards, ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                        ace_both_ends=ace_both_ends):
                    continue
                missing = [t * 13 + q0 for t in range(4) if t not in suits][:k]
                out.append(((1, -(n + k), k, suits), cards, real + missing, k * joker_w[gv]))
    out.sort(key=lambda x: x[0])
    return out


def _left(cards: list[int], counts: Sequence[int]) -> bool:
    need = [0] * NCARD
    for x in cards:
        need[x] += 1
    return all(need[x] <= counts[x] for x in set(cards))


def arrange(used: Sequence[int], value: int, *, ace_high: bool, jokers_per_meld: int,
            ace_both_ends: bool = True, card_w: Sequence[int] | None = None,
            joker_w: Sequence[int] | None = None) -> tuple[list[list[int]],
                                                          list[list[int]]] | None:
    """(melds, stands) of the canonical arrangement of the cards ``used`` (53 counts)
    whose weight is ``value``, or None when they have none of that weight. card_w: 53
    weights (default 1), joker_w: 16 by value stood for (default card_w[52])."""
    w = [1] * NCARD if card_w is None else [int(x) for x in card_w]
    jw = [w[JOKER]] * 16 if joker_w is None else [int(x) for x in joker_w]
    counts = [int(x) for x in used]
    need = value - sum(w[c] * counts[c] for c in range(JOKER))
    failed: set[tuple[tuple[int, ...], int]] = set()

    def run(counts: list[int], need: int) -> list[tuple[list[int], list[int]]] | None:
        first = next((c for c in KEY_ORDER if counts[c]), None)
        if first is None:
            return [] if counts[JOKER] == 0 and need == 0 else None
        key = (tuple(counts), need)
        if key in failed:
            return None
        for _, cards, stands, jweight in candidates(
                first, counts, ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                ace_both_ends=ace_both_ends, joker_w=jw):
            for x in cards:
                counts[x] -= 1
            sub = run(counts, need - jweight)
            for x in cards:
                counts[x] += 1
            if sub is not None:
                return [(cards, stands)] + sub
        failed.add(key)
        return None

    found = run(counts, need)
    if found is None:
        return None
    return [m for m, _ in found], [s for _, s in found]
