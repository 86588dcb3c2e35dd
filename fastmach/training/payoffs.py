"""Payoffs of line-ups on common deals: each seat's share of the rule set's own win.

A game is a hand, or a match where the rules play matches; a seat's payoff is its
``win_share`` (1 for the sole winner, shared or 0 as the rules say). Games depend only on
(rules, seats, seed, replicate), so the payoffs are the same at any worker count: the
workers are threads (the compiled engine releases the GIL while a batch plays).
"""
from __future__ import annotations

from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numpy as np

from fastmach.engine import play_columns
from fastmach.rules import Rules

__all__ = ["Job", "play_jobs", "seat_payoffs"]

Job = tuple[tuple[str, ...], np.ndarray]   # (one strategy per seat, replicates)


def seat_payoffs(rules: Rules, seats: Sequence[str], seed: int, reps: np.ndarray) -> np.ndarray:
    """(games, players) win shares of ``seats`` on replicates ``reps`` of ``seed``."""
    cols = play_columns(rules, list(seats), seed, reps)
    assert not isinstance(cols, tuple)   # (hands=False: the game rows alone)
    return np.column_stack([np.asarray(cols[f"win_share_{k}"], dtype=np.float64)
                            for k in range(rules.players)])


def play_jobs(rules: Rules, jobs: Sequence[Job], seed: int, workers: int = 1) -> list[np.ndarray]:
    """Each job's seat payoffs, in job order (threads; the same at any ``workers``)."""
    if workers <= 1 or len(jobs) <= 1:
        return [seat_payoffs(rules, seats, seed, reps) for seats, reps in jobs]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda job: seat_payoffs(rules, job[0], seed, job[1]), jobs))


def grouped(seats_of_deal: Sequence[tuple[str, ...]], reps: np.ndarray) -> list[Job]:
    """The deals grouped by their line-up (one engine per line-up), in first-seen order."""
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for seats, r in zip(seats_of_deal, reps):
        groups[tuple(seats)].append(int(r))
    return [(seats, np.asarray(rs, dtype=np.int64)) for seats, rs in groups.items()]
