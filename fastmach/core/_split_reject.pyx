# Split reject: a multiset of cards (counts, no jokers) that no set of melds covers exactly
# (no partition into melds), known without the solver.
#
# A partition gives each card to a group (3 or 4 different suits of one rank) or to a run
# (>= 3 consecutive ranks of one suit; the ace at position 1, and also at 14 where the ace
# may be high). Let t[s][r] be how many copies of card (s, r) its groups take. Two kinds of
# constraint tie the t's:
# - per rank r: some g >= 0 groups there with t[s][r] <= g in every suit and
#   sum_s t[s][r] >= 3g (exactly what g groups of 3-4 different suits can take: deal the
#   cards out suit by suit, cyclically, and every group gets 3 or 4 of them);
# - per suit s: the cards left, cnt[s][r] - t[s][r], split into runs: a DP over positions
#   1..14 whose state is how many runs are open holding 1, 2 and >= 3 cards (the aces left
#   split between positions 1 and 14).
# Each t[s][r] may first take every value 0..cnt[s][r]; a value that no choice of the other
# variables of one constraint supports is dropped, constraint after constraint, until
# nothing drops (arc consistency). The t's of any partition survive every step, so a
# variable left without a value proves the cards split into no melds; otherwise the answer
# is "maybe" (the solver decides). Sound by construction, and not complete (the supports
# of different constraints are not checked together).
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

import numpy as np


cdef enum:
    NCARD = 53         # card counts: 52 cards and the jokers (as fastmach/core/_solver.pxd;
    JOKER = 52         # not cimported from there: the solver cimports this module)


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clz(unsigned int) nogil


cdef enum:
    MAXC = 3           # the most copies of a card the state encoding holds (3 decks)
    NST = 64           # run states: open runs of 1, 2, >= 3 cards, 2 bits each


cdef uint64_t NEXT[MAXC + 1][NST]   # NEXT[x][s]: the states after a position of x cards
cdef uint64_t PREV[MAXC + 1][NST]   # PREV[x][s']: the states s with s' in NEXT[x][s]
# after position 14 no run may be open with fewer than 3 cards
cdef uint64_t ACCEPT = (<uint64_t>1) | (<uint64_t>1 << 16) | (<uint64_t>1 << 32) | (<uint64_t>1 << 48)


cdef void _init_tables() noexcept nogil:
    """The run DP's transitions: at a position holding x cards every open run of 1 or 2
    cards must go on, k of the runs of >= 3 go on (the others end there) and the cards
    left start new runs."""
    cdef int x, s, a1, a2, a3, k, s2
    memset(NEXT, 0, sizeof(NEXT))
    memset(PREV, 0, sizeof(PREV))
    for x in range(MAXC + 1):
        for s in range(NST):
            a1 = s & 3
            a2 = (s >> 2) & 3
            a3 = (s >> 4) & 3
            if a1 + a2 > x:
                continue
            for k in range(min(a3, x - a1 - a2) + 1):
                s2 = (x - a1 - a2 - k) | (a1 << 2) | ((a2 + k) << 4)
                NEXT[x][s] |= (<uint64_t>1) << s2
                PREV[x][s2] |= (<uint64_t>1) << s


_init_tables()


cdef inline uint64_t _union(const uint64_t* rows, uint64_t states) noexcept nogil:
    """The union of rows[s] over the states s in `states`."""
    cdef uint64_t out = 0
    while states:
        out |= rows[__builtin_ctzll(states)]
        states &= states - 1
    return out


cdef inline uint64_t _step(uint64_t states, int x) noexcept nogil:
    """The states after a position of x cards, from any of `states`."""
    return _union(NEXT[x], states)


cdef inline uint64_t _back(uint64_t states, int x) noexcept nogil:
    """The states before a position of x cards that lead to one of `states`."""
    return _union(PREV[x], states)


cdef inline int _high(unsigned int m) noexcept nogil:
    """The highest set bit of m (m > 0)."""
    return 31 - __builtin_clz(m)


cdef int _rank_support(const uint8_t* dom, uint8_t* sup) noexcept nogil:
    """sup[s]: the values of dom[s] (bit t: t copies of the rank's card of suit s go to
    groups) that some choice of the other suits' values lets g groups take, for some g.
    Returns 0 when some suit is left without a value."""
    cdef int g, s, tot, need
    cdef int mx[4]
    cdef unsigned int lim, l
    sup[0] = sup[1] = sup[2] = sup[3] = 0
    for g in range(5):   # 4 suits of at most 3 copies: at most 4 groups
        lim = (1u << (g + 1)) - 1
        tot = 0
        for s in range(4):
            l = dom[s] & lim
            if l == 0:
                break
            mx[s] = _high(l)
            tot += mx[s]
        else:
            if g == 0:
                for s in range(4):
                    sup[s] |= 1
            elif tot >= 3 * g:
                for s in range(4):
                    need = 3 * g - (tot - mx[s])
                    l = dom[s] & lim
                    if need > 0:
                        l &= ~((1u << need) - 1)
                    sup[s] |= l
    return sup[0] and sup[1] and sup[2] and sup[3]


cdef int _suit_support(const uint8_t* cnt, const uint8_t* dom, int ace_high,
                       uint8_t* sup) noexcept nogil:
    """sup[r]: the values of dom[r] (bit t: t copies of rank r go to groups) with which
    the cards left of this suit split into runs, the other ranks taking values of dom.
    Position p holds rank p-1 (p = 1..13) and the ace again at p = 14 (ace high; the aces
    left are split: x1 at position 1, x14 at 14). Returns 0 when some rank is left
    without a value."""
    # G[x1][p][x]: states after position p (2..13) holding x cards, x1 aces at position 1
    cdef uint64_t G[MAXC + 1][14][MAXC + 1]
    cdef uint64_t B[MAXC + 1][16]  # B[x14][p]: states before position p that reach the end
    cdef uint64_t f
    cdef int x1, x14, ta, p, r, t, x, left
    cdef int ca = cnt[0]
    cdef int maxl = ca - (__builtin_ctzll(dom[0]))   # the most aces left to runs
    cdef int maxh = maxl if ace_high else 0
    memset(sup, 0, 13)
    for x1 in range(maxl + 1):
        f = NEXT[x1][0]
        for p in range(2, 14):
            r = p - 1
            for x in range(MAXC + 1):
                G[x1][p][x] = _step(f, x) if x <= cnt[r] else 0
            f = 0
            for t in range(cnt[r] + 1):
                if (dom[r] >> t) & 1:
                    f |= G[x1][p][cnt[r] - t]
    for x14 in range(maxh + 1):
        B[x14][15] = ACCEPT
        B[x14][14] = _back(ACCEPT, x14)
        for p in range(13, 1, -1):
            r = p - 1
            f = 0
            for t in range(cnt[r] + 1):
                if (dom[r] >> t) & 1:
                    f |= _back(B[x14][p + 1], cnt[r] - t)
            B[x14][p] = f
    for ta in range(ca + 1):
        if not (dom[0] >> ta) & 1:
            continue
        left = ca - ta
        for x1 in range(left + 1):
            x14 = left - x1
            if x14 > maxh or not (NEXT[x1][0] & B[x14][2]):
                continue
            sup[0] |= 1 << ta
            for p in range(2, 14):
                r = p - 1
                for t in range(cnt[r] + 1):
                    if (dom[r] >> t) & 1 and G[x1][p][cnt[r] - t] & B[x14][p + 1]:
                        sup[r] |= 1 << t
    for r in range(13):
        if sup[r] == 0:
            return 0
    return 1


cdef int _ENABLED = 1


def _set_enabled(int on) -> None:
    """Debug: 0 makes split_impossible answer 0 (maybe) always (the tests compare games
    with and without it)."""
    global _ENABLED
    _ENABLED = on


cdef int split_impossible(const uint8_t* cards, int ace_high) noexcept nogil:
    """1 when the cards (counts of length NCARD) certainly split into no melds (no
    partition into groups and runs; ace_high: 0 ace low only, else low or high); 0 when
    they may (then the solver must say), and always 0 with a joker among them or more
    than 3 copies of a card."""
    cdef uint8_t dom[4][13]
    cdef uint8_t col[4]
    cdef uint8_t kept[4]
    cdef uint8_t sup[13]
    cdef uint8_t rank_dirty[13]
    cdef uint8_t suit_dirty[4]
    cdef int s, r, c, n = 0, again = 1
    if cards[JOKER] or not _ENABLED:
        return 0
    for c in range(JOKER):
        if cards[c] > MAXC:
            return 0
        n += cards[c]
        dom[c // 13][c % 13] = (1 << (cards[c] + 1)) - 1
    if n == 0:
        return 0
    memset(rank_dirty, 1, 13)
    memset(suit_dirty, 1, 4)
    while again:
        again = 0
        for r in range(13):
            if not rank_dirty[r]:
                continue
            rank_dirty[r] = 0
            for s in range(4):
                col[s] = dom[s][r]
            if not _rank_support(col, kept):
                return 1
            for s in range(4):
                if kept[s] != col[s]:
                    dom[s][r] = kept[s]
                    suit_dirty[s] = 1
        for s in range(4):
            if not suit_dirty[s]:
                continue
            suit_dirty[s] = 0
            if not _suit_support(&cards[s * 13], dom[s], ace_high, sup):
                return 1
            for r in range(13):
                if sup[r] != dom[s][r]:
                    dom[s][r] = sup[r]
                    rank_dirty[r] = 1
                    again = 1
    return 0


def split_impossible_counts(cards, int ace_high=0) -> bool:
    """``split_impossible`` on a count array of length 53 (tests: compared with the exact
    solver and a brute-force partition search)."""
    cdef const uint8_t[::1] a = np.ascontiguousarray(cards, dtype=np.uint8)
    if a.shape[0] != NCARD:
        raise ValueError(f"counts of length {NCARD} expected")
    return bool(split_impossible(&a[0], ace_high))
