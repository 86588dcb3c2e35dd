# _drop_useless without jokers, on bitmasks (included by fastmach/core/_solver.pyx).
#
# Without jokers a hand card fits a group only if three suits hold its value, and a run
# only if some 3-window of positions around it is filled: each suit's filled positions
# are kept as one bitmask (bit p: position p, 1..14, 14 the ace when aces may be high)
# and each value's suits as a count, both updated as cards are dropped, so a window is one
# mask test. The cards are visited in _drop_useless's order with the same tests on the
# same counts, so the same cards are dropped (tests: tests/core/test_solver_plain_drop.py, the
# counts left the same as _drop_useless's with _set_plain_drop(0)).

cdef inline bint _window_filled(uint32_t m, int p, int top) noexcept nogil:
    """Does some 3-window [a, a+2] of positions 1..top holding p have every bit of m set?"""
    cdef int a
    for a in range(p - 2, p + 1):
        if a >= 1 and a + 2 <= top and ((m >> a) & 7) == 7:
            return True
    return False


cdef void _drop_useless_plain(Impl* im) noexcept nogil:
    """_drop_useless for a position without jokers (im.jtot == 0): the same cards dropped."""
    cdef uint32_t M[4]
    cdef int nsuits[14]
    cdef int s, v, ok, changed = 1, top = 14 if im.ace_high else 13
    for v in range(1, 14):
        nsuits[v] = 0
    for s in range(4):
        M[s] = 0
        for v in range(1, 14):
            if im.avail[s][v] > 0:
                M[s] |= <uint32_t>1 << v
                nsuits[v] += 1
        if im.ace_high and im.avail[s][1] > 0:
            M[s] |= <uint32_t>1 << 14
    while changed:
        changed = 0
        for s in range(4):
            for v in range(1, 14):
                if im.avail[s][v] == im.must[s][v]:
                    continue
                ok = nsuits[v] >= 3 or _window_filled(M[s], v, top) \
                    or (v == 1 and im.ace_high and _window_filled(M[s], 14, top))
                if not ok:
                    im.avail[s][v] = im.must[s][v]
                    if im.must[s][v] == 0:
                        M[s] &= ~(<uint32_t>1 << v)
                        if v == 1 and im.ace_high:
                            M[s] &= ~(<uint32_t>1 << 14)
                        nsuits[v] -= 1
                    changed = 1
