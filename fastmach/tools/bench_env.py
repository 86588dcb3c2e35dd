"""``fastmach bench env``: learner steps per second of the learning environments, the
learner playing uniformly random legal macro-actions against three experts.

Figures: the single-agent environment (steps per second of wall time and per CPU second
of this process), the same with the other seats' turns stepped by the reference State
(``turns="reference"``: the ratio of the two is what the compiled turns gain), and the
vectorised environment with 1 and 2 processes (``num_envs`` games, and four times as many
on 2: wall time, the figure an on-policy learner sees). Needs the ``rl`` extra.
"""
from __future__ import annotations

import os
import time

import numpy as np

__all__ = ["bench_env", "format_env"]


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of boolean ``masks``."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def _cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) of the live processes ``pids`` (Linux /proc; NaN
    elsewhere)."""
    total = 0.0
    try:
        tick = os.sysconf("SC_CLK_TCK")
        for pid in pids:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    except (OSError, ValueError, IndexError):
        return float("nan")
    return total


def bench_env(rules: str = "classic", seconds: float = 5.0, num_envs: int = 16,
              seed: int = 0) -> list[dict]:
    """Rows of (environment, workers, steps, wall s, steps/s, CPU steps/s)."""
    from fastmach.env import SingleAgentEnv, VectorEnv

    rng = np.random.default_rng(seed)
    rows = []
    for turns in ("compiled", "reference"):
        env = SingleAgentEnv(rules, opponents="expert", observation="vector", turns=turns)
        env.reset(seed=seed)
        steps, t0, c0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < seconds:
            a = int(_random_legal(env.action_masks()[None], rng)[0])
            _, _, term, trunc, _ = env.step(a)
            steps += 1
            if term or trunc:
                env.reset()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows.append({"env": "single-agent" if turns == "compiled" else "single (reference)",
                     "workers": 1, "steps": steps, "seconds": wall,
                     "steps_per_s": steps / wall, "cpu_steps_per_s": steps / cpu})
    for engine, workers, games in (("compiled", 1, num_envs), ("compiled", 2, num_envs),
                                   ("compiled", 2, 4 * num_envs), ("reference", 1, num_envs)):
        venv = VectorEnv(rules, num_envs=games, workers=workers, opponents="expert",
                         engine=engine)
        try:
            venv.reset(seed=seed)
            pids = [p.pid for p in venv._procs]
            steps, t0, c0 = 0, time.perf_counter(), time.process_time()
            w0 = _cpu_of(pids)
            while time.perf_counter() - t0 < seconds:
                venv.step(_random_legal(venv.action_masks(), rng))
                steps += games
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0 + (_cpu_of(pids) - w0 if pids else 0.0)
        finally:
            venv.close()
        name = f"vector ({games} games)" if engine == "compiled" else "vector (reference)"
        rows.append({"env": name, "workers": workers, "steps": steps,
                     "seconds": wall, "steps_per_s": steps / wall,
                     "cpu_steps_per_s": steps / cpu if cpu > 0 else float("nan")})
    return rows


def format_env(rows: list[dict], rules: str = "classic") -> str:
    lines = [f"learning environment, {rules}, the learner at random legal actions against "
             f"three experts", f"{'environment':<22}{'workers':>8}{'steps':>9}"
             f"{'steps/s':>10}{'per CPU s':>11}"]
    for r in rows:
        cpu = "" if r["cpu_steps_per_s"] != r["cpu_steps_per_s"] else f"{r['cpu_steps_per_s']:,.0f}"
        lines.append(f"{r['env']:<22}{r['workers']:>8}{r['steps']:>9,}"
                     f"{r['steps_per_s']:>10,.0f}{cpu:>11}")
    return "\n".join(lines)
