"""N single-agent games held in C for their whole episodes (``VectorEnv(engine="compiled")``).

The position of each game lives in the compiled module (fastmach.env._vector_step): the
other seats' turns, the learner's action and plays, its mask and its observation row are
all C, written into the caller's arrays. This module is its Python side: the deals and the
ends of hands (a match's ledger as the reference State keeps it, touched once a hand), the
Python builders where the C side asks them (the mask under joker swaps; a fault), seeds
and seats as SingleAgentEnv has them. ``supports`` says which set-ups it takes (every
other seat a compiled strategy); the vector environment steps the others with the
reference path.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from fastmach.core.cards import NCARD, card_points
from fastmach.errors import FastmachError
from fastmach.game.actions import Play
from fastmach.game import flow
from fastmach.game._rows import deal
from fastmach.game.deal import check_seed, game_start
from fastmach.solver.exact import POINT_SCALE, opening_weights, weights
from fastmach.strategies import Observation

from . import _vector_step  # type: ignore[attr-defined]
from .moves import ACTIONS, N_ACTIONS, Moves, _NEIGHBOURS, action_index, probe_for
from .single import MAX_SKIPPED, SingleAgentEnv, seat_at_reset
from .table import Table

__all__ = ["CompiledGames", "refusal", "supports"]

_new = object.__new__


class _Match:
    """A match's ledger between hands, as the reference State keeps it (its deals, scores
    and end: State.__init__, _deal, _end_hand, win_shares), with the attributes the
    compiled games read and write (``_hands``, ``_stock``, ``turn``, ...)."""

    def __init__(self, game, root: int, replicate: int):
        r = self.rules = game.rules
        self.game = game
        P = r.players
        self._rng, perm, self.first_dealer, self.rng_state, self.first_cut = game_start(
            r, root, replicate)
        self.scores = [0] * P
        self.hand_index = 0
        self.total_turns = 0
        self._terminal = False
        self.shares: tuple = ()
        self._deal(perm)

    def _deal(self, perm: np.ndarray) -> None:
        r = self.rules
        P, n = r.players, r.hand_size
        dealer = (self.first_dealer + self.hand_index) % P
        self.deal_key = self.rng_state
        cards = perm.tolist()
        self._hands, _ = deal(cards, P, n, (dealer + 1) % P)
        self._stock = cards[P * n:]
        self._stock_pos = 0
        self.turn = 0
        self.current_player = ((self.first_cut + self.hand_index) % P
                               if self.first_cut is not None else (dealer + 1) % P)

    def end_hand(self, end: str) -> None:
        """The hand ended on the current player's turn: scores, the next deal or the
        match's end."""
        r = self.rules
        pts = (self._hands * self.game.hand_points).sum(axis=1).tolist()
        outcome = flow.hand_outcome(r, end, self.current_player, pts)
        self.shares = outcome.shares
        for s, x in enumerate(outcome.scored):
            self.scores[s] += x
        self.hand_index += 1
        kind, value = r.match_kind, r.match_value
        if (kind == "single" or (kind == "rotations" and self.hand_index >= value * r.players)
                or (kind == "threshold" and max(self.scores) >= r.match_end_total)):
            self._terminal = True
        else:
            self._deal(self._rng.permutation(self.game.deck))

    def win_shares(self) -> list[float]:
        if self.rules.match_kind == "single":
            return list(self.shares)
        return flow.lowest_shares(self.scores, self.rules.ties == "shared")


def refusal(i: int, action: Any, legal: list[int]) -> FastmachError:
    """The error refusing game i's masked or invalid ``action`` (illegal="raise"), naming
    the legal ones (an invalid one: the value given)."""
    names = ", ".join(f"{j} {ACTIONS[j]}" for j in legal)
    k = action_index(action)
    if k is not None:
        return FastmachError(f"game {i}: action {k} ({ACTIONS[k]}) is masked "
                             f"now; legal: {names}")
    return FastmachError(f"game {i}: action must be an integer 0..{N_ACTIONS - 1}, got "
                         f"{action!r}")


def supports(env: SingleAgentEnv) -> bool:
    """Whether the compiled games play ``env``'s set-up (every other seat a compiled
    strategy)."""
    return env.table._turns is not None


class CompiledGames:
    """``count`` games of one set-up (SingleAgentEnv's keywords), held in C."""

    def __init__(self, count: int, kwargs: dict):
        probe = SingleAgentEnv(**{**kwargs, "observation": "vector"})
        if not supports(probe):
            raise FastmachError("the compiled vector games need every other seat a compiled "
                                "strategy (engine='reference' takes Python bots)")
        self.rules = r = probe.rules
        self.layout = lay = probe.layout
        self.reward_kind = probe.reward_kind
        self.seat_choice = probe.seat_choice
        self._others_list = probe._others_list
        self._tables: dict[int, Table] = {}
        self.count = count
        enc = probe.table.encoder
        pts = card_points(r.hand_points)
        self.games = _vector_step.Games(
            count, probe.table.game._engine, r, self, enc._off, enc._scale,
            lay.recent_rows, lay.max_melds, _NEIGHBOURS, probe.max_turns,
            probe.illegal == "raise", *weights(r, "cards"), *weights(r, "points"),
            np.array(sorted(range(NCARD), key=lambda c: (-int(pts[c]), c)), dtype=np.int64),
            *opening_weights(), POINT_SCALE)
        self._warned = False
        self.roots = [int(np.random.SeedSequence().entropy) % 2**63  # type: ignore[arg-type]
                      for _ in range(count)]
        self.replicates = [-1] * count
        self.seats = [0 if self.seat_choice == "random" else int(self.seat_choice)] * count
        self.ledgers: list[Any] = [None] * count
        self.np_randoms: list[Any] = [None] * count
        self._moves: list[Any] = [None] * count
        self._probe = probe_for(r)
        size = lay.size
        self.obs = np.zeros((count, size), dtype=np.float32)
        self.final = np.zeros((count, size), dtype=np.float32)
        self.masks = np.zeros((count, N_ACTIONS), dtype=np.uint8)

    def share(self, obs: np.ndarray, final: np.ndarray, masks: np.ndarray) -> None:
        """Write the rows into these arrays (a worker's share of the shared buffers)."""
        self.obs, self.final, self.masks = obs, final, masks

    # ------------------------------------------------------------------ seats, deals
    def _table(self, seat: int) -> Table:
        t = self._tables.get(seat)
        if t is None:
            o = self._others_list
            t = self._tables[seat] = Table(self.rules, o[:seat] + ["expert"] + o[seat:],
                                           self.reward_kind, "compiled")
        return t

    def _seat_for(self, i: int, options: dict | None) -> int:
        def rng() -> np.random.Generator:
            if self.np_randoms[i] is None:
                self.np_randoms[i], _ = seeding.np_random()
            return self.np_randoms[i]
        return seat_at_reset(self.rules.players, options, self.seat_choice, self.seats[i], rng)

    def _deal(self, i: int) -> None:
        """Deal game i's current replicate and play to the learner's first turn (the next
        replicate while the others end the match first, as SingleAgentEnv.reset)."""
        t = self._table(self.seats[i])
        engine_seats = t.game._engine.seats
        expert = t.game.expert_engine().seats[self.seats[i]]
        skipped = 0
        while True:
            st = self.ledgers[i] = _Match(t.game, self.roots[i], self.replicates[i])
            self.games.load(i, st, self.seats[i], engine_seats, expert)
            self.games.play_others(i, False)
            if not self.games.terminal(i):
                return
            skipped += 1
            if skipped > MAX_SKIPPED:
                raise FastmachError(f"reset: {skipped} deals in a row ended before seat "
                                    f"{self.seats[i]}'s first turn")
            self.replicates[i] += 1

    def reset(self, seeds: list[int | None], options: dict | None):
        for i in range(self.count):
            seed = seeds[i]
            if seed is not None:
                seed = check_seed(seed)
                self.np_randoms[i], _ = seeding.np_random(seed)
            self.seats[i] = self._seat_for(i, options)
            if seed is not None:
                self.roots[i], self.replicates[i] = seed, 0
            else:
                self.replicates[i] += 1
            self._deal(i)
            self.games.row(i, self.obs, i, self.masks)
        return self.obs.copy(), self.masks.astype(bool)

    # ------------------------------------------------------------------ callbacks (C)
    def restart(self, i: int) -> None:
        """Game i ended: deal its next replicate (SingleAgentEnv.reset without a seed)."""
        self.seats[i] = self._seat_for(i, None)
        self.replicates[i] += 1
        self._deal(i)

    def hand_over(self, i: int, end: str) -> float:
        """Game i's hand ended (``end``) on the turn of the seat to play: the ledger's end
        of hand; the learner's reward from it. The next deal is loaded, or the match is
        over."""
        st = self.ledgers[i]
        g = self.games
        g.store(i, st)
        st.end_hand(end)
        seat = self.seats[i]
        if self.reward_kind == "hand":
            reward = float(st.shares[seat])
        elif st._terminal:
            reward = float(st.win_shares()[seat])
        else:
            reward = 0.0
        if st._terminal:
            g.scores_from(i, st)
        else:
            t = self._table(seat)
            g.load(i, st, seat, t.game._engine.seats, t.game.expert_engine().seats[seat])
        return reward

    def _moves_of(self, i: int) -> Moves:
        g = self.games
        key = (self.roots[i], self.replicates[i], g.position(i))
        m = self._moves[i]
        if m is None or m[0] != key:
            (hand, melds, stands, stock, sizes, scores, opened, hand_index, turn, failed,
             counts) = key[2]
            seat = self.seats[i]
            obs = _new(Observation)
            obs.__dict__.update(
                seat=seat, hand=hand, table=melds, stands=stands, stock=stock,
                hand_sizes=sizes, scores=scores, opened=opened[seat], rules=self.rules,
                hand_index=hand_index, turn=turn, opened_seats=opened, history=())
            t = self._table(seat)
            moves = Moves(obs, t.game, {}, self._probe,
                          np.array(counts, dtype=np.int64), failed,
                          lambda: g.expert_play(i))
            m = self._moves[i] = (key, moves)
        return m[1]

    def build(self, i: int, k: int) -> tuple:
        """Game i's play of macro-action k (placed ids, jokers taken, melds, stands)."""
        a = self._moves_of(i).build(k)
        if not isinstance(a, Play):   # (the mask and the builders disagree: a bug)
            raise FastmachError(f"action {k} ({ACTIONS[k]}) is unmasked but builds no play")
        return (tuple(a.placed), len(a.taken), a.melds, a.stands)

    def built(self, i: int, kinds: tuple) -> list[bool]:
        """Whether each macro-action of ``kinds`` builds a play in game i."""
        m = self._moves_of(i)
        return [m.build(k) is not None for k in kinds]

    def refuse(self, i: int, action: int, legal: list[int]) -> None:
        raise refusal(i, action, legal)

    # ------------------------------------------------------------------ the step
    def advance(self, actions: np.ndarray):
        """Step every game, its rows written in place: (rewards, terminations,
        truncations, illegal, ended)."""
        n = self.count
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu":   # (VectorEnv hands integers: never truncated)
            raise FastmachError(f"actions must be integers, got dtype {actions.dtype}")
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        rewards = np.zeros(n)
        term = np.zeros(n, dtype=np.uint8)
        trunc = np.zeros(n, dtype=np.uint8)
        illegal = np.zeros(n, dtype=np.uint8)
        ended = np.zeros(n, dtype=np.uint8)
        self.games.step(acts, self.obs, self.masks, rewards, term, trunc, illegal, ended,
                        self.final)
        ended_b = ended.view(bool)
        if illegal.any() and not self._warned:
            self._warned = True
            warnings.warn("VectorEnv: a masked action was played as the draw (or the first "
                          "legal action); infos['illegal'] marks each one", UserWarning,
                          stacklevel=3)
        return rewards, term.view(bool), trunc.view(bool), illegal.view(bool), ended_b

    @property
    def illegal_count(self) -> int:
        return int(self.games.illegal_count)

