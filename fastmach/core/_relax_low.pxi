# The relaxation's aces-low answer tells the exact search's (included by
# fastmach/core/_solver.pyx, used by Solver._solve_one and Solver._solve_exact when the
# switch _RELAX_LOW is on, as it is by default).
#
# With one joker per meld and aces high, the relaxation (runs counted by length only) runs
# its search with aces low, then the one with aces high; when its answer holds a meld of
# two jokers the exact search runs both again. Every partition of the exact search with
# aces low is one of the relaxation's with aces low, and the tie-break key is a sum over
# the cards used, the same in both. So:
# - when the relaxation's aces-low search found no partition, the exact one finds none:
#   it is not run (its answer, none, is known: the search with aces high then runs alone,
#   as after an aces-low search that found none);
# - when it found one with no meld of two jokers (so an exact partition) and its search
#   with aces high beat it, that partition is the best of the exact search's aces-low ones
#   by value, then key: the exact aces-low answer has its value and key. The exact search
#   then runs its search with aces high first, with those as its bound (the same bound,
#   the same states as after its own aces-low search); when it finds a better partition
#   that is the answer, and the aces-low search is never run; when not, the aces-low
#   search runs after it, for its melds (the same search as before: the same answer).
# Every answer stays, melds included. Tests: tests/core/test_solver_relax_low.py.

cdef enum:
    RL_UNKNOWN = 0   # nothing known of the exact search's aces-low answer
    RL_NONE = 1      # it finds no partition
    RL_EXACT = 2     # its value and key are im.rlow_val, im.rlow_sec
    RL_BEATEN = 3    # (the relaxation: it found one, beaten with aces high; its path in
                     # im.low_decs)


cdef int64_t _RLOW_HITS[2]   # debug: aces-low searches skipped, searches with aces high run
                              # first (_relax_low_hits)


cdef inline void _rlow_note(Impl* im, int found, int64_t val, skey sec) noexcept nogil:
    """The relaxation's aces-low search found a partition (val, sec) or none: noted for
    _rlow_known (RL_NONE; RL_UNKNOWN until its search with aces high beats it)."""
    im.rlow = RL_UNKNOWN if found else RL_NONE
    im.rlow_val = val
    im.rlow_sec = sec


cdef void _rlow_known(Impl* im, Witness* tmp) noexcept nogil:
    """After a relaxation that fell back, before the exact search: what its aces-low
    search tells (im.rlow, see above); tmp: work space for the aces-low partition's melds
    (rebuilt from im.low_decs, the relaxation's state model still in im). _RELAX_LOW: 0
    nothing, -1 (deliberately wrong: the tests must catch it) _high_first's bound on the
    value only, a partition of that value with a higher key dropped."""
    cdef int m, i, k
    if _RELAX_LOW == 0:
        im.rlow = RL_UNKNOWN
        return
    if im.rlow != RL_BEATEN:
        return
    im.rlow = RL_EXACT
    if _rebuild_decs(im, im.low_decs, 13, tmp) < 0:
        im.rlow = RL_UNKNOWN
        return
    for m in range(tmp.n_melds):
        k = 0
        for i in range(tmp.start[m], tmp.start[m + 1]):
            k += tmp.cards[i] == JOKER
        if k > 1:
            im.rlow = RL_UNKNOWN
            return


cdef int64_t _high_first(Impl* im, Witness* scratch, const uint8_t* table, uint8_t* placed,
                         Witness* wit) noexcept nogil:
    """The exact search's answer (< -1: an error) when its aces-low answer's value and key
    are known (RL_EXACT: im.rlow_val, im.rlow_sec) and its search with aces high is
    needed: that search first, bounded as after the aces-low search, then the aces-low
    search only when it beats nothing (see above)."""
    cdef int best
    cdef int64_t low_val = im.rlow_val, val
    cdef skey low_sec = im.rlow_sec
    _RLOW_HITS[1] += 1
    im.lb = low_val
    im.tie = 0 if _RELAX_LOW < 0 else 1
    im.tie_sec = low_sec
    im.capped = im.ub >= 0 and low_val >= im.ub
    im.ace_high = 1
    im.V = 14
    _set_rest(im)
    _set_secrest(im)
    best = _sweep(im)
    im.tie = 0
    im.capped = 0
    if best < -1:
        return best
    if best >= 0 and (im.nodes[best].val > low_val or (im.nodes[best].val == low_val
                                                       and im.best_sec > low_sec)):
        val = im.nodes[best].val
        im.ans_sec = im.best_sec
        if _rebuild(im, best, scratch) < 0:
            return -3
        return _finish(val, table, placed, wit, scratch)
    # nothing beats it: the aces-low search, as it runs first otherwise, for its melds
    im.lb = -1
    im.ace_high = 0
    im.V = 13
    best = -1 if _low_search_needless(im) else _deepening(im)
    if best < -1:
        return best
    if best < 0 or im.nodes[best].val != low_val or im.best_sec != low_sec:
        return -3   # (not the answer the relaxation told: never, see above)
    im.ans_sec = low_sec
    if _rebuild(im, best, scratch) < 0:
        return -3
    im.ace_high = 1   # (as the search with aces high leaves it)
    im.V = 14
    return _finish(low_val, table, placed, wit, scratch)
