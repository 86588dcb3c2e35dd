# The group step of a sweep without jokers (included by fastmach/core/_solver.pyx, used by
# _group_step).
#
# Without jokers the group step only checks, for each state, that the cards set aside at
# this value form groups (_group_ok with no joker: looked up in a table made once), and
# the bound on the weight to come; then the state goes on with its group fields cleared.
# The same states in the same order as _group_step's walk over the jokers it could add
# (none here). (Both checks already hold after the last suit step, which tests the same
# bound and that the groups are possible with no card to come; they are kept, cheap, so
# that the step stands on its own.) Tests: tests/core/test_solver_plain_steps.py (every layer and answer the same
# with _set_plain_groups(0)).

cdef uint8_t _GOK0[2][16][4]   # _group_ok(gsum, gmax, 0, limited)


cdef void _init_plain_groups() noexcept nogil:
    cdef int lim, gs, gm
    for lim in range(2):
        for gs in range(16):
            for gm in range(4):
                _GOK0[lim][gs][gm] = _group_ok(gs, gm, 0, lim)


_init_plain_groups()


cdef int _group_step_plain(Impl* im, int v) noexcept nogil:
    """_group_step for a sweep without jokers (im.jtot == 0): the same states."""
    cdef int lo = im.layer_start[im.n_layers], hi = im.n_nodes
    cdef int i, bounded = im.lb >= 0
    cdef uint64_t k2
    cdef int64_t val, rest = im.rest[v][3], lb = im.lb
    cdef uint8_t* ok = &_GOK0[im.limited][0][0]
    _open_layer(im)
    for i in range(lo, hi):
        val = im.nodes[i].val
        if val < 0:
            continue
        k2 = im.nodes[i].k2
        if not ok[((k2 >> 3) & 15) * 4 + ((k2 >> 7) & 3)]:
            continue
        if bounded and val + rest + _aces_left(im, k2, v, 3) <= lb \
                and _bound_drop(im, val + rest + _aces_left(im, k2, v, 3), _sec(&im.nodes[i]),
                              k2, v, 3):
            continue
        if _insert(im, im.nodes[i].k1, k2 & ~(<uint64_t>0x1FF), val, _sec(&im.nodes[i]), i,
                   0) < 0:
            return -4
    return 0
