# The intermediate: the best regroup of at most k table melds, with exact bounds that skip
# the sets which cannot beat the best so far, and the caches they read.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
cimport cython

from fastmach.core._cardset cimport cs_popcount, cs_ctz
from fastmach.core._solver cimport Witness, NCARD, JOKER, MAX_MELDS
from fastmach.game._turn cimport ERules, HState, Decision, placed_weight, set_draw, total
from fastmach.strategies._base cimport (Context, finish_play, Masks, masks_add, related,
                                        can_share, seg_closure, seg_of, meld_cards)
from fastmach.strategies._beginner cimport SMALL_R


cdef class Intermediate(Beginner):

    def __init__(self, Context ctx, int k=2):
        Beginner.__init__(self, ctx)
        if not 1 <= k <= 3:
            raise ValueError("intermediate: k must be 1..3")
        self.k = k

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        """The best regroup of at most k table melds (see intermediate)."""
        set_draw(d)
        finish_play(self.ctx, self.intermediate(st, self.k, hand, w, jw, d), d)

    @cython.final
    cdef int connected(self, HState* st, const int* idx, int ns, const Masks* hm,
                       const uint8_t* hand) noexcept nogil:
        """Whether every meld of idx is linked to the hand by 'could share a meld' in the
        pool of their cards and the hand (_base.pxd's related(); a meld not linked to the
        hand cannot take a hand card, so the pruning loses nothing)."""
        cdef Masks pool
        cdef int reach[4]
        cdef int i, j, s, changed
        pool = hm[0]
        for i in range(ns):
            pool.ranks |= self.mmask[idx[i]].ranks
            for s in range(4):
                pool.suit[s] |= self.mmask[idx[i]].suit[s]
        for i in range(ns):
            reach[i] = related(hm, &self.mmask[idx[i]], &pool)
        changed = 1
        while changed:
            changed = 0
            for i in range(ns):
                if reach[i]:
                    continue
                for j in range(ns):
                    if reach[j] and related(&self.mmask[idx[j]], &self.mmask[idx[i]], &pool):
                        reach[i] = 1
                        changed = 1
                        break
        for i in range(ns):
            if not reach[i]:
                return 0
        return 1

    @cython.final
    cdef int64_t intermediate(self, HState* st, int k, const uint8_t* hand, const int32_t* w,
                              const int32_t* jw, Decision* d) noexcept nogil:
        """Best over every set of <= k table melds (connected to the hand) of regroup(): the
        largest value, the earliest set in the order {0}, {0,1}, {0,1,2}, {0,2}, ..., {1},
        ... among equals (the beginner's play, the empty set, first of all).

        Sets are tried by size (every single meld, then every pair, then every triple) and
        compared by (value, place in that order), so the winner is the same as in the plain
        search (intermediate_plain). A set is skipped when an upper bound on its value
        (set_bound, cheap ones first) cannot beat the best so far: exact, it
        never changes the play."""
        cdef const ERules* R = self.R
        cdef int64_t best, total_w, v, ub, sb
        cdef int64_t best_key = 0, key
        cdef int n = st.wit.n_melds, i, j, l, c, prune, bounded, top
        cdef int idx[3]
        cdef Masks hm
        total_w = placed_weight(hand, w, jw)
        best = self.regroup(st, NULL, 0, hand, w, jw, d)   # the beginner's play
        if best < 0 or best >= total_w or n == 0:
            return best
        prune = hand[JOKER] == 0 and st.table[JOKER] == 0
        # the bounds need a hand without jokers (a joker relates any cards); the hand-only
        # value V0 is the solver's part of the beginner's play (last_vs)
        bounded = hand[JOKER] == 0
        memset(&hm, 0, sizeof(Masks))
        for c in range(JOKER):
            if hand[c]:
                masks_add(&hm, c, R.srules.ace_high)
        for i in range(n):
            memset(&self.mmask[i], 0, sizeof(Masks))
            self.mjok[i] = 0
            self.msuits[i] = 0
            self.mkey[i][0] = self.mkey[i][1] = 0
            for j in range(st.wit.start[i], st.wit.start[i + 1]):
                c = st.wit.cards[j]
                self.mkey[i][c >> 5] += (<uint64_t>1) << (2 * (c & 31))
                if st.wit.cards[j] == JOKER:
                    self.mjok[i] = 1
                else:
                    masks_add(&self.mmask[i], st.wit.cards[j], R.srules.ace_high)
                    self.msuits[i] |= 1 << (st.wit.cards[j] // 13)
        if bounded:
            self.bound_setup(st, hand, w, &hm)
        top = k if k < n else n
        for l in range(1, top + 1):
            if l == 2 and bounded and k == 2:
                v = self.pairs_k2(st, hand, w, jw, &hm, total_w, prune, &best, &best_key, d)
                if v < -1:
                    return v
                continue
            # every set of l melds, in lexicographic order
            for i in range(l):
                idx[i] = i
            while True:
                key = 0
                for i in range(3):
                    key = key * 65 + (idx[i] + 1 if i < l else 0)
                ub = total_w
                if bounded and l == 1 and not self.mjok[idx[0]]:
                    # a single, cheap first: its solver bound and lay-off cap, or its
                    # related cards and the lay-off chains' cards, each copy once
                    ub = self.vs1[idx[0]] + self.lc1[idx[0]]
                    sb = self.v0 + self.mask_weight(self.r1mask[idx[0]] | self.cmask, hand, w)
                    if sb < ub:
                        ub = sb
                    if not (ub < best or (ub == best and key > best_key)):
                        ub = total_w
                if bounded and l == 2:
                    ub = self.pair_ub(st, idx, hand, w, jw, &hm, total_w, best, key,
                                      best_key, self.loose_pair(idx[0], idx[1]))
                elif bounded and ub == total_w:
                    ub = self.set_bound(st, idx, l, hand, w, jw, &hm, total_w, best,
                                        key < best_key)
                if ub < best or (ub == best and key > best_key):
                    self.n_bounded += 1
                elif not prune or self.connected(st, idx, l, &hm, hand):
                    v = self.regroup(st, idx, l, hand, w, jw, &self.cand)
                    if v < -1:
                        return v
                    self.n_regroups += 1
                    if bounded:
                        self.store_vs(idx, l, self.last_vs)
                    if v > best or (v == best and key < best_key):
                        best = v
                        best_key = key
                        memcpy(d, &self.cand, sizeof(Decision))
                # next set of l melds
                i = l - 1
                while i >= 0 and idx[i] == n - l + i:
                    i -= 1
                if i < 0:
                    break
                idx[i] += 1
                for j in range(i + 1, l):
                    idx[j] = idx[j - 1] + 1
        return best

    @cython.final
    cdef int64_t pairs_k2(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const int32_t* jw, const Masks* hm, int64_t total_w, int prune,
                          int64_t* best, int64_t* best_key, Decision* d) noexcept nogil:
        """The pairs of intermediate's bounded search when k = 2 (no triples: no vs2 is
        needed), row by row (pairs of a with later melds b). The loose pairs of a row
        (loose_pair) are skipped together when the row's bound says so: their solver value
        is at most min(vs1[a], V0 + m1[a]) + m1[b] (loose_bound) and their lay-offs at most
        lc1[a], with m1[b] at most the row's largest. Then only the pairs that may share a
        meld (inter[a], bit b) are looked at, each as in intermediate(). Which pairs are
        skipped, and in what order the others come, never changes the play: every pair
        that is looked at is compared with (value, key), every pair skipped cannot win.
        Returns 0, or a solver error."""
        cdef int n = st.wit.n_melds, a, b, s, r, p, row_ok
        cdef int idx[2]
        cdef int64_t ub, v, key, rb
        cdef int64_t msuf[MAX_MELDS + 1]
        cdef uint64_t rk[13]
        cdef uint64_t sp[4][16]
        cdef uint64_t inter, jm = 0, x, y
        # who may share a meld with whom: a common rank, or a card next to a segment
        memset(rk, 0, sizeof(rk))
        memset(sp, 0, sizeof(sp))
        for a in range(n):
            if self.mjok[a]:
                jm |= (<uint64_t>1) << a
            x = self.mmask[a].ranks
            while x:
                r = cs_ctz(x)
                x &= x - 1
                rk[r] |= (<uint64_t>1) << a
            for s in range(4):
                x = self.mmask[a].suit[s]
                while x:
                    p = cs_ctz(x)
                    x &= x - 1
                    sp[s][p] |= (<uint64_t>1) << a
        msuf[n] = 0
        for a in range(n - 1, -1, -1):
            msuf[a] = self.m1[a] if self.m1[a] > msuf[a + 1] else msuf[a + 1]
        for a in range(n - 1):
            if self.mjok[a]:
                inter = ~(<uint64_t>0)
            else:
                inter = jm
                x = self.mmask[a].ranks
                while x:
                    r = cs_ctz(x)
                    x &= x - 1
                    inter |= rk[r]
                for s in range(4):
                    x = self.mdil[a][s] & 0xFFFF
                    while x:
                        p = cs_ctz(x)
                        x &= x - 1
                        inter |= sp[s][p]
            # the row's bound on its loose pairs (their keys grow along the row)
            key = ((a + 1) * 65 + (a + 2)) * 65
            rb = self.vs1[a]
            if self.v0 + self.m1[a] < rb:
                rb = self.v0 + self.m1[a]
            rb += msuf[a + 1] + self.lc1[a]
            row_ok = rb < best[0] or (rb == best[0] and key > best_key[0])
            y = ~((((<uint64_t>1) << a) << 1) - 1)   # the later melds
            if n < 64:
                y &= ((<uint64_t>1) << n) - 1
            if row_ok:
                self.n_bounded += cs_popcount(y & ~inter)
                y &= inter
            while y:
                b = cs_ctz(y)
                y &= y - 1
                idx[0] = a
                idx[1] = b
                key = ((a + 1) * 65 + (b + 1)) * 65
                ub = self.pair_ub(st, idx, hand, w, jw, hm, total_w, best[0], key,
                                  best_key[0], not (inter >> b) & 1)
                if ub < best[0] or (ub == best[0] and key > best_key[0]):
                    self.n_bounded += 1
                elif not prune or self.connected(st, idx, 2, hm, hand):
                    v = self.regroup(st, idx, 2, hand, w, jw, &self.cand)
                    if v < -1:
                        return v
                    self.n_regroups += 1
                    if v > best[0] or (v == best[0] and key < best_key[0]):
                        best[0] = v
                        best_key[0] = key
                        memcpy(d, &self.cand, sizeof(Decision))
        return 0

    # ------------------------------------------------------------ intermediate: bounds
    # regroup(S) places hand cards three ways: in melds the solver builds with cards of S
    # ("mixed" melds), in melds of hand cards alone, and as lay-offs onto the intact melds.
    # - hand-only melds weigh at most V0, the hand-only optimum (the beginner's solve);
    # - a hand card in a mixed meld shares it with a card of S, so it is "related" to S
    #   (related_weight: same rank, another suit, >= 3 suits of that rank in the pool of S
    #   and the hand, for a group; a segment of >= 3 consecutive pool ranks of its suit
    #   holding a card of S at another place, for a run). The mixed melds are a play of the
    #   cards of S with related hand cards R alone, so they weigh at most the exact solve
    #   of S's cards with R (mixed_value; small, and cached), or R's weight;
    # - lay-offs take only cards of the chains that extend an intact meld (lay_cap); a copy
    #   is placed once, so V0 + (R or a chain card, copies counted once) bounds it all too.
    # Decomposition: when no meld of the pool of A, B and R can hold a card of A and a card
    # of B (can_share), each mixed meld holds cards of A or of B, not both: the mixed melds
    # of A+B weigh at most A's mixed value plus B's. And when no meld of the pool of A, B
    # and the whole hand can (related), the solver's melds split into those of A, those of
    # B and hand-only ones H; A's with H is a play for A alone, B's with H one for B alone,
    # so the solver's value of A+B is at most A's plus B's.


    @cython.final
    cdef void bound_setup(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const Masks* hm) noexcept nogil:
        """Per meld: the lay-off chains it offers the hand (capc; lc1: the lay-off cap
        with it dissolved), its related hand weight (the mixed bound m1, tightened later by
        the mixed value; its cards: rb1, r1mask), the solver-value bound vs1 = V0 + m1
        (replaced by the exact value once solved), and its cards' segments in it + the hand
        (mext; mdil one rank wider each way) for loose_pair and near_bound."""
        cdef int m, c, a, b, i, r0, isgroup, suits, u, s, p, lo, hi
        cdef uint32_t hb, hs, hx
        cdef int top = 14 if self.R.srules.ace_high else 13
        cdef Witness* W = &st.wit
        self.v0 = self.last_vs   # the beginner's solve: hand-only melds
        for s in range(4):
            self.hm_suit[s] = hm.suit[s]
        memset(self.capall, 0, sizeof(self.capall))
        memset(self.capt, 0, sizeof(self.capt))
        memset(self.rset, 0, NCARD)
        self.nhl = 0
        self.hc2 = self.hc3 = self.hmask = 0
        self.unit_w = 1
        for c in range(JOKER):
            if hand[c]:
                self.hl[self.nhl] = c
                self.nhl += 1
                if w[c] != 1:
                    self.unit_w = 0
                self.hmask |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
                if hand[c] >= 2:
                    self.hc2 |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
                if hand[c] >= 3:
                    self.hc3 |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
        for i in range(self.nhl):
            # ho: the card could be in a meld of hand cards (a group of >= 3 suits, a
            # segment of >= 3 consecutive ranks of its suit in the hand)
            c = self.hl[i]
            r0 = c % 13 + 1
            s = c // 13
            suits = 0
            for u in range(4):
                if hm.suit[u] & ((<uint32_t>1) << r0):
                    suits += 1
            self.ho[c] = suits >= 3
            hb = (<uint32_t>1) << r0
            while not self.ho[c] and hb:
                hs = seg_of(hm.suit[s], hb)
                hx = hs & (hs - 1)
                self.ho[c] = (hx & (hx - 1)) != 0
                hb = (<uint32_t>1) << 14 if (r0 == 1 and self.R.srules.ace_high
                                             and hb != (<uint32_t>1) << 14) else 0
        for m in range(W.n_melds):
            self.capn[m] = 0
            self.capup[m] = 0
            a = W.start[m]
            b = W.start[m + 1]
            r0 = W.stands[a] % 13
            isgroup = 1
            for i in range(a + 1, b):
                if W.stands[i] % 13 != r0:
                    isgroup = 0
            if isgroup:
                # a group of three takes a missing suit (layoff_fit)
                if b - a == 3:
                    suits = 0
                    for i in range(a, b):
                        suits |= 1 << (W.stands[i] // 13)
                    for u in range(4):
                        c = u * 13 + r0
                        if not (suits >> u) & 1 and hand[c]:
                            self.capc[m][self.capn[m]] = c
                            self.capn[m] += 1
            else:
                # a run takes the next cards up, then down, while the hand holds them
                s = W.stands[a] // 13
                lo = W.stands[a] % 13 + 1
                hi = W.stands[b - 1] % 13 + 1
                if hi == 1:
                    hi = 14
                p = hi + 1
                while p <= top and hand[s * 13 + (p - 1) % 13]:
                    self.capc[m][self.capn[m]] = s * 13 + (p - 1) % 13
                    self.capn[m] += 1
                    p += 1
                self.capup[m] = self.capn[m]
                p = lo - 1
                while p >= 1 and hand[s * 13 + p - 1]:
                    self.capc[m][self.capn[m]] = s * 13 + p - 1
                    self.capn[m] += 1
                    p -= 1
            for i in range(self.capn[m]):
                self.capall[self.capc[m][i]] += 1
        self.cmask = 0
        for c in range(JOKER):
            if self.capall[c] and hand[c]:
                self.cmask |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
        self.lay_all = 0
        for c in range(JOKER):
            self.lay_all += <int64_t>w[c] * (hand[c] if hand[c] < self.capall[c] else self.capall[c])
        for m in range(W.n_melds):
            for s in range(4):
                hb = seg_closure(hm.suit[s] | self.mmask[m].suit[s], self.mmask[m].suit[s])
                self.mext[m][s] = hb
                self.mdil[m][s] = hb | (hb << 1) | (hb >> 1)
            self.lc1[m] = self.lay_cap(&m, 1, hand, w) if self.capn[m] else self.lay_all
            self.r1mask[m] = 0
            if not (hm.ranks & self.mmask[m].ranks) and not (
                    (hm.suit[0] & self.mext[m][0]) | (hm.suit[1] & self.mext[m][1])
                    | (hm.suit[2] & self.mext[m][2]) | (hm.suit[3] & self.mext[m][3])):
                # no hand card of its ranks, none on its segments: nothing related
                self.m1[m] = 0
                self.rb1[m] = 0
            else:
                self.m1[m] = self.related_weight(hand, w, hm, &self.mmask[m])
                self.rb1[m] = self.rbits
                for i in range(self.nhl):
                    if (self.rbits >> i) & 1:
                        c = self.hl[i]
                        self.r1mask[m] |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
            self.vs1[m] = self.v0 + self.m1[m]
            self.mvdone[m] = self.m1[m] == 0   # nothing related: the mixed value is 0

    @cython.final
    cdef int64_t lay_cap(self, const int* idx, int ns, const uint8_t* hand,
                         const int32_t* w) noexcept nogil:
        """Most weight the lay-offs can place with the melds idx dissolved: every card of
        the intact melds' chains, as many copies as the hand holds and the chains take."""
        cdef int i, j, c, m, a, b
        cdef int64_t v = self.lay_all
        for i in range(ns):
            m = idx[i]
            for j in range(self.capn[m]):
                self.capt[self.capc[m][j]] += 1
        for i in range(ns):
            m = idx[i]
            for j in range(self.capn[m]):
                c = self.capc[m][j]
                if self.capt[c]:
                    a = hand[c] if hand[c] < self.capall[c] else self.capall[c]
                    b = self.capall[c] - self.capt[c]
                    b = hand[c] if hand[c] < b else b
                    v -= <int64_t>w[c] * (a - b)
                    self.capt[c] = 0
        return v

    @cython.final
    cdef int64_t union_bound(self, const int* idx, int ns, const uint8_t* hand,
                             const int32_t* w) noexcept nogil:
        """Every copy of a hand card in self.rset (related to the melds idx) or on an intact
        meld's lay-off chain, each copy counted once, plus V0; or, without V0, plus the
        copies of the cards that fit a hand-only meld (ho)."""
        cdef int i, j, c, q, n, cap
        cdef int64_t v = self.v0, u = 0
        for i in range(ns):
            for j in range(self.capn[idx[i]]):
                self.capt[self.capc[idx[i]][j]] += 1
        for q in range(self.nhl):
            c = self.hl[q]
            cap = self.capall[c] - self.capt[c]
            n = self.rset[c] + cap
            v += <int64_t>w[c] * (hand[c] if hand[c] < n else n)
            # (a copy in a hand-only meld is related, or fits one: the `ho` cards)
            n = (hand[c] if self.rset[c] or self.ho[c] else 0) + cap
            u += <int64_t>w[c] * (hand[c] if hand[c] < n else n)
        for i in range(ns):
            for j in range(self.capn[idx[i]]):
                self.capt[self.capc[idx[i]][j]] = 0
        return v if v < u else u

    @cython.final
    cdef void load_rset(self, uint64_t bits, const uint8_t* hand) noexcept nogil:
        """self.rset from a set of hand-list places (a meld's related cards, rb1)."""
        cdef int q, c
        for q in range(self.nhl):
            c = self.hl[q]
            self.rset[c] = hand[c] if (bits >> q) & 1 else 0

    @cython.final
    cdef int64_t mixed_value(self, HState* st, const int* idx, int ns, const int32_t* w,
                             const int32_t* jw) noexcept nogil:
        """The exact solver's value of the cards of the melds idx with the hand cards in
        self.rset (cached by the whole multisets and the objective); -1 on a solver error."""
        cdef int i, c, q, s, n = 0
        cdef uint64_t k[5]
        cdef uint64_t h
        cdef int64_t v
        cdef uint64_t* e
        k[0] = k[1] = k[2] = k[3] = 0
        for i in range(ns):   # 2 bits per card type (at most 3 copies; mkey)
            k[0] += self.mkey[idx[i]][0]
            k[1] += self.mkey[idx[i]][1]
            n += st.wit.start[idx[i] + 1] - st.wit.start[idx[i]]
        for q in range(self.nhl):
            c = self.hl[q]
            k[2 + (c >> 5)] |= (<uint64_t>self.rset[c]) << (2 * (c & 31))
        k[4] = 1 + (<uint64_t>(w == self.R.pw))   # the objective (never 0: 0 = empty slot)
        e = self.mv_slot(k)
        if e[0] == k[0] and e[1] == k[1] and e[2] == k[2] and e[3] == k[3] \
                and (e[4] & <uint64_t>0xFFFFFFFFU) == k[4]:
            return <int64_t>e[5]
        memset(self.tmv, 0, NCARD)
        for i in range(ns):
            for q in range(st.wit.start[idx[i]], st.wit.start[idx[i] + 1]):
                self.tmv[st.wit.cards[q]] += 1
        v = self.small_mixed(w, n)
        if v == -2:   # too large for the small search: the solver
            self.smask = -1
            memset(self.mvplaced, 0, NCARD)
            v = self.solver.solve(self.tmv, self.rset, &self.R.srules, w, jw, self.mvplaced, NULL)
            if v < 0:
                return -1
            v = placed_weight(self.mvplaced, w, jw)
        self.n_mixed += 1
        self.mv_store(e, k, v)
        return v

    @cython.final
    cdef void single_mixed(self, HState* st, int m, const uint8_t* hand, const int32_t* w,
                           const int32_t* jw, const Masks* hm) noexcept nogil:
        """Tighten meld m's mixed bound m1 (and vs1) by its exact mixed value."""
        cdef int64_t mv
        if self.mvdone[m]:
            return
        self.mvdone[m] = 1
        self.load_rset(self.rb1[m], hand)
        mv = self.mixed_value(st, &m, 1, w, jw)
        if 0 <= mv < self.m1[m]:
            self.m1[m] = mv
            if self.v0 + mv < self.vs1[m]:
                self.vs1[m] = self.v0 + mv

    @cython.final
    cdef int64_t set_bound(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                           const int32_t* w, const int32_t* jw, const Masks* hm,
                           int64_t total_w, int64_t best, int beaten_by_equal) noexcept nogil:
        """An upper bound on regroup(idx) of a single meld or a triple (see the comment
        above bound_setup; pairs: pair_bound): cheap bounds first, the mixed value only
        while the bound still beats `best` (ties beat it when beaten_by_equal). A pair
        with a table joker gets no bound (vs2 too, for the triples)."""
        cdef Masks tm, pool
        cdef int i, s, a, b, c
        cdef int rel[3]
        cdef int64_t sb, lay, ub, u, rw, mv
        a = idx[0]
        b = idx[1] if ns > 1 else 0
        for i in range(ns):
            if self.mjok[idx[i]]:   # a table joker relates any cards
                if ns == 2:
                    self.vs2[a][b] = total_w
                return total_w
        tm = self.mmask[a]
        for i in range(1, ns):
            tm.ranks |= self.mmask[idx[i]].ranks
            for s in range(4):
                tm.suit[s] |= self.mmask[idx[i]].suit[s]
        if ns == 1:   # (rw: only whether any card is related)
            rw = 1 if self.rb1[a] else 0
            self.load_rset(self.rb1[a], hand)
        else:
            rw = self.related_weight(hand, w, hm, &tm)   # fills rset, rmask
            if rw == 0:
                # nothing related: the solver's value is V0 (sb below) and the lay-offs
                # take at most lay_all, so V0 + lay_all bounds the set; enough when it
                # cannot beat best (no lay_cap, no union_bound)
                ub = self.v0 + self.lay_all
                if ub < best or (ub == best and not beaten_by_equal):
                    return ub
        lay = self.lay_cap(idx, ns, hand, w)
        if ns == 1:
            sb = self.vs1[a]
        elif rw == 0:
            # nothing related: sb = V0 is already the least of the bounds below (each is
            # V0 or more: a solver value places at least the hand-only optimum), and no
            # mixed value is needed
            sb = self.v0
        else:
            # a triple: split into a single and a pair no meld can join (vs1 + vs2)
            sb = self.v0 + rw
            for s in range(4):
                pool.suit[s] = hm.suit[s] | tm.suit[s]
            pool.ranks = hm.ranks | tm.ranks
            c = idx[2]
            rel[0] = can_share(&self.mmask[a], &self.mmask[b], &pool)
            rel[1] = can_share(&self.mmask[a], &self.mmask[c], &pool)
            rel[2] = can_share(&self.mmask[b], &self.mmask[c], &pool)
            if not rel[0] and not rel[1] and self.vs1[a] + self.vs2[b][c] < sb:
                sb = self.vs1[a] + self.vs2[b][c]
            if not rel[0] and not rel[2] and self.vs1[b] + self.vs2[a][c] < sb:
                sb = self.vs1[b] + self.vs2[a][c]
            if not rel[1] and not rel[2] and self.vs1[c] + self.vs2[a][b] < sb:
                sb = self.vs1[c] + self.vs2[a][b]
        ub = sb + lay
        u = self.union_bound(idx, ns, hand, w)
        if u < ub:
            ub = u
        if (ub > best or (ub == best and beaten_by_equal)) and rw > 0:
            # the mixed value (a solve, unless cached)
            mv = self.mixed_value(st, idx, ns, w, jw)   # (rset: the set's related cards)
            if mv >= 0:
                if ns == 1:
                    self.mvdone[a] = 1
                    if mv < self.m1[a]:
                        self.m1[a] = mv
                    if self.v0 + mv < self.vs1[a]:
                        self.vs1[a] = self.v0 + mv
                    sb = self.vs1[a]
                elif self.v0 + mv < sb:
                    sb = self.v0 + mv
                if self.v0 + mv + lay < ub:
                    ub = self.v0 + mv + lay
                if ub > best or (ub == best and beaten_by_equal):
                    u = self.exact_bound(st, idx, ns, hand, w, mv)
                    if 0 <= u < ub:
                        ub = u
            if sb + lay < ub:
                ub = sb + lay
        return ub if ub < total_w else total_w

    @cython.final
    cdef int64_t pair_ub(self, HState* st, const int* idx, const uint8_t* hand,
                                const int32_t* w, const int32_t* jw, const Masks* hm,
                                int64_t total_w, int64_t best, int64_t key,
                                int64_t best_key, int loose) noexcept nogil:
        """Upper bound on regroup of the pair idx (loose: loose_pair said so), cheapest
        first: loose_bound (loose pairs), near_bound, then pair_bound; none (total_w, vs2
        too) when a meld holds a table joker."""
        cdef int64_t ub = -1
        if self.mjok[idx[0]] or self.mjok[idx[1]]:
            self.vs2[idx[0]][idx[1]] = total_w
            return total_w
        if loose:
            ub = self.loose_bound(idx, hand, w, best, key > best_key)
        if ub < 0:
            ub = self.near_bound(idx, hand, w, best, key > best_key)
        if ub < 0:
            ub = self.pair_bound(st, idx, hand, w, jw, hm, total_w, best, key < best_key,
                                 loose)
        return ub

    @cython.final
    cdef int64_t pair_bound(self, HState* st, const int* idx, const uint8_t* hand,
                            const int32_t* w, const int32_t* jw, const Masks* hm,
                            int64_t total_w, int64_t best, int beaten_by_equal,
                            int loose) noexcept nogil:
        """set_bound for a pair (a, b) without table jokers that loose_bound and near_bound
        did not skip (loose: loose_pair said so), their bounds in the same order, less
        what those two already tried: the exact related cards, their copies counted once
        with the lay-off chains, the singles' bounds when no meld can hold a card of each,
        then the mixed values."""
        cdef Masks tm, pool
        cdef int s, a = idx[0], b = idx[1], split, q, c
        cdef int64_t sb, lay, ub, u, rw, mv
        for s in range(4):
            tm.suit[s] = self.mmask[a].suit[s] | self.mmask[b].suit[s]
        tm.ranks = self.mmask[a].ranks | self.mmask[b].ranks
        if self.nb_pair == a * MAX_MELDS + b and self.nb_e:
            # near_bound's set is exact here: rset, rmask from it (as related_weight)
            rw = self.mask_weight(self.nb_e, hand, w)
            memset(&self.rmask, 0, sizeof(Masks))
            for q in range(self.nhl):
                c = self.hl[q]
                if (self.nb_e >> (16 * (c // 13) + c % 13 + 1)) & 1:
                    self.rset[c] = hand[c]
                    masks_add(&self.rmask, c, self.R.srules.ace_high)
                else:
                    self.rset[c] = 0
        else:
            rw = self.related_weight(hand, w, hm, &tm)   # fills rset, rmask
        self.nb_pair = -1
        lay = self.lay_cap(idx, 2, hand, w)
        if rw == 0:
            # nothing related: the solver's value is V0 (every other bound is V0 or more)
            self.vs2[a][b] = self.v0
            ub = self.v0 + lay
            u = self.union_bound(idx, 2, hand, w)
            return u if u < ub else ub
        for s in range(4):
            pool.suit[s] = hm.suit[s] | tm.suit[s]
        pool.ranks = hm.ranks | tm.ranks
        if not loose:
            loose = not can_share(&self.mmask[a], &self.mmask[b], &pool)
        sb = self.v0 + rw
        if loose:
            if self.vs1[a] + self.m1[b] < sb:
                sb = self.vs1[a] + self.m1[b]
            if self.m1[a] + self.vs1[b] < sb:
                sb = self.m1[a] + self.vs1[b]
            if self.v0 + self.m1[a] + self.m1[b] < sb:
                sb = self.v0 + self.m1[a] + self.m1[b]
        ub = sb + lay
        u = self.union_bound(idx, 2, hand, w)
        if u < ub:
            ub = u
        if not (ub > best or (ub == best and beaten_by_equal)):
            self.vs2[a][b] = sb
            return ub if ub < total_w else total_w
        for s in range(4):
            pool.suit[s] = self.rmask.suit[s] | tm.suit[s]
        pool.ranks = self.rmask.ranks | tm.ranks
        split = loose or not can_share(&self.mmask[a], &self.mmask[b], &pool)
        if split:
            # the mixed melds hold cards of a or of b, not both: the singles' mixed values
            self.single_mixed(st, a, hand, w, jw, hm)
            self.single_mixed(st, b, hand, w, jw, hm)
            if self.v0 + self.m1[a] + self.m1[b] < sb:
                sb = self.v0 + self.m1[a] + self.m1[b]
            if loose and self.vs1[a] + self.m1[b] < sb:
                sb = self.vs1[a] + self.m1[b]
            if loose and self.m1[a] + self.vs1[b] < sb:
                sb = self.m1[a] + self.vs1[b]
            if sb + lay < ub:
                ub = sb + lay
            if not (ub > best or (ub == best and beaten_by_equal)):
                self.vs2[a][b] = sb
                return ub if ub < total_w else total_w
            self.related_weight(hand, w, hm, &tm)   # (rset again: single_mixed replaced it)
        mv = self.mixed_value(st, idx, 2, w, jw)
        if mv >= 0:
            if self.v0 + mv < sb:
                sb = self.v0 + mv
            if sb + lay < ub:
                ub = sb + lay
            if ub > best or (ub == best and beaten_by_equal):
                u = self.exact_bound(st, idx, 2, hand, w, mv)
                if 0 <= u < ub:
                    ub = u
        self.vs2[a][b] = sb
        return ub if ub < total_w else total_w

    @cython.final
    cdef int loose_pair(self, int a, int b) noexcept nogil:
        """Whether no meld of the pool of melds a, b and the hand can hold a card of a and
        a card of b (no table jokers in them). Sufficient, from per-meld masks: no common
        rank, and in no suit a card of b on or next to a segment of a's cards in a + the
        hand. (Two cards of one pool segment: walking from a's card to b's, the first card
        not in a + the hand is one of b's, next to such a segment, or b's card is on it.)"""
        cdef const uint32_t* d = self.mdil[a]
        cdef const Masks* y = &self.mmask[b]
        if self.mjok[a] or self.mjok[b] or self.mmask[a].ranks & y.ranks:
            return 0
        return not ((d[0] & y.suit[0]) | (d[1] & y.suit[1]) | (d[2] & y.suit[2])
                    | (d[3] & y.suit[3]))

    @cython.final
    cdef int64_t loose_bound(self, const int* idx, const uint8_t* hand, const int32_t* w,
                             int64_t best, int lose_ties) noexcept nogil:
        """Upper bound on regroup of a loose pair (a, b), or -1 when it would not skip
        the pair. The solver's melds split into a's (with hand cards),
        b's and hand-only ones: a's with the hand-only ones are a play for a alone (vs1),
        b's are one of b's mixed plays (m1), so the solver's value is at most
        min(vs1[a] + m1[b], m1[a] + vs1[b], V0 + m1[a] + m1[b]); the lay-offs at most
        lay_cap, which is no more than either single's (fewer intact melds)."""
        cdef int a = idx[0], b = idx[1]
        cdef int64_t sb, ub, lay
        sb = self.vs1[a] + self.m1[b]
        if self.m1[a] + self.vs1[b] < sb:
            sb = self.m1[a] + self.vs1[b]
        if self.v0 + self.m1[a] + self.m1[b] < sb:
            sb = self.v0 + self.m1[a] + self.m1[b]
        lay = self.lc1[a] if self.lc1[a] < self.lc1[b] else self.lc1[b]
        ub = sb + lay
        if not (ub < best or (ub == best and lose_ties)):
            ub = sb + self.lay_cap(idx, 2, hand, w)
            if not (ub < best or (ub == best and lose_ties)):
                return -1
        self.vs2[a][b] = sb
        return ub

    @cython.final
    cdef int64_t mask_weight(self, uint64_t e, const uint8_t* hand,
                                    const int32_t* w) noexcept nogil:
        """The weight of the hand's copies of the cards in e (16 bits a suit)."""
        cdef int64_t v = 0
        cdef int q, c
        if self.unit_w:
            return cs_popcount(e) + cs_popcount(e & self.hc2) + cs_popcount(e & self.hc3)
        while e:
            q = cs_ctz(e)
            e &= e - 1
            c = (q >> 4) * 13 + (q & 15) - 1
            v += <int64_t>w[c] * hand[c]
        return v

    @cython.final
    cdef int64_t near_bound(self, const int* idx, const uint8_t* hand, const int32_t* w,
                            int64_t best, int lose_ties) noexcept nogil:
        """Upper bound on regroup of a pair (a, b), or -1 when it would not skip the pair:
        V0 + the weight of a superset E of the hand cards related to a + b + the smaller
        single lay-off cap. A hand card's relation to a + b differs from its relations to
        a and to b alone (r1mask) only at a rank both hold (a group: E takes the hand's
        cards of that rank) or on a pool segment holding cards of both (a run; as in
        loose_pair, a card of b lies on or next to a's segments in a + the hand): E takes
        the hand's cards on those segments of a and of b, in that suit."""
        cdef int a = idx[0], b = idx[1], q, c, s
        cdef uint64_t e = self.r1mask[a] | self.r1mask[b], x
        cdef int64_t u
        cdef uint32_t cr = (self.mmask[a].ranks & self.mmask[b].ranks) << 1, y
        if cr:
            x = cr
            e |= (x | (x << 16) | (x << 32) | (x << 48)) & self.hmask
        for s in range(4):
            if self.mdil[a][s] & self.mmask[b].suit[s]:
                y = (self.mext[a][s] | self.mext[b][s]) & self.hm_suit[s]
                e |= (<uint64_t>((y | (y >> 13)) & 0x3FFE)) << (16 * s)
        cdef int64_t rw, ub
        rw = self.mask_weight(e, hand, w)
        ub = self.v0 + rw + (self.lc1[a] if self.lc1[a] < self.lc1[b] else self.lc1[b])
        if not (ub < best or (ub == best and lose_ties)):
            # every copy of a card in E or on a lay-off chain, once (as union_bound)
            u = self.v0 + self.mask_weight(e | self.cmask, hand, w)
            if u < ub:
                ub = u
            if not (ub < best or (ub == best and lose_ties)):
                # for pair_bound: E is the exact related set when the two melds add no
                # card to their own ones (R(a) and R(b) <= R(a + b) <= E)
                self.nb_pair = a * MAX_MELDS + b
                self.nb_e = e if e == (self.r1mask[a] | self.r1mask[b]) else 0
                return -1
        self.vs2[a][b] = self.v0 + rw
        return ub

    @cython.final
    cdef int64_t lay_exact(self, HState* st, const int* idx, int ns, uint8_t* rem,
                           const int32_t* w) noexcept nogil:
        """The weight layoffs() places from the hand cards rem (no jokers; rem is used up)
        onto the melds not in idx: without jokers each meld, in order, takes its chain
        upward while rem holds the next card, then downward (a group of three: its missing
        suit); a card taken is gone for the later melds, and nothing fits a meld later
        that did not fit it then (rem only shrinks)."""
        cdef int m, j, i, c, skip
        cdef int64_t v = 0
        for m in range(st.wit.n_melds):
            skip = 0
            for i in range(ns):
                if idx[i] == m:
                    skip = 1
            if skip or self.capn[m] == 0:
                continue
            j = 0
            while j < self.capup[m] and rem[self.capc[m][j]]:
                c = self.capc[m][j]
                rem[c] -= 1
                v += w[c]
                j += 1
            j = self.capup[m]
            while j < self.capn[m] and rem[self.capc[m][j]]:
                c = self.capc[m][j]
                rem[c] -= 1
                v += w[c]
                j += 1
        return v

    @cython.final
    cdef int64_t exact_bound(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                             const int32_t* w, int64_t mv) noexcept nogil:
        """regroup(idx) itself, when V0 = 0 and the mixed value mv is 0 (no jokers): with
        no meld of hand cards alone every placed card is related, so the solver places
        none (weights are positive), and the lay-offs are lay_exact of the whole hand.
        -1 otherwise (unknown)."""
        if self.v0 != 0 or mv != 0:
            return -1
        memcpy(self.scratch, hand, NCARD)
        return self.lay_exact(st, idx, ns, self.scratch, w)

    @cython.final
    cdef void store_vs(self, const int* idx, int ns, int64_t v) noexcept nogil:
        """Record the exact solver value of a set that was solved."""
        if ns == 1:
            self.vs1[idx[0]] = v
        elif ns == 2:
            self.vs2[idx[0]][idx[1]] = v
