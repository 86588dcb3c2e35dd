# The canonical arrangement of an answer's cards into melds (included by
# fastmach/core/_solver.pyx; Solver.solve_direct applies it to every answer it returns with
# melds, docs/solver.md "Which melds: the canonical arrangement").
#
# The search fixes the value and, by the canonical tie-break, the cards placed; the melds
# its path rebuilds depend on how it got there (its pruning, its direction, the relaxation).
# This arranges the used cards (the table's and the placed ones, jokers included) by a
# rule on those cards alone:
#
#   Take the first card left in the tie-break's order (2S 2H 2D 2C 3S ... KC AS AH AD AC).
#   Of the melds that hold it, made of cards left (and jokers left), take the first, in
#   the order below, after which the cards left still split into melds whose jokers weigh
#   what the answer's value leaves them; repeat until no card is left.
#     - runs before groups;
#     - runs: the longer first; of one length, the one starting lower; of one window,
#       position by position from its low end, a real card before a joker (where a card
#       is left);
#     - groups: of four before three; fewer jokers first; then by the other suits held,
#       as a list in the order S H D C, the lexicographically smaller first.
#   Melds come in the order chosen; a run's cards from its low end (position 1, the low
#   ace, to 14, the high ace), each joker standing for its position; a group's real cards
#   by suit, then its jokers, standing for the missing suits in the order S H D C. A joker
#   weighs joker_w of the value it stands for (a group of aces: 14 when aces may be high).
#
# That is a depth-first search whose first success is the answer; it never depends on how
# the value was found. It is exact (a candidate is kept only if the rest splits), and a
# failure is remembered by the cards left and the joker weight they still owe (ArrFail), so
# a dead end is not explored twice. Runs are tried only on windows whose gaps (positions
# with no card left) the jokers allowed can fill (a prefix count of the suit's gaps).
# The reference: tests/refs/arrange.py (the same rule, melds made by blind enumeration and
# sorted by the rule's key).

cdef struct ArrFail:
    uint64_t k0       # the cards left, 2 bits a card id (0..31)
    uint64_t k1       # ... (32..51), and the jokers left (3 bits at 40)
    int64_t need      # the joker weight they still owe
    uint32_t gen      # the call that wrote it (Arrange.gen): older entries read as empty


cdef struct Arrange:
    uint8_t cnt[NCARD]    # the cards left (jokers at JOKER)
    uint64_t k0           # cnt packed as ArrFail.k0, k1
    uint64_t k1
    int64_t need          # the joker weight still owed
    int top               # the highest run position (14 when aces may be high)
    int both              # 1: a run may hold an ace at each end (the 14-card run)
    int limited           # 1: one joker per meld at most
    int group_ace         # the value a joker in a group of aces weighs at (14 or 1)
    int64_t jw[16]
    int64_t jwmin         # the lightest and heaviest joker weight of positions 1..14
    int64_t jwmax
    ArrFail* fails        # the dead ends met (open addressing, fcap a power of two)
    int fcap
    int nfail
    uint32_t gen
    int64_t nodes         # the search's nodes in this call
    int64_t budget        # ... at most (a repair's search: _arr_certify), else -2
    Witness out           # the melds chosen so far
    # the search of the answer (top = 1): every meld chosen is kept (no backtracking), as
    # a partition of the cards left is known after it (cert, see _arr_certify)
    int top_mode
    Witness cert          # a partition of the cards left (before the meld being tried)
    Witness tmp
    void* im              # the solver's Impl, for the exact test (_arr_oracle)
    const SolverRules* rules
    const int32_t* card_w
    Arrange* sub          # the search of a repair (top_mode 0, its own dead ends)
    int64_t oracles       # statistics: exact tests and repairs in the last call
    int64_t repairs


cdef enum:
    REPAIR_NODES = 4096   # a repair's search gives up past this many nodes (-2)
    SHORT_NODES = 32      # ... and the search of every card left


cdef Arrange* _arrange_alloc() noexcept nogil:
    cdef Arrange* a = <Arrange*> calloc(1, sizeof(Arrange))
    if a == NULL:
        return NULL
    a.fcap = 256
    a.fails = <ArrFail*> calloc(a.fcap, sizeof(ArrFail))
    if a.fails == NULL:
        free(a)
        return NULL
    return a


cdef Arrange* arrange_new() noexcept nogil:
    cdef Arrange* a = _arrange_alloc()
    if a == NULL:
        return NULL
    a.sub = _arrange_alloc()
    if a.sub == NULL:
        free(a.fails)
        free(a)
        return NULL
    return a


cdef void arrange_free(Arrange* a) noexcept nogil:
    if a != NULL:
        if a.sub != NULL:
            free(a.sub.fails)
            free(a.sub)
        free(a.fails)
        free(a)


cdef inline void _arr_take(Arrange* a, int x) noexcept nogil:
    a.cnt[x] -= 1
    if x < 32:
        a.k0 -= (<uint64_t>1) << (2 * x)
    else:
        a.k1 -= (<uint64_t>1) << (2 * (x - 32))


cdef inline void _arr_put(Arrange* a, int x) noexcept nogil:
    a.cnt[x] += 1
    if x < 32:
        a.k0 += (<uint64_t>1) << (2 * x)
    else:
        a.k1 += (<uint64_t>1) << (2 * (x - 32))


cdef inline uint64_t _arr_hash(Arrange* a) noexcept nogil:
    return _hash(a.k0 ^ (<uint64_t>a.need * <uint64_t>0xD6E8FEB86659FD93ULL), a.k1)


cdef bint _arr_failed(Arrange* a) noexcept nogil:
    """Were the cards left, owing this joker weight, met before and found not to split?"""
    cdef int h = <int>(_arr_hash(a) & <uint64_t>(a.fcap - 1))
    cdef ArrFail* f
    while a.fails[h].gen == a.gen:
        f = &a.fails[h]
        if f.k0 == a.k0 and f.k1 == a.k1 and f.need == a.need:
            return True
        h = (h + 1) & (a.fcap - 1)
    return False


cdef int _arr_fail_add(Arrange* a) noexcept nogil:
    """Remember the cards left (and the weight they owe) as a dead end (0; -1: no memory)."""
    cdef int i, h, cap
    cdef ArrFail* old
    cdef ArrFail* f
    if (a.nfail + 1) * 2 > a.fcap:
        cap = a.fcap * 2
        old = a.fails
        f = <ArrFail*> calloc(cap, sizeof(ArrFail))
        if f == NULL:
            return -1
        for i in range(a.fcap):
            if old[i].gen == a.gen:
                h = <int>(_hash(old[i].k0 ^ (<uint64_t>old[i].need
                                             * <uint64_t>0xD6E8FEB86659FD93ULL),
                                old[i].k1) & <uint64_t>(cap - 1))
                while f[h].gen == a.gen:
                    h = (h + 1) & (cap - 1)
                f[h] = old[i]
        free(old)
        a.fails = f
        a.fcap = cap
    h = <int>(_arr_hash(a) & <uint64_t>(a.fcap - 1))
    while a.fails[h].gen == a.gen:
        h = (h + 1) & (a.fcap - 1)
    a.fails[h].k0 = a.k0
    a.fails[h].k1 = a.k1
    a.fails[h].need = a.need
    a.fails[h].gen = a.gen
    a.nfail += 1
    return 0


cdef inline int _arr_pos_card(int s, int q) noexcept nogil:
    """The card of suit s at run position q (1..14; 14 is the ace)."""
    return s * 13 + (0 if q == 14 else q - 1)


cdef int _arr_fill(Arrange* a, int p, int c, int lo, int hi, int q, int nj, int jmax,
                   int has_c) noexcept nogil:
    """Positions lo..q-1 of a run of c's suit are chosen (the meld being built, at
    a.out.start[a.out.n_melds]); choose q onwards, a real card before a joker, then the
    cards left (1: arranged, 0: not, -1: no memory)."""
    cdef int s = c // 13, x, r, base = a.out.start[a.out.n_melds], k = base + q - lo
    if q > hi:
        if not has_c:
            return 0
        a.out.n_melds += 1
        a.out.start[a.out.n_melds] = base + hi - lo + 1
        r = _arr_leaf(a, p)
        if r == 0:
            a.out.n_melds -= 1
        return r
    x = _arr_pos_card(s, q)
    if a.cnt[x] > 0:
        _arr_take(a, x)
        a.out.cards[k] = <uint8_t>x
        a.out.stands[k] = <uint8_t>x
        r = _arr_fill(a, p, c, lo, hi, q + 1, nj, jmax, has_c or x == c)
        if r != 0:
            return r
        _arr_put(a, x)
    # (c's own position takes c: a real card left before it here is an ace)
    if nj < jmax and a.cnt[JOKER] > 0 and not (c % 13 != 0 and q == c % 13 + 1):
        _arr_take(a, JOKER)
        a.need -= a.jw[q]
        a.out.cards[k] = JOKER
        a.out.stands[k] = <uint8_t>x
        r = _arr_fill(a, p, c, lo, hi, q + 1, nj + 1, jmax, has_c)
        if r != 0:
            return r
        a.need += a.jw[q]
        _arr_put(a, JOKER)
    return 0


cdef int _arr_runs(Arrange* a, int p, int c) noexcept nogil:
    """Try the runs holding c in the rule's order (1, 0, -1 as _arr_fill)."""
    cdef int s = c // 13, rq = c % 13 + 1, q, L, lo, hi, r, jmax, maxL, aces, gaps, lomin
    cdef int pre[15]
    jmax = a.cnt[JOKER]
    if a.limited and jmax > 1:
        jmax = 1
    # pre[q]: positions 2..q of the suit with no card left (the aces apart: 1 and 14)
    pre[0] = 0
    pre[1] = 0
    for q in range(2, 14):
        pre[q] = pre[q - 1] + (1 if a.cnt[s * 13 + q - 1] == 0 else 0)
    pre[14] = pre[13]
    aces = a.cnt[s * 13]
    maxL = 14 if a.both else 13
    if maxL > a.top:
        maxL = a.top
    # (below c's position only the low ace may be a real card: the rest are jokers)
    lomin = 1 if rq == 1 else rq - jmax - (1 if aces > 0 else 0)
    if lomin < 1:
        lomin = 1
    for L in range(maxL, 2, -1):
        for lo in range(lomin, a.top - L + 2):
            hi = lo + L - 1
            if rq == 1:
                if lo != 1 and hi != 14:
                    continue   # (an ace: at the low or the high end)
            elif lo > rq:
                break
            elif hi < rq:
                continue
            # (the aces: as many as the window's ends 1 and 14 hold, at most those left)
            gaps = pre[hi] - pre[lo - 1]
            q = (1 if lo == 1 else 0) + (1 if hi == 14 else 0)
            if q > aces:
                gaps += q - aces
            if gaps > jmax:
                continue
            r = _arr_fill(a, p, c, lo, hi, lo, 0, jmax, 0)
            if r != 0:
                return r
    return 0


cdef int _arr_group(Arrange* a, int p, int c, int mask, int k, int gv) noexcept nogil:
    """Try the group of c, the cards of its rank of the suits in mask, and k jokers."""
    cdef int s, x, n = 0, r, miss = 0, rk = c % 13
    cdef int base = a.out.start[a.out.n_melds]
    mask |= 1 << (c // 13)
    for s in range(4):
        if mask >> s & 1:
            x = s * 13 + rk
            _arr_take(a, x)
            a.out.cards[base + n] = <uint8_t>x
            a.out.stands[base + n] = <uint8_t>x
            n += 1
    for s in range(4):
        if miss < k and not (mask >> s & 1):
            _arr_take(a, JOKER)
            a.out.cards[base + n] = JOKER
            a.out.stands[base + n] = <uint8_t>(s * 13 + rk)
            n += 1
            miss += 1
    a.need -= k * a.jw[gv]
    a.out.n_melds += 1
    a.out.start[a.out.n_melds] = base + n
    r = _arr_leaf(a, p)
    if r != 0:
        return r
    a.out.n_melds -= 1
    a.need += k * a.jw[gv]
    for s in range(4):
        if mask >> s & 1:
            _arr_put(a, s * 13 + rk)
    for s in range(k):
        _arr_put(a, JOKER)
    return 0


cdef int _arr_groups(Arrange* a, int p, int c) noexcept nogil:
    """Try the groups holding c in the rule's order (1, 0, -1 as _arr_fill)."""
    cdef int rk = c % 13, t, n_o = 0, size, k, m, i, j, r, jmax, gv
    cdef int o[3]
    for t in range(c // 13 + 1, 4):
        if a.cnt[t * 13 + rk] > 0:
            o[n_o] = 1 << t
            n_o += 1
    jmax = a.cnt[JOKER]
    if a.limited and jmax > 1:
        jmax = 1
    gv = a.group_ace if rk == 0 else rk + 1
    for size in range(4, 2, -1):
        for k in range(jmax + 1):
            m = size - 1 - k
            if m < 0:
                break
            if m > n_o:
                continue
            # the other suits, m of them, as index lists in lexicographic order
            if m == 0:
                r = _arr_group(a, p, c, 0, k, gv)
                if r != 0:
                    return r
            elif m == 1:
                for i in range(n_o):
                    r = _arr_group(a, p, c, o[i], k, gv)
                    if r != 0:
                        return r
            elif m == 2:
                for i in range(n_o):
                    for j in range(i + 1, n_o):
                        r = _arr_group(a, p, c, o[i] | o[j], k, gv)
                        if r != 0:
                            return r
            else:
                r = _arr_group(a, p, c, o[0] | o[1] | o[2], k, gv)
                if r != 0:
                    return r
    return 0


cdef int _arr_dfs(Arrange* a, int p) noexcept nogil:
    """Arrange the cards left, whose first in the tie-break's order is at or after order
    position p (1: their melds appended to a.out, 0: they do not split, -1: no memory)."""
    cdef int c, r
    while p < JOKER and a.cnt[_kcard(p)] == 0:
        p += 1
    if p == JOKER:
        return 1 if a.cnt[JOKER] == 0 and a.need == 0 else 0
    if a.need > a.cnt[JOKER] * a.jwmax or a.need < a.cnt[JOKER] * a.jwmin:
        return 0
    if a.nfail > 0 and _arr_failed(a):
        return 0
    a.nodes += 1
    if a.nodes > a.budget:
        return -2   # (a repair's search too long: the exact test decides, _arr_certify)
    c = _kcard(p)
    r = _arr_runs(a, p, c)
    if r == 0:
        r = _arr_groups(a, p, c)
    if r == 0:
        if a.top_mode:
            return -3   # (a partition of the cards left was known: never reached)
        if _arr_fail_add(a) < 0:
            return -1
    return r


cdef int _arr_leaf(Arrange* a, int p) noexcept nogil:
    """The meld just chosen (the last of a.out) and the cards left: 1 arranged, 0 not (the
    next candidate is tried), < 0 an error. The answer's search keeps it only when the
    cards left are shown to split (_arr_certify), and then never goes back."""
    cdef int r
    if not a.top_mode:
        return _arr_dfs(a, p)
    r = _arr_certify(a)
    if r != 1:
        return r
    return _arr_dfs(a, p)


cdef int64_t _meld_jweight(Arrange* a, const Witness* w, int m) noexcept nogil:
    """The weight of the jokers of meld m of w, by the value each stands for (a group's
    rank, aces at a.group_ace; a run's position, counted from its first entry)."""
    cdef int i, b = w.start[m], e = w.start[m + 1], q0, r0
    cdef int64_t t = 0
    cdef bint group = True
    r0 = w.stands[b] % 13
    for i in range(b + 1, e):
        if w.stands[i] % 13 != r0:
            group = False
    q0 = (a.group_ace if r0 == 0 else r0 + 1) if group else r0 + 1
    for i in range(b, e):
        if w.cards[i] == JOKER:
            t += a.jw[q0] if group else a.jw[q0 + i - b]
    return t


cdef int _arr_certify(Arrange* a) noexcept nogil:
    """Do the cards left after the meld just chosen (m, the last of a.out) split into melds
    owing a.need? 1 yes (a.cert becomes such a partition), 0 no, < 0 an error.

    A repair first: the melds of a.cert (a partition of the cards before m) that give m its
    cards are taken out, and what they hold beyond m is arranged by a short search of its
    own (a.sub, at most REPAIR_NODES nodes): if it splits with the jokers' weight the
    removed melds had beyond m's, the rest of a.cert stands. Else the exact test
    (_arr_oracle) decides on the cards left."""
    cdef int i, j, x, mb = a.out.start[a.out.n_melds - 1], me = a.out.start[a.out.n_melds]
    cdef int nrm = 0, r
    cdef uint8_t rm[MAX_MELDS]
    cdef uint8_t sup[NCARD]
    cdef int64_t wjr = 0, wm = 0
    memset(rm, 0, a.cert.n_melds)
    memset(sup, 0, NCARD)
    # the melds of cert that hold m's cards (the first that holds a card still short)
    for i in range(mb, me):
        x = a.out.cards[i]
        if sup[x] > 0:
            sup[x] -= 1
            continue
        for j in range(a.cert.n_melds):
            if not rm[j] and _meld_holds(&a.cert, j, x):
                break
        else:
            return -3   # (cert is not a partition of the cards before m)
        rm[j] = 1
        nrm += 1
        for r in range(a.cert.start[j], a.cert.start[j + 1]):
            sup[a.cert.cards[r]] += 1
        sup[x] -= 1
        wjr += _meld_jweight(a, &a.cert, j)
    wm = _meld_jweight(a, &a.out, a.out.n_melds - 1)
    if _arr_orphaned(a, mb, me):
        return 0   # (a card near m's has no meld left: the cards left do not split)
    a.repairs += 1
    # sup: what the removed melds hold beyond m; it must split owing wjr - wm
    r = _arr_sub(a, sup, wjr - wm, REPAIR_NODES)
    if r < 0 and r != -2:
        return r
    if r == 1:
        # cert: its melds not removed, then the repair's
        a.tmp.n_melds = 0
        a.tmp.start[0] = 0
        for j in range(a.cert.n_melds):
            if not rm[j]:
                _wit_append(&a.tmp, &a.cert, j)
        for j in range(a.sub.out.n_melds):
            _wit_append(&a.tmp, &a.sub.out, j)
        wit_copy_out(&a.cert, &a.tmp)
        return 1
    # every card left, by a short search of its own (it proves most dead ends)
    r = _arr_sub(a, a.cnt, a.need, SHORT_NODES)
    if r < 0 and r != -2:
        return r
    if r == 1:
        wit_copy_out(&a.cert, &a.sub.out)
        return 1
    if r == 0:
        return 0
    a.oracles += 1
    r = _arr_oracle(a, &a.tmp)
    if r == 1:
        wit_copy_out(&a.cert, &a.tmp)
    return r


cdef int _arr_sub(Arrange* a, const uint8_t* cnt, int64_t need, int64_t budget) noexcept nogil:
    """The rule's search (a.sub, no certificate) on the cards cnt owing need, at most
    budget nodes: 1 arranged (a.sub.out), 0 they do not split, -2 gave up, -1 no memory."""
    cdef Arrange* sub = a.sub
    cdef int x, i
    memset(sub.cnt, 0, NCARD)
    sub.k0 = 0
    sub.k1 = 0
    for x in range(NCARD):
        for i in range(cnt[x]):
            _arr_put(sub, x)
    sub.need = need
    sub.top = a.top
    sub.both = a.both
    sub.limited = a.limited
    sub.group_ace = a.group_ace
    memcpy(sub.jw, a.jw, sizeof(a.jw))
    sub.jwmin = a.jwmin
    sub.jwmax = a.jwmax
    sub.gen += 1
    if sub.gen == 0:
        memset(sub.fails, 0, sub.fcap * sizeof(ArrFail))
        sub.gen = 1
    sub.nfail = 0
    sub.nodes = 0
    sub.budget = budget
    sub.top_mode = 0
    sub.out.n_melds = 0
    sub.out.start[0] = 0
    return _arr_dfs(sub, 0)


cdef bint _arr_has_meld(Arrange* a, int y) noexcept nogil:
    """Could card y (left) still be in some meld of the cards left: a group of its rank
    (enough suits and jokers), or a run over three positions of its suit that the cards
    and jokers left fill? (A necessary condition only.)"""
    cdef int s = y // 13, rk = y % 13, t, n = 0, jm, q, lo, gaps, k, p
    jm = a.cnt[JOKER]
    if a.limited and jm > 1:
        jm = 1
    for t in range(4):
        if a.cnt[t * 13 + rk] > 0:
            n += 1
    if n + jm >= 3:
        return True
    for k in range(2):
        p = rk + 1 if k == 0 else (14 if rk == 0 and a.top == 14 else 0)
        if p == 0:
            continue
        for lo in range(p - 2, p + 1):
            if lo < 1 or lo + 2 > a.top:
                continue
            gaps = 0
            for q in range(lo, lo + 3):
                if q != p and a.cnt[_arr_pos_card(s, q)] == 0:
                    gaps += 1
            if gaps <= jm:
                return True
    return False


cdef bint _arr_orphaned(Arrange* a, int mb, int me) noexcept nogil:
    """Is a card left of the same rank as a card of the meld a.out[mb:me], or of its suit
    within two positions, without a meld (_arr_has_meld)?"""
    cdef int i, x, s, rk, t, d, y
    for i in range(mb, me):
        x = a.out.stands[i]
        s = x // 13
        rk = x % 13
        for t in range(4):
            y = t * 13 + rk
            if a.cnt[y] > 0 and not _arr_has_meld(a, y):
                return True
        for d in range(-2, 3):
            if d == 0 or rk + d < 0 or rk + d > 13:
                continue
            y = s * 13 + (rk + d) % 13
            if a.cnt[y] > 0 and not _arr_has_meld(a, y):
                return True
    return False


cdef inline bint _meld_holds(const Witness* w, int m, int x) noexcept nogil:
    cdef int i
    for i in range(w.start[m], w.start[m + 1]):
        if w.cards[i] == x:
            return True
    return False


cdef inline void _wit_append(Witness* dst, const Witness* src, int m) noexcept nogil:
    cdef int i, n = dst.start[dst.n_melds]
    for i in range(src.start[m], src.start[m + 1]):
        dst.cards[n] = src.cards[i]
        dst.stands[n] = src.stands[i]
        n += 1
    dst.n_melds += 1
    dst.start[dst.n_melds] = n


cdef int _arr_oracle(Arrange* a, Witness* out) noexcept nogil:
    """The exact test: do the cards left (a.cnt) split into melds whose jokers weigh
    a.need? 1 yes (out: such a partition), 0 no, < 0 an error. One sweep of the solver over
    those cards alone (every one must be used; aces low and high at once), whose best
    value is their cards' weight plus the most their jokers can weigh: a.need is never
    more (the answer's value is the best of every arrangement), so they split owing a.need
    exactly when that best reaches it."""
    cdef Impl* im = <Impl*> a.im
    cdef int s, v, c, best, jl = a.cnt[JOKER]
    cdef int64_t target = a.need
    for c in range(JOKER):
        target += a.cnt[c] * a.card_w[c]
    if target == a.need:   # (no real card left)
        out.n_melds = 0
        out.start[0] = 0
        return 1 if jl == 0 and a.need == 0 else 0
    memset(im.must, 0, sizeof(im.must))
    memset(im.avail, 0, sizeof(im.avail))
    memset(im.w, 0, sizeof(im.w))
    memset(im.jw, 0, sizeof(im.jw))
    memset(im.sw, 0, sizeof(im.sw))
    memset(im.keyw, 0, sizeof(im.keyw))
    im.moves_valid = 0
    im.ace_high = 1 if a.rules.ace_high else 0
    im.V = 14 if im.ace_high else 13
    im.limited = a.limited
    im.merged = 0 if a.limited else 1
    for s in range(4):
        for v in range(1, 14):
            c = s * 13 + v - 1
            im.must[s][v] = a.cnt[c]
            im.avail[s][v] = a.cnt[c]
            im.w[s][v] = a.card_w[c]
        im.w[s][14] = a.card_w[s * 13]
        if im.ace_high:
            im.avail[s][14] = im.avail[s][1]
    for v in range(1, 15):
        im.jw[v] = a.jw[v]
    im.jt = jl
    im.jtot = jl
    im.lb = -1
    im.ub = -1
    im.tie = 0
    im.capped = 0
    im.all_only = 0
    _set_rest(im)
    best = _sweep(im)
    if best < -1:
        return best
    if best < 0 or im.nodes[best].val < target:
        return 0
    if _rebuild(im, best, out) < 0:
        return -3
    if a.rules.ace_high == 2:
        wit_split_wraps(out)
    return 1


cdef int arrange_witness(Arrange* a, void* im, Witness* wit, int64_t val,
                         const SolverRules* rules, const int32_t* card_w,
                         const int32_t* joker_w, bint have_cert) noexcept nogil:
    """Rewrite wit's melds as the canonical arrangement of its cards, whose value is val
    (have_cert: wit is such a partition already, the first certificate; else the exact
    test finds one). 0; -3: its cards have no arrangement of that value, -1: no memory,
    -4: the exact test past the state limit."""
    cdef int i, c, r
    cdef int64_t real = 0, wj = 0
    memset(a.cnt, 0, NCARD)
    a.k0 = 0
    a.k1 = 0
    for i in range(wit.start[wit.n_melds]):
        c = wit.cards[i]
        _arr_put(a, c)
        if c != JOKER:
            real += card_w[c]
    a.need = val - real
    a.top = 14 if rules.ace_high else 13
    a.both = 1 if rules.ace_high == 1 else 0
    a.limited = 1 if rules.jokers_per_meld == 1 else 0
    a.group_ace = 14 if rules.ace_high else 1
    a.jw[0] = 0
    a.jw[15] = 0
    a.jwmin = joker_w[1]
    a.jwmax = joker_w[1]
    for i in range(1, 15):
        a.jw[i] = joker_w[i]
        if i <= a.top:
            if joker_w[i] < a.jwmin:
                a.jwmin = joker_w[i]
            if joker_w[i] > a.jwmax:
                a.jwmax = joker_w[i]
    a.im = im
    a.rules = rules
    a.card_w = card_w
    a.top_mode = 1
    a.budget = <int64_t>1 << 62
    a.nodes = 0
    a.oracles = 0
    a.repairs = 0
    a.nfail = 0
    a.out.n_melds = 0
    a.out.start[0] = 0
    # the first certificate: the answer's own melds (a run with an ace at each end laid
    # as two where that is no meld), if their jokers weigh what they owe
    if have_cert:
        wit_copy_out(&a.cert, wit)
        if rules.ace_high == 2:
            wit_split_wraps(&a.cert)
        for i in range(a.cert.n_melds):
            wj += _meld_jweight(a, &a.cert, i)
    if not have_cert or wj != a.need:
        r = _arr_oracle(a, &a.cert)
        if r <= 0:
            return -3 if r == 0 else r
    r = _arr_dfs(a, 0)
    if r != 1:
        return -3 if r >= 0 or r == -2 else r
    wit_copy_out(wit, &a.out)
    return 0
