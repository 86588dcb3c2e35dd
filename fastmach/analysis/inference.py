"""Inference on deal-clustered estimates: intervals, tests and multiplicity control.

Common random numbers make the deal (``seed``, ``replicate``) the unit of replication.
One estimator covers means, shares and ratios: R = sum(y) / sum(x) over rows (hands or
matches), with deal-level influence values e_g = (Y_g - R X_g) / sum(X) (Y_g, X_g the
deal's sums). The cluster-robust variance is G / (G - 1) * sum(e_g^2) over the G deals,
and the interval is R +- t(G - 1) * se. A difference (paired, deal by deal) or a weighted
pool of estimates is a linear combination: its influence values are the same combination
of the parts' (aligned on the deal). Distributions come from :mod:`scipy.stats`.
"""

from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np
import pandas as pd

from fastmach.errors import FastmachError

__all__ = ["wilson_interval", "t_quantile", "t_sf", "Estimate", "ratio_estimate", "combine",
           "share_interval", "newcombe_paired", "holm", "cluster_bootstrap",
           "BOOTSTRAP_RESAMPLES", "normal_quantile"]

#: Resamples of :func:`cluster_bootstrap`.
BOOTSTRAP_RESAMPLES = 1000


def scipy_stats():
    """:mod:`scipy.stats`, imported on first use (a second of start-up that a command
    without statistics, ``fastmach play`` or ``solve``, does not pay)."""
    from scipy import stats
    return stats


def normal_quantile(p: float) -> float:
    """Quantile of the standard normal distribution."""
    return float(scipy_stats().norm.ppf(p))


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise FastmachError(f"confidence must lie in (0, 1), got {confidence!r}")
    return normal_quantile(0.5 + confidence / 2.0)


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    ``successes`` and ``n`` may be scalars or arrays. Returns ``(low, high)`` (floats or
    arrays); where ``n == 0`` both bounds are NaN.
    """
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        denom = 1.0 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
        low = np.where(k <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(k >= m, 1.0, np.clip(centre + half, 0.0, 1.0))
        low = np.where(m > 0, low, np.nan)
        high = np.where(m > 0, high, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high



def t_sf(t: float, df: float) -> float:
    """Upper tail P(T > t) of Student's t with ``df`` degrees of freedom."""
    return float(scipy_stats().t.sf(t, df))


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t distribution (``p`` in (0, 1), ``df`` > 0)."""
    if not 0.0 < p < 1.0:
        raise FastmachError(f"t_quantile: p must lie in (0, 1), got {p!r}")
    if df <= 0:
        raise FastmachError(f"t_quantile: df must be positive, got {df!r}")
    return _t_ppf(float(p), float(df))


@functools.lru_cache(maxsize=4096)
def _t_ppf(p: float, df: float) -> float:
    """scipy's t quantile (about 3 ms a call; a report asks for the same few many times)."""
    return float(scipy_stats().t.ppf(p, df))


class Estimate:
    """A point value and its deal-level influence values (a Series indexed by deal)."""

    __slots__ = ("value", "infl", "n")

    def __init__(self, value: float, infl: pd.Series, n: float = math.nan):
        self.value, self.infl, self.n = float(value), infl, n

    @property
    def deals(self) -> int:
        return int(len(self.infl))

    @property
    def se(self) -> float:
        """Cluster-robust standard error, G / (G - 1) small-sample factor."""
        g = len(self.infl)
        if g < 2 or math.isnan(self.value):
            return math.nan
        return math.sqrt(g / (g - 1) * float((self.infl.to_numpy() ** 2).sum()))

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """``value +- t(G - 1) * se``; NaN with fewer than two deals."""
        se = self.se
        if math.isnan(se):
            return math.nan, math.nan
        q = t_quantile(0.5 + confidence / 2.0, len(self.infl) - 1)
        return self.value - q * se, self.value + q * se

    def p_value(self, null: float = 0.0) -> float:
        """Two-sided t test of ``value == null`` with G - 1 degrees of freedom."""
        se = self.se
        if math.isnan(se):
            return math.nan
        if se == 0.0:
            return 1.0 if self.value == null else 0.0
        return min(1.0, 2.0 * t_sf(abs(self.value - null) / se, len(self.infl) - 1))

    def __sub__(self, other: "Estimate") -> "Estimate":
        return combine([(1.0, self), (-1.0, other)])


def ratio_estimate(y, x, deal) -> Estimate:
    """``sum(y) / sum(x)`` with its deal-level influence values.

    ``y``, ``x`` and ``deal`` are aligned arrays (one entry per row). A mean is ``x = 1``;
    a share a 0/1 ``y``; turns per hand ``y = turns`` over hand rows with ``x = 1``.
    Rows with NaN ``y`` are dropped.
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    deal = np.asarray(deal)
    keep = ~np.isnan(y)
    y, x, deal = y[keep], x[keep], deal[keep]
    if x.sum() <= 0:
        return Estimate(math.nan, pd.Series(dtype=float), 0.0)
    ids, inv = np.unique(deal, return_inverse=True)
    ys = np.bincount(inv, weights=y, minlength=len(ids))
    xs = np.bincount(inv, weights=x, minlength=len(ids))
    total = float(xs.sum())
    r = float(ys.sum()) / total
    return Estimate(r, pd.Series((ys - r * xs) / total, index=ids), total)


def combine(parts: Sequence[tuple[float, Estimate]]) -> Estimate:
    """The linear combination ``sum(w * estimate)``; influence values aligned by deal."""
    value = sum(w * e.value for w, e in parts)
    infl = None
    for w, e in parts:
        s = w * e.infl
        infl = s if infl is None else infl.add(s, fill_value=0.0)
    return Estimate(value, infl if infl is not None else pd.Series(dtype=float))


def _covariance(a: Estimate, b: Estimate) -> float:
    ia, ib = a.infl.align(b.infl, fill_value=0.0)
    g = len(ia)
    return g / (g - 1) * float((ia * ib).sum()) if g > 1 else math.nan


def share_interval(e: Estimate, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson interval of a share of rows at its effective sample size under clustering.

    ``n_eff = n / deff`` with ``deff`` the cluster-robust variance over the variance of
    ``n`` independent rows (``p (1 - p) / (n - 1)``); ``deff = 1`` when the share is 0 or 1.
    It stays inside [0, 1] and does not collapse at 0 or 1.
    """
    p, n = e.value, e.n
    if math.isnan(p) or not n > 0:
        return math.nan, math.nan
    var_iid = p * (1 - p) / (n - 1) if n > 1 else 0.0
    var_cr = e.se ** 2 if e.deals > 1 else 0.0
    n_eff = n * var_iid / var_cr if var_cr > 0 and var_iid > 0 else n
    n_eff = max(n_eff, 1.0)
    return wilson_interval(p * n_eff, n_eff, confidence)


def newcombe_paired(variant: Estimate, base: Estimate, confidence: float = 0.95
                    ) -> tuple[float, float]:
    """Interval of a paired difference of proportions that cannot collapse.

    Newcombe's hybrid score interval (method 10, Stat. Med. 1998): Wilson intervals
    ``(l1, u1)``, ``(l2, u2)`` of the two proportions combined with their correlation phi,
    ``[d - sqrt((p1-l1)^2 - 2 phi (p1-l1)(u2-p2) + (u2-p2)^2),
    d + sqrt((u1-p1)^2 - 2 phi (u1-p1)(p2-l2) + (p2-l2)^2)]``. Under deal clustering each
    Wilson interval uses its effective sample size ``n / deff`` (``deff`` = cluster-robust
    over independent-rows variance, 1 when the proportion is 0 or 1) and phi is the
    correlation of the two estimates from their deal-clustered covariance. With one pair
    per deal this is exactly Newcombe's interval from the 2x2 table.
    """
    def wilson(e: Estimate) -> tuple[float, float, float]:
        return (e.value, *share_interval(e, confidence))

    p1, l1, u1 = wilson(variant)
    p2, l2, u2 = wilson(base)
    va, vb = variant.se ** 2, base.se ** 2
    phi = _covariance(variant, base) / math.sqrt(va * vb) if va > 0 and vb > 0 else 0.0
    phi = min(1.0, max(-1.0, phi))
    d = p1 - p2
    lower = d - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)
                              + (u2 - p2) ** 2, 0.0))
    upper = d + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2)
                              + (p2 - l2) ** 2, 0.0))
    return lower, upper


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control); NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.nonzero(~np.isnan(p))[0]
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    adj = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(adj, 1.0)
    return out


def cluster_bootstrap(sums: np.ndarray, stat, resamples: int = BOOTSTRAP_RESAMPLES,
                      seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of ``stat`` over deals.

    ``sums`` holds one row per deal (the deal's sufficient sums); each resample draws G
    deals with replacement (multinomial weights, fixed ``seed``) and ``stat`` maps the
    weighted column sums (a ``(resamples, k)`` array) to one value per resample.
    """
    g = sums.shape[0]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, g, size=(resamples, g))
    w = np.stack([np.bincount(row, minlength=g) for row in draws]).astype(float)
    return stat(w @ sums)

