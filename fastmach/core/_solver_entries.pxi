# Python-level entries of the exact solver (included by _solver.pyx): count arrays in,
# the best weight and the placed counts out (solve_counts, place_all_counts), and
# the timing loop of fastmach bench (time_positions). fastmach.solver wraps them.


cdef SolverRules _checked_rules(cnp.ndarray table, cnp.ndarray hand, cnp.ndarray card_w,
                               cnp.ndarray joker_w, int decks, int ace_high,
                               int jokers_per_meld) except *:
    """The rules of a Python-level solve, after its count arrays' lengths are checked."""
    cdef SolverRules rules
    if table.shape[0] != NCARD or hand.shape[0] != NCARD or card_w.shape[0] != NCARD \
            or joker_w.shape[0] < 16:
        raise ValueError("count arrays must have length 53 and joker_w length 16")
    rules.decks = decks
    rules.ace_high = ace_high
    rules.jokers_per_meld = jokers_per_meld
    return rules


def solve_counts(cnp.ndarray[cnp.uint8_t, ndim=1] table not None,
                 cnp.ndarray[cnp.uint8_t, ndim=1] hand not None,
                 int decks, int ace_high, int jokers_per_meld,
                 cnp.ndarray[cnp.int32_t, ndim=1] card_w not None,
                 cnp.ndarray[cnp.int32_t, ndim=1] joker_w not None,
                 bint witness=True, Solver solver=None):
    """Solve one position given as count arrays (length 53, already validated).

    Returns (total, placed_counts, melds, stands) or (-1, None, None, None) when the table
    itself does not split into valid melds. `total` is the summed weight of every card in
    the final melds (table cards included).
    """
    cdef SolverRules rules
    cdef Witness wit
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] placed = np.zeros(NCARD, dtype=np.uint8)
    cdef int64_t total
    cdef int m, i
    rules = _checked_rules(table, hand, card_w, joker_w, decks, ace_high, jokers_per_meld)
    if solver is None:
        solver = _default_solver
    table = np.ascontiguousarray(table)
    hand = np.ascontiguousarray(hand)
    with nogil:
        total = solver.solve(<uint8_t*> table.data, <uint8_t*> hand.data, &rules,
                             <int32_t*> card_w.data, <int32_t*> joker_w.data,
                             <uint8_t*> placed.data, &wit if witness else NULL)
    if total == -1:
        return -1, None, None, None
    if total == -4:
        raise SolverLimitError(
            f"the position needs more than {MAX_STATES} solver states "
            f"({int(table.sum())} table cards, {int(hand.sum())} hand cards)")
    if total < -1:
        raise RuntimeError(f"solver internal error {total}")
    if not witness:
        return total, placed, None, None
    melds = []
    stands = []
    for m in range(wit.n_melds):
        melds.append([wit.cards[i] for i in range(wit.start[m], wit.start[m + 1])])
        stands.append([wit.stands[i] for i in range(wit.start[m], wit.start[m + 1])])
    return total, placed, melds, stands


def place_all_counts(cnp.ndarray[cnp.uint8_t, ndim=1] table not None,
                     cnp.ndarray[cnp.uint8_t, ndim=1] hand not None,
                     int decks, int ace_high, int jokers_per_meld,
                     cnp.ndarray[cnp.int32_t, ndim=1] card_w not None,
                     cnp.ndarray[cnp.int32_t, ndim=1] joker_w not None,
                     bint witness=True):
    """Whether the table and every hand card split into melds (Solver.place_all): the
    melds (lists of card ids) or None; raises SolverLimitError past the state limit.
    witness=False: True (no melds asked for) or None."""
    cdef SolverRules rules
    cdef Witness wit
    cdef int r, m, i
    rules = _checked_rules(table, hand, card_w, joker_w, decks, ace_high, jokers_per_meld)
    table = np.ascontiguousarray(table)
    hand = np.ascontiguousarray(hand)
    with nogil:
        r = _default_solver.place_all(<uint8_t*> table.data, <uint8_t*> hand.data, &rules,
                                      <int32_t*> card_w.data, <int32_t*> joker_w.data,
                                      &wit if witness else NULL)
    if r == -4:
        raise SolverLimitError(f"the position needs more than {MAX_STATES} solver states")
    if r < 0:
        raise RuntimeError(f"solver internal error {r}")
    if r == 0:
        return None
    if not witness:
        return True
    return [[wit.cards[i] for i in range(wit.start[m], wit.start[m + 1])]
            for m in range(wit.n_melds)]


def time_positions(cnp.ndarray[cnp.uint8_t, ndim=2] tables not None,
                   cnp.ndarray[cnp.uint8_t, ndim=2] hands not None,
                   int decks, int ace_high, int jokers_per_meld,
                   cnp.ndarray[cnp.int32_t, ndim=1] card_w not None,
                   cnp.ndarray[cnp.int32_t, ndim=1] joker_w not None,
                   int repeat=3):
    """Benchmark: best-of-`repeat` nanoseconds per solve (with witness) for each position."""
    from time import perf_counter_ns
    cdef Solver solver = Solver()
    cdef SolverRules rules
    cdef Witness wit
    cdef uint8_t placed[NCARD]
    cdef Py_ssize_t i, n = tables.shape[0]
    cdef int r
    cdef long long t0, t1, best
    cdef cnp.ndarray[cnp.int64_t, ndim=1] out = np.zeros(n, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] res = np.zeros(n, dtype=np.int64)
    tables = np.ascontiguousarray(tables)
    hands = np.ascontiguousarray(hands)
    rules.decks = decks
    rules.ace_high = ace_high
    rules.jokers_per_meld = jokers_per_meld
    for i in range(n):
        best = -1
        for r in range(repeat):
            t0 = perf_counter_ns()
            res[i] = solver.solve_direct(&tables[i, 0], &hands[i, 0], &rules,
                                         <int32_t*> card_w.data, <int32_t*> joker_w.data,
                                         placed, &wit)
            t1 = perf_counter_ns()
            if best < 0 or t1 - t0 < best:
                best = t1 - t0
        out[i] = best
    return out, res
