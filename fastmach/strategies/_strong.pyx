# The strong player: holds its cards and goes out in one play (see Strong.decide).
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from fastmach._solver cimport NCARD, JOKER
from fastmach._turn cimport ERules, HState, Decision, A_PLAY, set_draw
from fastmach.strategies._base cimport Context, meld_cards


cdef class Strong(Strategy):

    def __init__(self, Context ctx, Strategy expert_strategy, Skill expert, int stock_low,
                 int hand_cap, int rush, int keep):
        Strategy.__init__(self, ctx)
        self.xstrat = expert_strategy
        self.expert = expert
        self.stock_low = stock_low
        self.hand_cap = hand_cap
        self.rush = rush
        self.keep = keep

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """Hold, or play keeping cards back.

        Holding (where the rules let a player who can play draw instead, or pass on an
        empty stock): a play that does not empty the hand is not made, the player draws,
        while the stock holds more than stock_low cards, the hand fewer than hand_cap
        cards and every opponent more than rush cards. A play that empties the hand is
        always made. Otherwise (or where the player must play) it plays the maximum
        placement of its hand without the cards it keeps back (keep: 1 the jokers, 2 the
        jokers and J/Q/K), or the whole maximum placement when that places nothing. Before
        opening (opening_points) it opens as the expert does."""
        cdef const ERules* R = self.R
        cdef const uint8_t* hand = st.hands[seat]
        cdef int n = st.hand_n[seat], s, c, opp = 1 << 30
        cdef int left = st.stock_len - st.stock_pos
        cdef bint may_hold = R.may_draw if left > 0 else R.may_pass
        set_draw(d)
        if n == 0:
            return
        for s in range(R.players):
            if s != seat and st.hand_n[s] < opp:
                opp = st.hand_n[s]
        if R.opening > 0 and not st.opened[seat]:
            self.xstrat.decide(st, seat, rng, d)
            return
        if may_hold and left > self.stock_low and opp > self.rush and \
                (self.hand_cap == 0 or n < self.hand_cap):
            if not self.may_go_out(st, hand):
                return   # draw: no play empties the hand
            self.xstrat.decide(st, seat, rng, d)
            if self.ctx.rc or d.kind != A_PLAY or d.n_placed - d.taken < n:
                set_draw(d)
            return
        self.xstrat.decide(st, seat, rng, d)
        if self.ctx.rc or d.kind != A_PLAY or d.n_placed - d.taken >= n or self.keep == 0:
            return
        memcpy(self.kept, hand, NCARD)
        self.kept[JOKER] = 0
        if self.keep >= 2:
            for c in range(JOKER):
                if c % 13 >= 10:
                    self.kept[c] = 0
        self.expert.play(st, self.kept, R.ones, R.ones_j, &self.alt)
        if self.ctx.rc:
            return
        if self.alt.kind == A_PLAY:
            memcpy(d, &self.alt, sizeof(Decision))

    cdef bint may_go_out(self, HState* st, const uint8_t* hand) noexcept nogil:
        """False when no play can empty the hand: without jokers (in the hand or on the
        table), a hand card that no meld of hand and table cards could hold (meld_cards
        of their union). True otherwise (the solver decides)."""
        cdef uint32_t ps[4]
        cdef int c
        if hand[JOKER] or st.table[JOKER]:
            return True
        for c in range(NCARD):
            self.pool[c] = hand[c] + st.table[c]
        meld_cards(self.pool, self.R.srules.ace_high, ps)
        for c in range(JOKER):
            if hand[c] and not (ps[c // 13] >> (c % 13 + 1)) & 1:
                return False
        return True
