# Whole games of Machiavelli in C: deal, turn loop, end rules, scoring, matches.
#
# The turn loop (Engine.play_hand) touches no Python object and runs without the GIL: C
# arrays for hands, table and stock, one Solver instance, a splitmix64 PRNG per game.
# Python (fastmach/engine.py) validates rules and strategies and builds the Engine; the
# deal of each hand comes from NumPy's Generator (so it is reproducible from
# (replicate, root_seed) on any machine), drawn with the GIL between hands.
#
# Model choices (documented in fastmach/engine.py as well):
# - a turn is PLAY, DRAW, PASS or FAIL; a strategy returns PLAY, DRAW or FAIL; DRAW with an
#   empty stock becomes PASS (stock_empty = play-on) or ends the hand (ends-hand).
# - play-on: a hand is blocked when `players` consecutive turns that began with an empty
#   stock added no card to the table.
# - a FAIL draws min(failed_penalty, stock left); under ends-hand a FAIL with an empty
#   stock ends the hand (the player must draw from an empty stock).
# - joker_swap = hand: a player who has opened may take back a table joker by putting the
#   real card it stands for (in the current meld list) in its place; the expert does it
#   when the play that follows places at least as many cards as the best play without it.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy, memmove, memcmp
from libc.stdlib cimport malloc, free
from libc.math cimport pow

import numpy as np
cimport numpy as cnp
cimport cython

from fastmach._solver cimport Solver, SolverRules, Witness, NCARD, JOKER, MAX_MELDS, MAX_TABLE
from fastmach._cardset cimport cs_popcount, cs_ctz

cnp.import_array()

cdef enum:
    MAX_PLAYERS = 8
    MAX_DECK = 164
    N_PARAMS = 8
    PATIENCE_STOCK = 10  # a patient player waits while the stock holds at least this many
    MAX_TURNS = 100000   # a hand longer than this is reported as an error (see play_batch)
    SMALL_R = 8          # intermediate: mixed values with at most this many hand cards by opt_search
    MV_SLOTS = 4096      # intermediate: entries of the mixed-value cache (a power of two)

# actions
cdef enum:
    A_PLAY = 0
    A_DRAW = 1
    A_PASS = 2
    A_FAIL = 3

# hand ends
cdef enum:
    E_EMPTIED = 0
    E_BLOCKED = 1
    E_STOCKOUT = 2

# strategy codes: keep in sync with fastmach/strategies.py REGISTRY
cdef enum:
    S_EXPERT = 0
    S_BEGINNER = 1
    S_INTERMEDIATE = 2
    S_PATIENT = 3
    S_LOOKAHEAD = 4

# parameter slots (fastmach/strategies.py Param.slot), the same for every strategy
cdef enum:
    P_ERROR = 0
    P_K = 1
    P_MIN = 2
    P_OBJ = 3
    P_KEEPJ = 4
    P_PLAYOUTS = 5

STRATEGY_CODES = {"expert": S_EXPERT, "beginner": S_BEGINNER,
                  "intermediate": S_INTERMEDIATE, "patient": S_PATIENT,
                  "lookahead": S_LOOKAHEAD}
PARAM_SLOTS = {"error": P_ERROR, "k": P_K, "min_cards": P_MIN, "objective": P_OBJ,
               "keep_jokers": P_KEEPJ, "playouts": P_PLAYOUTS}
SOLVER_ERRORS = {-4: "state limit", -6: "a set of table melds did not partition"}
ACTIONS = ("play", "draw", "pass", "fail")
VIOLATIONS = (
    "none",
    "cards not conserved (hands + table + stock != deck)",
    "a hand's card count is wrong",
    "the meld list does not hold exactly the table cards",
    "a meld has fewer than 3 cards",
    "a play added no hand card",
    "a draw or pass changed the table",
)
ENDS = ("emptied", "blocked", "stock-out")
# play_batch(hands=True): the per-hand arrays, in this order (the last three per seat)
HAND_FIELDS = ("game", "hand", "dealer", "first_player", "end", "winner", "turns", "rounds",
               "stock_exhausted_turn", "cards_drawn", "plays", "failed", "max_table",
               "cards_left", "hand_points", "score")
HAND_SEAT_FIELDS = ("cards_left", "hand_points", "score")


cdef struct Strat:
    int code
    double p[N_PARAMS]


cdef struct ERules:
    int players
    int deck_size
    int hand_size
    int swap_hand
    int may_draw
    int may_pass            # with an empty stock, a player able to play may pass
    int opening
    int penalty
    int ends_hand
    int lowest
    int ties_shared         # tied lowest hands share the win (else nobody wins)
    int winner_takes        # scoring: a hand's winners score the others' points (else penalties)
    SolverRules srules
    int32_t hpts[NCARD]
    int32_t ones[NCARD]
    int32_t ones_j[16]
    int32_t open_w[NCARD]
    int32_t open_jw[16]
    int32_t open_scale
    int32_t pw[NCARD]       # objective=points: hand points * 64 + 1 (ties to more cards)
    int32_t pw_j[16]


cdef struct HState:
    uint8_t hands[MAX_PLAYERS][NCARD]
    int hand_n[MAX_PLAYERS]
    uint8_t table[NCARD]
    int table_n
    Witness wit
    uint8_t stock[MAX_DECK]
    int stock_pos
    int stock_len
    int opened[MAX_PLAYERS]
    int failed_last[MAX_PLAYERS]   # the seat's previous turn was a FAIL


cdef struct Decision:
    int kind
    uint8_t placed[NCARD]   # hand cards put on the table (swapped-in real cards included)
    int n_placed
    int taken               # jokers taken back into the hand (joker_swap = hand)
    int touched             # intact table melds laid off onto (beginner, intermediate)
    Witness wit             # the table's melds after a PLAY


cdef struct HandResult:
    int end
    int winner
    int first_player
    int turns
    int stock_exhausted_turn   # 1-based turn that drew the last stock card, 0 = no stock, -1
    int cards_drawn
    int plays
    int failed
    int max_table
    int cards_left[MAX_PLAYERS]
    int points[MAX_PLAYERS]
    int won[MAX_PLAYERS]    # the seat won the hand (alone, or sharing a tie)


# ---------------------------------------------------------------- PRNG (splitmix64)
cdef inline uint64_t next_u64(uint64_t* s) noexcept nogil:
    cdef uint64_t z
    s[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double next_uniform(uint64_t* s) noexcept nogil:
    return <double>(next_u64(s) >> 11) * (1.0 / 9007199254740992.0)


def splitmix64(uint64_t state, int n):
    """The engine's PRNG, for tests: (new state, [n uniform floats in [0, 1)])."""
    cdef uint64_t s = state
    out = [next_uniform(&s) for _ in range(n)]
    return s, out


# ---------------------------------------------------------------- witness helpers
cdef inline void wit_clear(Witness* w) noexcept nogil:
    w.n_melds = 0
    w.start[0] = 0


cdef inline void wit_copy(Witness* dst, const Witness* src) noexcept nogil:
    cdef int n = src.start[src.n_melds]
    dst.n_melds = src.n_melds
    memcpy(dst.start, src.start, (src.n_melds + 1) * sizeof(int))
    memcpy(dst.cards, src.cards, n)
    memcpy(dst.stands, src.stands, n)


cdef inline void wit_append(Witness* dst, const Witness* src) noexcept nogil:
    cdef int m, i, base = dst.start[dst.n_melds]
    cdef int n = src.start[src.n_melds]
    memcpy(dst.cards + base, src.cards, n)
    memcpy(dst.stands + base, src.stands, n)
    for m in range(src.n_melds):
        dst.start[dst.n_melds + 1 + m] = base + src.start[m + 1]
    dst.n_melds += src.n_melds


cdef inline void wit_push(Witness* dst, const Witness* src, int m) noexcept nogil:
    """Append meld m of src to dst."""
    cdef int a = src.start[m], n = src.start[m + 1] - src.start[m]
    cdef int base = dst.start[dst.n_melds]
    memcpy(dst.cards + base, src.cards + a, n)
    memcpy(dst.stands + base, src.stands + a, n)
    dst.n_melds += 1
    dst.start[dst.n_melds] = base + n


cdef inline void wit_insert(Witness* w, int m, int pos, int card, int stand) noexcept nogil:
    """Insert a card (standing for `stand`) at index pos, inside meld m."""
    cdef int i, n = w.start[w.n_melds]
    memmove(w.cards + pos + 1, w.cards + pos, n - pos)
    memmove(w.stands + pos + 1, w.stands + pos, n - pos)
    w.cards[pos] = card
    w.stands[pos] = stand
    for i in range(m + 1, w.n_melds + 1):
        w.start[i] += 1


cdef inline int64_t placed_weight(const uint8_t* placed, const int32_t* w,
                                  const int32_t* jw) noexcept nogil:
    """Objective value of placed hand cards (the jokers' weight does not depend on the
    value they stand for in the strategies' objectives)."""
    cdef int c
    cdef int64_t v = <int64_t>placed[JOKER] * jw[1]
    for c in range(JOKER):
        v += <int64_t>placed[c] * w[c]
    return v


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
    cdef int s, c, changed = 1
    ps[0] = ps[1] = ps[2] = ps[3] = 0
    for c in range(JOKER):
        if hand[c]:
            ps[c // 13] |= (<uint32_t>1) << (c % 13 + 1)
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


def hand_may_meld(hand, bint ace_high):
    """may_meld on a count array (length 53, no jokers), for tests."""
    cdef uint8_t h[NCARD]
    cdef int c
    for c in range(NCARD):
        h[c] = hand[c]
    return bool(may_meld(h, ace_high))


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


cdef void sort_melds(const Witness* w, uint8_t* out) noexcept nogil:
    """Each meld's card ids sorted ascending (insertion sort, melds are short)."""
    cdef int m, i, j, a, b
    cdef uint8_t x
    for m in range(w.n_melds):
        a = w.start[m]
        b = w.start[m + 1]
        for i in range(a, b):
            x = w.cards[i]
            j = i - 1
            while j >= a and out[j] > x:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = x


cdef inline int take_subset(const uint8_t* a, int na, const uint8_t* b, uint8_t* used,
                            int nb, int mark) noexcept nogil:
    """1 if sorted multiset a fits in the unused entries of sorted b (marks them if mark)."""
    cdef int i = 0, j = 0
    while i < na:
        while j < nb and (used[j] or b[j] < a[i]):
            j += 1
        if j == nb or b[j] != a[i]:
            return 0
        if mark:
            used[j] = 1
        i += 1
        j += 1
    return 1


cdef int count_dissolved(const Witness* old, const Witness* new) noexcept nogil:
    """Table melds that a play broke up. An old meld is kept when its cards sit, all
    together, in one new meld (extending a meld or merging two keeps them; splitting a
    meld or taking a card from it does not); matched greedily in meld order."""
    cdef uint8_t so[MAX_TABLE]
    cdef uint8_t sn[MAX_TABLE]
    cdef uint8_t used[MAX_TABLE]
    cdef int m, k, a, na, b, nb, kept = 0
    sort_melds(old, so)
    sort_melds(new, sn)
    memset(used, 0, MAX_TABLE)
    for m in range(old.n_melds):
        a = old.start[m]
        na = old.start[m + 1] - a
        for k in range(new.n_melds):
            b = new.start[k]
            nb = new.start[k + 1] - b
            if nb >= na and take_subset(so + a, na, sn + b, used + b, nb, 0):
                take_subset(so + a, na, sn + b, used + b, nb, 1)
                kept += 1
                break
    return old.n_melds - kept


cdef void _fill_witness(Witness* w, melds) except *:
    cdef int i = 0, m = 0
    w.n_melds = 0
    w.start[0] = 0
    for meld in melds:
        for c in meld:
            w.cards[i] = c
            w.stands[i] = c
            i += 1
        m += 1
        w.start[m] = i
    w.n_melds = m


def dissolved(old_melds, new_melds):
    """How many of ``old_melds`` a table rearranged into ``new_melds`` broke up (the
    fallible player's count; for tests)."""
    cdef Witness a, b
    _fill_witness(&a, old_melds)
    _fill_witness(&b, new_melds)
    return count_dissolved(&a, &b)


cdef inline void _set_draw(Decision* d) noexcept nogil:
    """A fresh decision: draw, nothing placed or taken."""
    d.kind = A_DRAW
    d.taken = 0
    d.n_placed = 0
    d.touched = 0
    memset(d.placed, 0, NCARD)


cdef inline bint _same_play(const Decision* a, const Decision* b) noexcept nogil:
    return a.taken == b.taken and memcmp(a.placed, b.placed, NCARD) == 0


cdef inline int total(const uint8_t* counts) noexcept nogil:
    cdef int c, n = 0
    for c in range(NCARD):
        n += counts[c]
    return n


# ---------------------------------------------------------------- the engine
@cython.final
cdef class Engine:
    """Rules + one strategy per seat + a Solver; plays hands and whole matches."""

    cdef ERules R
    cdef Strat seats[MAX_PLAYERS]
    cdef Solver solver
    cdef uint8_t empty[NCARD]
    # scratch for decisions (an Engine is used by one thread at a time)
    cdef HState st
    cdef Decision dec
    cdef Decision alt
    cdef Decision cand        # intermediate: the candidate set being tried
    cdef Decision full        # keep_jokers: the play with the whole hand
    cdef Witness tmpwit
    # lookahead: the playout position, its decisions, the candidate play, the expert seat
    cdef HState ps
    cdef Decision pdec
    cdef Decision la          # candidates: the maximum placement,
    cdef Decision la_kj       # ... keeping the jokers,
    cdef Decision la_pts      # ... placing the most points
    cdef Strat xstrat
    cdef uint8_t unknown[MAX_DECK]
    cdef uint8_t hk[NCARD]    # the hand a strategy plays from (keep_jokers: no jokers)
    cdef uint8_t rem[NCARD]   # hand cards left for lay-offs
    cdef uint8_t tS[NCARD]    # cards of the dissolved melds
    cdef uint8_t scratch[NCARD]
    cdef int touched_m[MAX_MELDS]
    cdef Masks mmask[MAX_MELDS]
    cdef uint64_t mkey[MAX_MELDS][2]  # per meld: its cards, 2 bits a card (mixed_value's key)
    cdef public bint raw      # decide without patience or error (the State API's must-play check)
    # intermediate: bounds that skip sets which cannot beat the best so far (see intermediate)
    cdef public bint exhaustive       # no bounds: the plain search (the reference path, for tests)
    cdef public bint no_small         # regroup always solves with the solver (tests)
    cdef readonly long long n_small   # regroups done by the small search (small_regroup)
    cdef readonly long long n_regroups    # sets solved by intermediate (regroup calls)
    cdef readonly long long n_bounded     # connected sets skipped by the bound
    cdef int64_t last_vs              # regroup: the value the solver placed (before lay-offs)
    cdef int64_t v0                   # the hand-only optimum (the beginner's solve)
    cdef int64_t lay_all              # lay-off cap with every meld intact
    cdef int64_t vs1[MAX_MELDS]       # per meld: the solver's value with it dissolved (or a bound)
    cdef int64_t m1[MAX_MELDS]        # per meld: its mixed value with it dissolved (or a bound)
    cdef int64_t vs2[MAX_MELDS][MAX_MELDS]   # per pair (k = 3): the same for two melds
    cdef int mjok[MAX_MELDS]          # the meld holds a joker
    cdef int msuits[MAX_MELDS]        # the suits of its real cards (bits)
    cdef int capn[MAX_MELDS]          # hand cards each meld could take as lay-offs ...
    cdef int capup[MAX_MELDS]         # ... the first capup of them upward (a run's top)
    cdef uint8_t capc[MAX_MELDS][32]  # ... (card ids, a chain of a run's ends, a group's suit)
    cdef int capall[NCARD]
    cdef int capt[NCARD]
    cdef int mvdone[MAX_MELDS]        # m1[m] is the exact mixed value
    cdef uint32_t mdil[MAX_MELDS][4]  # per meld and suit: its cards' segments in it + the hand,
                                      # widened by a rank each way (loose_pair)
    cdef int64_t lc1[MAX_MELDS]       # per meld: lay_cap with it dissolved
    cdef uint64_t r1mask[MAX_MELDS]   # per meld: its related hand cards (rset as 16 bits a
                                      # suit, bit r: rank r; near_bound)
    cdef uint32_t mext[MAX_MELDS][4]  # per meld and suit: its cards' segments in it + the hand
    cdef uint64_t hmask                # the hand cards, 16 bits a suit
    cdef uint32_t hm_suit[4]          # ... and as suit masks (Masks.suit)
    cdef uint64_t cmask               # the hand cards on a lay-off chain (16 bits a suit)
    cdef int nb_pair                  # near_bound's last pair that it did not skip ...
    cdef uint64_t nb_e                # ... and its exact related cards (0: not known)
    cdef uint64_t hc2, hc3            # ... the hand cards held twice, three times
    cdef bint unit_w                  # the weights are all 1 (the cards objective)
    cdef Masks rmask                  # related_weight: the masks of the cards in rset
    cdef int hl[NCARD]                # the hand's card types (no jokers)
    cdef int nhl
    cdef uint8_t rset[NCARD]          # related_weight: the related hand cards it found
    cdef uint64_t rbits               # ... as places in the hand list hl
    cdef uint64_t rb1[MAX_MELDS]      # per meld: its related cards (places in hl)
    cdef uint8_t ho[NCARD]            # hand cards that could be in a meld of hand cards
    cdef uint8_t tmv[NCARD]           # mixed_value: the cards of the set
    cdef uint8_t mvplaced[NCARD]
    cdef uint8_t pcnt[NCARD]          # opt_search, part_build: the cards left to split
    cdef uint8_t oleft[NCARD]         # opt_search: copies that may still be left out,
    cdef uint8_t oskip[NCARD]         # ... those left out on this branch,
    cdef uint8_t bb_skip[NCARD]       # ... and on the best split found
    cdef int64_t bb_best              # ... its loss
    cdef const int32_t* bb_w          # ... the weights
    cdef int src[SMALL_R]             # small_mixed: its hand cards (ids, a copy each) ...
    cdef int snr
    cdef int smask                    # ... and the first subset of them it found best
    cdef int64_t v0_dec               # regroup: V0 of the decision (its hand-only solve)
    cdef uint64_t* mvc                # mixed-value cache: MV_SLOTS entries of 6 words (one
                                      # line to read): the key's 4 words, the objective
                                      # (bits 0-31; never 0: 0 = empty) with the best subset
                                      # + 1 (bits 48-63; 0 = unknown), the value. Exact:
                                      # whole keys are compared
    cdef readonly long long n_mixed   # mixed values solved (cache misses)
    cdef uint8_t t2[NCARD]
    cdef uint8_t h2[NCARD]
    cdef uint8_t swapped[NCARD]
    cdef readonly int match_kind      # 0 single, 1 rotations, 2 threshold
    cdef readonly int first_cut       # first_player_by = cut (else left of the dealer)
    cdef readonly int match_value
    cdef readonly int players
    cdef uint8_t deck[MAX_DECK]
    cdef int deck_counts[NCARD]
    cdef readonly bint checked        # verify the invariants after every turn (tests)
    cdef readonly int violation       # the first broken invariant (see VIOLATIONS)
    cdef readonly int solver_rc       # a solver failure (< -1) met during the hand

    def __cinit__(self):
        self.mvc = <uint64_t*> malloc(MV_SLOTS * 6 * sizeof(uint64_t))
        if self.mvc == NULL:
            raise MemoryError()
        memset(self.mvc, 0, MV_SLOTS * 6 * sizeof(uint64_t))

    def __dealloc__(self):
        free(self.mvc)

    def __init__(self, dict cfg):
        """cfg (built by fastmach.engine.engine_config): plain ints and arrays."""
        cdef int i, c, v
        self.solver = Solver()
        memset(&self.R, 0, sizeof(ERules))
        memset(self.empty, 0, NCARD)
        R = &self.R
        R.players = cfg["players"]
        R.deck_size = cfg["deck_size"]
        R.hand_size = cfg["hand_size"]
        R.swap_hand = cfg["swap_hand"]
        R.may_draw = cfg["may_draw"]
        R.may_pass = cfg["may_pass"]
        R.opening = cfg["opening"]
        R.penalty = cfg["penalty"]
        R.ends_hand = cfg["ends_hand"]
        R.lowest = cfg["lowest"]
        R.ties_shared = cfg["ties_shared"]
        R.winner_takes = cfg["winner_takes"]
        R.srules.decks = cfg["decks"]
        R.srules.ace_high = cfg["ace_high"]
        R.srules.jokers_per_meld = cfg["jokers_per_meld"]
        if not (2 <= R.players <= MAX_PLAYERS) or R.deck_size > MAX_DECK:
            raise ValueError("engine: players or deck size out of range")
        hp = np.asarray(cfg["hand_points"], dtype=np.int64)
        # opening objective (fastmach.solver.opening_weights): points * scale + 1 per card,
        # a joker weighted as the card it stands for (by value 1..14)
        ow = np.asarray(cfg["opening_w"], dtype=np.int64)
        ojw = np.asarray(cfg["opening_jw"], dtype=np.int64)
        R.open_scale = cfg["opening_scale"]
        for c in range(NCARD):
            R.hpts[c] = hp[c]
            R.ones[c] = 1
            R.open_w[c] = ow[c]
        for c in range(NCARD):
            R.pw[c] = hp[c] * 64 + 1
        for v in range(16):
            R.ones_j[v] = 1
            R.open_jw[v] = ojw[v]
            R.pw_j[v] = hp[JOKER] * 64 + 1
        self.raw = False
        deck = np.asarray(cfg["deck"], dtype=np.uint8)
        if len(deck) != R.deck_size:
            raise ValueError("engine: deck length differs from deck_size")
        memset(self.deck_counts, 0, sizeof(self.deck_counts))
        for i in range(R.deck_size):
            self.deck[i] = deck[i]
            self.deck_counts[deck[i]] += 1
        self.checked = bool(cfg.get("check", False))
        self.violation = 0
        self.solver_rc = 0
        self.players = R.players
        self.match_kind = cfg["match_kind"]
        self.first_cut = cfg["first_cut"]
        self.match_value = cfg["match_value"]
        seats = cfg["seats"]
        if len(seats) != R.players:
            raise ValueError("engine: one strategy per seat")
        for i, (code, params) in enumerate(seats):
            self.seats[i].code = code
            for v in range(N_PARAMS):
                self.seats[i].p[v] = params[v] if v < len(params) else 0.0

    # ------------------------------------------------------------ strategies
    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """The seat's strategy chooses PLAY (d.placed, d.taken, d.wit), DRAW or FAIL.

        A strategy reads the position (st: hands, table counts and meld list, stock left,
        opened flags), its parameters S.p[slot] (fastmach/strategies.py Param.slot) and the
        game's PRNG (rng), and fills d. The engine then applies d the same way for every
        strategy. Skill levels share the tactics layer (opening, keep_jokers, patience,
        error): see fastmach/strategies.py for the definitions."""
        cdef Strat* S = &self.seats[seat]
        if S.code == S_LOOKAHEAD:
            self.lookahead(st, seat, S, rng, d)
        else:
            self.skill_decide(st, seat, S, rng, d)

    # ------------------------------------------------------------ lookahead
    cdef void lookahead(self, HState* st, int seat, Strat* S, uint64_t* rng,
                        Decision* d) noexcept nogil:
        """The best of its candidate plays by Monte Carlo playouts.

        Candidates: the expert's maximum placement (all of it); some of it: the maximum
        placement that keeps the jokers in hand, and the one that places the most points
        (when they differ from it); none of it: a draw (where drawing is allowed and the
        stock is not empty). A play that empties the hand is made at once. Each playout
        deals the cards the player cannot see (other hands and the stock) at random from
        what is not in its hand or on the table, keeping every hand size and the stock
        size, then plays the hand out with expert players; every candidate is played
        from the same deal (common random numbers). Value: 1 for a win (emptied, or
        lowest points where the rules say so), minus 0.001 per card left. Ties keep the
        earlier candidate (all, keep jokers, points, draw). The PRNG is the game's: one
        draw per round of playouts, so games stay reproducible."""
        cdef ERules* R = &self.R
        cdef const uint8_t* hand = st.hands[seat]
        cdef Decision* cands[4]
        cdef double value[4]
        cdef int i, k, n, nc = 0, best
        cdef uint64_t seed, prng
        memset(&self.xstrat, 0, sizeof(Strat))
        self.xstrat.code = S_EXPERT
        self.skill_decide(st, seat, &self.xstrat, rng, d)
        if self.solver_rc or d.kind != A_PLAY:
            return
        if d.n_placed - d.taken >= st.hand_n[seat]:
            return   # the play empties the hand: nothing beats it
        memcpy(&self.la, d, sizeof(Decision))
        cands[nc] = &self.la
        nc += 1
        if R.opening == 0 or st.opened[seat]:
            if hand[JOKER] > 0 and d.placed[JOKER] > 0:
                memcpy(self.hk, hand, NCARD)
                self.hk[JOKER] = 0
                self.skill_play(st, S_EXPERT, 0, self.hk, R.ones, R.ones_j, &self.la_kj)
                if self.solver_rc:
                    return
                if self.la_kj.kind == A_PLAY:
                    cands[nc] = &self.la_kj
                    nc += 1
            self.skill_play(st, S_EXPERT, 0, hand, R.pw, R.pw_j, &self.la_pts)
            if self.solver_rc:
                return
            if self.la_pts.kind == A_PLAY and not _same_play(&self.la_pts, &self.la) \
                    and not (nc == 2 and _same_play(&self.la_pts, &self.la_kj)):
                cands[nc] = &self.la_pts
                nc += 1
        if R.may_draw and st.stock_len - st.stock_pos > 0:
            cands[nc] = NULL   # draw
            nc += 1
        if nc == 1:
            return
        for k in range(nc):
            value[k] = 0.0
        n = <int>S.p[P_PLAYOUTS]
        for i in range(n):
            seed = next_u64(rng)
            for k in range(nc):
                prng = seed
                value[k] += self.playout(st, seat, cands[k], &prng)
                if self.solver_rc:
                    return
        best = 0
        for k in range(1, nc):
            if value[k] > value[best]:
                best = k
        if cands[best] == NULL:
            d.kind = A_DRAW
        elif best > 0:
            memcpy(d, cands[best], sizeof(Decision))

    cdef double playout(self, HState* st, int seat, Decision* cand, uint64_t* prng) noexcept nogil:
        """One determinised playout from seat's view: `cand` (NULL = draw) then experts."""
        cdef HState* ps = &self.ps
        cdef ERules* R = &self.R
        cdef int s, c, k, nu = 0, j, cur, turns = 0, noadd = 0, empty_at_start, avail
        cdef int end = -1, winner = -1, best, nb, pts
        cdef uint8_t x
        memcpy(ps, st, sizeof(HState))
        # the unseen cards: the deck minus the seat's hand minus the table
        for c in range(NCARD):
            k = self.deck_counts[c] - st.hands[seat][c] - st.table[c]
            for j in range(k):
                self.unknown[nu] = c
                nu += 1
        for j in range(nu - 1, 0, -1):   # Fisher-Yates with the playout's PRNG
            k = <int>(next_uniform(prng) * (j + 1))
            x = self.unknown[j]
            self.unknown[j] = self.unknown[k]
            self.unknown[k] = x
        k = 0
        for s in range(R.players):
            if s == seat:
                continue
            memset(ps.hands[s], 0, NCARD)
            for j in range(st.hand_n[s]):
                ps.hands[s][self.unknown[k]] += 1
                k += 1
        ps.stock_pos = 0
        ps.stock_len = st.stock_len - st.stock_pos
        for j in range(ps.stock_len):
            ps.stock[j] = self.unknown[k + j]
        cur = seat
        while turns < 400:
            empty_at_start = ps.stock_pos == ps.stock_len
            if turns == 0:
                if cand != NULL:
                    memcpy(&self.pdec, cand, sizeof(Decision))
                else:
                    self.pdec.kind = A_DRAW
            else:
                self.skill_decide(ps, cur, &self.xstrat, prng, &self.pdec)
                if self.solver_rc:
                    return 0.0
            turns += 1
            avail = ps.stock_len - ps.stock_pos
            if self.pdec.kind == A_PLAY:
                for c in range(NCARD):
                    ps.hands[cur][c] -= self.pdec.placed[c]
                    ps.table[c] += self.pdec.placed[c]
                ps.hands[cur][JOKER] += self.pdec.taken
                ps.table[JOKER] -= self.pdec.taken
                ps.hand_n[cur] += self.pdec.taken - self.pdec.n_placed
                ps.table_n += self.pdec.n_placed - self.pdec.taken
                wit_copy(&ps.wit, &self.pdec.wit)
                ps.opened[cur] = 1
                noadd = 0
                if ps.hand_n[cur] == 0:
                    winner = cur
                    end = E_EMPTIED
                    break
            else:
                if avail > 0:
                    ps.hands[cur][ps.stock[ps.stock_pos]] += 1
                    ps.stock_pos += 1
                    ps.hand_n[cur] += 1
                    if avail == 1 and R.ends_hand:
                        end = E_STOCKOUT
                        break
                elif R.ends_hand:
                    end = E_STOCKOUT
                    break
            if self.pdec.kind != A_PLAY and empty_at_start:
                noadd += 1
                if noadd >= R.players:
                    end = E_BLOCKED
                    break
            cur = (cur + 1) % R.players
        if end != E_EMPTIED and R.lowest:
            best = -1
            nb = 0
            for s in range(R.players):
                pts = 0
                for c in range(NCARD):
                    pts += ps.hands[s][c] * R.hpts[c]
                if best < 0 or pts < best:
                    best = pts
                    nb = 1
                    winner = s
                elif pts == best:
                    nb += 1
            if nb > 1:
                winner = -1
        return (1.0 if winner == seat else 0.0) - 0.001 * ps.hand_n[seat]

    cdef void skill_decide(self, HState* st, int seat, Strat* S, uint64_t* rng,
                           Decision* d) noexcept nogil:
        cdef ERules* R = &self.R
        cdef uint8_t* hand = st.hands[seat]
        cdef int64_t best
        cdef int n, c, diss, level, net, keepj
        cdef const int32_t* w
        cdef const int32_t* jw
        cdef double pfail
        _set_draw(d)
        if st.hand_n[seat] == 0:
            return
        if R.opening > 0 and not st.opened[seat]:
            # opening (every skill level): melds from the hand only, worth >= opening
            # (points of the cards, a joker counted as the card it stands for); the
            # best-scoring set is played
            if hand[JOKER] == 0 and not may_meld(hand, R.srules.ace_high):
                best = 0   # no meld in the hand: nothing to open with (no solve needed)
                memset(d.placed, 0, NCARD)
            else:
                best = self.solver.solve(self.empty, hand, &R.srules, R.open_w, R.open_jw,
                                         d.placed, &self.tmpwit)
            if best < -1:
                self.solver_rc = <int>best
                return
            n = total(d.placed) if best >= 0 else 0
            if n > 0 and best // R.open_scale >= R.opening:
                d.kind = A_PLAY
                d.n_placed = n
                wit_copy(&d.wit, &st.wit)
                wit_append(&d.wit, &self.tmpwit)
            else:
                memset(d.placed, 0, NCARD)
        else:
            level = S.code
            if S.p[P_OBJ] > 0.5:
                w = R.pw
                jw = R.pw_j
            else:
                w = R.ones
                jw = R.ones_j
            keepj = S.p[P_KEEPJ] > 0.5 and hand[JOKER] > 0
            memcpy(self.hk, hand, NCARD)
            if keepj:
                self.hk[JOKER] = 0
            self.skill_play(st, level, <int>S.p[P_K], self.hk, w, jw, d)
            if self.solver_rc:
                return
            if keepj and d.n_placed - d.taken < st.hand_n[seat]:
                # the jokers come out only in a play that empties the hand
                self.skill_play(st, level, <int>S.p[P_K], hand, w, jw, &self.full)
                if self.solver_rc:
                    return
                # (or where the rules forbid drawing, or passing on an empty stock, when
                # able and nothing else plays)
                if self.full.kind == A_PLAY and (
                        self.full.n_placed - self.full.taken == st.hand_n[seat]
                        or (not (R.may_draw if st.stock_pos < st.stock_len else R.may_pass)
                            and d.kind != A_PLAY)):
                    memcpy(d, &self.full, sizeof(Decision))
        if self.raw:
            return
        # patience: wait for a bigger play while the stock is large
        if d.kind == A_PLAY and S.p[P_MIN] > 0.0 and R.may_draw:
            net = d.n_placed - d.taken
            if net < S.p[P_MIN] and net < st.hand_n[seat] and \
                    st.stock_len - st.stock_pos >= PATIENCE_STOCK:
                d.kind = A_DRAW
        # fallible: each dissolved (or, below expert, laid-off-onto) meld may botch the play
        if d.kind == A_PLAY and S.p[P_ERROR] > 0.0 and st.wit.n_melds > 0 \
                and not (R.penalty == 0 and st.failed_last[seat]):
            diss = count_dissolved(&st.wit, &d.wit) + d.touched
            if diss > 0:
                pfail = 1.0 - pow(1.0 - S.p[P_ERROR], diss)
                if next_uniform(rng) < pfail:
                    d.kind = A_FAIL

    cdef void skill_play(self, HState* st, int level, int k, const uint8_t* hand,
                         const int32_t* w, const int32_t* jw, Decision* d) noexcept nogil:
        """The largest play (by the objective w/jw) that the skill level sees, from `hand`
        (d.kind = A_PLAY, or A_DRAW when it sees none). Errors go to self.solver_rc."""
        cdef int64_t v
        _set_draw(d)
        if level == S_BEGINNER:
            v = self.regroup(st, NULL, 0, hand, w, jw, d)
        elif level == S_INTERMEDIATE:
            v = self.intermediate(st, k, hand, w, jw, d)
        else:
            self.expert_play(st, hand, w, jw, d)
            return
        if v < -1:
            self.solver_rc = <int>v
            d.kind = A_DRAW
            return
        if d.n_placed > 0:
            d.kind = A_PLAY
        else:
            d.kind = A_DRAW
            memset(d.placed, 0, NCARD)

    cdef void expert_play(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const int32_t* jw, Decision* d) noexcept nogil:
        cdef ERules* R = &self.R
        cdef int64_t best
        cdef int n, n2, i, c, nswap, cancel
        best = self.solver.solve(st.table, hand, &R.srules, w, jw, d.placed, &d.wit)
        if best < -1:
            self.solver_rc = <int>best
            return
        n = total(d.placed) if best >= 0 else 0
        if best < 0:
            memset(d.placed, 0, NCARD)
        if R.swap_hand and st.table[JOKER] > 0:
            # take back every table joker whose card the player holds, then play
            memcpy(self.t2, st.table, NCARD)
            memcpy(self.h2, hand, NCARD)
            memset(self.swapped, 0, NCARD)
            nswap = 0
            for i in range(st.wit.start[st.wit.n_melds]):
                c = st.wit.stands[i]
                if st.wit.cards[i] == JOKER and c < JOKER and self.h2[c] > 0:
                    self.h2[c] -= 1
                    self.h2[JOKER] += 1
                    self.t2[c] += 1
                    self.t2[JOKER] -= 1
                    self.swapped[c] += 1
                    nswap += 1
            if nswap > 0:
                memset(self.alt.placed, 0, NCARD)
                best = self.solver.solve(self.t2, self.h2, &R.srules, w, jw,
                                         self.alt.placed, &self.alt.wit)
                if best < -1:
                    self.solver_rc = <int>best
                    return
                if best >= 0:
                    n2 = total(self.alt.placed)   # net cards leaving the hand
                    if n2 >= n:
                        for c in range(NCARD):
                            d.placed[c] = self.swapped[c] + self.alt.placed[c]
                        # a taken joker put straight back is an ordinary move of it
                        cancel = d.placed[JOKER] if d.placed[JOKER] < nswap else nswap
                        d.placed[JOKER] -= cancel
                        d.taken = nswap - cancel
                        wit_copy(&d.wit, &self.alt.wit)
                        n = total(d.placed)
                        d.kind = A_PLAY
                        d.n_placed = n
        if n > 0:
            d.kind = A_PLAY
            d.n_placed = n

    cdef int layoff_fit(self, const Witness* W, int m, const uint8_t* R, int joker,
                        int* pos, int* card, int* stand) noexcept nogil:
        """Whether a hand card fits meld m as a lay-off (a real card of R, or with `joker` a
        joker): the missing suit of a group of three, or the next card at the top then the
        bottom of a run. Fills the insertion index, the card and what it stands for."""
        cdef int a = W.start[m], b = W.start[m + 1], L, i, nj = 0, r0, isgroup = 1
        cdef int suits = 0, u, c, suit, lo, hi, jok
        L = b - a
        for i in range(a, b):
            if W.cards[i] == JOKER:
                nj += 1
        jok = joker and R[JOKER] > 0 and (self.R.srules.jokers_per_meld == 0
                                          or nj < self.R.srules.jokers_per_meld)
        if joker and not jok:
            return 0
        r0 = W.stands[a] % 13
        for i in range(a + 1, b):
            if W.stands[i] % 13 != r0:
                isgroup = 0
        if isgroup:
            if L != 3:
                return 0
            for i in range(a, b):
                suits |= 1 << (W.stands[i] // 13)
            for u in range(4):
                if not (suits >> u) & 1:
                    c = u * 13 + r0
                    if jok or R[c] > 0:
                        pos[0] = b
                        card[0] = JOKER if joker else c
                        stand[0] = c
                        return 1
            return 0
        suit = W.stands[a] // 13
        lo = W.stands[a] % 13 + 1
        hi = W.stands[b - 1] % 13 + 1
        if hi == 1:
            hi = 14   # an ace at the top of a run
        if hi < 13 or (hi == 13 and self.R.srules.ace_high):
            c = suit * 13 + hi % 13
            if jok or R[c] > 0:
                pos[0] = b
                card[0] = JOKER if joker else c
                stand[0] = c
                return 1
        if lo > 1:
            c = suit * 13 + lo - 2
            if jok or R[c] > 0:
                pos[0] = a
                card[0] = JOKER if joker else c
                stand[0] = c
                return 1
        return 0

    cdef inline void lay_one(self, Witness* W, int m, int pos, int card, int stand,
                             uint8_t* R, uint8_t* placed) noexcept nogil:
        """Put hand card `card` (standing for `stand`) into meld m at pos."""
        wit_insert(W, m, pos, card, stand)
        R[card] -= 1
        placed[card] += 1
        self.touched_m[m] = 1

    cdef void layoffs(self, Witness* W, int n_intact, uint8_t* R, uint8_t* placed) noexcept nogil:
        """Lay off hand cards R onto melds 0..n_intact-1 of W, one card at a time while any
        fits: real cards first (melds in order), a joker only when no real card fits."""
        cdef int m, pos = 0, card = 0, stand = 0, found
        while True:
            found = 0
            for m in range(n_intact):
                while self.layoff_fit(W, m, R, 0, &pos, &card, &stand):
                    self.lay_one(W, m, pos, card, stand, R, placed)
                    found = 1
            if found:
                continue
            if R[JOKER] == 0:
                return
            for m in range(n_intact):
                if self.layoff_fit(W, m, R, 1, &pos, &card, &stand):
                    self.lay_one(W, m, pos, card, stand, R, placed)
                    found = 1
                    break
            if not found:
                return

    cdef int64_t regroup(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                         const int32_t* w, const int32_t* jw, Decision* out) noexcept nogil:
        """Dissolve the melds idx[0..ns) and solve their cards with the hand exactly, keep
        the other melds, then lay off onto them. Returns the placed value (or an error)."""
        cdef ERules* R = &self.R
        cdef int i, m, c, n_intact, k
        cdef int inS[MAX_MELDS]
        cdef int64_t best
        cdef Witness* W = &out.wit
        memset(self.tS, 0, NCARD)
        memset(inS, 0, sizeof(inS))
        for i in range(ns):
            inS[idx[i]] = 1
            for k in range(st.wit.start[idx[i]], st.wit.start[idx[i] + 1]):
                self.tS[st.wit.cards[k]] += 1
        memset(out.placed, 0, NCARD)
        if ns == 0 and hand[JOKER] == 0 and not may_meld(hand, R.srules.ace_high):
            best = 0   # no meld in the hand (the solver's answer, without the solve)
            wit_clear(&self.tmpwit)
        elif hand[JOKER] == 0 and self.tS[JOKER] == 0 \
                and not self.no_small and self.small_regroup(hand, w, out.placed):
            best = 0   # (small_regroup: the same value as the solver's)
            self.n_small += 1
        else:
            memset(out.placed, 0, NCARD)
            best = self.solver.solve(self.tS, hand, &R.srules, w, jw, out.placed, &self.tmpwit)
        if best < -1:
            return best
        if best < 0:
            return -6
        self.last_vs = placed_weight(out.placed, w, jw)
        if ns == 0:
            self.v0_dec = self.last_vs
        wit_clear(W)
        for m in range(st.wit.n_melds):
            if not inS[m]:
                wit_push(W, &st.wit, m)
        n_intact = W.n_melds
        wit_append(W, &self.tmpwit)
        for c in range(NCARD):
            self.rem[c] = hand[c] - out.placed[c]
        memset(self.touched_m, 0, sizeof(self.touched_m))
        self.layoffs(W, n_intact, self.rem, out.placed)
        out.touched = 0
        for m in range(n_intact):
            out.touched += self.touched_m[m]
        out.taken = 0
        out.n_placed = total(out.placed)
        return placed_weight(out.placed, w, jw)

    cdef int connected(self, HState* st, const int* idx, int ns, const Masks* hm,
                       const uint8_t* hand) noexcept nogil:
        """Whether every meld of idx is linked to the hand by 'could share a meld' in the
        pool of their cards and the hand (see strategies.py: the pruning loses nothing)."""
        cdef Masks pool
        cdef int reach[4]
        cdef int i, j, s, changed
        pool = hm[0]
        for i in range(ns):
            pool.ranks |= self.mmask[idx[i]].ranks
            for s in range(4):
                pool.suit[s] |= self.mmask[idx[i]].suit[s]
        for i in range(ns):
            reach[i] = related(hm, &self.mmask[idx[i]], &pool)
        changed = 1
        while changed:
            changed = 0
            for i in range(ns):
                if reach[i]:
                    continue
                for j in range(ns):
                    if reach[j] and related(&self.mmask[idx[j]], &self.mmask[idx[i]], &pool):
                        reach[i] = 1
                        changed = 1
                        break
        for i in range(ns):
            if not reach[i]:
                return 0
        return 1

    cdef int64_t intermediate(self, HState* st, int k, const uint8_t* hand, const int32_t* w,
                              const int32_t* jw, Decision* d) noexcept nogil:
        """Best over every set of <= k table melds (connected to the hand) of regroup(): the
        largest value, the earliest set in the order {0}, {0,1}, {0,1,2}, {0,2}, ..., {1},
        ... among equals (the beginner's play, the empty set, first of all).

        Sets are tried by size (every single meld, then every pair, then every triple) and
        compared by (value, place in that order), so the winner is the same as in the plain
        search (intermediate_plain). A set is skipped when an upper bound on its value
        (set_bound, cheap ones first) cannot beat the best so far: exact, it
        never changes the play."""
        cdef ERules* R = &self.R
        cdef int64_t best, total_w, v, ub, sb
        cdef int64_t best_key = 0, key
        cdef int n = st.wit.n_melds, i, j, l, c, prune, bounded, top
        cdef int idx[3]
        cdef Masks hm
        if self.exhaustive:
            return self.intermediate_plain(st, k, hand, w, jw, d)
        total_w = placed_weight(hand, w, jw)
        best = self.regroup(st, NULL, 0, hand, w, jw, d)   # the beginner's play
        if best < 0 or best >= total_w or n == 0:
            return best
        prune = hand[JOKER] == 0 and st.table[JOKER] == 0
        # the bounds need a hand without jokers (a joker relates any cards); the hand-only
        # value V0 is the solver's part of the beginner's play (last_vs)
        bounded = hand[JOKER] == 0
        memset(&hm, 0, sizeof(Masks))
        for c in range(JOKER):
            if hand[c]:
                masks_add(&hm, c, R.srules.ace_high)
        for i in range(n):
            memset(&self.mmask[i], 0, sizeof(Masks))
            self.mjok[i] = 0
            self.msuits[i] = 0
            self.mkey[i][0] = self.mkey[i][1] = 0
            for j in range(st.wit.start[i], st.wit.start[i + 1]):
                c = st.wit.cards[j]
                self.mkey[i][c >> 5] += (<uint64_t>1) << (2 * (c & 31))
                if st.wit.cards[j] == JOKER:
                    self.mjok[i] = 1
                else:
                    masks_add(&self.mmask[i], st.wit.cards[j], R.srules.ace_high)
                    self.msuits[i] |= 1 << (st.wit.cards[j] // 13)
        if bounded:
            self.bound_setup(st, hand, w, &hm)
        top = k if k < n else n
        for l in range(1, top + 1):
            if l == 2 and bounded and k == 2:
                v = self.pairs_k2(st, hand, w, jw, &hm, total_w, prune, &best, &best_key, d)
                if v < -1:
                    return v
                continue
            # every set of l melds, in lexicographic order
            for i in range(l):
                idx[i] = i
            while True:
                key = 0
                for i in range(3):
                    key = key * 65 + (idx[i] + 1 if i < l else 0)
                ub = total_w
                if bounded and l == 1 and not self.mjok[idx[0]]:
                    # a single, cheap first: its solver bound and lay-off cap, or its
                    # related cards and the lay-off chains' cards, each copy once
                    ub = self.vs1[idx[0]] + self.lc1[idx[0]]
                    sb = self.v0 + self.mask_weight(self.r1mask[idx[0]] | self.cmask, hand, w)
                    if sb < ub:
                        ub = sb
                    if not (ub < best or (ub == best and key > best_key)):
                        ub = total_w
                if bounded and l == 2:
                    ub = self.pair_ub(st, idx, hand, w, jw, &hm, total_w, best, key,
                                      best_key, self.loose_pair(idx[0], idx[1]))
                elif bounded and ub == total_w:
                    ub = self.set_bound(st, idx, l, hand, w, jw, &hm, total_w, best,
                                        key < best_key)
                if ub < best or (ub == best and key > best_key):
                    self.n_bounded += 1
                elif not prune or self.connected(st, idx, l, &hm, hand):
                    v = self.regroup(st, idx, l, hand, w, jw, &self.cand)
                    if v < -1:
                        return v
                    self.n_regroups += 1
                    if bounded:
                        self.store_vs(idx, l, self.last_vs)
                    if v > best or (v == best and key < best_key):
                        best = v
                        best_key = key
                        memcpy(d, &self.cand, sizeof(Decision))
                # next set of l melds
                i = l - 1
                while i >= 0 and idx[i] == n - l + i:
                    i -= 1
                if i < 0:
                    break
                idx[i] += 1
                for j in range(i + 1, l):
                    idx[j] = idx[j - 1] + 1
        return best

    cdef int64_t pairs_k2(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const int32_t* jw, const Masks* hm, int64_t total_w, int prune,
                          int64_t* best, int64_t* best_key, Decision* d) noexcept nogil:
        """The pairs of intermediate's bounded search when k = 2 (no triples: no vs2 is
        needed), row by row (pairs of a with later melds b). The loose pairs of a row
        (loose_pair) are skipped together when the row's bound says so: their solver value
        is at most min(vs1[a], V0 + m1[a]) + m1[b] (loose_bound) and their lay-offs at most
        lc1[a], with m1[b] at most the row's largest. Then only the pairs that may share a
        meld (inter[a], bit b) are looked at, each as in intermediate(). Which pairs are
        skipped, and in what order the others come, never changes the play: every pair
        that is looked at is compared with (value, key), every pair skipped cannot win.
        Returns 0, or a solver error."""
        cdef int n = st.wit.n_melds, a, b, s, r, p, row_ok
        cdef int idx[2]
        cdef int64_t ub, v, key, rb
        cdef int64_t msuf[MAX_MELDS + 1]
        cdef uint64_t rk[13]
        cdef uint64_t sp[4][16]
        cdef uint64_t inter, jm = 0, x, y
        # who may share a meld with whom: a common rank, or a card next to a segment
        memset(rk, 0, sizeof(rk))
        memset(sp, 0, sizeof(sp))
        for a in range(n):
            if self.mjok[a]:
                jm |= (<uint64_t>1) << a
            x = self.mmask[a].ranks
            while x:
                r = cs_ctz(x)
                x &= x - 1
                rk[r] |= (<uint64_t>1) << a
            for s in range(4):
                x = self.mmask[a].suit[s]
                while x:
                    p = cs_ctz(x)
                    x &= x - 1
                    sp[s][p] |= (<uint64_t>1) << a
        msuf[n] = 0
        for a in range(n - 1, -1, -1):
            msuf[a] = self.m1[a] if self.m1[a] > msuf[a + 1] else msuf[a + 1]
        for a in range(n - 1):
            if self.mjok[a]:
                inter = ~(<uint64_t>0)
            else:
                inter = jm
                x = self.mmask[a].ranks
                while x:
                    r = cs_ctz(x)
                    x &= x - 1
                    inter |= rk[r]
                for s in range(4):
                    x = self.mdil[a][s] & 0xFFFF
                    while x:
                        p = cs_ctz(x)
                        x &= x - 1
                        inter |= sp[s][p]
            # the row's bound on its loose pairs (their keys grow along the row)
            key = ((a + 1) * 65 + (a + 2)) * 65
            rb = self.vs1[a]
            if self.v0 + self.m1[a] < rb:
                rb = self.v0 + self.m1[a]
            rb += msuf[a + 1] + self.lc1[a]
            row_ok = rb < best[0] or (rb == best[0] and key > best_key[0])
            y = ~((((<uint64_t>1) << a) << 1) - 1)   # the later melds
            if n < 64:
                y &= ((<uint64_t>1) << n) - 1
            if row_ok:
                self.n_bounded += cs_popcount(y & ~inter)
                y &= inter
            while y:
                b = cs_ctz(y)
                y &= y - 1
                idx[0] = a
                idx[1] = b
                key = ((a + 1) * 65 + (b + 1)) * 65
                ub = self.pair_ub(st, idx, hand, w, jw, hm, total_w, best[0], key,
                                  best_key[0], not (inter >> b) & 1)
                if ub < best[0] or (ub == best[0] and key > best_key[0]):
                    self.n_bounded += 1
                elif not prune or self.connected(st, idx, 2, hm, hand):
                    v = self.regroup(st, idx, 2, hand, w, jw, &self.cand)
                    if v < -1:
                        return v
                    self.n_regroups += 1
                    if v > best[0] or (v == best[0] and key < best_key[0]):
                        best[0] = v
                        best_key[0] = key
                        memcpy(d, &self.cand, sizeof(Decision))
        return 0

    cdef int64_t intermediate_plain(self, HState* st, int k, const uint8_t* hand,
                                    const int32_t* w, const int32_t* jw, Decision* d) noexcept nogil:
        """The plain search (no bounds), in the order of its definition: the reference the
        bounded search is tested against (Engine.exhaustive)."""
        cdef ERules* R = &self.R
        cdef int64_t best, bound, v
        cdef int n = st.wit.n_melds, i, m, c, prune, ns
        cdef int idx[3]
        cdef Masks hm
        # stop early once the whole hand is placed (a later set replaces the best only
        # when strictly better)
        bound = placed_weight(hand, w, jw)
        best = self.regroup(st, NULL, 0, hand, w, jw, d)   # the beginner's play
        if best < 0 or best >= bound or n == 0:
            return best
        prune = hand[JOKER] == 0 and st.table[JOKER] == 0
        if prune:
            memset(&hm, 0, sizeof(Masks))
            for c in range(JOKER):
                if hand[c]:
                    masks_add(&hm, c, R.srules.ace_high)
            for m in range(n):
                memset(&self.mmask[m], 0, sizeof(Masks))
                for i in range(st.wit.start[m], st.wit.start[m + 1]):
                    masks_add(&self.mmask[m], st.wit.cards[i], R.srules.ace_high)
        # every set of 1..k melds, in the order {0}, {0,1}, {0,1,2}, ..., {0,2}, ..., {1}, ...
        ns = 1
        idx[0] = 0
        while ns > 0:
            if not prune or self.connected(st, idx, ns, &hm, hand):
                v = self.regroup(st, idx, ns, hand, w, jw, &self.cand)
                if v < -1:
                    return v
                self.n_regroups += 1
                if v > best:
                    best = v
                    memcpy(d, &self.cand, sizeof(Decision))
                    if best >= bound:
                        return best
            if ns < k and idx[ns - 1] + 1 < n:
                idx[ns] = idx[ns - 1] + 1
                ns += 1
            else:
                while ns > 0:
                    idx[ns - 1] += 1
                    if idx[ns - 1] < n:
                        break
                    ns -= 1
        return best

    # ------------------------------------------------------------ intermediate: bounds
    # regroup(S) places hand cards three ways: in melds the solver builds with cards of S
    # ("mixed" melds), in melds of hand cards alone, and as lay-offs onto the intact melds.
    # - hand-only melds weigh at most V0, the hand-only optimum (the beginner's solve);
    # - a hand card in a mixed meld shares it with a card of S, so it is "related" to S
    #   (related_weight: same rank, another suit, >= 3 suits of that rank in the pool of S
    #   and the hand, for a group; a segment of >= 3 consecutive pool ranks of its suit
    #   holding a card of S at another place, for a run). The mixed melds are a play of the
    #   cards of S with related hand cards R alone, so they weigh at most the exact solve
    #   of S's cards with R (mixed_value; small, and cached), or R's weight;
    # - lay-offs take only cards of the chains that extend an intact meld (lay_cap); a copy
    #   is placed once, so V0 + (R or a chain card, copies counted once) bounds it all too.
    # Decomposition: when no meld of the pool of A, B and R can hold a card of A and a card
    # of B (can_share), each mixed meld holds cards of A or of B, not both: the mixed melds
    # of A+B weigh at most A's mixed value plus B's. And when no meld of the pool of A, B
    # and the whole hand can (related), the solver's melds split into those of A, those of
    # B and hand-only ones H; A's with H is a play for A alone, B's with H one for B alone,
    # so the solver's value of A+B is at most A's plus B's.

    cdef void bound_setup(self, HState* st, const uint8_t* hand, const int32_t* w,
                          const Masks* hm) noexcept nogil:
        """Per meld: the lay-off chains it offers the hand (capc; lc1: the lay-off cap
        with it dissolved), its related hand weight (the mixed bound m1, tightened later by
        the mixed value; its cards: rb1, r1mask), the solver-value bound vs1 = V0 + m1
        (replaced by the exact value once solved), and its cards' segments in it + the hand
        (mext; mdil one rank wider each way) for loose_pair and near_bound."""
        cdef int m, c, a, b, i, r0, isgroup, suits, u, s, p, lo, hi
        cdef uint32_t hb, hs, hx
        cdef int top = 14 if self.R.srules.ace_high else 13
        cdef Witness* W = &st.wit
        self.v0 = self.last_vs   # the beginner's solve: hand-only melds
        for s in range(4):
            self.hm_suit[s] = hm.suit[s]
        memset(self.capall, 0, sizeof(self.capall))
        memset(self.capt, 0, sizeof(self.capt))
        memset(self.rset, 0, NCARD)
        self.nhl = 0
        self.hc2 = self.hc3 = self.hmask = 0
        self.unit_w = 1
        for c in range(JOKER):
            if hand[c]:
                self.hl[self.nhl] = c
                self.nhl += 1
                if w[c] != 1:
                    self.unit_w = 0
                self.hmask |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
                if hand[c] >= 2:
                    self.hc2 |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
                if hand[c] >= 3:
                    self.hc3 |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
        for i in range(self.nhl):
            # ho: the card could be in a meld of hand cards (a group of >= 3 suits, a
            # segment of >= 3 consecutive ranks of its suit in the hand)
            c = self.hl[i]
            r0 = c % 13 + 1
            s = c // 13
            suits = 0
            for u in range(4):
                if hm.suit[u] & ((<uint32_t>1) << r0):
                    suits += 1
            self.ho[c] = suits >= 3
            hb = (<uint32_t>1) << r0
            while not self.ho[c] and hb:
                hs = seg_of(hm.suit[s], hb)
                hx = hs & (hs - 1)
                self.ho[c] = (hx & (hx - 1)) != 0
                hb = (<uint32_t>1) << 14 if (r0 == 1 and self.R.srules.ace_high
                                             and hb != (<uint32_t>1) << 14) else 0
        for m in range(W.n_melds):
            self.capn[m] = 0
            self.capup[m] = 0
            a = W.start[m]
            b = W.start[m + 1]
            r0 = W.stands[a] % 13
            isgroup = 1
            for i in range(a + 1, b):
                if W.stands[i] % 13 != r0:
                    isgroup = 0
            if isgroup:
                # a group of three takes a missing suit (layoff_fit)
                if b - a == 3:
                    suits = 0
                    for i in range(a, b):
                        suits |= 1 << (W.stands[i] // 13)
                    for u in range(4):
                        c = u * 13 + r0
                        if not (suits >> u) & 1 and hand[c]:
                            self.capc[m][self.capn[m]] = c
                            self.capn[m] += 1
            else:
                # a run takes the next cards up, then down, while the hand holds them
                s = W.stands[a] // 13
                lo = W.stands[a] % 13 + 1
                hi = W.stands[b - 1] % 13 + 1
                if hi == 1:
                    hi = 14
                p = hi + 1
                while p <= top and hand[s * 13 + (p - 1) % 13]:
                    self.capc[m][self.capn[m]] = s * 13 + (p - 1) % 13
                    self.capn[m] += 1
                    p += 1
                self.capup[m] = self.capn[m]
                p = lo - 1
                while p >= 1 and hand[s * 13 + p - 1]:
                    self.capc[m][self.capn[m]] = s * 13 + p - 1
                    self.capn[m] += 1
                    p -= 1
            for i in range(self.capn[m]):
                self.capall[self.capc[m][i]] += 1
        self.cmask = 0
        for c in range(JOKER):
            if self.capall[c] and hand[c]:
                self.cmask |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
        self.lay_all = 0
        for c in range(JOKER):
            self.lay_all += <int64_t>w[c] * (hand[c] if hand[c] < self.capall[c] else self.capall[c])
        for m in range(W.n_melds):
            for s in range(4):
                hb = seg_closure(hm.suit[s] | self.mmask[m].suit[s], self.mmask[m].suit[s])
                self.mext[m][s] = hb
                self.mdil[m][s] = hb | (hb << 1) | (hb >> 1)
            self.lc1[m] = self.lay_cap(&m, 1, hand, w) if self.capn[m] else self.lay_all
            self.r1mask[m] = 0
            if not (hm.ranks & self.mmask[m].ranks) and not (
                    (hm.suit[0] & self.mext[m][0]) | (hm.suit[1] & self.mext[m][1])
                    | (hm.suit[2] & self.mext[m][2]) | (hm.suit[3] & self.mext[m][3])):
                # no hand card of its ranks, none on its segments: nothing related
                self.m1[m] = 0
                self.rb1[m] = 0
            else:
                self.m1[m] = self.related_weight(hand, w, hm, &self.mmask[m])
                self.rb1[m] = self.rbits
                for i in range(self.nhl):
                    if (self.rbits >> i) & 1:
                        c = self.hl[i]
                        self.r1mask[m] |= (<uint64_t>1) << (16 * (c // 13) + c % 13 + 1)
            self.vs1[m] = self.v0 + self.m1[m]
            self.mvdone[m] = self.m1[m] == 0   # nothing related: the mixed value is 0

    cdef int64_t lay_cap(self, const int* idx, int ns, const uint8_t* hand,
                         const int32_t* w) noexcept nogil:
        """Most weight the lay-offs can place with the melds idx dissolved: every card of
        the intact melds' chains, as many copies as the hand holds and the chains take."""
        cdef int i, j, c, m, a, b
        cdef int64_t v = self.lay_all
        for i in range(ns):
            m = idx[i]
            for j in range(self.capn[m]):
                self.capt[self.capc[m][j]] += 1
        for i in range(ns):
            m = idx[i]
            for j in range(self.capn[m]):
                c = self.capc[m][j]
                if self.capt[c]:
                    a = hand[c] if hand[c] < self.capall[c] else self.capall[c]
                    b = self.capall[c] - self.capt[c]
                    b = hand[c] if hand[c] < b else b
                    v -= <int64_t>w[c] * (a - b)
                    self.capt[c] = 0
        return v

    cdef int64_t union_bound(self, const int* idx, int ns, const uint8_t* hand,
                             const int32_t* w) noexcept nogil:
        """Every copy of a hand card in self.rset (related to the melds idx) or on an intact
        meld's lay-off chain, each copy counted once, plus V0; or, without V0, plus the
        copies of the cards that fit a hand-only meld (ho)."""
        cdef int i, j, c, q, n, cap
        cdef int64_t v = self.v0, u = 0
        for i in range(ns):
            for j in range(self.capn[idx[i]]):
                self.capt[self.capc[idx[i]][j]] += 1
        for q in range(self.nhl):
            c = self.hl[q]
            cap = self.capall[c] - self.capt[c]
            n = self.rset[c] + cap
            v += <int64_t>w[c] * (hand[c] if hand[c] < n else n)
            # (a copy in a hand-only meld is related, or fits one: the `ho` cards)
            n = (hand[c] if self.rset[c] or self.ho[c] else 0) + cap
            u += <int64_t>w[c] * (hand[c] if hand[c] < n else n)
        for i in range(ns):
            for j in range(self.capn[idx[i]]):
                self.capt[self.capc[idx[i]][j]] = 0
        return v if v < u else u

    cdef int64_t related_weight(self, const uint8_t* hand, const int32_t* w, const Masks* hm,
                                const Masks* tm) noexcept nogil:
        """Weight of the hand cards related to the cards of tm (see above; no jokers); the
        cards themselves go to self.rset, their masks to self.rmask.

        Bitwise, a suit at a time (the same relation as card by card): a hand card of rank r
        and suit s is related by a group when >= 3 suits of the pool hold rank r and tm holds
        r in another suit (G3 & the other suits' tm bits); by a run when the pool segment of
        its bit (or, an ace with aces high, of bit 14) has >= 3 bits and holds a tm bit other
        than its own: every bit of such a segment when it holds >= 2 tm bits, every bit but
        the tm bit when it holds one."""
        cdef Masks pool
        cdef int c, r, s, q, ace_high = self.R.srules.ace_high
        cdef uint32_t g3, ot, rr, cc, seg, x, t
        cdef uint32_t relb[4]
        cdef int64_t v = 0
        memset(&self.rmask, 0, sizeof(Masks))
        self.rbits = 0
        for s in range(4):
            pool.suit[s] = hm.suit[s] | tm.suit[s]
        g3 = ((pool.suit[0] & pool.suit[1] & (pool.suit[2] | pool.suit[3]))
              | (pool.suit[2] & pool.suit[3] & (pool.suit[0] | pool.suit[1])))
        for s in range(4):
            ot = 0
            for q in range(4):
                if q != s:
                    ot |= tm.suit[q]
            rr = g3 & ot & 0x3FFE   # groups: ranks 1..13 only
            cc = tm.suit[s]
            while cc:   # the pool segments through tm's cards of suit s
                seg = seg_of(pool.suit[s], cc & (~cc + 1))
                cc &= ~seg
                x = seg & (seg - 1)
                if x & (x - 1):
                    t = seg & tm.suit[s]
                    rr |= seg if t & (t - 1) else seg & ~t
            relb[s] = rr & hm.suit[s]
        if not (relb[0] | relb[1] | relb[2] | relb[3]):
            for q in range(self.nhl):
                self.rset[self.hl[q]] = 0
            return 0
        for q in range(self.nhl):
            c = self.hl[q]
            r = c % 13 + 1
            s = c // 13
            if (relb[s] >> r) & 1 or (r == 1 and (relb[s] >> 14) & 1):
                self.rset[c] = hand[c]
                v += <int64_t>hand[c] * w[c]
                masks_add(&self.rmask, c, ace_high)
                self.rbits |= (<uint64_t>1) << q
            else:
                self.rset[c] = 0
        return v

    cdef void load_rset(self, uint64_t bits, const uint8_t* hand) noexcept nogil:
        """self.rset from a set of hand-list places (a meld's related cards, rb1)."""
        cdef int q, c
        for q in range(self.nhl):
            c = self.hl[q]
            self.rset[c] = hand[c] if (bits >> q) & 1 else 0

    cdef int64_t mixed_value(self, HState* st, const int* idx, int ns, const int32_t* w,
                             const int32_t* jw) noexcept nogil:
        """The exact solver's value of the cards of the melds idx with the hand cards in
        self.rset (cached by the whole multisets and the objective); -1 on a solver error."""
        cdef int i, c, q, s, n = 0
        cdef uint64_t k[5]
        cdef uint64_t h
        cdef int64_t v
        cdef uint64_t* e
        k[0] = k[1] = k[2] = k[3] = 0
        for i in range(ns):   # 2 bits per card type (at most 3 copies; mkey)
            k[0] += self.mkey[idx[i]][0]
            k[1] += self.mkey[idx[i]][1]
            n += st.wit.start[idx[i] + 1] - st.wit.start[idx[i]]
        for q in range(self.nhl):
            c = self.hl[q]
            k[2 + (c >> 5)] |= (<uint64_t>self.rset[c]) << (2 * (c & 31))
        k[4] = 1 + (<uint64_t>(w == self.R.pw))   # the objective (never 0: 0 = empty slot)
        e = self.mv_slot(k)
        if e[0] == k[0] and e[1] == k[1] and e[2] == k[2] and e[3] == k[3] \
                and (e[4] & <uint64_t>0xFFFFFFFFU) == k[4]:
            return <int64_t>e[5]
        memset(self.tmv, 0, NCARD)
        for i in range(ns):
            for q in range(st.wit.start[idx[i]], st.wit.start[idx[i] + 1]):
                self.tmv[st.wit.cards[q]] += 1
        v = self.small_mixed(w, n)
        if v == -2:   # too large for the small search: the solver
            self.smask = -1
            memset(self.mvplaced, 0, NCARD)
            v = self.solver.solve(self.tmv, self.rset, &self.R.srules, w, jw, self.mvplaced, NULL)
            if v < 0:
                return -1
            v = placed_weight(self.mvplaced, w, jw)
        self.n_mixed += 1
        self.mv_store(e, k, v)
        return v

    cdef inline uint64_t* mv_slot(self, const uint64_t* k) noexcept nogil:
        """The mixed-value cache entry for key k (5 words; see mvc)."""
        cdef uint64_t h = k[4]
        cdef int i
        for i in range(4):
            h = (h ^ k[i]) * <uint64_t>0x9E3779B97F4A7C15ULL
            h ^= h >> 29
        return self.mvc + 6 * (h & (MV_SLOTS - 1))

    cdef inline void mv_store(self, uint64_t* e, const uint64_t* k, int64_t v) noexcept nogil:
        """Fill entry e: key k, value v, and the best subset self.smask + 1
        (0: unknown, the solver's value)."""
        e[0] = k[0]
        e[1] = k[1]
        e[2] = k[2]
        e[3] = k[3]
        e[4] = k[4] | ((<uint64_t>(self.smask + 1 if self.smask >= 0 else 0)) << 48)
        e[5] = <uint64_t>v

    cdef int64_t small_mixed(self, const int32_t* w, int n_in=-1) noexcept nogil:
        """The mixed value of self.tmv (a union of melds, no jokers) with at most SMALL_R
        hand cards self.rset, by one branch-and-bound search (opt_search) over which of
        them to leave out; self.smask: the best subset of them (bits over self.src). -2
        when there are more hand cards, or more than 24 cards (the solver's case).
        n_in: the number of cards of tmv when known (then the hand cards are read from the
        hand list hl)."""
        cdef int rc[SMALL_R]
        cdef int nr = 0, n = 0, c, j, q
        cdef int64_t v
        if n_in >= 0:
            n = n_in
            for q in range(self.nhl):
                c = self.hl[q]
                for j in range(self.rset[c]):
                    if nr == SMALL_R:
                        return -2
                    rc[nr] = c
                    nr += 1
        else:
            for c in range(JOKER):
                n += self.tmv[c]
                for j in range(self.rset[c]):
                    if nr == SMALL_R:
                        return -2
                    rc[nr] = c
                    nr += 1
        if n + nr > 24:
            return -2
        self.snr = nr
        self.smask = 0
        for j in range(nr):
            self.src[j] = rc[j]
        memcpy(self.pcnt, self.tmv, JOKER)
        # one branch-and-bound search over which hand cards to leave out (opt_search)
        memset(self.oleft, 0, JOKER)
        v = 0
        for j in range(nr):
            self.pcnt[rc[j]] += 1
            self.oleft[rc[j]] += 1
            v += w[rc[j]]
        if v == 0:
            return 0
        memset(self.oskip, 0, JOKER)
        # leaving every hand card out is a split (the set's own melds): the search looks
        # only for one that loses less
        self.bb_best = v
        memcpy(self.bb_skip, self.oleft, JOKER)
        self.bb_w = w
        self.opt_search(n + nr, 0, 0)
        memcpy(self.pcnt, self.tmv, JOKER)
        # the best subset: each card's copies not left out (the first ones in rc)
        memcpy(self.oleft, self.bb_skip, JOKER)
        for j in range(nr):
            if self.oleft[rc[j]]:
                self.oleft[rc[j]] -= 1
            else:
                self.smask |= 1 << j
        return v - self.bb_best

    cdef void opt_search(self, int left, int r0, int64_t lost) noexcept nogil:
        """Branch and bound behind small_mixed: split self.pcnt (`left` cards, none of a
        rank below index r0) into valid melds, where up to self.oleft[c] copies of each
        card c (the hand's) may be left out instead, each losing its weight; self.bb_best
        is the least loss found (self.bb_skip: what was left out). The smallest card goes
        into a group, a run upward from it, or (an ace, aces high) a run that it ends, as
        in part_build, or is left out; a branch that has already lost bb_best stops."""
        cdef uint8_t* cnt = self.pcnt
        cdef int x, r, s, no = 0, a, b, p, q
        cdef int o[3]
        cdef int ace_high = self.R.srules.ace_high
        if lost >= self.bb_best:
            return
        if left == 0:
            self.bb_best = lost
            memcpy(self.bb_skip, self.oskip, JOKER)
            return
        x = first_card(cnt, r0, o, &no)
        r = x % 13
        s = x // 13
        cnt[x] -= 1
        for a in range(no):
            for b in range(a + 1, no):
                cnt[o[a]] -= 1
                cnt[o[b]] -= 1
                self.opt_search(left - 3, r, lost)
                cnt[o[a]] += 1
                cnt[o[b]] += 1
        if no == 3:
            cnt[o[0]] -= 1
            cnt[o[1]] -= 1
            cnt[o[2]] -= 1
            self.opt_search(left - 4, r, lost)
            cnt[o[0]] += 1
            cnt[o[1]] += 1
            cnt[o[2]] += 1
        q = r + 1
        while True:
            p = q + 1
            if p > (14 if ace_high else 13) or cnt[s * 13 + (p - 1) % 13] == 0:
                break
            cnt[s * 13 + (p - 1) % 13] -= 1
            q = p
            if q - r >= 3:
                self.opt_search(left - 1 - (q - r - 1), r, lost)
        for p in range(r + 2, q + 1):
            cnt[s * 13 + (p - 1) % 13] += 1
        if r == 0 and ace_high:
            q = 14
            while True:
                p = q - 1
                if p < 2 or cnt[s * 13 + p - 1] == 0:
                    break
                cnt[s * 13 + p - 1] -= 1
                q = p
                if 14 - q >= 2:
                    self.opt_search(left - 1 - (14 - q), r, lost)
            for p in range(q, 14):
                cnt[s * 13 + p - 1] += 1
        if self.oleft[x]:   # or leave this copy out (a hand card)
            self.oleft[x] -= 1
            self.oskip[x] += 1
            self.opt_search(left - 1, r, lost + self.bb_w[x])
            self.oskip[x] -= 1
            self.oleft[x] += 1
        cnt[x] += 1

    cdef int part_build(self, int left, Witness* W, int r0) noexcept nogil:
        """Split the cards self.pcnt (no jokers, `left` of them, none of a rank below index
        r0) into valid melds and append them to W (runs ascending; cards stand for
        themselves); 0 when there is no split. The smallest card (ace first, then by
        suit) goes into a group, a run upward from it, or (an ace, aces high) a run that it
        ends; the rest recursively (from its rank on: nothing below it is left)."""
        cdef uint8_t* cnt = self.pcnt
        cdef int x, r, s, no = 0, a, b, p, q, ok = 0, base, L, i
        cdef int o[3]
        cdef int ace_high = self.R.srules.ace_high
        if left == 0:
            return 1
        x = first_card(cnt, r0, o, &no)
        r = x % 13
        s = x // 13
        cnt[x] -= 1
        for a in range(no):
            for b in range(a + 1, no):
                cnt[o[a]] -= 1
                cnt[o[b]] -= 1
                L = 3
                ok = self.part_build(left - 3, W, r)
                if not ok and no == 3 and a == 0 and b == 1:
                    cnt[o[2]] -= 1
                    L = 4
                    ok = self.part_build(left - 4, W, r)
                    cnt[o[2]] += 1
                cnt[o[a]] += 1
                cnt[o[b]] += 1
                if ok:
                    base = W.start[W.n_melds]
                    W.cards[base] = x
                    W.cards[base + 1] = o[a]
                    W.cards[base + 2] = o[b]
                    if L == 4:
                        W.cards[base + 3] = o[2]
                    for i in range(L):
                        W.stands[base + i] = W.cards[base + i]
                    W.n_melds += 1
                    W.start[W.n_melds] = base + L
                    cnt[x] += 1
                    return 1
        q = r + 1
        while not ok:
            p = q + 1
            if p > (14 if ace_high else 13) or cnt[s * 13 + (p - 1) % 13] == 0:
                break
            cnt[s * 13 + (p - 1) % 13] -= 1
            q = p
            if q - r >= 3:
                ok = self.part_build(left - 1 - (q - r - 1), W, r)
        for p in range(r + 2, q + 1):
            cnt[s * 13 + (p - 1) % 13] += 1
        if ok:   # the run x (position r + 1) .. q
            base = W.start[W.n_melds]
            for p in range(r + 1, q + 1):
                W.cards[base + p - r - 1] = s * 13 + (p - 1) % 13
                W.stands[base + p - r - 1] = s * 13 + (p - 1) % 13
            W.n_melds += 1
            W.start[W.n_melds] = base + q - r
        if not ok and r == 0 and ace_high:
            q = 14
            while not ok:
                p = q - 1
                if p < 2 or cnt[s * 13 + p - 1] == 0:
                    break
                cnt[s * 13 + p - 1] -= 1
                q = p
                if 14 - q >= 2:
                    ok = self.part_build(left - 1 - (14 - q), W, r)
            for p in range(q, 14):
                cnt[s * 13 + p - 1] += 1
            if ok:   # the run q .. K, then the ace x on top
                base = W.start[W.n_melds]
                for p in range(q, 14):
                    W.cards[base + p - q] = s * 13 + p - 1
                    W.stands[base + p - q] = s * 13 + p - 1
                W.cards[base + 14 - q] = x
                W.stands[base + 14 - q] = x
                W.n_melds += 1
                W.start[W.n_melds] = base + 15 - q
        cnt[x] += 1
        return ok

    cdef int small_regroup(self, const uint8_t* hand, const int32_t* w,
                           uint8_t* placed) noexcept nogil:
        """The solver's part of regroup without the solver, when nothing holds a joker:
        a placed card shares a meld with a dissolved card (so is related to them) or is in
        a meld of hand cards alone (so is one of meld_cards), and the best play is the
        small search's (small_mixed) on self.tS and those hand cards; its split goes to
        self.tmpwit, its cards to placed. 0 when too large for the small search."""
        cdef Masks hm, tm
        cdef int c, j, i
        cdef int64_t v
        cdef uint32_t ho[4]
        cdef uint64_t k[5]
        cdef uint64_t* e
        memset(&hm, 0, sizeof(Masks))
        memset(&tm, 0, sizeof(Masks))
        self.nhl = 0
        for c in range(JOKER):
            if hand[c]:
                masks_add(&hm, c, self.R.srules.ace_high)
                self.hl[self.nhl] = c
                self.nhl += 1
            if self.tS[c]:
                masks_add(&tm, c, self.R.srules.ace_high)
        memset(self.rset, 0, NCARD)
        self.related_weight(hand, w, &hm, &tm)
        if meld_cards(hand, self.R.srules.ace_high, ho):
            for j in range(self.nhl):
                c = self.hl[j]
                if (ho[c // 13] >> (c % 13 + 1)) & 1:
                    self.rset[c] = hand[c]
        # the mixed-value cache (the same key as mixed_value's: intermediate's bounds often
        # solved this set with these cards already)
        k[0] = k[1] = k[2] = k[3] = 0
        for c in range(JOKER):
            if self.tS[c]:
                k[c >> 5] += (<uint64_t>self.tS[c]) << (2 * (c & 31))
        for j in range(self.nhl):
            c = self.hl[j]
            k[2 + (c >> 5)] |= (<uint64_t>self.rset[c]) << (2 * (c & 31))
        k[4] = 1 + (<uint64_t>(w == self.R.pw))
        e = self.mv_slot(k)
        if e[0] == k[0] and e[1] == k[1] and e[2] == k[2] and e[3] == k[3] \
                and (e[4] & <uint64_t>0xFFFFFFFFU) == k[4] and (e[4] >> 48) & 0xFFFF:
            self.smask = <int>((e[4] >> 48) & 0xFFFF) - 1
            self.snr = 0
            for j in range(self.nhl):
                c = self.hl[j]
                for i in range(self.rset[c]):
                    if self.snr == SMALL_R:
                        return 0
                    self.src[self.snr] = c
                    self.snr += 1
        else:
            memcpy(self.tmv, self.tS, NCARD)
            v = self.small_mixed(w)
            if v < 0:
                return 0
            self.mv_store(e, k, v)
        memcpy(self.pcnt, self.tS, NCARD)
        for j in range(self.snr):
            if (self.smask >> j) & 1:
                placed[self.src[j]] += 1
                self.pcnt[self.src[j]] += 1
        wit_clear(&self.tmpwit)
        return self.part_build(total(self.pcnt), &self.tmpwit, 0)

    cdef void single_mixed(self, HState* st, int m, const uint8_t* hand, const int32_t* w,
                           const int32_t* jw, const Masks* hm) noexcept nogil:
        """Tighten meld m's mixed bound m1 (and vs1) by its exact mixed value."""
        cdef int64_t mv
        if self.mvdone[m]:
            return
        self.mvdone[m] = 1
        self.load_rset(self.rb1[m], hand)
        mv = self.mixed_value(st, &m, 1, w, jw)
        if 0 <= mv < self.m1[m]:
            self.m1[m] = mv
            if self.v0 + mv < self.vs1[m]:
                self.vs1[m] = self.v0 + mv

    cdef int64_t set_bound(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                           const int32_t* w, const int32_t* jw, const Masks* hm,
                           int64_t total_w, int64_t best, int beaten_by_equal) noexcept nogil:
        """An upper bound on regroup(idx) of a single meld or a triple (see the comment
        above bound_setup; pairs: pair_bound): cheap bounds first, the mixed value only
        while the bound still beats `best` (ties beat it when beaten_by_equal). A pair
        with a table joker gets no bound (vs2 too, for the triples)."""
        cdef Masks tm, pool
        cdef int i, s, a, b, c
        cdef int rel[3]
        cdef int64_t sb, lay, ub, u, rw, mv
        a = idx[0]
        b = idx[1] if ns > 1 else 0
        for i in range(ns):
            if self.mjok[idx[i]]:   # a table joker relates any cards
                if ns == 2:
                    self.vs2[a][b] = total_w
                return total_w
        tm = self.mmask[a]
        for i in range(1, ns):
            tm.ranks |= self.mmask[idx[i]].ranks
            for s in range(4):
                tm.suit[s] |= self.mmask[idx[i]].suit[s]
        if ns == 1:   # (rw: only whether any card is related)
            rw = 1 if self.rb1[a] else 0
            self.load_rset(self.rb1[a], hand)
        else:
            rw = self.related_weight(hand, w, hm, &tm)   # fills rset, rmask
            if rw == 0:
                # nothing related: the solver's value is V0 (sb below) and the lay-offs
                # take at most lay_all, so V0 + lay_all bounds the set; enough when it
                # cannot beat best (no lay_cap, no union_bound)
                ub = self.v0 + self.lay_all
                if ub < best or (ub == best and not beaten_by_equal):
                    return ub
        lay = self.lay_cap(idx, ns, hand, w)
        if ns == 1:
            sb = self.vs1[a]
        elif rw == 0:
            # nothing related: sb = V0 is already the least of the bounds below (each is
            # V0 or more: a solver value places at least the hand-only optimum), and no
            # mixed value is needed
            sb = self.v0
        else:
            # a triple: split into a single and a pair no meld can join (vs1 + vs2)
            sb = self.v0 + rw
            for s in range(4):
                pool.suit[s] = hm.suit[s] | tm.suit[s]
            pool.ranks = hm.ranks | tm.ranks
            c = idx[2]
            rel[0] = can_share(&self.mmask[a], &self.mmask[b], &pool)
            rel[1] = can_share(&self.mmask[a], &self.mmask[c], &pool)
            rel[2] = can_share(&self.mmask[b], &self.mmask[c], &pool)
            if not rel[0] and not rel[1] and self.vs1[a] + self.vs2[b][c] < sb:
                sb = self.vs1[a] + self.vs2[b][c]
            if not rel[0] and not rel[2] and self.vs1[b] + self.vs2[a][c] < sb:
                sb = self.vs1[b] + self.vs2[a][c]
            if not rel[1] and not rel[2] and self.vs1[c] + self.vs2[a][b] < sb:
                sb = self.vs1[c] + self.vs2[a][b]
        ub = sb + lay
        u = self.union_bound(idx, ns, hand, w)
        if u < ub:
            ub = u
        if (ub > best or (ub == best and beaten_by_equal)) and rw > 0:
            # the mixed value (a solve, unless cached)
            mv = self.mixed_value(st, idx, ns, w, jw)   # (rset: the set's related cards)
            if mv >= 0:
                if ns == 1:
                    self.mvdone[a] = 1
                    if mv < self.m1[a]:
                        self.m1[a] = mv
                    if self.v0 + mv < self.vs1[a]:
                        self.vs1[a] = self.v0 + mv
                    sb = self.vs1[a]
                elif self.v0 + mv < sb:
                    sb = self.v0 + mv
                if self.v0 + mv + lay < ub:
                    ub = self.v0 + mv + lay
                if ub > best or (ub == best and beaten_by_equal):
                    u = self.exact_bound(st, idx, ns, hand, w, mv)
                    if 0 <= u < ub:
                        ub = u
            if sb + lay < ub:
                ub = sb + lay
        return ub if ub < total_w else total_w

    cdef inline int64_t pair_ub(self, HState* st, const int* idx, const uint8_t* hand,
                                const int32_t* w, const int32_t* jw, const Masks* hm,
                                int64_t total_w, int64_t best, int64_t key,
                                int64_t best_key, int loose) noexcept nogil:
        """Upper bound on regroup of the pair idx (loose: loose_pair said so), cheapest
        first: loose_bound (loose pairs), near_bound, then pair_bound; none (total_w, vs2
        too) when a meld holds a table joker."""
        cdef int64_t ub = -1
        if self.mjok[idx[0]] or self.mjok[idx[1]]:
            self.vs2[idx[0]][idx[1]] = total_w
            return total_w
        if loose:
            ub = self.loose_bound(idx, hand, w, best, key > best_key)
        if ub < 0:
            ub = self.near_bound(idx, hand, w, best, key > best_key)
        if ub < 0:
            ub = self.pair_bound(st, idx, hand, w, jw, hm, total_w, best, key < best_key,
                                 loose)
        return ub

    cdef int64_t pair_bound(self, HState* st, const int* idx, const uint8_t* hand,
                            const int32_t* w, const int32_t* jw, const Masks* hm,
                            int64_t total_w, int64_t best, int beaten_by_equal,
                            int loose) noexcept nogil:
        """set_bound for a pair (a, b) without table jokers that loose_bound and near_bound
        did not skip (loose: loose_pair said so), their bounds in the same order, less
        what those two already tried: the exact related cards, their copies counted once
        with the lay-off chains, the singles' bounds when no meld can hold a card of each,
        then the mixed values."""
        cdef Masks tm, pool
        cdef int s, a = idx[0], b = idx[1], split, q, c
        cdef int64_t sb, lay, ub, u, rw, mv
        for s in range(4):
            tm.suit[s] = self.mmask[a].suit[s] | self.mmask[b].suit[s]
        tm.ranks = self.mmask[a].ranks | self.mmask[b].ranks
        if self.nb_pair == a * MAX_MELDS + b and self.nb_e:
            # near_bound's set is exact here: rset, rmask from it (as related_weight)
            rw = self.mask_weight(self.nb_e, hand, w)
            memset(&self.rmask, 0, sizeof(Masks))
            for q in range(self.nhl):
                c = self.hl[q]
                if (self.nb_e >> (16 * (c // 13) + c % 13 + 1)) & 1:
                    self.rset[c] = hand[c]
                    masks_add(&self.rmask, c, self.R.srules.ace_high)
                else:
                    self.rset[c] = 0
        else:
            rw = self.related_weight(hand, w, hm, &tm)   # fills rset, rmask
        self.nb_pair = -1
        lay = self.lay_cap(idx, 2, hand, w)
        if rw == 0:
            # nothing related: the solver's value is V0 (every other bound is V0 or more)
            self.vs2[a][b] = self.v0
            ub = self.v0 + lay
            u = self.union_bound(idx, 2, hand, w)
            return u if u < ub else ub
        for s in range(4):
            pool.suit[s] = hm.suit[s] | tm.suit[s]
        pool.ranks = hm.ranks | tm.ranks
        if not loose:
            loose = not can_share(&self.mmask[a], &self.mmask[b], &pool)
        sb = self.v0 + rw
        if loose:
            if self.vs1[a] + self.m1[b] < sb:
                sb = self.vs1[a] + self.m1[b]
            if self.m1[a] + self.vs1[b] < sb:
                sb = self.m1[a] + self.vs1[b]
            if self.v0 + self.m1[a] + self.m1[b] < sb:
                sb = self.v0 + self.m1[a] + self.m1[b]
        ub = sb + lay
        u = self.union_bound(idx, 2, hand, w)
        if u < ub:
            ub = u
        if not (ub > best or (ub == best and beaten_by_equal)):
            self.vs2[a][b] = sb
            return ub if ub < total_w else total_w
        for s in range(4):
            pool.suit[s] = self.rmask.suit[s] | tm.suit[s]
        pool.ranks = self.rmask.ranks | tm.ranks
        split = loose or not can_share(&self.mmask[a], &self.mmask[b], &pool)
        if split:
            # the mixed melds hold cards of a or of b, not both: the singles' mixed values
            self.single_mixed(st, a, hand, w, jw, hm)
            self.single_mixed(st, b, hand, w, jw, hm)
            if self.v0 + self.m1[a] + self.m1[b] < sb:
                sb = self.v0 + self.m1[a] + self.m1[b]
            if loose and self.vs1[a] + self.m1[b] < sb:
                sb = self.vs1[a] + self.m1[b]
            if loose and self.m1[a] + self.vs1[b] < sb:
                sb = self.m1[a] + self.vs1[b]
            if sb + lay < ub:
                ub = sb + lay
            if not (ub > best or (ub == best and beaten_by_equal)):
                self.vs2[a][b] = sb
                return ub if ub < total_w else total_w
            self.related_weight(hand, w, hm, &tm)   # (rset again: single_mixed replaced it)
        mv = self.mixed_value(st, idx, 2, w, jw)
        if mv >= 0:
            if self.v0 + mv < sb:
                sb = self.v0 + mv
            if sb + lay < ub:
                ub = sb + lay
            if ub > best or (ub == best and beaten_by_equal):
                u = self.exact_bound(st, idx, 2, hand, w, mv)
                if 0 <= u < ub:
                    ub = u
        self.vs2[a][b] = sb
        return ub if ub < total_w else total_w

    cdef inline int loose_pair(self, int a, int b) noexcept nogil:
        """Whether no meld of the pool of melds a, b and the hand can hold a card of a and
        a card of b (no table jokers in them). Sufficient, from per-meld masks: no common
        rank, and in no suit a card of b on or next to a segment of a's cards in a + the
        hand. (Two cards of one pool segment: walking from a's card to b's, the first card
        not in a + the hand is one of b's, next to such a segment, or b's card is on it.)"""
        cdef const uint32_t* d = self.mdil[a]
        cdef const Masks* y = &self.mmask[b]
        if self.mjok[a] or self.mjok[b] or self.mmask[a].ranks & y.ranks:
            return 0
        return not ((d[0] & y.suit[0]) | (d[1] & y.suit[1]) | (d[2] & y.suit[2])
                    | (d[3] & y.suit[3]))

    cdef int64_t loose_bound(self, const int* idx, const uint8_t* hand, const int32_t* w,
                             int64_t best, int lose_ties) noexcept nogil:
        """Upper bound on regroup of a loose pair (a, b), or -1 when it would not skip
        the pair. The solver's melds split into a's (with hand cards),
        b's and hand-only ones: a's with the hand-only ones are a play for a alone (vs1),
        b's are one of b's mixed plays (m1), so the solver's value is at most
        min(vs1[a] + m1[b], m1[a] + vs1[b], V0 + m1[a] + m1[b]); the lay-offs at most
        lay_cap, which is no more than either single's (fewer intact melds)."""
        cdef int a = idx[0], b = idx[1]
        cdef int64_t sb, ub, lay
        sb = self.vs1[a] + self.m1[b]
        if self.m1[a] + self.vs1[b] < sb:
            sb = self.m1[a] + self.vs1[b]
        if self.v0 + self.m1[a] + self.m1[b] < sb:
            sb = self.v0 + self.m1[a] + self.m1[b]
        lay = self.lc1[a] if self.lc1[a] < self.lc1[b] else self.lc1[b]
        ub = sb + lay
        if not (ub < best or (ub == best and lose_ties)):
            ub = sb + self.lay_cap(idx, 2, hand, w)
            if not (ub < best or (ub == best and lose_ties)):
                return -1
        self.vs2[a][b] = sb
        return ub

    cdef inline int64_t mask_weight(self, uint64_t e, const uint8_t* hand,
                                    const int32_t* w) noexcept nogil:
        """The weight of the hand's copies of the cards in e (16 bits a suit)."""
        cdef int64_t v = 0
        cdef int q, c
        if self.unit_w:
            return cs_popcount(e) + cs_popcount(e & self.hc2) + cs_popcount(e & self.hc3)
        while e:
            q = cs_ctz(e)
            e &= e - 1
            c = (q >> 4) * 13 + (q & 15) - 1
            v += <int64_t>w[c] * hand[c]
        return v

    cdef int64_t near_bound(self, const int* idx, const uint8_t* hand, const int32_t* w,
                            int64_t best, int lose_ties) noexcept nogil:
        """Upper bound on regroup of a pair (a, b), or -1 when it would not skip the pair:
        V0 + the weight of a superset E of the hand cards related to a + b + the smaller
        single lay-off cap. A hand card's relation to a + b differs from its relations to
        a and to b alone (r1mask) only at a rank both hold (a group: E takes the hand's
        cards of that rank) or on a pool segment holding cards of both (a run; as in
        loose_pair, a card of b lies on or next to a's segments in a + the hand): E takes
        the hand's cards on those segments of a and of b, in that suit."""
        cdef int a = idx[0], b = idx[1], q, c, s
        cdef uint64_t e = self.r1mask[a] | self.r1mask[b], x
        cdef int64_t u
        cdef uint32_t cr = (self.mmask[a].ranks & self.mmask[b].ranks) << 1, y
        if cr:
            x = cr
            e |= (x | (x << 16) | (x << 32) | (x << 48)) & self.hmask
        for s in range(4):
            if self.mdil[a][s] & self.mmask[b].suit[s]:
                y = (self.mext[a][s] | self.mext[b][s]) & self.hm_suit[s]
                e |= (<uint64_t>((y | (y >> 13)) & 0x3FFE)) << (16 * s)
        cdef int64_t rw, ub
        rw = self.mask_weight(e, hand, w)
        ub = self.v0 + rw + (self.lc1[a] if self.lc1[a] < self.lc1[b] else self.lc1[b])
        if not (ub < best or (ub == best and lose_ties)):
            # every copy of a card in E or on a lay-off chain, once (as union_bound)
            u = self.v0 + self.mask_weight(e | self.cmask, hand, w)
            if u < ub:
                ub = u
            if not (ub < best or (ub == best and lose_ties)):
                # for pair_bound: E is the exact related set when the two melds add no
                # card to their own ones (R(a) and R(b) <= R(a + b) <= E)
                self.nb_pair = a * MAX_MELDS + b
                self.nb_e = e if e == (self.r1mask[a] | self.r1mask[b]) else 0
                return -1
        self.vs2[a][b] = self.v0 + rw
        return ub

    cdef int64_t lay_exact(self, HState* st, const int* idx, int ns, uint8_t* rem,
                           const int32_t* w) noexcept nogil:
        """The weight layoffs() places from the hand cards rem (no jokers; rem is used up)
        onto the melds not in idx: without jokers each meld, in order, takes its chain
        upward while rem holds the next card, then downward (a group of three: its missing
        suit); a card taken is gone for the later melds, and nothing fits a meld later
        that did not fit it then (rem only shrinks)."""
        cdef int m, j, i, c, skip
        cdef int64_t v = 0
        for m in range(st.wit.n_melds):
            skip = 0
            for i in range(ns):
                if idx[i] == m:
                    skip = 1
            if skip or self.capn[m] == 0:
                continue
            j = 0
            while j < self.capup[m] and rem[self.capc[m][j]]:
                c = self.capc[m][j]
                rem[c] -= 1
                v += w[c]
                j += 1
            j = self.capup[m]
            while j < self.capn[m] and rem[self.capc[m][j]]:
                c = self.capc[m][j]
                rem[c] -= 1
                v += w[c]
                j += 1
        return v

    cdef int64_t exact_bound(self, HState* st, const int* idx, int ns, const uint8_t* hand,
                             const int32_t* w, int64_t mv) noexcept nogil:
        """regroup(idx) itself, when V0 = 0 and the mixed value mv is 0 (no jokers): with
        no meld of hand cards alone every placed card is related, so the solver places
        none (weights are positive), and the lay-offs are lay_exact of the whole hand.
        -1 otherwise (unknown)."""
        if self.v0 != 0 or mv != 0:
            return -1
        memcpy(self.scratch, hand, NCARD)
        return self.lay_exact(st, idx, ns, self.scratch, w)

    cdef void store_vs(self, const int* idx, int ns, int64_t v) noexcept nogil:
        """Record the exact solver value of a set that was solved."""
        if ns == 1:
            self.vs1[idx[0]] = v
        elif ns == 2:
            self.vs2[idx[0]][idx[1]] = v

    # ------------------------------------------------------------ invariants (checked mode)
    cdef int check_state(self, HState* st) noexcept nogil:
        cdef int cnt[NCARD]
        cdef int wcnt[NCARD]
        cdef int s, c, k, n, m
        memset(cnt, 0, sizeof(cnt))
        memset(wcnt, 0, sizeof(wcnt))
        for s in range(self.R.players):
            n = 0
            for c in range(NCARD):
                cnt[c] += st.hands[s][c]
                n += st.hands[s][c]
            if n != st.hand_n[s]:
                return 2
        n = 0
        for c in range(NCARD):
            cnt[c] += st.table[c]
            n += st.table[c]
        if n != st.table_n or st.wit.start[st.wit.n_melds] != n:
            return 3
        for k in range(st.stock_pos, st.stock_len):
            cnt[st.stock[k]] += 1
        for c in range(NCARD):
            if cnt[c] != self.deck_counts[c]:
                return 1
        for k in range(n):
            wcnt[st.wit.cards[k]] += 1
        for c in range(NCARD):
            if wcnt[c] != st.table[c]:
                return 3
        for m in range(st.wit.n_melds):
            if st.wit.start[m + 1] - st.wit.start[m] < 3:
                return 4
        return 0

    # ------------------------------------------------------------ one hand
    cdef int play_hand(self, const uint8_t* deck, int dealer, int first, uint64_t* rng,
                       HandResult* res) noexcept nogil:
        """One hand dealt from `deck` starting left of `dealer`; `first` plays first."""
        cdef ERules* R = &self.R
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef int P = R.players, k, c, seat, cur, kind, avail, take, noadd = 0
        cdef int empty_at_start, i, best_pts, n_best, table_before
        memset(st, 0, sizeof(HState))
        memset(res, 0, sizeof(HandResult))
        wit_clear(&st.wit)
        for k in range(P * R.hand_size):
            seat = (dealer + 1 + k) % P
            st.hands[seat][deck[k]] += 1
            st.hand_n[seat] += 1
        st.stock_len = R.deck_size - P * R.hand_size
        for k in range(st.stock_len):
            st.stock[k] = deck[P * R.hand_size + k]
        res.stock_exhausted_turn = 0 if st.stock_len == 0 else -1
        res.winner = -1
        cur = first
        res.first_player = cur
        while True:
            if res.turns >= MAX_TURNS:
                return -1
            empty_at_start = st.stock_pos == st.stock_len
            table_before = st.table_n
            self.decide(st, cur, rng, d)
            if self.solver_rc:
                return -3
            if self.checked and d.kind == A_PLAY and d.n_placed < 1:
                self.violation = 5
                return -2
            res.turns += 1
            kind = d.kind
            avail = st.stock_len - st.stock_pos
            if kind == A_PLAY:
                for c in range(NCARD):
                    st.hands[cur][c] -= d.placed[c]
                    st.table[c] += d.placed[c]
                st.hands[cur][JOKER] += d.taken
                st.table[JOKER] -= d.taken
                st.hand_n[cur] += d.taken - d.n_placed
                st.table_n += d.n_placed - d.taken
                wit_copy(&st.wit, &d.wit)
                st.opened[cur] = 1
                res.plays += 1
                noadd = 0
                if st.table_n > res.max_table:
                    res.max_table = st.table_n
                if st.hand_n[cur] == 0:
                    res.end = E_EMPTIED
                    res.winner = cur
                    break
            elif kind == A_DRAW:
                if avail > 0:
                    st.hands[cur][st.stock[st.stock_pos]] += 1
                    st.stock_pos += 1
                    st.hand_n[cur] += 1
                    res.cards_drawn += 1
                    if avail == 1:
                        res.stock_exhausted_turn = res.turns
                        if R.ends_hand:   # 003: the hand ends with the turn that emptied the stock
                            res.end = E_STOCKOUT
                            break
                elif R.ends_hand:
                    res.end = E_STOCKOUT
                    break
            else:  # A_FAIL: table and hand untouched, penalty cards drawn
                res.failed += 1
                if avail == 0 and R.ends_hand:
                    res.end = E_STOCKOUT
                    break
                take = R.penalty if R.penalty < avail else avail
                for k in range(take):
                    st.hands[cur][st.stock[st.stock_pos]] += 1
                    st.stock_pos += 1
                st.hand_n[cur] += take
                res.cards_drawn += take
                if take > 0 and take == avail:
                    res.stock_exhausted_turn = res.turns
                    if R.ends_hand:
                        res.end = E_STOCKOUT
                        break
            st.failed_last[cur] = kind == A_FAIL
            if self.checked:
                if kind != A_PLAY and st.table_n != table_before:
                    self.violation = 6
                    return -2
                self.violation = self.check_state(st)
                if self.violation:
                    return -2
            if kind != A_PLAY and empty_at_start:
                noadd += 1
                if noadd >= P:
                    res.end = E_BLOCKED
                    break
            cur = (cur + 1) % P
        if self.checked:
            self.violation = self.check_state(st)
            if self.violation:
                return -2
        for seat in range(P):
            res.cards_left[seat] = st.hand_n[seat]
            res.points[seat] = 0
            for c in range(NCARD):
                res.points[seat] += st.hands[seat][c] * R.hpts[c]
        if res.end != E_EMPTIED and R.lowest:
            best_pts = res.points[0]
            n_best = 0
            for seat in range(P):
                if res.points[seat] < best_pts:
                    best_pts = res.points[seat]
            for seat in range(P):
                if res.points[seat] == best_pts:
                    n_best += 1
                    res.winner = seat
            if n_best > 1:
                res.winner = -1
            if n_best == 1 or R.ties_shared:
                for seat in range(P):
                    res.won[seat] = res.points[seat] == best_pts
        elif res.end == E_EMPTIED:
            res.won[res.winner] = 1
        return 0

    # ------------------------------------------------------------ batches
    def play_batch(self, int64_t root_seed, replicates, bint hands=False):
        """Play one game (a hand, or a whole match) per replicate; returns a dict of
        NumPy arrays, one row per replicate (the per-seat arrays are 2-D).

        hands: also ``out["hand_rows"]``, a dict of arrays with one row per hand played
        (HAND_FIELDS): ``game`` (row index of its game), ``hand``, ``dealer``,
        ``first_player``, ``end``, ``winner``, ``turns``, ``rounds``,
        ``stock_exhausted_turn`` (within the hand), ``cards_drawn``, ``plays``, ``failed``,
        ``max_table`` and the 2-D ``cards_left``, ``hand_points``, ``score`` (the match
        score after the hand)."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] reps = np.ascontiguousarray(replicates, dtype=np.int64)
        cdef Py_ssize_t G = reps.shape[0], g
        cdef int P = self.R.players, h, s, rc, n_hands, w, best, nb, lost
        cdef uint64_t rng_state
        cdef HandResult res
        cdef uint8_t hand_deck[MAX_DECK]
        cdef int dealer0, dealer, first0, first
        cdef long long turn_base
        cdef const uint8_t[:] pv
        sorted_deck = np.asarray(<uint8_t[:self.R.deck_size]> self.deck).copy()
        out = {
            name: np.zeros(G, dtype=np.int64) for name in (
                "first_player", "winner", "end", "turns", "rounds", "stock_exhausted_turn",
                "cards_drawn", "plays", "failed", "max_table", "hands", "dealer",
            )
        }
        cards_left = np.zeros((G, P), dtype=np.int64)
        hand_points = np.zeros((G, P), dtype=np.int64)
        score = np.zeros((G, P), dtype=np.int64)
        cdef long long[:, :] cl = cards_left, hp = hand_points, sc = score
        cdef long long[:] o_first = out["first_player"], o_winner = out["winner"]
        cdef long long[:] o_end = out["end"], o_turns = out["turns"], o_rounds = out["rounds"]
        cdef long long[:] o_sx = out["stock_exhausted_turn"], o_drawn = out["cards_drawn"]
        cdef long long[:] o_plays = out["plays"], o_failed = out["failed"]
        cdef long long[:] o_max = out["max_table"], o_hands = out["hands"], o_dealer = out["dealer"]
        hrows = {name: [] for name in HAND_FIELDS} if hands else None
        for g in range(G):
            rng = np.random.default_rng(np.random.SeedSequence([int(reps[g]), int(root_seed)]))
            perm = rng.permutation(sorted_deck)
            dealer0 = int(rng.integers(P))
            rng_state = int(rng.integers(0, 2**64, dtype=np.uint64))
            # first_player_by = cut (003): the highest cut starts, then play moves clockwise
            # hand by hand; a uniform seat (the cut's distribution, ties re-cut)
            first0 = int(rng.integers(P)) if self.first_cut else -1
            o_dealer[g] = dealer0
            o_sx[g] = -1
            turn_base = 0
            h = 0
            while True:
                if h > 0:
                    perm = rng.permutation(sorted_deck)
                dealer = (dealer0 + h) % P
                pv = np.ascontiguousarray(perm, dtype=np.uint8)
                for s in range(self.R.deck_size):
                    hand_deck[s] = pv[s]
                first = (first0 + h) % P if self.first_cut else (dealer + 1) % P
                with nogil:
                    rc = self.play_hand(hand_deck, dealer, first, &rng_state, &res)
                if rc == -3:
                    rc = self.solver_rc
                    self.solver_rc = 0
                    raise RuntimeError(
                        f"engine: the exact solver stopped ({SOLVER_ERRORS.get(rc, rc)}) "
                        f"in hand {h} of replicate {reps[g]}; no move is guessed, the game "
                        "is not counted")
                if rc == -2:
                    raise RuntimeError(
                        f"engine invariant broken in hand {h} of replicate {reps[g]}: "
                        f"{VIOLATIONS[self.violation]}")
                if rc != 0:
                    raise RuntimeError(
                        f"engine: hand {h} of replicate {reps[g]} exceeded {MAX_TURNS} turns "
                        "(a strategy that never ends a hand?)")
                if h == 0:
                    o_first[g] = res.first_player
                o_end[g] = res.end
                if res.stock_exhausted_turn >= 0 and o_sx[g] < 0:
                    o_sx[g] = turn_base + res.stock_exhausted_turn
                o_turns[g] += res.turns
                o_rounds[g] += (res.turns + P - 1) // P
                o_drawn[g] += res.cards_drawn
                o_plays[g] += res.plays
                o_failed[g] += res.failed
                if res.max_table > o_max[g]:
                    o_max[g] = res.max_table
                # scoring: a hand's winners pay nothing (003: "chaque autre joueur compte");
                # winner-takes: they score the sum of the others' points instead
                lost = 0
                for s in range(P):
                    cl[g, s] = res.cards_left[s]
                    hp[g, s] = res.points[s]
                    if not res.won[s]:
                        lost += res.points[s]
                        if not self.R.winner_takes:
                            sc[g, s] += res.points[s]
                if self.R.winner_takes:
                    for s in range(P):
                        if res.won[s]:
                            sc[g, s] += lost
                turn_base += res.turns
                if hands:
                    for name, v in zip(HAND_FIELDS, (
                            g, h, dealer, res.first_player, res.end, res.winner, res.turns,
                            (res.turns + P - 1) // P, res.stock_exhausted_turn,
                            res.cards_drawn, res.plays, res.failed, res.max_table,
                            [res.cards_left[s] for s in range(P)],
                            [res.points[s] for s in range(P)],
                            [sc[g, s] for s in range(P)])):
                        hrows[name].append(v)
                h += 1
                if self.match_kind == 0:
                    o_winner[g] = res.winner
                    break
                if self.match_kind == 1 and h >= self.match_value * P:
                    break
                if self.match_kind == 2:
                    best = 0
                    for s in range(P):
                        if sc[g, s] > best:
                            best = sc[g, s]
                    if best >= self.match_value:
                        break
                if h >= 100000:
                    raise RuntimeError(f"engine: match of replicate {reps[g]} did not end")
            o_hands[g] = h
            if self.match_kind != 0:
                best = sc[g, 0]
                for s in range(P):
                    if sc[g, s] < best:
                        best = sc[g, s]
                nb = 0
                w = -1
                for s in range(P):
                    if sc[g, s] == best:
                        nb += 1
                        w = s
                o_winner[g] = w if nb == 1 else -1
        out["cards_left"] = cards_left
        out["hand_points"] = hand_points
        out["score"] = score
        if hands:
            out["hand_rows"] = {name: np.array(v, dtype=np.int64) for name, v in hrows.items()}
            for name in HAND_SEAT_FIELDS:
                out["hand_rows"][name] = out["hand_rows"][name].reshape(-1, P)
        return out

    def small_mixed_value(self, table, hand, int objective=0):
        """The small exact search behind the intermediate's bounds (for tests): the most
        weight of `hand` cards (at most SMALL_R = 8, no jokers) placed with every card of `table` (a
        union of melds) in valid melds; None when it is too large for the small search."""
        cdef int c
        cdef int64_t v
        for c in range(JOKER):
            self.tmv[c] = table[c]
            self.rset[c] = hand[c]
        if objective:
            v = self.small_mixed(self.R.pw)
        else:
            v = self.small_mixed(self.R.ones)
        return None if v == -2 else v

    def related_cards(self, hand, cards):
        """The hand cards (counts, no jokers) related to the table cards `cards` in the pool
        of both (the intermediate's related_weight; for tests): a numpy count array."""
        cdef Masks hm, tm
        cdef int c
        memset(&hm, 0, sizeof(Masks))
        memset(&tm, 0, sizeof(Masks))
        memset(self.hk, 0, NCARD)
        self.nhl = 0
        for c in range(JOKER):
            self.hk[c] = hand[c]
            if hand[c]:
                masks_add(&hm, c, self.R.srules.ace_high)
                self.hl[self.nhl] = c
                self.nhl += 1
        for c in cards:
            masks_add(&tm, c, self.R.srules.ace_high)
        self.related_weight(self.hk, self.R.ones, &hm, &tm)
        return np.array([self.rset[c] if c < JOKER and self.hk[c] else 0 for c in range(NCARD)],
                        dtype=np.uint8)

    # ------------------------------------------------------------ one decision (State API)
    def regroup_position(self, hand, table_melds, idx):
        """regroup() of the melds idx (no jokers) with the hand (53 counts), cards objective,
        after the hand-only solve as in a decision: (the solver part's value, its new
        melds, whether the small search made them). For tests."""
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef uint8_t h[NCARD]
        cdef int ix[3]
        cdef int i = 0, m, c, ns = len(idx)
        cdef long long before
        memset(st, 0, sizeof(HState))
        wit_clear(&st.wit)
        for c in range(NCARD):
            h[c] = hand[c]
        for m, meld in enumerate(table_melds):
            for c in meld:
                st.wit.cards[i] = c
                st.wit.stands[i] = c
                st.table[c] += 1
                i += 1
            st.wit.start[m + 1] = i
        st.wit.n_melds = len(table_melds)
        for i in range(ns):
            ix[i] = idx[i]
        self.regroup(st, NULL, 0, h, self.R.ones, self.R.ones_j, d)
        before = self.n_small
        if self.regroup(st, ix, ns, h, self.R.ones, self.R.ones_j, d) < 0:
            raise RuntimeError("regroup failed")
        melds = [[self.tmpwit.cards[i] for i in range(self.tmpwit.start[m], self.tmpwit.start[m + 1])]
                 for m in range(self.tmpwit.n_melds)]
        return int(self.last_vs), melds, self.n_small > before

    def decide_position(self, int seat, hands, table_melds, table_stands, opened,
                        int stock_left, uint64_t rng_state, failed_last=None, raw=False):
        """The seat's strategy decision in a position given as Python data.

        hands: P x 53 counts; table_melds / table_stands: the current meld list (card ids,
        and what each stands for); opened: per-seat flags. Returns (action, placed counts,
        taken jokers, melds after, stands after, new rng state); action in ACTIONS[:4].
        failed_last: per-seat flags, the seat's previous turn was a failure. raw: the skill
        level's play alone, without patience or error (the must-play check).
        """
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef int P = self.R.players, s, c, i, m
        cdef uint64_t rng = rng_state
        memset(st, 0, sizeof(HState))
        wit_clear(&st.wit)
        for s in range(P):
            for c in range(NCARD):
                st.hands[s][c] = hands[s][c]
                st.hand_n[s] += hands[s][c]
            st.opened[s] = 1 if opened[s] else 0
            st.failed_last[s] = 1 if failed_last is not None and failed_last[s] else 0
        i = 0
        for m, meld in enumerate(table_melds):
            for k, c in enumerate(meld):
                st.wit.cards[i] = c
                st.wit.stands[i] = table_stands[m][k]
                st.table[c] += 1
                i += 1
            st.wit.start[m + 1] = i
        st.wit.n_melds = len(table_melds)
        st.table_n = i
        st.stock_len = stock_left
        self.raw = bool(raw)
        try:
            with nogil:
                self.decide(st, seat, &rng, d)
        finally:
            self.raw = False
        if self.solver_rc:
            rc = self.solver_rc
            self.solver_rc = 0
            raise RuntimeError(f"engine: the exact solver stopped ({SOLVER_ERRORS.get(rc, rc)})")
        placed = np.array(<uint8_t[:NCARD]> d.placed, dtype=np.uint8)
        melds, stands = [], []
        if d.kind == A_PLAY:
            for m in range(d.wit.n_melds):
                melds.append([d.wit.cards[i] for i in range(d.wit.start[m], d.wit.start[m + 1])])
                stands.append([d.wit.stands[i] for i in range(d.wit.start[m], d.wit.start[m + 1])])
        return ACTIONS[d.kind], placed, d.taken, melds, stands, rng
