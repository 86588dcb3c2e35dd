from libc.stdint cimport uint8_t, uint64_t
from fastmach.core._solver cimport NCARD
from fastmach.game._turn cimport HState, Decision, MAX_DECK
from fastmach.strategies._base cimport Strategy, Skill


cdef class Lookahead(Strategy):
    """The best of its candidate plays by Monte Carlo playouts played out by experts."""
    cdef readonly int playouts
    cdef Strategy xstrat        # the expert seat of the playouts
    cdef Skill expert           # its skill (the candidates)
    cdef HState ps              # the playout position
    cdef Decision pdec          # its decisions
    cdef Decision draw          # the draw candidate
    cdef Decision la            # candidates: the maximum placement,
    cdef Decision la_kj         # ... keeping the jokers,
    cdef Decision la_pts        # ... placing the most points
    cdef uint8_t unknown[MAX_DECK]
    cdef uint8_t hk[NCARD]
    cdef double playout(self, HState* st, int seat, Decision* cand, uint64_t* prng) noexcept nogil
