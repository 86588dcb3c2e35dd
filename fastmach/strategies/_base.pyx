# The compiled strategy interface: see _base.pxd.
import numpy as np

from libc.string cimport memset
from fastmach._solver cimport Solver, NCARD, JOKER
from fastmach._turn cimport ERules, HState, Decision, A_DRAW, MAX_DECK, MAX_PLAYERS


cdef class Context:
    """The rules as plain ints, the exact solver and the error slot shared by every
    strategy object of one engine (built by fastmach.engine.make_engine)."""

    def __init__(self, dict cfg):
        """cfg (fastmach.engine.engine_config): plain ints and arrays."""
        cdef int c, v
        cdef ERules* R = &self.R
        self.solver = Solver()
        self.rc = 0
        self.error = None
        memset(R, 0, sizeof(ERules))
        R.players = cfg["players"]
        R.deck_size = cfg["deck_size"]
        R.hand_size = cfg["hand_size"]
        R.swap_hand = cfg["swap_hand"]
        R.may_draw = cfg["may_draw"]
        R.may_pass = cfg["may_pass"]
        R.opening = cfg["opening"]
        R.penalty = cfg["penalty"]
        R.ends_hand = cfg["ends_hand"]
        R.lowest = cfg["lowest"]
        R.ties_shared = cfg["ties_shared"]
        R.winner_takes = cfg["winner_takes"]
        R.srules.decks = cfg["decks"]
        R.srules.ace_high = cfg["ace_high"]
        R.srules.jokers_per_meld = cfg["jokers_per_meld"]
        if not (2 <= R.players <= MAX_PLAYERS) or R.deck_size > MAX_DECK:
            raise ValueError("engine: players or deck size out of range")
        hp = np.asarray(cfg["hand_points"], dtype=np.int64)
        # opening objective (fastmach.solver.opening_weights): points * scale + 1 per card,
        # a joker weighted as the card it stands for (by value 1..14)
        ow = np.asarray(cfg["opening_w"], dtype=np.int64)
        ojw = np.asarray(cfg["opening_jw"], dtype=np.int64)
        scale = cfg["point_scale"]
        R.open_scale = scale
        for c in range(NCARD):
            R.hpts[c] = hp[c]
            R.ones[c] = 1
            R.open_w[c] = ow[c]
            R.pw[c] = hp[c] * scale + 1
        for v in range(16):
            R.ones_j[v] = 1
            R.open_jw[v] = ojw[v]
            R.pw_j[v] = hp[JOKER] * scale + 1
        deck = np.asarray(cfg["deck"], dtype=np.uint8)
        if len(deck) != R.deck_size:
            raise ValueError("engine: deck length differs from deck_size")
        for c in deck:
            R.deck_counts[c] += 1

    def take_error(self):
        """(rc, exception or None) of the last failure, and clear it."""
        out = (self.rc, self.error)
        self.rc = 0
        self.error = None
        return out


cdef class Skill:
    """How far a player sees: the largest play it finds (see _base.pxd)."""

    def __init__(self, Context ctx):
        self.ctx = ctx
        self.R = &ctx.R
        self.solver = ctx.solver

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        d.kind = A_DRAW   # a skill that sees nothing draws


cdef class Strategy:
    """A seat's policy (see _base.pxd)."""

    def __init__(self, Context ctx):
        self.ctx = ctx
        self.R = &ctx.R

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        d.kind = A_DRAW

    def unwrapped(self):
        """The strategy without its patience and error tactics (the must-play check)."""
        return self


def hand_may_meld(hand, bint ace_high):
    """may_meld on a count array (length 53, no jokers), for tests."""
    cdef uint8_t h[NCARD]
    cdef int c
    for c in range(NCARD):
        h[c] = hand[c]
    return bool(may_meld(h, ace_high))
