# The compiled strategy interface: see _base.pxd.
from fastmach.core._solver cimport Solver, NCARD, JOKER
from fastmach.game._turn cimport ERules, HState, Decision, A_DRAW, MAX_DECK, MAX_PLAYERS


cdef class Context:
    """The rules as plain ints, the exact solver and the error slot shared by every
    strategy object of one engine (built by fastmach.engine.make_engine)."""

    def __init__(self, dict cfg, Solver solver=None):
        """cfg (fastmach.engine.engine_config): its ``rules`` are the ERules fields.
        ``solver``: the Python solve's solver (fastmach.core._batch.python_solver), so that
        a position a seat's strategy solved is in its memo when the reference State asks
        the solver about it; the engine then holds the GIL throughout."""
        self.R = cfg["rules"]
        if not (2 <= self.R.players <= MAX_PLAYERS) or not (0 < self.R.deck_size <= MAX_DECK):
            raise ValueError("engine: players or deck size out of range")
        self.shared = solver is not None
        self.solver = solver if solver is not None else Solver()
        self.rc = 0
        self.error = None
        self.melds = True

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
        self.melds_blind = False

    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil:
        d.kind = A_DRAW   # a skill that sees nothing draws


cdef class Strategy:
    """A seat's policy (see _base.pxd)."""

    def __init__(self, Context ctx):
        self.ctx = ctx
        self.R = &ctx.R
        self.melds_blind = False

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
