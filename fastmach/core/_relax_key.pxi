# The relaxation's answer as a bound on the exact search's with aces high (included by
# fastmach/core/_solver.pyx, used by Solver._solve_one and Solver._solve_exact when the
# switch _RELAX_KEY is on, as it is by default).
#
# With one joker per meld the solver first solves the relaxation that counts runs by
# length only (_solve_one); when its partition holds a meld of two jokers the exact search
# runs, with the relaxation's value as a bound (Impl.ub). Every partition of the exact
# search is one of the relaxation, and the relaxation's answer is the best of those by
# value, then by the tie-break key (_key_plan: a sum over the cards used, the same in both
# searches). So no exact partition beats the relaxation's answer, by value then key: when
# the exact search's aces-low answer reaches it (the same value and key), its search with
# aces high, which keeps only what beats that answer, would find nothing, and is not run:
# the aces-low answer is returned, rebuilt from its path as after that search. Every
# answer stays, melds included. (On the bench's jokers positions the exact search with
# aces high ran 60,678 states on the slowest one, half its time.) Tests:
# tests/core/test_solver_relax_key.py.

cdef inline bint _high_needless(Impl* im, int64_t low_val, skey low_sec) noexcept nogil:
    """Can the search with aces high not beat the aces-low answer (low_val, low_sec), the
    relaxation's answer (im.ub, im.ub_sec) reached (see above; as the switch
    _set_relax_key says: 1 this test, -1 deliberately wrong, whenever the relaxation's
    answer is known)?"""
    if not im.ub_keyed:
        return False
    if _RELAX_KEY < 0:
        return True
    return low_val == im.ub and low_sec == im.ub_sec
