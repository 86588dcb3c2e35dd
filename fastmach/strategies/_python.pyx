# A Python bot in the compiled turn loop: decide() takes the GIL, builds the seat's
# Observation from the position, asks the bot through its Python seat
# (fastmach.strategies.bots.BotSeat.ask) and copies the checked answer into the decision:
# the compiled check first (fastmach.strategies._answer), the Python check
# (BotSeat.checked, on the position as Python data) for whatever it does not judge, and to
# name what is wrong. Anything the bot or a check raises stops the hand (Context.rc =
# RC_PYTHON, the exception in Context.error); the engine raises it.
#
# The observation's tuples are made from the position; the table's are kept while the
# table's meld list stays the same, and each meld's while that meld stays on the table,
# the scores' and opened flags' while they stand (immutable, so reusing them shows a bot
# nothing new).
# BotSeat.observation makes the same Observation from the Python position (the
# reference: tests/strategies/test_bot_answer.py compares the two).
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcmp, memcpy, memset

from fastmach.core._batch cimport note_known
from fastmach.core._fields cimport new_record, put
from fastmach.core._solver cimport NCARD, MAX_MELDS, MAX_TABLE, Witness
from fastmach.game._turn cimport (HState, Decision, A_PLAY, A_DRAW, A_PASS, RC_PYTHON, set_draw,
                             MAX_PLAYERS)
from fastmach.strategies._base cimport Context, Strategy
from fastmach.strategies._answer cimport AnswerCheck

from fastmach.errors import FastmachError
from fastmach.game.actions import Draw, Fail, Pass, Play
from fastmach.game.observation import Observation

cdef tuple _INTS = tuple(range(256))


cdef class PyBot(Strategy):
    """Asks ``callback`` (a BotSeat): ``callback.ask(seat, obs) -> action`` and, for an
    answer the compiled check does not judge, ``callback.checked(seat, action, position)
    -> (kind, placed, taken, melds, stands)``: position is a dict of plain Python data
    (see position_dict); kind is "play", "draw" or "pass", placed 53 counts, taken the
    jokers taken back, melds and stands the whole table after a play. ``fast``: the
    compiled check and observation (else the Python ones, the reference)."""

    cdef readonly object callback
    cdef public bint fast
    cdef AnswerCheck check
    cdef Witness seen          # the meld list behind table / stands
    cdef bint seen_ok
    cdef tuple table, stands
    cdef tuple scores, opened   # the last shown (reused while the values stand)
    cdef object rules_shown     # the callback's copy of the rules for its bot (made once)
    gil_free = False   # the engine keeps the GIL while a bot sits at the table

    def __init__(self, Context ctx, callback, bint fast=True):
        Strategy.__init__(self, ctx)
        self.callback = callback
        self.fast = fast
        self.check = AnswerCheck(callback.rules, callback.strict)
        self.seen_ok = False
        self.rules_shown = getattr(callback, "_rules_shown", None)

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        set_draw(d)
        with gil:
            try:
                if self.fast:
                    action = self.ask(seat, self.observation(st, seat))
                    if not self.check.answer(st, seat, action, d):
                        self.fill(d, self.callback.checked(
                            seat, action, position_dict(st, self.R.players)))
                else:
                    self.fill(d, self.callback(seat, position_dict(st, self.R.players)))
            except BaseException as e:
                self.ctx.rc = RC_PYTHON
                self.ctx.error = e
                set_draw(d)

    cdef object ask(self, int seat, obs):
        """BotSeat.ask without its Python frame when the seat has no time limit."""
        cb = self.callback
        if cb.time_limit is not None:
            return cb.ask(seat, obs)
        try:
            action = cb.bot.act(obs)
        except (KeyboardInterrupt, SystemExit):
            raise   # (as BotSeat.ask: Ctrl-C stops the run, the command names a sys.exit)
        except BaseException as e:
            raise cb.raised(seat, obs, e) from e
        t = type(action)
        if t is not Play and t is not Draw and t is not Pass and not (
                isinstance(action, (Play, Draw, Pass)) and not isinstance(action, Fail)):
            raise cb.returned(seat, obs, action)
        return action

    cdef int fill(self, Decision* d, tuple answer) except -1:
        kind, placed, taken, melds, stands = answer
        fill_decision(d, kind, placed, taken, melds, stands)
        return 0

    cdef object observation(self, HState* st, int seat):
        """The seat's Observation (as BotSeat.observation makes it from position_dict)."""
        cdef int s, c, k, n = 0, P = self.R.players
        cdef const Witness* w = &st.wit
        cb = self.callback
        for c in range(NCARD):
            n += st.hands[seat][c]
        hand = PyTuple_New(n)
        n = 0
        for c in range(NCARD):
            for k in range(st.hands[seat][c]):
                _put(hand, n, _INTS[c])
                n += 1
        if not self.seen_ok or not _same_melds(&self.seen, w):
            if self.seen_ok:
                self.table, self.stands = _melds_kept(w, &self.seen, self.table, self.stands)
            else:
                self.table, self.stands = _melds(w, 0), _melds(w, 1)
            _note_table(self.table, w)   # the engine's valid table: solve() need not check it
            _copy_melds(&self.seen, w)
            self.seen_ok = True
        sizes = PyTuple_New(P)
        for s in range(P):
            _put(sizes, s, st.hand_n[s])
        if self.scores is None or not _same_ints(self.scores, st.scores, P):
            self.scores = PyTuple_New(P)
            for s in range(P):
                _put(self.scores, s, st.scores[s])
        if self.opened is None or not _same_flags(self.opened, st.opened, P):
            self.opened = PyTuple_New(P)
            for s in range(P):
                _put(self.opened, s, True if st.opened[s] else False)
        # Observation(...) without the frozen dataclass's __init__ (fastmach.core._fields)
        obs = new_record(Observation)
        put(obs, "seat", seat)
        put(obs, "hand", hand)
        put(obs, "table", self.table)
        put(obs, "stands", self.stands)
        put(obs, "stock", st.stock_len - st.stock_pos)
        put(obs, "hand_sizes", sizes)
        put(obs, "scores", self.scores)
        put(obs, "opened", True if st.opened[seat] else False)
        put(obs, "rules", self.rules_shown if self.rules_shown is not None
            else cb._rules_shown)
        put(obs, "hand_index", st.hand_no)
        put(obs, "turn", st.turn + 1)
        put(obs, "opened_seats", self.opened)
        put(obs, "history", cb.history())   # (the seat's own copies)
        return obs


cdef int _note_table(tuple table, const Witness* w) except -1:
    """known_table(table) for the table made from the meld list w, counted from w."""
    cdef uint8_t counts[NCARD]
    cdef int i
    memset(counts, 0, NCARD)
    for i in range(w.start[w.n_melds]):
        counts[w.cards[i]] += 1
    return note_known(table, counts)


cdef inline void _put(tuple t, int i, object x):
    Py_INCREF(x)
    PyTuple_SET_ITEM(t, i, x)


cdef tuple _melds(const Witness* w, bint stands):
    """The meld list as a tuple of tuples: the cards, or what each stands for."""
    cdef int m, i
    out = PyTuple_New(w.n_melds)
    for m in range(w.n_melds):
        meld = PyTuple_New(w.start[m + 1] - w.start[m])
        for i in range(w.start[m], w.start[m + 1]):
            _put(meld, i - w.start[m], _INTS[w.stands[i] if stands else w.cards[i]])
        _put(out, m, meld)
    return out


cdef tuple _melds_kept(const Witness* w, const Witness* old, tuple old_table, tuple old_stands):
    """(_melds(w, 0), _melds(w, 1)), each meld that was already on the table (`old`, shown
    as `old_table` and `old_stands`) shown by its tuples of then (the same ints: tuples
    are immutable, so a bot sees nothing new in them)."""
    cdef int head[NCARD]
    cdef int nxt[MAX_MELDS]
    cdef int m, i, j, a, n, oa, c
    for c in range(NCARD):
        head[c] = -1
    for j in range(old.n_melds - 1, -1, -1):   # the old melds by first card, in order
        c = old.cards[old.start[j]]
        nxt[j] = head[c]
        head[c] = j
    table, stands = PyTuple_New(w.n_melds), PyTuple_New(w.n_melds)
    for m in range(w.n_melds):
        a = w.start[m]
        n = w.start[m + 1] - a
        j = head[w.cards[a]]
        while j >= 0:
            oa = old.start[j]
            if (old.start[j + 1] - oa == n and memcmp(&old.cards[oa], &w.cards[a], n) == 0
                    and memcmp(&old.stands[oa], &w.stands[a], n) == 0):
                break
            j = nxt[j]
        if j >= 0:
            _put(table, m, old_table[j])
            _put(stands, m, old_stands[j])
            continue
        meld, st = PyTuple_New(n), PyTuple_New(n)
        for i in range(n):
            _put(meld, i, _INTS[w.cards[a + i]])
            _put(st, i, _INTS[w.stands[a + i]])
        _put(table, m, meld)
        _put(stands, m, st)
    return table, stands


def melds_shown(old_melds, old_stands, melds, stands):
    """(table, stands) tuples of the meld list ``melds``/``stands`` as a seat that showed
    ``old_melds``/``old_stands`` (tuples of tuples) shows it (_melds_kept; for the tests,
    which compare it with the plain tuples)."""
    cdef Witness old, w
    _fill_witness(&old, old_melds, old_stands)
    _fill_witness(&w, melds, stands)
    return _melds_kept(&w, &old, old_melds, old_stands)


cdef void _fill_witness(Witness* w, melds, stands) except *:
    cdef int i = 0, m
    if len(melds) > MAX_MELDS or sum(map(len, melds)) > MAX_TABLE:
        raise ValueError("melds_shown: more melds or cards than a table holds")
    w.n_melds = len(melds)
    w.start[0] = 0
    for m in range(w.n_melds):
        if len(melds[m]) != len(stands[m]) or len(melds[m]) == 0:
            raise ValueError("melds_shown: a meld and its stands differ in length, or are empty")
        for c, x in zip(melds[m], stands[m]):
            if not (0 <= c < NCARD and 0 <= x < NCARD):
                raise ValueError(f"melds_shown: card id {c} or {x} out of 0..{NCARD - 1}")
            w.cards[i] = c
            w.stands[i] = x
            i += 1
        w.start[m + 1] = i


cdef bint _same_ints(tuple t, const int* x, int n) except -1:
    """Whether t holds the ints x[0..n)."""
    cdef int i
    for i in range(n):
        if <long>t[i] != x[i]:
            return False
    return True


cdef bint _same_flags(tuple t, const int* x, int n) noexcept:
    """Whether t holds the flags x[0..n) as True / False."""
    cdef int i
    for i in range(n):
        if (<object>t[i] is True) != (x[i] != 0):
            return False
    return True


cdef bint _same_melds(const Witness* a, const Witness* b) noexcept nogil:
    cdef int n = b.start[b.n_melds]
    return (a.n_melds == b.n_melds
            and memcmp(a.start, b.start, (b.n_melds + 1) * sizeof(int)) == 0
            and memcmp(a.cards, b.cards, n) == 0 and memcmp(a.stands, b.stands, n) == 0)


cdef void _copy_melds(Witness* dst, const Witness* src) noexcept nogil:
    cdef int n = src.start[src.n_melds]
    dst.n_melds = src.n_melds
    memcpy(dst.start, src.start, (src.n_melds + 1) * sizeof(int))
    memcpy(dst.cards, src.cards, n)
    memcpy(dst.stands, src.stands, n)


cdef dict position_dict(HState* st, int players):
    """The position as Python data: every hand's counts, the meld list, the stock size,
    opened flags, match scores, the hand and turn numbers."""
    cdef int s, m, i
    cdef Witness* w = &st.wit
    return {
        "hands": [[st.hands[s][c] for c in range(NCARD)] for s in range(players)],
        "melds": [[w.cards[i] for i in range(w.start[m], w.start[m + 1])] for m in range(w.n_melds)],
        "stands": [[w.stands[i] for i in range(w.start[m], w.start[m + 1])] for m in range(w.n_melds)],
        "stock": st.stock_len - st.stock_pos,
        "opened": [bool(st.opened[s]) for s in range(players)],
        "failed_last": [bool(st.failed_last[s]) for s in range(players)],
        "scores": [st.scores[s] for s in range(players)],
        "hand": st.hand_no,
        "turn": st.turn + 1,
    }


cdef void fill_decision(Decision* d, kind, placed, int taken, melds, stands) except *:
    cdef int c, m, i = 0
    if kind == "play":
        d.kind = A_PLAY
        d.n_placed = 0
        for c in range(NCARD):
            d.placed[c] = placed[c]
            d.n_placed += placed[c]
        d.taken = taken
        d.wit.n_melds = 0
        d.wit.start[0] = 0
        if len(melds) > MAX_MELDS or sum(map(len, melds)) > MAX_TABLE:
            raise FastmachError(f"illegal action: a table of more than {MAX_MELDS} melds or "
                                f"{MAX_TABLE} cards")
        for m in range(len(melds)):
            for c, x in zip(melds[m], stands[m]):
                d.wit.cards[i] = c
                d.wit.stands[i] = x
                i += 1
            d.wit.start[m + 1] = i
        d.wit.n_melds = len(melds)
    elif kind == "pass":
        d.kind = A_PASS
    else:
        d.kind = A_DRAW
