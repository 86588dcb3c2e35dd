# Card-id sequences as the tuples an action holds, made in C when every id is already an
# exact int (fastmach.game.actions.Play's constructor; any other input returns None and the
# constructor converts it in Python, the reference), and a hand's ids from its counts (the
# State's rows; NumPy's repeat the reference). tests/strategies/test_bot_answer.py compares them.
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memset

from operator import index

import numpy as np

from fastmach.core._fields cimport put
from fastmach.errors import FastmachError

cdef tuple _INTS = tuple(range(256))


cdef inline void _put(tuple t, Py_ssize_t i, object x):
    Py_INCREF(x)
    PyTuple_SET_ITEM(t, i, x)


cdef object _ints(seq):
    """seq (a list or tuple of exact ints) as a tuple, else None."""
    cdef Py_ssize_t i, n
    if type(seq) is tuple:
        for x in <tuple>seq:
            if type(x) is not int:
                return None
        return seq
    if type(seq) is not list:
        return None
    n = len(seq)
    out = PyTuple_New(n)
    for i in range(n):
        x = (<list>seq)[i]
        if type(x) is not int:
            # the slots filled so far are released with the tuple; the rest are NULL
            for j in range(i, n):
                _put(out, j, None)
            return None
        _put(out, i, x)
    return out


def int_melds(melds):
    """``tuple(tuple(m) for m in melds)`` when melds is a list or tuple of lists or
    tuples of exact ints; else None."""
    return _int_melds(melds)


cdef object _int_melds(melds):
    cdef Py_ssize_t i, n
    if type(melds) is not list and type(melds) is not tuple:
        return None
    n = len(melds)
    out = PyTuple_New(n)
    for i in range(n):
        m = _ints(melds[i])
        if m is None:
            for j in range(i, n):
                _put(out, j, None)
            return None
        _put(out, i, m)
    return out


cdef enum:
    SHORT = 32   # up to this many ids: an insertion sort, else counts of the 256 values


def sorted_ids(ids):
    """``tuple(sorted(ids))`` when ids is a list or tuple of exact ints in 0..255; else
    None."""
    return _sorted_ids(ids)


cdef object _sorted_ids(ids):
    cdef int v[SHORT]
    cdef Py_ssize_t n
    if type(ids) is not list and type(ids) is not tuple:
        return None
    n = len(ids)
    if n > SHORT:
        return _sorted_counted(ids)
    if _read_small(ids, v, n) < 0:
        return None
    if n != len(ids):   # (a list cannot change here: no Python code runs in the loop)
        return None
    return _sorted_tuple(v, n)


cdef int _read_small(ids, int* v, Py_ssize_t n) except -2:
    """ids[0..n) into v when every one is an exact int in 0..255; -1 otherwise."""
    cdef Py_ssize_t i
    cdef long x
    for i in range(n):
        item = ids[i]
        if type(item) is not int:
            return -1
        try:
            x = item
        except OverflowError:
            return -1
        if x < 0 or x > 255:
            return -1
        v[i] = <int>x
    return 0


cdef tuple _sorted_tuple(int* v, Py_ssize_t n):
    """v[0..n) sorted (an insertion sort: a play places a few cards) as a tuple of ints."""
    cdef Py_ssize_t i, j
    cdef int x
    for i in range(1, n):
        x = v[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x
    out = PyTuple_New(n)
    for i in range(n):
        _put(out, i, _INTS[v[i]])
    return out


cdef object _sorted_counted(ids):
    """sorted_ids by counting the 256 values (a long sequence)."""
    cdef int count[256]
    cdef Py_ssize_t k = 0, n
    cdef long v
    cdef int c, j
    memset(count, 0, sizeof(count))
    n = len(ids)
    for x in ids:
        if type(x) is not int:
            return None
        try:
            v = x
        except OverflowError:
            return None
        if v < 0 or v > 255:
            return None
        count[v] += 1
    if n != len(ids):   # (a list cannot change here: no Python code runs in the loop)
        return None
    out = PyTuple_New(n)
    for c in range(256):
        for j in range(count[c]):
            _put(out, k, _INTS[c])
            k += 1
    return out


def ids_of_counts(counts):
    """The sorted card ids of 53 card counts (a NumPy int64 or uint8 row, or a list of
    ints) as a list: ``np.repeat(np.arange(53), counts).tolist()``."""
    cdef const int64_t[::1] v64
    cdef const uint8_t[::1] v8
    cdef int c, k, n
    cdef list out = []
    if type(counts) is np.ndarray and counts.ndim == 1 and counts.shape[0] == 53 \
            and counts.flags.c_contiguous and (counts.dtype == np.int64 or counts.dtype == np.uint8):
        if counts.dtype == np.int64:
            v64 = counts
            for c in range(53):
                if v64[c] < 0:
                    raise ValueError("ids_of_counts: a negative count")
                for k in range(v64[c]):
                    out.append(_INTS[c])
        else:
            v8 = counts
            for c in range(53):
                for k in range(v8[c]):
                    out.append(_INTS[c])
        return out
    return np.repeat(np.arange(53), counts).tolist()


def play_init(self, melds, placed, taken=(), stands=None, rng_after=None):
    """``Play.__init__`` (fastmach.game.actions): the fields as tuples of ints (melds and
    stands tuples of tuples, placed sorted), exact ints taken as they are, any other
    integer (a NumPy integer, a bool) by its value; a float or a string is refused."""
    m = _int_melds(melds)
    if m is None:
        m = tuple([tuple(map(_card_id, x)) for x in melds])
    p = _sorted_ids(placed)
    if p is None:
        p = tuple(sorted(map(_card_id, placed)))
    t = () if type(taken) is tuple and len(taken) == 0 else tuple(map(_card_id, taken))
    s = None
    if stands is not None:
        s = _int_melds(stands)
        if s is None:
            s = tuple([tuple(map(_card_id, x)) for x in stands])
    # stored as the frozen dataclass's __init__ stores them (object.__setattr__)
    put(self, "melds", m)
    put(self, "placed", p)
    put(self, "taken", t)
    put(self, "stands", s)
    put(self, "rng_after", rng_after)


def _card_id(x):
    """An integer card id (``operator.index``: 7.0 or "7" is no card id, not truncated)."""
    try:
        return index(x)
    except TypeError:
        raise FastmachError(f"Play: a card id must be an integer, got {x!r}") from None


def rng_init(self, rng_after=None):
    """``Draw.__init__`` and ``Pass.__init__`` (fastmach.game.actions): the frozen
    dataclass's own, compiled (a bot draws most turns)."""
    put(self, "rng_after", rng_after)
