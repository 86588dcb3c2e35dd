# The quick rejects of _reject.pxd, callable from Python (the tests compare them with the
# exact solver on random positions).
from libc.stdint cimport uint8_t

import numpy as np

from fastmach.core._solver cimport NCARD


def none_can_join_counts(table, hand, cand=None, int ace_high=0) -> bool:
    """``none_can_join`` on count arrays of length 53 (``cand`` default: the whole hand)."""
    cdef const uint8_t[::1] t = np.ascontiguousarray(table, dtype=np.uint8)
    cdef const uint8_t[::1] h = np.ascontiguousarray(hand, dtype=np.uint8)
    cdef const uint8_t[::1] k = np.ascontiguousarray(hand if cand is None else cand, dtype=np.uint8)
    if t.shape[0] != NCARD or h.shape[0] != NCARD or k.shape[0] != NCARD:
        raise ValueError(f"counts of length {NCARD} expected")
    return bool(none_can_join(&t[0], &h[0], &k[0], ace_high))
