# The compiled check of a Python bot's answer: the fast path of the bot seat
# (fastmach.strategies._python.PyBot). answer() says yes, and fills the engine's decision,
# only for answers it can judge in full here: a Draw or Pass the rules allow whoever could
# play, and a Play of exact tuples of exact ints (what Play's constructor makes) that
# takes no joker back, brings no readings of its own and is no opening turn, whose placed
# cards the seat holds and whose melds are valid melds holding exactly the table and the
# placed cards. Everything else (and every refusal) goes to the Python check
# (fastmach.game.actions.check_action), the authority, which names what is wrong. Each
# attribute of the answer is read once and only immutable built-in objects are judged, so
# the decision filled is the one judged, whatever the object the bot returned.
# tests/test_bot_answer.py compares the two on random and adversarial answers.
from libc.string cimport memset

from fastmach.core._meldcheck cimport meld_ok
from fastmach.core._solver cimport NCARD, JOKER, MAX_MELDS, MAX_TABLE, Witness
from fastmach.game._turn cimport HState, Decision, A_PLAY, A_DRAW, A_PASS, set_draw, wit_clear

from fastmach.game.actions import Draw, Pass, Play, meld_stands


cdef class AnswerCheck:
    """The rules a bot's answer is judged by, as flags (made once per seat)."""

    def __init__(self, rules, bint strict=False):
        self.plays = not strict
        self.may_draw = rules.may_draw_when_able
        self.may_pass = rules.may_pass_when_able
        self.play_on = rules.stock_empty == "play-on"
        self.opening = rules.opening_points > 0
        self.ace_high = rules.ace_high
        self.ace_both_ends = rules.ace_both_ends
        self.jokers_per_meld = rules.jokers_per_meld
        self.decks = rules.decks
        self.meld_stands = meld_stands

    cdef int answer(self, const HState* st, int seat, object action, Decision* d) except -1:
        """1: the answer is legal and d holds it; 0: not judged here (the Python check
        decides)."""
        cdef object t = type(action)
        cdef bint empty = st.stock_pos >= st.stock_len
        if t is Draw:   # a draw from an empty play-on stock is the engine's pass
            if not (self.may_pass if empty and self.play_on else self.may_draw):
                return 0
            set_draw(d)
            return 1
        if t is Pass:
            if not (empty and self.play_on and self.may_pass):
                return 0
            set_draw(d)
            d.kind = A_PASS
            return 1
        if t is not Play or not self.plays or (self.opening and not st.opened[seat]):
            return 0
        return self._play(st, seat, action, d)

    cdef int _play(self, const HState* st, int seat, object action, Decision* d) except -1:
        cdef int want[NCARD]
        cdef int used[NCARD]
        cdef int placed[NCARD]
        cdef int cards[MAX_TABLE]
        cdef int start[MAX_MELDS + 1]
        cdef int c, i, k, n_placed = 0, total = 0, nm, m
        cdef const Witness* w = &st.wit
        cdef long v
        melds, put, taken, stands = action.melds, action.placed, action.taken, action.stands
        if (type(melds) is not tuple or type(put) is not tuple or type(taken) is not tuple
                or len(taken) or stands is not None or not len(put)):
            return 0
        memset(placed, 0, sizeof(placed))
        memset(used, 0, sizeof(used))
        try:
            for x in put:
                if type(x) is not int:
                    return 0
                v = x
                if v < 0 or v >= NCARD:
                    return 0
                placed[v] += 1
                n_placed += 1
            nm = len(melds)
            if nm > MAX_MELDS:
                return 0
            start[0] = 0
            for m in range(nm):
                meld = melds[m]
                if type(meld) is not tuple:
                    return 0
                k = len(meld)
                if total + k > MAX_TABLE:
                    return 0
                for x in meld:
                    if type(x) is not int:
                        return 0
                    v = x
                    if v < 0 or v >= NCARD:
                        return 0
                    cards[total] = v
                    used[v] += 1
                    total += 1
                if not meld_ok(&cards[start[m]], k, self.ace_high, self.jokers_per_meld,
                               self.ace_both_ends):
                    return 0
                start[m + 1] = total
        except OverflowError:
            return 0
        # the table before (its meld list) and the placed cards, which the seat holds
        memset(want, 0, sizeof(want))
        for i in range(w.start[w.n_melds]):
            want[w.cards[i]] += 1
        for c in range(NCARD):
            if placed[c] > st.hands[seat][c]:
                return 0
            want[c] += placed[c]
            if used[c] != want[c] or (c != JOKER and want[c] > self.decks):
                return 0
        set_draw(d)
        d.kind = A_PLAY
        d.n_placed = n_placed
        for c in range(NCARD):
            d.placed[c] = placed[c]
        wit_clear(&d.wit)
        for m in range(nm):
            for i in range(start[m], start[m + 1]):
                d.wit.cards[i] = cards[i]
                d.wit.stands[i] = cards[i]
            if placed[JOKER] or want[JOKER]:
                for i in range(start[m], start[m + 1]):
                    if cards[i] == JOKER:
                        self._read(melds[m], &d.wit, start[m])
                        break
            d.wit.start[m + 1] = start[m + 1]
        d.wit.n_melds = nm
        return 1

    cdef int _read(self, meld, Witness* w, int at) except -1:
        """The readings of a meld with jokers (fastmach.game.actions.meld_stands)."""
        cdef int i
        st = self.meld_stands(meld, self.ace_high)
        for i in range(len(meld)):
            w.stands[at + i] = st[i]
        return 0


def answer_of(rules, int seat, hands, melds, stands, opened, int stock_left, action,
              bint strict=False):
    """The compiled check of ``action`` in a position given as Python data (tests): None
    when not judged here, else the decision as (kind, placed counts, taken, melds, stands)
    with kind "play", "draw" or "pass"."""
    cdef HState st
    cdef Decision d
    cdef int s, c, i = 0, m
    cdef AnswerCheck chk = AnswerCheck(rules, strict)
    memset(&st, 0, sizeof(HState))
    wit_clear(&st.wit)
    for s in range(len(hands)):
        for c in range(NCARD):
            st.hands[s][c] = hands[s][c]
            st.hand_n[s] += hands[s][c]
        st.opened[s] = 1 if opened[s] else 0
    for m, meld in enumerate(melds):
        for k, c in enumerate(meld):
            st.wit.cards[i] = c
            st.wit.stands[i] = stands[m][k]
            st.table[c] += 1
            i += 1
        st.wit.start[m + 1] = i
    st.wit.n_melds = len(melds)
    st.table_n = i
    st.stock_len = stock_left
    if not chk.answer(&st, seat, action, &d):
        return None
    if d.kind != A_PLAY:
        return ("pass" if d.kind == A_PASS else "draw"), None, 0, None, None
    return ("play", [d.placed[c] for c in range(NCARD)], d.taken,
            [[d.wit.cards[i] for i in range(d.wit.start[m], d.wit.start[m + 1])]
             for m in range(d.wit.n_melds)],
            [[d.wit.stands[i] for i in range(d.wit.start[m], d.wit.start[m + 1])]
             for m in range(d.wit.n_melds)])
