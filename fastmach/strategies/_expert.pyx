# The expert: the exact solver over the whole table.
from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.string cimport memset, memcpy
cimport cython

from fastmach.core._solver cimport NCARD, JOKER
from fastmach.game._turn cimport (ERules, HState, Decision, A_PLAY, set_draw, total, wit_copy,
                                  wit_clear)
from fastmach.strategies._base cimport Context
from fastmach.strategies._reject cimport no_plays_known, no_plays_seen


cdef int _KNOWN = 1


def _set_known(int mode):
    """Debug: 1 answers without the solver where a position is known to have no play
    (_reject.pxd: NoPlays), 0 asks the solver at every turn, -1 with a planted bug (a
    remembered position on the same table answers without looking at the cards drawn
    since: the tests must catch it)."""
    global _KNOWN
    _KNOWN = mode


cdef class Expert(Skill):

    def __init__(self, Context ctx):
        Skill.__init__(self, ctx)
        # (its plays read the table's melds only to take table jokers back: joker_swap)
        self.melds_blind = ctx.R.swap_hand == 0 or ctx.R.deck_counts[JOKER] == 0

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        """The exact solver over the whole table; under joker_swap = hand, first takes back
        every table joker whose card it holds when the play that follows places at least
        as many cards (net) as the best play without it."""
        cdef const ERules* R = self.R
        cdef int64_t best
        cdef int n, n2, i, c, nswap, cancel
        cdef bint plain = st.table[JOKER] == 0 and hand[JOKER] == 0
        set_draw(d)
        self.no_play.planted = _KNOWN < 0
        if plain and _KNOWN and no_plays_known(&self.no_play, st.table, hand, R.srules.ace_high):
            return   # d: the draw (nothing placed) the solver's empty answer gives
        if self.ctx.melds:
            best = self.solver.solve(st.table, hand, &R.srules, w, jw, d.placed, &d.wit)
        else:   # (nobody reads the melds: the solver skips them, Context.melds)
            best = self.solver.solve(st.table, hand, &R.srules, w, jw, d.placed, NULL)
            wit_clear(&d.wit)
        if best < -1:
            self.ctx.rc = <int>best
            return
        n = total(d.placed) if best >= 0 else 0
        if best < 0:
            memset(d.placed, 0, NCARD)
        if plain and best >= 0 and _KNOWN:
            for c in range(JOKER):   # every card counts: an empty answer means no play
                if w[c] <= 0:
                    break
            else:
                if n == 0:
                    no_plays_seen(&self.no_play, st.table, hand)
                else:
                    # the most the hand can place is placed: after it, the cards left
                    # have no play on the table it leaves (one would add to this best)
                    for c in range(NCARD):
                        self.t2[c] = st.table[c] + d.placed[c]
                        self.h2[c] = hand[c] - d.placed[c]
                    no_plays_seen(&self.no_play, self.t2, self.h2)
        if R.swap_hand and st.table[JOKER] > 0:
            # take back every table joker whose card the player holds, then play
            memcpy(self.t2, st.table, NCARD)
            memcpy(self.h2, hand, NCARD)
            memset(self.swapped, 0, NCARD)
            nswap = 0
            for i in range(st.wit.start[st.wit.n_melds]):
                c = st.wit.stands[i]
                if st.wit.cards[i] == JOKER and c < JOKER and self.h2[c] > 0:
                    self.h2[c] -= 1
                    self.h2[JOKER] += 1
                    self.t2[c] += 1
                    self.t2[JOKER] -= 1
                    self.swapped[c] += 1
                    nswap += 1
            if nswap > 0:
                memset(self.alt.placed, 0, NCARD)
                best = self.solver.solve(self.t2, self.h2, &R.srules, w, jw,
                                         self.alt.placed, &self.alt.wit)
                if best < -1:
                    self.ctx.rc = <int>best
                    return
                if best >= 0:
                    n2 = total(self.alt.placed)   # net cards leaving the hand
                    if n2 >= n:
                        for c in range(NCARD):
                            d.placed[c] = self.swapped[c] + self.alt.placed[c]
                        # a taken joker put straight back is an ordinary move of it
                        cancel = d.placed[JOKER] if d.placed[JOKER] < nswap else nswap
                        d.placed[JOKER] -= cancel
                        d.taken = nswap - cancel
                        wit_copy(&d.wit, &self.alt.wit)
                        n = total(d.placed)
                        d.kind = A_PLAY
                        d.n_placed = n
        if n > 0:
            d.kind = A_PLAY
            d.n_placed = n

