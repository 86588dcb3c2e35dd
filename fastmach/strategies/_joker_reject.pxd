# A sound reject of "these cards split into melds" with jokers, one joker per meld at
# most: decided without the solver that a multiset of cards and jokers is no partition of
# groups and runs using every joker (see _joker_reject.pyx).
from libc.stdint cimport uint8_t


cdef int joker_split_impossible(const uint8_t* cards, int ace_high) noexcept nogil
