# The jokers a state still needs (included by fastmach/core/_solver.pyx, used by
# _suit_step and _group_step when the switch _JOKER_NEED is on, as it is by default).
#
# An open run of length 1 or 2 must go on: a run of length 1 takes a card (real or a joker)
# at each of the next two positions of its suit, one of length 2 at the next. Each real
# card goes on one run at most, so the runs of suit t open before position p need at least
#     max(0, r - avail(p)) + max(0, a1 - avail(p + 1))
# jokers there (r: runs of length 1 and 2, a1: of length 1; avail: the real cards of suit
# t that may be used at a position; a position past the last value takes none). Jokers at
# other positions or of other suits are other jokers, so a state whose suits need more in
# all than its jokers left (JL) has no completion, and the search need not make it. That
# holds whatever the state's runs hold (one joker per meld forbids more, never less).
#
# Kept, not made again: a state's need is a function of its key, stored with it when it is
# made (Impl.need); a suit step subtracts the need of the suit it steps, and each listed move
# carries its suit's need after it (Move.sn, _suit_moves.pxi). _solver._set_need_kept(0)
# makes it again at every step (the reference of tests/core/test_solver_joker_need.py).
#
# What it does to the answers: none. A dropped state reaches no final state, and a state
# that does is made as before, from the same parents, with the same value and key; the
# dominance pass of the searches with jokers runs in every layer on the suit just stepped
# (_sweep, _FIXED_SCOPE), and no state that reaches no partition dominates one that does,
# so it drops the same states on those paths: every answer stays, melds included. (With
# the pass scoped by the layer's size, as without jokers, the melds of 5.8% of the answers
# on positions of jokers games changed: the smaller layers then skipped it.) See
# docs/solver.md, "Jokers: where the states go". Tests: tests/core/test_solver_joker_need.py.

cdef enum:
    NEED_NONE = 64   # a state no jokers can complete (more than any position holds)


cdef inline int _av_pos(Impl* im, int t, int p, uint64_t k2) noexcept nogil:
    """Real cards of suit t a run may take at position p (-1: no such position; at 14
    with aces high, the aces not used low)."""
    if p > im.V:
        return -1
    if p == 14:
        return im.avail[t][1] - <int>((k2 >> (9 + 2 * t)) & 3)
    return im.avail[t][p]


cdef inline int _suit_need(Impl* im, int t, uint64_t F, int p, uint64_t k2) noexcept nogil:
    """The jokers that the open runs of suit t (its 15 bits F of k1) need at least from
    position p on (NEED_NONE: none can do), see above."""
    cdef int a1 = <int>(F & 3), r, x, n
    r = a1 + <int>((F >> 2) & 3) + <int>((F >> 9) & 7)   # (length 2: a2, b2)
    if r == 0:
        return 0
    x = _av_pos(im, t, p, k2)
    if x < 0:
        return NEED_NONE
    n = r - x if r > x else 0
    if a1 > 0:
        x = _av_pos(im, t, p + 1, k2)
        if x < 0:
            return NEED_NONE
        if a1 > x:
            n += a1 - x
    return n


cdef inline int _need_except(Impl* im, uint64_t k1, uint64_t k2, int v, int s) noexcept nogil:
    """The jokers the state (k1, k2) needs in the suits other than s, after the suit step
    (v, s) (s = 4: after the group step of v, every suit): the suits up to s from v + 1,
    the others from v."""
    cdef int t, n = 0
    for t in range(4):
        if t != s:
            n += _suit_need(im, t, (k1 >> (15 * t)) & 0x7FFF, v + 1 if t < s else v, k2)
    return n


cdef inline int _need_but(Impl* im, int i, uint64_t k1, uint64_t k2, int v, int s,
                          int kept) noexcept nogil:
    """_need_except(im, k1, k2, v, s) of state i, read from its kept need (Impl.need, every
    suit's as the step before left them) less suit s's at v (none for s = 4, the group
    step); kept: _solver._NEED_KEPT (1; 0 made again, -1 one too many, debug)."""
    cdef int n
    if kept == 0:
        return _need_except(im, k1, k2, v, s)
    n = im.need[i]
    if s < 4:
        n -= _suit_need(im, s, (k1 >> (15 * s)) & 0x7FFF, v, k2)
    return n + (1 if kept < 0 else 0)


cdef inline bint _need_fails(int need, int left) noexcept nogil:
    """Does a state that needs `need` jokers, with `left` jokers left, have no completion
    (as the switch _set_joker_need says: 1 this test, -1 deliberately wrong, one joker
    short; only called when it is on)?"""
    if _JOKER_NEED > 0:
        return need > left
    return need >= left
