# The action mask's solver questions (fastmach.env.moves) on one table: whether a holding
# can add a card, whether one card alone joins the table. The question is the reference
# State's (fastmach.game._ability: the engine's seat_can_play, fastmach/game/_turn.pxd, asked
# of the Python solve's solver under the same rules record); the table is read into the C
# state once per position rather than once per question. tests/env/test_env_turns.py
# compares the answers with fastmach.game._ability's on positions of real games.
from libc.stdint cimport uint8_t, int64_t
from libc.string cimport memset

from fastmach.core._solver cimport Solver, NCARD
from fastmach.game._turn cimport ERules, HState, seat_can_play, wit_clear
from fastmach.game._position cimport load_table
from fastmach.game._ability cimport ability_rules, load_hand
from fastmach.strategies._reject cimport none_can_join

from fastmach.core import _batch


cdef class Probe:
    """The ability test under one set of rules, on the table last given to ``load``."""

    cdef ERules R
    cdef HState st      # the loaded table
    cdef HState bare    # an empty table
    cdef Solver solver
    cdef readonly object key   # what was loaded (the caller's key for its table)

    def __init__(self, rules):
        ability_rules(&self.R, rules)   # (the reference State's ability test's record)
        self.solver = _batch.python_solver()
        memset(&self.bare, 0, sizeof(HState))
        wit_clear(&self.bare.wit)
        memset(&self.st, 0, sizeof(HState))
        wit_clear(&self.st.wit)
        self.key = None

    def load(self, melds, stands, key=None):
        """Read the table (its melds and what each card stands for) for the questions
        that follow; ``key`` is kept as ``self.key``."""
        memset(self.st.table, 0, NCARD)
        self.key = None
        load_table(&self.st, melds, stands)
        self.key = key

    cdef int ask(self, HState* st, const int64_t[::1] hand, bint opened) except -2:
        cdef int k
        load_hand(st, hand)
        st.opened[0] = opened
        # (no hand card lies in any meld of the table's and the hand's cards: no play,
        # known without the solver; fastmach.strategies._reject)
        cdef const uint8_t* table = &st.table[0]
        if self.R.opening and not opened:
            table = &self.bare.table[0]
        if none_can_join(table, st.hands[0], st.hands[0], self.R.srules.ace_high):
            return 0
        k = seat_can_play(self.solver, &self.R, st, 0)
        if k < -1:
            raise RuntimeError(f"can_play: the exact solver stopped (code {k})")
        return k == 1

    def can_play(self, const int64_t[::1] hand, bint opened, bint bare=False) -> bool:
        """Whether a seat holding ``hand`` (53 card counts) can add a card to the loaded
        table (``bare``: to an empty table)."""
        return self.ask(&self.bare if bare else &self.st, hand, opened) == 1

    def joins(self, int card) -> bool:
        """Whether ``card`` alone can join the loaded table (an opened seat)."""
        cdef HState* st = &self.st
        cdef int k
        if not 0 <= card < NCARD:
            raise ValueError(f"joins: a card id out of 0..52 ({card})")
        memset(st.hands[0], 0, NCARD)
        st.hands[0][card] = 1
        st.hand_n[0] = 1
        st.opened[0] = 1
        if none_can_join(st.table, st.hands[0], st.hands[0], self.R.srules.ace_high):
            return False
        k = seat_can_play(self.solver, &self.R, st, 0)
        if k < -1:
            raise RuntimeError(f"can_play: the exact solver stopped (code {k})")
        return k == 1
