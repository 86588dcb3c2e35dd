# The jokers a sweep's states still need (included by fastmach/core/_solver.pyx, used by
# _sweep, _suit_step and _group_step).
#
# Why: with jokers most states of a sweep have no completion at all (in positions of
# 4-player games with 4 jokers, typically 97-99.7% of the states of a sweep made without
# any bound): they spent their jokers early on cards that could have gone without, and the
# table cards further on need them. They die a few values later, after having been made,
# hashed and compared. Here a first, cheaper sweep finds how many jokers any partition
# must use after each value, and the states that could not have that many left are not
# made.
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
# fewer than need[v] left (jtot - j < need[v]) has no completion; need is non-increasing in
# v, so a step that uses no joker (a copied layer) never needs the check.
#
# Why the answer stays the same. Call a state live when some path of the plain sweep leads
# from it to a final state. Every state that makes, or improves, a live state is live; so
# dropping states with no completion (never live) leaves every live state, its value, its
# back-pointer (the first of its best predecessors) and the order of the live states in
# each layer as they were, and every final state is live. One thing depends on the dead
# states: the dominance pass after a step runs, or not, or in one suit or every suit, by
# the size of the layer, and that size is no longer the plain sweep's. A state that
# dominates a live state is live (it can do everything the other can), so on the live
# states any pass marks the same states in both sweeps; and if the pass over every suit
# marks no state of the layer, neither does the pass in one suit (it checks a part of the
# same rules on the same values), nor no pass. So once a state has been dropped, every
# layer is checked that way (_no_dominance); if one is not so, the sweep is made again
# without dropping any state (the plain sweep). Every final state, every value and every
# back-pointer that the answer reads are then the plain sweep's.
#
# (One difference remains: a sweep that drops states needs fewer than MAX_STATES where
# the plain one might not; the plain solve would report -4 or try the other direction.)
# Tests: tests/test_solver_joker_need.py (the answers and final layers with _set_need(0),
# random, adversarial and joker-heavy positions and those of expert games; the bound
# against a brute force of the fewest jokers).
cdef enum:
    NEED_DISAGREES = -5     # _sweep_run: a dominance pass would have marked a state


cdef bint _no_dominance(Impl* im) noexcept nogil:
    """Does the dominance pass over every suit mark no state of the layer just made?
    (When it marks one the sweep is abandoned, so nothing is put back.)"""
    cdef int i, lo = im.layer_start[im.n_layers], hi = im.n_nodes, before = 0, after = 0
    if hi - lo < 2:
        return True
    for i in range(lo, hi):
        before += im.nodes[i].val >= 0
    _prune_dominated(im, -1)
    for i in range(lo, hi):
        after += im.nodes[i].val >= 0
    return after == before


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
    _NEED_COUNT[2] += im.n_nodes
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
