# A small memo of the exact solver's last answers (included by fastmach/core/_solver.pyx:
# Solver.solve looks here first, Solver.solve_direct never does).
#
# Within a game the same question is asked again: the engine's must-play count
# (seat_can_play, play_batch(hands=True)) asks what the expert seat just asked (the same
# table, hand, rules and weights), and after a full round of passes every seat is asked
# once more about a position it has already solved. An entry holds the whole input (table
# and hand counts, the three solver rules, the card and joker weights) and the whole
# answer (the value, the placed counts and the melds, where they were asked for: an entry
# without them answers only a solve that asks for none), so a hit returns exactly what a
# solve would. Entries are compared byte for byte (a 64-bit hash first); only answers
# >= -1 are kept (errors are solved again). Replacement is round-robin.
cdef enum:
    MEMO_SIZE = 8
    MEMO_JW = 16          # the joker weights the solver reads (joker_w[0..15])


cdef struct MemoKey:
    uint64_t hash
    uint8_t table[NCARD]
    uint8_t hand[NCARD]
    int32_t card_w[NCARD]
    int32_t joker_w[MEMO_JW]
    int decks
    int ace_high
    int jokers_per_meld
    int64_t mode          # anything else the answer depends on (the solver's debug switches)


cdef struct MemoEntry:
    MemoKey key
    int used
    int64_t val
    uint8_t placed[NCARD]
    int melds             # 1: wit holds the answer's melds (0: asked without them)
    Witness wit


cdef struct SolveMemo:
    MemoEntry entry[MEMO_SIZE]
    int next              # the entry the next store replaces
    int64_t hits          # statistics (debug)
    int64_t misses


cdef inline void memo_clear(SolveMemo* m) noexcept nogil:
    cdef int i
    for i in range(MEMO_SIZE):
        m.entry[i].used = 0
    m.next = 0
    m.hits = 0
    m.misses = 0


cdef inline uint64_t _memo_mix(uint64_t h, uint64_t x) noexcept nogil:
    h ^= x + <uint64_t>0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2)
    return h


cdef inline void memo_key(MemoKey* k, const uint8_t* table, const uint8_t* hand,
                          const SolverRules* rules, const int32_t* card_w,
                          const int32_t* joker_w, int64_t mode) noexcept nogil:
    """Fill k with the inputs of one solve and their hash (table and hand bytes, rules)."""
    cdef uint64_t h = 0, x
    cdef int i
    memcpy(k.table, table, NCARD)
    memcpy(k.hand, hand, NCARD)
    memcpy(k.card_w, card_w, NCARD * sizeof(int32_t))
    memcpy(k.joker_w, joker_w, MEMO_JW * sizeof(int32_t))
    k.decks = rules.decks
    k.ace_high = rules.ace_high
    k.jokers_per_meld = rules.jokers_per_meld
    k.mode = mode
    for i in range(0, 48, 8):
        memcpy(&x, table + i, 8)
        h = _memo_mix(h, x)
        memcpy(&x, hand + i, 8)
        h = _memo_mix(h, x)
    for i in range(48, NCARD):
        h = _memo_mix(h, (<uint64_t>table[i] << 8) | hand[i])
    h = _memo_mix(h, <uint64_t>(rules.decks | (rules.ace_high << 4)
                                | (rules.jokers_per_meld << 8)) | (<uint64_t>mode << 12))
    k.hash = h


cdef inline bint _memo_same(const MemoKey* a, const MemoKey* b) noexcept nogil:
    return (a.hash == b.hash and a.decks == b.decks and a.ace_high == b.ace_high
            and a.jokers_per_meld == b.jokers_per_meld and a.mode == b.mode
            and memcmp(a.table, b.table, NCARD) == 0 and memcmp(a.hand, b.hand, NCARD) == 0
            and memcmp(a.card_w, b.card_w, NCARD * sizeof(int32_t)) == 0
            and memcmp(a.joker_w, b.joker_w, MEMO_JW * sizeof(int32_t)) == 0)


cdef inline MemoEntry* memo_find(SolveMemo* m, const MemoKey* k) noexcept nogil:
    """The entry answering the inputs k, or NULL."""
    cdef int i
    for i in range(MEMO_SIZE):
        if m.entry[i].used and _memo_same(&m.entry[i].key, k):
            m.hits += 1
            return &m.entry[i]
    m.misses += 1
    return NULL


cdef inline MemoEntry* memo_slot(SolveMemo* m, const MemoKey* k) noexcept nogil:
    """The entry to fill with the answer to k (round-robin); marked unused until kept."""
    cdef MemoEntry* e = &m.entry[m.next]
    m.next = (m.next + 1) % MEMO_SIZE
    e.used = 0
    memcpy(&e.key, k, sizeof(MemoKey))
    return e


cdef inline void wit_copy_out(Witness* dst, const Witness* src) noexcept nogil:
    cdef int n = src.start[src.n_melds]
    dst.n_melds = src.n_melds
    memcpy(dst.start, src.start, (src.n_melds + 1) * sizeof(int))
    memcpy(dst.cards, src.cards, n)
    memcpy(dst.stands, src.stands, n)


cdef inline int64_t memo_answer(const MemoEntry* e, uint8_t* placed, Witness* wit) noexcept nogil:
    """What the solve that filled e wrote: on a value >= 0 the placed counts and the melds
    (each where asked for); on -1 nothing."""
    if e.val >= 0:
        if placed != NULL:
            memcpy(placed, e.placed, NCARD)
        if wit != NULL:
            wit_copy_out(wit, &e.wit)
    return e.val
