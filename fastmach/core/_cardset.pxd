# Bitset card multisets: up to 3 copies of each of the 52 card types, plus jokers.
#
# Card id c = suit*13 + (rank-1) (suits S H D C = 0..3, ranks A=1 .. K=13; joker = 52)
# has bit `suit*16 + rank`: each suit is a 16-bit lane holding its ranks at bits 1..13,
# so a run is a shift inside a lane and a group is one mask across the four lanes.
# Counts are stored in unary ("thermometer") layers: layer[k] has a card's bit iff its
# count is > k, hence layer[2] <= layer[1] <= layer[0] as bit sets.
#
# Every operation is an inline nogil function here, so any module can cimport it.
# Functions that can refuse return -1 and leave their target unchanged; otherwise 0.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t

cdef extern from *:
    """
    #if !defined(__GNUC__) && !defined(__clang__)
    #error "fastmach.core._cardset needs GCC or Clang (__builtin_popcountll, __builtin_ctzll)"
    #endif
    #define cs_ctz(x) __builtin_ctzll((unsigned long long)(x))
    #if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
    /* one instruction (x86 -mpopcnt, ARM cnt) */
    #define cs_popcount(x) __builtin_popcountll((unsigned long long)(x))
    #else
    /* x86 without popcnt: GCC would call libgcc's __popcountdi2; inline SWAR is faster */
    static inline int cs_popcount(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
    #define CS_ALL 0x3FFE3FFE3FFE3FFEULL
    #ifdef __POPCNT__
    #define CS_HW_POPCNT 1
    #else
    #define CS_HW_POPCNT 0
    #endif
    """
    int cs_popcount(uint64_t x) noexcept nogil   # popcnt instruction with -mpopcnt, else SWAR
    int cs_ctz(uint64_t x) noexcept nogil        # index of the lowest set bit, x != 0
    const int CS_HW_POPCNT                       # 1 when compiled with a popcnt instruction
    const uint64_t CS_ALL                        # every card bit: ranks 1..13 in 4 lanes

cdef enum:
    CS_NCARD = 53
    CS_JOKER = 52
    CS_MAXCOPY = 3
    CS_MAXPLANE = 16      # point values 0 .. 2**16-1 per card

ctypedef struct cardset_t:
    uint64_t layer[3]     # layer[k]: cards with count > k
    uint8_t jokers

ctypedef struct pointtab_t:
    # points as bit planes: a card's value is sum(2**b for planes b holding its bit)
    uint64_t plane[CS_MAXPLANE]
    int nplane
    int32_t joker


cdef inline int cs_bit(int c) noexcept nogil:
    """Bit index of card id c (0..51)."""
    return (c // 13) * 16 + c % 13 + 1

cdef inline int cs_card(int bit) noexcept nogil:
    """Card id of bit index `bit` (inverse of cs_bit)."""
    return (bit >> 4) * 13 + (bit & 15) - 1

cdef inline uint64_t cs_rank_mask(int rank) noexcept nogil:
    """The bits of `rank` (1..13) in all four suits: a group is a subset of this mask."""
    return (<uint64_t>0x0001000100010001ULL) << rank


cdef inline void cs_clear(cardset_t* a) noexcept nogil:
    a.layer[0] = 0
    a.layer[1] = 0
    a.layer[2] = 0
    a.jokers = 0

cdef inline int cs_add(cardset_t* a, int c) noexcept nogil:
    """Add one copy of c; -1 for a 4th copy (or a 256th joker) or a bad id."""
    cdef uint64_t b, carry, t
    cdef int k
    if c == CS_JOKER:
        if a.jokers == 255:
            return -1
        a.jokers += 1
        return 0
    if c < 0 or c > CS_JOKER:
        return -1
    b = (<uint64_t>1) << cs_bit(c)
    if a.layer[2] & b:
        return -1
    carry = b                     # unary increment: set the lowest layer not yet set
    for k in range(3):
        t = a.layer[k] & carry
        a.layer[k] |= carry
        carry = t
    return 0

cdef inline int cs_remove(cardset_t* a, int c) noexcept nogil:
    """Remove one copy of c; -1 when c is absent or a bad id."""
    cdef uint64_t b
    if c == CS_JOKER:
        if a.jokers == 0:
            return -1
        a.jokers -= 1
        return 0
    if c < 0 or c > CS_JOKER:
        return -1
    b = (<uint64_t>1) << cs_bit(c)
    if not (a.layer[0] & b):
        return -1
    # unary decrement: each layer takes the bit of the layer above
    a.layer[0] = (a.layer[0] & ~b) | (a.layer[1] & b)
    a.layer[1] = (a.layer[1] & ~b) | (a.layer[2] & b)
    a.layer[2] &= ~b
    return 0

cdef inline int cs_count_of(const cardset_t* a, int c) noexcept nogil:
    cdef int i
    if c == CS_JOKER:
        return a.jokers
    if c < 0 or c > CS_JOKER:
        return 0
    i = cs_bit(c)
    return <int>(((a.layer[0] >> i) & 1) + ((a.layer[1] >> i) & 1) + ((a.layer[2] >> i) & 1))

# With nested layers a card's count l0+l1+l2 is (l0^l1^l2) + 2*l1 (odd counts, counts >= 2),
# so a weighted count takes two popcounts per mask instead of three.

cdef inline int cs_size(const cardset_t* a) noexcept nogil:
    if CS_HW_POPCNT:  # three independent instructions beat the xor chain (measured)
        return (cs_popcount(a.layer[0]) + cs_popcount(a.layer[1]) + cs_popcount(a.layer[2])
                + a.jokers)
    return (cs_popcount(a.layer[0] ^ a.layer[1] ^ a.layer[2]) + 2 * cs_popcount(a.layer[1])
            + a.jokers)

cdef inline bint cs_equal(const cardset_t* a, const cardset_t* b) noexcept nogil:
    return (a.layer[0] == b.layer[0] and a.layer[1] == b.layer[1]
            and a.layer[2] == b.layer[2] and a.jokers == b.jokers)

cdef inline bint cs_subset(const cardset_t* a, const cardset_t* b) noexcept nogil:
    """count_a(c) <= count_b(c) for every card, jokers included."""
    return ((a.layer[0] & ~b.layer[0]) | (a.layer[1] & ~b.layer[1])
            | (a.layer[2] & ~b.layer[2])) == 0 and a.jokers <= b.jokers

cdef inline int cs_union_add(cardset_t* a, const cardset_t* b) noexcept nogil:
    """a += b (multiset sum); -1 if a card would exceed 3 copies (or jokers 255).

    Unary addition: a+b > k iff a > i-1 and b > j-1 for some i+j = k+1 (layer[-1] = all).
    """
    cdef uint64_t a0 = a.layer[0], a1 = a.layer[1], a2 = a.layer[2]
    cdef uint64_t b0 = b.layer[0], b1 = b.layer[1], b2 = b.layer[2]
    if (a2 & b0) | (a1 & b1) | (a0 & b2) or <int>a.jokers + b.jokers > 255:
        return -1
    a.layer[0] = a0 | b0
    a.layer[1] = a1 | b1 | (a0 & b0)
    a.layer[2] = a2 | b2 | (a1 & b0) | (a0 & b1)
    a.jokers += b.jokers
    return 0

cdef inline int cs_difference(cardset_t* a, const cardset_t* b) noexcept nogil:
    """a -= b (multiset difference); -1 unless b is a subset of a.

    Unary subtraction: a-b > k iff a > j+k and b <= j for some j.
    """
    cdef uint64_t a0 = a.layer[0], a1 = a.layer[1], a2 = a.layer[2]
    cdef uint64_t b0 = b.layer[0], b1 = b.layer[1], b2 = b.layer[2]
    if not cs_subset(b, a):
        return -1
    a.layer[0] = (a0 & ~b0) | (a1 & ~b1) | (a2 & ~b2)
    a.layer[1] = (a1 & ~b0) | (a2 & ~b1)
    a.layer[2] = a2 & ~b0
    a.jokers -= b.jokers
    return 0

cdef inline int pt_init(pointtab_t* t, const int32_t* pts) noexcept nogil:
    """Point table from pts[0..52] (per card id, pts[52] the joker); -1 unless every card
    value is in 0 .. 2**16-1 (the joker value is any int32)."""
    cdef int c, b, i
    for b in range(CS_MAXPLANE):
        t.plane[b] = 0
    t.nplane = 0
    t.joker = pts[CS_JOKER]
    for c in range(CS_JOKER):
        if pts[c] < 0 or pts[c] >= (1 << CS_MAXPLANE):
            return -1
        i = cs_bit(c)
        for b in range(CS_MAXPLANE):
            if (pts[c] >> b) & 1:
                t.plane[b] |= (<uint64_t>1) << i
                if b >= t.nplane:
                    t.nplane = b + 1
    return 0

cdef inline int64_t cs_points(const cardset_t* a, const pointtab_t* t) noexcept nogil:
    """Sum of points of every copy: over planes b, 2**b * (copies of the plane's cards)."""
    cdef int64_t total = <int64_t>a.jokers * t.joker
    cdef uint64_t odd = a.layer[0] ^ a.layer[1] ^ a.layer[2], two = a.layer[1]
    cdef int b
    for b in range(t.nplane):
        total += (<int64_t>(cs_popcount(odd & t.plane[b])
                            + 2 * cs_popcount(two & t.plane[b]))) << b
    return total

cdef inline void cs_to_counts(const cardset_t* a, uint8_t* out) noexcept nogil:
    """out[0..52] = counts (out[52] jokers)."""
    cdef int c
    for c in range(CS_JOKER):
        out[c] = <uint8_t>cs_count_of(a, c)
    out[CS_JOKER] = a.jokers

cdef inline int cs_from_counts(cardset_t* a, const uint8_t* counts) noexcept nogil:
    """a = counts[0..52]; -1 (a unchanged) if a card has more than 3 copies."""
    cdef uint64_t l0 = 0, l1 = 0, l2 = 0, b
    cdef int c
    for c in range(CS_JOKER):
        if counts[c] > CS_MAXCOPY:
            return -1
        b = (<uint64_t>1) << cs_bit(c)
        if counts[c] > 0:
            l0 |= b
        if counts[c] > 1:
            l1 |= b
        if counts[c] > 2:
            l2 |= b
    a.layer[0] = l0
    a.layer[1] = l1
    a.layer[2] = l2
    a.jokers = counts[CS_JOKER]
    return 0


cdef class CardSet:
    # the Python card set; compiled code reads and writes `s` with the cs_* functions
    cdef cardset_t s
    cdef int _set_counts(self, const uint8_t[::1] counts) except -1
