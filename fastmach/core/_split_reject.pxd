# A sound reject of "these cards split into melds": decided without the solver that a
# multiset of cards (no jokers) is no partition of groups and runs (see _split_reject.pyx).
from libc.stdint cimport uint8_t


cdef int split_impossible(const uint8_t* cards, int ace_high) noexcept nogil
