# Lookahead: the best candidate play by Monte Carlo playouts (expert players, common
# random numbers), the playouts played to the hand's end by fastmach.strategies._playout.
from libc.stdint cimport uint8_t, int64_t, uint64_t
from libc.string cimport memset, memcpy

from fastmach.core._solver cimport NCARD, JOKER
from fastmach.game._turn cimport (ERules, HState, Decision, A_PLAY, A_DRAW, MAX_PLAYERS,
                                  next_u64, same_play, set_draw)
from fastmach.strategies._base cimport Context
from fastmach.strategies._hidden cimport deal_hidden
from fastmach.strategies._playout cimport play_out


cdef class Lookahead(Strategy):

    def __init__(self, Context ctx, Strategy expert_strategy, Skill expert, int playouts):
        Strategy.__init__(self, ctx)
        self.xstrat = expert_strategy
        self.expert = expert
        self.playouts = playouts
        set_draw(&self.draw)

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """The best of its candidate plays by Monte Carlo playouts.

        Candidates: the expert's maximum placement (all of it); some of it: the maximum
        placement that keeps the jokers in hand, and the one that places the most points
        (when they differ from it); none of it: a draw (where drawing is allowed and the
        stock is not empty). A play that empties the hand is made at once. Each playout
        deals the cards the player cannot see (other hands and the stock) at random from
        what is not in its hand or on the table, keeping every hand size and the stock
        size, then plays the hand out with expert players; every candidate is played
        from the same deal (common random numbers). Value: 1 for a win (emptied, or
        lowest points where the rules say so), minus 0.001 per card left. Ties keep the
        earlier candidate (all, keep jokers, points, draw). The PRNG is the game's: one
        draw per round of playouts, so games stay reproducible."""
        cdef const ERules* R = self.R
        cdef const uint8_t* hand = st.hands[seat]
        cdef Decision* cands[4]
        cdef double value[4]
        cdef int i, k, n, nc = 0, best
        cdef uint64_t seed, prng
        self.xstrat.decide(st, seat, rng, d)
        if self.ctx.rc or d.kind != A_PLAY:
            return
        if d.n_placed - d.taken >= st.hand_n[seat]:
            return   # the play empties the hand: nothing beats it
        memcpy(&self.la, d, sizeof(Decision))
        cands[nc] = &self.la
        nc += 1
        if R.opening == 0 or st.opened[seat]:
            if hand[JOKER] > 0 and d.placed[JOKER] > 0:
                memcpy(self.hk, hand, NCARD)
                self.hk[JOKER] = 0
                self.expert.play(st, self.hk, R.ones, R.ones_j, &self.la_kj)
                if self.ctx.rc:
                    return
                if self.la_kj.kind == A_PLAY:
                    cands[nc] = &self.la_kj
                    nc += 1
            self.expert.play(st, hand, R.pw, R.pw_j, &self.la_pts)
            if self.ctx.rc:
                return
            if self.la_pts.kind == A_PLAY and not same_play(&self.la_pts, &self.la) \
                    and not (nc == 2 and same_play(&self.la_pts, &self.la_kj)):
                cands[nc] = &self.la_pts
                nc += 1
        if R.may_draw and st.stock_len - st.stock_pos > 0:
            cands[nc] = NULL   # draw
            nc += 1
        if nc == 1:
            return
        for k in range(nc):
            value[k] = 0.0
        n = self.playouts
        for i in range(n):
            seed = next_u64(rng)
            for k in range(nc):
                prng = seed
                value[k] += self.playout(st, seat, cands[k], &prng)
                if self.ctx.rc:
                    return
        best = 0
        for k in range(1, nc):
            if value[k] > value[best]:
                best = k
        if cands[best] == NULL:
            d.kind = A_DRAW
        elif best > 0:
            memcpy(d, cands[best], sizeof(Decision))

    cdef double playout(self, HState* st, int seat, Decision* cand, uint64_t* prng) noexcept nogil:
        """One determinised playout from seat's view: `cand` (NULL = draw) then experts
        (fastmach.strategies._playout.play_out)."""
        cdef HState* ps = &self.ps
        cdef int winner
        cdef int points[MAX_PLAYERS]
        cdef int won[MAX_PLAYERS]
        memcpy(ps, st, sizeof(HState))
        deal_hidden(self.R, ps, seat, self.unknown, prng)
        winner = play_out(self.ctx, self.R, self.xstrat, ps, seat,
                          cand if cand != NULL else &self.draw, &self.pdec, prng, points, won,
                          self.xstrat, 0)
        if self.ctx.rc:
            return 0.0
        return (1.0 if winner == seat else 0.0) - 0.001 * ps.hand_n[seat]
