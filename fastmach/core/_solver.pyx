# Exact partition search for Machiavelli (compiled core).
#
# Question answered: given the table (which must be used whole) and a hand (any subset of
# which may be added), which multiset of cards of maximum weight splits into valid melds?
#
# Method (van Rijn, Takes & Vis 2015, adapted to 2-3 decks and jokers): a dynamic program
# that sweeps the values A=1..K=13 (and the ace again as value 14 when aces may be high).
# The state between value v-1 and v holds, per suit, the runs still open, counted by
# length bucket (1, 2, 3+) and by whether they contain a joker; the number of jokers used
# so far; and, for high aces, how many aces of each suit value 1 used (to start A-2-3
# runs), so that value 14 knows how many are left. Each value is processed suit by suit
# (sub-steps that also carry the number of cards set aside for groups, their sum and max
# over suits), then one group step checks that the set-aside cards (plus jokers) form
# groups of 3-4 distinct suits. States are merged by exact key keeping the best value, and
# dominated ones dropped; back-pointers rebuild one optimal partition as concrete melds.
#
# Which partition among equal ones (the canonical tie-break, docs/solver.md): of those of
# the best value, the one whose used cards, as copies per card by rank (2 .. K, then the
# aces; suits S H D C within a rank; jokers last), are lexicographically greatest. Each state carries that vector as a number (_sec:
# a sum over the cards used, _sec_weights), merges and the dominance pass compare (value,
# key), and the aces-high search keeps the states that can reach the aces-low value with a
# key that can pass the aces-low answer's (_tie_lost); so the direction, the relaxation and
# every exact pruning return the same value and placed cards.
# The melds those cards are arranged in follow a rule on the cards alone, not the search's
# path (the canonical arrangement, _arrange.pxi), applied by Solver.solve_direct.
#
# Exact shortcuts around that sweep (Solver.solve):
#  - hand cards that no meld can hold are dropped first (_drop_useless);
#  - aces high: a first sweep with aces low only gives a lower bound (every such partition
#    is valid with high aces too); the full sweep then drops states that cannot beat it
#    (branch and bound on the weight still to come, _set_rest / _aces_left), and is not
#    run when that partition already holds every card that could be placed (_weight_bound);
#  - inputs asked again recently (the same bytes) are answered from a memo of the last
#    answers (_solve_memo.pxi; Solver.solve_direct and the benchmarks always search);
#  - large hands or four jokers: iterative deepening on the weight left out (_deepening),
#    starting with "everything placed", ended by a sweep that found nothing and dropped
#    nothing by its bound (no partition at all);
#  - direction: a hand heavy in high ranks is solved on the mirrored position (rank r ->
#    15 - r, or 14 - r with aces low only) and mapped back; with jokers, a position whose
#    cards lie low (_direction.pxi);
#  - one joker per meld: a relaxation that counts runs by length only (no joker flag) is
#    solved first and kept when no meld of its partition holds two jokers (_solve_one);
#    when it is not kept, its value bounds the exact search (Impl.ub): the deepening
#    sweeps that cannot reach it, and the aces-high sweep when the aces-low value does;
#    jokers unlimited: runs are counted by length only (`merged`), which is exact there;
#  - no joker at all: a suit step with the real-card choices only (_suit_step_plain);
#  - a suit step where the suit has no card and no state an open run of it, and a group
#    step where no suit has a card, copy the layer (_copy_step: the same states, in order);
#  - with jokers, the choices of a suit step are walked once per suit pattern and
#    replayed for every state that shows it (_suit_moves.pxi: the same states, in order);
#  - with jokers, no state is made whose open runs need more jokers than are left
#    (_joker_need.pxi), whose groups the suits still to come at its value cannot make, or
#    whose table aces left for 14 find no place (_group_supply.pxi): such states reach no
#    partition, and with the dominance pass after every suit step every answer stays;
#  - after a relaxation that fell back, the exact search with aces high is not run when
#    the aces-low answer reaches the relaxation's value and key (_relax_key.pxi);
#  - after a relaxation that fell back, the exact search skips its aces-low search when
#    the relaxation's found none, and runs its search with aces high first when the
#    relaxation's aces-low partition is exact (_relax_low.pxi);
#  - a hard cap of MAX_STATES states: past it the solve reports -4, never a guess (a
#    direction that hits it is retried the other way first).
# Solver.place_all asks only whether every card can be placed (a player going out): the
# deepening's first sweep (nothing left out), with aces low then high, and no further.
#
# The Python-level entries (solve_counts, place_all_counts, time_positions) are in
# _solver_entries.pxi, the debug switches and probes of the tests in _solver_debug.pxi.
#
# Group feasibility (exact, proved in the comment of _group_ok): g_s real cards of suit s
# and jg jokers form k groups iff max g_s <= k, (3 - min(jpm, 2)) k <= sum g <= 4k,
# 3k <= sum g + jg <= 4k and (limited) jg <= jpm k.
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.string cimport memset, memcpy, memcmp
from libc.stdint cimport uint8_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t

import numpy as np
cimport numpy as cnp

from fastmach.core._split_reject cimport split_impossible

cdef extern from *:
    # wide enough for a bound on a tie-break key (_tie_lost) and for planning one (_key_plan)
    ctypedef unsigned long long u128 "unsigned __int128"

# the canonical tie-break's key of a state (_key_plan)
ctypedef uint64_t skey

include "_solve_memo.pxi"

cnp.import_array()

# ---------------------------------------------------------------------------------------
# State encoding
#   k1: per suit s, 15 bits at 15*s:  a1:2 a2:2 a3:2 (runs without joker, length 1,2,3+)
#                                     b1:3 b2:3 b3:3 (runs with a joker, length 1,2,3+)
#       (b1 is always 0: a run starts with its first real card, see leading jokers)
#   k2: j:3 jokers used | gsum:4 | gmax:2 | low_s:2 x 4 at bit 9 (aces used at value 1)
#
# High aces: when aces may be high, value 1 only starts runs (A-2-3...); every other ace,
# groups of aces included, is placed at value 14, where the aces not used low are
# available (and the table's aces not used low must be used).
# ---------------------------------------------------------------------------------------
cdef struct Node:
    uint64_t k1
    uint64_t k2
    int64_t val
    skey sec        # the tie-break key of the cards used so far (_key_plan)
    int32_t prev
    uint32_t hbits  # the high half of _hash(k1, k2) (the dominance pass's bitmap of keys)
    uint64_t dec

cdef enum:
    # at most this many states per solve (about 400 MB); beyond it the solve reports -4
    # instead of exhausting memory (seen only with very large hands and jokers)
    MAX_STATES = 1 << 23
    MAXV = 14
    MAX_LAYERS = 5 * MAXV + 2
    GROUP_PRUNE_FROM = 4096   # layers at least this large are pruned after the group step
    MIN_SLOTS = 256           # the smallest hash table a layer uses (a power of two)
    KBITS = 1024              # words of the dominance pass's bitmap of keys (64 bits each),
                              # the fewest; a large layer takes more (_kbits_fit) ...
    KBITS_MAX = 1 << 21       # ... up to 16 MB
    PLIST_CAP = 1024          # distinct suit patterns the dominance pass lists in a suit

cdef struct Impl:
    Node* nodes
    uint8_t* need   # need[i]: the jokers state i's open runs need (_joker_need.pxi), kept
                    # in the searches with jokers where the need test is on
    int n_nodes
    int cap_nodes
    int32_t* slots
    int hcap        # the hash table in use: slots[0 .. hcap) (a power of two) ...
    int hcap_alloc  # ... of those allocated (the table shrinks to the layer, see _open_layer)
    int layer_start[MAX_LAYERS + 1]
    int n_layers
    # (an entry of an earlier layer of the sweep, its index below the layer's start,
    # reads as empty; those of an earlier sweep are cleared: _sweep, _rehash)
    # problem data for the current call
    int must[4][16]
    int avail[4][16]
    int64_t w[4][16]
    int64_t jw[16]
    int jt          # table jokers (must be used)
    int jtot        # table + hand jokers
    int limited     # 1: one joker per meld at most
    int merged      # runs counted by length only, whatever jokers they hold (jokers
                    # unlimited; or the relaxation of one joker per meld, see _solve_one)
    int V           # last value (13 or 14)
    int ace_high
    int64_t lb      # a value already achieved: states that cannot beat it are dropped
    int64_t rest[16][4]   # most weight the cards after (value, suit) can still add
    int64_t jwmax   # heaviest joker weight
    int64_t stats[8]   # debug: states made by each sweep of the last solve
    int64_t stats_lb[8]
    int stats_high[8]
    int64_t stats_best[8]   # the best final value each sweep found (-1: none)
    int stats_merged[8]
    int n_sweeps
    void* moves     # the suit step's moves by pattern (MoveCache, _suit_moves.pxi)
    int moves_valid # 0: the problem changed since they were made (a new _solve_exact):
                    # the next sweep forgets them
    int mirror      # 1 while the mirrored position is solved (_sec_weights)
    skey best_sec   # the tie-break key of the best final state of the last sweep
    int tie         # 1: a state may reach lb exactly and still win on its key (_tie_lost)
    int capped      # 1: (while tie) no partition weighs more than lb (it is the relaxation's
                    # value, ub): every state is compared on its key (joker searches only)
    skey tie_sec    # ... if its key can pass this one
    u128 secrest[16][4]   # most key the cards after (value, suit) can add (aces at 14 and
                          # jokers aside, see _tie_lost)
    skey sw[4][16]  # the tie-break key of one card of suit s at value v (_sec_weights)
    skey keyw[NCARD]   # ... of one copy of each card, by its own id (_key_plan)
    int64_t ub      # no partition weighs more (-1: not known), see _solve_one
    skey ub_sec     # ... and none of that weight has a higher tie-break key, when
    int ub_keyed    # ub_keyed (_relax_key.pxi)
    skey ans_sec    # the tie-break key of the answer of the last _solve_exact
    int all_only    # 1: only a partition placing everything is asked for (Solver.place_all):
                    # the deepening stops after its first sweep (D = 0)
    int key_placed  # 1: no melds asked for: the placed cards are read from the answer's
                    # tie-break key, the melds not rebuilt (_key_placed.pxi)
    int melds_free  # 1: no melds asked for (Solver.solve_direct): the dominance pass of the
                    # searches with jokers is scoped by the layer's size (_scope_fixed)
    uint64_t low_decs[MAX_LAYERS + 1]   # the aces-low answer's path (_solve_exact)
    int rlow                   # what the relaxation's aces-low search tells (RL_*,
    int64_t rlow_val           # _relax_low.pxi) and its answer's value and key
    skey rlow_sec
    int64_t aces_low2[2][16]   # _aces_left of suits 0-1 and 2-3 by their aces used low
    u128 seclow2[2][16]        # ... and their part of _tie_left (_set_secrest)
    uint64_t pats[4][512]      # _prune_dominated: the suit patterns its layer holds (all 0
                               # between passes)
    uint64_t* kbits            # ... and a bit for each key it holds, by hash (all 0 between
                               # passes)
    int kwords                 # ... of its words, those in use (a power of two, _kbits_fit)
    int kalloc                 # ... and those allocated
    uint64_t cands[4][512]     # ... the patterns held that some rule may look up (all 0
                               # between passes)
    uint16_t plist[4][PLIST_CAP]   # ... the distinct patterns held, as first seen
    int n_plist[4]             # (-1: more than PLIST_CAP, not listed)
    void* arr                  # the canonical arrangement's work space (_arrange.pxi)
    int64_t lb_drops           # the moves the last sweep dropped by its bound (_bound_drop)


cdef inline uint64_t _hash(uint64_t a, uint64_t b) noexcept nogil:
    cdef uint64_t h = a * <uint64_t>0x9E3779B97F4A7C15ULL ^ (b + <uint64_t>0x632BE59BD9B4E019ULL)
    h ^= h >> 29
    h *= <uint64_t>0xBF58476D1CE4E5B9ULL
    h ^= h >> 32
    return h


cdef int _grow_nodes(Impl* im) noexcept nogil:
    cdef int cap = im.cap_nodes * 2
    if im.cap_nodes >= _STATE_LIMIT:
        return -4     # refuse to grow past the state limit (see MAX_STATES)
    cdef Node* p = <Node*> realloc(im.nodes, cap * sizeof(Node))
    if p == NULL:
        return -1
    im.nodes = p
    cdef uint8_t* q = <uint8_t*> realloc(im.need, cap * sizeof(uint8_t))
    if q == NULL:
        return -1
    im.need = q
    im.cap_nodes = cap
    return 0


cdef void _clear_slots(Impl* im) noexcept nogil:
    memset(im.slots, 0xFF, im.hcap * sizeof(int32_t))


cdef int _rehash(Impl* im, int newcap) noexcept nogil:
    cdef int32_t* s
    cdef int i, h, start = im.layer_start[im.n_layers]
    if newcap > im.hcap_alloc:
        s = <int32_t*> realloc(im.slots, newcap * sizeof(int32_t))
        if s == NULL:
            return -1
        im.slots = s
        im.hcap_alloc = newcap
    im.hcap = newcap
    _clear_slots(im)
    for i in range(start, im.n_nodes):
        h = <int>(_hash(im.nodes[i].k1, im.nodes[i].k2) & <uint64_t>(newcap - 1))
        while im.slots[h] >= 0:
            h = (h + 1) & (newcap - 1)
        im.slots[h] = i
    return 0


cdef inline skey _sec(const Node* nd) noexcept nogil:
    return nd.sec


cdef inline void _set_sec(Node* nd, skey sec) noexcept nogil:
    nd.sec = sec


cdef inline int _insert(Impl* im, uint64_t k1, uint64_t k2, int64_t val, skey sec,
                        int32_t prev, uint64_t dec, int need=0) noexcept nogil:
    """Add a state to the layer being built, or improve the one with the same key (a
    higher value, or the same value and a higher tie-break key: _sec_weights); need: the
    jokers its open runs need (a function of the key, kept for a new state)."""
    cdef int start = im.layer_start[im.n_layers]
    cdef int h, idx
    cdef Node* nd
    cdef uint64_t hk
    if (im.n_nodes - start + 1) * 4 > im.hcap:   # (at most a quarter full: _fit_slots)
        if _rehash(im, im.hcap * 2) < 0:
            return -1
    hk = _hash(k1, k2)
    h = <int>(hk & <uint64_t>(im.hcap - 1))
    while True:
        idx = im.slots[h]
        if idx < start:
            break   # (empty, or an entry of an earlier layer)
        nd = &im.nodes[idx]
        if nd.k1 == k1 and nd.k2 == k2:
            if val > nd.val or (val == nd.val and sec > _sec(nd)):
                nd.val = val
                _set_sec(nd, sec)
                nd.prev = prev
                nd.dec = dec
            return 0
        h = (h + 1) & (im.hcap - 1)
    if im.n_nodes == im.cap_nodes:
        if _grow_nodes(im) < 0:
            return -4
    nd = &im.nodes[im.n_nodes]
    nd.k1 = k1
    nd.k2 = k2
    nd.val = val
    _set_sec(nd, sec)
    nd.prev = prev
    nd.hbits = <uint32_t>(hk >> 32)
    nd.dec = dec
    im.need[im.n_nodes] = <uint8_t>need
    im.slots[h] = im.n_nodes
    im.n_nodes += 1
    return 0


cdef inline int _find(Impl* im, uint64_t k1, uint64_t k2) noexcept nogil:
    """Index of the state with this key in the layer being built, or -1."""
    cdef int h = <int>(_hash(k1, k2) & <uint64_t>(im.hcap - 1))
    cdef int idx, start = im.layer_start[im.n_layers]
    while True:
        idx = im.slots[h]
        if idx < start:
            return -1
        if im.nodes[idx].k1 == k1 and im.nodes[idx].k2 == k2:
            return idx
        h = (h + 1) & (im.hcap - 1)


cdef inline bint _kbit(Impl* im, uint32_t hb) noexcept nogil:
    """The bit of the dominance pass's bitmap of keys for a key whose hash's high half is
    hb (Node.hbits)."""
    return (im.kbits[(hb >> 8) & (im.kwords - 1)] >> ((hb >> 2) & 63)) & 1


cdef inline bint _beats(Impl* im, uint64_t k1, uint64_t k2, int64_t val,
                        skey sec) noexcept nogil:
    """Does the layer hold the state (k1, k2) with at least this value and tie-break key
    (a higher value, or the same value and a key at least as high)?"""
    cdef uint64_t h = _hash(k1, k2)
    cdef int idx, start
    if not _kbit(im, <uint32_t>(h >> 32)):
        return False   # (no live state of the layer has this key: _pattern_filter.pxi)
    h &= <uint64_t>(im.hcap - 1)
    start = im.layer_start[im.n_layers]
    while True:
        idx = im.slots[h]
        if idx < start:
            return False
        if im.nodes[idx].k1 == k1 and im.nodes[idx].k2 == k2:
            return im.nodes[idx].val > val or (im.nodes[idx].val == val
                                               and _sec(&im.nodes[idx]) >= sec)
        h = (h + 1) & <uint64_t>(im.hcap - 1)


include "_pattern_filter.pxi"
include "_plain_prune.pxi"
include "_key_placed.pxi"
include "_high_only.pxi"
include "_left_out.pxi"
include "_direction.pxi"


cdef void _prune_dominated(Impl* im, int only) noexcept nogil:
    """Drop states whose open runs are worse than those of a state at least as good.

    `only`: compare within that suit only (-1: every suit).

    A run of length 3+ may end at any time, a longer run needs fewer cards than a
    shorter one, and a run without a joker may take one more (one joker per meld): so a
    state with one more 3+ run, or one run moved up a length bucket, or one run without a
    joker where the other has one, can do everything the other can. States with equal
    jokers used, group counts and reserved aces are compared, one step at a time.
    """
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, s, sh
    cdef uint64_t k1, k2, F, one
    cdef int64_t val
    cdef skey sec
    cdef int a1, a2, a3, b2, b3
    # merged with jokers, runs of length 2 and 3+ are counted in b2 / b3 (a2 / a3 only
    # past 7): the rules on a-counts would only look up keys that cannot exist
    cdef int a_rules = not (im.merged and im.jtot > 0)
    # (a rule whose dominating pattern no state of the layer holds is not looked up:
    # _pattern_filter.pxi)
    cdef uint64_t* P
    cdef int use_cands
    if im.jtot == 0 and only >= 0 and _PLAIN_PRUNE and _PAT_FILTER == 1:
        _prune_plain_suit(im, only)   # (the same pass, one suit, no jokers: _plain_prune.pxi)
        return
    _pats_fill(im, lo, hi, only)
    use_cands = _pats_cands(im, only, a_rules)
    # (no state's pattern with a rule to look up: nothing to drop, no state read)
    for i in range(lo, hi if use_cands != 2 else lo):
        val = im.nodes[i].val
        if val < 0:
            continue
        sec = _sec(&im.nodes[i])
        k1 = im.nodes[i].k1
        k2 = im.nodes[i].k2
        for s in range(4):
            if only >= 0 and s != only:
                continue
            sh = 15 * s
            F = (k1 >> sh) & 0x7FFF
            if F == 0:
                continue
            if use_cands and not _pat(im.cands[s], F):
                continue   # (no rule below would look a key up: _pattern_filter.pxi)
            a1 = <int>(F & 3)
            a2 = <int>((F >> 2) & 3)
            a3 = <int>((F >> 4) & 3)
            b2 = <int>((F >> 9) & 7)
            b3 = <int>((F >> 12) & 7)
            one = <uint64_t>1 << sh
            P = im.pats[s]
            if not a_rules:
                pass
            elif a3 < 3 and _pat(P, F + 16) and _beats(im, k1 + (one << 4), k2, val, sec):
                im.nodes[i].val = -1
                break
            elif a1 > 0 and a2 < 3 and _pat(P, F - 1 + 4) \
                    and _beats(im, k1 - one + (one << 2), k2, val, sec):
                im.nodes[i].val = -1
                break
            elif a2 > 0 and a3 < 3 and _pat(P, F - 4 + 16) \
                    and _beats(im, k1 - (one << 2) + (one << 4), k2, val, sec):
                im.nodes[i].val = -1
                break
            if im.jtot == 0:
                continue   # (no jokers: no run holds one)
            if b3 < 7 and _pat(P, F + 4096) and _beats(im, k1 + (one << 12), k2, val, sec):
                im.nodes[i].val = -1
                break
            if b2 > 0 and b3 < 7 and _pat(P, F - 512 + 4096) \
                    and _beats(im, k1 - (one << 9) + (one << 12), k2, val, sec):
                im.nodes[i].val = -1
                break
            if im.merged and a1 > 0 and b2 < 7 and _pat(P, F - 1 + 512) \
                    and _beats(im, k1 - one + (one << 9), k2, val, sec):
                im.nodes[i].val = -1   # (merged: length 2 is counted in b2)
                break
            if im.limited and not im.merged:
                if b2 > 0 and a2 < 3 and _pat(P, F - 512 + 4) \
                        and _beats(im, k1 - (one << 9) + (one << 2), k2, val, sec):
                    im.nodes[i].val = -1
                    break
                if b3 > 0 and a3 < 3 and _pat(P, F - 4096 + 16) \
                        and _beats(im, k1 - (one << 12) + (one << 4), k2, val, sec):
                    im.nodes[i].val = -1
                    break
    _pats_clear(im, lo, hi, only)


cdef inline void _open_layer(Impl* im) noexcept nogil:
    """Start a new layer (the hash entries of the previous one read as empty: their
    indices are below the new layer's start)."""
    cdef int n = im.n_nodes - im.layer_start[im.n_layers]
    _fit_slots(im, n)
    im.n_layers += 1
    im.layer_start[im.n_layers] = im.n_nodes


cdef inline void _fit_slots(Impl* im, int n) noexcept nogil:
    """With no entry in the hash table: use a table of about 8n slots (at least
    MIN_SLOTS), not a larger one left by an earlier layer, so that the probes of a small
    layer stay in a few cache lines (a layer that outgrows it is rehashed, see _insert).
    Which slot holds a state never changes which states are made, nor their order.
    (A table at most a quarter full: most probes then meet an empty slot at once. Against
    4n slots rehashed at half full, in one process: four experts' classic games 4%
    faster, 8n and 16n alike; 16n 6% on the largest tables, 8n kept for its memory.)"""
    cdef int cap = MIN_SLOTS
    while cap < 8 * n:
        cap *= 2
    if cap < im.hcap:
        im.hcap = cap


# decision word of a suit step: 4 bits per field
cdef enum:
    D_U = 0
    D_X1 = 1
    D_X2 = 2
    D_X3 = 3
    D_Y3 = 4
    D_P2 = 5
    D_P3 = 6
    D_Q3 = 7
    D_N0 = 8
    D_N1 = 9
    D_NL = 10
    D_XL = 11
    D_R = 12

cdef inline uint64_t _dset(uint64_t d, int field, int v) noexcept nogil:
    return d | (<uint64_t>v << (4 * field))

cdef inline int _dget(uint64_t d, int field) noexcept nogil:
    return <int>((d >> (4 * field)) & 15)


cdef inline bint _group_ok(int gsum, int gmax, int jg, int limited) noexcept nogil:
    """Can gsum real cards (at most gmax of one suit) and jg jokers form groups?

    k groups of 3-4 cards, distinct suits, >= 1 real card each (>= 2 when one joker per
    meld at most). With the real counts per group balanced (differing by at most one),
    a suit with g_s <= k copies always fits (Gale-Ryser), and the jokers fill each group
    to 3..4 within the per-meld limit; so the conditions below are exact.
    """
    cdef int k, minreal
    if gsum == 0:
        return jg == 0
    minreal = 2 if limited else 1
    k = gmax if gmax > 1 else 1
    while k <= gsum:
        if minreal * k <= gsum and gsum <= 4 * k and 3 * k <= gsum + jg \
                and gsum + jg <= 4 * k and (not limited or jg <= k):
            return True
        k += 1
    return False


cdef inline bint _groups_possible(int gsum, int gmax, int more, int jokers,
                                  int limited) noexcept nogil:
    """Can the cards set aside for groups still be completed by later suits and jokers?"""
    cdef int gs, jg
    for gs in range(gsum, gsum + more + 1):
        for jg in range(jokers + 1):
            if _group_ok(gs, gmax, jg, limited):
                return True
    return False


# _groups_possible for every argument (gsum, more <= 15; gmax <= 3; jokers <= 7), looked
# up in the innermost loop of _suit_step
cdef uint8_t _GP[2][16][4][16][8]
# _GP[0][gsum][gmax][more][0] (no jokers) as one word per `more`: bit 4 * gsum + gmax
cdef uint64_t _GP_PLAIN[16]
# _group_ok for every argument (gsum <= 15, gmax <= 3, jokers <= 7), looked up in _group_step
cdef uint8_t _GOK[2][16][4][8]


cdef void _init_tables() noexcept nogil:
    cdef int lim, gs, gm, mo, jk
    for lim in range(2):
        for gs in range(16):
            for gm in range(4):
                for jk in range(8):
                    _GOK[lim][gs][gm][jk] = _group_ok(gs, gm, jk, lim)
                for mo in range(16):
                    for jk in range(8):
                        _GP[lim][gs][gm][mo][jk] = _groups_possible(gs, gm, mo, jk, lim)
    for mo in range(16):
        _GP_PLAIN[mo] = 0
        for gs in range(16):
            for gm in range(4):
                if _GP[0][gs][gm][mo][0]:
                    _GP_PLAIN[mo] |= <uint64_t>1 << (4 * gs + gm)


_init_tables()


cdef int _group_k(int gsum, int gmax, int jg, int limited) noexcept nogil:
    cdef int k, minreal = 2 if limited else 1
    k = gmax if gmax > 1 else 1
    while k <= gsum:
        if minreal * k <= gsum and gsum <= 4 * k and 3 * k <= gsum + jg \
                and gsum + jg <= 4 * k and (not limited or jg <= k):
            return k
        k += 1
    return 0


cdef inline int _later(Impl* im, int v, int s) noexcept nogil:
    """Real cards the suits after s can still give to the groups of value v."""
    cdef int t, p = 1 if (v == 14 and im.ace_high) else v, n = 0
    for t in range(s + 1, 4):
        n += im.avail[t][p]
    return n


cdef inline void _cards_here(Impl* im, int v, int s, int low, int* m, int* A) noexcept nogil:
    """m, A: how many cards of suit s at value v must be / may be used.

    With aces high, value 1 only starts runs and its table aces may instead be used at 14,
    where the aces not used low (`low` of them were) are the ones left."""
    m[0] = im.must[s][v]
    A[0] = im.avail[s][v]
    if v == 14 and im.ace_high:
        m[0] = im.must[s][1] - low if im.must[s][1] > low else 0
        A[0] = im.avail[s][1] - low
    elif v == 1 and im.ace_high:
        m[0] = 0


cdef bint _tie_lost(Impl* im, int64_t bound, skey sec, uint64_t k2, int v,
                    int s) noexcept nogil:
    """Can a state whose value is at most `bound` (<= im.lb), whose tie-break key is sec
    after (v, s), not win? Yes below im.lb; at im.lb only while equal values are compared
    (im.tie: the aces-high search after the aces-low one) and when every card still to
    come (secrest, the aces left at 14, every joker) cannot lift its key above
    im.tie_sec, the aces-low answer's."""
    if bound < im.lb or not im.tie:
        return True
    return <u128>sec + _tie_left(im, k2, v, s) <= <u128>im.tie_sec


cdef inline bint _bound_drop(Impl* im, int64_t bound, skey sec, uint64_t k2, int v,
                             int s) noexcept nogil:
    """_tie_lost, counted in im.lb_drops when it drops the move (a deepening's sweep that
    found nothing and dropped nothing by its bound proves there is no partition at all:
    _deepening)."""
    if _tie_lost(im, bound, sec, k2, v, s):
        im.lb_drops += 1
        return True
    return False


cdef inline u128 _tie_left(Impl* im, uint64_t k2, int v, int s) noexcept nogil:
    """The most tie-break key the cards after (v, s) can add to a state of this k2
    (_tie_lost): secrest, the aces left at 14, every joker."""
    cdef int t, first
    cdef u128 left = im.secrest[v][s] + <u128>im.jtot * im.keyw[JOKER]   # (jokers: last)
    if im.ace_high:
        first = (s + 1) if v == 14 else 0
        if first == 0:   # every suit: two lookups by the aces used low (_set_secrest)
            return left + im.seclow2[0][(k2 >> 9) & 15] + im.seclow2[1][(k2 >> 13) & 15]
        for t in range(first, 4):
            left += <u128>(im.avail[t][1] - <int>((k2 >> (9 + 2 * t)) & 3)) * im.sw[t][1]
    return left


include "_joker_need.pxi"
include "_suit_moves.pxi"
include "_group_supply.pxi"
include "_relax_key.pxi"
include "_relax_low.pxi"


cdef int _suit_step(Impl* im, int v, int s) noexcept nogil:
    """Expand every state of the last layer by the choices for suit s at value v (the
    moves of its pattern in suit s, see _suit_moves.pxi)."""
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, t, sh = 15 * s, j, gsum, gmax, low, m, A, JL, later, gnew, gmaxnew, need = 0
    cdef int acelow = (v == 1 and im.ace_high), need_on = _JOKER_NEED != 0
    cdef int nn = 0
    cdef SupplyCache sc
    cdef Supply* sup = NULL
    cdef Supply* asup = NULL
    cdef int supply_on = need_on and _GROUP_SUPPLY != 0
    cdef int must_later = _must_later(im, v, s)
    cdef int aces_on = supply_on and _GROUP_SUPPLY != 2 and 2 <= v <= 11 and _aces_asked(im)
    cdef uint64_t k1, k2, nk1, nk2, keep1 = ~(<uint64_t>0x7FFF << sh)
    cdef int64_t val, al, rest = im.rest[v][s], w14 = im.w[s][14], bound
    cdef skey sec, bsec, sw = im.sw[s][v]
    cdef MoveCache* mc = <MoveCache*> im.moves
    cdef MoveSlot* slot
    cdef Move* mv
    cdef Move* mvs
    cdef uint32_t step_key = _move_step_key(im, v, s)
    # (what the moves read, in locals: an insert may move the states, and writes memory
    # the compiler cannot tell from these)
    cdef int64_t lb = im.lb, jwmax = im.jwmax, base
    cdef int capped = im.capped, kept = _NEED_KEPT
    cdef const uint8_t* gp
    _open_layer(im)
    if _MOVE_LISTS == 2:
        moves_reset(mc)   # (debug: the moves of every suit step anew)
    later = _later(im, v, s)
    # the groups' table of this step: _GP[limited][gnew][gmaxnew][later][jokers left]
    gp = &_GP[im.limited][0][0][later][0]
    if supply_on:
        _cache_open(im, &sc, v, s + 1)   # (_group_supply.pxi)
    for i in range(lo, hi):
        if im.nodes[i].val < 0:
            continue
        k1 = im.nodes[i].k1
        k2 = im.nodes[i].k2
        bsec = _sec(&im.nodes[i])
        j = <int>(k2 & 7)
        gsum = <int>((k2 >> 3) & 15)
        gmax = <int>((k2 >> 7) & 3)
        low = <int>((k2 >> (9 + 2 * s)) & 3)
        JL = im.jtot - j
        _cards_here(im, v, s, low, &m, &A)
        if _MOVE_LISTS == 0:
            moves_reset(mc)   # (debug: walk the choices again for every state)
        slot = moves_of(mc, im, v, s, step_key, (k1 >> sh) & 0x7FFF, JL, m, A)
        if slot == NULL:
            return -4
        # aces still to come at 14 (those used low at value 1 are subtracted below)
        al = _aces_left(im, k2, v, s) if lb >= 0 else 0
        base = im.nodes[i].val
        if need_on:
            need = _need_but(im, i, k1, k2, v, s, kept)   # (the suits but s: _joker_need.pxi)
            sup = NULL   # (made once a state, when a move asks)
            if aces_on:
                asup = _aces_at(im, &sc, k2)
        mvs = mc.moves + slot.off
        for t in range(slot.n):
            mv = &mvs[t]
            gnew = gsum + mv.g
            gmaxnew = gmax if gmax > mv.g else mv.g
            if gnew > 0 and not gp[gnew * 512 + gmaxnew * 128 + JL - mv.nJ]:
                continue
            if need_on:
                nn = need + (mv.sn if mv.sn != SN_ASK and kept != 0
                             else _suit_need(im, s, mv.F, v + 1, k2))
                if _need_fails(nn, JL - mv.nJ):
                    continue   # (its open runs need more jokers than are left)
                if supply_on and (gnew > 0 or must_later):
                    if sup == NULL:
                        sup = _supply_at(im, &sc, k1, k2, v)
                    if _starved(im, sup, gnew, gmaxnew, JL - mv.nJ - nn):
                        continue   # (the suits to come cannot make its groups)
                if aces_on and asup.D > 0 \
                        and _starved(im, asup, 0, 0, JL - mv.nJ - (nn if v <= 9 else 0)):
                    continue   # (the table's aces left for 14 cannot all be placed)
            val = base + mv.dval
            bound = val + rest + (JL - mv.nJ) * jwmax + al - (mv.u * w14 if acelow else 0)
            if lb >= 0 and (bound <= lb or capped) \
                    and _bound_drop(im, bound, bsec + <skey>mv.u * sw, k2, v, s):
                continue   # cannot beat the known value
            nk1 = (k1 & keep1) | (<uint64_t>mv.F << sh)
            nk2 = (k2 & ~(<uint64_t>0x1FF)) | <uint64_t>(j + mv.nJ) | (<uint64_t>gnew << 3) \
                | (<uint64_t>gmaxnew << 7)
            if acelow:
                nk2 |= <uint64_t>mv.u << (9 + 2 * s)
            sec = bsec + <skey>mv.u * sw
            if _insert(im, nk1, nk2, val, sec, i, mv.dec, nn) < 0:
                return -4
    return 0


include "_plain_moves.pxi"


cdef int _suit_step_plain(Impl* im, int v, int s) noexcept nogil:
    """_suit_step without jokers (none on the table or in the hand): the same choices,
    with every run of length 1 or 2 going on with a real card; each state takes the
    list of its case (_plain_moves.pxi), the walk's moves in the walk's order."""
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, t, end, sh = 15 * s, gsum, gmax, low, m, A, gnew, gmaxnew, later, sub, u, g
    cdef int last = (v == im.V), next_dead, next2_dead
    cdef int acelow = (v == 1 and im.ace_high), bounded = im.lb >= 0
    cdef uint64_t k1, k2, F, keep1, base2, dbase, nk2, gp
    cdef int64_t val, base, wv = im.w[s][v], al, w14 = im.w[s][14], rest = im.rest[v][s]
    cdef int64_t lb = im.lb, bound
    cdef skey sec, bsec, sw = im.sw[s][v]
    # _tie_lost by parts: the key the cards to come can add is the same for every move of
    # a state (its k2), so it is made once, at the first move that asks it
    cdef int tie = im.tie, have_left
    cdef u128 left = 0, tie_sec = <u128>im.tie_sec
    cdef int sh2 = 4 * (D_P2 if im.merged else D_X2), sh3 = 4 * (D_P3 if im.merged else D_X3)
    cdef int shlow = 9 + 2 * s
    cdef PMove mv
    if _PLAIN_MOVES == 0:
        return _suit_step_plain_walk(im, v, s)
    _open_layer(im)
    next_dead = 1 if (v == im.V or im.avail[s][v + 1] == 0) else 0
    next2_dead = 1 if (next_dead or v + 1 == im.V or im.avail[s][v + 2] == 0) else 0
    # runs of length 1-2 may stay open only if the next values can take them
    sub = (0 if (last or next_dead) else (1 if next2_dead else 2)) * 2 + acelow
    later = _later(im, v, s)
    gp = _GP_PLAIN[later]
    keep1 = ~(<uint64_t>0x7FFF << sh)
    # (the cards here depend on the state only at 14 with aces high: the aces used low)
    cdef int per_state = v == 14 and im.ace_high
    _cards_here(im, v, s, 0, &m, &A)
    for i in range(lo, hi):
        base = im.nodes[i].val
        if base < 0:
            continue
        bsec = _sec(&im.nodes[i])
        k1 = im.nodes[i].k1
        k2 = im.nodes[i].k2
        F = (k1 >> sh) & 0x3F
        if per_state:
            low = <int>((k2 >> shlow) & 3)
            _cards_here(im, v, s, low, &m, &A)
        t = (<int>F * 16 + m * 4 + A) * 6 + sub
        end = _PM_OFF[t + 1]
        t = _PM_OFF[t]
        if t == end:
            continue
        gsum = <int>((k2 >> 3) & 15)
        gmax = <int>((k2 >> 7) & 3)
        al = _aces_left(im, k2, v, s) if bounded else 0
        have_left = 0
        k1 &= keep1
        base2 = k2 & ~(<uint64_t>0x1FF)
        dbase = ((F & 3) << (4 * D_X1)) | (((F >> 2) & 3) << sh2)
        while t < end:
            mv = _PM[t]
            t += 1
            u = mv & 3
            val = base + u * wv
            if bounded:
                bound = val + rest + al - (u * w14 if acelow else 0)
                if bound <= lb:   # (_bound_drop(im, bound, bsec + u * sw, k2, v, s))
                    if bound < lb or not tie:
                        im.lb_drops += 1
                        continue
                    if not have_left:
                        left = _tie_left(im, k2, v, s)
                        have_left = 1
                    if <u128>(bsec + <skey>u * sw) + left <= tie_sec:
                        im.lb_drops += 1
                        continue
            g = (mv >> 2) & 3
            gnew = gsum + g
            gmaxnew = gmax if gmax > g else g
            if gnew > 0 and not (gp >> (4 * gnew + gmaxnew)) & 1:
                continue
            nk2 = base2 | (<uint64_t>gnew << 3) | (<uint64_t>gmaxnew << 7)
            if acelow:
                nk2 |= <uint64_t>u << shlow
            sec = bsec + <skey>u * sw
            if _insert(im, k1 | (<uint64_t>((mv >> 4) & 63) << sh), nk2, val, sec, i,
                       dbase | <uint64_t>u | (<uint64_t>((mv >> 10) & 3) << sh3)
                       | (<uint64_t>((mv >> 12) & 3) << (4 * D_N0))) < 0:
                return -4
    return 0


cdef int _suit_step_plain_walk(Impl* im, int v, int s) noexcept nogil:
    """_suit_step_plain walking the choices for every state (the reference of its move
    lists, see _set_plain_moves)."""
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, sh = 15 * s
    cdef uint64_t k1, k2, F, nk1, nk2, dec
    cdef int a1, a2, a3, gsum, gmax, low, m, A, u, x3, e3, n0, R, R0, g
    cdef int na1, na2, na3, umin, umax, gnew, gmaxnew, later, short_ok, one_ok
    cdef int last = (v == im.V), next_dead, next2_dead, merged = im.merged
    cdef int64_t val, base, wv = im.w[s][v], al, w14 = im.w[s][14]
    cdef int acelow = (v == 1 and im.ace_high)
    cdef skey sec, bsec, sw = im.sw[s][v]
    _open_layer(im)
    next_dead = 1 if (v == im.V or im.avail[s][v + 1] == 0) else 0
    next2_dead = 1 if (next_dead or v + 1 == im.V or im.avail[s][v + 2] == 0) else 0
    # runs of length 1-2 may stay open only if the next values can take them
    short_ok = not (last or next_dead)
    one_ok = not (last or next_dead or next2_dead)
    later = _later(im, v, s)
    for i in range(lo, hi):
        if im.nodes[i].val < 0:
            continue
        k1 = im.nodes[i].k1
        k2 = im.nodes[i].k2
        F = (k1 >> sh) & 0x7FFF
        a1 = <int>(F & 3)
        a2 = <int>((F >> 2) & 3)
        a3 = <int>((F >> 4) & 3)
        gsum = <int>((k2 >> 3) & 15)
        gmax = <int>((k2 >> 7) & 3)
        low = <int>((k2 >> (9 + 2 * s)) & 3)
        _cards_here(im, v, s, low, &m, &A)
        umin = m
        umax = A
        R0 = a1 + a2     # runs of length 1 and 2 must go on
        if R0 > umax or (a1 > 0 and not short_ok):
            continue   # (a run of length 1 becomes one of length 2: it needs v+1)
        al = _aces_left(im, k2, v, s) if im.lb >= 0 else 0
        base = im.nodes[i].val
        for u in range(umin if umin > R0 else R0, umax + 1):
            val = base + u * wv
            if im.lb >= 0 and val + im.rest[v][s] + al \
                    - (u * w14 if acelow else 0) <= im.lb \
                    and _bound_drop(im, val + im.rest[v][s] + al - (u * w14 if acelow else 0),
                                  _sec(&im.nodes[i]) + <skey>u * sw, k2, v, s):
                continue
            for x3 in range(a3 + 1):
                R = R0 + x3
                if R > u:
                    break
                e3 = a3 - x3
                for n0 in range(u - R + 1):
                    if n0 > 0 and e3 > 0:
                        break  # continuing the ended run dominates
                    g = u - R - n0
                    na1 = n0
                    na2 = a1
                    na3 = a2 + x3
                    if (na1 + na2) > 0 and not short_ok:
                        continue
                    if na1 > 0 and not one_ok:
                        continue
                    if na3 > 3:
                        continue
                    gnew = gsum + g
                    gmaxnew = gmax if gmax > g else g
                    if gnew > 0 and not _GP[0][gnew][gmaxnew][later][0]:
                        continue
                    if v == 1 and im.ace_high and g > 0:
                        continue   # groups of aces are made at value 14
                    F = (<uint64_t>na1 | (<uint64_t>na2 << 2) | (<uint64_t>na3 << 4))
                    nk1 = (k1 & ~(<uint64_t>0x7FFF << sh)) | (F << sh)
                    nk2 = k2 & ~(<uint64_t>0x1FF)
                    nk2 |= <uint64_t>gnew << 3
                    nk2 |= <uint64_t>gmaxnew << 7
                    if acelow:
                        nk2 |= <uint64_t>u << (9 + 2 * s)
                    # (the rebuild reads runs by length only when merged: P2 / P3)
                    dec = (<uint64_t>u | (<uint64_t>a1 << (4 * D_X1))
                           | (<uint64_t>a2 << (4 * (D_P2 if merged else D_X2)))
                           | (<uint64_t>x3 << (4 * (D_P3 if merged else D_X3)))
                           | (<uint64_t>n0 << (4 * D_N0)))
                    sec = _sec(&im.nodes[i]) + <skey>u * sw
                    if _insert(im, nk1, nk2, val, sec, i, dec) < 0:
                        return -4
    return 0


cdef inline int _avail_at(Impl* im, int v, int s) noexcept nogil:
    """The most cards of suit s a suit step at value v may use (see _cards_here)."""
    return im.avail[s][1] if (v == 14 and im.ace_high) else im.avail[s][v]


cdef int _copy_step(Impl* im, int v, int s) noexcept nogil:
    """The suit step (s = 0..3) or the group step (s = 4) of value v where no state can do
    anything but go on unchanged, done as a copy of the layer (1; 0: not such a step,
    nothing done; < 0: no memory).

    A suit step is such a step where suit s has no card at v and no state holds an open
    run of that suit: the only choice is the empty one (no card, no joker, no run goes on
    or starts), the same key and value, decision 0. A group step is one where no suit has
    a card at v (or v = 1 with aces high: aces form groups at 14): nothing was set aside
    for groups, so no group and no joker joins one. The states made are exactly those of
    _suit_step_plain, _suit_step and _group_step, in the same order, with the same checks
    (the groups still possible and to come, the aces left for 14, the bound on the
    weight to come); every key is new, so the
    hash table is not needed, and the dominance pass that follows a layer of fewer than
    4,096 states looks at suit s only (where no state has a run) or at none (the group
    step): it would drop nothing and is not run. Larger layers take the usual steps."""
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, t, j, JL, gsum, gmax, later = 0, sh = 15 * s
    cdef uint64_t k2
    cdef int64_t val, rest, bound
    cdef Node* nd
    # (the groups to come and the aces left for 14, as _suit_step tests them: _group_supply.pxi)
    cdef bint sup_on = s < 4 and im.jtot > 0 and _JOKER_NEED != 0 and _GROUP_SUPPLY != 0
    cdef bint must_later = sup_on and _must_later(im, v, s)
    cdef bint aces_on = sup_on and _GROUP_SUPPLY != 2 and 2 <= v <= 11 and _aces_asked(im)
    cdef SupplyCache sc
    if not _COPY_STEPS or (hi - lo >= (_ALL_FROM if s < 4 else _GROUP_FROM)
                           and not _scope_fixed(im)):
        return 0
    if s < 4:
        if _avail_at(im, v, s) > 0:
            return 0
        if im.jtot > 0 or v > 1:
            if im.jtot > 0 or _avail_at(im, v - 1, s) > 0:
                # (without jokers no run is open past a value without cards of its suit)
                for i in range(lo, hi):
                    if im.nodes[i].val >= 0 and (im.nodes[i].k1 >> sh) & 0x7FFF:
                        return 0
        later = _later(im, v, s)
        rest = im.rest[v][s]
        if sup_on:
            _cache_open(im, &sc, v, s + 1)
    else:
        if not (v == 1 and im.ace_high):
            for t in range(4):
                if _avail_at(im, v, t) > 0:
                    return 0
        rest = im.rest[v][3]
    _open_layer(im)
    for i in range(lo, hi):
        val = im.nodes[i].val
        if val < 0:
            continue
        k2 = im.nodes[i].k2
        j = <int>(k2 & 7)
        JL = im.jtot - j
        if s < 4:
            gsum = <int>((k2 >> 3) & 15)
            gmax = <int>((k2 >> 7) & 3)
            if gsum > 0 and not (_GP[0][gsum][gmax][later][0] if im.jtot == 0
                                 else _GP[im.limited][gsum][gmax][later][JL]):
                continue
            if sup_on and _unchanged_starved(im, &sc, im.nodes[i].k1, k2, v, s, gsum, gmax,
                                             JL, must_later, aces_on,
                                             _need_but(im, i, im.nodes[i].k1, k2, v, s,
                                                       _NEED_KEPT)):
                continue
            bound = val + rest + JL * im.jwmax + _aces_left(im, k2, v, s)
            if im.lb >= 0 and (bound <= im.lb or im.capped) \
                    and _bound_drop(im, bound, _sec(&im.nodes[i]), k2, v, s):
                continue
        else:
            bound = val + rest + JL * im.jwmax + _aces_left(im, k2, v, 3)
            if im.lb >= 0 and (bound <= im.lb or im.capped) \
                    and _bound_drop(im, bound, _sec(&im.nodes[i]), k2, v, 3):
                continue
            k2 = (k2 & ~(<uint64_t>0x1FF)) | <uint64_t>j
        if im.n_nodes == im.cap_nodes:
            if _grow_nodes(im) < 0:
                return -4
        nd = &im.nodes[im.n_nodes]
        nd.k1 = im.nodes[i].k1
        nd.k2 = k2
        nd.val = val
        nd.sec = im.nodes[i].sec
        nd.prev = i
        nd.hbits = im.nodes[i].hbits if k2 == im.nodes[i].k2 \
            else <uint32_t>(_hash(nd.k1, k2) >> 32)
        nd.dec = 0       # (not in the hash table, which holds nothing of this layer)
        im.need[im.n_nodes] = im.need[i]   # (suit s holds no open run: the same need)
        im.n_nodes += 1
    return 1


cdef int64_t _lead_extra_w(Impl* im, int v, int xl) noexcept nogil:
    """Weight of the extra leading jokers (beyond two) of one new run starting at v."""
    cdef int64_t t = 0
    cdef int i
    for i in range(3, 3 + xl):
        t += im.jw[v - i]
    return t


cdef int _group_step(Impl* im, int v) noexcept nogil:
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, j, gsum, gmax, jg, need = 0, jtot = im.jtot
    cdef int need_on = _JOKER_NEED != 0 and im.jtot > 0   # (the searches with jokers only)
    cdef int64_t bound, base, al, lb = im.lb, jwv = im.jw[v], rest = im.rest[v][3]
    cdef int64_t jwmax = im.jwmax
    cdef int capped = im.capped
    cdef uint64_t k1, k2, nk2
    cdef skey sec
    cdef const uint8_t* gok = &_GOK[im.limited][0][0][0]
    if im.jtot == 0 and _PLAIN_GROUPS:
        return _group_step_plain(im, v)   # (the same states, no jokers: _plain_groups.pxi)
    _open_layer(im)
    for i in range(lo, hi):
        base = im.nodes[i].val
        if base < 0:
            continue
        # (the state's fields in locals: an insert may move the states)
        k1 = im.nodes[i].k1
        k2 = im.nodes[i].k2
        sec = _sec(&im.nodes[i])
        j = <int>(k2 & 7)
        gsum = <int>((k2 >> 3) & 15)
        gmax = <int>((k2 >> 7) & 3)
        al = _aces_left(im, k2, v, 3) if lb >= 0 else 0
        if need_on:   # (every suit's from v + 1: the state's need, _joker_need.pxi)
            need = _need_but(im, i, k1, k2, v, 4, _NEED_KEPT)
        for jg in range(jtot - j + 1):
            if not gok[(gsum * 4 + gmax) * 8 + jg]:   # (_group_ok)
                continue
            if need_on and _need_fails(need, jtot - j - jg):
                continue   # (its open runs need more jokers than are left)
            nk2 = (k2 & ~(<uint64_t>0x1FF)) | <uint64_t>(j + jg)
            bound = base + jg * jwv + rest + (jtot - j - jg) * jwmax + al
            if lb >= 0 and (bound <= lb or capped) \
                    and _bound_drop(im, bound, sec, k2, v, 3):
                continue
            if _insert(im, k1, nk2, base + jg * jwv, sec, i, <uint64_t>jg, need) < 0:
                return -4
    return 0


# ---------------------------------------------------------------------------------------
# Rebuilding concrete melds from the decisions
# ---------------------------------------------------------------------------------------
cdef struct CRun:
    int suit
    int length
    int joker
    int open
    int n
    uint8_t cards[16]
    uint8_t stands[16]

cdef enum:
    MAX_RUNS = 64
    ANY = -1       # _pick / _continue: runs with or without a joker

cdef inline int _card_at(int s, int v) noexcept nogil:
    return s * 13 + (0 if v == 14 else v - 1)


cdef inline void _run_add(CRun* r, int card, int stands) noexcept nogil:
    r.cards[r.n] = <uint8_t>card
    r.stands[r.n] = <uint8_t>stands
    r.n += 1
    r.length += 1
    if card == JOKER:
        r.joker = 1


cdef int _emit(Witness* w, const uint8_t* cards, const uint8_t* stands, int n) noexcept nogil:
    cdef int i, pos
    if w.n_melds >= MAX_MELDS:
        return -1
    pos = w.start[w.n_melds]
    if pos + n > MAX_TABLE:
        return -1
    for i in range(n):
        w.cards[pos + i] = cards[i]
        w.stands[pos + i] = stands[i]
    w.n_melds += 1
    w.start[w.n_melds] = pos + n
    return 0


cdef int _pick(CRun* runs, int nr, int s, int lenb, int jok, int* out, int want) noexcept nogil:
    """Choose `want` open runs of suit s in bucket (lenb, jok) not yet chosen at this value."""
    cdef int i, got = 0, b
    if want == 0:
        return 0
    for i in range(nr):
        if got == want:
            break
        if runs[i].open != 1 or runs[i].suit != s or (jok != ANY and runs[i].joker != jok):
            continue
        b = runs[i].length if runs[i].length < 3 else 3
        if b != lenb:
            continue
        out[got] = i
        got += 1
    if got != want:
        return -1
    return got


cdef void _path_decs(Impl* im, int best, uint64_t* decs) noexcept nogil:
    """The decision word of every layer on the path to state `best` (decs[0..n_layers])."""
    cdef int idx = best, li = im.n_layers
    while li >= 0:
        decs[li] = im.nodes[idx].dec
        idx = im.nodes[idx].prev
        li -= 1


cdef int _rebuild(Impl* im, int best, Witness* w) noexcept nogil:
    """The melds of the partition that ends in state `best` of the last sweep."""
    cdef uint64_t decs[MAX_LAYERS + 1]
    _path_decs(im, best, decs)
    return _rebuild_decs(im, decs, im.V, w)


cdef int _rebuild_decs(Impl* im, const uint64_t* decs, int V, Witness* w) noexcept nogil:
    """The melds of a sweep over values 1..V from its path's decision words (_path_decs):
    what _rebuild reads, so that a sweep's answer can be rebuilt after a later sweep."""
    cdef int v, s, t, q, nr = 0
    cdef CRun runs[MAX_RUNS]
    cdef int gcount[4]
    cdef int nopen[4]     # open runs per suit
    cdef uint64_t d
    cdef int u, x1, x2, x3, y3, p2, p3, q3, n0, n1, nL, xl, c, k, jk
    if im.jtot == 0 and _PLAIN_REBUILD:
        return _rebuild_plain(im, decs, V, w)
    w.n_melds = 0
    w.start[0] = 0
    nopen[0] = nopen[1] = nopen[2] = nopen[3] = 0
    # layer 1 + 5*(v-1) + s: suit step; layer 5*v: group step
    for v in range(1, V + 1):
        for s in range(4):
            d = decs[5 * (v - 1) + s + 1]
            u = _dget(d, D_U)
            x1 = _dget(d, D_X1)
            x2 = _dget(d, D_X2)
            x3 = _dget(d, D_X3)
            y3 = _dget(d, D_Y3)
            p2 = _dget(d, D_P2)
            p3 = _dget(d, D_P3)
            q3 = _dget(d, D_Q3)
            n0 = _dget(d, D_N0)
            n1 = _dget(d, D_N1)
            nL = _dget(d, D_NL)
            xl = _dget(d, D_XL)
            c = _card_at(s, v)
            if u == 0 and nopen[s] == 0:
                gcount[s] = 0
                continue   # nothing of this suit here
            # mark the open runs of this suit as "not yet continued" (open == 1); a run
            # continued at this value becomes open == 2 until the suit is done
            # a1 runs: x1 real, rest joker
            if _continue(runs, nr, s, 1, 0, x1, c, c) < 0: return -1
            if im.jtot == 0:
                pass   # no jokers: no run goes on with one, none holds one
            elif _continue_all(runs, nr, s, 1, 0, JOKER, c) < 0: return -1
            if im.jtot == 0:
                if _continue(runs, nr, s, 2, 0, x2, c, c) < 0: return -1
                if _continue(runs, nr, s, 3, 0, x3, c, c) < 0: return -1
                if _continue(runs, nr, s, 2, ANY, p2, c, c) < 0: return -1
                if _continue(runs, nr, s, 3, ANY, p3, c, c) < 0: return -1
            elif not im.merged:
                if _continue(runs, nr, s, 2, 0, x2, c, c) < 0: return -1
                if _continue_all(runs, nr, s, 2, 0, JOKER, c) < 0: return -1
                if _continue(runs, nr, s, 3, 0, x3, c, c) < 0: return -1
                if _continue(runs, nr, s, 3, 0, y3, JOKER, c) < 0: return -1
            if im.jtot > 0:
                # (merged: runs by length only, whatever they hold: ANY)
                jk = ANY if im.merged else 1
                if _continue(runs, nr, s, 2, jk, p2, c, c) < 0: return -1
                if _continue_all(runs, nr, s, 2, jk, JOKER, c) < 0: return -1
                if _continue(runs, nr, s, 3, jk, p3, c, c) < 0: return -1
                if _continue(runs, nr, s, 3, jk, q3, JOKER, c) < 0: return -1
            # runs of this suit not continued end here (all have length >= 3)
            for t in range(nr if nopen[s] > 0 else 0):
                if runs[t].suit == s and runs[t].open == 1:
                    if runs[t].length < 3:
                        return -1
                    if _emit(w, runs[t].cards, runs[t].stands, runs[t].n) < 0: return -1
                    runs[t].open = 0
                    nopen[s] -= 1
                elif runs[t].suit == s and runs[t].open == 2:
                    runs[t].open = 1
            # new runs
            for t in range(n0 + n1 + nL):
                if nr >= MAX_RUNS: return -1
                runs[nr].suit = s
                runs[nr].length = 0
                runs[nr].joker = 0
                runs[nr].open = 1
                runs[nr].n = 0
                if t >= n0 + n1:
                    k = 2 + (xl if t == n0 + n1 else 0)
                elif t >= n0:
                    k = 1
                else:
                    k = 0
                for q in range(k, 0, -1):
                    _run_add(&runs[nr], JOKER, _card_at(s, v - q))
                _run_add(&runs[nr], c, c)
                nr += 1
                nopen[s] += 1
            gcount[s] = u - (x1 + x2 + x3 + p2 + p3) - n0 - n1 - nL
        # groups at value v
        if _rebuild_groups(im, w, v, gcount, <int>decs[5 * v]) < 0:
            return -1
    for t in range(nr):
        if runs[t].open:
            if runs[t].length < 3:
                return -1
            if _emit(w, runs[t].cards, runs[t].stands, runs[t].n) < 0: return -1
    return 0



cdef int _rebuild_groups(Impl* im, Witness* w, int v, const int* gcount, int jg) noexcept nogil:
    """The groups of value v (gcount[s] cards of each suit set aside for them, jg jokers),
    emitted as melds (0; -1: they form no groups)."""
    cdef int s, t, q, e, k, rem, best_g, tmp, gsum, gmax
    cdef int order[4]
    cdef int rsize[MAX_MELDS]
    cdef int jsize[MAX_MELDS]
    cdef int gsuits[MAX_MELDS][4]
    cdef uint8_t mc[16]
    cdef uint8_t ms[16]
    gsum = gcount[0] + gcount[1] + gcount[2] + gcount[3]
    gmax = 0
    for s in range(4):
        if gcount[s] > gmax:
            gmax = gcount[s]
    if gsum == 0:
        return 0 if jg == 0 else -1
    k = _group_k(gsum, gmax, jg, im.limited)
    if k <= 0 or k > MAX_MELDS:
        return -1
    for t in range(k):
        rsize[t] = gsum // k + (1 if t < gsum % k else 0)
        jsize[t] = 0
        for s in range(4):
            gsuits[t][s] = 0
    # suits in decreasing count, each to the groups with most room left
    for s in range(4):
        order[s] = s
    for s in range(4):
        for t in range(3 - s):
            if gcount[order[t]] < gcount[order[t + 1]]:
                tmp = order[t]
                order[t] = order[t + 1]
                order[t + 1] = tmp
    for q in range(4):
        s = order[q]
        for e in range(gcount[s]):
            best_g = -1
            for t in range(k):
                if gsuits[t][s] == 0 and _room(gsuits[t], rsize[t]) > 0:
                    if best_g < 0 or _room(gsuits[t], rsize[t]) > _room(gsuits[best_g], rsize[best_g]):
                        best_g = t
            if best_g < 0:
                return -1
            gsuits[best_g][s] = 1
    # jokers: first bring every group to 3, then add the rest where there is room
    rem = jg
    for t in range(k):
        while rsize[t] + jsize[t] < 3 and rem > 0:
            jsize[t] += 1
            rem -= 1
    for t in range(k):
        while rem > 0 and rsize[t] + jsize[t] < 4 and (not im.limited or jsize[t] < 1):
            jsize[t] += 1
            rem -= 1
    if rem != 0:
        return -1
    for t in range(k):
        q = 0
        for s in range(4):
            if gsuits[t][s]:
                mc[q] = <uint8_t>_card_at(s, v)
                ms[q] = mc[q]
                q += 1
        for s in range(4):
            if not gsuits[t][s] and q < rsize[t] + jsize[t]:
                mc[q] = JOKER
                ms[q] = <uint8_t>_card_at(s, v)
                q += 1
        if q < 3 or q != rsize[t] + jsize[t]:
            return -1
        if _emit(w, mc, ms, q) < 0: return -1
    return 0

cdef inline int _room(int* suits, int size) noexcept nogil:
    return size - (suits[0] + suits[1] + suits[2] + suits[3])


cdef int _continue(CRun* runs, int nr, int s, int lenb, int jok, int want, int card,
                   int stands) noexcept nogil:
    """Extend `want` open runs of bucket (lenb, jok) by one card; mark them continued."""
    cdef int sel[MAX_RUNS]
    cdef int i
    if want <= 0:
        return 0
    if _pick(runs, nr, s, lenb, jok, sel, want) < 0:
        return -1
    for i in range(want):
        _run_add(&runs[sel[i]], card, stands)
        runs[sel[i]].open = 2
    return 0


cdef int _continue_all(CRun* runs, int nr, int s, int lenb, int jok, int card,
                       int stands) noexcept nogil:
    """Extend every remaining open run of bucket (lenb, jok) by one card."""
    cdef int i, b
    cdef int idx[MAX_RUNS]
    cdef int n = 0
    for i in range(nr):
        if runs[i].open != 1 or runs[i].suit != s or (jok != ANY and runs[i].joker != jok):
            continue
        b = runs[i].length if runs[i].length < 3 else 3
        if b == lenb:
            idx[n] = i
            n += 1
    for i in range(n):
        _run_add(&runs[idx[i]], card, stands)
        runs[idx[i]].open = 2
    return 0


include "_plain_rebuild.pxi"
include "_low_reject.pxi"
include "_high_reject.pxi"
include "_plain_drop.pxi"
include "_plain_groups.pxi"
include "_arrange.pxi"


# ---------------------------------------------------------------------------------------
cdef long _FALLBACKS[1]   # debug count, see _relax_fallbacks (not thread-safe: a statistic)


cdef class Solver:
    """Exact solver with reusable work buffers (one per thread)."""

    def __cinit__(self):
        cdef Impl* im = <Impl*> malloc(sizeof(Impl))
        if im == NULL:
            raise MemoryError()
        memset(im, 0, sizeof(Impl))
        im.cap_nodes = 4096
        im.nodes = <Node*> malloc(im.cap_nodes * sizeof(Node))
        im.need = <uint8_t*> malloc(im.cap_nodes * sizeof(uint8_t))
        im.hcap = MIN_SLOTS
        im.hcap_alloc = MIN_SLOTS
        im.slots = <int32_t*> malloc(im.hcap * sizeof(int32_t))
        if im.nodes == NULL or im.need == NULL or im.slots == NULL:
            raise MemoryError()
        _clear_slots(im)
        self._impl = im
        im.moves = moves_new()
        if im.moves == NULL:
            raise MemoryError()
        im.ub = -1
        im.ub_keyed = 0
        im.ans_sec = 0
        im.rlow = RL_UNKNOWN
        im.kbits = <uint64_t*> calloc(KBITS, sizeof(uint64_t))
        if im.kbits == NULL:
            raise MemoryError()
        im.kwords = KBITS
        im.kalloc = KBITS
        im.arr = arrange_new()
        if im.arr == NULL:
            raise MemoryError()
        self._memo = malloc(sizeof(SolveMemo))
        if self._memo == NULL:
            raise MemoryError()
        memo_clear(<SolveMemo*> self._memo)

    def __dealloc__(self):
        cdef Impl* im = <Impl*> self._impl
        if im != NULL:
            moves_free(<MoveCache*> im.moves)
            arrange_free(<Arrange*> im.arr)
            free(im.kbits)
            free(im.nodes)
            free(im.need)
            free(im.slots)
            free(im)
        free(self._memo)

    cdef int64_t solve(self, const uint8_t* table, const uint8_t* hand,
                       const SolverRules* rules, const int32_t* card_w,
                       const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil:
        # inputs asked again (the same bytes) get the answer kept from the solve before
        cdef SolveMemo* memo = <SolveMemo*> self._memo
        cdef MemoKey key
        cdef MemoEntry* e
        cdef int64_t val
        if not _MEMO:
            return self.solve_direct(table, hand, rules, card_w, joker_w, placed, wit)
        memo_key(&key, table, hand, rules, card_w, joker_w,
                 <int64_t>_RELAX | ((_RELAX_BOUND + 1) << 1) | (_MOVE_LISTS << 3)
                 | (_COPY_STEPS << 5) | ((_JOKER_NEED + 1) << 8) | (_ARRANGE << 10)
                 | (_FIXED_SCOPE << 11) | ((_GROUP_SUPPLY + 1) << 12)
                 | ((_RELAX_KEY + 1) << 15) | ((_HIGH_REJECT + 1) << 17)
                 | ((_RELAX_LOW + 1) << 19) | ((_KEY_PLACED + 1) << 21)
                 | ((_HIGH_ONLY + 1) << 23) | ((_LEFT_OUT + 1) << 25)
                 | (<int64_t>_DIRECTION << 27) | (<int64_t>_DENSE_FIRST << 29)
                 | (<int64_t>(_DEEPEN_STOP + 1) << 30) | (<int64_t>_FREE_SCOPE << 32))
        e = memo_find(memo, &key)
        if e != NULL and (wit == NULL or e.melds):
            return memo_answer(e, placed, wit)
        if e == NULL:
            e = memo_slot(memo, &key)
        # (an entry solved without melds is solved again where they are asked for)
        e.used = 0
        val = self.solve_direct(table, hand, rules, card_w, joker_w, e.placed,
                                &e.wit if wit != NULL else NULL)
        if val >= -1:
            e.val = val
            e.used = 1
            e.melds = wit != NULL
        if val < 0:
            return val   # (-1: nothing written, as a solve writes nothing)
        return memo_answer(e, placed, wit)

    cdef int _left_out_answer(self, void* impl, const SolverRules* rules, int64_t best_val,
                              uint64_t best_sec, int low_states, int64_t* val,
                              uint64_t* sec) noexcept nogil:
        # The answer with aces high from the sets of hand cards a better partition could
        # leave out (_left_out.pxi): 1 and val, sec; 0 where the method does not apply (im
        # as it was); < -1 an error. Asks place_all of this solver: im's position is lost
        # once a set is asked (the caller returns the answer).
        cdef Impl* im = <Impl*> impl
        cdef LeftOut sets[LEFT_EXACT_CAP]
        cdef uint8_t cards[NCARD]
        cdef uint8_t empty[NCARD]
        cdef skey keyw[NCARD]
        cdef int n, i, r = 0, key_placed = im.key_placed, mirror = im.mirror
        cdef int melds_free = im.melds_free
        cdef int64_t W = 0
        cdef skey kall = 0
        n = _left_out_sets(im, best_val, best_sec, cards, sets, low_states, &W, &kall)
        if n < 0:
            return 0
        _LEFT_STATS[0] += 1
        memcpy(keyw, im.keyw, sizeof(keyw))
        memset(empty, 0, NCARD)
        for i in range(n):
            if sets[i].a >= 0:
                cards[sets[i].a] -= 1
            if sets[i].b >= 0:
                cards[sets[i].b] -= 1
            r = self.place_all(cards, empty, rules, _ONES, _ONES_J, NULL) if _LEFT_OUT > 0 else 1
            _LEFT_STATS[1] += 1   # (_LEFT_OUT -1, debug: the first set not rejected taken)
            if sets[i].a >= 0:
                cards[sets[i].a] += 1
            if sets[i].b >= 0:
                cards[sets[i].b] += 1
            if r != 0:
                if r == 1:
                    val[0] = W - sets[i].w
                    sec[0] = kall - sets[i].k
                break
        # (what the caller reads after the solve: the key's digits, the modes, the direction)
        memcpy(im.keyw, keyw, sizeof(keyw))
        im.key_placed = key_placed
        im.melds_free = melds_free
        im.mirror = mirror
        if r < 0:
            return r
        if r == 0:
            val[0] = best_val
            sec[0] = best_sec
        return 1

    cdef int place_all(self, const uint8_t* table, const uint8_t* hand,
                       const SolverRules* rules, const int32_t* card_w,
                       const int32_t* joker_w, Witness* wit) noexcept nogil:
        # Only whether table and every hand card split into melds: the search that
        # places everything (D = 0 of the deepening, with aces low, then high) and no
        # further; never from the memo. The weights must all be positive.
        cdef Impl* im = <Impl*> self._impl
        cdef uint8_t placed[NCARD]
        cdef int64_t val
        cdef int c
        im.all_only = 1
        val = self.solve_direct(table, hand, rules, card_w, joker_w, placed, wit)
        im.all_only = 0
        if val < -1:
            return <int>val
        if val < 0:
            return 0
        for c in range(NCARD):
            if placed[c] != hand[c]:
                return 0   # (a hand card no meld can hold was left out)
        return 1

    cdef int64_t solve_direct(self, const uint8_t* table, const uint8_t* hand,
                              const SolverRules* rules, const int32_t* card_w,
                              const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil:
        # ace low or high, never both (ace_high = 2): the search is the ace-high one (its
        # optimum is the same, see wit_split_wraps) and a 14-card run is laid as two
        cdef Impl* im = <Impl*> self._impl
        cdef int64_t val
        cdef int start = 0, end, c
        cdef uint8_t t2[NCARD]
        cdef uint8_t h2[NCARD]
        cdef uint8_t pl[NCARD]
        im.n_sweeps = 0
        # no melds asked for: the dominance pass of the searches with jokers by the layer's
        # size (_scope_fixed)
        im.melds_free = wit == NULL and _FREE_SCOPE
        end = _key_plan(im, table, hand, 0)
        if end == NCARD:
            # no melds asked for: the placed cards from the answer's key (_key_placed.pxi)
            im.key_placed = _KEY_PLACED and _key_placed_ok(table, hand, placed, wit)
            val = self._solve_dir(table, hand, rules, card_w, joker_w, placed, wit)
            if im.key_placed:
                im.key_placed = 0
                if val >= 0:
                    _placed_from_key(im, table, hand, placed)
        else:
            # the tie-break's digits do not fit one key (a hand of some 40 card types):
            # the best answer with the first ones, whose placed copies are then fixed (put
            # on the table, the rest of those types out of the hand), and so on
            memcpy(t2, table, NCARD)
            memcpy(h2, hand, NCARD)
            while True:
                val = self._solve_dir(t2, h2, rules, card_w, joker_w, pl, wit)
                if val < 0 or end == NCARD:
                    break
                for c in range(start, end):
                    t2[_kcard(c)] += pl[_kcard(c)]
                    h2[_kcard(c)] = 0
                start = end
                end = _key_plan(im, t2, h2, start)
            if val >= 0 and placed != NULL:
                for c in range(NCARD):
                    placed[c] = <uint8_t>(t2[c] + pl[c] - table[c])
        if val >= 0 and wit != NULL:
            if _ARRANGE:
                # the melds by the canonical arrangement of their cards (_arrange.pxi;
                # with an ace low or high, never both, it makes no 14-card run)
                c = arrange_witness(<Arrange*> im.arr, im, wit, val, rules, card_w, joker_w, 1)
                if c < 0:
                    return -4 if c == -4 else -3
            elif rules.ace_high == 2:
                wit_split_wraps(wit)
        return val

    cdef int64_t _solve_dir(self, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil:
        # Runs read the same both ways, so the position may be solved mirrored (rank r ->
        # 15 - r with aces high, 14 - r with aces low only) and the answer mapped back: in
        # the direction that makes fewer states (_direction.pxi). A direction that runs out
        # of states (-4) is retried the other way.
        cdef int first = mirror_first(table, hand, rules, card_w)
        cdef int64_t val
        if _DIRECTION:
            first = _DIRECTION - 1   # (debug: one direction, _set_direction)
        val = self._solve_way(first, table, hand, rules, card_w, joker_w, placed, wit)
        if val == -4 and not _DIRECTION:
            return self._solve_way(1 - first, table, hand, rules, card_w, joker_w, placed, wit)
        return val

    cdef int64_t _solve_way(self, int mirrored, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil:
        # The position as it is (mirrored = 0) or mirrored, the answer mapped back
        cdef int c, s, r, m, i, k, a, b, n
        cdef int64_t val
        cdef uint8_t tm[NCARD]
        cdef uint8_t hm[NCARD]
        cdef uint8_t pm[NCARD]
        cdef int32_t cwm[NCARD]
        cdef int32_t jwm[16]
        cdef int mp[NCARD]
        cdef uint8_t tmp
        cdef Witness* out
        if not mirrored:
            return self._solve_one(table, hand, rules, card_w, joker_w, placed, wit)
        for s in range(4):
            for r in range(1, 14):
                if rules.ace_high:
                    m = 1 if r == 1 else 15 - r
                else:
                    m = 14 - r
                mp[s * 13 + r - 1] = s * 13 + m - 1
        mp[JOKER] = JOKER
        for c in range(NCARD):
            tm[mp[c]] = table[c]
            hm[mp[c]] = hand[c]
            cwm[mp[c]] = card_w[c]
        jwm[0] = joker_w[0]
        jwm[15] = joker_w[15]
        for r in range(1, 15):
            m = (15 - r) if rules.ace_high else (14 - r if r < 14 else 14)
            jwm[m] = joker_w[r]
        (<Impl*> self._impl).mirror = 1
        val = self._solve_one(tm, hm, rules, cwm, jwm, pm, &self.mirrored)
        (<Impl*> self._impl).mirror = 0
        if val < 0:
            return val
        if placed != NULL and not (<Impl*> self._impl).key_placed:
            for c in range(NCARD):
                placed[c] = pm[mp[c]]
        if wit != NULL:
            out = wit
            out.n_melds = self.mirrored.n_melds
            for i in range(self.mirrored.n_melds + 1):
                out.start[i] = self.mirrored.start[i]
            for k in range(self.mirrored.start[self.mirrored.n_melds]):
                out.cards[k] = <uint8_t>mp[self.mirrored.cards[k]]
                out.stands[k] = <uint8_t>mp[self.mirrored.stands[k]]
            # runs were listed in mirrored order: reverse them (a run's first two cards
            # stand for different ranks; a group's for the same one)
            for i in range(out.n_melds):
                a = out.start[i]
                n = out.start[i + 1] - a
                if n >= 2 and out.stands[a] % 13 != out.stands[a + 1] % 13:
                    for k in range(n // 2):
                        b = a + n - 1 - k
                        tmp = out.cards[a + k]
                        out.cards[a + k] = out.cards[b]
                        out.cards[b] = tmp
                        tmp = out.stands[a + k]
                        out.stands[a + k] = out.stands[b]
                        out.stands[b] = tmp
        return val

    cdef int64_t _solve_one(self, const uint8_t* table, const uint8_t* hand,
                            const SolverRules* rules, const int32_t* card_w,
                            const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil:
        # One joker per meld: first solve a relaxation that counts runs by length only,
        # without the flag "holds a joker" (groups, leading jokers and the hand-card
        # filter keep the one-joker rules): far fewer states. When its partition holds at
        # most one joker per meld it is optimal here too, else the exact search runs.
        cdef int64_t val
        cdef int m, i, k
        cdef Witness low_melds
        cdef int rlow
        if _RELAX and rules.jokers_per_meld == 1 and table[JOKER] + hand[JOKER] > 0:
            self.relax_pass = 1
            (<Impl*> self._impl).rlow = RL_UNKNOWN
            val = self._solve_exact(table, hand, rules, card_w, joker_w, placed, wit)
            self.relax_pass = 0
            rlow = (<Impl*> self._impl).rlow   # (for the exact search only: _relax_low.pxi)
            (<Impl*> self._impl).rlow = RL_UNKNOWN
            if val == -1:
                return -1   # no partition even so: none with one joker per meld
            if val >= 0:
                for m in range(self.scratch.n_melds):
                    k = 0
                    for i in range(self.scratch.start[m], self.scratch.start[m + 1]):
                        k += self.scratch.cards[i] == JOKER
                    if k > 1:
                        break
                else:
                    return val
            _FALLBACKS[0] += 1
            # its value bounds the exact one: the searches that cannot reach it are skipped
            if _RELAX_BOUND:
                (<Impl*> self._impl).ub = val - 1 if _RELAX_BOUND < 0 else val
                # (and its key, when it is exact: _relax_key.pxi)
                (<Impl*> self._impl).ub_sec = (<Impl*> self._impl).ans_sec
                (<Impl*> self._impl).ub_keyed = _RELAX_KEY != 0 and _RELAX_BOUND > 0
            # (and what its aces-low search tells: _relax_low.pxi)
            (<Impl*> self._impl).rlow = rlow
            _rlow_known(<Impl*> self._impl, &low_melds)
            val = self._solve_exact(table, hand, rules, card_w, joker_w, placed, wit)
            (<Impl*> self._impl).ub = -1
            (<Impl*> self._impl).ub_keyed = 0
            (<Impl*> self._impl).rlow = RL_UNKNOWN
            return val
        return self._solve_exact(table, hand, rules, card_w, joker_w, placed, wit)

    cdef int64_t _solve_exact(self, const uint8_t* table, const uint8_t* hand,
                              const SolverRules* rules, const int32_t* card_w,
                              const int32_t* joker_w, uint8_t* placed, Witness* wit) noexcept nogil:
        cdef Impl* im = <Impl*> self._impl
        cdef int s, v, c, i, best = -1, ok, start, high
        cdef uint64_t k1
        cdef int64_t bestval = -1, table_w = 0, low_val = -1
        cdef skey low_sec = 0
        cdef int rlow = im.rlow if not self.relax_pass else RL_UNKNOWN
        cdef uint64_t short_mask = 0
        cdef int hb, low_states = 0
        cdef int64_t hval = -1
        cdef skey hsec = 0
        im.rlow = RL_UNKNOWN   # (told this search only: _relax_low.pxi)
        memset(im.must, 0, sizeof(im.must))
        memset(im.avail, 0, sizeof(im.avail))
        memset(im.w, 0, sizeof(im.w))
        memset(im.jw, 0, sizeof(im.jw))
        im.moves_valid = 0   # (a new problem: the moves kept are not its own)
        im.ace_high = rules.ace_high
        im.V = 14 if rules.ace_high else 13
        im.limited = 1 if rules.jokers_per_meld == 1 else 0
        im.merged = 1 if (not im.limited or self.relax_pass) else 0
        for s in range(4):
            for v in range(1, 14):
                c = s * 13 + v - 1
                im.must[s][v] = table[c]
                im.avail[s][v] = table[c] + hand[c]
                im.w[s][v] = card_w[c]
            im.w[s][14] = card_w[s * 13]
            if rules.ace_high:
                im.avail[s][14] = im.avail[s][1]   # "any ace may be there": used by pruning only
        for v in range(1, 15):
            im.jw[v] = joker_w[v]
        im.jt = table[JOKER]
        im.jtot = table[JOKER] + hand[JOKER]
        if im.jtot > 7:
            return -2
        _sec_weights(im, im.mirror, rules.ace_high)
        _drop_useless(im)
        im.lb = -1
        high = rules.ace_high
        # Aces high: tracking how many aces of each suit were used low (A-2-3) multiplies
        # the states, so first solve with aces low only: every such partition is valid
        # with high aces too, so its value is a lower bound for the full search below.
        im.ace_high = 0
        im.V = 13
        # (no search when a table ace, 2, queen or king has no place with aces low:
        # _low_reject.pxi)
        # (or none when the relaxation's found none, and after it when its value and key
        # are known and the search with aces high is needed: _relax_low.pxi)
        if rlow == RL_EXACT and high and _high_run_possible(im) \
                and not (im.rlow_val >= _weight_bound(im) and _sec_settled(im)) \
                and not _high_needless(im, im.rlow_val, im.rlow_sec):
            return _high_first(im, &self.scratch, table, placed, wit)
        if _low_search_needless(im) or rlow == RL_NONE:
            best = -1
        else:
            best = _deepening(im)
            low_states = im.n_nodes
        _RLOW_HITS[0] += rlow == RL_NONE
        if best < -1:
            return best
        if self.relax_pass:
            _rlow_note(im, best >= 0, im.nodes[best].val if best >= 0 else -1, im.best_sec)
        if not high:
            if best < 0:
                return -1
            if _keyed_answer(im, im.best_sec):
                return im.nodes[best].val
            if _rebuild(im, best, &self.scratch) < 0:
                return -3
            return _finish(im.nodes[best].val, table, placed, wit, &self.scratch)
        im.lb = -1
        if best >= 0:
            low_val = im.nodes[best].val
            low_sec = im.best_sec
            if not _high_run_possible(im) or (low_val >= _weight_bound(im)
                                               and _sec_settled(im)) \
                    or _high_needless(im, low_val, low_sec) \
                    or _high_split_rejected(im, low_val, low_sec):
                # no suit can hold ...-Q-K-A (aces high add nothing to aces low), or the
                # aces-low partition already holds every card that could be placed (and
                # every one weighs something: any partition of that value uses the same
                # cards, the same tie-break key), or it reaches the relaxation's answer
                # (_relax_key.pxi), or what a better one would leave out leaves cards that
                # split into no melds (_high_reject.pxi): the search with aces high cannot
                # beat it
                if _keyed_answer(im, low_sec):
                    return low_val
                if _rebuild(im, best, &self.scratch) < 0:
                    return -3
                return _finish(low_val, table, placed, wit, &self.scratch)
            # its melds are rebuilt only if the search with aces high does not beat it
            if not im.key_placed:
                _path_decs(im, best, im.low_decs)
        if im.key_placed and _HIGH_ONLY and high == 1 and im.jtot == 0 \
                and (im.n_nodes >= _HIGH_ONLY_MIN or im.all_only) \
                and (best >= 0 or _high_run_possible(im)):
            # no melds asked for: the best partition with every ace high, which then bounds
            # the search with aces high, or is the answer (_high_only.pxi)
            hb = _high_only(im, low_val, low_sec, &hval, &hsec)
            if hb < -1:
                return hb
            if hb >= 0:
                best = hb   # (an index of that search: only its value and key are read)
                low_val = hval
                low_sec = hsec
                if low_val >= _weight_bound(im) and _sec_settled(im) \
                        and _keyed_answer(im, low_sec):
                    return low_val
            if _LEFT_OUT and best >= 0 and not im.all_only:
                # (or from the few hand cards a better partition could leave out)
                hb = self._left_out_answer(im, rules, low_val, low_sec, low_states,
                                           &hval, &hsec)
                if hb < 0:
                    return hb
                if hb == 1 and _keyed_answer(im, hsec):
                    return hval
        if best >= 0:
            # (a partition of the same value with a higher tie-break key beats it too: the
            # states that can reach that value with a key that can pass its key are kept)
            im.lb = low_val
            im.tie = 1
            im.tie_sec = low_sec
            im.capped = im.ub >= 0 and low_val >= im.ub
        # The full search drops every state that cannot reach that value (branch and
        # bound on the weight still to come); if none beats it, the aces-low one is best.
        im.ace_high = 1
        im.V = 14
        _set_rest(im)
        if im.tie:
            _set_secrest(im)
        if low_val < 0:
            # no aces-low partition at all (the table needs aces high): a search of its own
            best = _deepening(im)
        else:
            best = _sweep(im)
            im.tie = 0
            im.capped = 0
        if best < -1:
            return best
        if best >= 0 and (im.nodes[best].val > low_val or (im.nodes[best].val == low_val
                                                           and im.best_sec > low_sec)):
            if _keyed_answer(im, im.best_sec):
                return im.nodes[best].val
            if _rebuild(im, best, &self.scratch) < 0:
                return -3
            if self.relax_pass and low_val >= 0:
                im.rlow = RL_BEATEN   # (its path in im.low_decs: _relax_low.pxi)
            return _finish(im.nodes[best].val, table, placed, wit, &self.scratch)
        if low_val < 0:
            return -1
        if _keyed_answer(im, low_sec):
            return low_val
        if _rebuild_decs(im, im.low_decs, 13, &self.scratch) < 0:
            return -3
        return _finish(low_val, table, placed, wit, &self.scratch)


cdef enum:
    DEEPEN_FROM = 10   # hand cards (that some meld could hold) from which deepening pays
                       # (and always with four jokers or more: their placements multiply)


cdef int64_t _weight_bound(Impl* im) noexcept nogil:
    """No partition weighs more: every table card, every hand card still usable (after
    _drop_useless) that weighs more than nothing, every joker at the heaviest joker weight
    (table jokers whatever it is, hand jokers only when it is positive)."""
    cdef int s, v
    cdef int64_t b = 0, jmax = im.jw[1]
    for v in range(2, 15):
        if im.jw[v] > jmax:
            jmax = im.jw[v]
    for s in range(4):
        for v in range(1, 14):
            b += im.must[s][v] * im.w[s][v]
            if im.w[s][v] > 0:
                b += (im.avail[s][v] - im.must[s][v]) * im.w[s][v]
    b += im.jt * jmax
    if jmax > 0:
        b += (im.jtot - im.jt) * jmax
    return b


cdef void _sec_weights(Impl* im, int mirrored, int ace_high) noexcept nogil:
    """The tie-break key of a card at each (suit, value) of this search (im.sw): that of
    the card it is (im.keyw, _key_plan), or on a mirrored position (mirrored = 1) of the
    card it stands for. The key is a sum over the cards used, so every search direction,
    encoding and sweep adds it alike."""
    cdef int s, v, c, m
    for s in range(4):
        im.sw[s][0] = 0
        im.sw[s][15] = 0
        for v in range(1, 14):
            m = v
            if mirrored:
                m = (1 if v == 1 else 15 - v) if ace_high else 14 - v
            im.sw[s][v] = im.keyw[s * 13 + m - 1]
        im.sw[s][14] = im.sw[s][1]


cdef inline int _kcard(int p) noexcept nogil:
    """The card at position p (0..51) of the tie-break's order: by rank from the two up to
    the king, then the aces, suits S H D C within a rank."""
    cdef int r = p >> 2
    return (p & 3) * 13 + (r + 1 if r < 12 else 0)


cdef int _key_plan(Impl* im, const uint8_t* table, const uint8_t* hand,
                   int start) noexcept nogil:
    """The canonical tie-break's key (im.keyw), for the hand's cards from position start
    of its order (_kcard).

    Among partitions of the best value the solver returns the one whose used cards, read
    as copies per card in the order 2S 2H 2D 2C 3S ... KC AS AH AD AC, then jokers, are
    lexicographically greatest. A card the hand does not hold is used whole in every
    partition, so only the hand's card types count: the key is their used copies as one
    mixed-radix number (radix table + hand copies + 1; the card at position `start` the
    most significant digit, the jokers used the least). The order follows the sweep (values
    2..K, suits in turn; the aces, placed at value 1 and 14, last), so that the digits a
    state has settled are the most significant ones (see _tie_lost). Returns NCARD when
    every digit fits 63 bits, else the first position left out (whose key, and the
    jokers', is then 0: Solver.solve_direct settles the digits that fit, then the rest)."""
    cdef int p, c, end = start, n = 0
    cdef u128 prod = <u128>(table[JOKER] + hand[JOKER] + 1), lim = (<u128>1) << 63
    cdef skey w
    memset(im.keyw, 0, sizeof(im.keyw))
    for c in range(JOKER):
        n += hand[c] > 0
    if n > 29:   # (up to 29 types of at most 3 copies and 7 jokers fit: 58 + 3 bits)
        prod = <u128>(table[JOKER] + hand[JOKER] + 1)
        for p in range(start, JOKER):
            c = _kcard(p)
            if hand[c] > 0:
                prod *= <u128>(table[c] + hand[c] + 1)
    else:
        prod = 0
    cdef bint whole = prod < lim
    if whole:   # every digit, the jokers' the least significant
        im.keyw[JOKER] = 1
        w = <skey>(table[JOKER] + hand[JOKER] + 1)
        end = JOKER
    else:       # the digits from start that fit, the jokers' left out
        prod = 1
        while end < JOKER:
            c = _kcard(end)
            if hand[c] > 0:
                if prod * <u128>(table[c] + hand[c] + 1) >= lim:
                    break
                prod *= <u128>(table[c] + hand[c] + 1)
            end += 1
        w = 1
    for p in range(end - 1, start - 1, -1):
        c = _kcard(p)
        if hand[c] > 0:
            im.keyw[c] = w
            w *= <skey>(table[c] + hand[c] + 1)
    return NCARD if whole else end


cdef bint _sec_settled(Impl* im) noexcept nogil:
    """Does every partition that reaches _weight_bound use the same cards (every card
    that could be placed weighs more than nothing, and so does a hand joker if any)?"""
    cdef int s, v
    for s in range(4):
        for v in range(1, 14):
            if im.avail[s][v] > im.must[s][v] and im.w[s][v] <= 0:
                return False
    if im.jtot > im.jt:
        for v in range(1, 15):
            if im.jw[v] <= 0:
                return False
    return True


cdef bint _high_run_possible(Impl* im) noexcept nogil:
    """Could some suit hold a run ending with a high ace (its Q, K, A, jokers filling)?
    A joker standing for the high ace counts only where jokers weigh by the value they
    stand for (not all alike): else it adds nothing a joker elsewhere in the run does not."""
    cdef int s, v, miss, ace, jvar = 0
    if im.jtot > 0:
        for v in range(2, 15):
            if im.jw[v] != im.jw[1]:
                jvar = 1
    for s in range(4):
        ace = im.avail[s][1] > 0
        if not ace and not jvar:
            continue
        miss = (1 if im.avail[s][12] == 0 else 0) + (1 if im.avail[s][13] == 0 else 0) \
            + (0 if ace else 1)
        if miss == 0 or (miss <= im.jtot and miss < 3 and (not im.limited or miss == 1)):
            return True
    return False


cdef int _deepening(Impl* im) noexcept nogil:
    """Sweep with a growing allowance D for the weight left out (iterative deepening).

    States whose best possible total falls short of everything by more than D are
    dropped. A solution found that way is optimal (any better one is within D too);
    if none is found, D grows fourfold, until it covers everything (no pruning). Small
    hands with few jokers are solved in one plain sweep.
    """
    cdef int s, v, best, optional = im.jtot - im.jt
    cdef int64_t total = 0, wmax = 0, D
    _set_rest(im)
    for s in range(4):
        if im.ace_high and im.w[s][14] > im.w[s][1]:
            total += im.avail[s][1] * (im.w[s][14] - im.w[s][1])
        for v in range(1, 14):
            total += im.avail[s][v] * im.w[s][v]
            optional += im.avail[s][v] - im.must[s][v]
            if im.avail[s][v] > im.must[s][v] and im.w[s][v] > wmax:
                wmax = im.w[s][v]
    if optional < DEEPEN_FROM and im.jtot < 4 and not im.all_only:
        im.lb = -1
        return _sweep(im)
    total += im.jtot * im.jwmax
    if im.jtot > im.jt and im.jwmax > wmax:
        wmax = im.jwmax
    D = 0   # first: can everything be placed? (cheap: nothing may be left out)
    while True:
        im.lb = total - D - 1 if D < total else -1
        if im.ub >= 0 and im.lb >= im.ub:
            # nothing beats ub, so nothing beats lb: this sweep would find nothing
            if im.all_only:
                im.lb = -1   # (as a deepening that found nothing leaves it)
                return -1
            D = 2 * wmax if D == 0 else D * 4
            if D == 0:
                D = 1
            continue
        best = _sweep(im)
        # (a final state at or below lb proves nothing: a better one may have been dropped)
        if best < -1 or (best >= 0 and im.nodes[best].val > im.lb) or im.lb < 0:
            return best
        if best == -1 and _DEEPEN_STOP and (im.lb_drops == 0 or _DEEPEN_STOP < 0):
            # nothing found, and the bound dropped nothing: a sweep without it makes the
            # same states (the bound is the only thing D changes), so none finds a
            # partition (-1: a planted fault, stopping whatever the bound dropped)
            im.lb = -1
            return -1
        if im.all_only:
            im.lb = -1   # (nothing places everything: Solver.place_all; as above)
            return -1
        D = 2 * wmax if D == 0 else D * 4
        if D == 0:
            D = 1


cdef inline int _av(Impl* im, int s, int p) noexcept nogil:
    """Copies available at run position p (1..14; 14 is the ace when aces may be high)."""
    if p == 14:
        return im.avail[s][1] if im.ace_high else 0
    return im.avail[s][p]


cdef void _drop_useless(Impl* im) noexcept nogil:
    """Forget hand cards that no meld can hold, whatever else is used (exact pruning).

    A card fits a group only if its value has enough other suits (or jokers), and a run
    only if some 3-window of positions around it is filled by available cards and jokers.
    Dropping a card can strand another, so this repeats until nothing changes.
    """
    cdef int s, v, t, a, p, k, suits, miss, ok, changed = 1, top = 14 if im.ace_high else 13
    cdef int jmax_group = (1 if im.jtot > 0 else 0) if im.limited else im.jtot
    cdef int jmax_run = (1 if im.jtot > 0 else 0) if im.limited else im.jtot
    if im.jtot == 0 and _PLAIN_DROP:
        _drop_useless_plain(im)   # (the same cards dropped, on bitmasks: _plain_drop.pxi)
        return
    while changed:
        changed = 0
        for s in range(4):
            for v in range(1, 14):
                if im.avail[s][v] == im.must[s][v]:
                    continue
                suits = 0
                for t in range(4):
                    if im.avail[t][v] > 0:
                        suits += 1
                ok = suits + jmax_group >= 3
                # runs: windows [a, a+2] holding position v (and 14 for an ace)
                for k in range(2):
                    p = v if k == 0 else (14 if (v == 1 and im.ace_high) else 0)
                    if p == 0 or ok:
                        continue
                    for a in range(p - 2, p + 1):
                        if a < 1 or a + 2 > top:
                            continue
                        miss = 0
                        for t in range(a, a + 3):
                            if t != p and _av(im, s, t) == 0:
                                miss += 1
                        if miss <= jmax_run:
                            ok = 1
                            break
                if not ok:
                    im.avail[s][v] = im.must[s][v]
                    changed = 1


cdef inline int64_t _aces_left(Impl* im, uint64_t k2, int v, int s) noexcept nogil:
    """Most weight the aces at value 14 can still add (those not used low), after (v, s)."""
    cdef int t, first = (s + 1) if v == 14 else 0
    cdef int64_t acc = 0
    if not im.ace_high:
        return 0
    if first == 0:   # every suit: two lookups by the aces used low (see _set_rest)
        return im.aces_low2[0][(k2 >> 9) & 15] + im.aces_low2[1][(k2 >> 13) & 15]
    for t in range(first, 4):
        acc += (im.avail[t][1] - <int>((k2 >> (9 + 2 * t)) & 3)) * im.w[t][14]
    return acc


cdef void _set_rest(Impl* im) noexcept nogil:
    """rest[v][s]: the weight of every card after suit s of value v, taken in sweep order."""
    cdef int v, s
    cdef int64_t acc = 0
    for v in range(im.V, 0, -1):
        for s in range(3, -1, -1):
            im.rest[v][s] = acc
            if v != 14:   # aces at 14: what is left after the low ones, see _aces_left
                acc += im.avail[s][v] * im.w[s][v]
    im.jwmax = 0
    for v in range(1, 15):
        if im.jw[v] > im.jwmax:
            im.jwmax = im.jw[v]
    # _aces_left over every suit, by suit pair (0-1, 2-3) and the aces each used low
    cdef int p, low
    for p in range(2):
        for low in range(16):
            im.aces_low2[p][low] = 0
            if im.ace_high:
                for s in range(2):
                    im.aces_low2[p][low] += (im.avail[2 * p + s][1] - ((low >> (2 * s)) & 3)) \
                        * im.w[2 * p + s][14]


cdef void _set_secrest(Impl* im) noexcept nogil:
    """secrest[v][s]: the most tie-break key the cards after suit s of value v can add
    (aces at 14 and jokers aside, see _tie_lost); used only while im.tie."""
    cdef int v, s, p, low
    cdef u128 sacc = 0
    for v in range(im.V, 0, -1):
        for s in range(3, -1, -1):
            im.secrest[v][s] = sacc
            if v != 14:
                sacc += <u128>im.avail[s][v] * <u128>im.sw[s][v]
    # _tie_left's aces at 14 over every suit, by suit pair (0-1, 2-3) and the aces each
    # used low (the same terms, summed alike modulo 2^128)
    for p in range(2):
        for low in range(16):
            im.seclow2[p][low] = 0
            if im.ace_high:
                for s in range(2):
                    im.seclow2[p][low] += <u128>(im.avail[2 * p + s][1]
                                                 - ((low >> (2 * s)) & 3)) * im.sw[2 * p + s][1]


cdef int64_t _finish(int64_t val, const uint8_t* table, uint8_t* placed,
                     Witness* wit, Witness* built) noexcept nogil:
    """Copy the rebuilt melds out and derive the placed hand cards."""
    cdef int used[NCARD]
    cdef int i, c, n = built.start[built.n_melds]
    if wit != NULL:
        wit.n_melds = built.n_melds
        for i in range(built.n_melds + 1):
            wit.start[i] = built.start[i]
        for i in range(n):
            wit.cards[i] = built.cards[i]
            wit.stands[i] = built.stands[i]
    if placed != NULL:
        memset(used, 0, sizeof(used))
        for i in range(n):
            used[built.cards[i]] += 1
        for c in range(NCARD):
            if used[c] < table[c]:
                return -3
            placed[c] = <uint8_t>(used[c] - table[c])
    return val


cdef inline bint _scope_fixed(Impl* im) noexcept nogil:
    """Whether this sweep's dominance pass runs after every suit step on that suit,
    whatever the layer's size, and after no group step (_set_fixed_scope): in the searches
    with jokers, where melds are asked for (so that the need test leaves them as they
    were); without melds (Impl.melds_free) by the layer's size, as without jokers: the
    value and the placed cards are the same either way (the pass keeps, of two states one
    dominates, the one at least as good by value and tie-break key)."""
    return _FIXED_SCOPE and im.jtot > 0 and not im.melds_free


cdef int _sweep(Impl* im) noexcept nogil:
    """Run the dynamic program; the index of the best final state, -1 if none, < -1 error."""
    cdef int s, v, i, n, c, best = -1, start
    cdef int64_t bestval = -1
    cdef skey bestsec = 0, sec
    cdef uint64_t short_mask = 0
    # root (indices start again at 0: forget every entry of the previous sweep). The
    # table starts at MIN_SLOTS, and only grows by _rehash, which clears it whole: so only
    # the slots in use now need clearing, whatever size an earlier sweep's table reached
    _fit_slots(im, 1)
    _clear_slots(im)
    # the suit steps' moves are kept from sweep to sweep of one problem (_suit_moves.pxi)
    if not im.moves_valid:
        moves_reset(<MoveCache*> im.moves)
        im.moves_valid = 1
    im.n_nodes = 0
    im.n_layers = 0
    im.layer_start[0] = 0
    im.lb_drops = 0
    if _insert(im, 0, 0, 0, 0, -1, 0) < 0:
        return -4
    for v in range(1, im.V + 1):
        for s in range(4):
            c = _copy_step(im, v, s)
            if c < 0:
                return -4
            if c > 0:
                continue   # (every state went on unchanged: nothing to prune, see _copy_step)
            if (_suit_step_plain(im, v, s) if im.jtot == 0 else _suit_step(im, v, s)) < 0:
                return -4
            # dominance after a suit step: within that suit only (where new dominance
            # mostly appears), every suit once the layer is large
            n = im.n_nodes - im.layer_start[im.n_layers]
            if _scope_fixed(im):
                # with jokers: that suit, whatever the layer's size. Which states the pass
                # drops then depends on no state that reaches no partition (none dominates
                # one that does), so the jokers' need test (_joker_need.pxi), which drops
                # only such states, leaves every state on a path to a final state, its
                # order, value, key and parent: the same answer, melds included
                if n > 1:
                    _prune_dominated(im, s)
            elif n > _SUIT_FROM:
                _prune_dominated(im, s if n < _ALL_FROM else -1)
        c = _copy_step(im, v, 4)
        if c < 0:
            return -4
        if c > 0:
            continue
        if _group_step(im, v) < 0:
            return -4
        # (a smaller layer is compared in no suit, "suit 4": nothing to do)
        if im.n_nodes - im.layer_start[im.n_layers] >= _GROUP_FROM \
                and not _scope_fixed(im):
            _prune_dominated(im, -1)
    im.layer_start[im.n_layers + 1] = im.n_nodes
    # runs still open must have length >= 3: a1, a2, b1, b2 all zero
    for s in range(4):
        short_mask |= (<uint64_t>0xF | (<uint64_t>0x3F << 6)) << (15 * s)
    start = im.layer_start[im.n_layers]
    for i in range(start, im.n_nodes):
        if im.nodes[i].val < 0 or im.nodes[i].k1 & short_mask:
            continue
        if <int>(im.nodes[i].k2 & 7) < im.jt:
            continue
        # the jokers used are the tie-break key's last digit (_sec_weights)
        sec = _sec(&im.nodes[i]) + <skey>(im.nodes[i].k2 & 7) * im.keyw[JOKER]
        if im.nodes[i].val > bestval or (im.nodes[i].val == bestval and sec > bestsec):
            bestval = im.nodes[i].val
            bestsec = sec
            best = i
    im.best_sec = bestsec
    if im.n_sweeps < 8:
        im.stats[im.n_sweeps] = im.n_nodes
        im.stats_lb[im.n_sweeps] = im.lb
        im.stats_high[im.n_sweeps] = im.ace_high
        im.stats_best[im.n_sweeps] = bestval
        im.stats_merged[im.n_sweeps] = im.merged
    im.n_sweeps += 1
    return best


# ---------------------------------------------------------------------------------------
# Python-level entry point (used by fastmach.solver)
# ---------------------------------------------------------------------------------------
class SolverLimitError(RuntimeError):
    """A position too large for the exact search within its state limit (never a guess)."""


cdef Solver _default_solver = Solver()
# the shortcuts' switches: 1 (on) in use, set otherwise only by the tests through the
# debug switches of _solver_debug.pxi
cdef int _RELAX = 1
cdef int _DEEPEN_STOP = 1   # a deepening stops where a sweep proves no partition
cdef int _SHARED_MOVES = 1   # walks kept for every problem (_suit_moves.pxi; 0: per problem,
                             # -1: under a wrong key, debug)
cdef int _SHARED_CAP = SHARED_KEYS   # (debug: fewer, to see them forgotten and made again)
cdef int _SHARED_GEN = 0   # (changed with the switch: walks kept before are forgotten)
cdef int _NEED_KEPT = 1   # the jokers' need of a state kept with it (_joker_need.pxi; 0: made
                          # again at every step, -1: kept wrongly, debug)
cdef int _DIRECTION = 0   # (debug: 1 as given, 2 mirrored, _set_direction)
cdef int _DENSE_FIRST = 1   # with jokers, the direction by where the cards lie (_direction.pxi)
cdef int _MEMO = 1
cdef int _MOVE_LISTS = 1
cdef int _COPY_STEPS = 1
cdef int _RELAX_BOUND = 1
cdef int _PLAIN_MOVES = 1
cdef int _PAT_FILTER = 1
cdef int _CANDS = 1        # 0: no candidate patterns; -1: wrong ones (debug, as above)
cdef int _KEY_FILTER = 1   # 0: the bitmap of keys left empty (debug, _set_pattern_filter(-2))
cdef int _PLAIN_REBUILD = 1
cdef int _LOW_REJECT = 1
cdef int _HIGH_REJECT = 1  # 1: aces high not searched where they cannot beat aces low
                           # (_high_reject.pxi); 0 off; -1 wrongly (debug)
cdef int _HIGH_CHECK = 100 # ... tried where its checks at this many states each cost no
                           # more than the last aces-low sweep's states (debug: its argument)
cdef int _HIGH_MIN = 2048  # ... and that sweep made at least this many (debug: as above)
cdef int _PLAIN_DROP = 1
cdef int _PLAIN_PRUNE = 1
cdef int _PLAIN_GROUPS = 1
cdef int _ARRANGE = 0      # 0: the melds as the search's path rebuilds them (debug: the
                           # canonical arrangement's cost, _set_arrange)
cdef int _HIGH_ONLY = 1   # 1: without melds, the best partition with every ace high bounds
                          # the search with aces high (_high_only.pxi); 0 off
cdef int _HIGH_ONLY_MIN = 2048   # ... where the search with aces low made this many states
cdef int _LEFT_OUT = 1    # 1: ... then the answer from the hand cards a better partition
                          # could leave out (_left_out.pxi); 0 off
cdef int _LEFT_FACTOR = 4    # ... where its checks cost no more than this many times the
                             # aces-low search's states (at _HIGH_CHECK states a check)
cdef int _LEFT_EXACT = 8     # ... and at most this many sets are asked of place_all
cdef long _LEFT_STATS[2]     # debug: answers made that way, place_all asked
cdef int _KEY_PLACED = 1  # 1: a solve asked for no melds reads its placed cards from the
                          # answer's key (_key_placed.pxi); 0 rebuilds the melds; -1 wrongly
cdef int _RELAX_LOW = 1   # 1: the exact search after a relaxation that fell back takes what
                          # the relaxation's aces-low search tells (_relax_low.pxi); 0 off;
                          # -1 wrongly
cdef int _RELAX_KEY = 1   # 1: the search with aces high of a fallen-back relaxation's exact
                           # search is not run when the aces-low answer reaches the
                           # relaxation's value and key (_relax_key.pxi); 0 off; -1 wrongly
cdef int _GROUP_SUPPLY = 1   # 1: with the need test, a suit step makes no state whose groups
                             # the suits to come at its value cannot make, nor (aces high)
                             # one whose table aces left for 14 find no place
                             # (_group_supply.pxi); 2 the first test only; 0 off; -1 wrongly
cdef int _JOKER_NEED = 1   # 1: the searches with jokers make no state whose open runs need
                           # more jokers than are left (_joker_need.pxi; every answer stays,
                           # melds included, with _FIXED_SCOPE); 0 off; -1: wrongly
# the dominance pass's scope by layer size (_sweep; _copy_step relies on it): after a suit
# step, none up to _SUIT_FROM states, that suit, every suit from _ALL_FROM; after a group
# step, every suit from _GROUP_FROM (debug: _set_prune_from)
cdef int _FIXED_SCOPE = 1   # 1: with jokers the dominance pass runs after every suit step on
                            # that suit whatever the layer's size, never after a group step
                            # (_sweep), so that a pruning of states reaching no partition
                            # leaves the melds; 0 by size as without jokers (debug)
cdef int _FREE_SCOPE = 1    # 1: ... but by size where no melds are asked for (_scope_fixed);
                            # 0: as where they are (debug, the tests' reference)
cdef int _SUIT_FROM = 32
cdef int _ALL_FROM = 4096
cdef int _GROUP_FROM = GROUP_PRUNE_FROM
cdef int _STATE_LIMIT = MAX_STATES   # (lower only in the tests: _set_state_limit)


include "_solver_entries.pxi"
include "_solver_debug.pxi"
