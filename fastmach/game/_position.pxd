# A position's table loaded from Python data into the C state (HState, fastmach/game/_turn.pxd):
# the one loader of the engine's decide_position, the bots' answer check (answer_of) and the
# reference State's compiled helpers; a position's hands, stock and counters (the learning
# environments' compiled turns and games); and a play built in Python loaded into a
# Decision (the same).
from libc.stdint cimport uint8_t, int64_t
from libc.string cimport memset

from fastmach.core._solver cimport NCARD, MAX_MELDS, MAX_TABLE
from fastmach.game._turn cimport HState, Decision, A_PLAY, MAX_DECK, wit_clear


cdef inline int load_deal(HState* st, object state, int players) except -1:
    """A Python position's hands (``_hands``: an int64 players x 53 array), scores, stock
    (``_stock``, ``_stock_pos``), turn, hand number (``hand_index``) and deal key into st
    (the hand counts added to what st holds: a cleared state starts from zero): the
    reference State, or the vector games' match ledger. A stock larger than the C state
    holds is a ValueError."""
    cdef const int64_t[:, ::1] hv = state._hands
    cdef int s, c
    scores = state.scores
    for s in range(players):
        for c in range(NCARD):
            st.hands[s][c] = <uint8_t>hv[s, c]
            st.hand_n[s] += <int>hv[s, c]
        st.scores[s] = scores[s]
    stock = state._stock
    if len(stock) > MAX_DECK:
        raise ValueError("a stock larger than the C state holds")
    st.stock_len = len(stock)
    for c in range(st.stock_len):
        st.stock[c] = stock[c]
    st.stock_pos = state._stock_pos
    st.turn = state.turn
    st.hand_no = state.hand_index
    st.deal_key = state.deal_key
    return 0


cdef inline int load_table(HState* st, object melds, object stands) except -1:
    """The table's meld list (``melds``: card ids per meld; ``stands``: what each card
    stands for, the same shape) into st.wit, its card counts into st.table (added to what
    st.table holds: a cleared state starts from zero) and st.table_n. A table of more
    melds or cards than the C state holds, readings of another shape or an id out of
    0..52 is a ValueError."""
    cdef Py_ssize_t m, k, n, nm = len(melds), i = 0
    cdef long c, v
    if nm > MAX_MELDS or len(stands) != nm:
        raise ValueError("the table's melds and their readings do not match (or too many melds)")
    st.wit.start[0] = 0
    for m in range(nm):
        meld = melds[m]
        read = stands[m]
        n = len(meld)
        if len(read) != n or i + n > MAX_TABLE:
            raise ValueError("the table's melds and their readings do not match (or too many cards)")
        for k in range(n):
            c = meld[k]
            v = read[k]
            if c < 0 or c >= NCARD or v < 0 or v >= NCARD:
                raise ValueError(f"a table card id out of 0..52 ({c}, read as {v})")
            st.wit.cards[i] = <uint8_t>c
            st.wit.stands[i] = <uint8_t>v
            st.table[c] += 1
            i += 1
        st.wit.start[m + 1] = i
    st.wit.n_melds = <int>nm
    st.table_n = <int>i
    return 0


cdef inline int load_play(Decision* d, object placed, int taken, object melds,
                          object stands) except -1:
    """d becomes the play of the hand cards ``placed`` (card ids) taking ``taken`` jokers
    from the table, its table after the play ``melds`` read as ``stands`` (card ids per
    meld, the same shape). More melds or cards than a witness holds is a ValueError."""
    cdef Py_ssize_t m, k, n, nm = len(melds), i = 0
    cdef long c
    memset(d.placed, 0, NCARD)
    d.kind = A_PLAY
    d.n_placed = 0
    d.touched = 0
    wit_clear(&d.wit)
    for c in placed:
        d.placed[c] += 1
        d.n_placed += 1
    d.taken = taken
    if nm > MAX_MELDS:
        raise ValueError(f"a play of {nm} melds")
    for m in range(nm):
        meld, read = melds[m], stands[m]
        n = len(meld)
        if i + n > MAX_TABLE:
            raise ValueError("a play of more table cards than a witness holds")
        for k in range(n):
            d.wit.cards[i] = <uint8_t>meld[k]
            d.wit.stands[i] = <uint8_t>read[k]
            i += 1
        d.wit.start[m + 1] = i
    d.wit.n_melds = <int>nm
    return 0


cdef inline tuple play_tuple(const Decision* d):
    """A play as Python data: (placed card ids, jokers taken, melds after, their stands),
    the inverse of load_play."""
    cdef int c, k, m
    placed = []
    for c in range(NCARD):
        for k in range(d.placed[c]):
            placed.append(c)
    melds, stands = [], []
    for m in range(d.wit.n_melds):
        melds.append([d.wit.cards[k] for k in range(d.wit.start[m], d.wit.start[m + 1])])
        stands.append([d.wit.stands[k] for k in range(d.wit.start[m], d.wit.start[m + 1])])
    return placed, d.taken, melds, stands
