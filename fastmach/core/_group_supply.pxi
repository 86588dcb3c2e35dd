# The groups a value's suits still to come must and can make (included by
# fastmach/core/_solver.pyx, used by _suit_step and _group_step when the switch
# _GROUP_SUPPLY is on, as it is by default, with the jokers' need test, _joker_need.pxi).
#
# Take the suits t >= s0 at a position p (the suits after s within a suit step of value
# p, every suit of the next value after a group step), a state with jl jokers left beyond
# those its open runs need at least (_need_except, _suit_need), and gsum real cards of p
# already set aside for groups (at most gmax of a suit). In suit t, with r its open runs
# of length 1 or 2 (they must go on at p), c all its open runs, x its real cards at p and
# m of them on the table (must be used):
#  - each table card goes on an open run (one card each: at most c), starts a new run
#    (each holds a real card of p + 1 or a joker: at most x(p + 1) + the jokers it takes),
#    or joins a group: with X jokers in new runs, the groups take at least
#    G = D - X of them, D the sum over the suits of max(0, m - c - x(p + 1)), and at
#    least dmax - X of one suit (dmax the largest of those terms);
#  - the groups' real cards come from what the runs leave: at most S = the sum of
#    max(0, x - r), and each card past S frees a run only by a joker there (at most
#    R = the sum of min(x, r) such cards).
# The jokers in new runs, in runs of length 1 or 2 at p past those counted in the need,
# and in groups are distinct jokers, none of them those the need counts. So a completion
# makes groups of some gsum + G .. gsum + S + min(R, jl - X) real cards (at most
# max(gmax, dmax - X) of a suit, a weaker test than the real suits') with at most jl - X
# jokers, for some X <= jl: when _GP says no X can do, the state reaches no partition.
# (With D = 0 and a suit step this is the check of the groups against the cards to
# come with the cards the runs take left out.)
#
# What it does to the answers: none, as the need test (the dominance pass of the searches
# with jokers runs after every suit step on that suit, _FIXED_SCOPE: a state that reaches
# no partition dominates none that does). Tests: tests/core/test_solver_group_supply.py.

cdef struct Supply:
    int D      # table cards of the suits to come that only groups or jokers can take
    int dmax   # ... the most of one suit
    int S      # real cards the runs leave free for groups
    int R      # real cards a joker on a run could free


cdef inline void _supply_suit(Supply* out, uint64_t F, int x, int m, int nx) noexcept nogil:
    """Add one suit to a Supply: its open runs F (15 bits), x real cards at p, m of them on
    the table, nx real cards at p + 1 (0 where none)."""
    cdef int r = <int>(F & 3) + <int>((F >> 2) & 3) + <int>((F >> 9) & 7)
    cdef int c = r + <int>((F >> 4) & 3) + <int>((F >> 12) & 7)
    cdef int d = m - c - nx
    if d > 0:
        out.D += d
        if d > out.dmax:
            out.dmax = d
    if x > r:
        out.S += x - r
        out.R += r
    else:
        out.R += x


cdef inline void _supply(Impl* im, uint64_t k1, uint64_t k2, int p, int s0,
                         Supply* out) noexcept nogil:
    """The Supply of the suits t >= s0 at position p (see above)."""
    cdef int t, m, nx
    out.D = 0
    out.dmax = 0
    out.S = 0
    out.R = 0
    for t in range(s0, 4):
        if p == 14:
            m = im.must[t][1] - <int>((k2 >> (9 + 2 * t)) & 3)
            if m < 0:
                m = 0
        elif p == 1 and im.ace_high:
            m = 0   # (aces high: value 1 only starts runs, the aces' groups are at 14)
        else:
            m = im.must[t][p]
        nx = _av_pos(im, t, p + 1, k2)
        _supply_suit(out, (k1 >> (15 * t)) & 0x7FFF, _av_pos(im, t, p, k2), m,
                     nx if nx > 0 else 0)


cdef struct SupplyPlan:
    int known  # 1: the constants below hold for every state of the step; 0: _supply asks
    int s0
    int x[4]   # real cards of suit t at p (_av_pos)
    int m[4]   # ... on the table
    int nx[4]  # ... at p + 1 (0 where none)


cdef inline void _supply_plan(Impl* im, int p, int s0, SupplyPlan* pl) noexcept nogil:
    """What _supply reads of the position at p for the suits t >= s0, once for a step; not
    known where it reads a state's aces used low (p or p + 1 the high ace's 14)."""
    cdef int t, nx
    pl.s0 = s0
    pl.known = not (im.V == 14 and (p == 14 or p + 1 == 14))
    if not pl.known:
        return
    for t in range(s0, 4):
        pl.x[t] = _av_pos(im, t, p, 0)
        pl.m[t] = 0 if (p == 1 and im.ace_high) else im.must[t][p]
        nx = _av_pos(im, t, p + 1, 0)
        pl.nx[t] = nx if nx > 0 else 0


cdef struct SupplyCache:
    # a step's supplies, kept from state to state where they read the same (states in a
    # row are mostly siblings that differ in the suit stepped before)
    SupplyPlan plan
    Supply sup
    uint64_t sup_of   # the suits' bits (those after the step's) sup was made for
    Supply asup
    uint64_t alow     # the aces used low asup was made for


cdef inline void _cache_open(Impl* im, SupplyCache* sc, int p, int s0) noexcept nogil:
    """A step's cache, empty: the suits t >= s0 at position p."""
    _supply_plan(im, p, s0, &sc.plan)
    sc.sup_of = ~(<uint64_t>0)   # (none: k1 holds 60 bits)
    sc.alow = 0x100              # (none: 8 bits)


cdef inline Supply* _supply_at(Impl* im, SupplyCache* sc, uint64_t k1, uint64_t k2,
                               int p) noexcept nogil:
    """_supply of the state (k1, k2) for the cache's suits at p; where its constants are
    known it reads those suits' bits only, and is kept from the state before with the same."""
    cdef uint64_t of
    cdef int t
    cdef Supply acc
    if not sc.plan.known:
        _supply(im, k1, k2, p, sc.plan.s0, &sc.sup)
        return &sc.sup
    of = k1 >> (15 * sc.plan.s0)
    if of != sc.sup_of:   # (the same sums as _supply, its constants from the plan)
        acc.D = 0
        acc.dmax = 0
        acc.S = 0
        acc.R = 0
        for t in range(sc.plan.s0, 4):
            _supply_suit(&acc, (k1 >> (15 * t)) & 0x7FFF, sc.plan.x[t], sc.plan.m[t],
                         sc.plan.nx[t])
        sc.sup = acc
        sc.sup_of = of
    return &sc.sup


cdef inline Supply* _aces_at(Impl* im, SupplyCache* sc, uint64_t k2) noexcept nogil:
    """_ace_supply of a state with this k2 (it reads the aces used low only: kept from the
    state before with the same)."""
    if (k2 >> 9) & 0xFF != sc.alow:
        sc.alow = (k2 >> 9) & 0xFF
        _ace_supply(im, k2, &sc.asup)
    return &sc.asup


cdef inline bint _must_later(Impl* im, int v, int s) noexcept nogil:
    """Do the suits after s hold table cards at value v (with aces high: value 1 none, 14
    the table's aces)? Without them, and without cards set aside, no group is asked for."""
    cdef int t, p = 1 if v == 14 else v
    if v == 1 and im.ace_high:
        return False
    for t in range(s + 1, 4):
        if im.must[t][p] > 0:
            return True
    return False


cdef inline bint _starved(Impl* im, Supply* sp, int gsum, int gmax, int jl) noexcept nogil:
    """Can no completion make the groups (see above): gsum cards set aside (at most gmax of
    a suit), the suits to come as sp says, jl jokers beyond the need (as _set_group_supply
    says: 1 this test, -1 deliberately wrong, one joker short)?"""
    cdef int X, G, gm, gs, more, jx, top, R = sp.R
    if _GROUP_SUPPLY < 0:
        jl -= 1
    if jl < 0:
        return True
    top = sp.D if sp.D < jl else jl
    for X in range(top + 1):
        G = sp.D - X
        gs = gsum + G
        if gs == 0:
            return False   # (no group asked for)
        gm = sp.dmax - X
        if gm < gmax:
            gm = gmax
        jx = jl - X
        more = sp.S - G + (R if R < jx else jx)
        if gs > 15 or gm > 3 or more < 0:
            if more < 0:
                continue   # (not enough real cards even so: this X cannot do)
            return False   # (past the table _GP: no verdict)
        if more > 15:
            more = 15
        if _GP[im.limited][gs][gm][more][jx if jx < 8 else 7]:
            return False
    return True


# The table's aces with aces high. The aces a state did not use low (at value 1) are
# placed at 14, and a table ace there must be used: on a run that ends with it (one with
# a real queen and king of its suit, at most min(x(12), x(13)) of them, or one holding a
# joker) or in a group of aces. Before value 12, with D the sum over the suits of
# max(0, (table aces left) - min(x(12), x(13))), the groups of aces take at least D - X
# of them when X jokers go on such runs, from the aces left (S, none freed by a joker), with
# the jokers left: the same test (_starved). The jokers the open runs need lie at values
# up to v + 2, so before value 11 they are other jokers than those at 12-14 and are not
# counted; from 11 on every joker left is.

cdef inline bint _aces_asked(Impl* im) noexcept nogil:
    """With aces high, does the table hold an ace (a test of _ace_supply may drop states)?"""
    cdef int t
    if not im.ace_high:
        return False
    for t in range(4):
        if im.must[t][1] > 0:
            return True
    return False


cdef inline void _ace_supply(Impl* im, uint64_t k2, Supply* out) noexcept nogil:
    """The Supply of the aces at 14 (see above) of a state with this k2 (its aces used low)."""
    cdef int t, low, m, x, d
    out.D = 0
    out.dmax = 0
    out.S = 0
    out.R = 0
    for t in range(4):
        low = <int>((k2 >> (9 + 2 * t)) & 3)
        m = im.must[t][1] - low
        x = im.avail[t][12] if im.avail[t][12] < im.avail[t][13] else im.avail[t][13]
        d = m - x
        if d > 0:
            out.D += d
            if d > out.dmax:
                out.dmax = d
        out.S += im.avail[t][1] - low


cdef inline bint _unchanged_starved(Impl* im, SupplyCache* sc, uint64_t k1, uint64_t k2,
                                    int v, int s, int gsum, int gmax, int JL,
                                    bint must_later, bint aces_on, int nn) noexcept nogil:
    """The tests above for a state that goes on unchanged through the suit step (v, s),
    its only move (a copied step, _copy_step: no card of suit s at v, no open run of it),
    as _suit_step applies them (sc: the step's cache, opened for the suits after s at v;
    must_later: _must_later(im, v, s); aces_on: the aces' test asked at this step), so that
    the copy makes the states the full step makes; nn: the need of its suits but s
    (_need_but)."""
    cdef Supply* sp
    if gsum > 0 or must_later:
        if _starved(im, _supply_at(im, sc, k1, k2, v), gsum, gmax, JL - nn):
            return True
    if aces_on:
        sp = _aces_at(im, sc, k2)
        if sp.D > 0 and _starved(im, sp, 0, 0, JL - (nn if v <= 9 else 0)):
            return True
    return False
