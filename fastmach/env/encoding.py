"""The environment's fixed-size observation: one int16 vector per seat, made of named parts.

Seats are relative: index 0 is the observing seat, then the next seats clockwise (so a
policy learned at one seat plays at any). ``Layout(rules).parts`` gives each part's shape
and ``Layout.slices`` its place in the vector (``layout.view(vec)`` returns the parts):

``hand`` (53)              the seat's cards, copies of each card id (52 = joker)
``table`` (53)             the table's cards, copies of each card id
``joker_stands`` (53)      table jokers standing for each card
``melds`` (M, 53)          each table meld's cards, melds in sorted order, zero rows after
                           (M = deck size // 3, the most melds a table can hold)
``stock`` (1)              cards left in the stock
``hand_sizes`` (P)         every seat's hand size
``scores`` (P)             match scores before this hand (penalty points)
``opened`` (P)             who has opened this hand (0/1)
``placed`` (P, 53)         the cards each seat put on the table this hand (public history)
``drawn`` (P)              the cards each seat drew this hand (their number)
``recent`` (2P, 5)         the last 2P turns, newest last: seat, action (0 play, 1 draw,
                           2 pass, 3 fail), cards placed, cards drawn, that seat's hand
                           size after; -1 rows before the hand's first turn
``progress`` (2)           the hand's index in the match, the turn number in the hand
``candidates`` (K, 6)      per macro-action 1..K (fastmach.env.moves): exists, cards
                           placed, points placed (``hand_points``), jokers placed, jokers
                           taken, empties the hand; zeros for another seat than the mover

Nothing in it depends on another seat's cards or the stock's order (a test permutes them).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from fastmach.game.actions import Action
from fastmach.core.cards import JOKER, NCARD, card_points
from fastmach.game.history import ACTION_CODES
from fastmach.rules import Rules
from fastmach.strategies import Observation

from .moves import N_ACTIONS, play_features

__all__ = ["Layout"]

_BIG = 32767


class Layout:
    """The parts of the observation vector for one rule set (players, deck size)."""

    def __init__(self, rules: Rules):
        P = rules.players
        self.players = P
        self.max_melds = rules.deck_size // 3
        self.recent_rows = 2 * P
        self.points = card_points(rules.hand_points)
        copies = max(rules.decks, rules.jokers)
        self.parts: dict[str, tuple[tuple[int, ...], int]] = {
            "hand": ((NCARD,), copies), "table": ((NCARD,), copies),
            "joker_stands": ((NCARD,), rules.jokers), "melds": ((self.max_melds, NCARD), copies),
            "stock": ((1,), 255), "hand_sizes": ((P,), 255), "scores": ((P,), _BIG),
            "opened": ((P,), 1), "placed": ((P, NCARD), 255), "drawn": ((P,), 255),
            "recent": ((self.recent_rows, 5), 255), "progress": ((2,), _BIG),
            "candidates": ((N_ACTIONS - 1, 6), _BIG),
        }
        self.slices: dict[str, slice] = {}
        lo = []
        hi = []
        at = 0
        for name, (shape, high) in self.parts.items():
            n = int(np.prod(shape))
            self.slices[name] = slice(at, at + n)
            lo.append(np.full(n, -1 if name == "recent" else 0, dtype=np.int16))
            hi.append(np.full(n, high, dtype=np.int16))
            at += n
        self.size = at
        self.low, self.high = np.concatenate(lo), np.concatenate(hi)

    def view(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """The named parts of an observation vector (views, shaped)."""
        return {k: vec[s].reshape(self.parts[k][0]) for k, s in self.slices.items()}

    def encode(self, obs: Observation, actions: Sequence[Action | None] = ()) -> np.ndarray:
        """The vector of ``obs``; ``actions``: the mover's macro-actions (Moves.actions)."""
        P, me = self.players, obs.seat
        rel = [(me + k) % P for k in range(P)]
        pos = {s: k for k, s in enumerate(rel)}
        vec = np.zeros(self.size, dtype=np.int16)
        v = self.view(vec)
        v["hand"][:] = np.bincount(obs.hand, minlength=NCARD)
        for i, meld in enumerate(sorted(sorted(m) for m in obs.table)):
            v["melds"][i] = np.bincount(meld, minlength=NCARD)
        v["table"][:] = v["melds"].sum(axis=0)
        for m, st in zip(obs.table, obs.stands):
            for c, s in zip(m, st):
                if c == JOKER:
                    v["joker_stands"][s] += 1
        v["stock"][0] = obs.stock
        v["hand_sizes"][:] = [obs.hand_sizes[s] for s in rel]
        v["scores"][:] = [min(obs.scores[s], _BIG) for s in rel]
        v["opened"][:] = [bool(obs.opened_seats[s]) for s in rel] if obs.opened_seats else 0
        placed: list[list[int]] = [[] for _ in range(P)]
        for t in obs.history:
            k = pos[t.seat]
            placed[k].extend(t.placed)
            v["drawn"][k] += t.drawn
        for k, cards in enumerate(placed):
            if cards:
                v["placed"][k] = np.minimum(np.bincount(cards, minlength=NCARD), 255)
        np.minimum(v["drawn"], 255, out=v["drawn"])
        recent = v["recent"]
        recent[:] = -1
        last = obs.history[-self.recent_rows:]
        for i, t in enumerate(last, start=self.recent_rows - len(last)):
            recent[i] = (pos[t.seat], ACTION_CODES[t.action], len(t.placed), t.drawn,
                         t.hand_sizes[t.seat])
        v["progress"][:] = (min(obs.hand_index, _BIG), min(obs.turn, _BIG))
        for i, a in enumerate(list(actions)[1:]):
            v["candidates"][i] = np.minimum(play_features(a, obs.hand, self.points), _BIG)
        return vec
