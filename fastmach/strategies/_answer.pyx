# The compiled check of a Python bot's answer: the fast path of the bot seat
# (fastmach.strategies._python.PyBot). answer() says yes, and fills the engine's decision,
# only for answers it can judge in full here: a Draw or Pass the rules allow whoever could
# play, and a Play the compiled check of a whole play accepts (fastmach.game._playcheck: a
# Play of exact tuples of exact ints, what Play's constructor makes, whose placed cards the
# seat holds, whose jokers taken back each give way to the card they stand for, whose
# melds are valid melds holding exactly the table and the placed cards less the jokers
# taken, whose readings read its melds, and which keeps an opening's rule). Everything
# else (and every refusal) goes to the Python check (fastmach.game.actions.check_action),
# the authority, which names what is wrong. Each attribute of the answer is read once and
# only immutable built-in objects are judged, so the decision filled is the one judged,
# whatever the object the bot returned. tests/strategies/test_bot_answer.py compares the two on
# random and adversarial answers.
from libc.string cimport memset

from fastmach.core._solver cimport NCARD, JOKER, MAX_MELDS, MAX_TABLE, Witness
from fastmach.game._turn cimport HState, Decision, A_PLAY, A_DRAW, A_PASS, set_draw, wit_clear
from fastmach.game._playcheck cimport PlayIn, play_rules, play_accepted
from fastmach.game._position cimport load_table

from fastmach.game.actions import Draw, Pass, Play, meld_stands
from fastmach.game.flow import declining_rule, passes


cdef class AnswerCheck:
    """The rules a bot's answer is judged by, as flags (made once per seat)."""

    def __init__(self, rules, bint strict=False):
        self.plays = not strict
        # may a seat able to play draw from a stock with cards / take a turn without a play
        # on an empty stock, and is that turn a pass (the turn rules: fastmach.game.flow)
        self.decline_stock = getattr(rules, declining_rule(rules, 1))
        self.decline_empty = getattr(rules, declining_rule(rules, 0))
        self.pass_empty = passes(rules, 0)
        self.ace_high = rules.ace_high
        self.rules = play_rules(rules)
        self.meld_stands = meld_stands

    cdef int answer(self, const HState* st, int seat, object action, Decision* d) except -1:
        """1: the answer is legal and d holds it; 0: not judged here (the Python check
        decides)."""
        cdef object t = type(action)
        cdef bint empty = st.stock_pos >= st.stock_len
        if t is Draw:   # a draw from an empty play-on stock is the engine's pass
            if not (self.decline_empty if empty else self.decline_stock):
                return 0
            set_draw(d)
            return 1
        if t is Pass:
            if not (empty and self.pass_empty and self.decline_empty):
                return 0
            set_draw(d)
            d.kind = A_PASS
            return 1
        if t is not Play or not self.plays:
            return 0
        return self._play(st, seat, action, d)

    cdef int _play(self, const HState* st, int seat, object action, Decision* d) except -1:
        cdef PlayIn* p = &self.p
        cdef int c, i, k, m
        if not play_accepted(&self.rules, st.hands[seat], &st.wit, st.opened[seat] != 0,
                             action, p):
            return 0
        set_draw(d)
        d.kind = A_PLAY
        d.n_placed = p.n_placed
        d.taken = p.n_taken
        for c in range(NCARD):
            d.placed[c] = p.placed[c]
        wit_clear(&d.wit)
        for m in range(p.n_melds):
            for i in range(p.start[m], p.start[m + 1]):
                d.wit.cards[i] = p.cards[i]
                d.wit.stands[i] = p.stands[i] if p.has_stands else p.cards[i]
            if not p.has_stands:   # a meld with jokers: its readings derived
                for i in range(p.start[m], p.start[m + 1]):
                    if p.cards[i] == JOKER:
                        self._read(tuple([p.cards[k] for k in range(p.start[m],
                                                                    p.start[m + 1])]),
                                   &d.wit, p.start[m])
                        break
            d.wit.start[m + 1] = p.start[m + 1]
        d.wit.n_melds = p.n_melds
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
    load_table(&st, melds, stands)
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
