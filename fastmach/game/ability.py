"""Whether a seat can add a card: a fact of the position, asked by the rule
``may_draw_when_able = false`` and by a ``Fail`` without its attempt.

The exact solver decides, the opening rule and joker swaps included; the Python bots'
check (``fastmach.strategies.bots``) asks here, the reference ``State`` (``State.can_play``)
asks the engine's own test in C (``fastmach.game._ability``, compared with this in
tests/game/test_state_rows.py).
"""
from __future__ import annotations

from typing import Sequence

from fastmach.core.cards import JOKER
from fastmach.rules import Rules
from fastmach.solver import opening, solve

__all__ = ["play_exists"]


def play_exists(rules: Rules, hand: Sequence[int], melds: Sequence[Sequence[int]],
                stands: Sequence[Sequence[int]], opened: bool) -> bool:
    """Whether the hand (card ids) can add a card to the table: an opening of
    ``opening_points`` before the seat has opened; under ``joker_swap = "hand"`` a table
    joker whose card the hand holds; else any placement the exact solver finds."""
    hand = list(hand)
    if not hand:
        return False
    if rules.opening_points > 0 and not opened:
        return opening(hand, rules, rules.opening_points) is not None
    if rules.joker_swap == "hand":
        held = set(hand)
        if any(c == JOKER and s in held for m, st in zip(melds, stands)
               for c, s in zip(m, st)):
            return True
    return solve(melds, hand, rules).n_placed > 0
