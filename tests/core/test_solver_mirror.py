"""The solver sweeps hands heavy in high ranks on the mirrored position (rank r -> 15 - r
with aces high, 14 - r with aces low only) and maps the melds back.

Mirroring a position flips which way the solver goes, so solving a position and its
mirror image compares the two directions: same best total, and both partitions valid
for their own position, with the weights (joker weights by the value they stand for)
mirrored too.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.core.validate import check_partition
from tests.positions import (JOKER, NCARD, RULES_GRID, counts, listing, mirrored_by_rule,
                             rand_hand, rand_table, text)


def _rank_map(ace_high: bool) -> list[int]:
    """mp[c]: the card c becomes on the mirrored position (jokers stay jokers)."""
    mp = []
    for c in range(52):
        s, r = divmod(c, 13)
        m = (1 if r == 0 else 14 - r) if ace_high else 13 - r
        mp.append(s * 13 + m - 1)
    return mp + [JOKER]


def _solve(table, hand, rules, w, jw):
    total, placed, melds, stands = _solver.solve_counts(
        counts(table), counts(hand), rules["decks"], rules["ace_high"],
        rules["jokers_per_meld"], w, jw, True)
    assert total >= 0
    check_partition(melds, list(table) + listing(placed), **rules)
    for m, st in zip(melds, stands):     # runs listed in ascending order, as documented
        if len(set(x % 13 for x in st)) > 1:
            ranks = [x % 13 + 1 for x in st]
            if ranks[-1] == 1 and len(ranks) > 1 and ranks[-2] == 13:
                ranks[-1] = 14
            assert ranks == sorted(ranks), (text(m), ranks)
    return int(total), listing(placed)


@pytest.mark.parametrize("rules", RULES_GRID, ids=lambda r: f"d{r['decks']}-{'high' if r['ace_high'] else 'low'}-{'j1' if r['jokers_per_meld'] else 'jinf'}")
def test_mirrored_position_has_the_same_best_total(rules):
    rng = random.Random(f"mirror-{rules}")
    mp = _rank_map(rules["ace_high"])
    flipped = 0
    for trial in range(150):
        table = rand_table(rng, rng.randint(0, 30), rules, max_jokers=rng.choice((0, 1, 2)))
        k = table.count(JOKER)
        hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 9),
                         jokers=rng.choice((0, 0, 1)) if k < 3 else 0)
        w = np.array([rng.randint(1, 12) for _ in range(NCARD)], dtype=np.int32)
        jw = np.array([rng.randint(1, 25) for _ in range(16)], dtype=np.int32)
        jw[14] = jw[1]     # a joker in a group of aces may count as either end
        wm = np.zeros(NCARD, dtype=np.int32)
        wm[mp] = w
        jwm = jw.copy()
        top = 15 if rules["ace_high"] else 14
        for v in range(1, top):
            jwm[top - v] = jw[v]
        got = _solve(table, hand, rules, w, jw)
        mirrored = _solve([mp[c] for c in table], [mp[c] for c in hand], rules, wm, jwm)
        assert got[0] == mirrored[0], (rules, text(table), text(hand))
        # the solver's own choice of direction (tests/core/test_solver_direction.py)
        flipped += mirrored_by_rule(counts(table), counts(hand), w, rules["ace_high"])
    assert 20 <= flipped <= 130     # both directions were exercised
