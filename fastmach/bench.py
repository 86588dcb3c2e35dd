"""Benchmarks behind ``fastmach bench``: figures quoted in notes, never timed asserts."""
from __future__ import annotations

import time

import numpy as np

from . import _solver
from .cards import JOKER, NCARD
from .rules import Rules, resolve_rules
from .solver import _weights


def greedy_positions(rules: Rules | str = "classic", games: int = 40, seed: int = 1,
                     players: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Solver positions (table counts, hand counts) met in greedy games.

    Every seat plays the solver's maximum placement whenever there is one and draws
    otherwise; each turn's (table, hand) before the decision is one position.
    """
    rules = resolve_rules(rules).replace(players=players)
    w, jw = _weights(rules, "cards")
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(NCARD), [rules.decks] * JOKER + [rules.jokers])
    tables, hands = [], []
    for _ in range(games):
        order = rng.permutation(deck)
        hand = np.zeros((players, NCARD), dtype=np.uint8)
        for i in range(players * rules.hand_size):
            hand[i % players, order[i]] += 1
        stock = list(order[players * rules.hand_size:])
        table = np.zeros(NCARD, dtype=np.uint8)
        seat, idle = 0, 0
        for _turn in range(2000):
            tables.append(table.copy())
            hands.append(hand[seat].copy())
            total, placed, _, _ = _solver.solve_counts(
                table, hand[seat], rules.decks, rules.ace_high, rules.jokers_per_meld,
                w, jw, False)
            if placed is not None and placed.sum() > 0:
                table = table + placed
                hand[seat] -= placed
                idle = 0
                if hand[seat].sum() == 0:
                    break
            elif stock:
                hand[seat, stock.pop(0)] += 1
                idle = 0
            else:
                idle += 1
                if idle >= players:
                    break
            seat = (seat + 1) % players
    return np.array(tables, dtype=np.uint8), np.array(hands, dtype=np.uint8)


def bench_solver(games: int = 40, seed: int = 1, milp: bool = True) -> list[dict]:
    """Median solve time by table size, no jokers and 4 jokers (one per meld)."""
    rows = []
    for name in ("classic", "jokers"):
        rules = resolve_rules(name)
        tables, hands = greedy_positions(rules, games=games, seed=seed)
        w, jw = _weights(rules, "cards")
        ns, _ = _solver.time_positions(tables, hands, rules.decks, rules.ace_high,
                                       rules.jokers_per_meld, w, jw)
        size = tables.sum(axis=1)
        for lo, hi in ((0, 20), (21, 50), (51, 200)):
            sel = (size >= lo) & (size <= hi)
            if sel.any():
                rows.append({"rules": name, "table": f"{lo}-{hi}", "positions": int(sel.sum()),
                             "median_us": float(np.median(ns[sel]) / 1e3),
                             "p90_us": float(np.percentile(ns[sel], 90) / 1e3),
                             "max_us": float(ns[sel].max() / 1e3)})
    return rows


if __name__ == "__main__":
    t0 = time.perf_counter()
    for row in bench_solver(games=int(__import__("sys").argv[1]) if len(__import__("sys").argv) > 1 else 30):
        print(row)
    print("wall", time.perf_counter() - t0)
