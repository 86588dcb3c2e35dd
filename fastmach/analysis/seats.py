"""Seat win shares relative to the hand's first player: estimates and intervals."""

from __future__ import annotations

import math

from typing import Any

import numpy as np
import pandas as pd

from fastmach.analysis.hands import deal_key, players_of, seat_shares
from fastmach.analysis.inference import ratio_estimate, t_quantile

__all__ = ["seat_estimates", "simultaneous", "spread_bounds"]


def seat_estimates(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Per seat relative to the first player, over one player count's hands.

    Returns the win shares, the deal-clustered standard errors and t-test p-values of
    ``share - fair`` (``fair`` = the hand's total share / players), the number of deals
    and the mean fair share.
    """
    players = players_of(g)
    rel = seat_shares(g, players)
    deal = deal_key(g).to_numpy()
    total = rel.sum(axis=1)
    one = np.ones(len(g))
    share, se, pv = np.empty(players), np.empty(players), np.empty(players)
    deals = 0
    for s in range(players):
        e = ratio_estimate(rel[:, s], one, deal)
        contrast = ratio_estimate(rel[:, s] - total / players, one, deal)
        share[s], se[s], pv[s], deals = e.value, contrast.se, contrast.p_value(), e.deals
    return share, se, pv, deals, float(total.mean()) / players


def simultaneous(value, se, deals, alpha: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Bonferroni t intervals ``value +- t(1 - alpha / 2m, deals - 1) * se`` (arrays).

    The m intervals cover their truths simultaneously with probability at least
    ``1 - alpha``; NaN where a row has fewer than two deals.
    """
    q = np.array([t_quantile(1 - alpha / (2 * max(m, 1)), d - 1) if d > 1 else math.nan
                  for d in np.broadcast_to(deals, np.shape(value))])
    return value - q * se, value + q * se


def spread_bounds(share: np.ndarray, se: np.ndarray, deals: int, alpha: float
                   ) -> tuple[float, float]:
    """Interval of the seat spread (max minus min seat share) at level ``1 - alpha``.

    From the seats' simultaneous intervals ``[lo_i, hi_i]`` at family level ``alpha``
    (:func:`simultaneous`, m = seats): ``[max(0, max_i lo_i - min_j hi_j), max_i hi_i -
    min_j lo_j]``. ``se`` is the error of ``share - fair``: the spread of the shares is that
    of these contrasts (the fair share, common to all seats, cancels), so whenever every
    seat's interval covers its true contrast the true spread lies inside. The interval is
    conservative (its coverage is at least that of the simultaneous seat intervals) and
    always contains the estimate.
    """
    lo, hi = simultaneous(share, se, deals, alpha, len(share))
    return float(np.maximum(0.0, lo.max() - hi.min())), float(hi.max() - lo.min())



# --------------------------------------------------------------------------- the seat test
#
# Under the null hypothesis that seats are equal, the seat labels of a deal are
# exchangeable: shifting every hand of a deal by the same number of seats (seat s becomes
# s + k mod players) leaves the law of the data unchanged, with seats rotated or not, for
# rare wins, shared ties and hands nobody wins. The test randomises that shift deal by deal
# (the same shift in every cell of the player count, since the cells replay the same
# deals), and controls the family-wise error over every seat of a table by the step-down
# max-T method of Westfall and Young. Its statistic is the seat's excess share over the
# fair share, standardised by its exact randomisation variance (which no shift changes).

#: Randomisations of :func:`seat_test`.
SEAT_RESAMPLES = 2000


def deal_excess(rel: np.ndarray, deal: np.ndarray, deals: np.ndarray) -> np.ndarray:
    """(deals, players) sums over each deal's hands of ``share - total / players``.

    ``rel`` holds the hands' win shares by seat relative to the first player, ``deal``
    each hand's deal and ``deals`` the deals of the rows (in order); a deal without a hand
    gives a row of zeros.
    """
    players = rel.shape[1]
    excess = rel - rel.sum(axis=1, keepdims=True) / players
    pos = np.searchsorted(deals, deal)
    out = np.zeros((len(deals), players))
    np.add.at(out, pos, excess)
    return out


def _wilson(p, n, z):
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def seat_test(excess: list[np.ndarray], alpha: float = 0.05,
              resamples: int = SEAT_RESAMPLES, seed: int = 0) -> dict[str, list[np.ndarray]]:
    """Randomisation test of equal seats for a family of groups, with max-T control.

    ``excess`` holds one (deals, players) array per group (:func:`deal_excess`); groups of
    the same player count and the same number of rows share their deals (row g is the same
    deal) and are shifted together. Returns, per group, arrays by seat: ``z`` (excess over
    its randomisation standard deviation), ``p_value`` (randomisation, per seat),
    ``p_adjusted`` (step-down max-T over every seat of every group: family-wise error at
    most ``alpha`` when the null holds), ``sd`` (randomisation standard deviation of the
    excess sum), and the family's critical value ``critical`` (the ``1 - alpha`` quantile of
    the largest |z| under the null) in a one-element array per group.
    """
    rng = np.random.default_rng(seed)
    zs, sds, null = [], [], []
    shifts: dict[tuple[int, int], np.ndarray] = {}
    for d in excess:
        g, players = d.shape
        var = float((d ** 2).mean(axis=1).sum())
        sd = math.sqrt(var) if var > 0 else math.nan
        t = d.sum(axis=0)
        zs.append(t / sd if var > 0 else np.full(players, np.nan))
        sds.append(np.full(players, sd))
        if var <= 0:
            null.append(np.zeros((resamples, players)))
            continue
        k = shifts.setdefault((players, g), rng.integers(0, players, size=(resamples, g)))
        star = np.zeros((resamples, players))
        for j in range(players):
            star += (k == j).astype(float) @ np.roll(d, -j, axis=1)
        null.append(np.abs(star) / sd)
    z_all = np.abs(np.concatenate(zs)) if zs else np.zeros(0)
    null_all = np.concatenate(null, axis=1) if null else np.zeros((resamples, 0))
    ok = ~np.isnan(z_all)
    p_raw = np.full(z_all.shape, np.nan)
    p_adj = np.full(z_all.shape, np.nan)
    exceed = (null_all[:, ok] >= z_all[ok][None, :] - 1e-12).sum(axis=0)
    p_raw[ok] = (1 + exceed) / (resamples + 1)
    idx = np.nonzero(ok)[0]
    order = idx[np.argsort(-z_all[idx], kind="stable")]
    if order.size:
        tail_max = np.maximum.accumulate(null_all[:, order[::-1]], axis=1)[:, ::-1]
        p = (1 + (tail_max >= z_all[order][None, :] - 1e-12).sum(axis=0)) / (resamples + 1)
        p_adj[order] = np.maximum.accumulate(p)
        critical = float(np.quantile(null_all[:, idx].max(axis=1), 1 - alpha))
    else:
        critical = math.nan
    out: dict[str, list[Any]] = {"z": [], "p_value": [], "p_adjusted": [], "sd": [],
                                        "critical": []}
    start = 0
    for z, sd_of in zip(zs, sds):
        stop = start + len(z)
        out["z"].append(z)
        out["p_value"].append(p_raw[start:stop])
        out["p_adjusted"].append(p_adj[start:stop])
        out["sd"].append(sd_of)
        out["critical"].append(np.array([critical]))
        start = stop
    return out


def fair_variance(rel: np.ndarray, deal: np.ndarray) -> float:
    """Deal-clustered variance of the mean fair share (total share per hand / players)."""
    fair = rel.sum(axis=1) / rel.shape[1]
    ids, inv = np.unique(deal, return_inverse=True)
    g = len(ids)
    if g < 2:
        return 0.0
    dev = np.bincount(inv, weights=fair - fair.mean(), minlength=g)
    return g / (g - 1) * float((dev ** 2).sum()) / len(fair) ** 2


def seat_intervals(share: np.ndarray, fair: float, sd: np.ndarray, hands: int, z: float,
                   fair_var: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Score (Wilson) intervals of seat win shares at the effective sample size.

    The effective number of hands is ``fair (1 - fair) / v`` with ``v = (sd / hands)^2 +
    fair_var``: the randomisation variance of a seat's excess over the fair share plus
    that of the fair share (:func:`fair_variance`), uncorrelated under equal seats (the
    deal's clustering, ties and hands nobody wins included); ``z`` is the family's
    critical value, so that the intervals are
    simultaneous with the test. They stay inside [0, 1] and never collapse to a point.
    """
    v = (sd / hands) ** 2 + fair_var
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(v > 0, fair * (1 - fair) / v, float(hands))
    n_eff = np.maximum(n_eff, 1.0)
    return _wilson(np.clip(share, 0.0, 1.0), n_eff, z)


def detectable_edge(sd: float, hands: int, z: float, power: float = 0.8) -> float:
    """Smallest seat edge (share above the fair share) found with ``power`` by the test."""
    from fastmach.analysis.inference import normal_quantile

    if not sd > 0 or not hands > 0:
        return math.nan
    return (z + normal_quantile(power)) * sd / hands
