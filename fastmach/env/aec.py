"""The PettingZoo AEC environment: every seat an agent (``player_0`` .. ``player_{P-1}``).

``observe(agent)`` is ``{"observation": float32 vector, "action_mask": int8 mask}`` (the
vector: fastmach.env.encoding; the actions: fastmach.env.moves); the mask is all zeros
for an agent whose turn it is not. ``step(k)`` plays macro-action k for the agent to move;
a masked action raises FastmachError naming the legal ones. ``max_turns`` truncates a
match after that many turns (None: matches end by the rules alone).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from fastmach.errors import FastmachError
from fastmach.rules import Rules, is_integer

from .moves import N_ACTIONS
from .table import Table, rules_of

__all__ = ["raw_env", "env"]


class raw_env(AECEnv):
    """Machiavelli under ``rules`` with ``players`` seats, every seat an agent."""

    metadata = {"render_modes": ["human", "ansi"], "name": "machiavelli_v0",
                "is_parallelizable": False}

    def __init__(self, rules: Rules | str = "classic", players: int | None = None,
                 reward: str = "match", max_turns: int | None = None,
                 render_mode: str | None = None, turns: str = "compiled"):
        """``turns``: ``"compiled"`` applies each agent's draw or checked play in C
        (fastmach.env.table), ``"reference"`` through the State's own steps."""
        super().__init__()
        r = rules_of(rules, players)
        if render_mode not in (None, "human", "ansi"):   # metadata["render_modes"]
            raise FastmachError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if max_turns is not None and (not is_integer(max_turns) or max_turns < 1):
            raise FastmachError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        self.table = Table(r, ["expert"] * r.players, reward, turns)
        self.rules = self.table.rules
        self.max_turns = None if max_turns is None else int(max_turns)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(r.players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        lay = self.table.layout
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(lay.low, lay.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[self.possible_agents[self._seat_of(agent)]]

    def action_space(self, agent):
        return self.action_spaces[self.possible_agents[self._seat_of(agent)]]

    def _seat_of(self, agent) -> int:
        """The seat of ``agent`` (FastmachError naming the agents for an unknown one)."""
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise FastmachError(f"unknown agent {agent!r}: the agents are "
                                f"{', '.join(self.possible_agents)}")
        return seat

    @property
    def game_state(self):
        """The reference State of the game (fastmach.State: every card; not an agent's view)."""
        return self.table.state

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        st = self.table.reset(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[st.current_player]

    def observe(self, agent):
        obs = self.table.observe(self._seat_of(agent))
        if self.truncations.get(agent):   # (a truncated agent may only step None)
            obs["action_mask"][:] = 0
        return obs

    def action(self, agent, k: int):
        """The exact action (Play, Draw or Pass) behind macro-action k of ``agent`` now."""
        if self._seat_of(agent) != self.table.live.current_player:
            raise FastmachError(f"{agent} is not the agent to move")
        return self.table.moves.action(k)

    def step(self, action) -> None:
        if not hasattr(self, "agent_selection"):
            raise FastmachError("the environment is not dealt yet: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        exact = self.table.moves.action(action)
        self._cumulative_rewards[agent] = 0.0
        rewards = self.table.apply(exact)
        st = self.table.live
        for a in self.agents:
            self.rewards[a] = rewards[self._seat[a]]
        if st.is_terminal():
            self.terminations = {a: True for a in self.agents}
        elif self.max_turns is not None and st.total_turns >= self.max_turns:
            self.truncations = {a: True for a in self.agents}
        if not st.is_terminal():
            self.agent_selection = self.possible_agents[st.current_player]
        else:
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % len(self.possible_agents)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        text = self.table.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(rules: Rules | str = "classic", players: int | None = None, **kwargs) -> AECEnv:
    """``raw_env`` with PettingZoo's order-enforcing and out-of-bounds wrappers."""
    e = raw_env(rules, players, **kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
