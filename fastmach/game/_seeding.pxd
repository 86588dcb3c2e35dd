# The deal's draws in C, from the Generator that fastmach.game._seeding.seed_deal seeds:
# the same numbers as rng.permutation(deck), rng.integers(n) and
# rng.integers(0, 2**64, dtype=uint64) (numpy's own algorithms on its PCG64).
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from numpy.random cimport bitgen_t


cdef bitgen_t* bitgen_of(object gen) except NULL


cdef inline uint64_t draw_interval(bitgen_t* b, uint64_t top) noexcept nogil:
    """A uniform integer in [0, top]: numpy's random_interval (the smallest mask over top,
    drawn again until the value is at most top; 32-bit draws while top fits in 32 bits)."""
    cdef uint64_t mask = top, value
    if top == 0:
        return 0
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    if top <= 0xFFFFFFFFULL:
        value = b.next_uint32(b.state) & mask
        while value > top:
            value = b.next_uint32(b.state) & mask
    else:
        value = b.next_uint64(b.state) & mask
        while value > top:
            value = b.next_uint64(b.state) & mask
    return value


cdef inline void draw_shuffle(bitgen_t* b, uint8_t* deck, int n) noexcept nogil:
    """Shuffle deck[0..n) in place as Generator.shuffle does a 1-D array (Fisher-Yates from
    the last item down, each swap with draw_interval(i))."""
    cdef int i, j
    cdef uint8_t t
    for i in range(n - 1, 0, -1):
        j = <int>draw_interval(b, <uint64_t>i)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


cdef inline uint32_t draw_below(bitgen_t* b, uint32_t n) noexcept nogil:
    """A uniform integer in [0, n), 1 <= n < 2**32, as Generator.integers(n): Lemire's
    multiply and reject on 32-bit draws (numpy's buffered_bounded_lemire_uint32)."""
    cdef uint32_t rng = n - 1, leftover, threshold
    cdef uint64_t m
    if rng == 0:
        return 0
    m = <uint64_t>b.next_uint32(b.state) * <uint64_t>n
    leftover = <uint32_t>(m & 0xFFFFFFFFULL)
    if leftover < n:
        threshold = (<uint32_t>0xFFFFFFFFULL - rng) % n
        while leftover < threshold:
            m = <uint64_t>b.next_uint32(b.state) * <uint64_t>n
            leftover = <uint32_t>(m & 0xFFFFFFFFULL)
    return <uint32_t>(m >> 32)


cdef inline uint64_t draw_uint64(bitgen_t* b) noexcept nogil:
    """Generator.integers(0, 2**64, dtype=uint64): one 64-bit draw."""
    return b.next_uint64(b.state)
