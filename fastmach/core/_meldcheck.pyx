# The compiled check of a proposed table: are these melds valid, and do they hold exactly
# the expected cards? The fast path of a Python bot's Play (fastmach.game.actions); its
# reference is fastmach.core.validate (tests/core/test_meldcheck.py compares the two on random
# and adversarial tables). It answers only yes or no: on a no, the caller asks the
# validator, which names what is wrong. Its own card arithmetic (card id = suit*13 +
# rank-1, joker 52), shared with neither the solver nor the validator.
from libc.string cimport memset

DEF JOKER = 52
DEF NCARD = 53


cdef bint meld_ok(const int* cards, int n, bint ace_high, int jokers_per_meld,
                  bint ace_both_ends) noexcept nogil:
    """Whether the n cards are a group or a run under the rules."""
    cdef int i, c, jokers = 0, real = 0, rank = -1, suit = -1, suits = 0
    cdef bint one_rank = True, one_suit = True, distinct_suits = True
    cdef int aces = 0, lo_o = 99, hi_o = -1, top, lo, hi, slots
    cdef unsigned int seen = 0
    cdef bint distinct_others = True
    if n < 3:
        return False
    for i in range(n):
        c = cards[i]
        if c == JOKER:
            jokers += 1
            continue
        real += 1
        if rank < 0:
            rank, suit = c % 13, c // 13
        if c % 13 != rank:
            one_rank = False
        if c // 13 != suit:
            one_suit = False
        if suits & (1 << (c // 13)):
            distinct_suits = False
        suits |= 1 << (c // 13)
        if c % 13 == 0:
            aces += 1
        else:
            if seen & (1u << (c % 13 + 1)):
                distinct_others = False
            seen |= 1u << (c % 13 + 1)
            if c % 13 + 1 < lo_o:
                lo_o = c % 13 + 1
            if c % 13 + 1 > hi_o:
                hi_o = c % 13 + 1
    if real == 0:
        return False
    if jokers_per_meld and jokers > jokers_per_meld:
        return False
    if one_rank and distinct_suits and n <= 4:
        return True  # a group (a 14-card meld is never one)
    if not one_suit or not distinct_others:
        return False
    top = 14 if ace_high else 13
    for lo in range(1, top - n + 2):
        hi = lo + n - 1
        if hi_o >= 0 and (lo_o < lo or hi_o > hi):
            continue
        slots = (lo <= 1) + (ace_high and hi >= 14)
        if aces <= slots:
            return ace_both_ends or n != 14
    return False


def partition_ok(melds, expected, int decks, bint ace_high, int jokers_per_meld,
                 bint ace_both_ends=True) -> bool:
    """Whether ``melds`` (lists of card ids) are valid melds holding exactly the
    ``expected`` card ids (a list, any order) with at most ``decks`` copies of a card,
    i.e. whether ``validate.check_partition`` would accept them. Anything malformed (not
    an int card id, not a list) is a no."""
    cdef int want[NCARD]
    cdef int used[NCARD]
    cdef int buf[128]
    cdef int n, i, c
    memset(want, 0, sizeof(want))
    memset(used, 0, sizeof(used))
    try:
        for x in expected:
            if type(x) is not int:
                return False
            c = x
            if c < 0 or c > JOKER:
                return False
            want[c] += 1
        for meld in melds:
            n = len(meld)
            if n > 128:
                return False
            for i in range(n):
                x = meld[i]
                if type(x) is not int:
                    return False
                c = x
                if c < 0 or c > JOKER:
                    return False
                buf[i] = c
                used[c] += 1
            if not meld_ok(buf, n, ace_high, jokers_per_meld, ace_both_ends):
                return False
    except (TypeError, OverflowError):
        return False
    for c in range(NCARD):
        if used[c] != want[c]:
            return False
        if c != JOKER and want[c] > decks:
            return False
    return True
