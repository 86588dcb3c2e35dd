# The compiled boundary of the exact partition solver (fastmach/core/_solver.pyx).
#
# Card ids: c = suit*13 + (rank-1), suits S H D C = 0..3, ranks A=1 .. K=13; joker = 52.
# A multiset of cards is a uint8 count array of length NCARD (index 52 counts jokers).
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t

cdef enum:
    NCARD = 53
    JOKER = 52
    MAX_MELDS = 64        # at most 160 cards on a table, 3 per meld at least -> 53
    MAX_TABLE = 176

cdef struct SolverRules:
    int decks             # copies of each card type in the deck (2 or 3)
    int ace_high          # 1: ace low or high (A-2-3 and Q-K-A), 0: ace low only
    int jokers_per_meld   # 1, or 0 for unlimited

cdef struct Witness:
    # melds in CSR form: meld m holds cards[start[m]:start[m+1]]
    int n_melds
    int start[MAX_MELDS + 1]
    uint8_t cards[MAX_TABLE]    # card ids (52 for a joker), in meld order (runs ascending)
    uint8_t stands[MAX_TABLE]   # the card each entry stands for (itself, or what a joker is)

cdef class Solver:
    # work buffers, reused across calls; one Solver per thread
    cdef void* _impl
    cdef Witness scratch        # the melds rebuilt by the last solve
    cdef Witness mirrored       # the melds of a solve on the mirrored position
    cdef int relax_pass         # 1 while solving the relaxation of one joker per meld
    cdef int64_t solve(self, const uint8_t* table, const uint8_t* hand,
                       const SolverRules* rules, const int32_t* card_w,
                       const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    # Maximise sum of card_w[c] (and joker_w[value] for each joker, by the value it stands
    # for, 1..14) over all cards in the final melds, where every table card is used and any
    # subset of hand cards may be added. Returns the best total (table cards included),
    # or -1 when the table itself cannot be partitioned, -4 past the state limit (about
    # 8 million states: very large hands with jokers). `placed` (length NCARD) receives
    # the counts of hand cards used; `wit` (may be NULL) the melds.
    cdef int64_t _solve_one(self, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    cdef int64_t _solve_exact(self, const uint8_t* table, const uint8_t* hand,
                              const SolverRules* rules, const int32_t* card_w,
                              const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
