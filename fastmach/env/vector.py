"""A vectorised single-agent environment: ``num_envs`` games against the same opponents
stepped in one call, NumPy arrays out (for on-policy learners).

``step(actions)`` takes one macro-action per game and returns ``(obs, rewards,
terminations, truncations, infos)``: ``obs`` a float32 array (num_envs, size) (the
vector of fastmach.env.encoding; its ``legal`` part is the mask), rewards float64,
terminations and truncations bool, ``infos["action_mask"]`` (num_envs, N_ACTIONS) bool
and ``infos["illegal"]`` bool (a masked action played as the draw, see
fastmach.env.single). ``action_masks()`` returns the masks (MaskablePPO's convention).

Auto-reset in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``): a game that ends
is dealt again at once, its row of ``obs`` is the new episode's first observation, and
``infos["final_obs"]`` holds the last observation of the episode that ended (rows where
``infos["_final_obs"]`` is True).

Seeds: ``reset(seed=s)`` seeds game i with ``s + i`` (then each game deals the next
replicates of its own root): the same seed gives the same episodes whatever ``workers``.

``workers``: 1 steps every game in this process; k > 1 splits the games among k
processes, for k cores: this one steps the first share while k - 1 worker processes step
the others (their rows written into buffers shared with this process; rewards and flags
come back through pipes). ``spin``: how long (seconds) a process waiting for the other
end polls before it sleeps (default 2 ms: a worker keeps its core between steps that
follow closely; 0 sleeps at once).

``engine``: ``"compiled"`` (the default) holds each game in C for its whole episode
(fastmach.env.fast, fastmach.env._vector_step: the turns, the learner's mask and its
observation row in C; Python only at the ends of hands and for the plays other than the
expert's); ``"reference"`` steps SingleAgentEnv games one after another (the tests'
reference: the same seed gives the same arrays). A set-up the compiled games do not take
(a Python bot among the other seats) is stepped by the reference path.
"""
from __future__ import annotations

import multiprocessing as mp
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fastmach.errors import FastmachError
from fastmach.rules import is_integer

from .fast import CompiledGames, refusal, supports
from .moves import N_ACTIONS
from .single import SingleAgentEnv

__all__ = ["VectorEnv", "make_vector", "ENGINES"]

ENGINES = ("compiled", "reference")


class _Games:
    """A share of the games, stepped in this process."""

    def __init__(self, count: int, kwargs: dict):
        kwargs = {**kwargs, "observation": "vector"}
        self.envs = [SingleAgentEnv(**kwargs) for _ in range(count)]
        size = self.envs[0].layout.size
        self.obs = np.zeros((count, size), dtype=np.float32)
        self.final = np.zeros((count, size), dtype=np.float32)
        self.masks = np.zeros((count, N_ACTIONS), dtype=bool)

    def share(self, obs: np.ndarray, final: np.ndarray, masks: np.ndarray) -> None:
        """Write the rows into these arrays (a worker's share of the shared buffers)."""
        self.obs, self.final, self.masks = obs, final, masks.view(bool)

    def reset(self, seeds: list[int | None], options: dict | None):
        for i, e in enumerate(self.envs):
            e.reset(seed=seeds[i], options=options)
            self._row(i)
        return self.obs.copy(), self.masks.copy()

    def _row(self, i: int) -> None:
        e = self.envs[i]
        e.table.observe(e.seat, self.obs[i])
        self.masks[i] = e.table.moves.mask if not e.table.live.is_terminal() else False

    def advance(self, actions: np.ndarray):
        """Step every game, its rows written in place: (rewards, terminations,
        truncations, illegal, ended)."""
        n = len(self.envs)
        rewards = np.zeros(n)
        term = np.zeros(n, dtype=bool)
        trunc = np.zeros(n, dtype=bool)
        illegal = np.zeros(n, dtype=bool)
        ended = np.zeros(n, dtype=bool)
        for i, e in enumerate(self.envs):
            r, te, tr, il = e._act(int(actions[i]))
            rewards[i], term[i], trunc[i], illegal[i] = r, te, tr, il
            if te or tr:
                ended[i] = True
                e.table.observe(e.seat, self.final[i])
                e.reset()
            self._row(i)
        return rewards, term, trunc, illegal, ended


def _games(count: int, kwargs: dict, engine: str) -> "_Games | CompiledGames":
    return CompiledGames(count, kwargs) if engine == "compiled" else _Games(count, kwargs)


def _buffers(ctx: Any, rows: int, size: int) -> tuple:
    """The buffers shared with the workers: observations and final observations (rows x
    size float32), masks (rows x N_ACTIONS uint8), actions (int64), rewards (float64) and
    the four flags (4 x rows uint8: terminated, truncated, illegal, ended)."""
    return (ctx.RawArray("b", rows * size * 4), ctx.RawArray("b", rows * size * 4),
            ctx.RawArray("b", rows * N_ACTIONS), ctx.RawArray("b", rows * 8),
            ctx.RawArray("b", rows * 8), ctx.RawArray("b", rows * 4))


def _views(raws: tuple, rows: int, size: int) -> tuple:
    """The NumPy views of the shared buffers (_buffers)."""
    obs, final, masks, actions, rewards, flags = raws
    return (np.frombuffer(obs, dtype=np.float32).reshape(rows, size),
            np.frombuffer(final, dtype=np.float32).reshape(rows, size),
            np.frombuffer(masks, dtype=np.uint8).reshape(rows, N_ACTIONS),
            np.frombuffer(actions, dtype=np.int64), np.frombuffer(rewards, dtype=np.float64),
            np.frombuffer(flags, dtype=np.uint8).reshape(4, rows))


def _advance(games: "_Games | CompiledGames", views: tuple, start: int, end: int) -> None:
    """Step ``games`` (rows start..end) on the shared actions; rewards and flags written
    into the shared buffers."""
    rewards, term, trunc, illegal, ended = games.advance(views[3][start:end])
    views[4][start:end] = rewards
    flags = views[5]
    for k, a in enumerate((term, trunc, illegal, ended)):
        flags[k, start:end] = a


class _Recycler:
    """Output arrays handed out again once nothing else holds them (CPython's reference
    count: the caller's names, views and wrappers all hold one), so that a large batch's
    observations do not fault fresh pages at every step; an array still held is never
    written again."""

    def __init__(self, keep: int = 3):
        self._pool: list[np.ndarray] = []
        self._keep = keep
        # the count of an array that only a list holds, read as array() reads it (the list,
        # the loop's name, getrefcount's argument; an interpreter that counts otherwise
        # reads otherwise here too)
        for a in [np.empty(0)]:
            self._free = sys.getrefcount(a)

    def array(self, shape: tuple, dtype) -> np.ndarray:
        for a in self._pool:
            if sys.getrefcount(a) == self._free and a.shape == shape and a.dtype == dtype:
                return a
        a = np.empty(shape, dtype)
        self._pool.append(a)
        del self._pool[:-self._keep]
        return a


#: how long a process waiting for the other end of a pipe polls it before it sleeps (s):
#: a sleeping process's wake-up (tens to hundreds of microseconds on a virtual machine)
#: would otherwise weigh on every step of a few milliseconds
SPIN = 0.002


def _receive(conn, spin: float):
    """conn's next message: polled for up to ``spin`` seconds, then waited for."""
    if spin > 0 and not conn.poll():
        end = time.perf_counter() + spin
        while not conn.poll() and time.perf_counter() < end:
            pass
    return conn.recv()


def _worker(conn, count: int, kwargs: dict, engine: str, raws: tuple, rows: int,
            size: int, start: int, spin: float) -> None:  # pragma: no cover - a subprocess
    try:
        games = _games(count, kwargs, engine)
        views = _views(raws, rows, size)
        obs, final, masks = views[:3]
        end = start + count
        games.share(obs[start:end], final[start:end], masks[start:end])
        while True:
            cmd, arg = _receive(conn, spin)
            if cmd == "close":
                conn.close()
                return
            if cmd == "step":   # (everything in the shared buffers: only the word sent)
                _advance(games, views, start, end)
                conn.send(("ok", None))
            else:
                games.reset(*arg)
                conn.send(("ok", None))
    except (EOFError, KeyboardInterrupt):
        return
    except Exception as err:   # (sent to the parent, which raises it)
        conn.send(("error", f"{type(err).__name__}: {err}"))


class VectorEnv(gym.vector.VectorEnv):
    """``num_envs`` SingleAgentEnv games (``**kwargs``: its arguments, ``observation`` is
    always the vector) stepped together, in ``workers`` processes."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, rules: Any = "classic", num_envs: int = 8, workers: int = 1,
                 engine: str = "compiled", spin: float = SPIN, **kwargs):
        if isinstance(spin, bool) or not isinstance(spin, (int, float)) or not 0 <= spin <= 1:
            raise FastmachError(f"spin must be a number of seconds in [0, 1], got {spin!r}")
        self.spin = float(spin)
        if not is_integer(num_envs) or num_envs < 1:
            raise FastmachError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not is_integer(workers) or not 1 <= workers <= num_envs:
            raise FastmachError(f"workers must be 1..num_envs ({num_envs}), got {workers!r}")
        if engine not in ENGINES:
            raise FastmachError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        kwargs.pop("observation", None)
        kwargs.pop("render_mode", None)
        self.num_envs, self.workers = int(num_envs), int(workers)
        self._kwargs = {"rules": rules, **kwargs}
        probe = SingleAgentEnv(**self._kwargs, observation="vector")
        self.rules, self.layout = probe.rules, probe.layout
        self.engine = engine if supports(probe) else "reference"
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        self.observation_space = spaces.Box(0.0, 1.0, (self.num_envs, probe.layout.size),
                                            dtype=np.float32)
        self.action_space = spaces.MultiDiscrete([N_ACTIONS] * self.num_envs)
        shares = [len(a) for a in np.array_split(np.arange(self.num_envs), self.workers)]
        self._shares = shares
        self._conns: list = []
        self._procs: list = []
        # this process steps the first share (between sending the others their actions
        # and reading their answers); k - 1 worker processes step the rest, writing their
        # rows into buffers shared with this process
        if self.workers > 1:
            ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
            n, size = self.num_envs, probe.layout.size
            raws = _buffers(ctx, n, size)
            self._shared = _views(raws, n, size)
            at = shares[0]
            for count in shares[1:]:
                a, b = ctx.Pipe()
                p = ctx.Process(target=_worker, args=(b, count, self._kwargs, self.engine,
                                                      raws, n, size, at, self.spin),
                                daemon=True)
                at += count
                p.start()
                self._conns.append(a)
                self._procs.append(p)
        self._local = _games(shares[0], self._kwargs, self.engine)
        if self.workers > 1:
            obs, final, masks = self._shared[:3]
            self._local.share(obs[:shares[0]], final[:shares[0]], masks[:shares[0]])
        self._masks = np.zeros((self.num_envs, N_ACTIONS), dtype=bool)
        self._out = _Recycler()
        self.closed = False

    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        if seed is None or isinstance(seed, (list, tuple)):
            seeds = list(seed) if seed is not None else [None] * self.num_envs
            if len(seeds) != self.num_envs:
                raise FastmachError(f"reset: {len(seeds)} seeds for {self.num_envs} games")
        else:
            seeds = [int(seed) + i for i in range(self.num_envs)]
        if not self._conns:
            obs, masks = self._local.reset(seeds, options)
        else:
            at = self._shares[0]
            for c, n in zip(self._conns, self._shares[1:]):
                c.send(("reset", (seeds[at:at + n], options)))
                at += n
            self._local.reset(seeds[:self._shares[0]], options)
            self._gather()
            obs, masks = self._shared[0].copy(), self._shared[2].astype(bool)
        self._masks = masks
        return obs, {"action_mask": masks.copy()}

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise FastmachError(f"step: {actions.shape} actions for {self.num_envs} games")
        if self._kwargs.get("illegal") == "raise" and actions.dtype.kind in "iu":
            # refused before any game moves, whatever the workers
            for i, a in enumerate(actions.tolist()):
                if not (0 <= a < N_ACTIONS and self._masks[i, a]):
                    raise refusal(i, a, np.flatnonzero(self._masks[i]).tolist())
        if not self._conns:
            rewards, term, trunc, illegal, ended = self._local.advance(actions)
            local = self._local
            rows_obs, rows_final, rows_masks = local.obs, local.final, local.masks
        else:
            shared = self._shared
            shared[3][:] = actions
            for c in self._conns:
                c.send(("step", None))
            try:
                _advance(self._local, shared, 0, self._shares[0])
            except BaseException:
                self._gather(drain=True)   # (the workers' answers read: the pipes stay in step)
                raise
            self._gather()
            rewards = shared[4].copy()
            term, trunc, illegal, ended = shared[5].astype(bool)
            rows_obs, rows_final, rows_masks = shared[:3]
        obs = self._out.array(rows_obs.shape, rows_obs.dtype)
        np.copyto(obs, rows_obs)
        masks = rows_masks.astype(bool)
        final = np.zeros(obs.shape, obs.dtype)   # (calloc: the rows never written cost nothing)
        final[ended] = rows_final[ended]
        self._masks = masks
        infos = {"action_mask": masks.copy(), "illegal": illegal, "final_obs": final,
                 "_final_obs": ended}
        return obs, rewards, term, trunc, infos

    def _gather(self, drain: bool = False) -> list:
        """Every worker's answer (all read before a failure is raised); ``drain``: read
        and dropped."""
        out, failed = [], None
        for c in self._conns:
            kind, value = _receive(c, self.spin)
            if kind == "error" and failed is None:
                failed = value
            out.append(value)
        if failed is not None and not drain:
            raise FastmachError(f"a vector environment worker failed: {failed}")
        return out

    def action_masks(self) -> np.ndarray:
        """The (num_envs, N_ACTIONS) boolean masks of the games' current turns."""
        return self._masks.copy()

    def close_extras(self, **kwargs) -> None:
        for c in self._conns:
            try:
                c.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for p in self._procs:
            p.join(timeout=5)
        self._conns, self._procs = [], []


def make_vector(num_envs: int = 8, **kwargs) -> VectorEnv:
    """The vector entry point of the registered ids (``gym.make_vec``)."""
    kwargs.pop("max_episode_steps", None)
    return VectorEnv(num_envs=num_envs, **kwargs)
