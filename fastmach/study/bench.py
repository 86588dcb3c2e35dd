"""A benchmark of the sweep driver: its overhead over the raw engine, and its scaling."""
from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from fastmach.study import Study
from fastmach.study.backends import _Processes
from fastmach.study.driver import SweepError, _run_pool, execute
from fastmach.study.plan import plan
from fastmach.study.results import Store
from fastmach.study.worker import default_engine

__all__ = ["bench_driver", "format_bench"]


def bench_driver(*, rules: str = "ace-low(match=single)", players: int = 2,
                 lineup: Sequence[str] = ("expert",), games: int = 2000, chunk: int = 200,
                 workers: Sequence[int] = (1, 2), repeats: int = 3,
                 engine: Callable | None = None, seed: int = 1) -> dict:
    """Driver overhead and scaling: raw engine games/s vs the sweep's, 1 and 2 workers.

    ``raw``: the engine called directly in this process, chunk by chunk; ``inline``: the
    whole driver as ``fastmach sweep`` runs it (tidy table, parquet bytes, atomic writes,
    manifest; the final table is not loaded) in this process, also in CPU
    seconds (``*_per_cpu_s``: immune to other load on a shared machine); ``workers_N``:
    N local worker processes, timed after their start-up (reported apart). Each figure is
    the best of ``repeats`` runs. Returns a dict;
    :func:`format_bench` prints it.
    """
    eng = engine or default_engine()
    study = Study(name="bench", seed=seed, games=games, chunk=chunk, rules=(rules,),
                  players=(players,), lineup=(tuple(lineup),))
    cell = study.cells[0]
    seats, r = cell.seats(0), cell.rules
    eng(r, seats, seed, np.arange(0, min(chunk, 10)))  # warm-up (imports, caches)
    best: dict[str, float] = {}

    def keep(key: str, seconds: float) -> None:
        best[key] = max(best.get(key, 0.0), games / seconds)

    backends = {}
    result: dict[str, Any] = {"rules": str(r), "seats": seats, "games": games,
                              "chunk": chunk, "repeats": repeats}
    try:
        for w in workers:
            t = time.perf_counter()
            backends[w] = _Processes(w, engine)
            result[f"workers_{w}_startup_s"] = time.perf_counter() - t
        with tempfile.TemporaryDirectory(prefix="fastmach-bench-") as tmp:
            for rep in range(repeats):
                t, cpu = time.perf_counter(), time.process_time()
                for start in range(0, games, chunk):
                    eng(r, seats, seed, np.arange(start, min(start + chunk, games)))
                keep("raw_games_per_s", time.perf_counter() - t)
                keep("raw_games_per_cpu_s", time.process_time() - cpu)
                t, cpu = time.perf_counter(), time.process_time()
                execute(study, Path(tmp) / f"inline{rep}", workers=0, engine=engine,
                        progress=False, command="bench")
                keep("inline_games_per_s", time.perf_counter() - t)
                keep("inline_games_per_cpu_s", time.process_time() - cpu)
                for w, backend in backends.items():
                    store = Store(Path(tmp) / f"w{w}-{rep}", study, "bench")
                    failures: list = []
                    t, cpu = time.perf_counter(), time.process_time()
                    _run_pool(study, plan(study), store, engine, 0, failures, None, backend)
                    keep(f"workers_{w}_games_per_s", time.perf_counter() - t)
                    keep(f"workers_{w}_driver_games_per_cpu_s", time.process_time() - cpu)
                    store.close(not failures)
                    if failures:
                        raise SweepError(f"bench: {failures[0][1]}")
    finally:
        for backend in backends.values():
            backend.close()
    result.update(best)
    result["inline_overhead"] = best["raw_games_per_s"] / best["inline_games_per_s"] - 1.0
    result["inline_cpu_overhead"] = (best["raw_games_per_cpu_s"]
                                     / best["inline_games_per_cpu_s"] - 1.0)
    if 1 in backends:
        result["workers_1_overhead"] = (best["raw_games_per_s"]
                                        / best["workers_1_games_per_s"] - 1.0)
        for w in backends:
            result[f"speedup_{w}"] = (best[f"workers_{w}_games_per_s"]
                                      / best["workers_1_games_per_s"])
    for w in backends:  # the driver's serial CPU work per game, relative to the engine's
        result[f"workers_{w}_driver_cpu_share"] = (
            best["raw_games_per_cpu_s"] / best[f"workers_{w}_driver_games_per_cpu_s"])
    return result


def format_bench(b: dict) -> str:
    """Human text of :func:`bench_driver`'s result."""
    lines = [f"sweep driver benchmark: {b['rules']} seats={','.join(b['seats'])}, "
             f"{b['games']} games in chunks of {b['chunk']}, best of {b['repeats']}",
             f"  raw engine (this process)    {b['raw_games_per_s']:10.1f} games/s",
             f"  driver, this process         {b['inline_games_per_s']:10.1f} games/s "
             f"(overhead {100 * b['inline_overhead']:+.1f}%; in CPU time "
             f"{100 * b['inline_cpu_overhead']:+.1f}%, which a busy machine does not skew)"]
    for k in sorted(k for k in b if re.fullmatch(r"workers_\d+_games_per_s", k)):
        w = int(k.split("_")[1])
        extra = f"  x{b[f'speedup_{w}']:.2f} vs 1 worker" if f"speedup_{w}" in b else ""
        if w == 1 and "workers_1_overhead" in b:
            extra += f"  (overhead vs raw {100 * b['workers_1_overhead']:+.1f}%)"
        lines.append(f"  driver, {w} worker process{'es' if w > 1 else '  '}  "
                     f"{b[k]:10.1f} games/s{extra}  [start-up "
                     f"{b[f'workers_{w}_startup_s']:.1f} s; driver CPU "
                     f"{100 * b[f'workers_{w}_driver_cpu_share']:.1f}% of the engine's]")
    return "\n".join(lines)
