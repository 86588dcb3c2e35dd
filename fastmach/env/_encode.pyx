"""The observation vector filled in C (fastmach.env.encoding describes the parts; tests
compare it with an independent loop in Python, tests/refs/env_encoding.py).

``fill`` reads the seat's Observation fields as Python tuples and writes one float32 row;
``advance`` brings each seat's placed and drawn totals up to the public history.
"""
from libc.string cimport memset
from libc.stdint cimport int64_t

DEF NCARD = 53
DEF JOKER = 52
DEF MAXM = 64       # the most melds (deck size // 3 for up to 8 decks with jokers)
DEF MAXL = 64       # the most cards in one meld

# the parts' starts in ``off`` (fastmach.env.encoding.Layout.offsets)
DEF O_HAND = 0
DEF O_TABLE = 1
DEF O_JSTANDS = 2
DEF O_MELDS = 3
DEF O_STOCK = 4
DEF O_SIZES = 5
DEF O_SCORES = 6
DEF O_OPENED = 7
DEF O_PLACED = 8
DEF O_DRAWN = 9
DEF O_RECENT = 10
DEF O_PROGRESS = 11
DEF O_LEGAL = 12
DEF O_MAXPLAY = 13
DEF RECENT_COLS = 9


cdef inline float _clip(double x):
    return <float>(1.0 if x > 1.0 else x)


cdef int _action_code(str a):
    if a == "play":
        return 0
    if a == "draw":
        return 1
    if a == "pass":
        return 2
    return 3


def advance(int64_t[:, ::1] placed, int64_t[::1] drawn, tuple history, Py_ssize_t start):
    """Add the turns ``history[start:]`` to each seat's placed cards and drawn count."""
    cdef Py_ssize_t i, n = len(history)
    cdef int seat, c
    for i in range(start, n):
        t = history[i]
        seat = t.seat
        for c in t.placed:
            placed[seat, c] += 1
        drawn[seat] += <int64_t>t.drawn


def fill(float[::1] v, const int64_t[::1] off, const double[::1] scale, obs, int players,
         int recent_rows, int max_melds, const int64_t[:, ::1] placed,
         const int64_t[::1] drawn, mask, max_play=None):
    """Write the observation of ``obs`` into ``v`` (zeroed first). ``scale``: 1 / copies,
    1 / deck size, 1 / joker scale, 1 / score scale, 1 / max(P - 1, 1), 1 / hands scale,
    1 / turns scale. ``mask``: the mover's int8 mask or None; ``max_play``: the mover's
    (share of the hand the max_cards play places, 1 if it empties the hand) or None."""
    cdef int P = players, me = obs.seat, k, s, c, i, j, n, nm, R = recent_rows
    cdef double ic = scale[0], idk = scale[1], ij = scale[2], isc = scale[3]
    cdef double iseat = scale[4], ihand = scale[5], iturn = scale[6]
    cdef int cards[MAXM][MAXL]
    cdef int lens[MAXM]
    cdef int order[MAXM]
    cdef int tmp, a, b, better
    cdef float* out = &v[0]
    cdef Py_ssize_t size = v.shape[0]
    memset(out, 0, size * sizeof(float))
    for c in obs.hand:
        out[off[O_HAND] + c] += <float>ic
    # the melds: each meld's cards sorted, the melds in the order of their sorted cards
    table = obs.table
    nm = len(table)
    if nm > MAXM or nm > max_melds:
        raise ValueError(f"fill: {nm} melds on the table")
    for i in range(nm):
        meld = table[i]
        n = len(meld)
        if n > MAXL:
            raise ValueError(f"fill: a meld of {n} cards")
        lens[i] = n
        for j in range(n):
            c = meld[j]
            k = j
            while k > 0 and cards[i][k - 1] > c:
                cards[i][k] = cards[i][k - 1]
                k -= 1
            cards[i][k] = c
        order[i] = i
    for i in range(1, nm):
        tmp = order[i]
        k = i
        while k > 0:
            a = order[k - 1]
            better = 0   # cards[tmp] < cards[a], lexicographically
            j = 0
            while True:
                if j == lens[tmp] or j == lens[a]:
                    better = lens[tmp] < lens[a]
                    break
                if cards[tmp][j] != cards[a][j]:
                    better = cards[tmp][j] < cards[a][j]
                    break
                j += 1
            if not better:
                break
            order[k] = a
            k -= 1
        order[k] = tmp
    for i in range(nm):
        a = order[i]
        for j in range(lens[a]):
            c = cards[a][j]
            out[off[O_MELDS] + i * NCARD + c] += <float>ic
            out[off[O_TABLE] + c] += <float>ic
    stands = obs.stands
    for i in range(nm):
        meld = table[i]
        st = stands[i]
        for j in range(len(meld)):
            if meld[j] == JOKER:
                out[off[O_JSTANDS] + <int>st[j]] += <float>ij
    out[off[O_STOCK]] = _clip(obs.stock * idk)
    sizes, scores, opened = obs.hand_sizes, obs.scores, obs.opened_seats
    for k in range(P):
        s = (me + k) % P
        out[off[O_SIZES] + k] = _clip(sizes[s] * idk)
        out[off[O_SCORES] + k] = _clip(scores[s] * isc)
        if opened:
            out[off[O_OPENED] + k] = 1.0 if opened[s] else 0.0
        for c in range(NCARD):
            if placed[s, c]:
                out[off[O_PLACED] + k * NCARD + c] = _clip(placed[s, c] * ic)
        out[off[O_DRAWN] + k] = _clip(drawn[s] * idk)
    history = obs.history
    n = len(history)
    i = n - R if n > R else 0
    j = R - (n - i)    # the first row filled
    while i < n:
        t = history[i]
        s = t.seat
        k = off[O_RECENT] + j * RECENT_COLS
        out[k] = 1.0
        out[k + 1] = <float>(((s - me) % P + P) % P * iseat)
        out[k + 2 + _action_code(t.action)] = 1.0
        out[k + 6] = _clip(len(t.placed) * idk)
        out[k + 7] = _clip(t.drawn * idk)
        out[k + 8] = _clip(t.hand_sizes[s] * idk)
        i += 1
        j += 1
    out[off[O_PROGRESS]] = _clip(obs.hand_index * ihand)
    out[off[O_PROGRESS] + 1] = _clip(obs.turn * iturn)
    if mask is not None:
        for k in range(len(mask)):
            out[off[O_LEGAL] + k] = 1.0 if mask[k] else 0.0
    if max_play is not None:
        out[off[O_MAXPLAY]] = _clip(max_play[0])
        out[off[O_MAXPLAY] + 1] = _clip(max_play[1])
