# The compiled strategy interface (scikit-learn's Criterion is the model).
#
# A Strategy decides a seat's turn: decide(st, seat, rng, d) reads the position (st: hands,
# table counts and meld list, stock left, opened flags), may draw from the game's PRNG
# (rng), and fills d with PLAY (d.placed, d.taken, d.wit), DRAW or FAIL; the engine applies
# d the same way for every strategy (fastmach.game._turn.apply_turn). A Skill finds the largest
# play it can see: play(st, hand, w, jw, d) from `hand`, by the objective w/jw. Skills are
# the families (expert, beginner, intermediate); the tactics (fastmach.strategies._tactics)
# wrap any skill or strategy. Every object of one engine shares a Context: the rules, the
# exact solver, and the error code a strategy leaves for the engine (rc).
from libc.string cimport memset
from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t

from fastmach.core._solver cimport Solver, Witness, NCARD, JOKER
from fastmach.game._turn cimport ERules, HState, Decision, A_PLAY, A_DRAW, total, wit_copy, wit_append


cdef class Context:
    cdef ERules R
    cdef Solver solver
    cdef int rc                  # a strategy's failure: a solver code (< -1) or RC_PYTHON
    cdef object error            # the exception behind RC_PYTHON
    cdef readonly bint shared    # the solver is the Python solve's (fastmach.core._batch):
                                 # used with the GIL held only
    cdef readonly bint melds     # plays carry their melds (Decision.wit); 0 only while
                                 # an Engine plays a batch nobody reads them in
                                 # (Engine.play_batch: no record, observer, check or bot,
                                 # every seat melds-blind)


cdef class Skill:
    cdef Context ctx
    cdef const ERules* R
    cdef Solver solver
    cdef readonly bint melds_blind   # its plays read only cards, never the table's melds
                                     # (st.wit): set by the classes that say so
    cdef void play(self, HState* st, const uint8_t* hand, const int32_t* w,
                   const int32_t* jw, Decision* d) noexcept nogil


cdef class Strategy:
    cdef Context ctx
    cdef const ERules* R
    cdef readonly bint melds_blind   # as Skill.melds_blind: its decisions read no st.wit
    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil


cdef inline void finish_play(Context ctx, int64_t v, Decision* d) noexcept nogil:
    """A skill's search result v (its value, or a solver error < -1) -> d.kind."""
    if v < -1:
        ctx.rc = <int>v
        d.kind = A_DRAW
        return
    if d.n_placed > 0:
        d.kind = A_PLAY
    else:
        d.kind = A_DRAW
        memset(d.placed, 0, NCARD)


# ---------------------------------------------------------------- card geometry
cdef inline uint32_t seg_closure(uint32_t pool, uint32_t seed) noexcept nogil:
    """The bits of `pool` connected to `seed` through runs of consecutive set bits."""
    cdef uint32_t s = seed & pool, t
    while True:
        t = (s | (s << 1) | (s >> 1)) & pool
        if t == s:
            return s
        s = t


cdef inline uint32_t seg_of(uint32_t pool, uint32_t b) noexcept nogil:
    """The segment of consecutive set bits of `pool` holding bit b (b in pool)."""
    cdef uint32_t z = ~pool & (b - 1)
    z |= z >> 1
    z |= z >> 2
    z |= z >> 4
    z |= z >> 8
    return (pool & ~(pool + b)) | ((b - 1) & ~z)


cdef inline int may_meld(const uint8_t* hand, int ace_high) noexcept nogil:
    """Whether some meld could be made of these cards (no jokers): see meld_cards."""
    cdef uint32_t ps[4]
    return meld_cards(hand, ace_high, ps)


cdef inline int meld_cards(const uint8_t* hand, int ace_high, uint32_t* ps) noexcept nogil:
    """The cards (no jokers) that could be in a meld of these cards alone, in ps (per
    suit, bit r for rank r): cards with no group (>= 3 suits of their rank) and no run
    (>= 3 consecutive ranks of their suit) among the cards left are dropped until none
    is. 0 when nothing is left (then no subset of the cards splits into melds)."""
    cdef uint32_t g3, p, r3, cov, left
    cdef int s, r, changed = 1
    for s in range(4):   # (suit by suit: no division by 13 per card)
        p = 0
        for r in range(13):
            if hand[s * 13 + r]:
                p |= (<uint32_t>1) << (r + 1)
        ps[s] = p
    while changed:
        changed = 0
        g3 = ((ps[0] & ps[1] & (ps[2] | ps[3])) | (ps[2] & ps[3] & (ps[0] | ps[1])))
        for s in range(4):
            p = ps[s]
            if ace_high and p & 2:
                p |= (<uint32_t>1) << 14
            r3 = p & (p >> 1) & (p >> 2)
            cov = g3 | r3 | (r3 << 1) | (r3 << 2)
            if (cov >> 14) & 1:
                cov |= 2
            left = ps[s] & cov
            if left != ps[s]:
                ps[s] = left
                changed = 1
    return (ps[0] | ps[1] | ps[2] | ps[3]) != 0



cdef inline int first_card(const uint8_t* cnt, int r0, int* o, int* no) noexcept nogil:
    """The smallest card held in cnt (no jokers, at least one; ace first, then by suit)
    from rank index r0 on, and the cards of its rank held in the other suits (o[0..no))."""
    cdef int r, s, t, x = -1
    for r in range(r0, 13):
        for s in range(4):
            if cnt[s * 13 + r]:
                x = s * 13 + r
                break
        if x >= 0:
            break
    no[0] = 0
    for t in range(4):
        if t != x // 13 and cnt[t * 13 + x % 13]:
            o[no[0]] = t * 13 + x % 13
            no[0] += 1
    return x


cdef struct Masks:
    uint32_t ranks          # bit r-1 for every rank r present
    uint32_t suit[4]        # per suit, bit r (1..13), an ace also at bit 14 when ace_high


cdef inline void masks_add(Masks* m, int c, int ace_high) noexcept nogil:
    cdef int r = c % 13 + 1, s = c // 13
    m.ranks |= (<uint32_t>1) << (r - 1)
    m.suit[s] |= (<uint32_t>1) << r
    if r == 1 and ace_high:
        m.suit[s] |= (<uint32_t>1) << 14


cdef inline int related(const Masks* x, const Masks* y, const Masks* pool) noexcept nogil:
    """Whether a card of x and a card of y could share a meld made of pool cards: the same
    rank (a group), or the same suit with every rank between them in the pool (a run)."""
    cdef int s
    if x.ranks & y.ranks:
        return 1
    for s in range(4):
        if y.suit[s] and seg_closure(pool.suit[s], y.suit[s]) & x.suit[s]:
            return 1
    return 0


cdef inline int can_share(const Masks* x, const Masks* y, const Masks* pool) noexcept nogil:
    """Whether some meld of pool cards could hold a card of x and a card of y: a group (one
    rank, two different suits, >= 3 suits of that rank in the pool) or a run (one suit,
    one segment of >= 3 consecutive pool ranks, two different places)."""
    cdef int s, t, n
    cdef uint32_t rb, xs, ys, rest, seg, xb, yb, common = x.ranks & y.ranks
    while common:
        rb = (common & (~common + 1)) << 1   # rank r: bit r-1 of ranks, bit r of a suit
        common &= common - 1
        n = 0
        xs = ys = 0
        for t in range(4):
            if pool.suit[t] & rb:
                n += 1
            if x.suit[t] & rb:
                xs |= 1u << t
            if y.suit[t] & rb:
                ys |= 1u << t
        if n >= 3 and not (xs == ys and xs & (xs - 1) == 0):
            return 1
    for s in range(4):
        if not (x.suit[s] and y.suit[s]):
            continue
        rest = x.suit[s]
        while rest:   # the pool segments through x's cards
            seg = seg_of(pool.suit[s], rest & (~rest + 1))
            rest &= ~seg
            xb = seg & x.suit[s]
            yb = seg & y.suit[s]
            if xb and yb and (seg & (seg - 1)) & ((seg & (seg - 1)) - 1) and \
                    not (xb == yb and xb & (xb - 1) == 0):
                return 1
    return 0



# ---------------------------------------------------------------- the opening
cdef inline void open_from_hand(Context ctx, const ERules* R, HState* st, const uint8_t* hand,
                                const uint8_t* empty, Witness* tmp, Decision* d) noexcept nogil:
    """Every skill level opens alike: melds of `hand` cards only (`empty`: an empty table),
    the best-scoring set by the opening weights; played (d: PLAY, the table's witness with
    the new melds appended) when worth at least the rules' opening points, otherwise d
    stays the fresh draw it came in as (set_draw). A solver error goes to ctx.rc."""
    cdef int64_t best
    cdef int n
    if hand[JOKER] == 0 and not may_meld(hand, R.srules.ace_high):
        return   # no meld in the hand: nothing to open with (no solve needed)
    best = ctx.solver.solve(empty, hand, &R.srules, R.open_w, R.open_jw, d.placed, tmp)
    if best < -1:
        ctx.rc = <int>best
        return
    n = total(d.placed) if best >= 0 else 0
    if n > 0 and best // R.open_scale >= R.opening:
        d.kind = A_PLAY
        d.n_placed = n
        wit_copy(&d.wit, &st.wit)
        wit_append(&d.wit, tmp)
    else:
        memset(d.placed, 0, NCARD)
