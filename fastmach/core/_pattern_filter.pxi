# Which suit patterns a layer holds, for the dominance pass (included by
# fastmach/core/_solver.pyx, used by _prune_dominated).
#
# The dominance pass looks up, for every state and every suit with an open run, the keys
# of the states that would dominate it (one more 3+ run, a run one length bucket up, ...):
# with jokers up to eight lookups per suit, nearly all of which find nothing, each a hash
# probe into a table and a state far apart in memory. A dominating key differs from the
# state's in one suit only, where it holds a pattern F' (15 bits) that the rule names; so
# before the pass every pattern held by a state of the layer in each suit compared is set
# in a bitmap (Impl.pats, 4 x 2^15 bits), and a rule whose F' is not set is not looked up.
#
# Why the pass marks the same states: a lookup whose pattern is not set would have found
# no state (no state of the layer holds F' in that suit), and _beats answers False when it
# finds none; a pattern set for a state marked later in the pass only means a lookup that
# reads that state, as it did before (its value, -1, beats nothing). The bitmap is filled
# from the states of the layer the pass reads, those _find probes; it is all 0 between
# passes (emptied word by word through the same states). Tests:
# tests/test_solver_pattern_filter.py (every layer and every answer the same with
# _set_pattern_filter(0), which sets every bit; -1 plants a wrong filter they must catch).

cdef inline bint _pat(const uint64_t* P, uint64_t F) noexcept nogil:
    """Does some state of the layer hold the suit pattern F (in the suit of P)?"""
    return (P[F >> 6] >> (F & 63)) & 1


cdef void _pats_fill(Impl* im, int lo, int hi, int only) noexcept nogil:
    """Set the patterns of the live states lo..hi-1 in suit `only` (-1: every suit)."""
    cdef int i, s
    cdef uint64_t k1, F
    if _PAT_FILTER != 1:
        for s in range(4):
            memset(im.pats[s], 0xFF, sizeof(im.pats[s]))
        if _PAT_FILTER == -1:
            # (a wrong filter, for the tests: no pattern with a 3+ run that holds a joker,
            # b3 > 0, i.e. F >= 4096: words 64 and up)
            for s in range(4):
                memset(&im.pats[s][64], 0, (512 - 64) * sizeof(uint64_t))
        return
    for i in range(lo, hi):
        if im.nodes[i].val >= 0:
            k1 = im.nodes[i].k1
            for s in range(4):
                if only < 0 or s == only:
                    F = (k1 >> (15 * s)) & 0x7FFF
                    im.pats[s][F >> 6] |= <uint64_t>1 << (F & 63)


cdef void _pats_clear(Impl* im, int lo, int hi) noexcept nogil:
    """Empty the bitmap again (every word a state of lo..hi-1 may have set)."""
    cdef int i, s
    cdef uint64_t k1
    if _PAT_FILTER != 1:
        memset(im.pats, 0, sizeof(im.pats))
        return
    for i in range(lo, hi):
        k1 = im.nodes[i].k1
        for s in range(4):
            im.pats[s][((k1 >> (15 * s)) & 0x7FFF) >> 6] = 0
