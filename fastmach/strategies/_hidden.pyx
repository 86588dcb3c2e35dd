# The cards a seat cannot see, dealt again: the sampling step of every player that plays
# out positions it only partly sees (lookahead, search).
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

from fastmach.core._solver cimport NCARD
from fastmach.game._turn cimport ERules, HState, next_uniform


cdef void deal_hidden(const ERules* R, HState* ps, int seat, uint8_t* unknown,
                      uint64_t* prng) noexcept nogil:
    """Deal the cards `seat` cannot see in ps (the other hands, the stock) again at random
    from the deck minus its hand and the table, every hand size and the stock size kept
    (the stock then starts at 0). A Fisher-Yates shuffle of `unknown` (scratch of
    MAX_DECK cards) with prng; nothing else of ps changes."""
    cdef int s, c, k, j, nu = 0, left
    cdef uint8_t x
    for c in range(NCARD):
        k = R.deck_counts[c] - ps.hands[seat][c] - ps.table[c]
        for j in range(k):
            unknown[nu] = c
            nu += 1
    for j in range(nu - 1, 0, -1):
        k = <int>(next_uniform(prng) * (j + 1))
        x = unknown[j]
        unknown[j] = unknown[k]
        unknown[k] = x
    k = 0
    for s in range(R.players):
        if s == seat:
            continue
        memset(ps.hands[s], 0, NCARD)
        for j in range(ps.hand_n[s]):
            ps.hands[s][unknown[k]] += 1
            k += 1
    left = ps.stock_len - ps.stock_pos
    ps.stock_pos = 0
    ps.stock_len = left
    for j in range(left):
        ps.stock[j] = unknown[k + j]
