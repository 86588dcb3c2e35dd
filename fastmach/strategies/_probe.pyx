# Test hooks for the compiled strategies (never used by a game): the intermediate's plain
# search (the reference its bounded search is tested against), an intermediate that always
# regroups with the solver (the reference of the small search), and probes of its parts.
import numpy as np

from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.string cimport memset, memcpy

from fastmach.core._solver cimport NCARD, JOKER
from fastmach.game._turn cimport ERules, HState, Decision, placed_weight, set_draw, wit_clear
from fastmach.strategies._base cimport Masks, masks_add, finish_play
from fastmach.strategies._intermediate cimport Intermediate


cdef class PlainIntermediate(Intermediate):
    """The intermediate by the plain search of its definition (no bounds)."""

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        set_draw(d)
        finish_play(self.ctx, self.intermediate_plain(st, self.k, hand, w, jw, d), d)

    cdef int64_t intermediate_plain(self, HState* st, int k, const uint8_t* hand,
                                    const int32_t* w, const int32_t* jw, Decision* d) noexcept nogil:
        """The plain search (no bounds), in the order of its definition: the reference the
        bounded search is tested against (PlainIntermediate)."""
        cdef const ERules* R = self.R
        cdef int64_t best, bound, v
        cdef int n = st.wit.n_melds, i, m, c, prune, ns
        cdef int idx[3]
        cdef Masks hm
        # stop early once the whole hand is placed (a later set replaces the best only
        # when strictly better)
        bound = placed_weight(hand, w, jw)
        best = self.regroup(st, NULL, 0, hand, w, jw, d)   # the beginner's play
        if best < 0 or best >= bound or n == 0:
            return best
        prune = hand[JOKER] == 0 and st.table[JOKER] == 0
        if prune:
            memset(&hm, 0, sizeof(Masks))
            for c in range(JOKER):
                if hand[c]:
                    masks_add(&hm, c, R.srules.ace_high)
            for m in range(n):
                memset(&self.mmask[m], 0, sizeof(Masks))
                for i in range(st.wit.start[m], st.wit.start[m + 1]):
                    masks_add(&self.mmask[m], st.wit.cards[i], R.srules.ace_high)
        # every set of 1..k melds, in the order {0}, {0,1}, {0,1,2}, ..., {0,2}, ..., {1}, ...
        ns = 1
        idx[0] = 0
        while ns > 0:
            if not prune or self.connected(st, idx, ns, &hm, hand):
                v = self.regroup(st, idx, ns, hand, w, jw, &self.cand)
                if v < -1:
                    return v
                self.n_regroups += 1
                if v > best:
                    best = v
                    memcpy(d, &self.cand, sizeof(Decision))
                    if best >= bound:
                        return best
            if ns < k and idx[ns - 1] + 1 < n:
                idx[ns] = idx[ns - 1] + 1
                ns += 1
            else:
                while ns > 0:
                    idx[ns - 1] += 1
                    if idx[ns - 1] < n:
                        break
                    ns -= 1
        return best


cdef class SolverIntermediate(Intermediate):
    """The intermediate whose regroups always solve with the solver (no small search)."""

    cdef int small_regroup(self, const uint8_t* hand, const int32_t* w,
                           uint8_t* placed) noexcept nogil:
        return 0


def small_mixed_value(Intermediate self, table, hand, int objective=0):
    """The small exact search behind the intermediate's bounds (for tests): the most
    weight of `hand` cards (at most SMALL_R = 8, no jokers) placed with every card of `table` (a
    union of melds) in valid melds; None when it is too large for the small search."""
    cdef int c
    cdef int64_t v
    for c in range(JOKER):
        self.tmv[c] = table[c]
        self.rset[c] = hand[c]
    if objective:
        v = self.small_mixed(self.R.pw)
    else:
        v = self.small_mixed(self.R.ones)
    return None if v == -2 else v


def related_cards(Intermediate self, hand, cards):
    """The hand cards (counts, no jokers) related to the table cards `cards` in the pool
    of both (the intermediate's related_weight; for tests): a numpy count array."""
    cdef Masks hm, tm
    cdef int c
    cdef uint8_t hk[NCARD]
    memset(&hm, 0, sizeof(Masks))
    memset(&tm, 0, sizeof(Masks))
    memset(hk, 0, NCARD)
    self.nhl = 0
    for c in range(JOKER):
        hk[c] = hand[c]
        if hand[c]:
            masks_add(&hm, c, self.R.srules.ace_high)
            self.hl[self.nhl] = c
            self.nhl += 1
    for c in cards:
        masks_add(&tm, c, self.R.srules.ace_high)
    self.related_weight(hk, self.R.ones, &hm, &tm)
    return np.array([self.rset[c] if c < JOKER and hk[c] else 0 for c in range(NCARD)],
                    dtype=np.uint8)


def regroup_position(Intermediate self, hand, table_melds, idx):
    """regroup() of the melds idx (no jokers) with the hand (53 counts), cards objective,
    after the hand-only solve as in a decision: (the solver part's value, its new
    melds, whether the small search made them). For tests."""
    cdef HState pos
    cdef Decision dec
    cdef HState* st = &pos
    cdef Decision* d = &dec
    cdef uint8_t h[NCARD]
    cdef int ix[3]
    cdef int i = 0, m, c, ns = len(idx)
    cdef long long before
    memset(st, 0, sizeof(HState))
    wit_clear(&st.wit)
    for c in range(NCARD):
        h[c] = hand[c]
    for m, meld in enumerate(table_melds):
        for c in meld:
            st.wit.cards[i] = c
            st.wit.stands[i] = c
            st.table[c] += 1
            i += 1
        st.wit.start[m + 1] = i
    st.wit.n_melds = len(table_melds)
    for i in range(ns):
        ix[i] = idx[i]
    self.regroup(st, NULL, 0, h, self.R.ones, self.R.ones_j, d)
    before = self.n_small
    if self.regroup(st, ix, ns, h, self.R.ones, self.R.ones_j, d) < 0:
        raise RuntimeError("regroup failed")
    melds = [[self.tmpwit.cards[i] for i in range(self.tmpwit.start[m], self.tmpwit.start[m + 1])]
             for m in range(self.tmpwit.n_melds)]
    return int(self.last_vs), melds, self.n_small > before
