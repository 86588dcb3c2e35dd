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
# tests/core/test_solver_pattern_filter.py (every layer and every answer the same with
# _set_pattern_filter(0), which sets every bit; -1 plants a wrong filter they must catch).
#
# Keys: a lookup whose pattern is held still mostly finds no state (the state differs in
# other suits or in k2), after a probe of the hash table and a read of a state, two
# cache misses in a large layer. So the fill also sets a bit for each live state's key
# in a bitmap of 2^16 bits by its hash (Impl.kbits, 8 KB; the hash's high half is kept in
# the state, Node.hbits, when the state is made), and _beats reads that bit
# first: not set, no live state of the layer has that key, and the probe would have
# found none, or one marked dropped during the pass (before the fill, or by it: a
# dropped state's value, -1, beats nothing), so _beats answers False either way. The
# bitmap is emptied after the pass (word by word through the states, or whole for a
# large layer). -2 plants a wrong one (never set: no lookup finds a state), for the tests.
#
# Candidates: whether some rule looks a key up at all depends on the state's pattern F in
# the suit alone (each rule's conditions on F's counts, and the bit of the F' it names).
# The fill lists each suit's distinct patterns (Impl.plist); each is asked once
# (_rule_may: the same tests as the pass), and those with a rule to look up are set in a
# third bitmap (Impl.cands). A state whose pattern is not a candidate would fail every
# _pat test of the chain, so the pass goes on to its next suit: the same lookups in the
# same order. The lists also empty the pattern bitmaps after the pass, without a walk of
# the states. A suit with more than PLIST_CAP patterns has no list (no candidates, and the
# states empty the bitmaps as before). _set_pattern_filter(2): no candidates (the
# reference); -3: wrong ones (none with a 3+ run holding a joker, for the tests).

cdef inline bint _pat(const uint64_t* P, uint64_t F) noexcept nogil:
    """Does some state of the layer hold the suit pattern F (in the suit of P)?"""
    return (P[F >> 6] >> (F & 63)) & 1


cdef inline void _kbit_set(Impl* im, uint32_t hb) noexcept nogil:
    """Set the bit of a live state's key (hb: Node.hbits) in the bitmap _kbit reads."""
    im.kbits[(hb >> 8) & (im.kwords - 1)] |= <uint64_t>1 << ((hb >> 2) & 63)


cdef inline void _kbits_fit(Impl* im, int n) noexcept nogil:
    """Before a fill (the bitmap all 0): about 32 bits for each of the layer's n states
    (at least KBITS words, at most KBITS_MAX), so that a large layer's bitmap stays mostly
    0. Its size changes no answer: a bit not set still means no live state with that key;
    more bits only mean fewer lookups that find none. (No memory for more: the size in
    use stays.)"""
    cdef int want = KBITS
    cdef uint64_t* p
    while want < n // 2 and want < KBITS_MAX:
        want *= 2
    if want > im.kalloc:
        p = <uint64_t*> realloc(im.kbits, want * sizeof(uint64_t))
        if p == NULL:
            return
        memset(p + im.kalloc, 0, (want - im.kalloc) * sizeof(uint64_t))
        im.kbits = p
        im.kalloc = want
    im.kwords = want


cdef inline void _kbits_clear(Impl* im, int lo, int hi) noexcept nogil:
    """Empty the bitmap of keys the states lo..hi-1 may have set (whole for a large layer)."""
    cdef int i
    if hi - lo > im.kwords // 4:
        memset(im.kbits, 0, im.kwords * sizeof(uint64_t))
    elif _KEY_FILTER:
        for i in range(lo, hi):
            im.kbits[(im.nodes[i].hbits >> 8) & (im.kwords - 1)] = 0


cdef void _pats_fill(Impl* im, int lo, int hi, int only) noexcept nogil:
    """Set the patterns of the live states lo..hi-1 in suit `only` (-1: every suit), list
    them, and set the bits of their keys."""
    cdef int i, s, n
    cdef uint64_t k1, F, bit
    cdef uint64_t* wd
    for s in range(4):
        im.n_plist[s] = 0
    _kbits_fit(im, hi - lo)
    if _PAT_FILTER != 1:
        memset(im.kbits, 0xFF, im.kwords * sizeof(uint64_t))
        for s in range(4):
            memset(im.pats[s], 0xFF, sizeof(im.pats[s]))
            im.n_plist[s] = -1
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
                _kbit_set(im, im.nodes[i].hbits)
            for s in range(4):
                if only < 0 or s == only:
                    F = (k1 >> (15 * s)) & 0x7FFF
                    wd = &im.pats[s][F >> 6]
                    bit = <uint64_t>1 << (F & 63)
                    if wd[0] & bit:
                        continue
                    wd[0] |= bit
                    n = im.n_plist[s]
                    if n >= PLIST_CAP:
                        im.n_plist[s] = -1
                    elif n >= 0:
                        im.plist[s][n] = <uint16_t>F
                        im.n_plist[s] = n + 1


cdef inline bint _rule_may(Impl* im, const uint64_t* P, uint64_t F, int a_rules) noexcept nogil:
    """Would some rule of _prune_dominated look a key up for a state of suit pattern F?
    (The conditions of its chain, rule by rule, without the lookups.)"""
    cdef int a1 = <int>(F & 3), a2 = <int>((F >> 2) & 3), a3 = <int>((F >> 4) & 3)
    cdef int b2 = <int>((F >> 9) & 7), b3 = <int>((F >> 12) & 7)
    if a_rules:
        if a3 < 3 and _pat(P, F + 16):
            return True
        if a1 > 0 and a2 < 3 and _pat(P, F - 1 + 4):
            return True
        if a2 > 0 and a3 < 3 and _pat(P, F - 4 + 16):
            return True
    if im.jtot == 0:
        return False
    if b3 < 7 and _pat(P, F + 4096):
        return True
    if b2 > 0 and b3 < 7 and _pat(P, F - 512 + 4096):
        return True
    if im.merged and a1 > 0 and b2 < 7 and _pat(P, F - 1 + 512):
        return True
    if im.limited and not im.merged:
        if b2 > 0 and a2 < 3 and _pat(P, F - 512 + 4):
            return True
        if b3 > 0 and a3 < 3 and _pat(P, F - 4096 + 16):
            return True
    return False


cdef int _pats_cands(Impl* im, int only, int a_rules) noexcept nogil:
    """Set the candidate patterns of the suits compared: 1, 2 where there is none (no
    rule looks a key up: the pass drops nothing), or 0 (not known: a suit compared is not
    listed, or candidates are off)."""
    cdef int s, k, n = 0
    cdef uint64_t F
    if _CANDS == 0:
        return 0
    for s in range(4):
        if (only < 0 or s == only) and im.n_plist[s] < 0:
            return 0
    for s in range(4):
        if only >= 0 and s != only:
            continue
        for k in range(im.n_plist[s]):
            F = im.plist[s][k]
            if F == 0 or (_CANDS < 0 and F >= 4096):
                continue   # (F = 0: no rule; F >= 4096 left out: the wrong candidates)
            if _rule_may(im, im.pats[s], F, a_rules):
                im.cands[s][F >> 6] |= <uint64_t>1 << (F & 63)
                n += 1
    return 1 if n > 0 or _CANDS < 0 else 2


cdef void _pats_clear(Impl* im, int lo, int hi, int only) noexcept nogil:
    """Empty the bitmaps again (every word the fill or the candidates may have set)."""
    cdef int i, s, k, listed = 1
    cdef uint64_t k1, F
    if _PAT_FILTER != 1:
        memset(im.pats, 0, sizeof(im.pats))
        memset(im.kbits, 0, im.kwords * sizeof(uint64_t))
        return
    for s in range(4):
        if (only < 0 or s == only) and im.n_plist[s] < 0:
            listed = 0
    _kbits_clear(im, lo, hi)
    if listed:
        for s in range(4):
            for k in range(im.n_plist[s]):
                F = im.plist[s][k] >> 6
                im.pats[s][F] = 0
                im.cands[s][F] = 0
        return
    for i in range(lo, hi):
        k1 = im.nodes[i].k1
        for s in range(4):
            F = ((k1 >> (15 * s)) & 0x7FFF) >> 6
            im.pats[s][F] = 0
            im.cands[s][F] = 0
