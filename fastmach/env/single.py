"""A Gymnasium single-agent environment: one seat learns, the others are played by any
fastmach strategy (a compiled one by name, ``"beginner"``, ``"expert(error=0.2)"``, or a
Python bot object or import path) through the reference State.

The observation and actions are the AEC environment's (fastmach.env.encoding, .moves);
``info["action_mask"]`` repeats the mask. The other seats' turns are played inside
``step`` (and ``reset``, when they come first); the reward is the learner's (see
fastmach.env.table). ``illegal="raise"`` (the default) makes a masked action a
FastmachError naming the legal ones; ``illegal="draw"`` plays the draw instead (or, where
drawing is not allowed, the first legal macro-action) and sets ``info["illegal"]``: for
tools that sample actions without the mask, such as Gymnasium's environment checker.
"""
from __future__ import annotations

from typing import Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fastmach.errors import FastmachError
from fastmach.game.deal import check_seed
from fastmach.rules import Rules, is_integer

from .moves import N_ACTIONS
from .table import Table, rules_of

__all__ = ["SingleAgentEnv"]

#: reset deals at most this many more replicates when the others end the match before
#: the learner's first turn (a bound, never met in practice)
MAX_SKIPPED = 1000


class SingleAgentEnv(gym.Env):
    """Machiavelli from ``seat``'s chair against ``opponents`` (one strategy for every
    other seat, or a list of one per other seat, in seat order)."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, rules: Rules | str = "classic", players: int | None = None,
                 opponents: str | object | Sequence = "beginner", seat: int = 0,
                 reward: str = "match", max_turns: int | None = None,
                 illegal: str = "raise", render_mode: str | None = None):
        r = rules_of(rules, players)
        P = r.players
        if not is_integer(seat) or not 0 <= seat < P:
            raise FastmachError(f"seat must be 0..{P - 1}, got {seat!r}")
        others = (list(opponents) if isinstance(opponents, (list, tuple))
                  else [opponents] * (P - 1))
        if len(others) != P - 1:
            raise FastmachError(f"opponents: {len(others)} given for the {P - 1} other seats")
        if illegal not in ("raise", "draw"):
            raise FastmachError(f"illegal must be 'raise' or 'draw', got {illegal!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise FastmachError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if max_turns is not None and (not is_integer(max_turns) or max_turns < 1):
            raise FastmachError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        seats = others[:seat] + ["expert"] + others[seat:]  # the learner's seat: a placeholder
        self.table = Table(r, seats, reward)
        self.rules, self.seat = self.table.rules, int(seat)
        self.illegal, self.render_mode = illegal, render_mode
        self.max_turns = None if max_turns is None else int(max_turns)
        self._cut = False   # the last step truncated the episode (max_turns)
        lay = self.table.layout
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(lay.low, lay.high, dtype=np.int16),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(N_ACTIONS)

    @property
    def game_state(self):
        """The reference State of the game (every card; not the learner's view)."""
        return self.table.state

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal (replicate 0 of ``seed``, else the next replicate) and play the other seats
        up to the learner's first turn. A deal whose match the others end before that turn
        (an opponent goes out at once: about 1 jokers deal in 800) is no episode: the next
        replicate is dealt instead, and ``info["skipped"]`` lists the replicates passed
        over (the same ones for the same seed). ``seed``: an int or a NumPy integer, >= 0."""
        seed = None if seed is None else check_seed(seed)   # (before gymnasium's own check)
        super().reset(seed=seed)
        self.table.reset(seed)
        self._cut = False
        reward, skipped = self._others(limited=False), []
        while self.table.live.is_terminal():
            skipped.append(self.table.replicate)
            if len(skipped) > MAX_SKIPPED:
                raise FastmachError(f"reset: {len(skipped)} deals in a row ended before seat "
                                    f"{self.seat}'s first turn")
            self.table.reset(None)
            reward = self._others(limited=False)
        obs = self.table.observe(self.seat)
        return obs, {"action_mask": obs["action_mask"].copy(), "reward_before": reward,
                     "skipped": skipped}

    def _others(self, limited: bool = True) -> float:
        """Play the other seats until the learner's turn, the end, or (``limited``: in a
        step) ``max_turns``; their reward to it."""
        st, total = self.table.live, 0.0
        while not st.is_terminal() and st.current_player != self.seat \
                and not (limited and self._truncated(st)):
            total += self.table.apply()[self.seat]
        return total

    def _truncated(self, st) -> bool:
        return self.max_turns is not None and st.total_turns >= self.max_turns

    def step(self, action):
        st = self.table.live
        if st is None or st.is_terminal():
            raise FastmachError("step: the match is over (call reset)")
        if self._cut:
            raise FastmachError(f"step: the episode was truncated at max_turns = "
                                f"{self.max_turns} (call reset)")
        moves = self.table.moves
        info: dict = {}
        if self.illegal == "draw" and not moves.allowed(action):
            action = int(np.flatnonzero(moves.mask)[0])
            info["illegal"] = True
        reward = self.table.apply(moves.action(action))[self.seat]
        reward += self._others()
        terminated = st.is_terminal()
        truncated = self._cut = not terminated and self._truncated(st)
        obs = self.table.observe(self.seat)
        info["action_mask"] = obs["action_mask"].copy()
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, bool(truncated), info

    def render(self):
        if self.render_mode is None:
            return None
        text = self.table.render(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text
