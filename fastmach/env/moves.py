"""The environment's action space: macro-actions, each an exact action of the game.

The moves of a Machiavelli turn are every rearrangement of the table that takes some
hand cards: far too many to enumerate, let alone to learn over. The environment offers
``N_ACTIONS`` macro-actions instead (``Discrete(N_ACTIONS)``):

- 0 ``draw``: draw a card (``Draw``), or pass (``Pass``) when the stock is empty under
  ``stock_empty = "play-on"``; masked where the rules oblige the seat to play.
- 1.. one candidate play each, found by the exact solver with a holding variant:

  ``max_cards``    the expert's play: the most hand cards (under ``joker_swap = "hand"``
                   it takes back the jokers the expert takes)
  ``max_points``   the most points of placed cards (``hand_points``; ties: more cards)
  ``keep_jokers``  the most cards, holding back every joker of the hand
  ``keep_faces``   the most cards, holding back the J, Q and K of the hand
  ``one_card``     one card only: the one with the most points that can join the table
  ``own_melds``    new melds of hand cards only, the table melds left as they were

  Before a seat has opened (``opening_points``) every variant is the opening from its
  holding (hand-only melds worth the threshold) and ``one_card`` does not exist.

A candidate is masked when it does not exist (nothing to place, below the opening
threshold) or repeats an earlier one (the same cards placed, jokers taken and table).
``Fail`` (a botched play) is a consequence of a fallible strategy, never a
choice, so it is not an action. Each candidate's size (cards, points, jokers placed,
jokers taken, whether it empties the hand) is part of the observation.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np

from fastmach.game.actions import Action, Draw, Pass, Play
from fastmach.core.cards import JOKER, NCARD, card_points
from fastmach.errors import FastmachError
from fastmach.game import State
from fastmach.rules import is_integer
from fastmach.solver import opening, solve

__all__ = ["ACTIONS", "N_ACTIONS", "DRAW", "Moves", "moves", "action_index"]

ACTIONS = ("draw", "max_cards", "max_points", "keep_jokers", "keep_faces", "one_card",
           "own_melds")
N_ACTIONS = len(ACTIONS)
DRAW = 0
_FACES = frozenset(c for c in range(52) if c % 13 >= 10)


class Moves:
    """The macro-actions of the seat to play: ``actions[k]`` is the exact action behind
    macro-action k (None where masked), ``mask`` the 0/1 action mask."""

    def __init__(self, actions: Sequence[Action | None]):
        self.actions = list(actions)
        self.mask = np.array([a is not None for a in self.actions], dtype=np.int8)

    def action(self, k: Any) -> Action:
        """The exact action of macro-action k; FastmachError if it is masked now."""
        i = action_index(k)
        if i is None:
            raise FastmachError(f"action must be an integer 0..{N_ACTIONS - 1}, got {k!r}")
        a = self.actions[i]
        if a is None:
            legal = ", ".join(f"{j} {ACTIONS[j]}" for j in np.flatnonzero(self.mask))
            raise FastmachError(f"action {i} ({ACTIONS[i]}) is masked now; legal: {legal}")
        return a

    def allowed(self, k: Any) -> bool:
        """Whether k is a macro-action index not masked now."""
        i = action_index(k)
        return i is not None and bool(self.mask[i])


def action_index(k: Any) -> int | None:
    """k as a macro-action index 0..N_ACTIONS-1 (an int, a NumPy integer or a 0-d integer
    array, as ``Discrete(N_ACTIONS).contains`` takes them; not a bool), else None."""
    if isinstance(k, np.ndarray) and k.shape == () and k.dtype.kind in "iu":
        k = k.item()
    if not is_integer(k):
        return None
    return int(k) if 0 <= k < N_ACTIONS else None


def moves(state: State) -> Moves:
    """The macro-actions of ``state``'s current seat, from its own hand and the table only
    (no other hand, no stock card, no random state is read)."""
    seat = state.current_player
    r = state.rules
    hand = state.hand_of(seat)
    melds, stands = state.table, state.table_stands
    closed = r.opening_points > 0 and not state.opened[seat]
    plays: list[Play | None] = [_expert(state, seat, hand, melds, stands)]
    holdings = ((hand, "points"), ([c for c in hand if c != JOKER], "cards"),
                ([c for c in hand if c not in _FACES], "cards"))
    for sub, objective in holdings:
        plays.append(_opening(sub, melds, stands, r) if closed
                     else _solved(sub, melds, r, objective))
    plays.append(None if closed else _one_card(hand, melds, r))
    plays.append(_opening(hand, melds, stands, r, 1 if not closed else None))
    seen: set = set()
    out: list[Action | None] = [_draw(state)]
    for p in plays:
        key = None if p is None else _key(p)
        out.append(p if p is not None and key not in seen else None)
        seen.add(key)
    return Moves(out)


def _draw(state: State) -> Action | None:
    a = Pass() if not state.stock and state.rules.stock_empty == "play-on" else Draw()
    return a if state.is_legal(a) else None


def _key(p: Play) -> tuple:
    return p.placed, p.taken, tuple(sorted(tuple(sorted(m)) for m in p.melds))


def _expert(state: State, seat: int, hand, melds, stands) -> Play | None:
    """The expert's play, decided from this seat's hand alone (other hands zeroed)."""
    P = state.rules.players
    hands = [np.zeros(NCARD, dtype=np.int64) for _ in range(P)]
    hands[seat] = np.bincount(hand, minlength=NCARD)
    kind, placed, taken, m, st, _ = state.game.expert_engine().decide_position(
        seat, hands, melds, stands, state.opened, len(state.stock), 0, state.failed_last,
        turn=state.turn, hand_no=state.hand_index, scores=state.scores)
    if kind != "play":
        return None
    return Play(m, np.repeat(np.arange(NCARD), placed).tolist(), (JOKER,) * taken, stands=st)


def _solved(sub, melds, r, objective: str) -> Play | None:
    if not sub:
        return None
    try:
        sol = solve(melds, sub, r, objective, trusted=True)
    except FastmachError:  # a position beyond the solver's limits: no candidate
        return None
    return Play(sol.melds, sol.placed, (), stands=sol.stands) if sol.n_placed else None


def _opening(sub, melds, stands, r, threshold: int | None = None) -> Play | None:
    """New melds of ``sub`` alone added to the table (worth ``threshold``, default the
    rules' opening points)."""
    if not sub:
        return None
    sol = opening(sub, r, threshold)
    if sol is None:
        return None
    return Play([*melds, *sol.melds], sol.placed, (), stands=[*stands, *sol.stands])


def _one_card(hand, melds, r) -> Play | None:
    """The single card with the most points (``hand_points``) that can join the table."""
    if not melds:
        return None
    pts = card_points(r.hand_points)
    for c in sorted(set(hand), key=lambda c: (-int(pts[c]), c)):
        sol = solve(melds, [c], r, trusted=True)
        if sol.n_placed:
            return Play(sol.melds, sol.placed, (), stands=sol.stands)
    return None


def play_features(p: Action | None, hand: Sequence[int], points: np.ndarray) -> tuple:
    """(exists, cards placed, points placed, jokers placed, jokers taken, empties the hand)."""
    if not isinstance(p, Play):
        return (0, 0, 0, 0, 0, 0)
    placed = Counter(p.placed)
    left = len(hand) - len(p.placed) + len(p.taken)
    return (1, len(p.placed), int(sum(points[c] * k for c, k in placed.items())),
            placed[JOKER], len(p.taken), int(left == 0))
