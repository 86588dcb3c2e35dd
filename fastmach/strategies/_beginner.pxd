from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
cimport cython

from fastmach.core._solver cimport Witness, NCARD, MAX_MELDS
from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._base cimport Skill, Masks

cdef enum:
    SMALL_R = 8          # mixed values with at most this many hand cards by opt_search
    MV_SLOTS = 4096      # entries of the mixed-value cache (a power of two)


cdef class Beginner(Skill):
    # regroup: the melds it builds, the cards left for lay-offs, the dissolved cards
    cdef Witness tmpwit
    cdef uint8_t rem[NCARD]   # hand cards left for lay-offs
    cdef uint8_t tS[NCARD]    # cards of the dissolved melds
    cdef int touched_m[MAX_MELDS]
    cdef readonly long long n_small   # regroups done by the small search (small_regroup)
    cdef int64_t last_vs              # regroup: the value the solver placed (before lay-offs)
    cdef Masks rmask                  # related_weight: the masks of the cards in rset
    cdef int hl[NCARD]                # the hand's card types (no jokers)
    cdef int nhl
    cdef uint8_t rset[NCARD]          # related_weight: the related hand cards it found
    cdef uint64_t rbits               # ... as places in the hand list hl
    cdef uint8_t tmv[NCARD]           # mixed_value: the cards of the set
    cdef uint8_t pcnt[NCARD]          # opt_search, part_build: the cards left to split
    cdef uint8_t oleft[NCARD]         # opt_search: copies that may still be left out,
    cdef uint8_t oskip[NCARD]         # ... those left out on this branch,
    cdef uint8_t bb_skip[NCARD]       # ... and on the best split found
    cdef int64_t bb_best              # ... its loss
    cdef const int32_t* bb_w          # ... the weights
    cdef int src[SMALL_R]             # small_mixed: its hand cards (ids, a copy each) ...
    cdef int snr
    cdef int smask                    # ... and the first subset of them it found best
    cdef int64_t v0_dec               # regroup: V0 of the decision (its hand-only solve)
    cdef uint64_t* mvc                # mixed-value cache: MV_SLOTS entries of 6 words (one
                                      # line to read): the key's 4 words, the objective
                                      # (bits 0-31; never 0: 0 = empty) with the best subset
                                      # + 1 (bits 48-63; 0 = unknown), the value. Exact:
                                      # whole keys are compared

    @cython.final
    cdef int layoff_fit(self, const Witness* W, int m, const uint8_t* R, int joker,
                        int* pos, int* card, int* stand) noexcept nogil
    @cython.final
    cdef void lay_one(self, Witness* W, int m, int pos, int card, int stand,
                             uint8_t* R, uint8_t* placed) noexcept nogil
    @cython.final
    cdef void layoffs(self, Witness* W, int n_intact, uint8_t* R, uint8_t* placed) noexcept nogil
    @cython.final
    cdef int64_t regroup(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                         const int32_t* w, const int32_t* jw, Decision* out) noexcept nogil
    @cython.final
    cdef int64_t related_weight(self, const uint8_t* hand, const int32_t* w, const Masks* hm,
                                const Masks* tm) noexcept nogil
    @cython.final
    cdef uint64_t* mv_slot(self, const uint64_t* k) noexcept nogil
    @cython.final
    cdef void mv_store(self, uint64_t* e, const uint64_t* k, int64_t v) noexcept nogil
    @cython.final
    cdef int64_t small_mixed(self, const int32_t* w, int n_in=*) noexcept nogil
    @cython.final
    cdef void opt_search(self, int left, int r0, int64_t lost) noexcept nogil
    @cython.final
    cdef int part_build(self, int left, Witness* W, int r0) noexcept nogil
    cdef int small_regroup(self, const uint8_t* hand, const int32_t* w,
                           uint8_t* placed) noexcept nogil
