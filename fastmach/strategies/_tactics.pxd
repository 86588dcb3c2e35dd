from libc.stdint cimport uint8_t, int32_t, uint64_t
from fastmach.core._solver cimport Witness, NCARD
from fastmach.game._turn cimport HState, Decision
from fastmach.strategies._base cimport Skill, Strategy


cdef class Skilled(Strategy):
    """A skill's largest play, most cards first (wrap the skill for other tactics)."""
    cdef readonly Skill skill


cdef class Opening(Strategy):
    """Before the seat's first play under opening_points: hand-only melds worth enough."""
    cdef readonly Strategy inner
    cdef uint8_t empty[NCARD]
    cdef Witness tmpwit


cdef class PointsObjective(Skill):
    """objective=1: the skill's play placing the most hand points (ties: more cards)."""
    cdef readonly Skill inner


cdef class KeepJokers(Skill):
    """keep_jokers=1: hand jokers come out only in a play that empties the hand."""
    cdef readonly Skill inner
    cdef uint8_t hk[NCARD]
    cdef Decision full


cdef class Patience(Strategy):
    """min_cards: draw instead of a small play while the stock is large."""
    cdef readonly Strategy inner
    cdef readonly int min_cards


cdef class Fallible(Strategy):
    """error=p: a play that dissolves (or lays off onto) d melds, or lays d new melds of
    hand cards alone, fails with 1-(1-p)^d."""
    cdef readonly Strategy inner
    cdef readonly double p
