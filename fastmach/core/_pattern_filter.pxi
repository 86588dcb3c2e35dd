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
#
# Keys: a lookup whose pattern is held still mostly finds no state (the state differs in
# other suits or in k2), after a probe of the hash table and a read of a state, two
# cache misses in a large layer. So the fill also sets a bit for each live state's key
# in a bitmap of 2^16 bits by its hash (Impl.kbits, 8 KB), and _beats reads that bit
# first: not set, no live state of the layer has that key, and the probe would have
# found none, or one marked dropped during the pass (before the fill, or by it: a
# dropped state's value, -1, beats nothing), so _beats answers False either way. The
# bitmap is emptied after the pass (word by word through the states, or whole for a
# large layer). -2 plants a wrong one (never set: no lookup finds a state), for the tests.

cdef inline bint _pat(const uint64_t* P, uint64_t F) noexcept nogil:
    """Does some state of the layer hold the suit pattern F (in the suit of P)?"""
    return (P[F >> 6] >> (F & 63)) & 1


cdef void _pats_fill(Impl* im, int lo, int hi, int only) noexcept nogil:
    """Set the patterns of the live states lo..hi-1 in suit `only` (-1: every suit)."""
    cdef int i, s
    cdef uint64_t k1, F, h
    if _PAT_FILTER != 1:
        memset(im.kbits, 0xFF, sizeof(im.kbits))
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
            if _KEY_FILTER:
                h = _hash(k1, im.nodes[i].k2)
                im.kbits[(h >> 40) & (KBITS - 1)] |= <uint64_t>1 << ((h >> 34) & 63)
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
        memset(im.kbits, 0, sizeof(im.kbits))
        return
    if hi - lo > KBITS // 4:
        memset(im.kbits, 0, sizeof(im.kbits))
    for i in range(lo, hi):
        k1 = im.nodes[i].k1
        if hi - lo <= KBITS // 4:
            im.kbits[(_hash(k1, im.nodes[i].k2) >> 40) & (KBITS - 1)] = 0
        for s in range(4):
            im.pats[s][((k1 >> (15 * s)) & 0x7FFF) >> 6] = 0
