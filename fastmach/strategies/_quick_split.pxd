# A quick split: a partition of a multiset of cards (jokers included) into melds, every
# card used, found by a depth-first search within a budget (see _quick_split.pyx).
from libc.stdint cimport uint8_t

from fastmach.core._solver cimport SolverRules, Witness


cdef int quick_split(const uint8_t* cards, const SolverRules* rules, int budget,
                     Witness* wit) noexcept nogil
