"""Where an effect lives: one effect across player counts and line-ups, or one per count.

A rule's effect is stated pooled only when it has one sign and a similar size in every
context (player count x line-up). The test: the contexts' paired differences are equal
(a Wald test on their joint deal-clustered covariance: the contexts replay the same deals,
so their estimates are correlated; Hotelling's F with the deals as the sample, exact for
normal deal means), Holm over every such test of a table. When it rejects, or when two
player counts have named effects of opposite signs, the effect is stated per player count
(pooled over line-ups), with its relative size and the sign change in words.

:func:`effects_by_players` is ``effects_by_players.csv``; :func:`equal_test` the test;
:func:`verdict` reads a table's rows for one rule and metric.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fastmach.analysis.hands import check_hands, plain_strategies
from fastmach.analysis.inference import Estimate, holm, scipy_stats
from fastmach.analysis.metrics import EFFECT_METRICS_HANDS
from fastmach.analysis.tables import (
    adjusted_level,
    named,
    paired_contexts,
    paired_interval,
    pooled,
    relative,
)

__all__ = ["POOLED_METRICS", "Verdict", "effects_by_players", "equal_test", "verdict"]

#: Metrics whose effects pool across contexts (a seat spread does not).
POOLED_METRICS = tuple(m for m in EFFECT_METRICS_HANDS if m != "seat_spread")


def equal_test(parts: Sequence[Estimate]) -> float:
    """p-value of "every estimate of ``parts`` has the same true value".

    ``parts`` are estimates of one quantity in different contexts, their influence values
    indexed by deal (contexts on common deals are correlated; a deal missing from a
    context contributes 0 there). The contrasts ``theta_j - theta_1`` get the
    cluster-robust covariance ``S = G / (G - 1) E'E`` (E: their influence values, G deals),
    ``Q = d' S^+ d`` on the q non-degenerate directions, and ``F = (G - q) / (q (G - 1)) Q``
    is referred to F(q, G - q). A contrast without any variance is tested exactly (p = 1
    when it is 0, else 0). NaN with fewer than two parts or too few deals.
    """
    k = len(parts)
    if k < 2:
        return math.nan
    idx = parts[0].infl.index
    for e in parts[1:]:
        idx = idx.union(e.infl.index)
    g = len(idx)
    m = np.column_stack([e.infl.reindex(idx, fill_value=0.0).to_numpy(dtype=float)
                         for e in parts])
    theta = np.array([e.value for e in parts], dtype=float)
    if np.isnan(theta).any():
        return math.nan
    c = np.hstack([-np.ones((k - 1, 1)), np.eye(k - 1)])
    d = c @ theta
    if g < 2:
        return math.nan
    infl = m @ c.T
    s = g / (g - 1) * infl.T @ infl
    w, v = np.linalg.eigh(s)
    keep = w > max(float(w.max()), 0.0) * 1e-10
    q = int(keep.sum())
    proj = v[:, keep].T @ d
    resid = d - v[:, keep] @ proj
    scale = 1e-9 * (1.0 + float(np.abs(theta).max()))
    if float(np.abs(resid).max()) > scale:
        return 0.0  # a difference between contexts that no deal varies
    if q == 0:
        return 1.0
    if g - q < 1:
        return math.nan
    stat = (g - q) / (q * (g - 1)) * float((proj ** 2 / w[keep]).sum())
    return float(scipy_stats().f.sf(stat, q, g - q))


_COLUMNS = ["variant", "baseline", "players", "metric", "diff", "lo", "hi", "rel_diff",
            "rel_lo", "rel_hi", "p_value", "p_adjusted", "lo_adjusted", "hi_adjusted",
            "rel_lo_adjusted", "rel_hi_adjusted", "named", "contexts", "heterogeneity_p",
            "heterogeneity_p_adjusted", "one_effect", "lineup_min_diff", "lineup_max_diff",
            "rel_heterogeneity_p",
            "rel_heterogeneity_p_adjusted", "one_relative", "pairs", "baseline_value",
            "variant_value"]


def effects_by_players(hands: pd.DataFrame, pairs: Sequence[tuple[str, str]],
                       confidence: float = 0.95, alpha: float = 0.05,
                       paired=None) -> pd.DataFrame:
    """Paired rule effects per player count (line-ups pooled) and pooled over everything.

    One row per pair x metric x player count, then the pooled row (``players`` NaN).
    Columns (``effects_by_players.csv``): ``variant, baseline, players, metric, diff, lo,
    hi`` (95%, not adjusted), ``rel_diff, rel_lo, rel_hi`` (variant / baseline - 1,
    delta-method t interval), ``p_value``, ``p_adjusted`` (Holm over the table),
    ``lo_adjusted, hi_adjusted, rel_lo_adjusted, rel_hi_adjusted`` (the intervals
    simultaneous over the table, :func:`~fastmach.analysis.tables.adjusted_level`),
    ``named`` (Holm-adjusted p below ``alpha`` and adjusted interval excluding 0),
    ``contexts`` (player count x line-up contexts pooled), ``heterogeneity_p`` (equal
    effects, :func:`equal_test`: across line-ups on a player count's row; across player
    counts, line-ups pooled, on the pooled row), ``heterogeneity_p_adjusted`` (Holm over
    the table), ``lineup_min_diff, lineup_max_diff`` (a player count's smallest and largest
    line-up difference, point estimates), ``one_effect`` (1: the row may be stated as one effect: no heterogeneity
    after Holm and, on the pooled row, none within any player count either and no two
    player counts with named effects of opposite sign), ``rel_heterogeneity_p`` (on the
    pooled row: equal relative changes across the player counts; an equal difference on
    unequal baselines is no equal relative change), ``rel_heterogeneity_p_adjusted`` (Holm
    over those), ``one_relative`` (1: the pooled relative change may be stated as one),
    ``pairs`` (matched matches),
    ``baseline_value, variant_value``. ``paired``: the
    :func:`~fastmach.analysis.tables.paired_contexts` of ``pairs`` when already computed.
    """
    check_hands(hands, "effects_by_players")
    hands = plain_strategies(hands)
    rows, redo = [], []
    for variant, baseline, ctxs in (paired_contexts(hands, pairs) if paired is None
                                    else paired):
        for name in POOLED_METRICS:
            use = [c for c in ctxs if not math.isnan(c.ev[name].value)
                   and not math.isnan(c.eb[name].value)]
            if not use:
                continue
            counts = sorted({c.players for c in use})
            per_count, per_count_rel = [], []
            for players in counts + [None]:
                cs = [c for c in use if players is None or c.players == players]
                n, pv, pb = pooled([(c.pairs, c.ev[name], c.eb[name]) for c in cs])
                d, rel = pv - pb, relative(pv, pb)
                if players is not None:
                    per_count.append(d)
                    per_count_rel.append(rel)
                # a player count's row: its line-ups; the pooled row: the player counts
                # (their line-ups pooled), or the line-ups when there is one count
                parts = (per_count if players is None and len(per_count) > 1 else
                         [c.ev[name] - c.eb[name] for c in cs])
                lo, hi = paired_interval(name, pv, pb, confidence)
                rlo, rhi = rel.interval(confidence)
                rows.append({"variant": variant, "baseline": baseline,
                             "players": math.nan if players is None else players,
                             "metric": name, "diff": d.value, "lo": lo, "hi": hi,
                             "rel_diff": rel.value, "rel_lo": rlo, "rel_hi": rhi,
                             "p_value": d.p_value(), "contexts": len(cs),
                             "heterogeneity_p": equal_test(parts),
                             "lineup_min_diff": (min(e.value for e in parts)
                                                 if players is not None else math.nan),
                             "lineup_max_diff": (max(e.value for e in parts)
                                                 if players is not None else math.nan),
                             "rel_heterogeneity_p": (equal_test(per_count_rel)
                                                     if players is None else math.nan),
                             "pairs": n, "baseline_value": pb.value,
                             "variant_value": pv.value})
                redo.append((name, pv, pb, rel))
    out = pd.DataFrame(rows, columns=_COLUMNS)
    if out.empty:
        return out
    out["p_adjusted"] = holm(out["p_value"])
    out["heterogeneity_p_adjusted"] = holm(out["heterogeneity_p"])
    level = adjusted_level(out["p_value"], alpha)
    adj = [(paired_interval(name, pv, pb, level), rel.interval(level))
           for name, pv, pb, rel in redo]
    out["lo_adjusted"] = [a[0][0] for a in adj]
    out["hi_adjusted"] = [a[0][1] for a in adj]
    out["rel_lo_adjusted"] = [a[1][0] for a in adj]
    out["rel_hi_adjusted"] = [a[1][1] for a in adj]
    out["named"] = named(out, alpha)
    het = out["heterogeneity_p_adjusted"]
    out["one_effect"] = (het.isna() | (het >= alpha)).astype(int)
    out["rel_heterogeneity_p_adjusted"] = holm(out["rel_heterogeneity_p"])
    rhet = out["rel_heterogeneity_p_adjusted"]
    out["one_relative"] = (rhet.isna() | (rhet >= alpha)).astype(int)
    for (_, _, _), g in out.groupby(["variant", "baseline", "metric"], sort=False):
        per = g[g["players"].notna()]
        live = per[per["named"] == 1]
        if (((live["diff"] > 0).any() and (live["diff"] < 0).any())
                or (out.loc[per.index, "one_effect"] == 0).any()):
            out.loc[g.index[g["players"].isna()], "one_effect"] = 0
    return out


@dataclass(frozen=True)
class Verdict:
    """How a rule's effect on one metric is stated.

    ``pooled``: the pooled row when the effect is stated pooled (one sign, similar size),
    else None; ``rows``: the per player count rows; ``up``, ``down``, ``unclear``: the
    player counts where the named effect is positive, negative, or not told from 0, its
    line-ups alike; ``by_lineup``: the player counts whose line-ups' effects differ (their
    pooled figure is no effect of the rule: none is stated); ``sign_change``: named
    effects of both signs.
    """

    pooled: pd.Series | None
    overall: pd.Series | None
    rows: pd.DataFrame
    up: tuple[int, ...]
    down: tuple[int, ...]
    unclear: tuple[int, ...]
    by_lineup: tuple[int, ...] = ()

    @property
    def sign_change(self) -> bool:
        return bool(self.up) and bool(self.down)

    @property
    def named(self) -> bool:
        """Something to state: the pooled effect, or one player count's, is named."""
        if self.pooled is not None:
            return bool(self.pooled["named"])
        return bool(self.up or self.down or self.by_lineup)


def verdict(t: pd.DataFrame, variant: str, baseline: str, metric: str) -> Verdict:
    """Read :func:`effects_by_players` for one pair and metric: pooled or per player count."""
    g = t[(t["variant"] == variant) & (t["baseline"] == baseline) & (t["metric"] == metric)]
    over = g[g["players"].isna()]
    per = g[g["players"].notna()].sort_values("players")
    overall = over.iloc[0] if len(over) else None
    single = len(per) == 1
    state_pooled = overall is not None and bool(overall["one_effect"]) and not single
    # a count whose line-ups differ keeps its direction only where every line-up's
    # estimate has the named effect's sign (its size is then given by line-up)
    one_way = (per["one_effect"] == 1) | ((per["named"] == 1) & (
        np.sign(per["lineup_min_diff"]) == np.sign(per["diff"]))
        & (np.sign(per["lineup_max_diff"]) == np.sign(per["diff"])))
    up = tuple(int(p) for p in per.loc[one_way & (per["named"] == 1) & (per["diff"] > 0),
                                       "players"])
    down = tuple(int(p) for p in per.loc[one_way & (per["named"] == 1) & (per["diff"] < 0),
                                         "players"])
    unclear = tuple(int(p) for p in per.loc[one_way & (per["named"] == 0), "players"])
    by_lineup = tuple(int(p) for p in per.loc[~one_way, "players"])
    return Verdict(overall if state_pooled else None, overall, per, up, down, unclear,
                   by_lineup)
