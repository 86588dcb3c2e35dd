# The best partition whose aces are all high, where no melds are asked for (included by
# fastmach/core/_solver.pyx, asked by Solver._solve_exact between its searches with aces
# low and with aces high).
#
# With aces high a partition lays each ace low (A-2-3...), high (...Q-K-A) or in a group.
# The search with aces high carries, through every value, how many aces of each suit were
# used low: on a large hand on a large table (a player who held its cards until the stock
# ran out) it makes 10-100 times the states of the search with aces low, and it is bounded
# only by the aces-low answer. The partitions with every ace high or in a group are the
# aces-low partitions of the position turned over (value v -> 15 - v, the aces staying:
# ...Q-K-A reads A-2-3...), found by a search as cheap as the aces-low one. Where no melds
# are asked for (key_placed: the answer is its value and its tie-break key, a sum over the
# cards used, the same whichever way a partition is found), the better of the two answers
# bounds the search with aces high, which then keeps only the partitions that beat it (an
# ace low and another high); where it places every usable card (_weight_bound, every card
# weighing something) that search is not needed at all. The answer, its value and its
# placed cards, is the same: the best value, then the greatest key, over all partitions
# (tests/core/test_solver_high_only.py, against _set_high_only(0), the brute force and the
# answers with melds). Where melds are asked for the searches stay as they were (their
# melds follow their order).


cdef inline void _turn_over(Impl* im) noexcept nogil:
    """Turn the position over in place (v <-> 15 - v for v in 2..13, the aces staying):
    its own inverse."""
    cdef int s, v, t
    cdef int64_t x
    for s in range(4):
        for v in range(2, 8):
            t = im.must[s][v]
            im.must[s][v] = im.must[s][15 - v]
            im.must[s][15 - v] = t
            t = im.avail[s][v]
            im.avail[s][v] = im.avail[s][15 - v]
            im.avail[s][15 - v] = t
            x = im.w[s][v]
            im.w[s][v] = im.w[s][15 - v]
            im.w[s][15 - v] = x


cdef int _high_only(Impl* im, int64_t low_val, skey low_sec, int64_t* val,
                    skey* sec) noexcept nogil:
    """The best partition with every ace high (or in a group) that beats the aces-low
    answer (low_val, low_sec; low_val < 0: none), by the aces-low search of the position
    turned over (im in its aces-low search's state, no joker): >= 0 and val, sec its value
    and key; -1 where none beats it; < -1 an error. im is left as it came."""
    cdef int best
    _turn_over(im)
    _sec_weights(im, 1 - im.mirror, 1)
    im.moves_valid = 0
    if low_val < 0:
        best = _deepening(im)
    else:
        im.lb = low_val
        im.tie = 1
        im.tie_sec = low_sec
        _set_rest(im)
        _set_secrest(im)
        best = _sweep(im)
        im.tie = 0
    im.lb = -1
    if best >= 0:
        val[0] = im.nodes[best].val + (_HIGH_ONLY < 0)   # (debug: a planted fault)
        sec[0] = im.best_sec
        if not (val[0] > low_val or (val[0] == low_val and sec[0] > low_sec)):
            best = -1
    _turn_over(im)
    _sec_weights(im, im.mirror, 1)
    im.moves_valid = 0
    return best

