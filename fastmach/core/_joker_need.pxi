# Whether the search with aces high can beat the aces-low value, asked of a sweep that
# drops the states left with too few jokers (included by fastmach/core/_solver.pyx, used by
# Solver._solve_exact, _suit_step and _group_step).
#
# Why: with aces high the exact search sweeps again, with the aces-low value as its bound,
# and in about half of the slowest jokers positions of 4-player games that sweep finds
# nothing better (the aces-low answer stands) after making some 40,000-60,000 states.
# Almost all of them are dead ends: with no bound and no dominance pass, 0.3% (225 of
# 65,714) of the states of one such sweep have a completion at all. Most spent their
# jokers early where the table's later cards need them. Here, when the aces-low sweep was
# large (NEED_FROM states), a sweep that does not make those states answers the question
# "does any aces-high partition weigh more than the aces-low one?" first; only when it does
# (or when asking would cost more than half the aces-low sweep's states, twice) is the
# exact sweep made (its answer, melds included, is then the one returned).
#
# The bound (_set_need). need[v] is at most the number of jokers charged after the steps
# of value v (the suit steps of later values, their group steps) on any path of the sweep
# that reaches a final state. It is read from a sweep of the mirrored position (rank r ->
# V + 1 - r, the ace staying the ace), where the values after v come first: a partition of
# the position is a partition of its mirror, and on the mirror's path the jokers charged
# up to the group step of value V - v all stand for values after v of the position (a run's
# jokers are charged at the value they stand for, or at its first real card for the
# leading ones, which stand for earlier values; a group's at its value), so there are no
# more of them than the position's path charges after v (where a leading joker of a run
# that starts after v is charged even when it stands for v or earlier). That mirror sweep
# minimises the jokers used (card weights 0, joker weights -1, the root worth MINJ_ROOT, so
# a state's value is MINJ_ROOT - jokers used), with no bound on the weight, runs counted by
# length only (merged: a relaxation of one joker per meld, so no fewer partitions), and
# without the jokers used in the key: of the states that differ only there, the one that
# used fewer can do everything the other can, so keeping it (the best value) keeps the
# fewest jokers at every layer, as does the dominance pass (it compares states with equal
# jokers used). need[v] = the fewest jokers used by a state of the mirror's group-step
# layer of value V - v (need[V] = 0). A state at a step of value v with j jokers used and
# fewer than need[v] left (jtot - j < need[v]) has no completion and is not made; need is
# non-increasing in v, so a step that uses no joker (a copied layer) needs no check.
#
# Why the answer stays the same. The question is about the value only: the sweep that
# drops those states still holds, at every layer, a state at least as good as any state
# of an optimal partition's path (the states dropped have no completion; the bound on the
# weight and the dominance pass are those of every sweep), so it finds a partition beating
# the aces-low value exactly when the exact sweep would. When it finds none, the exact
# sweep would return none either and the aces-low answer is returned, as it would have
# been; when it finds one, the exact sweep is made as before. Which states that sweep
# makes, in what order, and so which of equal answers it returns, are untouched.
# Tests: tests/test_solver_joker_need.py (the answers with _set_need_on(0), on random,
# adversarial and joker-heavy positions and those of expert games; need against a brute
# force of the fewest jokers on small positions).
cdef enum:
    NEED_FROM = 4096   # aces-low sweeps from this many states ask first (smaller ones:
                       # the question costs about what it saves)


cdef bint _high_can_beat(Impl* im, int budget) noexcept nogil:
    """With aces high (im set up for that sweep, im.lb the aces-low value): may some
    partition weigh more than im.lb? False only when none does; True too when either of
    the two sweeps asking would make more than `budget` states. The last sweep's states
    are lost."""
    cdef int best, n_sweeps = im.n_sweeps
    if im.jtot == 0 or not _NEED:
        return True
    im.budget = budget
    _set_need(im)
    if not im.need_on:
        im.budget = 0
        return True
    best = _sweep(im)
    _NEED_STATES[0] += im.n_nodes
    im.budget = 0
    memset(im.need, 0, sizeof(im.need))
    im.need_on = 0
    im.n_sweeps = n_sweeps   # (its statistics are not the solve's: see _sweep_stats)
    if best < -1:
        return True   # (out of states: the exact sweep decides)
    return best >= 0 and im.nodes[best].val > im.lb


cdef void _set_need(Impl* im) noexcept nogil:
    """need[v] for the problem in im (see above); all 0 when there is no joker or the
    mirror sweep fails. Leaves the problem as it was (the last sweep's states are lost)."""
    cdef int must[4][16]
    cdef int avail[4][16]
    cdef int64_t w[4][16]
    cdef int64_t jw[16]
    cdef int s, r, m, v, x, i, merged = im.merged, best
    cdef int64_t lb = im.lb, top
    memset(im.need, 0, sizeof(im.need))
    im.need_on = 0
    if im.jtot == 0 or not _NEED:
        return
    memcpy(must, im.must, sizeof(must))
    memcpy(avail, im.avail, sizeof(avail))
    memcpy(w, im.w, sizeof(w))
    memcpy(jw, im.jw, sizeof(jw))
    for s in range(4):
        for r in range(1, 14):
            # (aces high: r -> 15 - r, the ace staying at 1; aces low: r -> 14 - r)
            if im.ace_high:
                m = 1 if r == 1 else 15 - r
            else:
                m = 14 - r
            im.must[s][m] = must[s][r]
            im.avail[s][m] = avail[s][r]
        im.avail[s][14] = im.avail[s][1] if im.ace_high else 0
        for v in range(16):
            im.w[s][v] = 0
    for v in range(16):
        im.jw[v] = -1
    im.merged = 1
    im.lb = -1
    im.minj = 1
    best = _sweep_run(im)
    _NEED_STATES[0] += im.n_nodes
    im.minj = 0
    if best >= 0:
        for v in range(1, im.V):
            x = im.V - v          # the mirror's values 1..x are the position's v+1..V
            top = -1
            for i in range(im.layer_start[5 * x], im.layer_start[5 * x + 1]):
                if im.nodes[i].val > top:
                    top = im.nodes[i].val
            # (no state there: no partition at all; nothing is dropped for it)
            im.need[v] = <int>(MINJ_ROOT - top) if top >= 0 else 0
        im.need_on = 1
    memcpy(im.must, must, sizeof(must))
    memcpy(im.avail, avail, sizeof(avail))
    memcpy(im.w, w, sizeof(w))
    memcpy(im.jw, jw, sizeof(jw))
    im.merged = merged
    im.lb = lb
