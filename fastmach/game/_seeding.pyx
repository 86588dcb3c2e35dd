# The deal's generator of one replicate, seeded in C.
#
# Replicate r of root seed S deals from numpy's default_rng(SeedSequence([r, S])) (see
# fastmach.engine). Building that SeedSequence and its PCG64 costs tens of microseconds of
# Python-level work per game; seed_deal puts the same PCG64 state into a Generator made
# once: numpy's SeedSequence (O'Neill's seed_seq: the entropy as 32-bit words, mixed into a
# pool of 4 words, then 8 words of state drawn from the pool) and PCG64's seeding (state
# and increment from those words, two steps of the generator), in plain integers. The test
# suite compares it with numpy's own on random and extreme seeds. The draws of a deal
# (_seeding.pxd) then run in C on that Generator's PCG64; deal_draws returns them for the
# tests, which compare them with numpy's permutation and integers.
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from numpy.random cimport bitgen_t

import numpy as np

cdef enum:
    POOL = 4
    MAX_WORDS = 8    # two non-negative integers below 2**128 each

cdef uint32_t INIT_A = 0x43b0d7e5
cdef uint32_t MULT_A = 0x931e8875
cdef uint32_t INIT_B = 0x8b51f9dd
cdef uint32_t MULT_B = 0x58f38ded
cdef uint32_t MIX_MULT_L = 0xca01f9dd
cdef uint32_t MIX_MULT_R = 0x4973f715
cdef int XSHIFT = 16

_MASK128 = (1 << 128) - 1
_PCG_MULT = (2549297995355413924 << 64) | 4865540595714422341   # PCG's 128-bit multiplier


cdef inline uint32_t _hashmix(uint32_t value, uint32_t* hash_const) noexcept nogil:
    value ^= hash_const[0]
    hash_const[0] *= MULT_A
    value *= hash_const[0]
    value ^= value >> XSHIFT
    return value


cdef inline uint32_t _mix(uint32_t x, uint32_t y) noexcept nogil:
    cdef uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y
    result ^= result >> XSHIFT
    return result


cdef int _words(object n, uint32_t* out, int k) except -1:
    """The 32-bit words of a non-negative integer, least significant first (0: one word)."""
    if n < 0:
        raise ValueError("expected non-negative integer")
    if n == 0:
        out[k] = 0
        return k + 1
    while n > 0:
        if k >= MAX_WORDS:
            raise ValueError("seed_deal: integers below 2**128 only")
        out[k] = <uint32_t>(n & 0xFFFFFFFF)
        n >>= 32
        k += 1
    return k


def pcg64_state(replicate, root_seed):
    """(state, inc) of numpy's PCG64(SeedSequence([replicate, root_seed]))."""
    cdef uint32_t entropy[MAX_WORDS]
    cdef uint32_t pool[POOL]
    cdef uint32_t words[2 * POOL]
    cdef uint32_t hash_const = INIT_A, v
    cdef int n = 0, i, j
    n = _words(int(replicate), entropy, n)
    n = _words(int(root_seed), entropy, n)
    for i in range(POOL):
        pool[i] = _hashmix(entropy[i] if i < n else 0, &hash_const)
    for i in range(POOL):
        for j in range(POOL):
            if i != j:
                pool[j] = _mix(pool[j], _hashmix(pool[i], &hash_const))
    for i in range(POOL, n):
        for j in range(POOL):
            pool[j] = _mix(pool[j], _hashmix(entropy[i], &hash_const))
    hash_const = INIT_B
    for i in range(2 * POOL):
        v = pool[i % POOL] ^ hash_const
        hash_const *= MULT_B
        v *= hash_const
        v ^= v >> XSHIFT
        words[i] = v
    # four 64-bit words (little-endian pairs): the seed is (w0 << 64) | w1, the stream w2, w3
    w0 = words[0] | (<uint64_t>words[1] << 32)
    w1 = words[2] | (<uint64_t>words[3] << 32)
    w2 = words[4] | (<uint64_t>words[5] << 32)
    w3 = words[6] | (<uint64_t>words[7] << 32)
    seed = (int(w0) << 64) | int(w1)
    inc = (((int(w2) << 64) | int(w3)) << 1 | 1) & _MASK128
    state = inc & _MASK128                       # state 0, one step
    state = (state + seed) & _MASK128
    state = (state * _PCG_MULT + inc) & _MASK128
    return state, inc


def seed_deal(gen, replicate, root_seed):
    """Put into ``gen`` (a numpy Generator on a PCG64) the state of
    ``default_rng(SeedSequence([replicate, root_seed]))``; returns ``gen``."""
    state, inc = pcg64_state(replicate, root_seed)
    gen.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                               "has_uint32": 0, "uinteger": 0}
    return gen


cdef bitgen_t* bitgen_of(object gen) except NULL:
    """The C face of a numpy Generator's bit generator (valid while ``gen`` lives)."""
    return <bitgen_t*> PyCapsule_GetPointer(gen.bit_generator.capsule, "BitGenerator")


def deal_draws(replicate, root_seed, deck, int players, int hands=1, bint cut=False):
    """The draws of one replicate's deal as the engine makes them in C: (the shuffled
    decks of ``hands`` hands, the dealer, the in-game seed, the cut's first player or -1);
    the same as ``rng.permutation(deck)``, ``rng.integers(players)``,
    ``rng.integers(0, 2**64, dtype=uint64)``, ``rng.integers(players)`` (under ``cut``),
    then ``rng.permutation(deck)`` for each later hand, on
    ``default_rng(SeedSequence([replicate, root_seed]))``."""
    cdef uint8_t[::1] d
    cdef bitgen_t* b
    cdef int first = -1, dealer, h
    cdef uint64_t seed
    sorted_deck = np.asarray(deck, dtype=np.uint8)
    if players < 1 or hands < 1:
        raise ValueError("players and hands must be at least 1")
    gen = seed_deal(np.random.Generator(np.random.PCG64()), replicate, root_seed)
    b = bitgen_of(gen)
    decks = []
    for h in range(hands):
        shuffled = sorted_deck.copy()
        d = shuffled
        draw_shuffle(b, &d[0] if d.shape[0] else NULL, <int>d.shape[0])
        decks.append(shuffled)
        if h == 0:
            dealer = <int>draw_below(b, <uint32_t>players)
            seed = draw_uint64(b)
            if cut:
                first = <int>draw_below(b, <uint32_t>players)
    return decks, dealer, int(seed), first


def draws_below(replicate, root_seed, n, int k):
    """``k`` draws of ``draw_below(n)`` (tests: against ``rng.integers(n)``; a large ``n``
    makes the rejections frequent)."""
    if not 1 <= n < 2**32:
        raise ValueError("n must be in [1, 2**32)")
    gen = seed_deal(np.random.Generator(np.random.PCG64()), replicate, root_seed)
    cdef bitgen_t* b = bitgen_of(gen)
    cdef uint32_t m = <uint32_t>n
    return [int(draw_below(b, m)) for _ in range(k)]
