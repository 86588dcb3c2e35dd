"""A Gymnasium single-agent environment: one seat learns, the others are played by any
fastmach strategy (a compiled one by name, ``"beginner"``, ``"expert(error=0.2)"``, or a
Python bot object or import path) through the reference State.

The observation and actions are the AEC environment's (fastmach.env.encoding, .moves):
``observation="dict"`` (the default) gives ``{"observation": float32 vector,
"action_mask": int8 mask}``, ``observation="vector"`` the vector alone (its ``legal``
part is the mask); ``action_masks()`` returns the mask as booleans (MaskablePPO's
convention) and ``info["action_mask"]`` repeats it. The other seats' turns are played
inside ``step`` (and ``reset``, when they come first); the reward is the learner's (see
fastmach.env.table).

The learner's seat: ``seat=k`` (default 0) or ``seat="random"`` (drawn at each reset from
the environment's generator, so from the reset's seed); ``reset(options={"seat": k})``
sets it for that episode.

A masked action (``illegal=``): ``"draw"`` (the default) plays the draw instead (or,
where drawing is not allowed, the first legal macro-action), sets ``info["illegal"]``,
counts it in ``illegal_count`` and warns once per environment: tools that sample actions
without the mask (Gymnasium's environment checker) run, and a learner that ignores the
mask is told. ``"raise"`` makes it a FastmachError naming the legal actions.

Copies: ``copy.deepcopy(env)`` continues from the same position (the game state cloned;
the opponents' strategies shared); ``pickle`` rebuilds the environment from its
arguments and replays the episode's deal and actions to the same position (opponents
given as objects must pickle, and a Python bot's memory of earlier turns is not kept).
"""
from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fastmach.errors import FastmachError
from fastmach.game.deal import check_seed
from fastmach.rules import Rules, is_integer

from .moves import DRAW, N_ACTIONS
from .table import REWARDS, TURNS, Table, rules_of

__all__ = ["SingleAgentEnv", "ILLEGAL", "OBSERVATIONS", "RESET_OPTIONS", "check_options"]

#: reset deals at most this many more replicates when the others end the match before
#: the learner's first turn (a bound, never met in practice)
MAX_SKIPPED = 1000
ILLEGAL = ("draw", "raise")
OBSERVATIONS = ("dict", "vector")
#: the keys ``reset(options=...)`` takes
RESET_OPTIONS = ("seat",)


def check_options(options: Any, players: int) -> dict | None:
    """``reset``'s ``options`` as a dict (None stays None): a mapping whose keys are
    RESET_OPTIONS, ``seat`` 0..players-1; else FastmachError naming what is wrong."""
    if options is None:
        return None
    allowed = ", ".join(RESET_OPTIONS)
    if not isinstance(options, Mapping):
        raise FastmachError(f"reset options must be a dict (keys: {allowed}) or None, got "
                            f"{options!r}")
    unknown = [k for k in options if k not in RESET_OPTIONS]
    if unknown:
        raise FastmachError(f"reset options: unknown key {unknown[0]!r}; allowed: {allowed}")
    if "seat" in options:
        k = options["seat"]
        if not is_integer(k) or not 0 <= k < players:
            raise FastmachError(f"reset options: seat must be 0..{players - 1}, got {k!r}")
    return dict(options)


def seat_at_reset(players: int, options: dict | None, choice: int | str, seat: int,
                  rng: Callable[[], np.random.Generator]) -> int:
    """The learner's seat for an episode: ``options["seat"]`` where given (0..players-1,
    else FastmachError), a draw from ``rng()`` where the env's seat is ``"random"``, else
    ``seat``."""
    if options and "seat" in options:
        k = options["seat"]
        if not is_integer(k) or not 0 <= k < players:
            raise FastmachError(f"reset options: seat must be 0..{players - 1}, got {k!r}")
        return int(k)
    if choice == "random":
        return int(rng().integers(players))
    return seat


class SingleAgentEnv(gym.Env):
    """Machiavelli from ``seat``'s chair against ``opponents`` (one strategy for every
    other seat, or a list of one per other seat, in seat order after the learner's)."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, rules: Rules | str = "classic", players: int | None = None,
                 opponents: str | object | Sequence = "beginner", seat: int | str = 0,
                 reward: str = "match", max_turns: int | None = None,
                 illegal: str = "draw", observation: str = "dict",
                 render_mode: str | None = None, turns: str = "compiled"):
        self._args = dict(rules=rules, players=players, opponents=opponents, seat=seat,
                          reward=reward, max_turns=max_turns, illegal=illegal,
                          observation=observation, render_mode=render_mode, turns=turns)
        r = rules_of(rules, players)
        P = r.players
        if seat != "random" and (not is_integer(seat) or not 0 <= seat < P):  # type: ignore[operator]
            raise FastmachError(f"seat must be 0..{P - 1} or 'random', got {seat!r}")
        others = (list(opponents) if isinstance(opponents, (list, tuple))
                  else [opponents] * (P - 1))
        if len(others) != P - 1:
            raise FastmachError(f"opponents: {len(others)} given for the {P - 1} other seats")
        if illegal not in ILLEGAL:
            raise FastmachError(f"illegal must be 'draw' or 'raise', got {illegal!r}")
        if reward not in REWARDS:
            raise FastmachError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if observation not in OBSERVATIONS:
            raise FastmachError(f"observation must be 'dict' or 'vector', got {observation!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise FastmachError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if max_turns is not None and (not is_integer(max_turns) or max_turns < 1):
            raise FastmachError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        if turns not in TURNS:
            raise FastmachError(f"turns must be one of {', '.join(TURNS)}, got {turns!r}")
        self._others_list = others
        self.turns = turns
        self._tables: dict[int, Table] = {}
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else int(seat)  # type: ignore[arg-type]
        self.table = self._table_for(self.seat, r, reward)
        self.rules = self.table.rules
        self.reward_kind = reward
        self.illegal, self.render_mode, self.observation = illegal, render_mode, observation
        self.max_turns = None if max_turns is None else int(max_turns)
        self.illegal_count = 0
        self._warned = False
        self._cut = False   # the last step truncated the episode (max_turns)
        self._actions: list[int] = []   # the learner's macro-actions this episode
        lay = self.table.layout
        self.layout = lay
        vec = spaces.Box(lay.low, lay.high, dtype=np.float32)
        self.observation_space = vec if observation == "vector" else spaces.Dict({
            "observation": vec, "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8)})
        self.action_space = spaces.Discrete(N_ACTIONS)

    def _table_for(self, seat: int, rules: Rules | None = None,
                   reward: str | None = None) -> Table:
        """The Table with the learner at ``seat`` (made once per seat; the deal sequence
        carries over from the current one)."""
        t = self._tables.get(seat)
        if t is None:
            o = self._others_list
            seats = o[:seat] + ["expert"] + o[seat:]   # the learner's seat: a placeholder
            t = self._tables[seat] = Table(rules or self.rules, seats, reward or self.reward_kind,
                                           self.turns)
        old = getattr(self, "table", None)
        if old is not None and old is not t:
            t.root, t.replicate = old.root, old.replicate
        return t

    @property
    def game_state(self):
        """The reference State of the game (every card; not the learner's view)."""
        return self.table.state

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal (replicate 0 of ``seed``, else the next replicate) and play the other seats
        up to the learner's first turn. ``options={"seat": k}`` seats the learner at k for
        this episode. A deal whose match the others end before that turn (an opponent
        goes out at once: about 1 jokers deal in 800) is no episode: the next replicate
        is dealt instead, and ``info["skipped"]`` lists the replicates passed over (the
        same ones for the same seed). ``seed``: an int or a NumPy integer, >= 0;
        ``options``: None or a dict of RESET_OPTIONS (else FastmachError)."""
        seed = None if seed is None else check_seed(seed)   # (before gymnasium's own check)
        options = check_options(options, self.rules.players)
        super().reset(seed=seed)
        seat = self._seat_for(options)
        if seat != self.seat:
            self.table = self._table_for(seat)
            self.seat = seat
        self.table.reset(seed)
        self._cut = False
        self._actions = []
        reward, skipped = self._others(limited=False), []
        while self.table.live.is_terminal():
            skipped.append(self.table.replicate)
            if len(skipped) > MAX_SKIPPED:
                raise FastmachError(f"reset: {len(skipped)} deals in a row ended before seat "
                                    f"{self.seat}'s first turn")
            self.table.reset(None)
            reward = self._others(limited=False)
        obs = self._observe()
        return obs, {"action_mask": self.table.moves.mask.copy(), "reward_before": reward,
                     "skipped": skipped, "seat": self.seat}

    def _seat_for(self, options: dict | None) -> int:
        return seat_at_reset(self.rules.players, options, self.seat_choice, self.seat,
                             lambda: self.np_random)

    def _observe(self, out: np.ndarray | None = None):
        obs = self.table.observe(self.seat, out)
        return obs["observation"] if self.observation == "vector" else obs

    def action_masks(self) -> np.ndarray:
        """The learner's action mask as booleans (all False once the episode is over)."""
        return self.table.mask(self.seat).astype(bool)

    def _others(self, limited: bool = True) -> float:
        """Play the other seats until the learner's turn, the end, or (``limited``: in a
        step) ``max_turns``; their reward to it."""
        return self.table.play_others(self.seat, self.max_turns if limited else None)

    def _truncated(self, st) -> bool:
        return self.max_turns is not None and st.total_turns >= self.max_turns

    def _act(self, action) -> tuple[float, bool, bool, bool]:
        """Play the learner's ``action`` and the others' turns: (reward, terminated,
        truncated, illegal)."""
        st = self.table.live
        if st.is_terminal():
            raise FastmachError("step: the match is over (call reset)")
        if self._cut:
            raise FastmachError(f"step: the episode was truncated at max_turns = "
                                f"{self.max_turns} (call reset)")
        moves = self.table.moves
        illegal = False
        if self.illegal == "draw" and not moves.allowed(action):
            mask = moves.mask
            action = DRAW if mask[DRAW] else int(np.flatnonzero(mask)[0])
            illegal = True
            self.illegal_count += 1
            if not self._warned:
                self._warned = True
                warnings.warn("SingleAgentEnv: a masked action was played as the draw (or "
                              "the first legal action); info['illegal'] marks each one and "
                              "illegal_count counts them (illegal='raise' refuses them)",
                              UserWarning, stacklevel=3)
        exact = moves.action(action)
        self._actions.append(int(action))
        reward = self.table.act(self.seat, exact, self.max_turns)
        terminated = st.is_terminal()
        truncated = self._cut = not terminated and self._truncated(st)
        return reward, terminated, bool(truncated), illegal

    def step(self, action):
        reward, terminated, truncated, illegal = self._act(action)
        obs = self._observe()
        info: dict = {"action_mask": self.table.mask(self.seat)}
        if illegal:
            info["illegal"] = True
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, truncated, info

    def render(self):
        if self.render_mode is None:
            return None
        text = self.table.render(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ copies
    def __deepcopy__(self, memo):
        new = SingleAgentEnv.__new__(SingleAgentEnv)
        d = new.__dict__
        d.update(self.__dict__)
        d["_tables"] = {k: (t.clone() if t is self.table else t) for k, t in self._tables.items()}
        d["table"] = d["_tables"][self.seat]
        d["_actions"] = list(self._actions)
        d["_np_random"] = copy.deepcopy(self._np_random, memo)
        return new

    def __getstate__(self):
        st = self.table.state
        return {"args": self._args, "seat": self.seat, "root": self.table.root,
                "replicate": self.table.replicate, "dealt": st is not None,
                "actions": list(self._actions), "np_random": self._np_random,
                "illegal_count": self.illegal_count, "warned": self._warned}

    def __setstate__(self, s):
        self.__init__(**s["args"])
        self._np_random = s["np_random"]
        self.illegal_count, self._warned = s["illegal_count"], s["warned"]
        if s["seat"] != self.seat:
            self.table = self._table_for(s["seat"])
            self.seat = s["seat"]
        self.table.root, self.table.replicate = s["root"], s["replicate"]
        if not s["dealt"]:
            return
        self.table.state = self.table.game.new_initial_state(s["root"], s["replicate"])
        self.table._moves = None
        self._others(limited=False)
        for a in s["actions"]:
            self._act(a)
