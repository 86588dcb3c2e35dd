# The dominance pass of a layer without jokers in one suit (included by
# fastmach/core/_solver.pyx, used by _prune_dominated).
#
# After a suit step of a layer below _ALL_FROM states the pass compares the states in
# that suit only; without jokers no run holds one, so of its rules only the three on runs
# without a joker apply (one more 3+ run; a run of length 1, or 2, one bucket up), and the
# suit's pattern is its 6 low bits. This is that pass, on that suit only: the same states
# visited in the same order, the same rules in the same order, looked up the same way
# (the bitmap of the suit's patterns, _pattern_filter.pxi, filled and emptied for that
# suit alone: the others are all 0 already; the bitmap of live keys filled and emptied
# as _pats_fill and _pats_clear do). So the same states are dropped. Tests:
# tests/core/test_solver_plain_steps.py (every layer and answer the same with
# _set_plain_prune(0)).

cdef void _prune_plain_suit(Impl* im, int s) noexcept nogil:
    """_prune_dominated(im, s) for a layer without jokers (im.jtot == 0, the bitmap filter
    on): the same states dropped."""
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, sh = 15 * s, a1, a2, a3
    cdef uint64_t k1, k2, F, one = <uint64_t>1 << (15 * s)
    cdef int64_t val
    cdef uint64_t* P = im.pats[s]
    cdef Node* nodes = im.nodes
    _kbits_fit(im, hi - lo)
    for i in range(lo, hi):
        if nodes[i].val >= 0:
            F = (nodes[i].k1 >> sh) & 0x7FFF
            P[F >> 6] |= <uint64_t>1 << (F & 63)
            if _KEY_FILTER:   # the bitmap of live keys _beats reads (_pattern_filter.pxi)
                _kbit_set(im, nodes[i].hbits)
    for i in range(lo, hi):
        val = nodes[i].val
        if val < 0:
            continue
        k1 = nodes[i].k1
        F = (k1 >> sh) & 0x7FFF
        if F == 0:
            continue
        k2 = nodes[i].k2
        a1 = <int>(F & 3)
        a2 = <int>((F >> 2) & 3)
        a3 = <int>((F >> 4) & 3)
        if a3 < 3 and _pat(P, F + 16) and _beats(im, k1 + (one << 4), k2, val, _sec(&nodes[i])):
            nodes[i].val = -1
        elif a1 > 0 and a2 < 3 and _pat(P, F - 1 + 4) \
                and _beats(im, k1 - one + (one << 2), k2, val, _sec(&nodes[i])):
            nodes[i].val = -1
        elif a2 > 0 and a3 < 3 and _pat(P, F - 4 + 16) \
                and _beats(im, k1 - (one << 2) + (one << 4), k2, val, _sec(&nodes[i])):
            nodes[i].val = -1
    for i in range(lo, hi):
        P[((nodes[i].k1 >> sh) & 0x7FFF) >> 6] = 0
    _kbits_clear(im, lo, hi)
