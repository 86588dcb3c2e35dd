"""Benchmarks behind ``fastmach bench``: figures quoted in notes, never timed asserts."""
from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

import fastmach.core._solver as _solver
from fastmach.core.cards import JOKER, NCARD
from fastmach.errors import FastmachError
from fastmach.rules import Rules, resolve_rules
from fastmach.solver import weights

SIZE_BANDS = ((0, 20), (21, 50), (51, 200))


def game_positions(rules: Rules | str = "classic", games: int = 40, seed: int = 1,
                   players: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Solver positions (table counts, hand counts) met in expert games of the engine.

    Every seat plays the ``expert`` (the solver's maximum placement whenever there is one);
    each turn's (table, hand of the seat to play) before its decision is one position,
    rebuilt from the engine's own record of the games (``play_batch(record=True)``).
    """
    from fastmach.engine import make_engine

    rules = resolve_rules(rules).replace(players=players)
    eng = make_engine(rules, ["expert"] * players)[2]
    tables, hands = [], []
    for game in eng.play_batch(seed, np.arange(games), record=True)["log"]:
        for hand in game:
            held = np.zeros((players, NCARD), dtype=np.uint8)
            for s, cards in enumerate(hand["hands"]):
                np.add.at(held[s], cards, 1)
            table = np.zeros(NCARD, dtype=np.uint8)
            for turn in hand["turns"]:
                s = turn["seat"]
                tables.append(table.copy())
                hands.append(held[s].copy())
                np.subtract.at(held[s], turn["placed"], 1)
                np.add.at(held[s], turn["taken"] + turn["drawn"], 1)
                table = np.zeros(NCARD, dtype=np.uint8)
                for m in turn["table"]:
                    np.add.at(table, m, 1)
    return np.array(tables, dtype=np.uint8), np.array(hands, dtype=np.uint8)


def _milp_reference():
    """The integer-programming reference of the test suite (source checkout + scipy only)."""
    path = Path(__file__).resolve().parents[2] / "tests" / "refs" / "milp.py"
    if not path.exists() or importlib.util.find_spec("scipy") is None:
        return None
    spec = importlib.util.spec_from_file_location("fastmach_bench_milp", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def bench_solver(games: int = 120, seed: int = 1, milp: bool = True,
                 milp_positions: int = 100) -> list[dict]:
    """Solve times on positions from 4-player expert games (the engine), by table size.

    Rows for classic (no jokers) and jokers (4 jokers, one per meld). With ``milp`` a
    sample of the positions is also solved by the integer-programming reference and the
    speed ratio on those same positions is reported.
    """
    ref = _milp_reference() if milp else None
    rows = []
    for name in ("classic", "jokers"):
        rules = resolve_rules(name)
        tables, hands = game_positions(rules, games=games, seed=seed)
        w, jw = weights(rules, "cards")
        ns, _ = _solver.time_positions(tables, hands, rules.decks, rules.ace_code,
                                       rules.jokers_per_meld, w, jw)
        size = tables.sum(axis=1)
        for lo, hi in SIZE_BANDS:
            sel = np.flatnonzero((size >= lo) & (size <= hi))
            if not len(sel):
                continue
            row = {"rules": name, "table": f"{lo}-{hi}", "positions": len(sel),
                   "median_us": float(np.median(ns[sel]) / 1e3),
                   "p90_us": float(np.percentile(ns[sel], 90) / 1e3),
                   "max_us": float(ns[sel].max() / 1e3)}
            if ref is not None:
                pick = np.random.default_rng(seed).choice(sel, min(milp_positions, len(sel)), replace=False)
                t_ref = []
                for i in pick:
                    t, h = _expand(tables[i]), _expand(hands[i])
                    t0 = time.perf_counter_ns()
                    ref.solve(t, h, decks=rules.decks, ace_high=rules.ace_high,
                              jokers_per_meld=rules.jokers_per_meld, known_valid=True)
                    t_ref.append(time.perf_counter_ns() - t0)
                row["milp_median_us"] = float(np.median(t_ref) / 1e3)
                # total time ratio (dominated by the slowest positions) and median ratio
                row["speedup_vs_milp"] = float(np.sum(t_ref) / max(1, np.sum(ns[pick])))
                row["median_speedup"] = float(np.median(np.asarray(t_ref) / np.maximum(ns[pick], 1)))
            rows.append(row)
    return rows


def _c_figure(program: str, out: str, pattern: str) -> str:
    """The figure ``pattern`` reads in the C program's output (FastmachError where it is
    missing: another program, or a version that prints otherwise)."""
    m = re.search(pattern, out)
    if m is None:
        raise FastmachError(f"{program}: its bench output holds no {pattern!r}: {out[:200]!r}")
    return m.group(1)


def _run_c(program: str, positions: str) -> str:
    """The output of ``program bench POSITIONS 1``; FastmachError where it cannot be started
    or fails (its exit status or signal and the last lines of its stderr). The positions'
    file is temporary: messages call it POSITIONS."""
    import signal
    import subprocess

    try:
        done = subprocess.run([program, "bench", positions, "1"], capture_output=True,
                              text=True, errors="replace")
    except OSError as e:
        raise FastmachError(f"{program}: cannot be run ({e.strerror or e})") from None
    if done.returncode != 0:
        code = done.returncode
        if code < 0:
            try:
                status = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                status = f"was killed by signal {-code}"
        else:
            status = f"exited with status {code}"
        tail = done.stderr.replace(positions, "POSITIONS").strip().splitlines()
        said = ("; its stderr ends:\n  " + "\n  ".join(tail[-_STDERR_LINES:]) if tail
                else " (nothing on its stderr)")
        raise FastmachError(f"{program} bench POSITIONS 1 (the solver's positions): {status}"
                            f"{said}")
    return done.stdout.replace(positions, "POSITIONS")


#: The last lines of a failed C program's stderr that its error shows.
_STDERR_LINES = 5


def _expand(counts: np.ndarray) -> list[int]:
    return np.repeat(np.arange(NCARD), counts.astype(np.intp)).tolist()


def format_solver(rows: list[dict]) -> str:
    head = (f"{'rules':8} {'table':>7} {'positions':>9} {'median µs':>10} {'p90 µs':>9} {'max µs':>9} "
            f"{'MILP µs':>9} {'total x':>8} {'median x':>9}")
    lines = ["fastmach bench solver: positions from 4-player expert games, one core "
             "(total x: MILP time / solver time summed over the sampled positions; "
             "median x: median of the per-position ratios)", head]
    for r in rows:
        milp = (f"{r['milp_median_us']:9.0f} {r['speedup_vs_milp']:7.0f}x {r['median_speedup']:8.0f}x"
                if "milp_median_us" in r else f"{'-':>9} {'-':>8} {'-':>9}")
        lines.append(f"{r['rules']:8} {r['table']:>7} {r['positions']:9d} {r['median_us']:10.1f} "
                     f"{r['p90_us']:9.1f} {r['max_us']:9.0f} {milp}")
    return "\n".join(lines)


def bench_solver_api(games: int = 120, seed: int = 1, c_program: str | None = None,
                     repeats: int = 5) -> dict:
    """The solver through the Python API against the compiled loop and the C program.

    On positions from 4-player classic expert games: per table-size band, the median
    compiled time (best of 3) next to ``fastmach.solve`` per call (parsed cards, the table
    as melds, a Rules object; best of 3). Then, over all positions, the mean time per
    position of ``solve_many`` (1 and 2 workers), of ``fastmach.solve`` and of the plain
    C dynamic program ``c_program`` (``rummy_dp bench POSITIONS REPEATS``) on the
    same positions in the same run: the best of ``repeats`` runs of each, interleaved.
    CPU time of the calling thread for one thread (as the C program measures itself),
    wall time for the 1- vs 2-worker comparison.
    """
    import os
    import tempfile

    from fastmach.solver.batch import solve_many
    from fastmach.solver import solve

    rules = resolve_rules("classic")
    tables, hands = game_positions(rules, games=games, seed=seed)
    n = len(tables)
    w, jw = weights(rules, "cards")
    empty = np.zeros(NCARD, dtype=np.uint8)
    melds = [_solver.solve_counts(t, empty, rules.decks, rules.ace_code, rules.jokers_per_meld,
                                  w, jw, True)[2] for t in tables]
    hand_ids = [_expand(h) for h in hands]
    ns, _ = _solver.time_positions(tables, hands, rules.decks, rules.ace_code,
                                   rules.jokers_per_meld, w, jw)
    api = np.zeros(n, dtype=np.int64)
    _solver._set_memo(0)   # (each of the three calls a search, not the memo's answer)
    try:
        for i in range(n):
            times = []
            for _ in range(3):
                start = time.perf_counter_ns()
                solve(melds[i], hand_ids[i], rules)
                times.append(time.perf_counter_ns() - start)
            api[i] = min(times)
    finally:
        _solver._set_memo(1)
    size = tables.sum(axis=1)
    bands = []
    for lo, hi in SIZE_BANDS:
        sel = np.flatnonzero((size >= lo) & (size <= hi))
        if len(sel):
            bands.append({"table": f"{lo}-{hi}", "positions": len(sel),
                          "compiled_us": float(np.median(ns[sel]) / 1e3),
                          "api_us": float(np.median(api[sel]) / 1e3)})
    path = None
    if c_program:
        fd, path = tempfile.mkstemp(suffix=".txt", prefix="fastmach-positions-")
        with os.fdopen(fd, "w") as fh:
            for t, h in zip(tables, hands):
                fh.write("".join(map(str, t[:JOKER])) + " " + "".join(map(str, h[:JOKER])) + "\n")
    best: dict[str, float] = {}

    def keep(name: str, seconds: float) -> None:
        best[name] = min(best.get(name, seconds), seconds)

    checksum = c_checksum = None
    try:
        for _ in range(repeats):
            if path and c_program:
                out = _run_c(c_program, path)
                keep("c", float(_c_figure(c_program, out, r"cpu=([0-9.]+)s")))
                c_checksum = int(_c_figure(c_program, out,
                                           r"checksum\(sum of optima\)=(-?\d+)"))
            for k in (1, 2):
                c0, t0 = time.thread_time(), time.perf_counter()
                b = solve_many(tables, hands, rules, workers=k)
                keep(f"many{k}_wall", time.perf_counter() - t0)
                keep(f"many{k}_cpu", time.thread_time() - c0)
                checksum = int(b.value.sum())
            c0 = time.thread_time()
            solve_many(tables, hands, rules, trusted=True)
            keep("trusted_cpu", time.thread_time() - c0)
            c0 = time.thread_time()
            for i in range(n):
                solve(melds[i], hand_ids[i], rules)
            keep("solve_cpu", time.thread_time() - c0)
    finally:
        if path:
            os.unlink(path)
    per = {k: v / n * 1e6 for k, v in best.items()}
    return {"positions": n, "bands": bands, "us": per, "checksum": checksum,
            "c_checksum": c_checksum, "repeats": repeats}


def format_solver_api(res: dict) -> str:
    lines = ["fastmach bench solver (API): classic positions from 4-player expert games; "
             "median µs per position (best of 3)",
             f"{'table':>7} {'positions':>9} {'compiled':>9} {'solve()':>9} {'solve/compiled':>15}"]
    for r in res["bands"]:
        lines.append(f"{r['table']:>7} {r['positions']:9d} {r['compiled_us']:9.1f} "
                     f"{r['api_us']:9.1f} {r['api_us'] / r['compiled_us']:14.2f}x")
    us = res["us"]
    lines.append(f"mean µs per position over {res['positions']} positions, best of "
                 f"{res['repeats']} interleaved runs (cpu: the calling thread's CPU time):")
    c = us.get("c")
    rows = [("solve_many, 1 worker (cpu)", us["many1_cpu"]),
            ("solve_many, 1 worker (wall)", us["many1_wall"]),
            ("solve_many, 2 workers (wall)", us["many2_wall"]),
            ("solve_many, trusted tables (cpu)", us["trusted_cpu"]),
            ("fastmach.solve per call (cpu)", us["solve_cpu"])]
    if c is not None:
        rows.insert(0, ("C dynamic program (cpu)", c))
    for name, v in rows:
        vs = f"   C / this {c / v:5.2f}x" if c is not None else ""
        lines.append(f"  {name:32} {v:8.2f}{vs}")
    lines.append(f"  2 workers vs 1 (wall): {us['many1_wall'] / us['many2_wall']:.2f}x")
    if res["c_checksum"] is not None:
        same = "agree" if res["c_checksum"] == res["checksum"] else "DIFFER"
        lines.append(f"  cards placed in all: C {res['c_checksum']}, "
                     f"fastmach {res['checksum']} ({same})")
    return "\n".join(lines)


def bench_games(games: int = 2000, seed: int = 0) -> list[dict]:
    """Complete games per second on one core, 4 expert players, every preset.

    A row of the engine is one game of the rules' ``match``: the classic preset plays a
    match of one dealer rotation (4 hands), so its single-hand figure is shown too.
    """
    from fastmach.engine import bench as engine_bench

    rows = []
    for name in ("classic(match=single)", "classic", "jokers", "ace-low", "italian"):
        gps = engine_bench(name, None, games=games if name.startswith("classic") else max(200, games // 4), seed=seed)
        rows.append({"rules": name, "seats": "4 x expert", "games_per_s": gps})
    return rows


def bench_strategies(games: int = 500, seed: int = 0, repeats: int = 1) -> list[dict]:
    """Games per second for each registered strategy at a full table (classic, 4 seats),
    intermediate at k=1 too, and one strong seat with three experts under classic and
    jokers (with four experts under jokers beside it); with the mean turns per game and
    the time per decision (a turn). ``repeats``: the best of that many timings (the same games each time)."""
    from fastmach.engine import bench as engine_bench
    from fastmach.strategies import REGISTRY

    names = []
    for name in REGISTRY:
        if name in ("search", "clairvoyant"):   # whole games are too slow: bench_search
            continue
        names.append(name)
        if name == "intermediate":
            names.append("intermediate(k=1)")
    rows = []
    for name in names:
        seats = [name] * 4
        try:
            runs = [engine_bench("classic", seats, games=games, seed=seed, detail=True)
                    for _ in range(max(1, repeats))]
        except Exception as e:  # a strategy that needs parameters, reported not hidden
            rows.append({"rules": "classic", "seats": f"4 x {name}", "games_per_s": float("nan"),
                         "note": str(e)})
            continue
        best = max(runs, key=lambda r: float(r["games_per_s"]))
        rows.append({"rules": "classic", "seats": f"4 x {name}", **best})
    # strong at a table of experts (four strong players all hold until the stock is out),
    # and the same under jokers next to four experts there (its held turns' solves hold
    # jokers: the jokers solver's cost shows in that ratio)
    for rules, lineups in (("classic", (["strong"] + ["expert"] * 3,)),
                           ("jokers", (["expert"] * 4, ["strong"] + ["expert"] * 3))):
        for seats in lineups:
            n = games if rules == "classic" else max(50, games // 4)
            runs = [engine_bench(rules, seats, games=n, seed=seed, detail=True)
                    for _ in range(max(1, repeats))]
            label = "4 x expert" if seats[0] == "expert" else "strong + 3 x expert"
            best = max(runs, key=lambda r: float(r["games_per_s"]))
            rows.append({"rules": rules, "seats": label, **best})
    return rows


def _decision_positions(r, positions: int, seed: int) -> list:
    """Up to ``positions`` states of experts' games (from replicate 0 on) where the seat to
    move has opened, the table holds melds and the stock is not empty: decisions a
    look-ahead player has something to weigh in."""
    from fastmach.game import Game

    game = Game(r, ["expert"] * r.players)
    states: list = []
    rep = 0
    while len(states) < positions and rep < 50:
        st = game.new_initial_state(seed, rep)
        while not st.is_terminal() and len(states) < positions:
            if st.table and st.opened[st.current_player] and st.stock:
                states.append(st.clone())
            st.step()
        rep += 1
    return states


def bench_lookahead(budgets: Sequence[int] = (4, 8, 16, 32, 64), positions: int = 24,
                    rules: str = "classic(match=single)", seed: int = 0) -> list[dict]:
    """Lookahead's cost per decision against its playout budget.

    Decisions where lookahead has something to weigh (the expert plays without emptying
    the hand), taken from games of experts; each is decided once per budget. Also the
    number of candidates per decision (all / some / none of the maximum placement).
    """
    from fastmach.engine import make_engine

    r = resolve_rules(rules)
    states = _decision_positions(r, positions, seed)
    rows = []
    for n in budgets:
        eng = make_engine(r, [f"lookahead(playouts={n})"] * r.players)[2]
        spent, decided = 0.0, 0
        for st in states:
            args = (st.current_player, st._hands, st._melds, st._stands, st.opened,
                    len(st.stock), st.rng_state)
            t0 = time.perf_counter()
            out = eng.decide_position(*args)
            spent += time.perf_counter() - t0
            decided += out[5] != st.rng_state   # playouts were run
        rows.append({"playouts": n, "positions": len(states), "weighed": decided,
                     "ms_per_decision": spent / max(decided, 1) * 1e3})
    return rows


def format_lookahead(rows: list[dict]) -> str:
    lines = ["fastmach bench strategies: lookahead cost per decision (decisions with candidates "
             "to weigh; classic single hands, one core)",
             f"{'playouts':>8} {'decisions':>10} {'ms/decision':>12} {'ms/playout round':>17}"]
    for r in rows:
        lines.append(f"{r['playouts']:8d} {r['weighed']:10d} {r['ms_per_decision']:12.1f} "
                     f"{r['ms_per_decision'] / r['playouts']:17.2f}")
    return "\n".join(lines)


def bench_search(budgets: Sequence[int] = (2, 4, 8, 16), positions: int = 24,
                 rules: str = "classic(match=single)", seed: int = 0) -> list[dict]:
    """Decisions per second of ``search`` against its budget (sampled deals per decision),
    and of ``clairvoyant``, on the positions of :func:`bench_lookahead` (experts' games;
    decisions with candidates to weigh, the stock order given), each decided once; the
    expert's on every one of those positions first, the reference of the ratios. (Budget
    1 plays the policy's play without a playout: nothing to time.)"""
    from fastmach.engine import make_engine

    r = resolve_rules(rules)
    states = _decision_positions(r, positions, seed)
    rows = []
    for name in ["expert"] + [f"search(budget={b})" for b in budgets] + ["clairvoyant"]:
        eng = make_engine(r, [name] * r.players)[2]
        spent, decided = 0.0, 0
        for st in states:
            t0 = time.perf_counter()
            out = eng.decide_position(st.current_player, st._hands, st._melds, st._stands,
                                      st.opened, len(st.stock), st.rng_state, stock=st.stock)
            spent += time.perf_counter() - t0
            decided += name == "expert" or out[5] != st.rng_state   # playouts were run
        rows.append({"strategy": name, "positions": len(states), "weighed": decided,
                     "decisions_per_s": decided / spent if spent > 0 else float("nan")})
    return rows


def format_search(rows: list[dict]) -> str:
    lines = ["fastmach bench strategies: search and clairvoyant decisions per second "
             "(decisions with candidates to weigh; classic single hands, one core)",
             f"{'strategy':>20} {'decisions':>10} {'decisions/s':>12} {'expert / this':>14}"]
    ref = rows[0]["decisions_per_s"]
    for r in rows:
        lines.append(f"{r['strategy']:>20} {r['weighed']:10d} {r['decisions_per_s']:12.2f} "
                     f"{ref / r['decisions_per_s']:13.0f}x")
    return "\n".join(lines)


def format_games(rows: list[dict]) -> str:
    detail = any("us_per_decision" in r for r in rows)
    lines = ["fastmach bench games: complete games per second, one core"
             + (" (turns: mean per game; µs/decision: time per turn)" if detail else ""),
             f"{'rules':22} {'seats':28} {'games/s':>10}"
             + (f" {'turns':>8} {'µs/decision':>12}" if detail else "")]
    for r in rows:
        extra = ""
        if detail and "us_per_decision" in r:
            extra = f" {r['turns_per_game']:8.1f} {r['us_per_decision']:12.1f}"
        gps = r['games_per_s']
        lines.append(f"{r['rules']:22} {r['seats']:28} "
                     + (f"{gps:10.0f}" if not gps < 10 else f"{gps:10.3f}") + extra
                     + (f"  ({r['note']})" if r.get("note") else ""))
    return "\n".join(lines)


def format_cardset() -> str:
    try:
        from fastmach.core._cardset import bench_cardset
    except ImportError:
        return "fastmach bench cardset: the _cardset module is not built"
    res = bench_cardset()
    return "fastmach bench cardset (ns per operation)\n" + "\n".join(f"  {k:12} {v:8.1f}" for k, v in res.items())
