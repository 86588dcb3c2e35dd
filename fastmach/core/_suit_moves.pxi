# The moves of one suit step, enumerated once per suit pattern (included by
# fastmach/core/_solver.pyx, used by _suit_step).
#
# What a state can do with the cards of suit s at value v depends only on that suit's
# open runs (its 15 bits of k1), the jokers left and how many cards must / may be used
# there; the rest of the state only filters the moves (the groups so far, the bound on
# the weight to come) and places them in the new key. A layer holds many states with the
# same pattern in suit s (they differ in other suits), so the nested choices of a suit
# step are walked once per pattern and kept as a list of moves, in the order the walk
# makes them; every state then takes its pattern's list in that order. The states made,
# their order and their back-pointers are exactly those of walking the choices for each
# state in turn.
#
# A walk itself reads only what _shared_key names (not the position's weights, which a list
# adds to its moves): it is kept as Protos for every problem the solver meets, and a list
# not made yet in a problem is made from the kept walk where there is one (the same moves in
# the same order; _solver._set_shared_moves(0) walks per problem, the tests' reference).
cdef struct Move:
    uint64_t dec      # the decision word (D_* fields)
    int64_t dval      # weight added: real cards, and jokers by what they stand for
    uint16_t F        # the suit's new 15 bits of k1
    uint8_t u         # real cards of the suit used here
    uint8_t g         # of them, set aside for groups
    uint8_t nJ        # jokers used by the move
    uint8_t sn        # the jokers the suit's runs need after it (_suit_need from v + 1;
                      # SN_ASK where that reads the state's aces used low: asked per state)


cdef enum:
    SN_ASK = 255


cdef struct MoveSlot:
    uint32_t stamp    # the suit step that filled the slot (others are empty)
    uint32_t key
    int32_t off       # its moves: moves[off:off + n]
    int32_t n


cdef struct Proto:
    # a move as the walk makes it, before the position's weights and cards: _move_from
    # makes its Move (dval, sn) at a suit step
    uint64_t dec
    uint16_t F
    uint8_t u
    uint8_t g
    uint8_t nJ
    uint8_t Jr        # jokers on runs going on
    uint8_t n1        # new runs with one leading joker
    uint8_t nL        # ... with two or more
    uint8_t xl        # ... the more beyond two


cdef enum:
    SHARED_KEYS = 1 << 13    # the most walks kept for every problem (then forgotten; the
                             # positions of 300 jokers games make about 2,500)
    SHARED_PROTOS = 1 << 16


cdef struct MoveCache:
    Move* moves
    int n_moves
    int cap_moves
    MoveSlot* slots
    int cap_slots     # a power of two
    int n_keys
    uint32_t stamp
    # the walks of every problem the solver met, by what the walk reads (_shared_key):
    # a list a suit step has not made yet is made from its walk's protos when kept
    uint64_t* skeys   # 2 * SHARED_KEYS slots (0: empty; else the key + 1)
    int32_t* soff     # ... its protos: protos[soff:soff + scount]
    int32_t* scount
    int n_skeys
    Proto* protos
    int n_protos
    int sgen          # ... kept under the switch's setting of this number (_SHARED_GEN)


cdef MoveCache* moves_new() noexcept nogil:
    cdef MoveCache* mc = <MoveCache*> malloc(sizeof(MoveCache))
    if mc == NULL:
        return NULL
    mc.cap_moves = 1024
    mc.moves = <Move*> malloc(mc.cap_moves * sizeof(Move))
    mc.cap_slots = 256
    mc.slots = <MoveSlot*> malloc(mc.cap_slots * sizeof(MoveSlot))
    if mc.moves == NULL or mc.slots == NULL:
        free(mc.moves)
        free(mc.slots)
        free(mc)
        return NULL
    memset(mc.slots, 0, mc.cap_slots * sizeof(MoveSlot))
    mc.n_moves = 0
    mc.n_keys = 0
    mc.stamp = 0
    mc.skeys = <uint64_t*> calloc(2 * SHARED_KEYS, sizeof(uint64_t))
    mc.soff = <int32_t*> malloc(2 * SHARED_KEYS * sizeof(int32_t))
    mc.scount = <int32_t*> malloc(2 * SHARED_KEYS * sizeof(int32_t))
    mc.protos = <Proto*> malloc(SHARED_PROTOS * sizeof(Proto))
    mc.n_skeys = 0
    mc.n_protos = 0
    mc.sgen = _SHARED_GEN
    if mc.skeys == NULL or mc.soff == NULL or mc.scount == NULL or mc.protos == NULL:
        free(mc.moves)
        free(mc.slots)
        free(mc.skeys)
        free(mc.soff)
        free(mc.scount)
        free(mc.protos)
        free(mc)
        return NULL
    return mc


cdef void moves_free(MoveCache* mc) noexcept nogil:
    if mc != NULL:
        free(mc.moves)
        free(mc.slots)
        free(mc.skeys)
        free(mc.soff)
        free(mc.scount)
        free(mc.protos)
        free(mc)


cdef inline void moves_reset(MoveCache* mc) noexcept nogil:
    """Forget the moves of the last suit step (slots of older steps read as empty)."""
    mc.n_moves = 0
    mc.n_keys = 0
    mc.stamp += 1
    if mc.stamp == 0:     # (wrapped: clear for real)
        memset(mc.slots, 0, mc.cap_slots * sizeof(MoveSlot))
        mc.stamp = 1


cdef inline uint32_t _move_step_key(Impl* im, int v, int s) noexcept nogil:
    """The step's part of the key of a list: v, s, and whether aces may be high at the
    values where that changes the walk (1, 12-14)."""
    cdef uint32_t hi = <uint32_t>(im.ace_high if (v == 1 or v >= 12) else 0)
    if _MOVE_LISTS == -1:
        hi = 0   # (debug: a wrong key, see _set_move_lists)
    return (<uint32_t>s << 24) | (<uint32_t>v << 26) | (hi << 30)


cdef inline uint32_t _move_key(uint32_t step_key, uint64_t F, int JL, int m,
                               int A) noexcept nogil:
    """The key of a list: the state's part (F, JL, m, A) and the step's (_move_step_key)."""
    return <uint32_t>F | (<uint32_t>JL << 15) | (<uint32_t>m << 18) | (<uint32_t>A << 21) \
        | step_key


cdef inline int _move_slot(MoveCache* mc, uint32_t key) noexcept nogil:
    # (bits 32 and up of the 64-bit product: every bit of the key moves them)
    cdef int h = <int>((<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> 32) \
        & (mc.cap_slots - 1)
    while mc.slots[h].stamp == mc.stamp and mc.slots[h].key != key:
        h = (h + 1) & (mc.cap_slots - 1)
    return h


cdef int _moves_grow_slots(MoveCache* mc) noexcept nogil:
    cdef int old = mc.cap_slots, i, h
    cdef MoveSlot* was = mc.slots
    cdef MoveSlot* p = <MoveSlot*> malloc(2 * old * sizeof(MoveSlot))
    if p == NULL:
        return -1
    memset(p, 0, 2 * old * sizeof(MoveSlot))
    mc.slots = p
    mc.cap_slots = 2 * old
    for i in range(old):
        if was[i].stamp == mc.stamp:
            h = _move_slot(mc, was[i].key)
            mc.slots[h] = was[i]
    free(was)
    return 0


cdef inline int _moves_push(MoveCache* mc, uint64_t dec, int64_t dval, uint64_t F, int u,
                            int g, int nJ, int sn) noexcept nogil:
    cdef Move* p
    if mc.n_moves == mc.cap_moves:
        p = <Move*> realloc(mc.moves, 2 * mc.cap_moves * sizeof(Move))
        if p == NULL:
            return -1
        mc.moves = p
        mc.cap_moves *= 2
    p = &mc.moves[mc.n_moves]
    p.dec = dec
    p.dval = dval
    p.F = <uint16_t>F
    p.u = <uint8_t>u
    p.g = <uint8_t>g
    p.nJ = <uint8_t>nJ
    p.sn = <uint8_t>sn
    mc.n_moves += 1
    return 0


cdef inline MoveSlot* moves_of(MoveCache* mc, Impl* im, int v, int s, uint32_t step_key,
                               uint64_t F, int JL, int m, int A) noexcept nogil:
    """The moves of suit s at value v (step_key: _move_step_key(im, v, s)) for a state
    whose suit bits are F (NULL: no memory): the list kept, or a new walk (_moves_walk)."""
    cdef uint32_t key = _move_key(step_key, F, JL, m, A)
    cdef MoveSlot* slot = &mc.slots[_move_slot(mc, key)]
    if slot.stamp == mc.stamp:
        return slot
    return _moves_walk(mc, im, v, s, F, JL, m, A, key)


cdef inline uint64_t _shared_key(Impl* im, int v, uint64_t F, int JL, int m, int A, int last,
                                 int next_dead, int next2_dead, int acelow) noexcept nogil:
    """What a walk reads beyond the weights: the state's part, the rules' (one joker per
    meld, runs by length only), the cards to come (whether runs of length 1 and 2 may stay
    open), the aces' value 1, and the value where it bounds the leading jokers (new runs
    with one at value 1; with any number per meld, two or more up to value v - 1)."""
    cdef uint64_t vc
    if im.limited:
        vc = 1 if v < 2 else 0
    else:
        vc = <uint64_t>(v if v < 11 else 11)
    if _SHARED_MOVES < 0:
        next2_dead = 0   # (debug: a key that forgets the cards two values on)
    return F | (<uint64_t>JL << 15) | (<uint64_t>m << 18) | (<uint64_t>A << 20) \
        | (<uint64_t>im.limited << 22) | (<uint64_t>im.merged << 23) | (<uint64_t>last << 24) \
        | (<uint64_t>next_dead << 25) | (<uint64_t>next2_dead << 26) \
        | (<uint64_t>acelow << 27) | (vc << 28)


cdef inline int _move_from(MoveCache* mc, Impl* im, int v, int s, const Proto* p,
                           int sn_known) noexcept nogil:
    """List the move of a proto at suit step (v, s): its weight and its need from v + 1."""
    cdef int64_t lw = 0
    cdef int64_t jwm1 = im.jw[v - 1] if v >= 2 else 0
    cdef int64_t jwm2 = im.jw[v - 2] if v >= 3 else 0
    if p.nL > 0:
        lw = p.nL * (jwm1 + jwm2)
        if p.xl > 0:
            lw += _lead_extra_w(im, v, p.xl)
    return _moves_push(mc, p.dec, p.u * im.w[s][v] + p.Jr * im.jw[v] + p.n1 * jwm1 + lw,
                       p.F, p.u, p.g, p.nJ,
                       _suit_need(im, s, p.F, v + 1, 0) if sn_known else SN_ASK)


cdef inline int _shared_slot(MoveCache* mc, uint64_t gk) noexcept nogil:
    cdef int h = <int>((gk * <uint64_t>0x9E3779B97F4A7C15ULL) >> 40) & (2 * SHARED_KEYS - 1)
    while mc.skeys[h] != 0 and mc.skeys[h] != gk:
        h = (h + 1) & (2 * SHARED_KEYS - 1)
    return h


cdef MoveSlot* _moves_walk(MoveCache* mc, Impl* im, int v, int s, uint64_t F, int JL, int m,
                           int A, uint32_t key) noexcept nogil:
    """Walk the choices of a key not listed yet, and list its moves (NULL: no memory).

    The walk below is the choice of _suit_step for one state: u real cards (m <= u <= A);
    x1, x2, x3 runs of length 1, 2, 3+ without a joker going on with a real card (the
    others of length 1-2 take a joker, y3 of the 3+ ones a joker too, the rest end); p2,
    p3 runs with a joker going on with a real card, q3 of the 3+ ones with a joker (one
    joker per meld: none); n0, n1, nL new runs with 0, 1 or 2 + xl leading jokers; the
    remaining g real cards go to the groups of value v."""
    cdef int h = _move_slot(mc, key)
    cdef MoveSlot* slot = &mc.slots[h]
    cdef int a1, a2, a3, b2, b3, u, x1, x2, x3, y3, p2, p3, q3, e3, n0, n1, nL, xl
    cdef int R, Jr, g, na1, na2, na3, nb2, nb3, nJ
    cdef int limited = im.limited, merged = im.merged, last = (v == im.V)
    cdef int next_dead, next2_dead, acelow = (v == 1 and im.ace_high)
    cdef uint64_t dec, NF, gk = 0
    cdef int gh = -1, first = mc.n_protos, k
    cdef Proto pr
    # the need after the move reads the aces used low only at 14 (_av_pos)
    cdef int sn_known = not (im.V == 14 and (v + 1 == 14 or v + 2 == 14))
    if 2 * (mc.n_keys + 1) > mc.cap_slots:
        if _moves_grow_slots(mc) < 0:
            return NULL
        h = _move_slot(mc, key)
        slot = &mc.slots[h]
    slot.stamp = mc.stamp
    slot.key = key
    slot.off = mc.n_moves
    mc.n_keys += 1
    next_dead = 1 if (v == im.V or im.avail[s][v + 1] == 0) else 0
    # a run of length 1 needs cards at v+1 and v+2
    next2_dead = 1 if (next_dead or v + 1 == im.V or im.avail[s][v + 2] == 0) else 0
    if _SHARED_MOVES != 0:
        # the same walk kept from another step or problem: its protos, in its order
        gk = _shared_key(im, v, F, JL, m, A, last, next_dead, next2_dead, acelow) + 1
        gh = _shared_slot(mc, gk)
        if mc.skeys[gh] == gk and mc.sgen == _SHARED_GEN:
            for k in range(mc.soff[gh], mc.soff[gh] + mc.scount[gh]):
                if _move_from(mc, im, v, s, &mc.protos[k], sn_known) < 0:
                    return NULL
            slot = &mc.slots[_move_slot(mc, key)]
            slot.n = mc.n_moves - slot.off
            return slot
        if mc.n_skeys >= _SHARED_CAP or mc.n_protos > SHARED_PROTOS // 2 \
                or mc.sgen != _SHARED_GEN:
            # (full, or kept under another setting of the debug switch: forget every walk
            # kept, and keep this one)
            memset(mc.skeys, 0, 2 * SHARED_KEYS * sizeof(uint64_t))
            mc.n_skeys = 0
            mc.n_protos = 0
            mc.sgen = _SHARED_GEN
            gh = _shared_slot(mc, gk)
        first = mc.n_protos
    a1 = <int>(F & 3)
    a2 = <int>((F >> 2) & 3)
    a3 = <int>((F >> 4) & 3)
    b2 = <int>((F >> 9) & 7)
    b3 = <int>((F >> 12) & 7)
    if merged:
        # runs counted by length only, whatever jokers they hold (b2, b3; a2, a3 hold what
        # exceeds 7, see below)
        b2 += a2
        a2 = 0
        b3 += a3
        a3 = 0
    for u in range(m, A + 1):
        # runs of length 1 and 2 must go on; 3+ may go on or end
        for x1 in range(a1 + 1):
            if a1 - x1 > JL:
                continue
            for x2 in range(a2 + 1):
                if (a1 - x1) + (a2 - x2) > JL:
                    continue
                for x3 in range(a3 + 1):
                    for y3 in range(a3 - x3 + 1):
                        e3 = a3 - x3 - y3
                        for p2 in range(b2 + 1):
                            if limited and not merged and p2 != b2:
                                continue
                            for p3 in range(b3 + 1):
                                for q3 in range(b3 - p3 + 1):
                                    if limited and not merged and q3 != 0:
                                        break
                                    R = x1 + x2 + x3 + p2 + p3
                                    if R > u:
                                        continue
                                    Jr = (a1 - x1) + (a2 - x2) + y3 + (b2 - p2) + q3
                                    if Jr > JL:
                                        continue
                                    # new runs starting here (0, 1, >=2 leading jokers)
                                    for n0 in range(u - R + 1):
                                        if n0 > 0 and (e3 > 0 or (merged and b3 - p3 - q3 > 0)):
                                            break  # continuing the ended run dominates
                                            # (one joker per meld: not a run with a
                                            # joker, which could take no other)
                                        for n1 in range(u - R - n0 + 1):
                                            if n1 > 0 and v < 2:
                                                break
                                            if Jr + n1 > JL:
                                                break
                                            for nL in range(u - R - n0 - n1 + 1):
                                                if nL > 0 and (limited or v < 3):
                                                    break
                                                if Jr + n1 + 2 * nL > JL:
                                                    break
                                                for xl in range(JL - Jr - n1 - 2 * nL + 1):
                                                    if xl > 0 and (nL == 0 or 2 + xl > v - 1):
                                                        break
                                                    g = u - R - n0 - n1 - nL
                                                    na1 = n0
                                                    na2 = x1
                                                    na3 = x2 + x3
                                                    nb2 = (a1 - x1) + n1
                                                    nb3 = (a2 - x2) + y3 + b2 + p3 + q3 + nL
                                                    if merged:
                                                        # by length only; beyond 7 the rest
                                                        # goes to a2 / a3 (canonical)
                                                        nb2 += na2
                                                        nb3 += na3
                                                        na2 = nb2 - 7 if nb2 > 7 else 0
                                                        nb2 -= na2
                                                        na3 = nb3 - 7 if nb3 > 7 else 0
                                                        nb3 -= na3
                                                        if na2 > 3:
                                                            continue
                                                    if last and (na1 + na2 + nb2) > 0:
                                                        continue
                                                    nJ = Jr + n1 + 2 * nL + xl
                                                    if next_dead and (na1 + na2 + nb2) > 0 and nJ >= JL:
                                                        continue
                                                    if next2_dead and na1 > 0 and nJ >= JL:
                                                        continue
                                                    if na3 > 3 or nb3 > 7 or nb2 > 7:
                                                        continue
                                                    if acelow and g > 0:
                                                        continue   # groups of aces are made at value 14
                                                    NF = (<uint64_t>na1 | (<uint64_t>na2 << 2) | (<uint64_t>na3 << 4)
                                                          | (<uint64_t>nb2 << 9) | (<uint64_t>nb3 << 12))
                                                    dec = (<uint64_t>u << (4 * D_U)) | (<uint64_t>x1 << (4 * D_X1)) \
                                                        | (<uint64_t>x2 << (4 * D_X2)) | (<uint64_t>x3 << (4 * D_X3)) \
                                                        | (<uint64_t>y3 << (4 * D_Y3)) | (<uint64_t>p2 << (4 * D_P2)) \
                                                        | (<uint64_t>p3 << (4 * D_P3)) | (<uint64_t>q3 << (4 * D_Q3)) \
                                                        | (<uint64_t>n0 << (4 * D_N0)) | (<uint64_t>n1 << (4 * D_N1)) \
                                                        | (<uint64_t>nL << (4 * D_NL)) | (<uint64_t>xl << (4 * D_XL))
                                                    pr.dec = dec
                                                    pr.F = <uint16_t>NF
                                                    pr.u = <uint8_t>u
                                                    pr.g = <uint8_t>g
                                                    pr.nJ = <uint8_t>nJ
                                                    pr.Jr = <uint8_t>Jr
                                                    pr.n1 = <uint8_t>n1
                                                    pr.nL = <uint8_t>nL
                                                    pr.xl = <uint8_t>xl
                                                    if _move_from(mc, im, v, s, &pr, sn_known) < 0:
                                                        return NULL
                                                    if gh >= 0:
                                                        if mc.n_protos < SHARED_PROTOS:
                                                            mc.protos[mc.n_protos] = pr
                                                            mc.n_protos += 1
                                                        else:
                                                            gh = -1   # (no room: not kept)
    if gh >= 0:
        mc.skeys[gh] = gk
        mc.soff[gh] = first
        mc.scount[gh] = mc.n_protos - first
        mc.n_skeys += 1
    slot = &mc.slots[_move_slot(mc, key)]
    slot.n = mc.n_moves - slot.off
    return slot
