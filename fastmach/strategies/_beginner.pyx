# The beginner: new melds from the hand alone (exact), then lay-offs onto the table's
# melds as they were. Its regroup (dissolve some melds, solve their cards with the hand,
# lay off onto the others) is the intermediate's building block, with the small exact
# search (opt_search, part_build) and the mixed-value cache both share.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, free
cimport cython

from fastmach.core._solver cimport Solver, Witness, NCARD, JOKER, MAX_MELDS
from fastmach.game._turn cimport (ERules, HState, Decision, wit_clear, wit_push, wit_append,
                             wit_insert, placed_weight, set_draw, total)
from fastmach.strategies._base cimport (Context, finish_play, Masks, masks_add, may_meld,
                                        meld_cards, seg_closure, seg_of, first_card,
                                        related, can_share)


cdef class Beginner(Skill):

    def __cinit__(self):
        self.mvc = <uint64_t*> malloc(MV_SLOTS * 6 * sizeof(uint64_t))
        if self.mvc == NULL:
            raise MemoryError()
        memset(self.mvc, 0, MV_SLOTS * 6 * sizeof(uint64_t))

    def __dealloc__(self):
        free(self.mvc)

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        """New melds from the hand alone (exact), then lay-offs onto the table melds as
        they were (see fastmach.strategies)."""
        set_draw(d)
        finish_play(self.ctx, self.regroup(st, NULL, 0, hand, w, jw, d), d)

    @cython.final
    cdef int layoff_fit(self, const Witness* W, int m, const uint8_t* R, int joker,
                        int* pos, int* card, int* stand) noexcept nogil:
        """Whether a hand card fits meld m as a lay-off (a real card of R, or with `joker` a
        joker): the missing suit of a group of three, or the next card at the top then the
        bottom of a run. Fills the insertion index, the card and what it stands for."""
        cdef int a = W.start[m], b = W.start[m + 1], L, i, nj = 0, r0, isgroup = 1
        cdef int suits = 0, u, c, suit, lo, hi, jok
        L = b - a
        for i in range(a, b):
            if W.cards[i] == JOKER:
                nj += 1
        jok = joker and R[JOKER] > 0 and (self.R.srules.jokers_per_meld == 0
                                          or nj < self.R.srules.jokers_per_meld)
        if joker and not jok:
            return 0
        r0 = W.stands[a] % 13
        for i in range(a + 1, b):
            if W.stands[i] % 13 != r0:
                isgroup = 0
        if isgroup:
            if L != 3:
                return 0
            for i in range(a, b):
                suits |= 1 << (W.stands[i] // 13)
            for u in range(4):
                if not (suits >> u) & 1:
                    c = u * 13 + r0
                    if jok or R[c] > 0:
                        pos[0] = b
                        card[0] = JOKER if joker else c
                        stand[0] = c
                        return 1
            return 0
        suit = W.stands[a] // 13
        lo = W.stands[a] % 13 + 1
        hi = W.stands[b - 1] % 13 + 1
        if hi == 1:
            hi = 14   # an ace at the top of a run
        if hi < 13 or (hi == 13 and self.R.srules.ace_high):
            c = suit * 13 + hi % 13
            if jok or R[c] > 0:
                pos[0] = b
                card[0] = JOKER if joker else c
                stand[0] = c
                return 1
        if lo > 1:
            c = suit * 13 + lo - 2
            if jok or R[c] > 0:
                pos[0] = a
                card[0] = JOKER if joker else c
                stand[0] = c
                return 1
        return 0

    @cython.final
    cdef void lay_one(self, Witness* W, int m, int pos, int card, int stand,
                             uint8_t* R, uint8_t* placed) noexcept nogil:
        """Put hand card `card` (standing for `stand`) into meld m at pos."""
        wit_insert(W, m, pos, card, stand)
        R[card] -= 1
        placed[card] += 1
        self.touched_m[m] = 1

    @cython.final
    cdef void layoffs(self, Witness* W, int n_intact, uint8_t* R, uint8_t* placed) noexcept nogil:
        """Lay off hand cards R onto melds 0..n_intact-1 of W, one card at a time while any
        fits: real cards first (melds in order), a joker only when no real card fits."""
        cdef int m, pos = 0, card = 0, stand = 0, found
        while True:
            found = 0
            for m in range(n_intact):
                while self.layoff_fit(W, m, R, 0, &pos, &card, &stand):
                    self.lay_one(W, m, pos, card, stand, R, placed)
                    found = 1
            if found:
                continue
            if R[JOKER] == 0:
                return
            for m in range(n_intact):
                if self.layoff_fit(W, m, R, 1, &pos, &card, &stand):
                    self.lay_one(W, m, pos, card, stand, R, placed)
                    found = 1
                    break
            if not found:
                return

    @cython.final
    cdef int64_t regroup(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                         const int32_t* w, const int32_t* jw, Decision* out) noexcept nogil:
        """Dissolve the melds idx[0..ns) and solve their cards with the hand exactly, keep
        the other melds, then lay off onto them. Returns the placed value (or an error)."""
        cdef const ERules* R = self.R
        cdef int i, m, c, n_intact, k
        cdef int inS[MAX_MELDS]
        cdef int64_t best
        cdef Witness* W = &out.wit
        memset(self.tS, 0, NCARD)
        memset(inS, 0, sizeof(inS))
        for i in range(ns):
            inS[idx[i]] = 1
            for k in range(st.wit.start[idx[i]], st.wit.start[idx[i] + 1]):
                self.tS[st.wit.cards[k]] += 1
        memset(out.placed, 0, NCARD)
        if ns == 0 and hand[JOKER] == 0 and not may_meld(hand, R.srules.ace_high):
            best = 0   # no meld in the hand (the solver's answer, without the solve)
            wit_clear(&self.tmpwit)
        elif hand[JOKER] == 0 and self.tS[JOKER] == 0 \
                and self.small_regroup(hand, w, out.placed):
            best = 0   # (small_regroup: the same value as the solver's)
            self.n_small += 1
        else:
            memset(out.placed, 0, NCARD)
            best = self.solver.solve(self.tS, hand, &R.srules, w, jw, out.placed, &self.tmpwit)
        if best < -1:
            return best
        if best < 0:
            return -6
        self.last_vs = placed_weight(out.placed, w, jw)
        if ns == 0:
            self.v0_dec = self.last_vs
        wit_clear(W)
        for m in range(st.wit.n_melds):
            if not inS[m]:
                wit_push(W, &st.wit, m)
        n_intact = W.n_melds
        wit_append(W, &self.tmpwit)
        for c in range(NCARD):
            self.rem[c] = hand[c] - out.placed[c]
        memset(self.touched_m, 0, sizeof(self.touched_m))
        self.layoffs(W, n_intact, self.rem, out.placed)
        out.touched = 0
        for m in range(n_intact):
            out.touched += self.touched_m[m]
        out.taken = 0
        out.n_placed = total(out.placed)
        return placed_weight(out.placed, w, jw)

    cdef int small_regroup(self, const uint8_t* hand, const int32_t* w,
                           uint8_t* placed) noexcept nogil:
        """The solver's part of regroup without the solver, when nothing holds a joker:
        a placed card shares a meld with a dissolved card (so is related to them) or is in
        a meld of hand cards alone (so is one of meld_cards), and the best play is the
        small search's (small_mixed) on self.tS and those hand cards; its split goes to
        self.tmpwit, its cards to placed. 0 when too large for the small search."""
        cdef Masks hm, tm
        cdef int c, j, i
        cdef int64_t v
        cdef uint32_t ho[4]
        cdef uint64_t k[5]
        cdef uint64_t* e
        memset(&hm, 0, sizeof(Masks))
        memset(&tm, 0, sizeof(Masks))
        self.nhl = 0
        for c in range(JOKER):
            if hand[c]:
                masks_add(&hm, c, self.R.srules.ace_high)
                self.hl[self.nhl] = c
                self.nhl += 1
            if self.tS[c]:
                masks_add(&tm, c, self.R.srules.ace_high)
        memset(self.rset, 0, NCARD)
        self.related_weight(hand, w, &hm, &tm)
        if meld_cards(hand, self.R.srules.ace_high, ho):
            for j in range(self.nhl):
                c = self.hl[j]
                if (ho[c // 13] >> (c % 13 + 1)) & 1:
                    self.rset[c] = hand[c]
        # the mixed-value cache (the same key as mixed_value's: intermediate's bounds often
        # solved this set with these cards already)
        k[0] = k[1] = k[2] = k[3] = 0
        for c in range(JOKER):
            if self.tS[c]:
                k[c >> 5] += (<uint64_t>self.tS[c]) << (2 * (c & 31))
        for j in range(self.nhl):
            c = self.hl[j]
            k[2 + (c >> 5)] |= (<uint64_t>self.rset[c]) << (2 * (c & 31))
        k[4] = 1 + (<uint64_t>(w == self.R.pw))
        e = self.mv_slot(k)
        if e[0] == k[0] and e[1] == k[1] and e[2] == k[2] and e[3] == k[3] \
                and (e[4] & <uint64_t>0xFFFFFFFFU) == k[4] and (e[4] >> 48) & 0xFFFF:
            self.smask = <int>((e[4] >> 48) & 0xFFFF) - 1
            self.snr = 0
            for j in range(self.nhl):
                c = self.hl[j]
                for i in range(self.rset[c]):
                    if self.snr == SMALL_R:
                        return 0
                    self.src[self.snr] = c
                    self.snr += 1
        else:
            memcpy(self.tmv, self.tS, NCARD)
            v = self.small_mixed(w)
            if v < 0:
                return 0
            self.mv_store(e, k, v)
        memcpy(self.pcnt, self.tS, NCARD)
        for j in range(self.snr):
            if (self.smask >> j) & 1:
                placed[self.src[j]] += 1
                self.pcnt[self.src[j]] += 1
        wit_clear(&self.tmpwit)
        return self.part_build(total(self.pcnt), &self.tmpwit, 0)

    @cython.final
    cdef int64_t related_weight(self, const uint8_t* hand, const int32_t* w, const Masks* hm,
                                const Masks* tm) noexcept nogil:
        """Weight of the hand cards related to the cards of tm (see above; no jokers); the
        cards themselves go to self.rset, their masks to self.rmask.

        Bitwise, a suit at a time (the same relation as card by card): a hand card of rank r
        and suit s is related by a group when >= 3 suits of the pool hold rank r and tm holds
        r in another suit (G3 & the other suits' tm bits); by a run when the pool segment of
        its bit (or, an ace with aces high, of bit 14) has >= 3 bits and holds a tm bit other
        than its own: every bit of such a segment when it holds >= 2 tm bits, every bit but
        the tm bit when it holds one."""
        cdef Masks pool
        cdef int c, r, s, q, ace_high = self.R.srules.ace_high
        cdef uint32_t g3, ot, rr, cc, seg, x, t
        cdef uint32_t relb[4]
        cdef int64_t v = 0
        memset(&self.rmask, 0, sizeof(Masks))
        self.rbits = 0
        for s in range(4):
            pool.suit[s] = hm.suit[s] | tm.suit[s]
        g3 = ((pool.suit[0] & pool.suit[1] & (pool.suit[2] | pool.suit[3]))
              | (pool.suit[2] & pool.suit[3] & (pool.suit[0] | pool.suit[1])))
        for s in range(4):
            ot = 0
            for q in range(4):
                if q != s:
                    ot |= tm.suit[q]
            rr = g3 & ot & 0x3FFE   # groups: ranks 1..13 only
            cc = tm.suit[s]
            while cc:   # the pool segments through tm's cards of suit s
                seg = seg_of(pool.suit[s], cc & (~cc + 1))
                cc &= ~seg
                x = seg & (seg - 1)
                if x & (x - 1):
                    t = seg & tm.suit[s]
                    rr |= seg if t & (t - 1) else seg & ~t
            relb[s] = rr & hm.suit[s]
        if not (relb[0] | relb[1] | relb[2] | relb[3]):
            for q in range(self.nhl):
                self.rset[self.hl[q]] = 0
            return 0
        for q in range(self.nhl):
            c = self.hl[q]
            r = c % 13 + 1
            s = c // 13
            if (relb[s] >> r) & 1 or (r == 1 and (relb[s] >> 14) & 1):
                self.rset[c] = hand[c]
                v += <int64_t>hand[c] * w[c]
                masks_add(&self.rmask, c, ace_high)
                self.rbits |= (<uint64_t>1) << q
            else:
                self.rset[c] = 0
        return v

    @cython.final
    cdef uint64_t* mv_slot(self, const uint64_t* k) noexcept nogil:
        """The mixed-value cache entry for key k (5 words; see mvc)."""
        cdef uint64_t h = k[4]
        cdef int i
        for i in range(4):
            h = (h ^ k[i]) * <uint64_t>0x9E3779B97F4A7C15ULL
            h ^= h >> 29
        return self.mvc + 6 * (h & (MV_SLOTS - 1))

    @cython.final
    cdef void mv_store(self, uint64_t* e, const uint64_t* k, int64_t v) noexcept nogil:
        """Fill entry e: key k, value v, and the best subset self.smask + 1
        (0: unknown, the solver's value)."""
        e[0] = k[0]
        e[1] = k[1]
        e[2] = k[2]
        e[3] = k[3]
        e[4] = k[4] | ((<uint64_t>(self.smask + 1 if self.smask >= 0 else 0)) << 48)
        e[5] = <uint64_t>v

    @cython.final
    cdef int64_t small_mixed(self, const int32_t* w, int n_in=-1) noexcept nogil:
        """The mixed value of self.tmv (a union of melds, no jokers) with at most SMALL_R
        hand cards self.rset, by one branch-and-bound search (opt_search) over which of
        them to leave out; self.smask: the best subset of them (bits over self.src). -2
        when there are more hand cards, or more than 24 cards (the solver's case).
        n_in: the number of cards of tmv when known (then the hand cards are read from the
        hand list hl)."""
        cdef int rc[SMALL_R]
        cdef int nr = 0, n = 0, c, j, q
        cdef int64_t v
        if n_in >= 0:
            n = n_in
            for q in range(self.nhl):
                c = self.hl[q]
                for j in range(self.rset[c]):
                    if nr == SMALL_R:
                        return -2
                    rc[nr] = c
                    nr += 1
        else:
            for c in range(JOKER):
                n += self.tmv[c]
                for j in range(self.rset[c]):
                    if nr == SMALL_R:
                        return -2
                    rc[nr] = c
                    nr += 1
        if n + nr > 24:
            return -2
        self.snr = nr
        self.smask = 0
        for j in range(nr):
            self.src[j] = rc[j]
        memcpy(self.pcnt, self.tmv, JOKER)
        # one branch-and-bound search over which hand cards to leave out (opt_search)
        memset(self.oleft, 0, JOKER)
        v = 0
        for j in range(nr):
            self.pcnt[rc[j]] += 1
            self.oleft[rc[j]] += 1
            v += w[rc[j]]
        if v == 0:
            return 0
        memset(self.oskip, 0, JOKER)
        # leaving every hand card out is a split (the set's own melds): the search looks
        # only for one that loses less
        self.bb_best = v
        memcpy(self.bb_skip, self.oleft, JOKER)
        self.bb_w = w
        self.opt_search(n + nr, 0, 0)
        memcpy(self.pcnt, self.tmv, JOKER)
        # the best subset: each card's copies not left out (the first ones in rc)
        memcpy(self.oleft, self.bb_skip, JOKER)
        for j in range(nr):
            if self.oleft[rc[j]]:
                self.oleft[rc[j]] -= 1
            else:
                self.smask |= 1 << j
        return v - self.bb_best

    @cython.final
    cdef void opt_search(self, int left, int r0, int64_t lost) noexcept nogil:
        """Branch and bound behind small_mixed: split self.pcnt (`left` cards, none of a
        rank below index r0) into valid melds, where up to self.oleft[c] copies of each
        card c (the hand's) may be left out instead, each losing its weight; self.bb_best
        is the least loss found (self.bb_skip: what was left out). The smallest card goes
        into a group, a run upward from it, or (an ace, aces high) a run that it ends, as
        in part_build, or is left out; a branch that has already lost bb_best stops."""
        cdef uint8_t* cnt = self.pcnt
        cdef int x, r, s, no = 0, a, b, p, q
        cdef int o[3]
        cdef int ace_high = self.R.srules.ace_high
        if lost >= self.bb_best:
            return
        if left == 0:
            self.bb_best = lost
            memcpy(self.bb_skip, self.oskip, JOKER)
            return
        x = first_card(cnt, r0, o, &no)
        r = x % 13
        s = x // 13
        cnt[x] -= 1
        for a in range(no):
            for b in range(a + 1, no):
                cnt[o[a]] -= 1
                cnt[o[b]] -= 1
                self.opt_search(left - 3, r, lost)
                cnt[o[a]] += 1
                cnt[o[b]] += 1
        if no == 3:
            cnt[o[0]] -= 1
            cnt[o[1]] -= 1
            cnt[o[2]] -= 1
            self.opt_search(left - 4, r, lost)
            cnt[o[0]] += 1
            cnt[o[1]] += 1
            cnt[o[2]] += 1
        q = r + 1
        while True:
            p = q + 1
            if p > (14 if ace_high else 13) or cnt[s * 13 + (p - 1) % 13] == 0:
                break
            cnt[s * 13 + (p - 1) % 13] -= 1
            q = p
            if q - r >= 3:
                self.opt_search(left - 1 - (q - r - 1), r, lost)
        for p in range(r + 2, q + 1):
            cnt[s * 13 + (p - 1) % 13] += 1
        if r == 0 and ace_high:
            q = 14
            while True:
                p = q - 1
                if p < 2 or cnt[s * 13 + p - 1] == 0:
                    break
                cnt[s * 13 + p - 1] -= 1
                q = p
                if 14 - q >= 2:
                    self.opt_search(left - 1 - (14 - q), r, lost)
            for p in range(q, 14):
                cnt[s * 13 + p - 1] += 1
        if self.oleft[x]:   # or leave this copy out (a hand card)
            self.oleft[x] -= 1
            self.oskip[x] += 1
            self.opt_search(left - 1, r, lost + self.bb_w[x])
            self.oskip[x] -= 1
            self.oleft[x] += 1
        cnt[x] += 1

    @cython.final
    cdef int part_build(self, int left, Witness* W, int r0) noexcept nogil:
        """Split the cards self.pcnt (no jokers, `left` of them, none of a rank below index
        r0) into valid melds and append them to W (runs ascending; cards stand for
        themselves); 0 when there is no split. The smallest card (ace first, then by
        suit) goes into a group, a run upward from it, or (an ace, aces high) a run that it
        ends; the rest recursively (from its rank on: nothing below it is left)."""
        cdef uint8_t* cnt = self.pcnt
        cdef int x, r, s, no = 0, a, b, p, q, ok = 0, base, L, i
        cdef int o[3]
        cdef int ace_high = self.R.srules.ace_high
        if left == 0:
            return 1
        x = first_card(cnt, r0, o, &no)
        r = x % 13
        s = x // 13
        cnt[x] -= 1
        for a in range(no):
            for b in range(a + 1, no):
                cnt[o[a]] -= 1
                cnt[o[b]] -= 1
                L = 3
                ok = self.part_build(left - 3, W, r)
                if not ok and no == 3 and a == 0 and b == 1:
                    cnt[o[2]] -= 1
                    L = 4
                    ok = self.part_build(left - 4, W, r)
                    cnt[o[2]] += 1
                cnt[o[a]] += 1
                cnt[o[b]] += 1
                if ok:
                    base = W.start[W.n_melds]
                    W.cards[base] = x
                    W.cards[base + 1] = o[a]
                    W.cards[base + 2] = o[b]
                    if L == 4:
                        W.cards[base + 3] = o[2]
                    for i in range(L):
                        W.stands[base + i] = W.cards[base + i]
                    W.n_melds += 1
                    W.start[W.n_melds] = base + L
                    cnt[x] += 1
                    return 1
        q = r + 1
        while not ok:
            p = q + 1
            if p > (14 if ace_high else 13) or cnt[s * 13 + (p - 1) % 13] == 0:
                break
            cnt[s * 13 + (p - 1) % 13] -= 1
            q = p
            if q - r >= 3:
                ok = self.part_build(left - 1 - (q - r - 1), W, r)
        for p in range(r + 2, q + 1):
            cnt[s * 13 + (p - 1) % 13] += 1
        if ok:   # the run x (position r + 1) .. q
            base = W.start[W.n_melds]
            for p in range(r + 1, q + 1):
                W.cards[base + p - r - 1] = s * 13 + (p - 1) % 13
                W.stands[base + p - r - 1] = s * 13 + (p - 1) % 13
            W.n_melds += 1
            W.start[W.n_melds] = base + q - r
        if not ok and r == 0 and ace_high:
            q = 14
            while not ok:
                p = q - 1
                if p < 2 or cnt[s * 13 + p - 1] == 0:
                    break
                cnt[s * 13 + p - 1] -= 1
                q = p
                if 14 - q >= 2:
                    ok = self.part_build(left - 1 - (14 - q), W, r)
            for p in range(q, 14):
                cnt[s * 13 + p - 1] += 1
            if ok:   # the run q .. K, then the ace x on top
                base = W.start[W.n_melds]
                for p in range(q, 14):
                    W.cards[base + p - q] = s * 13 + p - 1
                    W.stands[base + p - q] = s * 13 + p - 1
                W.cards[base + 14 - q] = x
                W.stands[base + 14 - q] = x
                W.n_melds += 1
                W.start[W.n_melds] = base + 15 - q
        cnt[x] += 1
        return ok
