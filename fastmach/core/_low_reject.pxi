# A quick reject of the aces-low search (included by fastmach/core/_solver.pyx, used by
# Solver._solve_exact).
#
# With aces high the solver first searches with aces low only (its value bounds the full
# search), and when the table needs a high ace (Q-K-A) that search finds nothing, after a
# whole sweep. Without jokers, with aces low only, an ace lies in a group of aces or in a
# run that starts with it (A-2-3...), a king in a group of kings or in a run that ends
# with it (...J-Q-K): each such run takes a 2 and a 3 (a J and a Q) of the suit; a 2 lies
# in a group or in a run holding A-2-3 or 2-3-4, which takes a 3 of the suit, and a queen
# likewise takes a jack. Each group takes at most one card of the suit, and there are at
# most (cards of the rank) / 3 groups, none unless three suits hold the rank. A table card
# of those ranks with more copies than that has no place: no partition with aces low only
# exists, and the search is not run (it would find none: the same answer, -1). Tests:
# tests/core/test_solver_low_reject.py (never a reject where the sweep finds a partition; every
# answer the same with _set_low_reject(0)).

cdef bint _low_search_needless(Impl* im) noexcept nogil:
    """_low_ends_stranded as the debug switch _set_low_reject says (1: it, 0: never, -1:
    wrongly, whenever the table holds an ace or a king)."""
    cdef int s
    if _LOW_REJECT < 0:
        for s in range(4):
            if im.must[s][1] or im.must[s][13]:
                return 1
        return 0
    return _LOW_REJECT and _low_ends_stranded(im)


cdef bint _low_ends_stranded(Impl* im) noexcept nogil:
    """1 when, without jokers and with aces low only, some table ace, 2, queen or king has
    no place in any meld (so no partition exists); 0 when it may have one."""
    cdef int s, t, v, k, tot, suits, groups, runs, a, b
    # (the value, and the two cards of its suit that each run through it takes)
    cdef int spec[4][3]
    spec[0][:] = [1, 2, 3]
    spec[1][:] = [13, 11, 12]
    spec[2][:] = [2, 3, 3]
    spec[3][:] = [12, 11, 11]
    if im.jtot > 0:
        return 0
    for k in range(4):
        v = spec[k][0]
        a = spec[k][1]
        b = spec[k][2]
        tot = 0
        suits = 0
        for t in range(4):
            tot += im.avail[t][v]
            suits += im.avail[t][v] > 0
        groups = tot // 3 if suits >= 3 else 0
        for s in range(4):
            runs = im.avail[s][a] if im.avail[s][a] < im.avail[s][b] else im.avail[s][b]
            if im.must[s][v] > runs + groups:
                return 1
    return 0
