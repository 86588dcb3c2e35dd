"""Best responses within the policy space against a mixture, raced on common deals.

Deal ``r`` seats the candidate at ``r mod N`` and draws the other seats from the mixture
with a generator seeded by (seed, r) alone, so every candidate meets the same opponents on
the same cards: differences are paired by deal. Successive halving: every candidate plays
the first rung's deals, the best ``1/eta`` go on to ``eta`` times as many (the deals
played so far kept), and so on. The winner's gain is then measured on fresh deals it was
not chosen on: its payoff minus the mixture's own (a member drawn from the mixture in the
same seat, against the same opponents), paired by deal, with a 95% interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from fastmach.rules import Rules
from fastmach.training.payoffs import grouped, play_jobs

__all__ = ["Mixture", "Gain", "focal_payoffs", "race", "gain"]


@dataclass(frozen=True)
class Mixture:
    """Strategies and their weights (summing to 1)."""

    members: tuple[str, ...]
    weights: tuple[float, ...]

    def draw(self, rng: np.random.Generator, n: int) -> list[str]:
        w = np.asarray(self.weights, dtype=float)
        idx = rng.choice(len(self.members), size=n, p=w / w.sum())
        return [self.members[i] for i in idx]


@dataclass(frozen=True)
class Gain:
    """A strategy's payoff against a mixture, minus the mixture's own, on fresh deals."""

    strategy: str
    payoff: float
    baseline: float
    diff: float
    lo: float
    hi: float
    deals: int


def _opponents(mix: Mixture, seed: int, r: int, players: int) -> tuple[int, list[str]]:
    rng = np.random.default_rng([seed, r, 0x5EA7])
    others = mix.draw(rng, players - 1)
    return r % players, others


def focal_payoffs(rules: Rules, strategies: Sequence[str], mix: Mixture, seed: int,
                  reps: np.ndarray, workers: int = 1) -> np.ndarray:
    """(len(strategies), len(reps)) payoffs: each strategy in deal r's focal seat against
    the opponents drawn for r."""
    n = rules.players
    seats_of: list[tuple[str, ...]] = []
    where: list[tuple[int, int, int]] = []  # (strategy, deal index, seat)
    for j, r in enumerate(reps):
        seat, others = _opponents(mix, seed, int(r), n)
        for i, s in enumerate(strategies):
            seated = list(others)
            seated.insert(seat, s)
            seats_of.append(tuple(seated))
            where.append((i, j, seat))
    jobs = grouped(seats_of, np.repeat(reps, len(strategies)))
    # one engine per line-up: index every (line-up, replicate) game's payoffs
    results = play_jobs(rules, jobs, seed, workers)
    lookup: dict[tuple[tuple[str, ...], int], np.ndarray] = {}
    for (line_up, rs), pay in zip(jobs, results):
        for r, row in zip(rs, pay):
            lookup[(line_up, int(r))] = row
    out = np.zeros((len(strategies), len(reps)))
    for (i, j, seat), line_up in zip(where, seats_of):
        out[i, j] = lookup[(line_up, int(reps[j]))][seat]
    return out


def race(rules: Rules, candidates: Sequence[str], mix: Mixture, seed: int, deals: int,
         eta: int = 3, rungs: int = 4, workers: int = 1,
         progress: Callable[[int], None] | None = None) -> tuple[str, float, int]:
    """The candidate of the best mean payoff after successive halving: (strategy, mean,
    deals it played). Ties go to the earlier candidate."""
    alive = list(dict.fromkeys(candidates))
    played = 0
    sums = np.zeros(len(alive))
    for rung in range(rungs):
        target = deals * eta ** rung
        reps = np.arange(played, target, dtype=np.int64)
        pay = focal_payoffs(rules, alive, mix, seed, reps, workers)
        sums = sums + pay.sum(axis=1)
        played = target
        if progress:
            progress(len(alive) * len(reps))
        if len(alive) == 1 or rung == rungs - 1:
            break
        keep = max(1, math.ceil(len(alive) / eta))
        order = np.argsort(-sums, kind="stable")[:keep]
        order.sort()
        alive = [alive[i] for i in order]
        sums = sums[order]
    best = int(np.argmax(sums))
    return alive[best], float(sums[best] / played), played


def gain(rules: Rules, strategy: str, mix: Mixture, seed: int, deals: int,
         workers: int = 1, baseline: np.ndarray | None = None) -> tuple[Gain, np.ndarray]:
    """``strategy``'s gain over the mixture on deals 0..deals-1 of ``seed`` (fresh: a seed
    the race did not use); returns the mixture's own payoffs too, to reuse."""
    reps = np.arange(deals, dtype=np.int64)
    pay = focal_payoffs(rules, [strategy], mix, seed, reps, workers)[0]
    if baseline is None:
        baseline = mixture_payoffs(rules, mix, seed, reps, workers)
    d = pay - baseline
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.inf
    g = Gain(strategy, float(pay.mean()), float(baseline.mean()), float(d.mean()),
             float(d.mean() - half), float(d.mean() + half), deals)
    return g, baseline


def mixture_payoffs(rules: Rules, mix: Mixture, seed: int, reps: np.ndarray,
                    workers: int = 1) -> np.ndarray:
    """The mixture's own payoff per deal: the focal seat drawn from the mixture too (by
    a generator of its own, so that the opponents are those every candidate meets)."""
    focal = [mix.draw(np.random.default_rng([seed, int(r), 0xF0CA1]), 1)[0] for r in reps]
    out = np.zeros(len(reps))
    for s in dict.fromkeys(focal):
        idx = np.array([j for j, f in enumerate(focal) if f == s])
        out[idx] = focal_payoffs(rules, [s], mix, seed, reps[idx], workers)[0]
    return out
