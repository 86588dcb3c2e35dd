# The compiled check of a whole play in a position: the placed cards the seat holds, the
# jokers taken back (joker_swap = hand: each replaced by the real card it stands for), the
# table after the play valid melds of exactly the table before, the placed cards, less the
# jokers taken (fastmach.core._meldcheck), the play's own readings (stands) readings of its
# melds, and an opening turn's rule (no table meld changed; the new melds' value, by
# fastmach.game.actions.meld_points, at least opening_points). It says yes only where the
# Python check (fastmach.game.actions.check_action) accepts; on a no the caller asks the
# Python check, which decides and names what is wrong. Only a Play of exact tuples of
# exact ints (what Play's constructor makes) is judged, each field read once.
# The reference State's fast check (fastmach.game, not under strict) and the Python bots'
# (fastmach.strategies._answer); tests/game/test_playcheck.py compares it with the Python check
# on random real positions and forged plays.
from libc.stdint cimport uint8_t, int64_t
from libc.string cimport memset
from cpython.long cimport PyLong_AsLongAndOverflow

from fastmach.core._meldcheck cimport meld_ok
from fastmach.core._solver cimport NCARD, JOKER, MAX_MELDS, MAX_TABLE, Witness
from fastmach.game._turn cimport HState
from fastmach.game._position cimport load_table

from fastmach.game.actions import Play, meld_points


cdef PlayRules play_rules(object rules) except *:
    """The flags of ``rules`` (a fastmach.rules.Rules) a play is judged by."""
    cdef PlayRules R
    R.ace_high = rules.ace_high
    R.ace_both_ends = rules.ace_both_ends
    R.swap_hand = rules.joker_swap == "hand"
    R.opening_points = rules.opening_points
    R.jokers_per_meld = rules.jokers_per_meld
    R.decks = rules.decks
    return R


cdef int _read_ids(object xs, int* out, int room) except -2:
    """The ids of an exact tuple of exact ints in 0..52 into out: how many, or -1 (not
    such a tuple, or more than room)."""
    cdef Py_ssize_t i, n
    cdef long v
    cdef int overflow
    if type(xs) is not tuple:
        return -1
    n = len(<tuple>xs)
    if n > room:
        return -1
    for i in range(n):
        x = (<tuple>xs)[i]
        if type(x) is not int:
            return -1
        v = PyLong_AsLongAndOverflow(x, &overflow)
        if overflow or v < 0 or v >= NCARD:
            return -1
        out[i] = <int>v
    return <int>n


cdef int read_play(object action, PlayIn* p) except -1:
    """1: ``action`` is a Play of exact tuples of exact ints, read into p; 0: not judged."""
    cdef int k, m, n, c, total = 0
    cdef int buf[MAX_TABLE]
    if type(action) is not Play:
        return 0
    melds, put, taken, stands = action.melds, action.placed, action.taken, action.stands
    memset(p.placed, 0, sizeof(p.placed))
    n = _read_ids(put, buf, MAX_TABLE)
    if n < 0:
        return 0
    p.n_placed = n
    for k in range(n):
        p.placed[buf[k]] += 1
    n = _read_ids(taken, buf, MAX_TABLE)
    if n < 0:
        return 0
    for k in range(n):
        if buf[k] != JOKER:
            return 0
    p.n_taken = n
    if type(melds) is not tuple or len(melds) > MAX_MELDS:
        return 0
    p.n_melds = len(melds)
    p.start[0] = 0
    for m in range(p.n_melds):
        n = _read_ids(melds[m], &p.cards[total], MAX_TABLE - total)
        if n < 0:
            return 0
        total += n
        p.start[m + 1] = total
    p.has_stands = stands is not None
    if p.has_stands:
        if type(stands) is not tuple or len(stands) != p.n_melds:
            return 0
        for m in range(p.n_melds):
            n = _read_ids(stands[m], &p.stands[p.start[m]], MAX_TABLE - p.start[m])
            if n != p.start[m + 1] - p.start[m]:
                return 0
    return 1


cdef inline bint _reading_ok(const PlayRules* R, const int* st, int n) noexcept nogil:
    """A meld's reading (no joker in it) is a valid meld with at most decks copies of a
    card (the check of one meld read as its cards)."""
    cdef int i, j, k
    for i in range(n):
        if st[i] == JOKER:
            return False
        k = 0
        for j in range(n):
            k += st[j] == st[i]
        if k > R.decks:
            return False
    return meld_ok(st, n, R.ace_high, R.jokers_per_meld, R.ace_both_ends)


cdef inline void _sorted(const int* src, int n, int* dst) noexcept nogil:
    cdef int i, j, x
    for i in range(n):
        x = src[i]
        j = i
        while j > 0 and dst[j - 1] > x:
            dst[j] = dst[j - 1]
            j -= 1
        dst[j] = x


cdef int play_legal(const PlayRules* R, const uint8_t* hand, const Witness* table,
                    bint opened, const PlayIn* p, uint8_t* new_meld) noexcept nogil:
    """1 when the play p is legal for a seat holding ``hand`` (53 counts) on ``table``
    (its melds and readings), else 0. An opening turn (opening_points, seat not opened):
    1 also needs the new melds' value, which the caller reckons: new_meld[m] is 1 for
    each meld of p that is not a table meld before the play (a multiset difference)."""
    cdef int want[NCARD]
    cdef int used[NCARD]
    cdef int stood[NCARD]
    cdef int a[MAX_TABLE]
    cdef int b[MAX_TABLE]
    cdef uint8_t matched[MAX_MELDS]
    cdef int c, i, m, k, n, swappable
    cdef int n_table = table.start[table.n_melds]
    cdef bint opening_turn = R.opening_points > 0 and not opened
    cdef bint joker_after = False, found
    if p.n_placed == 0:
        return 0
    memset(want, 0, sizeof(want))
    memset(used, 0, sizeof(used))
    for i in range(n_table):
        want[table.cards[i]] += 1
    for c in range(NCARD):
        if p.placed[c] > hand[c]:
            return 0
        want[c] += p.placed[c]
    if p.n_taken:
        if not R.swap_hand or opening_turn:
            return 0
        memset(stood, 0, sizeof(stood))
        for i in range(n_table):
            if table.cards[i] == JOKER:
                stood[table.stands[i]] += 1
        swappable = 0
        for c in range(NCARD):
            swappable += stood[c] if stood[c] < p.placed[c] else p.placed[c]
        if p.n_taken > want[JOKER] - p.placed[JOKER] or p.n_taken > swappable:
            return 0
        want[JOKER] -= p.n_taken
    for m in range(p.n_melds):
        n = p.start[m + 1] - p.start[m]
        for i in range(p.start[m], p.start[m + 1]):
            used[p.cards[i]] += 1
            joker_after |= p.cards[i] == JOKER
        if not meld_ok(&p.cards[p.start[m]], n, R.ace_high, R.jokers_per_meld,
                       R.ace_both_ends):
            return 0
    for c in range(NCARD):
        if used[c] != want[c] or (c != JOKER and want[c] > R.decks):
            return 0
    if p.has_stands:
        for m in range(p.n_melds):
            k = 0
            for i in range(p.start[m], p.start[m + 1]):
                c = p.cards[i]
                if c == JOKER:
                    k += 1
                elif p.stands[i] != c:
                    return 0
            if k and not _reading_ok(R, &p.stands[p.start[m]], p.start[m + 1] - p.start[m]):
                return 0
    if opening_turn:   # no table meld changed; the new melds are flagged for their value
        memset(matched, 0, sizeof(matched))
        for i in range(table.n_melds):
            n = table.start[i + 1] - table.start[i]
            for k in range(n):
                b[k] = table.cards[table.start[i] + k]
            _sorted(b, n, a)
            found = False
            for m in range(p.n_melds):
                if matched[m] or p.start[m + 1] - p.start[m] != n:
                    continue
                _sorted(&p.cards[p.start[m]], n, b)
                found = True
                for k in range(n):
                    if a[k] != b[k]:
                        found = False
                        break
                if found:
                    matched[m] = 1
                    break
            if not found:
                return 0
        for m in range(p.n_melds):
            new_meld[m] = not matched[m]
    return 1


cdef int play_accepted(const PlayRules* R, const uint8_t* hand, const Witness* table,
                       bint opened, object action, PlayIn* p) except -1:
    """1 when ``action`` is a Play read into p (read_play) and legal (play_legal, an
    opening's value included), else 0 (the Python check decides)."""
    cdef uint8_t new_meld[MAX_MELDS]
    cdef int m, i, pts = 0
    if not read_play(action, p):
        return 0
    if not play_legal(R, hand, table, opened, p, new_meld):
        return 0
    if R.opening_points > 0 and not opened:
        for m in range(p.n_melds):
            if new_meld[m]:
                pts += meld_points(tuple(sorted([p.cards[i] for i in
                                                 range(p.start[m], p.start[m + 1])])),
                                   R.ace_high)
        if pts < R.opening_points:
            return 0
    return 1


cdef class PlayCheck:
    """The compiled check of a Play under one set of rules (made once per game)."""

    cdef PlayRules R
    cdef PlayIn p
    cdef HState st   # the table (its meld list, read by load_table)

    def __init__(self, rules):
        self.R = play_rules(rules)

    def accepts(self, hand, melds, stands, bint opened, action) -> bool:
        """Whether ``action`` is a legal play for a seat holding ``hand`` (53 card counts:
        a NumPy int64 row or a list) on the table ``melds`` read as ``stands`` (lists of
        card ids): True only where ``check_action`` accepts it; False: not judged here."""
        cdef uint8_t h[NCARD]
        cdef const int64_t[::1] hv
        cdef int c
        cdef long v
        if type(hand) is list and len(hand) == NCARD:
            for c in range(NCARD):
                x = hand[c]
                if type(x) is not int:
                    return False
                v = x
                if v < 0 or v > 255:
                    return False
                h[c] = <uint8_t>v
        else:
            try:
                hv = hand
            except (TypeError, ValueError):
                return False
            if hv.shape[0] != NCARD:
                return False
            for c in range(NCARD):
                if hv[c] < 0 or hv[c] > 255:
                    return False
                h[c] = <uint8_t>hv[c]
        memset(self.st.table, 0, NCARD)
        try:
            load_table(&self.st, melds, stands)
        except (ValueError, TypeError, OverflowError):
            return False
        return play_accepted(&self.R, h, &self.st.wit, opened, action, &self.p) == 1
