from libc.stdint cimport uint8_t, uint64_t
from fastmach.core._solver cimport NCARD, Witness
from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._base cimport Strategy, Skill


cdef class Strong(Strategy):
    """Holds every play that does not empty the hand (drawing, or botching a play where a
    failure draws more cards) until the stock runs low, its hand grows large or an
    opponent is close to going out; then plays, keeping cards back."""
    cdef readonly int stock_low      # stop holding when the stock holds <= this many cards
    cdef readonly int hand_cap       # ... or the hand holds >= this many (0: no cap)
    cdef readonly int rush           # ... or an opponent holds <= this many
    cdef readonly int keep           # a play outside holding keeps: 0 nothing, 1 jokers, 2 + J/Q/K
    cdef readonly int last_round     # where the stock's end ends the hand, play its last round
    cdef readonly int botch          # a held turn botches a play (penalty draws > 1) instead
    cdef readonly int botch_below    # ... only while an opponent holds fewer cards (0: always)
    cdef readonly int keep_from      # a play outside holding keeps back ranks >= this too (0: off)
    cdef readonly int pass_on        # empty stock: pass while every opponent holds >= this (0: off)
    cdef readonly int place          # a play outside holding: 0 most cards, 1 one card, 2 most points
    cdef readonly int hold_table     # hold only while the table holds >= this many cards (0: always)
    cdef Skill points                # the expert's skill scoring placed points (place = 2)
    cdef bint shapes                 # a play outside holding is not the maximum placement
    cdef Strategy xstrat             # the expert seat (its opening, its maximum placement)
    cdef Skill expert                # its skill (plays from a restricted hand)
    cdef Decision alt                # the play with cards kept back
    cdef uint8_t kept[NCARD]         # the hand without the cards kept back
    cdef uint8_t pool[NCARD]         # hand + table (going out)
    cdef uint8_t none[NCARD]         # an empty hand
    cdef uint8_t one[NCARD]          # the cards a one-card play chooses from (place = 1)
    cdef Witness exact               # place_all's partition (asked first with jokers)
    cdef bint play_kept(self, HState* st, const uint8_t* hand, Decision* d) noexcept nogil
    cdef bint play_one(self, HState* st, Decision* d) noexcept nogil
    cdef bint card_alone(self, HState* st, int c) noexcept nogil
    cdef void botch_one(self, HState* st, const uint8_t* hand, Decision* d) noexcept nogil
    cdef bint may_go_out(self, HState* st, const uint8_t* hand) noexcept nogil
    cdef bint quick_out(self, HState* st, const uint8_t* hand, int n, Decision* d) noexcept nogil
    cdef int all_placed(self, HState* st, const uint8_t* hand, Witness* wit) noexcept nogil
    cdef void go_out(self, HState* st, const uint8_t* hand, int n, Decision* d) noexcept nogil
