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
from fastmach.rules import Rules, is_integer

from .moves import N_ACTIONS
from .table import Table, rules_of

__all__ = ["SingleAgentEnv"]


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
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < P:
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
        super().reset(seed=seed)
        self.table.reset(seed)
        reward = self._others()
        obs = self.table.observe(self.seat)
        return obs, {"action_mask": obs["action_mask"].copy(), "reward_before": reward}

    def _others(self) -> float:
        """Play the other seats until the learner's turn or the end; their reward to it."""
        st, total = self.table.live, 0.0
        while not st.is_terminal() and st.current_player != self.seat:
            total += self.table.apply()[self.seat]
        return total

    def step(self, action):
        st = self.table.live
        if st is None or st.is_terminal():
            raise FastmachError("step: the match is over (call reset)")
        moves = self.table.moves
        info: dict = {}
        if self.illegal == "draw" and not (isinstance(action, (int, np.integer))
                                           and 0 <= action < N_ACTIONS and moves.mask[action]):
            action = int(np.flatnonzero(moves.mask)[0])
            info["illegal"] = True
        reward = self.table.apply(moves.action(action))[self.seat]
        reward += self._others()
        terminated = st.is_terminal()
        truncated = (not terminated and self.max_turns is not None
                     and st.total_turns >= self.max_turns)
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
