# The moves of a suit step without jokers, listed once for the whole process (included
# by fastmach/core/_solver.pyx, used by _suit_step_plain).
#
# Without jokers, what a state can do with the cards of suit s at value v depends only
# on its open runs of that suit (a1, a2, a3: the 6 low bits of its 15), how many cards
# must / may be used there (m <= A <= 3), whether runs of length 1 or 2 may stay open
# (the next values can take them) and whether value 1 is the aces' low one (aces high:
# groups of aces are made at 14). Those choices are walked here once, for every such
# case, in the order of the nested walk of _suit_step_plain_walk (cards used, then
# 3+ runs going on, then new runs), and kept as one list per case; a suit step then
# filters each state's list by what the rest of the state says (the groups so far, the
# bound on the weight to come) and places the moves in the new key. The states made,
# their order and their back-pointers are exactly those of the walk (tests: the switch
# _set_plain_moves(0) walks instead; -1 plants a wrong list that they must catch).
# a move, in 16 bits (the lists stay in a few cache lines):
#   u:2 cards of the suit used here | g:2 of them, set aside for groups |
#   F:6 the suit's new bits of k1 (a1 | a2 << 2 | a3 << 4) |
#   x3:2 3+ runs going on (decision field D_X3 / D_P3) | n0:2 new runs (D_N0)
ctypedef uint16_t PMove

cdef inline PMove _pm_pack(int u, int g, int F, int x3, int n0) noexcept nogil:
    return <PMove>(u | (g << 2) | (F << 4) | (x3 << 10) | (n0 << 12))

cdef enum:
    # a case: (F, m, A, whether short runs may stay open (0 no, 1 length 2, 2 also 1), acelow)
    PM_CASES = 64 * 4 * 4 * 3 * 2
    PM_CAP = 65535       # (offsets are 16 bits)


cdef uint16_t _PM_OFF[PM_CASES + 1]
cdef PMove _PM[PM_CAP]


cdef inline int _pm_case(int F, int m, int A, int open_ok, int acelow) noexcept nogil:
    return (((F * 4 + m) * 4 + A) * 3 + open_ok) * 2 + acelow


cdef int _pm_init(int planted) noexcept nogil:
    """Fill the lists (planted = 1: a wrong one, for the tests: the last two moves of
    every list with three or more change places). The number of moves, or -1."""
    cdef int F, m, A, op, acelow, a1, a2, a3, short_ok, one_ok, R0, u, x3, R, e3, n0, g
    cdef int n = 0, c, na1, na2, na3, first
    cdef PMove tmp
    for F in range(64):
        a1 = F & 3
        a2 = (F >> 2) & 3
        a3 = (F >> 4) & 3
        for m in range(4):
            for A in range(4):
                for op in range(3):
                    short_ok = op >= 1
                    one_ok = op == 2
                    for acelow in range(2):
                        c = _pm_case(F, m, A, op, acelow)
                        _PM_OFF[c] = n
                        first = n
                        R0 = a1 + a2
                        if R0 > A or (a1 > 0 and not short_ok):
                            continue
                        for u in range(m if m > R0 else R0, A + 1):
                            for x3 in range(a3 + 1):
                                R = R0 + x3
                                if R > u:
                                    break
                                e3 = a3 - x3
                                for n0 in range(u - R + 1):
                                    if n0 > 0 and e3 > 0:
                                        break
                                    g = u - R - n0
                                    na1 = n0
                                    na2 = a1
                                    na3 = a2 + x3
                                    if (na1 + na2) > 0 and not short_ok:
                                        continue
                                    if na1 > 0 and not one_ok:
                                        continue
                                    if na3 > 3:
                                        continue
                                    if acelow and g > 0:
                                        continue
                                    if n == PM_CAP:
                                        return -1
                                    _PM[n] = _pm_pack(u, g, na1 | (na2 << 2) | (na3 << 4),
                                                      x3, n0)
                                    n += 1
                        if planted and n - first >= 3:
                            tmp = _PM[n - 1]
                            _PM[n - 1] = _PM[n - 2]
                            _PM[n - 2] = tmp
    _PM_OFF[PM_CASES] = n
    return n


if _pm_init(0) < 0:
    raise MemoryError("the plain suit step's move lists outgrew PM_CAP")
