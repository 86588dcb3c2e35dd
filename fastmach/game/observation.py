"""What a seat may know on its turn: the ``Observation`` a Python bot is given, that
``State.observation(seat)`` returns and the learning environment encodes."""
from __future__ import annotations

from dataclasses import dataclass, field

from fastmach.game.history import PublicTurn
from fastmach.rules import Rules

__all__ = ["Observation"]


@dataclass(frozen=True)
class Observation:
    """What a seat may know on its turn (``history``: this hand's public turns, see
    fastmach.game.history; no other seat's card and no stock card is in it). The seat's own
    copy, immutable (tuples, a frozen record, its own copy of the rules): nothing done to it
    reaches the game."""

    seat: int
    hand: tuple[int, ...]              # its cards (sorted ids)
    table: tuple[tuple[int, ...], ...]   # the table's melds (card ids)
    stands: tuple[tuple[int, ...], ...]  # what each table card stands for (a joker: its card)
    stock: int                         # cards left in the stock
    hand_sizes: tuple[int, ...]        # every seat's hand size (its own included)
    scores: tuple[int, ...]            # match scores before this hand (penalty points)
    opened: bool                       # whether the seat has opened (opening_points)
    rules: Rules = field(repr=False)
    hand_index: int = 0                # the hand's index in the match
    turn: int = 1                      # this turn's number in the hand (1-based)
    opened_seats: tuple[bool, ...] = ()  # every seat's opened flag (who has opened)
    history: tuple[PublicTurn, ...] = ()  # this hand's turns so far (fastmach.game.history)
