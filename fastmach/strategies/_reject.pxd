# Quick rejects: positions where no play can add a card, known without the solver.
#
# A card lies in a play only if it lies in some meld (a group of >= 3 suits of one rank, a
# run of >= 3 consecutive ranks of one suit) made of the table's and the hand's cards
# together; _base.meld_cards keeps exactly the cards that could (dropping, until none is
# left to drop, every card with no group and no run among the cards kept). Every card of
# a valid partition of the table and the placed cards survives that (its meld's other cards
# do), so a hand card it drops can never be placed. No jokers on the table or in the hand:
# a joker completes almost anything, and the reject then says nothing.
#
# A NoPlay remembers the last position found without a play (table T, hand H): on the same
# table a hand holding H and new cards N can play only with a card of N (a play of H's
# cards alone was not there), so only N needs a meld.
from libc.stdint cimport uint8_t, uint32_t
from libc.string cimport memcmp, memcpy

from fastmach.core._solver cimport NCARD, JOKER, Solver
from fastmach.game._turn cimport ERules, HState, seat_can_play
from fastmach.strategies._base cimport meld_cards


cdef struct NoPlay:
    int seen                 # table and hand hold a position without a play
    uint8_t table[NCARD]
    uint8_t hand[NCARD]
    uint8_t fresh[NCARD]     # work: the cards added since


cdef inline int none_can_join(const uint8_t* table, const uint8_t* hand, const uint8_t* cand,
                              int ace_high) noexcept nogil:
    """1 when no card of `cand` (a part of `hand`) could lie in any meld of table and hand
    cards together: then every play that adds a card adds none of them (cand = hand: no
    play adds a card). 0 when some could, or when the table or the hand holds a joker."""
    cdef uint8_t pool[NCARD]
    cdef uint32_t ps[4]
    cdef int c, s, r
    if table[JOKER] or hand[JOKER]:
        return 0
    for c in range(JOKER):
        pool[c] = table[c] | hand[c]
    pool[JOKER] = 0
    meld_cards(pool, ace_high, ps)
    for s in range(4):
        for r in range(13):
            if cand[s * 13 + r] and (ps[s] >> (r + 1)) & 1:
                return 0
    return 1


cdef inline int added_since(const uint8_t* before, const uint8_t* hand, uint8_t* new) noexcept nogil:
    """1 when `hand` holds every card of `before`, then `new` = the cards added since;
    0 when some card of `before` has left (a play, a swap: `new` is then undefined)."""
    cdef int c
    for c in range(NCARD):
        if hand[c] < before[c]:
            return 0
        new[c] = hand[c] - before[c]
    return 1


cdef inline void no_play_seen(NoPlay* m, const uint8_t* table, const uint8_t* hand) noexcept nogil:
    """Remember (table, hand) as a position without a play (a fact: the exact solver's
    answer, or no_play_known's)."""
    m.seen = 1
    memcpy(m.table, table, NCARD)
    memcpy(m.hand, hand, NCARD)


cdef inline int seat_can_play_remembered(Solver solver, const ERules* R, const HState* st,
                                         int seat, NoPlay* m,
                                         const uint8_t* empty) noexcept nogil:
    """seat_can_play (fastmach/game/_turn.pxd) asked only where m does not already know
    the position has no play (the table, or `empty` before the seat's opening, and its
    hand); a position found without a play is remembered in m. 1, 0, or a solver error."""
    cdef const uint8_t* table = empty if R.opening and not st.opened[seat] else st.table
    cdef int k
    if no_play_known(m, table, st.hands[seat], R.srules.ace_high):
        return 0
    k = seat_can_play(solver, R, st, seat)
    if k == 0:
        no_play_seen(m, table, st.hands[seat])
    return k


cdef enum:
    NO_PLAYS = 8             # positions a NoPlays remembers (round-robin)


cdef struct NoPlays:
    # several facts of NoPlay's kind, for a skill that several seats share (each seat's
    # last position without a play survives the others' turns)
    NoPlay entry[NO_PLAYS]
    int next                 # the entry a new table replaces
    int planted              # tests only: 1 trusts a remembered position blindly (wrong)


cdef inline void no_plays_seen(NoPlays* m, const uint8_t* table, const uint8_t* hand) noexcept nogil:
    """Remember (table, hand) as a position without a play: in place of a fact it implies
    (the same table, a hand it holds), else in the next entry."""
    cdef int i
    cdef NoPlay* e
    for i in range(NO_PLAYS):
        e = &m.entry[i]
        if e.seen and memcmp(e.table, table, NCARD) == 0 and added_since(e.hand, hand, e.fresh):
            no_play_seen(e, table, hand)
            return
    no_play_seen(&m.entry[m.next], table, hand)
    m.next = (m.next + 1) % NO_PLAYS


cdef inline int no_plays_known(NoPlays* m, const uint8_t* table, const uint8_t* hand,
                               int ace_high) noexcept nogil:
    """no_play_known over every fact of m: 1 when no play from `hand` adds a card to
    `table` (then remembered), 0 when the solver must say."""
    cdef int i, implied = 0
    cdef NoPlay* e
    if table[JOKER] or hand[JOKER]:
        return 0
    for i in range(NO_PLAYS):
        e = &m.entry[i]
        if e.seen and memcmp(e.table, table, NCARD) == 0 and added_since(e.hand, hand, e.fresh):
            # a play needs a card of e.fresh (a part of the hand: when one of them can
            # join a meld, so can one of the hand's, and the test of the whole hand fails)
            if m.planted or none_can_join(table, hand, e.fresh, ace_high):
                no_play_seen(e, table, hand)
                return 1
            implied = 1
    if not implied and none_can_join(table, hand, hand, ace_high):
        no_plays_seen(m, table, hand)
        return 1
    return 0


cdef inline int no_play_known(NoPlay* m, const uint8_t* table, const uint8_t* hand,
                              int ace_high) noexcept nogil:
    """1 when no play from `hand` adds a card to `table`, known without the solver (then
    remembered); 0 when the solver must say."""
    cdef const uint8_t* cand = hand
    if table[JOKER] or hand[JOKER]:
        return 0
    if m.seen and memcmp(m.table, table, NCARD) == 0 and added_since(m.hand, hand, m.fresh):
        cand = m.fresh
    if none_can_join(table, hand, cand, ace_high):
        no_play_seen(m, table, hand)
        return 1
    return 0
