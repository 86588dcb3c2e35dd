"""The public history of a hand: what every seat at the table has seen of its past turns.

One ``PublicTurn`` per turn played in the current hand, in order: the seat, what it did
(``play``, ``draw``, ``pass``, ``fail``), the hand cards it put on the table and the
jokers it took back (a play), how many cards it drew (a draw or a failed play: the cards
themselves are the drawer's secret), every seat's hand size after the turn, and whether
the turn opened the seat (its first play of the hand). The table after each turn is the
table before it plus ``placed`` minus ``taken``; the current table is in the observation.

The same records reach a Python bot (``Observation.history``), the reference State
(``State.public_history``, ``State.observation(seat)``) and the learning environment
(``fastmach.env``), so a bot sees the same history in the compiled engine and step by step.
"""
from __future__ import annotations

from dataclasses import dataclass

from fastmach.core.cards import JOKER

__all__ = ["PublicTurn", "ACTION_CODES", "from_raw"]

#: the action of a turn as a small integer (the environment's encoding)
ACTION_CODES = {"play": 0, "draw": 1, "pass": 2, "fail": 3}
_ACTIONS = tuple(ACTION_CODES)


@dataclass(frozen=True)
class PublicTurn:
    """One past turn of the current hand, as every seat saw it."""

    turn: int                        # 1-based turn number in the hand
    seat: int
    action: str                      # play | draw | pass | fail
    placed: tuple[int, ...]          # hand cards put on the table (sorted ids; a play)
    taken: tuple[int, ...]           # jokers taken back into the hand (a play)
    drawn: int                       # cards drawn (the cards are not public)
    hand_sizes: tuple[int, ...]      # every seat's hand size after the turn
    opened: bool                     # this turn was the seat's first play of the hand


def from_raw(raw: tuple) -> PublicTurn:
    """A PublicTurn from the compiled engine's record ``(turn, seat, action code, placed
    card ids, jokers taken, cards drawn, hand sizes, opened)``."""
    turn, seat, code, placed, taken, drawn, sizes, opened = raw
    # PublicTurn(...) without the frozen dataclass's __init__ (most of the cost of a bot's
    # history): the fields are already the right types
    t = _new(PublicTurn)
    t.__dict__.update(turn=turn, seat=seat, action=_ACTIONS[code], placed=placed,
                      taken=(JOKER,) * taken, drawn=drawn, hand_sizes=sizes,
                      opened=bool(opened))
    return t


_new = object.__new__
