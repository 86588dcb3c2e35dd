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
Every argument is checked here before any game (or worker) is touched: seeds are
integers (``s + num_envs - 1`` below 2**63), ``options`` SingleAgentEnv's; an action that
is not an integer (a float, a bool, a string, None) is an invalid action, as in
SingleAgentEnv: refused under ``illegal="raise"``, else played as the draw and flagged.
``step`` before ``reset`` (or after a failed one) and any call after ``close`` raise a
FastmachError; a worker that fails answers with the error (the games then need a
reset), and a worker that is gone closes the environment.

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

import inspect
import multiprocessing as mp
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fastmach.errors import FastmachError
from fastmach.game.deal import check_seed
from fastmach.rules import is_integer

from .fast import CompiledGames, refusal, supports
from .moves import N_ACTIONS, action_index
from .single import SingleAgentEnv, check_options

__all__ = ["VectorEnv", "make_vector", "ENGINES", "MAX_ENVS"]

ENGINES = ("compiled", "reference")
#: the most games one VectorEnv holds (each keeps a few observation rows of about 10 kB
#: and its game; a larger batch is several environments)
MAX_ENVS = 4096
#: SingleAgentEnv's keywords (the ones VectorEnv passes on)
_SINGLE_KEYWORDS = tuple(k for k in inspect.signature(SingleAgentEnv.__init__).parameters
                         if k != "self")
#: what step and reset say before the games are dealt (SingleAgentEnv's words)
_NOT_DEALT = "the environment is not dealt yet: call reset() first"


def _seeds(seed: Any, n: int) -> list[int | None]:
    """The n games' seeds of ``reset(seed=...)``: None, an integer s (game i seeded s + i)
    or a list of n integers or Nones; else FastmachError."""
    if seed is None:
        return [None] * n
    if isinstance(seed, (list, tuple)):
        if len(seed) != n:
            raise FastmachError(f"reset: {len(seed)} seeds for {n} games")
        return [None if s is None else check_seed(s) for s in seed]
    s = check_seed(seed)
    if s + n - 1 >= 2**63:
        raise FastmachError(f"reset: seed + i (i < num_envs = {n}) must be below 2**63, so "
                            f"seed at most {2**63 - n}, got {seed}")
    return [s + i for i in range(n)]


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
    """A worker's loop: each request ``(command, tag, argument)`` answered ``(tag, "ok" or
    "error", message)``; a failed command is answered with its error and the worker
    stays."""
    games: Any = None
    try:
        games = _games(count, kwargs, engine)
        views = _views(raws, rows, size)
        obs, final, masks = views[:3]
        end = start + count
        games.share(obs[start:end], final[start:end], masks[start:end])
    except Exception as err:   # (every request is answered with it)
        failed = f"{type(err).__name__}: {err}"
    try:
        while True:
            cmd, tag, arg = _receive(conn, spin)
            if cmd == "close":
                conn.close()
                return
            try:
                if games is None:
                    raise FastmachError(f"the worker's games were not made ({failed})")
                if cmd == "step":   # (everything in the shared buffers: only the word sent)
                    _advance(games, views, start, end)
                else:
                    games.reset(*arg)
                reply: tuple = (tag, "ok", None)
            except Exception as err:   # (sent to the parent, which raises it)
                reply = (tag, "error", f"{type(err).__name__}: {err}")
            conn.send(reply)
    except (EOFError, OSError, KeyboardInterrupt):
        return


class VectorEnv(gym.vector.VectorEnv):
    """``num_envs`` SingleAgentEnv games (``**kwargs``: its arguments, ``observation`` is
    always the vector) stepped together, in ``workers`` processes."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, rules: Any = "classic", num_envs: int = 8, workers: int = 1,
                 engine: str = "compiled", spin: float = SPIN, **kwargs):
        if isinstance(spin, bool) or not isinstance(spin, (int, float)) or not 0 <= spin <= 1:
            raise FastmachError(f"spin must be a number of seconds in [0, 1], got {spin!r}")
        self.spin = float(spin)
        if not is_integer(num_envs) or not 1 <= num_envs <= MAX_ENVS:
            raise FastmachError(f"num_envs must be an integer 1..{MAX_ENVS}, got {num_envs!r}")
        if not is_integer(workers) or not 1 <= workers <= num_envs:
            raise FastmachError(f"workers must be 1..num_envs ({num_envs}), got {workers!r}")
        if engine not in ENGINES:
            raise FastmachError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        unknown = [k for k in kwargs if k not in _SINGLE_KEYWORDS]
        if unknown:
            raise FastmachError(f"VectorEnv: unknown argument {unknown[0]!r}; it takes num_envs, "
                                f"workers, engine, spin and SingleAgentEnv's "
                                f"{', '.join(_SINGLE_KEYWORDS)}")
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
        self._tag = 0   # (the last request sent to the workers: their replies carry it)
        self._dealt: str | None = _NOT_DEALT   # (why step is refused now; None: dealt)
        self._gone: str | None = None   # (why the environment was closed by a failure)
        self.closed = False

    def _check_open(self) -> None:
        if self.closed:
            why = f" ({self._gone})" if self._gone else ""
            raise FastmachError(f"the vector environment is closed{why}: make a new one")

    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        """Deal every game (seed s: game i seeded s + i; a list: one seed or None per
        game); ``options`` as SingleAgentEnv.reset's. Every argument is checked before
        any game is dealt."""
        self._check_open()
        seeds = _seeds(seed, self.num_envs)
        options = check_options(options, self.rules.players)
        self._dealt = "the last reset failed: call reset() again"
        if not self._conns:
            obs, masks = self._local.reset(seeds, options)
        else:
            args, at = [], self._shares[0]
            for n in self._shares[1:]:
                args.append((seeds[at:at + n], options))
                at += n
            tag = self._send("reset", args)
            try:
                self._local.reset(seeds[:self._shares[0]], options)
            except BaseException:
                self._gather(tag, drain=True)
                raise
            self._gather(tag)
            obs, masks = self._shared[0].copy(), self._shared[2].astype(bool)
        self._masks = masks
        self._dealt = None
        return obs, {"action_mask": masks.copy()}

    def _actions(self, actions: Any) -> np.ndarray:
        """``actions`` as num_envs int64 (an entry that is not an integer, -1: invalid, as
        SingleAgentEnv takes it); under illegal="raise" a masked or invalid one refused."""
        n = self.num_envs
        try:
            given = np.asarray(actions)
        except (ValueError, TypeError):   # (a ragged list)
            raise FastmachError(f"step: actions must be {n} integers (one per game), got "
                                f"{actions!r:.200}") from None
        if given.shape != (n,):
            raise FastmachError(f"step: {given.shape} actions for {n} games (one integer "
                                f"per game)")
        if given.dtype.kind in "iu":
            acts = given.astype(np.int64)   # (a uint64 past int64 wraps below 0: invalid too)
        else:   # (floats, bools, strings, objects: each entry as SingleAgentEnv takes it)
            acts = np.array([-1 if (k := action_index(a)) is None else k
                             for a in given.tolist()], dtype=np.int64)
        if self._kwargs.get("illegal") == "raise":
            # refused before any game moves, whatever the workers
            ok = (acts >= 0) & (acts < N_ACTIONS)
            ok[ok] = self._masks[np.flatnonzero(ok), acts[ok]]
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                a = given[i].item() if given.dtype.kind in "iu" else given.tolist()[i]
                raise refusal(i, a, np.flatnonzero(self._masks[i]).tolist())
        return acts

    def step(self, actions):
        self._check_open()
        if self._dealt is not None:
            raise FastmachError(self._dealt)
        actions = self._actions(actions)
        try:
            rows = self._advance(actions)
        except BaseException:
            if not self.closed:
                self._dealt = "the last step failed: call reset() first"
            raise
        rewards, term, trunc, illegal, ended, rows_obs, rows_final, rows_masks = rows
        obs = self._out.array(rows_obs.shape, rows_obs.dtype)
        np.copyto(obs, rows_obs)
        masks = rows_masks.astype(bool)
        final = np.zeros(obs.shape, obs.dtype)   # (calloc: the rows never written cost nothing)
        final[ended] = rows_final[ended]
        self._masks = masks
        infos = {"action_mask": masks.copy(), "illegal": illegal, "final_obs": final,
                 "_final_obs": ended}
        return obs, rewards, term, trunc, infos

    def _advance(self, actions: np.ndarray) -> tuple:
        """Every game stepped: (rewards, terminations, truncations, illegal, ended) and the
        observation, final observation and mask rows."""
        if not self._conns:
            rewards, term, trunc, illegal, ended = self._local.advance(actions)
            local = self._local
            return rewards, term, trunc, illegal, ended, local.obs, local.final, local.masks
        shared = self._shared
        shared[3][:] = actions
        tag = self._send("step", [None] * len(self._conns))
        try:
            _advance(self._local, shared, 0, self._shares[0])
        except BaseException:
            self._gather(tag, drain=True)   # (the workers' answers read: the pipes stay in step)
            raise
        self._gather(tag)
        rewards = shared[4].copy()
        term, trunc, illegal, ended = shared[5].astype(bool)
        return rewards, term, trunc, illegal, ended, *shared[:3]

    def _send(self, cmd: str, args: list) -> int:
        """Send each worker its request (a new tag); a worker gone closes the environment."""
        self._tag += 1
        try:
            for c, arg in zip(self._conns, args):
                c.send((cmd, self._tag, arg))
        except (OSError, EOFError) as err:
            self._lost(err)
        return self._tag

    def _gather(self, tag: int, drain: bool = False) -> list:
        """Every worker's answer to request ``tag`` (older answers skipped; all read before
        a failure is raised); ``drain``: read and dropped."""
        out, failed = [], None
        try:
            for c in self._conns:
                while True:
                    got, kind, value = _receive(c, self.spin)
                    if got == tag:
                        break
                if kind == "error" and failed is None:
                    failed = value
                out.append(value)
        except (OSError, EOFError) as err:
            self._lost(err)
        if failed is not None and not drain:
            raise FastmachError(f"a vector environment worker failed: {failed}")
        return out

    def _lost(self, err: BaseException) -> None:
        """A worker process is gone: close the environment and say so."""
        self._gone = f"a worker process was lost: {type(err).__name__}: {err}"
        self.close()
        raise FastmachError(f"the vector environment is closed: {self._gone}") from err

    def action_masks(self) -> np.ndarray:
        """The (num_envs, N_ACTIONS) boolean masks of the games' current turns."""
        return self._masks.copy()

    def close_extras(self, **kwargs) -> None:
        """Stop the workers; reset and step refuse to run afterwards (whatever
        ``workers``)."""
        for c in self._conns:
            try:
                c.send(("close", 0, None))
            except (BrokenPipeError, OSError):
                pass
        for p in self._procs:
            p.join(timeout=5)
        self._conns, self._procs = [], []


def make_vector(num_envs: int = 8, **kwargs) -> VectorEnv:
    """The vector entry point of the registered ids (``gym.make_vec``)."""
    kwargs.pop("max_episode_steps", None)
    return VectorEnv(num_envs=num_envs, **kwargs)
