# The quick rejects of _reject.pxd, callable from Python (the tests compare them with the
# exact solver on random positions).
from libc.stdint cimport uint8_t
from libc.string cimport memset

import numpy as np

from fastmach.core._solver cimport NCARD
from fastmach.strategies._reject cimport NoPlays, no_plays_known, no_plays_seen


def none_can_join_counts(table, hand, cand=None, int ace_high=0) -> bool:
    """``none_can_join`` on count arrays of length 53 (``cand`` default: the whole hand)."""
    cdef const uint8_t[::1] t = np.ascontiguousarray(table, dtype=np.uint8)
    cdef const uint8_t[::1] h = np.ascontiguousarray(hand, dtype=np.uint8)
    cdef const uint8_t[::1] k = np.ascontiguousarray(hand if cand is None else cand, dtype=np.uint8)
    if t.shape[0] != NCARD or h.shape[0] != NCARD or k.shape[0] != NCARD:
        raise ValueError(f"counts of length {NCARD} expected")
    return bool(none_can_join(&t[0], &h[0], &k[0], ace_high))


cdef class KnownNoPlays:
    """A ``NoPlays`` (positions known without a play), on count arrays of length 53."""
    cdef NoPlays m

    def __cinit__(self):
        memset(&self.m, 0, sizeof(NoPlays))

    def seen(self, table, hand) -> None:
        """Remember (table, hand) as a position without a play."""
        cdef const uint8_t[::1] t = _counts(table)
        cdef const uint8_t[::1] h = _counts(hand)
        no_plays_seen(&self.m, &t[0], &h[0])

    def known(self, table, hand, int ace_high=0) -> bool:
        """Whether no play from ``hand`` adds a card to ``table``, known without the solver."""
        cdef const uint8_t[::1] t = _counts(table)
        cdef const uint8_t[::1] h = _counts(hand)
        return bool(no_plays_known(&self.m, &t[0], &h[0], ace_high))


def _counts(x):
    a = np.ascontiguousarray(x, dtype=np.uint8)
    if a.shape[0] != NCARD:
        raise ValueError(f"counts of length {NCARD} expected")
    return a
