# A Python bot in the compiled turn loop: decide() takes the GIL, hands the position to a
# Python callback (fastmach.strategies.bots.BotSeat) and copies its checked answer into
# the decision. Anything the callback raises stops the hand (Context.rc = RC_PYTHON, the
# exception in Context.error); the engine raises it.
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

from fastmach.core._solver cimport NCARD, Witness
from fastmach.game._turn cimport (HState, Decision, A_PLAY, A_DRAW, A_PASS, RC_PYTHON, set_draw,
                             MAX_PLAYERS)
from fastmach.strategies._base cimport Context, Strategy


cdef class PyBot(Strategy):
    """Calls ``callback(seat, position) -> (kind, placed, taken, melds, stands)``:
    position is a dict of plain Python data (see position_dict); kind is "play", "draw"
    or "pass", placed 53 counts, taken the jokers taken back, melds and stands the whole
    table after a play."""

    cdef readonly object callback
    gil_free = False   # the engine keeps the GIL while a bot sits at the table

    def __init__(self, Context ctx, callback):
        Strategy.__init__(self, ctx)
        self.callback = callback

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        set_draw(d)
        with gil:
            try:
                kind, placed, taken, melds, stands = self.callback(seat, position_dict(st, self.R.players))
                fill_decision(d, kind, placed, taken, melds, stands)
            except BaseException as e:
                self.ctx.rc = RC_PYTHON
                self.ctx.error = e
                set_draw(d)


cdef dict position_dict(HState* st, int players):
    """The position as Python data: every hand's counts, the meld list, the stock size,
    opened flags, match scores, the hand and turn numbers."""
    cdef int s, m, i
    cdef Witness* w = &st.wit
    return {
        "hands": [[st.hands[s][c] for c in range(NCARD)] for s in range(players)],
        "melds": [[w.cards[i] for i in range(w.start[m], w.start[m + 1])] for m in range(w.n_melds)],
        "stands": [[w.stands[i] for i in range(w.start[m], w.start[m + 1])] for m in range(w.n_melds)],
        "stock": st.stock_len - st.stock_pos,
        "opened": [bool(st.opened[s]) for s in range(players)],
        "failed_last": [bool(st.failed_last[s]) for s in range(players)],
        "scores": [st.scores[s] for s in range(players)],
        "hand": st.hand_no,
        "turn": st.turn + 1,
    }


cdef void fill_decision(Decision* d, kind, placed, int taken, melds, stands) except *:
    cdef int c, m, i = 0
    if kind == "play":
        d.kind = A_PLAY
        d.n_placed = 0
        for c in range(NCARD):
            d.placed[c] = placed[c]
            d.n_placed += placed[c]
        d.taken = taken
        d.wit.n_melds = 0
        d.wit.start[0] = 0
        for m in range(len(melds)):
            for c, x in zip(melds[m], stands[m]):
                d.wit.cards[i] = c
                d.wit.stands[i] = x
                i += 1
            d.wit.start[m + 1] = i
        d.wit.n_melds = len(melds)
    elif kind == "pass":
        d.kind = A_PASS
    else:
        d.kind = A_DRAW
