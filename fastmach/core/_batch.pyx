# The solver's Python-facing fast paths (compiled): one position with no Python-level
# parsing, and a batch of positions given as count arrays, solved without the GIL.
#
# Every position goes through _solve_row, so a single solve and a batch agree by
# construction: copies checked, the exact solve, and the table's own validity checked
# only when it is not already known (the table given as valid melds, or trusted) and the
# answer does not prove it (an answer that places no hand card is a partition of the
# table alone; no answer at all means the table has none either).
from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t
from libc.string cimport memcpy, memset
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from cpython.long cimport PyLong_AsLongAndOverflow, PyLong_CheckExact

import threading

import numpy as np
cimport numpy as cnp

from fastmach.core._fields cimport new_record, put
from fastmach.core._solver cimport Solver, SolverRules, Witness, NCARD, JOKER, MAX_MELDS, MAX_TABLE

cnp.import_array()

# row status codes (fastmach.solver.batch.STATUS gives their names)
cdef enum:
    ST_SOLVED = 0
    ST_INVALID_TABLE = -1
    ST_COPIES = -2
    ST_BAD_CARDS = -3
    ST_LIMIT = -4
    ST_INTERNAL = -5
    NOT_FAST = -99       # (solve_position: not the fast form)

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static Py_ssize_t fm_fetch_add(Py_ssize_t* p, Py_ssize_t k) {
        return (Py_ssize_t)_InterlockedExchangeAdd64((volatile __int64*)p, (__int64)k);
    }
    #else
    static Py_ssize_t fm_fetch_add(Py_ssize_t* p, Py_ssize_t k) {
        return __atomic_fetch_add(p, k, __ATOMIC_RELAXED);
    }
    #endif
    """
    # atomically: old = *p; *p += k; return old (the next chunk of rows for a worker)
    Py_ssize_t fm_fetch_add(Py_ssize_t* p, Py_ssize_t k) noexcept nogil

cdef enum:
    CHUNK = 8    # rows a worker takes at a time

cdef uint8_t _NO_HAND[NCARD]
memset(_NO_HAND, 0, NCARD)


cdef struct Rec:
    SolverRules sr
    int jokers            # jokers in the deck (copies check)
    int scale             # value = placed weight // scale (points: 256, cards: 1)
    int32_t card_w[NCARD]
    int32_t joker_w[16]


cdef class Record:
    """A validated Rules record and objective as the compiled core needs them (reused)."""
    cdef Rec rec

    def __init__(self, int decks, int ace_high, int jokers_per_meld, int jokers,
                 card_w, joker_w, int scale):
        cdef int i
        self.rec.sr.decks = decks
        self.rec.sr.ace_high = ace_high
        self.rec.sr.jokers_per_meld = jokers_per_meld
        self.rec.jokers = jokers
        self.rec.scale = scale
        for i in range(NCARD):
            self.rec.card_w[i] = card_w[i]
        for i in range(16):
            self.rec.joker_w[i] = joker_w[i]


# ------------------------------------------------------------------- one row

cdef bint _meld_ok(const int* cards, int n, int ace_high, int limited) noexcept nogil:
    """Is this one valid group or run? (the rules of fastmach.core.validate.meld_problem)"""
    cdef int i, c, real = 0, jokers = 0, rank = -1, suit = -1, aces = 0, lo, hi, top
    cdef int seen[14]
    cdef bint group = 1, run = 1, fits
    cdef int suits_seen = 0
    if n < 3:
        return 0
    for i in range(n):
        if cards[i] == JOKER:
            jokers += 1
    real = n - jokers
    if real == 0 or (limited and jokers > 1):
        return 0
    memset(seen, 0, sizeof(seen))
    for i in range(n):
        c = cards[i]
        if c == JOKER:
            continue
        if rank < 0:
            rank = c % 13
            suit = c // 13
        if c % 13 != rank or (suits_seen >> (c // 13)) & 1:
            group = 0
        suits_seen |= 1 << (c // 13)
        if c // 13 != suit:
            run = 0
        if c % 13 == 0:
            aces += 1
        else:
            if seen[c % 13 + 1]:
                run = 0
            seen[c % 13 + 1] = 1
    if group and n <= 4:
        return 1
    if not run or (ace_high == 2 and n >= 14):
        return 0   # (ace_high 2: low or high, never both: no A 2 ... K A run)
    top = 14 if ace_high else 13
    for lo in range(1, top - n + 2):
        hi = lo + n - 1
        fits = 1
        for i in range(2, 14):
            if seen[i] and (i < lo or i > hi):
                fits = 0
                break
        if fits and aces <= (1 if lo <= 1 else 0) + (1 if (ace_high and hi >= 14) else 0):
            return 1
    return 0


cdef int _solve_row(Solver solver, const uint8_t* t, const uint8_t* h, const Rec* rec,
                    int table_known, uint8_t* placed, Witness* wit,
                    int64_t* value) noexcept nogil:
    """Solve one position; a status code (ST_*), placed counts and value when solved."""
    cdef int c
    cdef int64_t total, acc = 0, check
    cdef bint any_placed = 0
    for c in range(JOKER):
        if t[c] + h[c] > rec.sr.decks:
            return ST_COPIES
    if t[JOKER] + h[JOKER] > rec.jokers:
        return ST_COPIES
    total = solver.solve(t, h, &rec.sr, rec.card_w, rec.joker_w, placed, wit)
    if total == -1:
        return ST_INVALID_TABLE   # (a valid table would allow placing nothing)
    if total >= 0:
        for c in range(NCARD):
            if placed[c]:
                any_placed = 1
                acc += placed[c] * rec.card_w[c]
    if not table_known and (total < 0 or any_placed) and not (
            total >= 0 and wit != NULL and (_melds_without(wit, placed, &rec.sr, 0)
                                            or _melds_without(wit, placed, &rec.sr, 1))):
        check = solver.solve(t, _NO_HAND, &rec.sr, rec.card_w, rec.joker_w, NULL, NULL)
        if check == -1:
            return ST_INVALID_TABLE
    if total == -4:
        return ST_LIMIT
    if total < 0:
        return ST_INTERNAL
    value[0] = acc // rec.scale
    return ST_SOLVED


cdef bint _melds_without(const Witness* wit, const uint8_t* placed, const SolverRules* sr,
                         bint backwards) noexcept nogil:
    """Does taking the placed cards out of the answer's melds leave valid melds (or none)?

    If so those melds partition the table alone, which proves it valid without a second
    solve (a play that extends runs and groups or lays new melds). Only a proof: when it
    fails (the play rearranged the table) the table is solved alone. A placed card with
    copies in several melds is taken from the first one met (`backwards`: the last)."""
    cdef int left[NCARD]
    cdef int keep[MAX_TABLE]
    cdef int k, m, i, c, n
    for c in range(NCARD):
        left[c] = placed[c]
    for k in range(wit.n_melds):
        m = wit.n_melds - 1 - k if backwards else k
        n = 0
        for i in range(wit.start[m], wit.start[m + 1]):
            c = wit.cards[i]
            if left[c] > 0:
                left[c] -= 1
            else:
                keep[n] = c
                n += 1
        if n > 0 and (n > 16 or not _meld_ok(keep, n, sr.ace_high, sr.jokers_per_meld == 1)):
            return 0
    return 1


# ------------------------------------------------------------------- one position

cdef int _count_ids(object seq, int* counts, int* buf, int* n_out) except -2:
    """Add a list/tuple of plain int card ids to counts (-1: not that form, or a bad id)."""
    cdef Py_ssize_t i, n = len(seq)
    cdef long c
    cdef int overflow = 0
    cdef object x
    for i in range(n):
        x = seq[i]
        if not PyLong_CheckExact(x):
            return -1
        c = PyLong_AsLongAndOverflow(x, &overflow)
        if overflow or c < 0 or c >= NCARD:
            return -1   # (an id past a C long: the parse names it)
        counts[c] += 1
        if buf != NULL and i < 16:
            buf[i] = <int>c
    if n_out != NULL:
        n_out[0] = <int>n
    return 0


cdef int _count_array(object a, int* counts) except -2:
    """Copy a uint8 count array of length NCARD into counts (-1: not that form)."""
    cdef const uint8_t[::1] view
    cdef int c
    if type(a) is not np.ndarray or a.dtype != np.uint8 or a.ndim != 1 \
            or a.shape[0] != NCARD or not a.flags.c_contiguous:
        return -1
    view = a
    for c in range(NCARD):
        counts[c] += view[c]
    return 0


cdef tuple _INTS = tuple(range(256))   # the card ids' int objects (no allocation)


cdef object _ids_list(const uint8_t* counts):
    cdef int c, k, n = 0, pos = 0
    for c in range(NCARD):
        n += counts[c]
    out = PyList_New(n)
    for c in range(NCARD):
        for k in range(counts[c]):
            _set(out, pos, _INTS[c])
            pos += 1
    return out


cdef inline void _set(list lst, Py_ssize_t i, object x):
    Py_INCREF(x)
    PyList_SET_ITEM(lst, i, x)


cdef object _witness_lists(const uint8_t* cards, const uint8_t* stands,
                           const uint8_t* start, int n_melds):
    cdef int m, i, a, b
    melds = PyList_New(n_melds)
    st = PyList_New(n_melds)
    for m in range(n_melds):
        a = start[m]
        b = start[m + 1]
        one = PyList_New(b - a)
        two = PyList_New(b - a)
        for i in range(a, b):
            _set(one, i - a, _INTS[cards[i]])
            _set(two, i - a, _INTS[stands[i]])
        _set(melds, m, one)
        _set(st, m, two)
    return melds, st


cdef object _wit_lists(const Witness* wit):
    """(melds, stands) lists of a solver's witness."""
    cdef uint8_t start[MAX_MELDS + 1]
    cdef int m
    for m in range(wit.n_melds + 1):
        start[m] = <uint8_t>wit.start[m]
    return _witness_lists(wit.cards, wit.stands, start, wit.n_melds)


cdef object _result(int status, const uint8_t* placed, Witness* wit, int64_t value):
    if status != ST_SOLVED:
        return (status, None, None, None, 0)
    melds, stands = _wit_lists(wit)
    return (status, _ids_list(placed), melds, stands, value)


cdef Solver _solver = Solver()   # single solves hold the GIL: one at a time


def python_solver():
    """The solver of single solves (solve_position, solve_counts_one): whoever shares it
    uses it with the GIL held (the reference State's engines: fastmach.engine.make_engine)."""
    return _solver


def solve_position(table, hand, Record rec, bint trusted):
    """One position in its fast form: (status, placed, melds, stands, value), or None.

    The fast form: the hand a list/tuple of int card ids or a uint8 count array; the
    table a list/tuple of melds (each a list/tuple of ids; each checked on its own: all
    valid means a valid table), a flat list/tuple of ids, a uint8 count array, None or
    "". Anything else returns None (the caller parses it). ``trusted``: the table is
    known to be valid (its check is skipped).
    """
    cdef uint8_t placed[NCARD]
    cdef Witness wit
    cdef int64_t value = 0
    cdef int status = _position(table, hand, rec, trusted, placed, &wit, &value)
    if status == NOT_FAST:
        return None
    return _result(status, placed, &wit, value)


def solve_known(table, hand, rules, objective, bint trusted, dict records, type solution):
    """``fastmach.solver.solve`` when its answer is ready here, else None (the caller
    takes its full path): ``records`` maps id(rules) to (rules, objective, (rules,
    Record)) for the Rules objects seen before (fastmach.solver._BY_OBJECT); the position
    in its fast form (solve_position), a known table (known_table) read from its counts.
    Returns a ``solution`` (the Solution dataclass) with the fields of solve_position's
    answer, the status (an int) of a position that failed, or None (rules not seen, or
    not the fast form)."""
    return _solve_known(table, hand, rules, objective, trusted, records, solution)


# fastmach.solver.solve: solve_known's answer, else the solver module's full path
# (set_solve_path; until then solve raises)
cdef object _full_path = None
cdef dict _path_records = None
cdef type _path_solution = None


def set_solve_path(full, dict records, type solution):
    """Make ``solve`` answer through solve_known with ``records`` and ``solution``
    (fastmach.solver's), and hand what it does not answer to
    ``full(table, hand, rules, objective, trusted, answer)``, its full path (answer:
    solve_known's None or failed status)."""
    global _full_path, _path_records, _path_solution
    _full_path, _path_records, _path_solution = full, records, solution


def solve(table, hand, rules="classic", objective="cards", *, trusted=False):
    """The maximum set of hand cards that can join the table, with a partition.

    ``objective="cards"`` maximises the number of cards placed; ``"points"`` maximises
    their points under ``rules.hand_points`` (ties: more cards). A table that is not
    itself a valid set of melds raises FastmachError.

    The fast call: the hand as a list of card ids, the table as a list of melds (each
    checked on its own, which is enough when all are valid), a ``Rules`` object. Text and
    count arrays are parsed first. ``trusted=True`` skips the table's check: for a table
    known to be valid (from the engine, an observation of a game).
    """
    if _full_path is None:
        raise RuntimeError("fastmach.core._batch.solve: import fastmach.solver first")
    sol = _solve_known(table, hand, rules, objective, trusted, _path_records, _path_solution)
    if type(sol) is _path_solution:
        return sol   # a Rules object seen before, the position in its fast form
    return _full_path(table, hand, rules, objective, trusted, sol)


cdef object _solve_known(table, hand, rules, objective, bint trusted, dict records,
                         type solution):
    cdef uint8_t placed[NCARD]
    cdef Witness wit
    cdef int64_t value = 0
    cdef int status
    cdef const uint8_t* counts = NULL
    hit = records.get(id(rules))
    if hit is None or (<tuple>hit)[0] is not rules or (<tuple>hit)[1] is not objective:
        return None
    rec = (<tuple>(<tuple>hit)[2])[1]
    if type(table) is tuple:
        counts = _known_counts_of(table)   # a game's table, as an observation holds it
    if counts != NULL:
        status = _position_on(counts, hand, <Record?>rec, placed, &wit, &value)
    else:
        status = _position(table, hand, <Record?>rec, trusted, placed, &wit, &value)
    if status == NOT_FAST:
        return None
    if status != ST_SOLVED:
        return status    # failed: the caller's full path names the fault
    melds, stands = _wit_lists(&wit)
    # solution(...) without the frozen dataclass's __init__ (fastmach.core._fields)
    sol = new_record(solution)
    put(sol, "placed", _ids_list(placed))
    put(sol, "melds", melds)
    put(sol, "stands", stands)
    put(sol, "points", value)
    return sol


# The game tables shown to Python bots, with their card counts (known_table): tuples of
# tuples of exact ints, immutable and valid (the engine's own). The N_KNOWN noted last are
# held (a reference each, so that the object stays theirs), found by identity, newest
# first (a bot asks about the table it was just shown).
cdef enum:
    N_KNOWN = 64
cdef PyObject* _known_tables[N_KNOWN]
cdef uint8_t _known_counts[N_KNOWN][NCARD]
cdef int _known_next = 0   # the slot the next table noted takes (the oldest)
memset(_known_tables, 0, sizeof(_known_tables))


cdef const uint8_t* _known_counts_of(object table) noexcept:
    """The card counts of ``table`` when it was noted (this very object), else NULL."""
    cdef int i
    for i in range(_known_next - 1, -1, -1):
        if _known_tables[i] == <PyObject*>table:
            return _known_counts[i]
    for i in range(N_KNOWN - 1, _known_next - 1, -1):
        if _known_tables[i] == <PyObject*>table:
            return _known_counts[i]
    return NULL


def known_table(tuple table):
    """Note ``table`` (a game's table, a tuple of tuples of exact ints: the engine's, shown
    in an observation) as valid for ``solve``, which then reads it from its counts. A
    table of another form is not noted."""
    cdef int tc[NCARD]
    cdef uint8_t t[NCARD]
    cdef int c
    memset(tc, 0, sizeof(tc))
    for m in table:
        if type(m) is not tuple or _count_ids(m, tc, NULL, NULL) < 0:
            return
    for c in range(NCARD):
        if tc[c] > 255:
            return
        t[c] = <uint8_t>tc[c]
    if _known_counts_of(table) == NULL:   # (else: the same object, the same counts)
        note_known(table, t)


cdef int note_known(tuple table, const uint8_t* counts) except -1:
    """known_table for a table whose card counts are already known (the compiled bot
    seat's, counted from the meld list it made the tuples of: a new tuple each time; a
    table noted twice would take two slots, found at the newer)."""
    global _known_next
    cdef int i = _known_next
    cdef PyObject* old
    old = _known_tables[i]
    Py_INCREF(table)
    _known_tables[i] = <PyObject*>table
    memcpy(_known_counts[i], counts, NCARD)
    _known_next = (i + 1) % N_KNOWN
    Py_XDECREF(old)   # (last: a tuple of tuples of ints runs no code as it goes)
    return 0


def is_known_table(table) -> bool:
    """Whether ``table`` was noted by known_table (this very object, among the
    N_KNOWN tables noted last)."""
    return type(table) is tuple and _known_counts_of(table) != NULL


cdef int _hand_counts(hand, int* hc) except -100:
    """A hand in its fast form (card ids in a list or tuple, or a counts array) counted
    into hc (zeroed first): 0, or NOT_FAST."""
    memset(hc, 0, NCARD * sizeof(int))
    if type(hand) is list or type(hand) is tuple:
        if _count_ids(hand, hc, NULL, NULL) < 0:
            return NOT_FAST
    elif _count_array(hand, hc) < 0:
        return NOT_FAST
    return 0


cdef int _position_on(const uint8_t* t, hand, Record rec, uint8_t* placed, Witness* wit,
                      int64_t* value) except -100:
    """_position on a valid table given as counts."""
    cdef int hc[NCARD]
    cdef uint8_t h[NCARD]
    cdef int c
    if _hand_counts(hand, hc) < 0:
        return NOT_FAST
    for c in range(NCARD):
        if hc[c] > 255:
            return NOT_FAST
        h[c] = <uint8_t>hc[c]
    return _solve_row(_solver, t, h, &rec.rec, 1, placed, wit, value)


cdef int _position(table, hand, Record rec, bint trusted, uint8_t* placed, Witness* wit,
                   int64_t* value) except -100:
    """Solve one position in its fast form (solve_position): a status (ST_*), or
    NOT_FAST when it is not in that form."""
    cdef int tc[NCARD]
    cdef int hc[NCARD]
    cdef int buf[16]
    cdef uint8_t t[NCARD]
    cdef uint8_t h[NCARD]
    cdef int c, known = trusted, n
    cdef Py_ssize_t i, nm
    memset(tc, 0, sizeof(tc))
    if _hand_counts(hand, hc) < 0:
        return NOT_FAST
    if table is None or (type(table) is str and len(table) == 0):
        known = 1
    elif type(table) is np.ndarray:
        if _count_array(table, tc) < 0:
            return NOT_FAST
    elif type(table) is list or type(table) is tuple:
        nm = len(table)
        if nm == 0:
            known = 1
        elif type(table[0]) is list or type(table[0]) is tuple:
            known = 1
            for i in range(nm):
                m = table[i]
                if not (type(m) is list or type(m) is tuple):
                    return NOT_FAST
                if _count_ids(m, tc, buf, &n) < 0:
                    return NOT_FAST
                if not trusted and (n > 16 or not _meld_ok(buf, n, rec.rec.sr.ace_high,
                                                           rec.rec.sr.jokers_per_meld == 1)):
                    known = 0   # not all valid melds: the whole table is checked
        elif _count_ids(table, tc, NULL, NULL) < 0:
            return NOT_FAST
    else:
        return NOT_FAST
    for c in range(NCARD):
        if tc[c] > 255 or hc[c] > 255:
            return NOT_FAST
        t[c] = <uint8_t>tc[c]
        h[c] = <uint8_t>hc[c]
    return _solve_row(_solver, t, h, &rec.rec, known, placed, wit, value)


def solve_counts_one(cnp.uint8_t[::1] t, cnp.uint8_t[::1] h, Record rec, bint known):
    """One position as count arrays: (status, placed, melds, stands, value)."""
    cdef uint8_t placed[NCARD]
    cdef Witness wit
    cdef int64_t value = 0
    cdef int status
    if t.shape[0] != NCARD or h.shape[0] != NCARD:
        raise ValueError("count arrays must have length 53")
    status = _solve_row(_solver, &t[0], &h[0], &rec.rec, known, placed, &wit, &value)
    return _result(status, placed, &wit, value)


def melds_lists(cnp.uint8_t[::1] cards, cnp.uint8_t[::1] stands, cnp.uint8_t[::1] start):
    """(melds, stands) lists from one stored partition (see BatchJob)."""
    cdef int n = 0
    while n < MAX_MELDS and start[n + 1] > start[n]:
        n += 1
    return _witness_lists(&cards[0], &stands[0], &start[0], n)


# ------------------------------------------------------------------- a batch

cdef class BatchJob:
    """The arrays of one batch and the loop that fills them (rows split over workers)."""
    cdef const uint8_t[:, ::1] T
    cdef const uint8_t[:, ::1] H
    cdef const uint8_t[::1] known
    cdef uint8_t[:, ::1] placed
    cdef int64_t[::1] value
    cdef int8_t[::1] status
    cdef uint8_t[:, ::1] wcards
    cdef uint8_t[:, ::1] wstands
    cdef uint8_t[:, ::1] wstart
    cdef bint keep
    cdef Record rec
    cdef Py_ssize_t n
    cdef Py_ssize_t next_row   # the first row no worker has taken yet

    def __init__(self, T, H, known, placed, value, status, Record rec, wcards=None,
                 wstands=None, wstart=None):
        self.T = T
        self.H = H
        self.known = known
        self.placed = placed
        self.value = value
        self.status = status
        self.rec = rec
        self.n = T.shape[0]
        self.keep = wcards is not None
        if self.keep:
            self.wcards = wcards
            self.wstands = wstands
            self.wstart = wstart

    def run(self):
        """Solve chunks of rows (those whose status is still 0) until none is left."""
        cdef Solver solver = Solver()
        cdef Witness wit
        cdef Py_ssize_t i, k, lo, hi
        cdef int64_t v
        cdef int st
        with nogil:
            while True:
                lo = fm_fetch_add(&self.next_row, CHUNK)
                if lo >= self.n:
                    break
                hi = lo + CHUNK if lo + CHUNK < self.n else self.n
                for i in range(lo, hi):
                    if self.status[i] != ST_SOLVED:
                        continue
                    v = 0
                    st = _solve_row(solver, &self.T[i, 0], &self.H[i, 0], &self.rec.rec,
                                    self.known[i], &self.placed[i, 0], &wit, &v)
                    self.status[i] = <int8_t>st
                    if st == ST_SOLVED:
                        self.value[i] = v
                        if self.keep:
                            for k in range(wit.n_melds + 1):
                                self.wstart[i, k] = <uint8_t>wit.start[k]
                            for k in range(wit.start[wit.n_melds]):
                                self.wcards[i, k] = wit.cards[k]
                                self.wstands[i, k] = wit.stands[k]
                    else:
                        memset(&self.placed[i, 0], 0, NCARD)
                        self.value[i] = -1


def run_batch(BatchJob job, int workers):
    """Run a batch on `workers` threads, each taking the next CHUNK rows when it is free
    (a row's answer does not depend on which thread solves it)."""
    job.next_row = 0
    threads = [threading.Thread(target=job.run) for _ in range(1, workers)]
    for th in threads:
        th.start()
    try:
        job.run()
    finally:
        for th in threads:
            th.join()


def meld_ok(meld, int ace_high, int jokers_per_meld):
    """The compiled meld check on one meld (a list of card ids), for the tests."""
    cdef int buf[16]
    cdef int counts[NCARD]
    cdef int n = 0
    memset(counts, 0, sizeof(counts))
    if len(meld) > 16:
        return False
    if _count_ids(list(meld), counts, buf, &n) < 0:
        raise ValueError("a meld is a list of card ids 0..52")
    return bool(_meld_ok(buf, n, ace_high, jokers_per_meld == 1))
