"""Seat win shares relative to the hand's first player: estimates and intervals."""

from __future__ import annotations

import math

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


