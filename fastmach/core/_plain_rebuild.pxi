# The melds of a sweep without jokers, rebuilt from its decision words (included by
# fastmach/core/_solver.pyx, used by _rebuild_decs when no joker is in play).
#
# Without jokers no run holds one, so a suit step's decision says only how many of the
# suit's open runs of each length bucket (1, 2, 3+) go on (x1; x2 + p2; x3 + p3: the
# fields of runs without / whatever jokers, only one of which a plain step writes), how
# many new runs start (n0) and how many cards are used (u). _rebuild_decs takes the runs
# that go on by one search of the run list per bucket (_pick: the first open ones of the
# suit in that bucket, in list order), then ends the others (list order) and starts the
# new ones at the end of the list. Here each suit keeps its open runs in list order, and
# one walk over them gives each run its fate: it goes on when its bucket has runs left to
# go on (the first ones in list order, as _pick chooses), else it ends there. The melds
# come out in the same order (the runs ending at (v, s) in list order, then the groups of
# v, then the runs still open at the end in list order), with the same cards. Tests:
# tests/core/test_solver_plain_rebuild.py (every answer the same with _set_plain_rebuild(0);
# -1 plants a wrong choice of the runs that go on, which they must catch).

cdef int _rebuild_plain(Impl* im, const uint64_t* decs, int V, Witness* w) noexcept nogil:
    """_rebuild_decs for a sweep without jokers (im.jtot == 0): the same melds."""
    cdef CRun runs[MAX_RUNS]
    cdef int open_runs[4][MAX_RUNS]   # the open runs of each suit, in list order
    cdef int nopen[4]
    cdef int gcount[4]
    cdef int left[4]                  # runs of each bucket (1..3) still to go on
    cdef int v, s, t, b, ri, kept, nr = 0, u, n0, c, cont
    cdef int planted = _PLAIN_REBUILD < 0
    cdef uint64_t d
    w.n_melds = 0
    w.start[0] = 0
    nopen[0] = nopen[1] = nopen[2] = nopen[3] = 0
    for v in range(1, V + 1):
        for s in range(4):
            d = decs[5 * (v - 1) + s + 1]
            u = _dget(d, D_U)
            if u == 0 and nopen[s] == 0:
                gcount[s] = 0
                continue   # nothing of this suit here
            c = _card_at(s, v)
            left[1] = _dget(d, D_X1)
            left[2] = _dget(d, D_X2) + _dget(d, D_P2)
            left[3] = _dget(d, D_X3) + _dget(d, D_P3)
            cont = left[1] + left[2] + left[3]
            if planted and nopen[s] >= 2:
                # (the wrong choice the tests must see: the last run of the list first)
                ri = open_runs[s][0]
                open_runs[s][0] = open_runs[s][nopen[s] - 1]
                open_runs[s][nopen[s] - 1] = ri
            kept = 0
            for t in range(nopen[s]):
                ri = open_runs[s][t]
                b = runs[ri].length if runs[ri].length < 3 else 3
                if left[b] > 0:
                    left[b] -= 1
                    _run_add(&runs[ri], c, c)
                    open_runs[s][kept] = ri
                    kept += 1
                else:
                    # a run not going on ends here (it must hold 3 cards or more)
                    if runs[ri].length < 3:
                        return -1
                    if _emit(w, runs[ri].cards, runs[ri].stands, runs[ri].n) < 0:
                        return -1
                    runs[ri].open = 0
            if left[1] or left[2] or left[3]:
                return -1   # (fewer open runs than the decision continues)
            nopen[s] = kept
            n0 = _dget(d, D_N0)
            for t in range(n0):
                if nr >= MAX_RUNS:
                    return -1
                runs[nr].suit = s
                runs[nr].length = 0
                runs[nr].joker = 0
                runs[nr].open = 1
                runs[nr].n = 0
                _run_add(&runs[nr], c, c)
                open_runs[s][nopen[s]] = nr
                nopen[s] += 1
                nr += 1
            gcount[s] = u - cont - n0
        if (gcount[0] or gcount[1] or gcount[2] or gcount[3] or decs[5 * v]) \
                and _rebuild_groups(im, w, v, gcount, <int>decs[5 * v]) < 0:
            return -1
    for t in range(nr):
        if runs[t].open:
            if runs[t].length < 3:
                return -1
            if _emit(w, runs[t].cards, runs[t].stands, runs[t].n) < 0:
                return -1
    return 0
