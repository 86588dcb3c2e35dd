"""The environment's fixed-size observation: one float32 vector per seat, every value in
[0, 1], made of named parts (docs/env.md describes each).

Seats are relative: index 0 is the observing seat, then the next seats clockwise (so a
policy learned at one seat plays at any). ``Layout(rules).parts`` gives each part's shape
and the count that maps to 1.0 (``scale``); ``Layout.slices`` its place in the vector
(``layout.view(vec)`` returns the parts, shaped). A count is divided by its scale and
clipped at 1:

``hand`` (53)              the seat's cards: copies of each card id (52 = joker) / C
``table`` (53)             the table's cards: copies of each card id / C
``joker_stands`` (53)      table jokers standing for each card / max(jokers, 1)
``melds`` (M, 53)          each table meld's cards / C, melds in sorted order, zero rows
                           after (M = deck size // 3, the most melds a table can hold)
``stock`` (1)              cards left in the stock / deck size
``hand_sizes`` (P)         every seat's hand size / deck size
``scores`` (P)             match scores before this hand / the score scale (the match's
                           end total under ``match = "to:N"``, else 500; clipped)
``opened`` (P)             who has opened this hand (0/1)
``placed`` (P, 53)         the cards each seat put on the table this hand / C
``drawn`` (P)              the cards each seat drew this hand / deck size
``recent`` (2P, 9)         the last 2P turns, newest last, one row each: present (0 for
                           the rows before the hand's first turn), seat / max(P - 1, 1),
                           play, draw, pass, fail (one-hot), cards placed / deck size,
                           cards drawn / deck size, that seat's hand size after / deck size
``progress`` (2)           the hand's index in the match / 32, the turn in the hand / 256
``legal`` (N_ACTIONS)      the action mask (0/1; zeros for another seat than the mover)
``max_play`` (2)           the mover's ``max_cards`` play: the share of its hand it places,
                           1 if it empties the hand (zeros without that play, or for
                           another seat than the mover)

C = max(decks, jokers): the most copies of one card id. The observation space is
``Box(0, 1, (size,), float32)``: the bounds are exact.

Nothing in it depends on another seat's cards or the stock's order (a test permutes
them). ``Encoder`` fills the vector in C (fastmach.env._encode) and reads only the turns of the
public history it has not seen yet; tests compare it with an independent loop in Python.
"""
from __future__ import annotations

import numpy as np

from fastmach.core.cards import NCARD
from fastmach.errors import FastmachError
from fastmach.rules import Rules
from fastmach.strategies import Observation

from . import _encode  # type: ignore[attr-defined]
from .moves import N_ACTIONS

__all__ = ["Layout", "Encoder", "SCORE_SCALE", "HANDS_SCALE", "TURNS_SCALE", "RECENT_COLS"]

SCORE_SCALE = 500   # the score that maps to 1.0 when the match has no end total
HANDS_SCALE = 32    # the hand index that maps to 1.0
TURNS_SCALE = 256   # the turn in a hand that maps to 1.0
RECENT_COLS = 9


class Layout:
    """The parts of the observation vector for one rule set (players, deck size)."""

    def __init__(self, rules: Rules):
        P = rules.players
        self.rules = rules
        self.players = P
        self.max_melds = rules.deck_size // 3
        self.recent_rows = 2 * P
        self.copies = max(rules.decks, rules.jokers, 1)
        self.deck = rules.deck_size
        self.score_scale = (rules.match_end_total if rules.match_kind == "threshold"
                            else SCORE_SCALE)
        C, D = self.copies, self.deck
        self.parts: dict[str, tuple[tuple[int, ...], int]] = {
            "hand": ((NCARD,), C), "table": ((NCARD,), C),
            "joker_stands": ((NCARD,), max(rules.jokers, 1)),
            "melds": ((self.max_melds, NCARD), C), "stock": ((1,), D),
            "hand_sizes": ((P,), D), "scores": ((P,), self.score_scale), "opened": ((P,), 1),
            "placed": ((P, NCARD), C), "drawn": ((P,), D),
            "recent": ((self.recent_rows, RECENT_COLS), 1), "progress": ((2,), 1),
            "legal": ((N_ACTIONS,), 1), "max_play": ((2,), 1),
        }
        self.slices: dict[str, slice] = {}
        at = 0
        for name, (shape, _) in self.parts.items():
            n = int(np.prod(shape))
            self.slices[name] = slice(at, at + n)
            at += n
        self.size = at
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.ones(self.size, dtype=np.float32)

    def view(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """The named parts of an observation vector (views, shaped)."""
        return {k: vec[s].reshape(self.parts[k][0]) for k, s in self.slices.items()}

    def counts(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """The parts that are counts, as counts again (rounded: for tests and debugging)."""
        v = self.view(vec)
        return {k: np.rint(v[k] * self.parts[k][1]).astype(np.int64)
                for k in ("hand", "table", "joker_stands", "melds", "stock", "hand_sizes",
                          "opened", "placed", "drawn")}


class Encoder:
    """Fills observation vectors of one Layout (one seat's view at a time), in C
    (fastmach.env._encode). It keeps each seat's placed and drawn totals of the current
    hand and reads only the public turns it has not seen (a history that is not a
    continuation of the last one is read again from its start)."""

    def __init__(self, layout: Layout):
        self.layout = lay = layout
        P = lay.players
        self._off = np.array([lay.slices[k].start for k in lay.parts], dtype=np.int64)
        self._scale = np.array([1 / lay.copies, 1 / lay.deck,
                                1 / lay.parts["joker_stands"][1], 1 / lay.score_scale,
                                1 / max(P - 1, 1), 1 / HANDS_SCALE, 1 / TURNS_SCALE])
        self._hand = -1
        self._seen = 0
        self._first: object = None
        self._placed = np.zeros((P, NCARD), dtype=np.int64)
        self._drawn = np.zeros(P, dtype=np.int64)

    def copy(self) -> "Encoder":
        new = Encoder.__new__(Encoder)
        new.__dict__.update(self.__dict__)
        new._placed, new._drawn = self._placed.copy(), self._drawn.copy()
        return new

    def encode(self, obs: Observation, mask: np.ndarray | None = None,
               out: np.ndarray | None = None,
               max_play: tuple[float, float] | None = None) -> np.ndarray:
        """The vector of ``obs`` (``mask``: the mover's action mask, else zeros;
        ``max_play``: ``Moves.max_play()`` of the mover), written into ``out`` when given
        (a contiguous float32 row of the layout's size)."""
        lay = self.layout
        v = np.empty(lay.size, dtype=np.float32) if out is None else out
        if v.shape != (lay.size,) or v.dtype != np.float32:
            raise FastmachError(f"encode: out must be a float32 row of {lay.size} values")
        hist = obs.history
        first = hist[0] if hist else None
        if obs.hand_index != self._hand or len(hist) < self._seen or first is not self._first:
            self._hand, self._seen, self._first = obs.hand_index, 0, first
            self._placed[:] = 0
            self._drawn[:] = 0
        if len(hist) > self._seen:
            _encode.advance(self._placed, self._drawn, hist, self._seen)
            self._seen = len(hist)
        _encode.fill(v, self._off, self._scale, obs, lay.players, lay.recent_rows,
                     lay.max_melds, self._placed, self._drawn, mask, max_play)
        return v
