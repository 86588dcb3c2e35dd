# Whether a seat can add a card (fastmach.game.ability's question) in C, for the reference
# State: the compiled engine's own test (seat_can_play, fastmach/game/_turn.pxd: the opening
# rule, a joker the hand can take back, then the exact solver's maximum) asked of the Python
# solve's solver, whose memo holds the answer when the seat's strategy has just solved the
# same position. tests/game/test_state_rows.py compares it with fastmach.game.ability.play_exists
# on random positions of real games.
from libc.stdint cimport uint8_t, int64_t
from libc.string cimport memset

from fastmach.core._solver cimport Solver, NCARD
from fastmach.game._turn cimport ERules, HState, seat_can_play
from fastmach.game._position cimport load_table

from fastmach.core import _batch
from fastmach.solver import opening_weights
from fastmach.solver import POINT_SCALE


cdef int ability_rules(ERules* R, object rules) except -1:
    """R becomes the rules record of the ability test under ``rules``: one seat, the
    opening rule and its weights, the joker rules, every card of weight one."""
    cdef int c
    ow, ojw = opening_weights()
    memset(R, 0, sizeof(ERules))
    R.players = 1
    R.swap_hand = rules.joker_swap == "hand"
    R.opening = rules.opening_points
    R.open_scale = POINT_SCALE
    R.srules.decks = rules.decks
    R.srules.ace_high = rules.ace_code
    R.srules.jokers_per_meld = rules.jokers_per_meld
    for c in range(NCARD):
        R.ones[c] = 1
        R.open_w[c] = ow[c]
    for c in range(16):
        R.ones_j[c] = 1
        R.open_jw[c] = ojw[c]
    return 0


cdef int load_hand(HState* st, const int64_t[::1] hand) except -1:
    """Seat 0's hand of st becomes ``hand`` (53 card counts, each 0..255); ValueError
    naming what is wrong otherwise."""
    cdef int c
    if hand.shape[0] != NCARD:
        raise ValueError("can_play: a hand holds 53 card counts")
    st.hand_n[0] = 0
    for c in range(NCARD):
        if hand[c] < 0 or hand[c] > 255:
            raise ValueError("can_play: a card count out of 0..255")
        st.hands[0][c] = <uint8_t>hand[c]
        st.hand_n[0] += <int>hand[c]
    return 0


cdef class Ability:
    """Whether a seat can add a card, under one set of rules (made once per game)."""

    cdef ERules R
    cdef HState st
    cdef Solver solver

    def __init__(self, rules):
        ability_rules(&self.R, rules)
        self.solver = _batch.python_solver()

    def can_play(self, const int64_t[::1] hand, melds, stands, bint opened) -> bool:
        """``hand``: the seat's 53 card counts (an int64 row); ``melds``/``stands``: the
        table's melds and what each card stands for (card ids); ``opened``: the seat has
        opened. Raises RuntimeError when the solver stops (past its state limit)."""
        cdef HState* st = &self.st
        cdef int k
        load_hand(st, hand)
        memset(st.table, 0, NCARD)
        load_table(st, melds, stands)
        st.opened[0] = opened
        k = seat_can_play(self.solver, &self.R, st, 0)
        if k < -1:
            raise RuntimeError(f"can_play: the exact solver stopped (code {k})")
        return k == 1
