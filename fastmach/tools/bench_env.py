"""``fastmach bench env``: learner steps per second of the learning environments, the
learner playing uniformly random legal macro-actions against three experts.

Figures: the single-agent environment (steps per second of wall time and per CPU second
of this process), the same with the other seats' turns stepped by the reference State
(``turns="reference"``: the ratio of the two is what the compiled turns gain), and the
vectorised environment with 1 and 2 worker processes (wall
time: the figure an on-policy learner sees). Needs the ``rl`` extra.
"""
from __future__ import annotations

import time

import numpy as np

__all__ = ["bench_env", "format_env"]


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of boolean ``masks``."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


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
    for workers in (1, 2):
        venv = VectorEnv(rules, num_envs=num_envs, workers=workers, opponents="expert")
        try:
            venv.reset(seed=seed)
            steps, t0, c0 = 0, time.perf_counter(), time.process_time()
            while time.perf_counter() - t0 < seconds:
                venv.step(_random_legal(venv.action_masks(), rng))
                steps += num_envs
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        finally:
            venv.close()
        rows.append({"env": f"vector ({num_envs} games)", "workers": workers, "steps": steps,
                     "seconds": wall, "steps_per_s": steps / wall,
                     "cpu_steps_per_s": steps / cpu if workers == 1 else float("nan")})
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
