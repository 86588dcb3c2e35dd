from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t
from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._base cimport Strategy

cdef enum:
    MAX_MEMBERS = 16


cdef class Mixed(Strategy):
    """A mixture of strategies: each seat plays one member for a whole hand, drawn from
    the hand's deal key and the seat (the weights as the chances)."""
    cdef list members                      # the member strategies (keeps them alive) ...
    cdef PyObject* member[MAX_MEMBERS]     # ... and the same, for the nogil decision
    cdef uint64_t cut[MAX_MEMBERS]         # cumulative weights, as 64-bit thresholds
    cdef readonly int n
    cdef int pick(self, const HState* st, int seat) noexcept nogil
