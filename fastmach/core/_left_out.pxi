# The answer with aces high from the few hand cards a better partition could leave out,
# where no melds are asked for (included by fastmach/core/_solver.pyx, asked by
# Solver._solve_exact before its search with aces high).
#
# The proof of _high_reject.pxi enumerates the sets L of usable hand cards whose leaving out
# would beat the best answer known (value best_val, key best_sec: the aces-low one, or the
# one with every ace high, _high_only.pxi): weight below gap = W - best_val, or gap and a
# key below key(U) - best_sec (U: the table and every usable hand card, W its weight).
# Where gap is below three times the lightest usable hand card, every such L holds at
# most two cards. The proof stops at the first U - L that split_impossible does not
# reject; where no melds are asked for (the answer is a value and a key) the solver can
# instead ask whether that U - L splits: Solver.place_all on it (the search that places
# everything, with aces high: a sweep of a few thousand states). Taken in order of weight
# then key, the first L whose U - L splits is the answer (value W - weight(L), key
# key(U) - key(L)); where none does, the answer known stands. On the positions of a player
# who held its cards (a 36-47-card hand on a 40-55-card table, the search with aces high
# making up to 1.4 million states) a few hundred sets, nearly all rejected at once, and a
# handful of sweeps. Tests: tests/core/test_solver_left_out.py (the answers with
# _set_left_out(0), with melds, and the brute force's canonical ones).

cdef enum:
    LEFT_MAX = 4096      # the most sets L tried (of at most two cards)
    LEFT_EXACT_CAP = 64  # room for the sets asked of Solver.place_all (_LEFT_EXACT of them)

cdef int32_t _ONES[NCARD]     # the weights of Solver.place_all's question (all positive)
cdef int32_t _ONES_J[16]


cdef void _ones_init() noexcept nogil:
    cdef int i
    for i in range(NCARD):
        _ONES[i] = 1
    for i in range(16):
        _ONES_J[i] = 1


_ones_init()


cdef struct LeftOut:
    int64_t w       # the weight of the set L
    skey k          # its key
    int a, b        # its cards (b = -1: one card; a = -1: none)


cdef inline bint _lo_before(const LeftOut* x, const LeftOut* y) noexcept nogil:
    return x.w < y.w or (x.w == y.w and x.k < y.k)


cdef int _lo_cmp(const void* x, const void* y) noexcept nogil:
    cdef const LeftOut* a = <const LeftOut*> x
    cdef const LeftOut* b = <const LeftOut*> y
    if _lo_before(a, b):
        return -1
    if _lo_before(b, a):
        return 1
    return 0


cdef int _left_out_sets(Impl* im, int64_t best_val, skey best_sec, uint8_t* cards,
                        LeftOut* out, int low_states, int64_t* W_out, skey* kall_out) noexcept nogil:
    """The sets L (at most two usable hand cards) whose leaving out beats (best_val,
    best_sec) and whose U - L split_impossible does not reject, in out; cards: U (search
    coordinates). -1 where the method does not apply (a jokers position, a usable hand
    card of no weight, a gap of three light cards or more, too many sets for the budget
    or too many not rejected); W_out, kall_out: the weight and key of U."""
    cdef int tc[JOKER]
    cdef int tn[JOKER]
    cdef int64_t tw[JOKER]
    cdef skey tk[JOKER]
    cdef int nt = 0, s, v, c, i, j, n = 0, sets = 1
    cdef int64_t W = 0, gap, wmin = -1
    cdef skey kall = 0, kbest
    if im.jtot > 0 or best_val < 0:
        return -1
    for s in range(4):
        for v in range(1, 14):
            c = s * 13 + v - 1
            cards[c] = <uint8_t>im.avail[s][v]
            W += im.avail[s][v] * im.w[s][v]
            kall += <skey>im.avail[s][v] * im.sw[s][v]
            if im.avail[s][v] > im.must[s][v]:
                if im.w[s][v] <= 0:
                    return -1   # (a partition may leave out any number of such cards)
                tc[nt] = c
                tn[nt] = im.avail[s][v] - im.must[s][v]
                tw[nt] = im.w[s][v]
                tk[nt] = im.sw[s][v]
                nt += 1
                if wmin < 0 or im.w[s][v] < wmin:
                    wmin = im.w[s][v]
    cards[JOKER] = 0
    gap = W - best_val
    if nt == 0 or gap <= 0 or gap >= 3 * wmin or kall < best_sec:
        return -1
    kbest = kall - best_sec   # the key of the cards the best answer leaves out
    W_out[0] = W
    kall_out[0] = kall
    for i in range(nt):
        if _leaves_less(tw[i], tk[i], gap, kbest):
            sets += 1
            for j in range(i, nt):
                sets += _pair(tn, tw, tk, i, j, gap, kbest)
    if sets > LEFT_MAX or sets * _HIGH_CHECK > _LEFT_FACTOR * low_states:
        return -1
    # (L empty first, then one card, then two: those split_impossible rejects are dropped)
    if not split_impossible(cards, 1):
        out[n].w = 0
        out[n].k = 0
        out[n].a = -1
        out[n].b = -1
        n += 1
    for i in range(nt):
        if not _leaves_less(tw[i], tk[i], gap, kbest):
            continue
        cards[tc[i]] -= 1
        if not split_impossible(cards, 1):
            if n >= _LEFT_EXACT:
                cards[tc[i]] += 1
                return -1
            out[n].w = tw[i]
            out[n].k = tk[i]
            out[n].a = tc[i]
            out[n].b = -1
            n += 1
        for j in range(i, nt):
            if not _pair(tn, tw, tk, i, j, gap, kbest):
                continue
            cards[tc[j]] -= 1
            c = split_impossible(cards, 1)
            cards[tc[j]] += 1
            if not c:
                if n >= _LEFT_EXACT:
                    cards[tc[i]] += 1
                    return -1
                out[n].w = tw[i] + tw[j]
                out[n].k = tk[i] + tk[j]
                out[n].a = tc[i]
                out[n].b = tc[j]
                n += 1
        cards[tc[i]] += 1
    qsort(out, n, sizeof(LeftOut), _lo_cmp)
    return n
