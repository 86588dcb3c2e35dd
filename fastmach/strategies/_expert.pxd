from libc.stdint cimport uint8_t, int32_t
from fastmach.core._solver cimport NCARD
from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._base cimport Skill
from fastmach.strategies._reject cimport NoPlays


cdef class Expert(Skill):
    """The exact solver over the whole table (the maximum placement)."""
    cdef Decision alt
    cdef uint8_t t2[NCARD]
    cdef uint8_t h2[NCARD]
    cdef uint8_t swapped[NCARD]
    cdef NoPlays no_play    # the last positions it knows without a play (_reject.pxd)
