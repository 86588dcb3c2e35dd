# The reference State's hands in C: each seat's 53 card counts are a row of a NumPy int64
# array (fastmach.game.State._hands); these read and change the rows without NumPy's
# per-call cost (a few microseconds each, several times a turn). tests/game/test_state_rows.py
# compares them with the NumPy expressions they replace.
from libc.stdint cimport int64_t

import numpy as np

DEF NCARD = 53
DEF JOKER = 52


def sizes(const int64_t[:, ::1] hands):
    """Each row's number of cards, a tuple of ints: ``tuple(hands.sum(axis=1).tolist())``."""
    cdef Py_ssize_t s, c
    cdef int64_t n
    out = []
    for s in range(hands.shape[0]):
        n = 0
        for c in range(hands.shape[1]):
            n += hands[s, c]
        out.append(n)
    return tuple(out)


def lay(int64_t[::1] row, tuple placed, Py_ssize_t taken):
    """Take the ``placed`` card ids (a tuple of ints in 0..52) out of the 53 counts of
    ``row`` and put ``taken`` jokers in; returns the cards left. The caller has checked the
    play (the row holds every placed card): a count that would go negative is an error."""
    cdef Py_ssize_t i, c, k
    cdef int64_t n = 0
    if row.shape[0] != NCARD:
        raise ValueError("lay: a row holds 53 card counts")
    for i in range(len(placed)):
        c = placed[i]
        if c < 0 or c >= NCARD or row[c] <= 0:
            for k in range(i):   # (left as it was)
                row[<Py_ssize_t>placed[k]] += 1
            raise ValueError(f"lay: card {c} is not in the row")
        row[c] -= 1
    row[JOKER] += taken
    for c in range(NCARD):
        n += row[c]
    return n


def deal(list cards, int players, int hand_size, int first):
    """The hands dealt from ``cards`` (the deck's order, card ids), one card at a time
    clockwise from seat ``first``: (a players x 53 int64 array of card counts, each
    seat's sorted card ids as a tuple)."""
    cdef Py_ssize_t k, s, c, j
    cdef int64_t[:, ::1] v
    if players <= 0 or hand_size < 0 or players * hand_size > len(cards):
        raise ValueError("deal: not enough cards for the hands")
    if not 0 <= first < players:
        raise ValueError("deal: the first seat is not a seat")
    rows = np.zeros((players, NCARD), dtype=np.int64)
    v = rows
    for k in range(players * hand_size):
        c = cards[k]
        if c < 0 or c >= NCARD:
            raise ValueError(f"deal: card id {c} out of 0..52")
        v[(first + k) % players, c] += 1
    ids = []
    for s in range(players):
        out = []
        for c in range(NCARD):
            for j in range(v[s, c]):
                out.append(c)
        ids.append(tuple(out))
    return rows, tuple(ids)
