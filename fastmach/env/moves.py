"""The environment's action space: macro-actions, each an exact action of the game.

The moves of a Machiavelli turn are every rearrangement of the table that takes some
hand cards: far too many to enumerate, let alone to learn over. The environment offers
``N_ACTIONS`` macro-actions instead (``Discrete(N_ACTIONS)``):

- 0 ``draw``: draw a card (``Draw``), or pass (``Pass``) when the stock is empty under
  ``stock_empty = "play-on"``; masked where the rules oblige the seat to play. Drawing
  while a play exists is the *hold* (``may_draw_when_able``).
- 1..7 one candidate play each, found by the exact solver from part of the hand:

  ``max_cards``    the expert's play: the most hand cards (under ``joker_swap = "hand"``
                   it takes back the jokers the expert takes)
  ``max_points``   the most points of placed cards (``hand_points``; ties: more cards)
  ``keep_jokers``  the most cards, holding back every joker of the hand
  ``keep_faces``   the most cards, holding back the J, Q and K of the hand
  ``keep_both``    the most cards, holding back the jokers and the J, Q and K together
  ``one_card``     one card only: the one with the most points that can join the table
  ``own_melds``    new melds of hand cards only, the table melds left as they were

  Before a seat has opened (``opening_points``) every variant is the opening from its
  holding (hand-only melds worth the threshold) and ``one_card`` does not exist.
- 8 ``botch``: a deliberate failed play (``Fail``): the table stays as it was and the
  seat draws ``failed_penalty`` cards; legal where some play is (a way to draw more than
  one card, or to draw where ``may_draw_when_able = false`` forbids the draw).

The mask says which macro-actions exist now; it is computed without building any play
(the compiled ability test on the holding, ``fastmach.game._ability``; the exact solver
only under ``joker_swap = "hand"``, where a swap can make a play that the holding's
placements do not). A play is built when its action is taken (``Moves.action``). Two
macro-actions may build the same play (``keep_jokers`` with no joker in hand is
``max_cards`` in most positions): both stay unmasked.

Everything is computed from the seat's ``Observation`` (its hand, the table, the public
history), never from another hand or the stock, so a policy's bot builds the same moves
from what it is shown (fastmach.env.policy).
"""
from __future__ import annotations

from itertools import chain
from typing import Any, Callable, Sequence

import numpy as np

from fastmach.core._ids import ids_of_counts
from fastmach.core.cards import JOKER, NCARD, card_points
from fastmach.errors import FastmachError
from fastmach.game import Game
from fastmach.game.actions import Action, Draw, Fail, Pass, Play, check_action
from fastmach.rules import Rules, is_integer
from fastmach.solver import opening, solve
from fastmach.strategies import Observation

from ._probe import Probe

__all__ = ["ACTIONS", "N_ACTIONS", "DRAW", "BOTCH", "Moves", "moves", "action_index",
           "game_for"]

ACTIONS = ("draw", "max_cards", "max_points", "keep_jokers", "keep_faces", "keep_both",
           "one_card", "own_melds", "botch")
N_ACTIONS = len(ACTIONS)
DRAW, MAX_CARDS, MAX_POINTS, KEEP_JOKERS, KEEP_FACES, KEEP_BOTH, ONE_CARD, OWN_MELDS, \
    BOTCH = range(N_ACTIONS)
_FACE = np.array([c < 52 and c % 13 >= 10 for c in range(NCARD)])
_NOT_JOKER = np.arange(NCARD) != JOKER
#: the holding of each solver variant: which hand cards it may place (None: all)
_HOLDINGS: dict[int, np.ndarray | None] = {
    MAX_POINTS: None, KEEP_JOKERS: _NOT_JOKER, KEEP_FACES: ~_FACE,
    KEEP_BOTH: _NOT_JOKER & ~_FACE}
_GAMES: dict[str, Game] = {}
_PROBES: dict[str, Probe] = {}


def _neighbours() -> np.ndarray:
    """NEIGHBOURS[c, t]: table card t can share a meld with hand card c on a table
    without jokers (the same rank, or the same suit one rank apart, K-A included). A card
    none of whose neighbours is on such a table cannot join it alone (a set holds cards
    of one rank, a run of three or more holds the card next to it)."""
    n = np.zeros((NCARD, NCARD), dtype=np.int64)
    for c in range(52):
        r, s = c % 13, c // 13
        for t in range(52):
            if t % 13 == r or (t // 13 == s and (t % 13 - r) % 13 in (1, 12)):
                n[c, t] = 1
    n[JOKER, :] = 1   # (a hand joker: any table card)
    return n


_NEIGHBOURS = _neighbours()
_NEIGHBOUR_SETS = [frozenset(np.flatnonzero(row).tolist()) for row in _NEIGHBOURS]
_FACE_SET = frozenset(np.flatnonzero(_FACE).tolist())


def game_for(rules: Rules) -> Game:
    """A Game of experts under ``rules`` (cached): its compiled ability test and expert
    engine build the moves of a seat known only by its Observation."""
    key = str(rules)
    g = _GAMES.get(key)
    if g is None:
        g = _GAMES[key] = Game(rules)
    return g


def probe_for(rules: Rules) -> Probe:
    """The mask's solver questions under ``rules`` (cached; fastmach.env._probe)."""
    key = str(rules)
    p = _PROBES.get(key)
    if p is None:
        p = _PROBES[key] = Probe(rules)
    return p


class Moves:
    """The macro-actions of the seat to play in ``obs`` (its own Observation): ``mask``
    the 0/1 action mask (computed on first use), ``action(k)`` the exact action behind
    macro-action k (built on first use). ``game``: a Game under the same rules (its
    ability test and expert engine; default ``game_for(obs.rules)``). ``probes``: a dict
    of which single cards can join this very table (filled here; a caller that sees the
    same table again passes the same dict). ``probe``: the solver questions' table reader
(default ``probe_for(obs.rules)``); ``counts``: the hand's 53 card counts (an int64
row; default counted from ``obs.hand``); ``failed_last``: each seat's last turn of this hand
was a fail (default read from ``obs.history``); ``expert``: a function giving the expert's
play as ``fastmach.env._turns.Turns.expert`` does (NotImplemented: ask the engine)."""

    def __init__(self, obs: Observation, game: Game | None = None,
                 probes: dict[int, bool] | None = None, probe: Probe | None = None,
                 counts: np.ndarray | None = None, failed_last: list[bool] | None = None,
                 expert: Callable[[], Any] | None = None):
        self.probes: dict[int, bool] = {} if probes is None else probes
        self.obs = obs
        self.rules = r = obs.rules
        self.game = game_for(r) if game is None else game
        self.counts = (np.bincount(np.asarray(obs.hand, dtype=np.int64),
                                   minlength=NCARD).astype(np.int64)
                       if counts is None else counts)
        self.failed_last = _failed_last(obs) if failed_last is None else failed_last
        self._expert_play = expert
        self.closed = r.opening_points > 0 and not obs.opened
        self._mask: np.ndarray | None = None
        self._built: dict[int, Action | None] = {}
        self._probe = probe_for(r) if probe is None else probe
        self._key = (obs.table, obs.stands)   # (the probe's key for this table)

    # ------------------------------------------------------------------ the mask
    @property
    def mask(self) -> np.ndarray:
        """The int8 action mask (1: the macro-action exists now)."""
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def _can(self, counts: np.ndarray, bare: bool = False) -> bool:
        """Whether a holding of ``counts`` can add a card to this table (``bare``: to an
        empty table, an opened seat): the State's ability test (fastmach.env._probe), the
        table read once for every question of this position."""
        o = self.obs
        p = self._probe
        if bare:
            return p.can_play(counts, True, True)
        self._load(p)
        return p.can_play(counts, o.opened)

    def _load(self, p: Probe) -> None:
        if p.key is not self._key:   # (this table is not the one the probe holds)
            p.load(self.obs.table, self.obs.stands, self._key)

    def _compute_mask(self) -> np.ndarray:
        o, r = self.obs, self.rules
        m = [0] * N_ACTIONS
        counts = self.counts
        hand = o.hand
        jokers = JOKER in hand
        faces = not _FACE_SET.isdisjoint(hand)
        swaps = r.joker_swap == "hand" and o.opened and any(JOKER in t for t in o.table)
        # what a smaller holding can play, a larger one can: keep_both's holding is inside
        # the others, so it is asked first
        # the expert's play answers "can the seat play" (the observation shows its size)
        best = self.build(MAX_CARDS) if hand else None
        can = best is not None
        # a play that places none of a holding's held-back cards is a play of that holding
        # (the same table after it): the solver is asked only where the expert's is none
        laid = frozenset(best.placed) if isinstance(best, Play) and not best.taken else None
        no_joker = laid is not None and JOKER not in laid
        no_face = laid is not None and _FACE_SET.isdisjoint(laid)
        both = can and not swaps and (jokers or faces) and (
            (no_joker and no_face) or self._sub(KEEP_BOTH))
        m[DRAW] = self._draw_legal(can)
        if not can:   # no play at all: only the draw (or pass)
            return np.array(m, dtype=np.int8)
        m[MAX_CARDS] = m[BOTCH] = 1
        if swaps:
            for k in _HOLDINGS:
                m[k] = self.build(k) is not None
        else:
            m[MAX_POINTS] = 1
            # (a holding the hand equals is the hand)
            m[KEEP_BOTH] = both if (jokers or faces) else can
            m[KEEP_JOKERS] = both or not jokers or (
                (no_joker or self._sub(KEEP_JOKERS)) if faces else both)
            m[KEEP_FACES] = both or not faces or (
                (no_face or self._sub(KEEP_FACES)) if jokers else both)
        if self.closed:
            m[OWN_MELDS] = 1   # (the opening from the whole hand: hand-only melds)
            return np.array(m, dtype=np.int8)
        m[OWN_MELDS] = self._can(counts, bare=True)
        if swaps:
            m[ONE_CARD] = self.build(ONE_CARD) is not None
        elif o.table:
            present = set(chain.from_iterable(o.table))
            kinds = sorted(set(hand))
            if JOKER not in present:   # (cards with no neighbour on the table cannot join)
                kinds = [c for c in kinds if not _NEIGHBOUR_SETS[c].isdisjoint(present)]
            m[ONE_CARD] = any(self._joins(c) for c in kinds)
        return np.array(m, dtype=np.int8)

    def _joins(self, c: int) -> bool:
        """Whether card c alone can join the table (remembered in ``probes``)."""
        x = self.probes.get(c)
        if x is None:
            self._load(self._probe)
            x = self.probes[c] = self._probe.joins(c)
        return x

    def _sub(self, k: int) -> bool:
        keep = _HOLDINGS[k]
        sub = self.counts if keep is None else self.counts * keep
        return bool(sub.any()) and self._can(sub)

    def _draw_legal(self, can: bool) -> bool:
        o, r = self.obs, self.rules
        if o.stock and r.may_draw_when_able:   # (a draw from a stock that holds a card)
            return True
        try:
            check_action(self.rules, self._draw(), seat=o.seat, hand=self.counts,  # type: ignore[arg-type]
                         melds=o.table, stands=o.stands, opened=o.opened, stock_left=o.stock,
                         play_exists=lambda: can)
        except FastmachError:
            return False
        return True

    def _draw(self) -> Action:
        return Pass() if not self.obs.stock and self.rules.stock_empty == "play-on" else Draw()

    # ------------------------------------------------------------------ the actions
    def action(self, k: Any) -> Action:
        """The exact action of macro-action k; FastmachError if it is masked now."""
        i = action_index(k)
        if i is None:
            raise FastmachError(f"action must be an integer 0..{N_ACTIONS - 1}, got {k!r}")
        if not self.mask[i]:
            legal = ", ".join(f"{j} {ACTIONS[j]}" for j in np.flatnonzero(self.mask))
            raise FastmachError(f"action {i} ({ACTIONS[i]}) is masked now; legal: {legal}")
        if i == DRAW or i == BOTCH:   # (unmasked: no solver question to ask again)
            return self._draw() if i == DRAW else Fail()
        a = self.build(i)
        if a is None:   # (the mask and the builders disagree: a bug, never a silent swap)
            raise FastmachError(f"action {i} ({ACTIONS[i]}) is unmasked but builds no play")
        return a

    def allowed(self, k: Any) -> bool:
        """Whether k is a macro-action index not masked now."""
        i = action_index(k)
        return i is not None and bool(self.mask[i])

    def build(self, k: int) -> Action | None:
        """The exact action of macro-action k, or None where it does not exist (the slow,
        direct answer the mask is tested against)."""
        if k not in self._built:
            self._built[k] = self._make(k)
        return self._built[k]

    def _make(self, k: int) -> Action | None:
        o, r = self.obs, self.rules
        hand = list(o.hand)
        if k == DRAW:
            return self._draw() if self._draw_legal(self._can(self.counts)) else None
        if k == MAX_CARDS:
            if self._expert_play is not None:
                found = self._expert_play()
                if found is None:
                    return None
                if found is not NotImplemented:
                    placed, taken, melds, stands = found
                    return Play(melds, placed, (JOKER,) * taken, stands=stands)
            return _expert(self.game, o, self.counts, self.failed_last)
        if k == BOTCH:
            return Fail() if self._can(self.counts) else None
        if k == ONE_CARD:
            return None if self.closed else _one_card(hand, o.table, r)
        if k == OWN_MELDS:
            return _opening(hand, o.table, o.stands, r, None if self.closed else 1)
        keep = _HOLDINGS[k]
        sub = hand if keep is None else [c for c in hand if keep[c]]
        if self.closed:
            return _opening(sub, o.table, o.stands, r)
        return _solved(sub, o.table, r, "points" if k == MAX_POINTS else "cards")

    def max_play(self) -> tuple[float, float]:
        """(share of the hand the ``max_cards`` play places, 1.0 if it empties the hand);
        zeros where there is no such play. Builds that play (kept for when it is taken)."""
        if not self.mask[MAX_CARDS]:
            return (0.0, 0.0)
        p = self.build(MAX_CARDS)
        hand = len(self.obs.hand)
        if not isinstance(p, Play) or not hand:
            return (0.0, 0.0)
        left = hand - len(p.placed) + len(p.taken)
        return (len(p.placed) / hand, float(left == 0))

    def features(self) -> np.ndarray:
        """Per macro-action 1..N-1: (exists, cards placed, points placed, jokers placed,
        jokers taken, empties the hand), building every play (slow: for analysis)."""
        pts = card_points(self.rules.hand_points)
        return np.array([play_features(self.build(k), self.obs.hand, pts)
                         for k in range(1, N_ACTIONS)], dtype=np.int64)


def action_index(k: Any) -> int | None:
    """k as a macro-action index 0..N_ACTIONS-1 (an int, a NumPy integer or a 0-d integer
    array, as ``Discrete(N_ACTIONS).contains`` takes them; not a bool), else None."""
    if isinstance(k, np.ndarray) and k.shape == () and k.dtype.kind in "iu":
        k = k.item()
    if not is_integer(k):
        return None
    return int(k) if 0 <= k < N_ACTIONS else None


def moves(position: Any) -> Moves:
    """The macro-actions of the seat to play: ``position`` a seat's Observation (what a
    bot is handed) or a reference State (its current seat's Observation is read)."""
    if isinstance(position, Observation):
        return Moves(position)
    return Moves(position.observation(position.current_player), position.game)


def _failed_last(obs: Observation) -> list[bool]:
    """Each seat's last turn of this hand was a fail (from the public history)."""
    P = obs.rules.players
    out: list[bool | None] = [None] * P
    left = P
    for t in reversed(obs.history):
        if out[t.seat] is None:
            out[t.seat] = t.action == "fail"
            left -= 1
            if not left:
                break
    return [bool(x) for x in out]


def _expert(game: Game, o: Observation, counts: np.ndarray,
            failed_last: list[bool]) -> Play | None:
    """The expert's play, decided from this seat's hand alone (other hands zeroed)."""
    P = o.rules.players
    hands = np.zeros((P, NCARD), dtype=np.int64)
    hands[o.seat] = counts
    kind, placed, taken, m, st, _ = game.expert_engine().decide_position(
        o.seat, hands, o.table, o.stands, list(o.opened_seats) or [o.opened] * P, o.stock, 0,
        failed_last, turn=o.turn - 1, hand_no=o.hand_index, scores=list(o.scores))
    if kind != "play":
        return None
    return Play(m, ids_of_counts(placed), (JOKER,) * taken, stands=st)


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
        return (int(p is not None), 0, 0, 0, 0, 0)
    placed = list(p.placed)
    left = len(hand) - len(placed) + len(p.taken)
    return (1, len(placed), int(sum(int(points[c]) for c in placed)),
            placed.count(JOKER), len(p.taken), int(left == 0))
