# Joker reject: a multiset of cards with 1-4 jokers (one joker per meld at most) that no set
# of melds covers exactly, every joker used, known without the solver.
#
# As in _split_reject.pyx, t[s][r] is how many copies of card (s, r) go to groups; each
# group (3-4 cards, different suits) belongs to one rank and each run (>= 3 consecutive
# positions) to one suit, by its real cards (a meld holds >= 2 of them: one joker at most),
# so the J jokers split between the constraints: J = sum over ranks and suits of the
# jokers each uses. Each constraint c has a least cost, the fewest jokers with which it
# takes given t's:
# - rank r: t[s] real cards of suit s to g groups (t[s] <= g, each group 2-4 real cards,
#   one with 2 only with a joker): the least is 0 when no card goes to groups, none when
#   the total T < 2 max t, else max(0, 3 max t - T) (g = max t groups, each missing third
#   card a joker);
# - suit s: the cards left, cnt - t, split into runs, each plain (>= 3 real cards in a row)
#   or with one joker (>= 2 real cards: in a row, the joker at an end, or with one position
#   skipped, the joker in it; room for the joker at an end is not checked): a DP over
#   positions 1..14 whose state counts the open runs by kind (plain with 1, 2, >= 3 cards;
#   with a joker: 1 card, >= 2 cards, at a skipped position, >= 2 cards with the skip
#   used) and whose cost counts the runs with a joker.
# Every value of every t starts allowed; cost_c(t = v), the least over the other
# variables' values, and min_c its least. A partition's t's pay J >= sum_c cost_c, hence
# sum_c min_c <= J, and a value v of t[s][r] with
#   (cost_rank(v) - min_rank) + (cost_suit(v) - min_suit) + sum_c min_c > J
# is in no partition and is dropped; constraint after constraint until nothing drops. A
# variable left without a value, or sum_c min_c > J, proves no split (sound by
# construction, not complete). The cost bound of a state is J: its cost never exceeds it.
from libc.stdint cimport uint8_t, int16_t, int32_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

import numpy as np

from fastmach.core._solver cimport NCARD, JOKER


cdef extern from *:
    int __builtin_ctz(unsigned int) nogil


cdef enum:
    MAXC = 3        # the most copies of a card (3 decks)
    MAXJ = 4        # the most jokers this reject handles (more: the solver decides)
    NKEY = 1 << 15  # a state's key: a1 a2 a3 b1 b2 bc (2 bits each), bg (3 bits)
    INF = 255


cdef int16_t DENSE[NKEY]      # key -> dense state index, -1 for no state
cdef int NS = 0               # dense states
cdef int32_t* TSTART = NULL   # TSTART[s * (MAXC + 1) + x]: first transition of s at x cards
cdef int16_t* TNEXT = NULL    # the state after it
cdef uint8_t* TCOST = NULL    # the jokers it adds (runs with a joker started)
cdef uint8_t* ACC = NULL      # ACC[s]: 0 where every run open in s may end after the last
                              # position, else INF (a cost to the end)
cdef int ZERO_STATE = 0


def _transitions(state: tuple[int, ...], x: int) -> dict[tuple[int, ...], int]:
    """The states after a position of x real cards (with their least cost): every open
    plain run of 1-2 cards and every run at a skipped position goes on; plain runs of >= 3,
    runs with a joker of >= 2 cards (or with the skip used) go on or end; a run with a
    joker may skip this position (once, after a real card); the cards left start runs."""
    a1, a2, a3, b1, b2, bg, bc = state
    out: dict[tuple[int, ...], int] = {}
    need = a1 + a2 + bg
    if need > x:
        return out
    for k3 in range(a3 + 1):
        for k1 in range(b1 + 1):              # the others skip this position
            for k2 in range(b2 + 1):
                for g2 in range(b2 - k2 + 1):  # into a skip; the others end
                    for kc in range(bc + 1):
                        used = need + k3 + k1 + k2 + kc
                        if used > x:
                            continue
                        rest = x - used
                        for nb in range(rest + 1):
                            ns = (rest - nb, a1, a2 + k3, nb, k1 + k2, b1 - k1 + g2, bg + kc)
                            if ns[3] + ns[4] + ns[5] + ns[6] > MAXJ:
                                continue
                            if out.get(ns, INF) > nb:
                                out[ns] = nb
    return out


def _key(s: tuple[int, ...]) -> int:
    a1, a2, a3, b1, b2, bg, bc = s
    return a1 | a2 << 2 | a3 << 4 | b1 << 6 | b2 << 8 | bc << 10 | bg << 12


cdef void _init_tables():
    """The dense states reachable from no open run, and their transitions (CSR)."""
    global NS, TSTART, TNEXT, TCOST, ACC, ZERO_STATE
    cdef int i, j, x
    zero = (0,) * 7
    states = [zero]
    index = {zero: 0}
    trans = []
    i = 0
    while i < len(states):
        row = []
        for x in range(MAXC + 1):
            t = _transitions(states[i], x)
            for ns in t:
                if ns not in index:
                    index[ns] = len(states)
                    states.append(ns)
            row.append(sorted((index[ns], c) for ns, c in t.items()))
        trans.append(row)
        i += 1
    NS = len(states)
    total = sum(len(r) for row in trans for r in row)
    TSTART = <int32_t*>malloc(sizeof(int32_t) * (NS * (MAXC + 1) + 1))
    TNEXT = <int16_t*>malloc(sizeof(int16_t) * max(total, 1))
    TCOST = <uint8_t*>malloc(max(total, 1))
    ACC = <uint8_t*>malloc(NS)
    for i in range(NKEY):
        DENSE[i] = -1
    j = 0
    for i in range(NS):
        DENSE[_key(states[i])] = i
        a1, a2, a3, b1, b2, bg, bc = states[i]
        ACC[i] = 0 if a1 == 0 and a2 == 0 and b1 == 0 and bg == 0 else INF
        for x in range(MAXC + 1):
            TSTART[i * (MAXC + 1) + x] = j
            for ns, c in trans[i][x]:
                TNEXT[j] = ns
                TCOST[j] = c
                j += 1
    TSTART[NS * (MAXC + 1)] = j
    ZERO_STATE = index[zero]


_init_tables()


def _state_count() -> int:
    """Debug: how many run states the suit DP has."""
    return NS


cdef inline int _rank_costs(const uint8_t* dom, int J, uint8_t* cost) noexcept nogil:
    """cost[s * 4 + v]: the fewest jokers the groups of one rank need with t[s] = v (the
    others within dom, bit v of dom[s]), INF where none; returns their least (INF: none)."""
    cdef int t0, t1, t2, t3, T, m, c, best = INF
    memset(cost, INF, 16)
    for t0 in range(MAXC + 1):
        if not (dom[0] >> t0) & 1:
            continue
        for t1 in range(MAXC + 1):
            if not (dom[1] >> t1) & 1:
                continue
            for t2 in range(MAXC + 1):
                if not (dom[2] >> t2) & 1:
                    continue
                for t3 in range(MAXC + 1):
                    if not (dom[3] >> t3) & 1:
                        continue
                    T = t0 + t1 + t2 + t3
                    m = t0 if t0 > t1 else t1
                    if t2 > m:
                        m = t2
                    if t3 > m:
                        m = t3
                    if T == 0:
                        c = 0
                    elif T < 2 * m:
                        continue
                    else:
                        c = 3 * m - T
                        if c < 0:
                            c = 0
                    if c > J:
                        continue
                    if c < best:
                        best = c
                    if c < cost[t0]:
                        cost[t0] = c
                    if c < cost[4 + t1]:
                        cost[4 + t1] = c
                    if c < cost[8 + t2]:
                        cost[8 + t2] = c
                    if c < cost[12 + t3]:
                        cost[12 + t3] = c
    return best


cdef inline int _forward(const uint8_t* src, const int16_t* src_l, int src_n, uint8_t* dst,
                         int16_t* dst_l, unsigned int xs, int J) noexcept nogil:
    """dst: the least cost of each state after a position holding x cards, x in the bit
    set xs, from the states of src (INF: unreachable; src_l lists its src_n states);
    costs above J dropped. Returns how many states dst_l lists."""
    cdef int i, s, x, j, e, c, n = 0
    memset(dst, INF, NS)
    for i in range(src_n):
        s = src_l[i]
        c = src[s]
        for x in range(MAXC + 1):
            if not (xs >> x) & 1:
                continue
            for j in range(TSTART[s * (MAXC + 1) + x], TSTART[s * (MAXC + 1) + x + 1]):
                e = c + TCOST[j]
                if e <= J and e < dst[TNEXT[j]]:
                    if dst[TNEXT[j]] == INF:
                        dst_l[n] = TNEXT[j]
                        n += 1
                    dst[TNEXT[j]] = e
    return n


cdef inline void _backward(const int16_t* live_l, int live_n, const uint8_t* nxt,
                           uint8_t* dst, unsigned int xs, int J) noexcept nogil:
    """dst[s] (s listed in live_l): the least cost from s through a position of x cards
    (x in xs) to a state with cost nxt to the end (INF: none, or above J)."""
    cdef int i, s, x, j, e
    memset(dst, INF, NS)
    for i in range(live_n):
        s = live_l[i]
        for x in range(MAXC + 1):
            if not (xs >> x) & 1:
                continue
            for j in range(TSTART[s * (MAXC + 1) + x], TSTART[s * (MAXC + 1) + x + 1]):
                if nxt[TNEXT[j]] == INF:
                    continue
                e = TCOST[j] + nxt[TNEXT[j]]
                if e <= J and e < dst[s]:
                    dst[s] = e


cdef inline int _through(const uint8_t* f, const int16_t* f_l, int f_n, const uint8_t* b,
                         int x, int J) noexcept nogil:
    """The least f[s] + cost + b[s'] over the transitions s -> s' at x cards, s listed in
    f_l (INF: none, or above J)."""
    cdef int i, s, j, e, best = INF
    for i in range(f_n):
        s = f_l[i]
        for j in range(TSTART[s * (MAXC + 1) + x], TSTART[s * (MAXC + 1) + x + 1]):
            if b[TNEXT[j]] == INF:
                continue
            e = f[s] + TCOST[j] + b[TNEXT[j]]
            if e < best:
                best = e
    return best if best <= J else INF


cdef inline unsigned int _lefts(int cnt, unsigned int dom) noexcept nogil:
    """The bit set of the counts left to runs, cnt - v for the values v in dom."""
    cdef unsigned int xs = 0
    cdef int v
    for v in range(cnt + 1):
        if (dom >> v) & 1:
            xs |= 1u << (cnt - v)
    return xs


cdef enum:
    NLAYER = (MAXC + 1) * 15   # F(x1, k) or B(x14, k): layer x * 15 + k


cdef int _suit_costs(const uint8_t* cnt, const uint8_t* dom, int ace_high, int J,
                     uint8_t* cost, uint8_t* work) noexcept nogil:
    """cost[r * 4 + v]: the fewest jokers (<= J) the runs of one suit need with t[r] = v
    (the other ranks within dom), INF where none; returns their least. Position p holds
    rank p-1 (p = 1..13), the aces left split between positions 1 (x1) and 14 (x14, ace
    high only). work: WORK_BYTES bytes."""
    # F(x1, k): costs after position k (0..13, 0: no position yet); B(x14, k): costs from
    # after position k to the end (k = 1..13)
    cdef int x1, x14, ta, k, r, v, i, c, best = INF, ca = cnt[0]
    cdef uint8_t* F = work
    cdef uint8_t* B = F + NLAYER * NS
    cdef uint8_t* mark = B + NLAYER * NS
    cdef int16_t* FL = <int16_t*>(mark + NS + (NS & 1))   # the states F(x1, k) lists
    cdef int16_t* live = FL + NLAYER * NS                 # those of some F(., k)
    cdef int fn[NLAYER]
    cdef int live_n
    cdef int maxl = ca - __builtin_ctz(dom[0])
    cdef int maxh = maxl if ace_high else 0
    memset(cost, INF, 52)
    for x1 in range(maxl + 1):
        memset(&F[(x1 * 15) * NS], INF, NS)
        F[(x1 * 15) * NS + ZERO_STATE] = 0
        FL[(x1 * 15) * NS] = ZERO_STATE
        fn[x1 * 15] = 1
        fn[x1 * 15 + 1] = _forward(&F[(x1 * 15) * NS], &FL[(x1 * 15) * NS], 1,
                                   &F[(x1 * 15 + 1) * NS], &FL[(x1 * 15 + 1) * NS], 1u << x1, J)
        for k in range(2, 14):
            fn[x1 * 15 + k] = _forward(
                &F[(x1 * 15 + k - 1) * NS], &FL[(x1 * 15 + k - 1) * NS], fn[x1 * 15 + k - 1],
                &F[(x1 * 15 + k) * NS], &FL[(x1 * 15 + k) * NS], _lefts(cnt[k - 1], dom[k - 1]), J)
    for k in range(13, 0, -1):
        # the states some forward pass reaches after position k
        memset(mark, 0, NS)
        live_n = 0
        for x1 in range(maxl + 1):
            for i in range(fn[x1 * 15 + k]):
                c = FL[(x1 * 15 + k) * NS + i]
                if not mark[c]:
                    mark[c] = 1
                    live[live_n] = c
                    live_n += 1
        for x14 in range(maxh + 1):
            if k == 13:   # through position 14 (x14 aces) to the end
                _backward(live, live_n, ACC, &B[(x14 * 15 + 13) * NS], 1u << x14, J)
            else:
                _backward(live, live_n, &B[(x14 * 15 + k + 1) * NS], &B[(x14 * 15 + k) * NS],
                          _lefts(cnt[k], dom[k]), J)
    for ta in range(ca + 1):
        if not (dom[0] >> ta) & 1:
            continue
        for x1 in range(ca - ta + 1):
            x14 = ca - ta - x1
            if x14 > maxh:
                continue
            c = _through(&F[(x1 * 15) * NS], &FL[(x1 * 15) * NS], 1, &B[(x14 * 15 + 1) * NS], x1, J)
            if c == INF:
                continue
            if c < cost[ta]:
                cost[ta] = c
            if c < best:
                best = c
            for k in range(2, 14):
                r = k - 1
                for v in range(cnt[r] + 1):
                    if not (dom[r] >> v) & 1:
                        continue
                    c = _through(&F[(x1 * 15 + k - 1) * NS], &FL[(x1 * 15 + k - 1) * NS],
                                 fn[x1 * 15 + k - 1], &B[(x14 * 15 + k) * NS], cnt[r] - v, J)
                    if c < cost[r * 4 + v]:
                        cost[r * 4 + v] = c
    return best


cdef inline size_t _work_bytes() noexcept nogil:
    """The bytes _suit_costs works in."""
    return (2 * NLAYER + 2) * NS + 2 * (NLAYER + 1) * NS * sizeof(int16_t)


cdef int _ENABLED = 1


def _set_enabled(int on) -> None:
    """Debug: 0 makes joker_split_impossible answer 0 (maybe) always (the tests compare
    games with and without it)."""
    global _ENABLED
    _ENABLED = on


cdef int _alone(const uint8_t* cards, int ace_high) noexcept nogil:
    """1 when some real card has no real partner for a meld (a meld holds >= 2 real
    cards): no card of its rank in another suit, none of its suit 1 or 2 positions away
    (the ace at 1, and at 14 where it may be high). The cheap first test."""
    cdef unsigned int pos[4]
    cdef unsigned int ranks[13]
    cdef unsigned int near
    cdef int s, r, c
    memset(ranks, 0, sizeof(ranks))
    for s in range(4):
        pos[s] = 0
        for r in range(13):
            if cards[s * 13 + r]:
                pos[s] |= 1u << (r + 1)
                ranks[r] |= 1u << s
        if ace_high and cards[s * 13]:
            pos[s] |= 1u << 14
    for c in range(JOKER):
        if not cards[c]:
            continue
        s = c // 13
        r = c % 13
        if ranks[r] & ~(1u << s):
            continue
        near = (0x1Bu << (r - 1)) if r >= 1 else (0x1Bu >> 1)   # positions r-1 .. r+3
        if r == 0 and ace_high:
            near |= 0x1Bu << 12                                  # 12, 13 (and 15, 16)
        if not pos[s] & near:
            return 1
    return 0


cdef int joker_split_impossible(const uint8_t* cards, int ace_high) noexcept nogil:
    """1 when the cards (counts of length NCARD, 1-4 jokers) certainly split into no melds
    of at most one joker each that use every joker (ace_high: 0 ace low only, else low or
    high); 0 when they may (the solver must say), and always 0 without a joker, with more
    than 4 jokers or more than 3 copies of a card."""
    cdef uint8_t dom[4][13]
    cdef uint8_t col[4]
    cdef uint8_t rc[13][16]
    cdef uint8_t sc[4][52]
    cdef int rmin[13]
    cdef int smin[4]
    cdef uint8_t rank_dirty[13]
    cdef uint8_t suit_dirty[4]
    cdef uint8_t* work
    cdef int s, r, v, c, tot, budget, J = cards[JOKER], again = 1, out = 0
    cdef unsigned int kept
    if J == 0 or J > MAXJ or not _ENABLED:
        return 0
    for c in range(JOKER):
        if cards[c] > MAXC:
            return 0
        dom[c // 13][c % 13] = (1 << (cards[c] + 1)) - 1
    if _alone(cards, ace_high):
        return 1
    work = <uint8_t*>malloc(_work_bytes())
    if work == NULL:
        return 0
    memset(rank_dirty, 1, 13)
    memset(suit_dirty, 1, 4)
    memset(smin, 0, sizeof(smin))
    while again:
        again = 0
        for r in range(13):
            if rank_dirty[r]:
                rank_dirty[r] = 0
                for s in range(4):
                    col[s] = dom[s][r]
                rmin[r] = _rank_costs(col, J, rc[r])
                if rmin[r] == INF:
                    out = 1
                    break
        if out:
            break
        for s in range(4):
            if suit_dirty[s]:
                # the jokers the other constraints leave this suit (their least costs
                # only grow as domains shrink: a value costing more is dropped anyway)
                suit_dirty[s] = 0
                budget = J
                for r in range(13):
                    budget -= rmin[r]
                for c in range(4):
                    if c != s:
                        budget -= smin[c]
                smin[s] = INF if budget < 0 else \
                    _suit_costs(&cards[s * 13], dom[s], ace_high, budget, sc[s], work)
                if smin[s] == INF:
                    out = 1
                    break
        if out:
            break
        tot = 0
        for r in range(13):
            tot += rmin[r]
        for s in range(4):
            tot += smin[s]
        if tot > J:
            out = 1
            break
        for s in range(4):
            for r in range(13):
                kept = 0
                for v in range(cards[s * 13 + r] + 1):
                    if (dom[s][r] >> v) & 1 and rc[r][s * 4 + v] != INF and \
                            sc[s][r * 4 + v] != INF and \
                            rc[r][s * 4 + v] - rmin[r] + sc[s][r * 4 + v] - smin[s] + tot <= J:
                        kept |= 1u << v
                if kept == 0:
                    out = 1
                    break
                if kept != dom[s][r]:
                    dom[s][r] = kept
                    rank_dirty[r] = 1
                    suit_dirty[s] = 1
                    again = 1
            if out:
                break
        if out:
            break
    free(work)
    return out


def joker_split_impossible_counts(cards, int ace_high=0) -> bool:
    """``joker_split_impossible`` on a count array of length 53 (tests: compared with the
    exact solver)."""
    cdef const uint8_t[::1] a = np.ascontiguousarray(cards, dtype=np.uint8)
    if a.shape[0] != NCARD:
        raise ValueError(f"counts of length {NCARD} expected")
    return bool(joker_split_impossible(&a[0], ace_high))
