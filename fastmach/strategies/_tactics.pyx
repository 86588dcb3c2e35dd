# The tactics: wrappers that compose with any skill (Skilled, PointsObjective,
# KeepJokers) or any strategy (Opening, Patience, Fallible). fastmach.strategies builds a
# seat as Fallible(Patience(Opening(Skilled(KeepJokers(PointsObjective(skill)))))), each
# wrapper present only when its parameter is set.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t
from libc.string cimport memset, memcpy
from libc.math cimport pow

from fastmach.core._solver cimport Witness, NCARD, JOKER, MAX_TABLE
from fastmach.game._turn cimport (ERules, HState, Decision, A_PLAY, A_DRAW, A_FAIL, PATIENCE_STOCK,
                             may_decline, next_uniform, set_draw, total, wit_copy, wit_append)
from fastmach.strategies._base cimport Context, may_meld, open_from_hand


cdef class Skilled(Strategy):

    def __init__(self, Context ctx, Skill skill):
        Strategy.__init__(self, ctx)
        self.skill = skill
        self.melds_blind = skill.melds_blind

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        self.skill.play(st, st.hands[seat], self.R.ones, self.R.ones_j, d)


cdef class Opening(Strategy):

    def __init__(self, Context ctx, Strategy inner):
        Strategy.__init__(self, ctx)
        self.inner = inner
        self.melds_blind = inner.melds_blind   # (the opening builds its melds on st.wit's,
        memset(self.empty, 0, NCARD)           # its choice reads only cards)

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """Every skill level opens alike: melds from the hand only, worth >= opening (points
        of the cards, a joker counted as the card it stands for); the best-scoring set is
        played. An empty hand draws (nothing to decide)."""
        cdef const ERules* R = self.R
        cdef const uint8_t* hand = st.hands[seat]
        set_draw(d)
        if st.hand_n[seat] == 0:
            return
        if R.opening == 0 or st.opened[seat]:
            self.inner.decide(st, seat, rng, d)
            return
        open_from_hand(self.ctx, R, st, hand, self.empty, &self.tmpwit, d)


cdef class PointsObjective(Skill):

    def __init__(self, Context ctx, Skill inner):
        Skill.__init__(self, ctx)
        self.inner = inner
        self.melds_blind = inner.melds_blind

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        self.inner.play(st, hand, self.R.pw, self.R.pw_j, d)


cdef class KeepJokers(Skill):

    def __init__(self, Context ctx, Skill inner):
        Skill.__init__(self, ctx)
        self.inner = inner
        self.melds_blind = inner.melds_blind

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        cdef int n
        if hand[JOKER] == 0:
            self.inner.play(st, hand, w, jw, d)
            return
        memcpy(self.hk, hand, NCARD)
        self.hk[JOKER] = 0
        self.inner.play(st, self.hk, w, jw, d)
        if self.ctx.rc:
            return
        n = total(hand)
        if d.n_placed - d.taken < n:
            # the jokers come out only in a play that empties the hand
            self.inner.play(st, hand, w, jw, &self.full)
            if self.ctx.rc:
                return
            # (or where the rules forbid drawing, or passing on an empty stock, when
            # able and nothing else plays)
            if self.full.kind == A_PLAY and (
                    self.full.n_placed - self.full.taken == n
                    or (not may_decline(self.R, st) and d.kind != A_PLAY)):
                memcpy(d, &self.full, sizeof(Decision))


cdef class Patience(Strategy):

    def __init__(self, Context ctx, Strategy inner, int min_cards):
        Strategy.__init__(self, ctx)
        self.inner = inner
        self.min_cards = min_cards
        self.melds_blind = inner.melds_blind

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """Wait for a bigger play while the stock is large (never where drawing when able
        is forbidden, never instead of emptying the hand)."""
        cdef int net
        self.inner.decide(st, seat, rng, d)
        if d.kind == A_PLAY and self.R.may_draw:
            net = d.n_placed - d.taken
            if net < self.min_cards and net < st.hand_n[seat] and \
                    st.stock_len - st.stock_pos >= PATIENCE_STOCK:
                d.kind = A_DRAW

    def unwrapped(self):
        return self.inner.unwrapped()


cdef class Fallible(Strategy):

    def __init__(self, Context ctx, Strategy inner, double p):
        Strategy.__init__(self, ctx)
        self.inner = inner
        self.p = p

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """Each dissolved (or, below expert, laid-off-onto) meld, and each new meld of hand
        cards alone (000: "Cette annulation pénalise aussi une nouvelle combinaison tentée
        sans succès"), may botch the play; under failed_penalty = 0 not twice in a row (a
        hand cannot stall)."""
        cdef int diss, fresh = 0
        cdef double pfail
        self.inner.decide(st, seat, rng, d)
        if d.kind == A_PLAY and not (self.R.penalty == 0 and st.failed_last[seat]):
            diss = count_dissolved(&st.wit, &d.wit, d.placed, &fresh) + d.touched + fresh
            if diss > 0:
                pfail = 1.0 - pow(1.0 - self.p, diss)
                if next_uniform(rng) < pfail:
                    d.kind = A_FAIL

    def unwrapped(self):
        return self.inner.unwrapped()


# ---------------------------------------------------------------- dissolved melds
cdef void sort_melds(const Witness* w, uint8_t* out) noexcept nogil:
    """Each meld's card ids sorted ascending (insertion sort, melds are short)."""
    cdef int m, i, j, a, b
    cdef uint8_t x
    for m in range(w.n_melds):
        a = w.start[m]
        b = w.start[m + 1]
        for i in range(a, b):
            x = w.cards[i]
            j = i - 1
            while j >= a and out[j] > x:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = x


cdef inline int take_subset(const uint8_t* a, int na, const uint8_t* b, uint8_t* used,
                            int nb, int mark) noexcept nogil:
    """1 if sorted multiset a fits in the unused entries of sorted b (marks them if mark)."""
    cdef int i = 0, j = 0
    while i < na:
        while j < nb and (used[j] or b[j] < a[i]):
            j += 1
        if j == nb or b[j] != a[i]:
            return 0
        if mark:
            used[j] = 1
        i += 1
        j += 1
    return 1


cdef int count_dissolved(const Witness* old, const Witness* new, const uint8_t* placed,
                         int* fresh) noexcept nogil:
    """Table melds that a play broke up. An old meld is kept when its cards sit, all
    together, in one new meld (extending a meld or merging two keeps them; splitting a
    meld or taking a card from it does not); matched greedily in meld order. fresh (when
    placed is not NULL): the new melds that host no kept meld and are made of placed hand
    cards alone (matched greedily in meld order), the new melds laid from the hand."""
    cdef uint8_t so[MAX_TABLE]
    cdef uint8_t sn[MAX_TABLE]
    cdef uint8_t used[MAX_TABLE]
    cdef uint8_t left[NCARD]
    cdef int m, k, a, na, b, nb, i, ok, kept = 0
    sort_melds(old, so)
    sort_melds(new, sn)
    memset(used, 0, MAX_TABLE)
    for m in range(old.n_melds):
        a = old.start[m]
        na = old.start[m + 1] - a
        for k in range(new.n_melds):
            b = new.start[k]
            nb = new.start[k + 1] - b
            if nb >= na and take_subset(so + a, na, sn + b, used + b, nb, 0):
                take_subset(so + a, na, sn + b, used + b, nb, 1)
                kept += 1
                break
    if placed != NULL:
        memcpy(left, placed, NCARD)
        fresh[0] = 0
        for k in range(new.n_melds):
            b = new.start[k]
            nb = new.start[k + 1] - b
            ok = 1
            for i in range(b, b + nb):
                if used[i] or left[sn[i]] == 0:
                    ok = 0
                    break
            if not ok:
                continue
            for i in range(b, b + nb):
                left[sn[i]] -= 1
            fresh[0] += 1
    return old.n_melds - kept


cdef void _fill_witness(Witness* w, melds) except *:
    cdef int i = 0, m = 0
    w.n_melds = 0
    w.start[0] = 0
    for meld in melds:
        for c in meld:
            w.cards[i] = c
            w.stands[i] = c
            i += 1
        m += 1
        w.start[m] = i
    w.n_melds = m


def dissolved(old_melds, new_melds):
    """How many of ``old_melds`` a table rearranged into ``new_melds`` broke up (the
    fallible player's count; for tests)."""
    cdef Witness a, b
    _fill_witness(&a, old_melds)
    _fill_witness(&b, new_melds)
    return count_dissolved(&a, &b, NULL, NULL)


def fresh_melds(old_melds, new_melds, placed):
    """How many of ``new_melds`` are new melds of ``placed`` hand cards alone (card ids)
    that host no kept meld of ``old_melds`` (the fallible player's count; for tests)."""
    cdef Witness a, b
    cdef uint8_t p[NCARD]
    cdef int fresh = 0
    memset(p, 0, NCARD)
    for c in placed:
        p[c] += 1
    _fill_witness(&a, old_melds)
    _fill_witness(&b, new_melds)
    count_dissolved(&a, &b, p, &fresh)
    return fresh

