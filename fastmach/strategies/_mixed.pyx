# A mixed player: the member a seat plays in a hand is drawn from the hand's deal key (the
# game's PRNG state when the hand was dealt, HState.deal_key) and the seat, hashed by
# splitmix64's finaliser: the game's PRNG is not advanced, so the other seats' chances
# are those of any other line-up, and the choice depends on no card.
from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t

from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._base cimport Context, Strategy


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef class Mixed(Strategy):

    def __init__(self, Context ctx, members, weights):
        Strategy.__init__(self, ctx)
        members, weights = list(members), [float(w) for w in weights]
        if not 1 <= len(members) <= MAX_MEMBERS or len(weights) != len(members):
            raise ValueError(f"a mixture of 1..{MAX_MEMBERS} members, one weight each")
        if any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError("mixture weights must be >= 0 with a positive sum")
        self.members = members
        self.n = len(members)
        total, acc = sum(weights), 0.0
        for i, m in enumerate(members):
            if not isinstance(m, Strategy):
                raise TypeError("a mixture's members are compiled strategies")
            self.member[i] = <PyObject*>m
            acc += weights[i]
            # member i where the hash falls below cut[i] (the last one catches the rest)
            self.cut[i] = min(int(acc / total * 2.0 ** 64), 2 ** 64 - 1)
        self.cut[self.n - 1] = <uint64_t>0xFFFFFFFFFFFFFFFFULL
        self.melds_blind = all((<Strategy>m).melds_blind for m in members)

    cdef int pick(self, const HState* st, int seat) noexcept nogil:
        cdef uint64_t h = _mix(st.deal_key ^ _mix(<uint64_t>(seat + 1) * <uint64_t>0x9E3779B97F4A7C15ULL))
        cdef int i
        for i in range(self.n):
            if h < self.cut[i] or i == self.n - 1:
                return i
        return self.n - 1

    def member_of(self, uint64_t deal_key, int seat):
        """The index of the member ``seat`` plays in the hand of ``deal_key``."""
        cdef HState st
        st.deal_key = deal_key
        return self.pick(&st, seat)

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        (<Strategy>self.member[self.pick(st, seat)]).decide(st, seat, rng, d)
