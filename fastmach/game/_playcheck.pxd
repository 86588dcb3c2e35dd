# The compiled check of a whole play in a position (fastmach/game/_playcheck.pyx): the
# reference State's fast check and the Python bots' (fastmach/strategies/_answer.pyx).
from libc.stdint cimport uint8_t

from fastmach.core._solver cimport NCARD, MAX_MELDS, MAX_TABLE, Witness


cdef struct PlayRules:
    bint ace_high
    bint ace_both_ends
    bint swap_hand          # joker_swap = hand: a table joker may return to the hand
    int opening_points      # 0: no opening rule
    int jokers_per_meld
    int decks


cdef struct PlayIn:
    # a play read from its Play object: placed counts, jokers taken back, the table after
    # it in CSR form (meld m holds cards[start[m]:start[m+1]]) and, when it brings them,
    # its readings (stands, the same shape)
    int placed[NCARD]
    int n_placed
    int n_taken
    int n_melds
    int start[MAX_MELDS + 1]
    int cards[MAX_TABLE]
    int stands[MAX_TABLE]
    bint has_stands


cdef PlayRules play_rules(object rules) except *
cdef int read_play(object action, PlayIn* p) except -1
cdef int play_legal(const PlayRules* R, const uint8_t* hand, const Witness* table,
                    bint opened, const PlayIn* p, uint8_t* new_meld) noexcept nogil
cdef int play_accepted(const PlayRules* R, const uint8_t* hand, const Witness* table,
                       bint opened, object action, PlayIn* p) except -1
