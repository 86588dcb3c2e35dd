# A proof that aces high cannot beat aces low (included by fastmach/core/_solver.pyx, asked
# by Solver._solve_exact between its two searches).
#
# With aces high the solver first searches with aces low only (its answer: value low_val,
# tie-break key low_sec), then sweeps again with aces high, keeping the states that can
# still beat that answer: a greater value, or the same value and a greater key. On the
# positions of a player who held its cards until the stock ran out (a 30-46-card hand on a
# 40-55-card table) that second sweep makes 10-20 times the states of the first, and most
# often finds nothing better. Without jokers, and where every usable hand card (those
# _drop_useless keeps) weighs something, a partition of value val uses the cards U - L: U
# the table and every usable hand card, L the hand cards it leaves out, of weight
# W - val (W: _weight_bound) and of key key(U) - key(L) (the key is a sum over the cards
# used). So the sweep can beat the aces-low answer only with an L of weight below
# gap = W - low_val, or of weight gap and a key below key(U) - low_sec. Where gap is less
# than three times the lightest usable hand card every such L holds at most two cards:
# when split_impossible (fastmach/core/_split_reject.pyx, sound) says that U - L splits
# into no melds for each of them, no partition beats the aces-low answer, and the solver
# returns it as it would after the sweep (its path rebuilt: the same melds). A check of
# a large position costs about what 100-200 states of a sweep cost, and the sweep with aces
# high makes some 10 times the states of the last one with aces low: the proof is tried
# only where that one made _HIGH_MIN states at least and the checks, at _HIGH_CHECK
# states each, cost no more (on the experts' small positions it would cost more than the
# sweeps it saves). Tests:
# tests/core/test_solver_high_reject.py (every answer the same with _set_high_reject(0),
# melds included; a planted fault that ignores the key is caught).

cdef long _HIGH_STATS[2]     # debug: proofs tried and proofs made (_high_reject_stats)


cdef bint _high_split_rejected(Impl* im, int64_t low_val, skey low_sec) noexcept nogil:
    """1 when no partition with aces high beats the aces-low answer (low_val, low_sec),
    proved as above (im: the position after _drop_useless, in the search's coordinates);
    0 when not proved (the sweep decides). _set_high_reject: 1 this, 0 never, -1 wrongly
    (a tie on the value taken as lost, whatever the keys)."""
    cdef uint8_t cards[NCARD]
    cdef int tc[JOKER]       # the usable hand cards: card ids, copies, weights and keys
    cdef int tn[JOKER]
    cdef int64_t tw[JOKER]
    cdef skey tk[JOKER]
    cdef int nt = 0, s, v, c, i, j, checks
    cdef int64_t W = 0, gap, wmin = -1
    cdef skey kall = 0, klow
    if not _HIGH_REJECT or im.jtot > 0 or low_val < 0 or im.n_nodes < _HIGH_MIN:
        return 0
    for s in range(4):
        for v in range(1, 14):
            c = s * 13 + v - 1
            cards[c] = <uint8_t>im.avail[s][v]
            W += im.avail[s][v] * im.w[s][v]
            kall += <skey>im.avail[s][v] * im.sw[s][v]
            if im.avail[s][v] > im.must[s][v]:
                if im.w[s][v] <= 0:
                    return 0   # (a partition may leave out any number of such cards)
                tc[nt] = c
                tn[nt] = im.avail[s][v] - im.must[s][v]
                tw[nt] = im.w[s][v]
                tk[nt] = im.sw[s][v]
                nt += 1
                if wmin < 0 or im.w[s][v] < wmin:
                    wmin = im.w[s][v]
    cards[JOKER] = 0
    gap = W - low_val
    if nt == 0 or gap <= 0 or gap >= 3 * wmin or kall < low_sec:
        return 0
    klow = kall - low_sec    # the key of the cards the aces-low answer leaves out
    # the checks to make (the L that beat it), within the budget
    checks = 1
    for i in range(nt):
        if _leaves_less(tw[i], tk[i], gap, klow):
            checks += 1
            for j in range(i, nt):
                checks += _pair(tn, tw, tk, i, j, gap, klow)
    if checks * _HIGH_CHECK > im.n_nodes:
        return 0
    _HIGH_STATS[0] += 1
    # L empty, then one card, then two: the first U - L not rejected ends the proof
    if not split_impossible(cards, 1):
        return 0
    for i in range(nt):
        if not _leaves_less(tw[i], tk[i], gap, klow):
            continue   # (nor then does a pair holding it: more weight)
        if _HIGH_REJECT < 0 and tw[i] == gap:
            continue   # (the planted fault: a tie on the value taken as lost)
        cards[tc[i]] -= 1
        if not split_impossible(cards, 1):
            return 0
        for j in range(i, nt):
            if not _pair(tn, tw, tk, i, j, gap, klow) or \
                    _HIGH_REJECT < 0 and tw[i] + tw[j] == gap:
                continue
            cards[tc[j]] -= 1
            c = split_impossible(cards, 1)
            cards[tc[j]] += 1
            if not c:
                return 0
        cards[tc[i]] += 1
    _HIGH_STATS[1] += 1
    return 1


cdef inline bint _pair(const int* tn, const int64_t* tw, const skey* tk, int i, int j,
                       int64_t gap, skey klow) noexcept nogil:
    """Whether leaving out the usable hand cards i and j (i <= j; two copies of i where
    j = i) beats the aces-low answer."""
    return (j != i or tn[i] >= 2) and _leaves_less(tw[i] + tw[j], tk[i] + tk[j], gap, klow)


cdef inline bint _leaves_less(int64_t w, skey k, int64_t gap, skey klow) noexcept nogil:
    """Whether leaving out hand cards of weight w and key k beats the aces-low answer
    (which leaves out weight gap, key klow): less weight, or as much and a smaller key."""
    return w < gap or (w == gap and k < klow)
