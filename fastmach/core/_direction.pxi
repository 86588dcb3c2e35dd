# Which direction a position is swept in (included by _solver.pyx).
#
# A position and its mirror (rank r -> 15 - r with aces high, 14 - r with aces low only)
# have the same answer: the same value and placed cards (the canonical tie-break is a sum
# over the cards used, the same both ways), the melds those of that direction's search.
# The states a sweep makes depend much on the direction.
#
# Without jokers: the sweep drops states once they have left out more than the answer
# allows, so it is fastest when the hand's cards come early; a hand heavy in high ranks is
# solved mirrored.
#
# With jokers (which may stand anywhere) the hand says little: on the positions of jokers
# games the faster direction is 2.1-2.4x faster over all than the one the hand chose, often
# 10-100x on one position. What the cards say: a position whose cards (table and hand,
# aces aside) lie low (a mean rank under 7.25, a bias to the direction as given fitted on
# one set of positions and checked on two others) is solved mirrored, so that the sweep
# starts from its high end. Measured in docs/solver.md ("Which direction").


cdef inline int mirror_first(const uint8_t* table, const uint8_t* hand,
                             const SolverRules* rules, const int32_t* card_w) noexcept nogil:
    """1 when the position is solved mirrored first, 0 as it is."""
    cdef int c, s, r, n
    cdef int64_t num = 0, den = 0
    if _DENSE_FIRST and table[JOKER] + hand[JOKER] > 0:
        # the cards' mean rank (aces aside) under 7.25
        for s in range(4):
            for r in range(2, 14):
                c = s * 13 + r - 1
                n = table[c] + hand[c]
                num += n * r
                den += n
        return 4 * num < 29 * den
    # the hand's mean rank (by weight) above the middle (7.5 aces high, 7 aces low only)
    for s in range(4):
        for r in range(2, 14):
            c = s * 13 + r - 1
            num += hand[c] * card_w[c] * r
            den += hand[c] * card_w[c]
    return 2 * num > (15 if rules.ace_high else 14) * den
