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
    int ace_high          # 0: ace low only; 1: low or high (A-2-3 and Q-K-A), a run may
                          # hold one at each end (A 2 ... K A); 2: low or high, never both
                          # (the solve's melds split such a run, see wit_split_wraps)
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
    cdef void* _memo            # the last answers (SolveMemo, see _solve_memo.pxi)
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
    # the counts of hand cards used; `wit` (may be NULL) the melds. The answer to inputs
    # asked again recently comes from a memo (_solve_memo.pxd); solve_direct never uses it.
    cdef int place_all(self, const uint8_t* table, const uint8_t* hand,
                       const SolverRules* rules, const int32_t* card_w,
                       const int32_t* joker_w, Witness* wit) noexcept nogil
    # 1 (wit: the melds) when the table and every hand card split into melds, 0 when
    # not, < -1 an error (-4: past the state limit). Positive weights (only the search
    # that places everything runs: it is exact for this question).
    cdef int64_t solve_direct(self, const uint8_t* table, const uint8_t* hand,
                              const SolverRules* rules, const int32_t* card_w,
                              const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    cdef int64_t _solve_dir(self, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    cdef int64_t _solve_way(self, int mirrored, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    cdef int64_t _solve_one(self, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    cdef int64_t _solve_exact(self, const uint8_t* table, const uint8_t* hand,
                              const SolverRules* rules, const int32_t* card_w,
                              const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil
    cdef int _left_out_answer(self, void* impl, const SolverRules* rules, int64_t best_val,
                              uint64_t best_sec, int low_states, int64_t* val,
                              uint64_t* sec) noexcept nogil


cdef inline void wit_split_wraps(Witness* w) noexcept nogil:
    """Lay every 14-card run (A 2 ... K A: an ace at each end) as two runs, A..7 and 8..A:
    the same cards, both valid (at most 4 jokers: each half keeps a real card, and one
    joker per meld holds in both). Used where the rules say an ace is low or high, never
    both (SolverRules.ace_high = 2): such a run is never a meld, and every multiset it
    covers is covered by the two halves, so the solver's optimum is unchanged."""
    cdef int m = 0, a, i, p
    cdef uint8_t cards[14]
    cdef uint8_t stands[14]
    cdef uint8_t used[15]
    while m < w.n_melds:
        a = w.start[m]
        if w.start[m + 1] - a != 14:
            m += 1
            continue
        # the entries in run order (position 1..14 of what each stands for)
        for i in range(15):
            used[i] = 0
        for i in range(14):
            p = w.stands[a + i] % 13 + 1
            if p == 1 and used[1]:
                p = 14
            used[p] = 1
            cards[p - 1] = w.cards[a + i]
            stands[p - 1] = w.stands[a + i]
        for i in range(14):
            w.cards[a + i] = cards[i]
            w.stands[a + i] = stands[i]
        for i in range(w.n_melds + 1, m + 1, -1):
            w.start[i] = w.start[i - 1]
        w.start[m + 1] = a + 7
        w.n_melds += 1
        m += 2
