"""The meta-game: the symmetric N-player game over a population of strategies.

``EmpiricalGame`` holds, for every line-up (a multiset of N members), each member's mean
payoff over its seats, the deals and the seat rotations. A member's payoff against a
mixture ``x`` (the other N-1 seats drawn from ``x`` independently) is the multinomial
average over the opponents' multisets; :func:`equilibrium` finds a symmetric mixture where
no member gains by leaving it (replicator dynamics and fictitious play, the mixture of the
smallest regret kept), :func:`alpha_rank` ranks the members by the stationary
distribution of single-member deviations (Omidshafiei et al. 2019, the symmetric case).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["EmpiricalGame", "equilibrium", "regret", "alpha_rank"]


def _key(lineup: tuple[int, ...]) -> str:
    return ",".join(map(str, sorted(lineup)))


@dataclass
class EmpiricalGame:
    """Mean payoffs by line-up: ``table["0,0,1,2"] = {member: payoff}``."""

    players: int
    members: list[str] = field(default_factory=list)
    table: dict[str, dict[int, float]] = field(default_factory=dict)

    def missing(self) -> list[tuple[int, ...]]:
        """The line-ups of the current members not yet played."""
        k = len(self.members)
        return [m for m in itertools.combinations_with_replacement(range(k), self.players)
                if _key(m) not in self.table]

    def record(self, lineup: tuple[int, ...], payoffs: dict[int, float]) -> None:
        self.table[_key(lineup)] = {int(i): float(v) for i, v in payoffs.items()}

    def payoffs(self, x: np.ndarray) -> np.ndarray:
        """Each member's expected payoff with the other seats drawn from ``x``."""
        k, n = len(self.members), self.players - 1
        u = np.zeros(k)
        for opp in itertools.combinations_with_replacement(range(k), n):
            counts = np.bincount(opp, minlength=k)
            p = math.factorial(n) / np.prod([math.factorial(c) for c in counts])
            p *= float(np.prod(x ** counts))
            if p == 0.0:
                continue
            for i in range(k):
                u[i] += p * self.table[_key(opp + (i,))][i]
        return u

    def to_json(self) -> dict:
        table = {k: {str(i): v for i, v in row.items()} for k, row in self.table.items()}
        return {"players": self.players, "members": list(self.members), "table": table}

    @classmethod
    def from_json(cls, d: dict) -> "EmpiricalGame":
        table = {k: {int(i): float(v) for i, v in row.items()} for k, row in d["table"].items()}
        return cls(int(d["players"]), list(d["members"]), table)


def regret(game: EmpiricalGame, x: np.ndarray) -> float:
    """How much the best member earns over the mixture itself, both against ``x``."""
    u = game.payoffs(x)
    return float(u.max() - x @ u)


def equilibrium(game: EmpiricalGame, steps: int = 2000) -> np.ndarray:
    """A symmetric mixture of small regret: replicator dynamics from the uniform mixture
    and fictitious play, the mixture of the smallest regret met on either path (weights
    below 0.1% dropped and the rest renormalised where that does not raise the regret)."""
    k = len(game.members)
    if k == 1:
        return np.ones(1)
    best, best_r = np.full(k, 1.0 / k), math.inf
    x = np.full(k, 1.0 / k)
    for t in range(steps):
        u = game.payoffs(x)
        r = float(u.max() - x @ u)
        if r < best_r:
            best, best_r = x.copy(), r
        x = x * np.exp(8.0 * (u - x @ u))
        x /= x.sum()
    y = np.full(k, 1.0 / k)
    for t in range(1, steps // 4 + 1):
        u = game.payoffs(y)
        r = float(u.max() - y @ u)
        if r < best_r:
            best, best_r = y.copy(), r
        br = np.zeros(k)
        br[int(np.argmax(u))] = 1.0
        y = y + (br - y) / (t + 1)
    trimmed = np.where(best < 1e-3, 0.0, best)
    trimmed /= trimmed.sum()
    return trimmed if regret(game, trimmed) <= best_r + 1e-9 else best


def alpha_rank(game: EmpiricalGame, alpha: float = 50.0) -> np.ndarray:
    """The alpha-rank mass of each member: the stationary distribution of a chain over
    monomorphic populations where one seat switches to another member, accepted with
    the Fermi probability of the payoff difference (single population, N seats)."""
    k, n = len(game.members), game.players
    if k == 1:
        return np.ones(1)
    c = np.zeros((k, k))
    for s in range(k):
        for r in range(k):
            if r == s:
                continue
            # one mutant r among n-1 residents s, against the resident's payoff there
            lineup = (r,) + (s,) * (n - 1)
            f_r = game.table[_key(lineup)][r]
            f_s = game.table[_key(lineup)][s]
            d = f_r - f_s
            if abs(d) < 1e-12:
                rho = 1.0 / n
            else:
                rho = (1 - math.exp(-alpha * d)) / (1 - math.exp(-n * alpha * d))
            c[s, r] = rho / (k - 1)
        c[s, s] = 1.0 - c[s].sum()
    w, v = np.linalg.eig(c.T)
    pi = np.real(v[:, int(np.argmin(np.abs(w - 1.0)))])
    pi = np.abs(pi)
    return pi / pi.sum()
