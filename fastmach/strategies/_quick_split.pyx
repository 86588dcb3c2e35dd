# Quick split: a partition of a multiset of cards into melds, every card used (jokers
# included), found by a depth-first search within a budget of melds tried.
#
# For a player going out with a large hand on a large table: the exact solver sweeps every
# way of splitting the union, while a union that splits has many partitions and a search
# meets one soon. The search takes the lowest real card left (rank, then suit; no real card
# of a lower rank is left, so positions below it in its suit hold only jokers) and tries
# each meld that holds it: runs of its suit from it upwards (a real card where one is left
# at the next position, else a joker; leading jokers below it; with aces high, an ace also
# as the top of a run ending at 14), then groups of its rank (suits after its own, jokers
# for missing suits). Jokers per meld and the ace rules are those of SolverRules; a run
# never holds an ace at each end (a partition of those rules too when the rules allow it).
# Remainders proved to have no split are remembered (by a hash of the counts: the outcome
# depends on the remainder alone), so each is searched once. The budget is shared by eight
# orders of the moves tried in turn (runs shortest or longest first, runs or groups
# first, on the deal or on its mirror image, highest ranks first): an early wrong move
# costs one order its share, not the search (on the going-out unions of all-strong jokers
# games, 21 of 40 found within 200 melds against 11 with one order; every one of 200
# unions of 24 random melds against 171).
#
# Sound, not complete: a partition it returns is one (each meld is laid valid, the cards
# are exactly the input's); no answer (budget spent, or no partition found by its moves,
# which skip, e.g., a joker where a real card is left) says nothing: the caller asks the
# solver. tests/strategies/test_quick_split.py checks every partition with the independent validator.
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

import numpy as np

from fastmach.core._solver cimport NCARD, JOKER, MAX_MELDS, MAX_TABLE, SolverRules, Witness


cdef enum:
    SEEN = 1 << 12          # remainders remembered as without a split (a hash set)
    ORDERS = 8              # orders of the moves tried in turn, each with a share of the
                            # budget (4-7: on the mirrored deal)
    MAXLEN = 14


cdef struct Search:
    int cnt[4][15]          # real cards left by suit and position 1..13
    int jokers              # jokers left
    int left                # real cards left
    int ace_high            # SolverRules.ace_high
    int jpm                 # SolverRules.jokers_per_meld (0: unlimited)
    int nodes
    int budget
    int spent               # 1: the budget ran out (nothing below is proved)
    int order               # the order of the moves: bit 0 runs longest first, bit 1
                            # groups before runs
    uint64_t seen[SEEN]     # hashes of remainders without a split (0: empty slot): shared
                            # by the orders (their moves are the same, in another order)
    uint64_t h              # the hash of the counts left
    Witness* wit


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 30
    x *= <uint64_t>0xBF58476D1CE4E5B9ULL
    x ^= x >> 27
    x *= <uint64_t>0x94D049BB133111EBULL
    x ^= x >> 31
    return x


# the hash of a count by suit, position and count (0..3), and of the jokers left
cdef uint64_t ZOB[4][15][4]
cdef uint64_t ZOB_J[8]


cdef void _init_zob() noexcept nogil:
    cdef int s, p, k
    for s in range(4):
        for p in range(15):
            for k in range(4):
                ZOB[s][p][k] = _mix(<uint64_t>(((s * 15 + p) * 4 + k) + 1))
    for k in range(8):
        ZOB_J[k] = _mix(<uint64_t>(1000 + k))


_init_zob()


cdef void _init(Search* q, const uint8_t* cards, const SolverRules* rules, int budget,
                Witness* wit) noexcept nogil:
    """Set the search on `cards` (the remainders known without a split are kept)."""
    cdef int s, p
    memset(q.cnt, 0, sizeof(q.cnt))
    q.left = 0
    for s in range(4):
        for p in range(1, 14):
            q.cnt[s][p] = cards[s * 13 + p - 1]
            q.left += q.cnt[s][p]
    q.jokers = cards[JOKER]
    q.ace_high = rules.ace_high
    q.jpm = rules.jokers_per_meld
    q.nodes = 0
    q.budget = budget
    q.spent = 0
    q.wit = wit
    wit.n_melds = 0
    wit.start[0] = 0
    q.h = 0
    for s in range(4):
        for p in range(15):
            q.h ^= ZOB[s][p][q.cnt[s][p] & 3]
    q.h ^= ZOB_J[q.jokers & 7]


cdef inline void _take(Search* q, int s, int p) noexcept nogil:
    q.h ^= ZOB[s][p][q.cnt[s][p] & 3]
    q.cnt[s][p] -= 1
    q.h ^= ZOB[s][p][q.cnt[s][p] & 3]
    q.left -= 1


cdef inline void _give(Search* q, int s, int p) noexcept nogil:
    q.h ^= ZOB[s][p][q.cnt[s][p] & 3]
    q.cnt[s][p] += 1
    q.h ^= ZOB[s][p][q.cnt[s][p] & 3]
    q.left += 1


cdef inline void _jokers_by(Search* q, int d) noexcept nogil:
    q.h ^= ZOB_J[q.jokers & 7]
    q.jokers += d
    q.h ^= ZOB_J[q.jokers & 7]


cdef inline bint _seen(Search* q) noexcept nogil:
    cdef uint64_t h = q.h | 1
    cdef int i = <int>(h >> 40) & (SEEN - 1), k
    for k in range(8):
        if q.seen[i] == h:
            return True
        if q.seen[i] == 0:
            return False
        i = (i + 1) & (SEEN - 1)
    return False


cdef inline void _remember(Search* q) noexcept nogil:
    cdef uint64_t h = q.h | 1
    cdef int i = <int>(h >> 40) & (SEEN - 1), k
    for k in range(8):
        if q.seen[i] == 0 or q.seen[i] == h:
            q.seen[i] = h
            return
        i = (i + 1) & (SEEN - 1)


cdef inline int _card(int s, int p) noexcept nogil:
    return s * 13 + (0 if p == 14 else p - 1)


cdef inline int _lay(Search* q, const uint8_t* cards, const uint8_t* stands, int n) noexcept nogil:
    """Append one meld to the witness (-1: no room)."""
    cdef Witness* w = q.wit
    cdef int i, at = w.start[w.n_melds]
    if w.n_melds >= MAX_MELDS or at + n > MAX_TABLE:
        return -1
    for i in range(n):
        w.cards[at + i] = cards[i]
        w.stands[at + i] = stands[i]
    w.n_melds += 1
    w.start[w.n_melds] = at + n
    return 0


cdef inline void _unlay(Search* q) noexcept nogil:
    q.wit.n_melds -= 1


cdef inline int _lay_search(Search* q, const uint8_t* cards, const uint8_t* stands, int n,
                            int nj) noexcept nogil:
    """Lay a meld of n entries holding nj jokers (its real cards already taken) and search
    the rest: 1 a split found; 0 none (the meld taken back, the jokers given back)."""
    cdef int res = 0
    _jokers_by(q, -nj)
    if _lay(q, cards, stands, n) == 0:
        res = _search(q)
        if not res:
            _unlay(q)
    if not res:
        _jokers_by(q, nj)
    return res


cdef int _try_run(Search* q, int s, int a, int b, int anchor, int sub, int jokers_ok) noexcept nogil:
    """Lay the run of suit s over positions a..b (14: the ace high) holding the lowest card
    at `anchor`, every other position a real card where one is left (except at `sub`),
    else a joker; search the rest. 1: a split found; 0: none (the cards given back)."""
    cdef int p, n = 0, nj = 0, k, res = 0, c
    cdef int real[MAXLEN]
    cdef uint8_t cards[MAXLEN]
    cdef uint8_t stands[MAXLEN]
    if b - a + 1 < 3 or b - a + 1 > MAXLEN or (a == 1 and b == 14):
        return 0
    for p in range(a, b + 1):
        k = 1 if p == 14 else p
        if p == anchor or (p != sub and q.cnt[s][k] > 0):
            real[n] = 1
        else:
            real[n] = 0
            nj += 1
        n += 1
    if nj > q.jokers or (q.jpm == 1 and nj > 1) or (nj > 0 and not jokers_ok):
        return 0
    for p in range(a, b + 1):
        k = p - a
        c = _card(s, p)
        stands[k] = <uint8_t>c
        if real[k]:
            _take(q, s, 1 if p == 14 else p)
            cards[k] = <uint8_t>c
        else:
            cards[k] = JOKER
    if _lay_search(q, cards, stands, n, nj):
        return 1
    for p in range(a, b + 1):
        if real[p - a]:
            _give(q, s, 1 if p == 14 else p)
    return 0


cdef int _runs(Search* q, int s, int r, int jokers_ok) noexcept nogil:
    """The runs holding the lowest card (s, r): from it upwards (jokers below it), and
    for an ace with aces high, ending with it at 14; shortest first (longest first under
    order bit 0); with jokers_ok, also with one real card left out for a joker. 1: a split
    found."""
    cdef int a, b, top = 14 if q.ace_high else 13, sub, lo, i, i2, nb
    lo = r - (2 if jokers_ok else 0)
    if lo < 1:
        lo = 1
    for a in range(r, lo - 1, -1):
        nb = top - (a + 2) + 1
        for i in range(nb):
            b = (top - i) if (q.order & 1) else (a + 2 + i)
            if b < r:
                continue
            if _try_run(q, s, a, b, r, -1, jokers_ok):
                return 1
            if q.spent:
                return 0
            if jokers_ok:
                for sub in range(r + 1, b + 1):
                    if q.cnt[s][1 if sub == 14 else sub] > 0:
                        if _try_run(q, s, a, b, r, sub, 1):
                            return 1
                        if q.spent:
                            return 0
    if r == 1 and q.ace_high:
        for i2 in range(11):
            a = (2 + i2) if (q.order & 1) else (12 - i2)
            if _try_run(q, s, a, 14, 14, -1, jokers_ok):
                return 1
            if q.spent:
                return 0
            if jokers_ok:
                for sub in range(a, 14):
                    if q.cnt[s][sub] > 0:
                        if _try_run(q, s, a, 14, 14, sub, 1):
                            return 1
                        if q.spent:
                            return 0
    return 0


cdef int _groups(Search* q, int s, int r, int jokers_ok) noexcept nogil:
    """The groups of rank r holding (s, r): suits after s (those before hold none of rank
    r), jokers for missing suits (jokers_ok). 1: a split found."""
    cdef int mask, k, t, g, nj, m, used
    cdef bint ok
    cdef uint8_t cards[4]
    cdef uint8_t stands[4]
    for mask in range(7, 0, -1):
        ok = True
        g = 0
        for k in range(3):
            if mask >> k & 1:
                t = s + 1 + k
                if t > 3 or q.cnt[t][r] == 0:
                    ok = False
                    break
                g += 1
        if not ok:
            continue
        for nj in range(0, 3):
            if 1 + g + nj < 3 or 1 + g + nj > 4 or (nj > 0 and not jokers_ok):
                continue
            if nj > q.jokers or (q.jpm == 1 and nj > 1):
                continue
            m = 0
            used = 1 << s
            cards[m] = <uint8_t>_card(s, r)
            stands[m] = cards[m]
            m += 1
            _take(q, s, r)
            for k in range(3):
                if mask >> k & 1:
                    t = s + 1 + k
                    _take(q, t, r)
                    used |= 1 << t
                    cards[m] = <uint8_t>_card(t, r)
                    stands[m] = cards[m]
                    m += 1
            k = 0
            for t in range(4):
                if k < nj and not (used >> t & 1):
                    cards[m] = JOKER
                    stands[m] = <uint8_t>_card(t, r)
                    m += 1
                    k += 1
            if _lay_search(q, cards, stands, m, nj):
                return 1
            _give(q, s, r)
            for k in range(3):
                if mask >> k & 1:
                    _give(q, s + 1 + k, r)
            if q.spent:
                return 0
    return 0


cdef inline int _at(Search* q, int s, int p) noexcept nogil:
    """Cards of suit s left at run position p (0 outside 1..13, or 14 with aces high)."""
    if p == 14:
        return q.cnt[s][1] if q.ace_high else 0
    if p < 1 or p > 13:
        return 0
    return q.cnt[s][p]


cdef int _dead(Search* q) noexcept nogil:
    """1 when some real card left lies in no meld of the cards left: no group (3 suits of
    its rank, jokers filling) and no 3-position window of its suit (jokers filling)."""
    cdef int s, p, t, suits, w, miss, jmax, ok, pp, k
    jmax = q.jokers if q.jpm == 0 else (1 if q.jokers > 0 else 0)
    if jmax > 2:
        jmax = 2
    for p in range(1, 14):
        suits = 0
        for t in range(4):
            suits += q.cnt[t][p] > 0
        for s in range(4):
            if q.cnt[s][p] == 0:
                continue
            if suits + jmax >= 3:
                continue
            ok = 0
            for k in range(2 if (p == 1 and q.ace_high) else 1):
                pp = 14 if k == 1 else p   # (an ace: also at 14)
                for w in range(pp - 2, pp + 1):
                    miss = (_at(q, s, w) == 0 and w != pp) + (_at(q, s, w + 1) == 0 and w + 1 != pp) \
                        + (_at(q, s, w + 2) == 0 and w + 2 != pp)
                    if w >= 1 and w + 2 <= (14 if q.ace_high else 13) and miss <= jmax:
                        ok = 1
                        break
                if ok:
                    break
            if not ok:
                return 1
    return 0


cdef int _search(Search* q) noexcept nogil:
    """1: the cards left split (their melds appended to the witness); 0: not found."""
    cdef int s = -1, r = 0, t, p, jokers_ok
    if q.left == 0:
        return 1 if q.jokers == 0 else 0   # (jokers alone make no meld)
    if q.spent or _seen(q):
        return 0
    if _dead(q):
        _remember(q)
        return 0
    q.nodes += 1
    if q.nodes > q.budget:
        q.spent = 1
        return 0
    for p in range(1, 14):
        for t in range(4):
            if q.cnt[t][p] > 0:
                s = t
                r = p
                break
        if s >= 0:
            break
    # melds without a joker first (the jokers kept for where nothing else fits)
    for jokers_ok in range(2):
        if jokers_ok and q.jokers == 0:
            break
        if q.order & 2:
            if _groups(q, s, r, jokers_ok) or _runs(q, s, r, jokers_ok):
                return 1
        elif _runs(q, s, r, jokers_ok) or _groups(q, s, r, jokers_ok):
            return 1
        if q.spent:
            return 0
    _remember(q)
    return 0


cdef inline int _mirror(int c, int ace_high) noexcept nogil:
    """The card of c in the mirrored deal (rank r -> 15 - r with aces high, the ace staying
    an ace; 14 - r with aces low only): runs and groups map to runs and groups."""
    cdef int s = c // 13, r = c % 13 + 1
    if c == JOKER:
        return c
    if ace_high:
        r = 1 if r == 1 else 15 - r
    else:
        r = 14 - r
    return s * 13 + r - 1


cdef void _unmirror(Witness* w, int ace_high) noexcept nogil:
    """Map a partition of the mirrored deal back (cards and stands), each run listed
    ascending again (a run's first two entries stand for different ranks)."""
    cdef int m, a, n, k, i, j
    cdef uint8_t t
    for i in range(w.start[w.n_melds]):
        w.cards[i] = <uint8_t>_mirror(w.cards[i], ace_high)
        w.stands[i] = <uint8_t>_mirror(w.stands[i], ace_high)
    for m in range(w.n_melds):
        a = w.start[m]
        n = w.start[m + 1] - a
        if n >= 2 and w.stands[a] % 13 != w.stands[a + 1] % 13:
            for k in range(n // 2):
                i = a + k
                j = a + n - 1 - k
                t = w.cards[i]
                w.cards[i] = w.cards[j]
                w.cards[j] = t
                t = w.stands[i]
                w.stands[i] = w.stands[j]
                w.stands[j] = t


cdef int quick_split(const uint8_t* cards, const SolverRules* rules, int budget,
                     Witness* wit) noexcept nogil:
    """1 and wit the melds when the search finds a partition of `cards` (every card, jokers
    included) within `budget` melds tried; 0 when it finds none (nothing proved)."""
    return _quick_split(cards, rules, budget, wit, 0)


cdef int _quick_split(const uint8_t* cards, const SolverRules* rules, int budget,
                      Witness* wit, int first) noexcept nogil:
    """quick_split from order `first` on (tests: 4 starts on the mirrored deal)."""
    cdef Search q
    cdef int order, c
    cdef uint8_t mirrored[NCARD]
    if cards[JOKER] > 7:
        return 0
    for c in range(NCARD):
        mirrored[_mirror(c, rules.ace_high)] = cards[c]
    cdef const uint8_t* src
    memset(q.seen, 0, sizeof(q.seen))
    for order in range(first, ORDERS):
        src = <const uint8_t*> mirrored if order & 4 else cards
        _init(&q, src, rules, budget // ORDERS, wit)
        q.order = order & 3
        if _search(&q) == 1:
            if order & 4:
                _unmirror(wit, rules.ace_high)
            return 1
        if not q.spent:
            break   # (every move of this order tried: the others try the same moves)
    wit.n_melds = 0
    wit.start[0] = 0
    return 0


def quick_split_counts(cards, int decks, int ace_high, int jokers_per_meld, int budget=2000,
                       int first_order=0):
    """Python entry (tests, benchmarks): the melds (lists of card ids) and what each entry
    stands for, or None when the search finds no partition within its budget
    (first_order: the orders from that one on; 4, those on the mirrored deal only)."""
    cdef SolverRules rules
    cdef Witness wit
    cdef uint8_t buf[NCARD]
    cdef int i, m
    a = np.ascontiguousarray(cards, dtype=np.uint8)
    if a.shape[0] != NCARD:
        raise ValueError("cards must be a count array of length 53")
    for i in range(NCARD):
        buf[i] = a[i]
    rules.decks = decks
    rules.ace_high = ace_high
    rules.jokers_per_meld = jokers_per_meld
    with nogil:
        m = _quick_split(buf, &rules, budget, &wit, first_order)
    if not m:
        return None
    melds = [[wit.cards[i] for i in range(wit.start[k], wit.start[k + 1])] for k in range(wit.n_melds)]
    stands = [[wit.stands[i] for i in range(wit.start[k], wit.start[k + 1])] for k in range(wit.n_melds)]
    return melds, stands
