"""Where the solver's time goes: the positions of expert games split by the searches the
solver runs on them (``fastmach bench solver``, the table after the timings).

Each position is timed as in ``bench_solver`` (best of 3, memo off) and solved once more
for the record of its sweeps (``_solver._sweep_stats``: states, bound, aces high or low,
best value, relaxed or exact), which names its path:

- ``aces low``: one search with aces low only (aces are never high, or no suit can hold
  ...-Q-K-A, or the aces-low answer already holds every card that could be placed);
- ``aces high only``: a table ace, 2, queen or king has no place with aces low, so the
  search with aces high runs alone;
- ``low failed, high``: the aces-low search found no partition, then the one with aces high;
- ``high confirms low``: the search with aces high found nothing better than the aces-low
  answer (a proof: its time buys no change of answer);
- ``high beats low``: it found a better one.

Under one joker per meld a position whose relaxation (runs counted by length only) had a
meld with two jokers also runs the exact search: ``exact too`` counts those. ``plays``: the
positions whose answer places a card (the others are draws). ``proofs``: the share of the
states made in searches whose partition is not the one returned (confirmations, searches
that found none, rounds of the deepening that fell short, a relaxation not kept): the
part of the work a faster proof could save without changing any answer; the search that
returns the partition must make its states as it does, since the partition returned is
the first of the best value among them.
"""
from __future__ import annotations

import numpy as np

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights

PATHS = ("aces low", "aces high only", "low failed, high", "high confirms low",
         "high beats low")


def search_path(stats: list[tuple]) -> str:
    """The path of one solve from its sweeps (state count, bound, aces high, best value,
    relaxed), the first eight as ``_sweep_stats`` keeps them; under one joker per meld the
    last pass (exact, or the relaxation kept) decides."""
    if not stats:
        return "aces low"   # (answered without a sweep: no partition, or a trivial one)
    merged = [s[4] for s in stats]
    if 1 in merged and 0 in merged:   # the relaxation, then the exact search: the latter
        stats = [s for s in stats if s[4] == 0]
    low = [s for s in stats if not s[2]]
    high = [s for s in stats if s[2]]
    if not high:
        return "aces low"
    if not low:
        return "aces high only"
    if all(s[3] < 0 for s in low):
        return "low failed, high"
    last = high[-1]
    return "high beats low" if last[3] > last[1] else "high confirms low"


def answer_sweep(stats: list[tuple]) -> int | None:
    """Which of the sweeps (``_sweep_stats``) made the partition returned: the last one
    with aces high that found one above its bound, else the last with aces low that did,
    in the last pass (the exact search after a relaxation not kept); None: no partition."""
    if not stats:
        return None
    last = len(stats) - 1
    first = last
    while first > 0 and stats[first - 1][4] == stats[last][4]:
        first -= 1   # (the last pass: the sweeps with the last one's relaxed flag)

    def found(s: tuple) -> bool:
        return s[3] >= 0 and s[3] > s[1]

    for high in (1, 0):
        for k in range(last, first - 1, -1):
            if stats[k][2] == high and found(stats[k]):
                return k
    return None


def proof_states(stats: list[tuple]) -> int:
    """States made by the sweeps whose partition is not returned (see answer_sweep)."""
    k = answer_sweep(stats)
    return sum(s[0] for i, s in enumerate(stats) if i != k)


def bench_paths(games: int = 120, seed: int = 1,
                rules_names: tuple[str, ...] = ("classic", "jokers")) -> list[dict]:
    """Rows by rules and path: positions, their share, the share of the solve time, the
    median µs, the mean states a position makes, and the share of plays."""
    from fastmach.tools.bench import game_positions
    rows = []
    _solver._set_memo(0)   # (every solve searches: its sweeps are its own)
    try:
        for name in rules_names:
            rules = resolve_rules(name)
            tables, hands = game_positions(rules, games=games, seed=seed)
            w, jw = weights(rules, "cards")
            ns, _ = _solver.time_positions(tables, hands, rules.decks, rules.ace_code,
                                           rules.jokers_per_meld, w, jw)
            paths, states, proofs, plays, exact = [], [], [], [], []
            for t, h in zip(tables, hands):
                f0 = _solver._relax_fallbacks()
                _, placed, _, _ = _solver.solve_counts(t, h, rules.decks, rules.ace_code,
                                                       rules.jokers_per_meld, w, jw,
                                                       witness=False)
                st = _solver._sweep_stats()
                paths.append(search_path(st))
                states.append(sum(s[0] for s in st))
                proofs.append(proof_states(st))
                plays.append(placed is not None and int(placed.sum()) > 0)
                exact.append(_solver._relax_fallbacks() != f0)
            paths_a = np.array(paths)
            states_a, plays_a, exact_a = np.array(states), np.array(plays), np.array(exact)
            proofs_a = np.array(proofs)
            total = max(1, int(ns.sum()))
            for p in PATHS:
                sel = paths_a == p
                if not sel.any():
                    continue
                rows.append({"rules": name, "path": p, "positions": int(sel.sum()),
                             "position_share": float(sel.mean()),
                             "time_share": float(ns[sel].sum() / total),
                             "median_us": float(np.median(ns[sel]) / 1e3),
                             "mean_states": float(states_a[sel].mean()),
                             "proof_share": float(proofs_a[sel].sum()
                                                  / max(1, int(states_a[sel].sum()))),
                             "plays": float(plays_a[sel].mean()),
                             "exact_too": int(exact_a[sel].sum())})
    finally:
        _solver._set_memo(1)
    return rows


def format_paths(rows: list[dict]) -> str:
    head = (f"{'rules':8} {'path':18} {'positions':>9} {'of all':>7} {'of time':>8} "
            f"{'median µs':>10} {'states':>8} {'proofs':>7} {'plays':>6} {'exact too':>9}")
    lines = ["fastmach bench solver (paths): where the solve time goes, by the searches run "
             "(of all: share of the positions; of time: share of the solve time; states: "
             "mean states made per position; proofs: share of those made by searches whose "
             "partition is not returned; plays: share of answers placing a card)", head]
    for r in rows:
        lines.append(f"{r['rules']:8} {r['path']:18} {r['positions']:9d} "
                     f"{100 * r['position_share']:6.1f}% {100 * r['time_share']:7.1f}% "
                     f"{r['median_us']:10.1f} {r['mean_states']:8.0f} "
                     f"{100 * r['proof_share']:6.1f}% "
                     f"{100 * r['plays']:5.1f}% {r['exact_too']:9d}")
    return "\n".join(lines)
