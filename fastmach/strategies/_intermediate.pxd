from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
cimport cython

from fastmach.core._solver cimport Witness, NCARD, MAX_MELDS
from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._beginner cimport Beginner
from fastmach.strategies._base cimport Masks


cdef class Intermediate(Beginner):
    cdef readonly int k               # table melds it may dissolve and regroup (1..3)
    # bounds that skip sets which cannot beat the best so far (see intermediate)
    cdef Decision cand        # intermediate: the candidate set being tried
    cdef Masks mmask[MAX_MELDS]
    cdef uint64_t mkey[MAX_MELDS][2]  # per meld: its cards, 2 bits a card (mixed_value's key)
    cdef readonly long long n_regroups    # sets solved by intermediate (regroup calls)
    cdef readonly long long n_bounded     # connected sets skipped by the bound
    cdef int64_t v0                   # the hand-only optimum (the beginner's solve)
    cdef int64_t lay_all              # lay-off cap with every meld intact
    cdef int64_t vs1[MAX_MELDS]       # per meld: the solver's value with it dissolved (or a bound)
    cdef int64_t m1[MAX_MELDS]        # per meld: its mixed value with it dissolved (or a bound)
    cdef int64_t vs2[MAX_MELDS][MAX_MELDS]   # per pair (k = 3): the same for two melds
    cdef int mjok[MAX_MELDS]          # the meld holds a joker
    cdef int msuits[MAX_MELDS]        # the suits of its real cards (bits)
    cdef int capn[MAX_MELDS]          # hand cards each meld could take as lay-offs ...
    cdef int capup[MAX_MELDS]         # ... the first capup of them upward (a run's top)
    cdef uint8_t capc[MAX_MELDS][32]  # ... (card ids, a chain of a run's ends, a group's suit)
    cdef int capall[NCARD]
    cdef int capt[NCARD]
    cdef int mvdone[MAX_MELDS]        # m1[m] is the exact mixed value
    cdef uint32_t mdil[MAX_MELDS][4]  # per meld and suit: its cards' segments in it + the hand,
                                      # widened by a rank each way (loose_pair)
    cdef int64_t lc1[MAX_MELDS]       # per meld: lay_cap with it dissolved
    cdef uint64_t r1mask[MAX_MELDS]   # per meld: its related hand cards (rset as 16 bits a
                                      # suit, bit r: rank r; near_bound)
    cdef uint32_t mext[MAX_MELDS][4]  # per meld and suit: its cards' segments in it + the hand
    cdef uint64_t hmask                # the hand cards, 16 bits a suit
    cdef uint32_t hm_suit[4]          # ... and as suit masks (Masks.suit)
    cdef uint64_t cmask               # the hand cards on a lay-off chain (16 bits a suit)
    cdef int nb_pair                  # near_bound's last pair that it did not skip ...
    cdef uint64_t nb_e                # ... and its exact related cards (0: not known)
    cdef uint64_t hc2, hc3            # ... the hand cards held twice, three times
    cdef bint unit_w                  # the weights are all 1 (the cards objective)
    cdef uint64_t rb1[MAX_MELDS]      # per meld: its related cards (places in hl)
    cdef uint8_t ho[NCARD]            # hand cards that could be in a meld of hand cards
    cdef uint8_t mvplaced[NCARD]
    cdef readonly long long n_mixed   # mixed values solved (cache misses)
    cdef uint8_t scratch[NCARD]

    @cython.final
    cdef int connected(self, HState* st, const int* idx, int ns, const Masks* hm,
                       const uint8_t* hand) noexcept nogil
    @cython.final
    cdef int64_t intermediate(self, HState* st, int k, const uint8_t* hand, const int32_t* w,
                              const int32_t* jw, Decision* d) noexcept nogil
    @cython.final
    cdef int64_t pairs_k2(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const int32_t* jw, const Masks* hm, int64_t total_w, int prune,
                          int64_t* best, int64_t* best_key, Decision* d) noexcept nogil
    @cython.final
    cdef void bound_setup(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const Masks* hm) noexcept nogil
    @cython.final
    cdef int64_t lay_cap(self, const int* idx, int ns, const uint8_t* hand,
                         const int32_t* w) noexcept nogil
    @cython.final
    cdef int64_t union_bound(self, const int* idx, int ns, const uint8_t* hand,
                             const int32_t* w) noexcept nogil
    @cython.final
    cdef void load_rset(self, uint64_t bits, const uint8_t* hand) noexcept nogil
    @cython.final
    cdef int64_t mixed_value(self, HState* st, const int* idx, int ns, const int32_t* w,
                             const int32_t* jw) noexcept nogil
    @cython.final
    cdef void single_mixed(self, HState* st, int m, const uint8_t* hand, const int32_t* w,
                           const int32_t* jw, const Masks* hm) noexcept nogil
    @cython.final
    cdef int64_t set_bound(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                           const int32_t* w, const int32_t* jw, const Masks* hm,
                           int64_t total_w, int64_t best, int beaten_by_equal) noexcept nogil
    @cython.final
    cdef int64_t pair_ub(self, HState* st, const int* idx, const uint8_t* hand,
                                const int32_t* w, const int32_t* jw, const Masks* hm,
                                int64_t total_w, int64_t best, int64_t key,
                                int64_t best_key, int loose) noexcept nogil
    @cython.final
    cdef int64_t pair_bound(self, HState* st, const int* idx, const uint8_t* hand,
                            const int32_t* w, const int32_t* jw, const Masks* hm,
                            int64_t total_w, int64_t best, int beaten_by_equal,
                            int loose) noexcept nogil
    @cython.final
    cdef int loose_pair(self, int a, int b) noexcept nogil
    @cython.final
    cdef int64_t loose_bound(self, const int* idx, const uint8_t* hand, const int32_t* w,
                             int64_t best, int lose_ties) noexcept nogil
    @cython.final
    cdef int64_t mask_weight(self, uint64_t e, const uint8_t* hand,
                                    const int32_t* w) noexcept nogil
    @cython.final
    cdef int64_t near_bound(self, const int* idx, const uint8_t* hand, const int32_t* w,
                            int64_t best, int lose_ties) noexcept nogil
    @cython.final
    cdef int64_t lay_exact(self, HState* st, const int* idx, int ns, uint8_t* rem,
                           const int32_t* w) noexcept nogil
    @cython.final
    cdef int64_t exact_bound(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                             const int32_t* w, int64_t mv) noexcept nogil
    @cython.final
    cdef void store_vs(self, const int* idx, int ns, int64_t v) noexcept nogil
