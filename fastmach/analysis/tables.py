"""The tables of a study: ``scorecard.csv``, ``seats.csv``, ``effects.csv`` and the others.

Every function is pure (pandas in, pandas out). Common random numbers make the deal
(``seed``, ``replicate``) the unit of replication: the rotations, line-ups and rule
variants of a study replay the same deals, and the hands of a match share one, so every
interval and test resamples deals (cluster-robust errors, :mod:`fastmach.analysis.inference`;
the seat spread's interval is built from the seats' simultaneous intervals) and every
paired difference is formed deal by deal. Intervals are 95% by default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from fastmach.analysis.hands import (ID_COLUMNS as _ID, SKILL_PAIR, check_hands, deal_key,
                                     groups as _groups, hand_metrics, match_cols,
                                     plain_strategies, require, seat_shares,
                                     strategy_share)
from fastmach.analysis.inference import (Estimate, combine, holm, newcombe_paired,
                                         ratio_estimate, share_interval)
from fastmach.analysis.metrics import (BINARY_METRICS, EFFECT_METRICS_HANDS, METRICS,
                                       SCORECARD_METRICS)
from fastmach.analysis.seats import (SEAT_RESAMPLES, deal_excess, detectable_edge, fair_variance,
                                     seat_estimates, seat_intervals, seat_test, spread_bounds)
from fastmach.errors import FastmachError

__all__ = ["scorecard", "seat_table", "effects", "strategy_matrix", "monte_carlo_error",
           "SKILL_PAIR"]


def _metric_estimates(hands: pd.DataFrame) -> dict[str, Estimate]:
    """Deal-clustered estimates of every smooth scorecard metric over a set of hands."""
    deal = deal_key(hands).to_numpy()
    m = hand_metrics(hands)
    one = np.ones(len(hands))
    est = {name: ratio_estimate(m[metric.hand_value], one, deal)   # (the catalogue's)
           for name, metric in METRICS.items() if metric.hand_value}
    mcols = match_cols(hands)
    per_match = (hands[mcols].assign(_d=deal).groupby(mcols, sort=False)["_d"]
                 .agg(["size", "first"]))
    est["hands_per_game"] = ratio_estimate(per_match["size"].to_numpy(dtype=float),
                                           np.ones(len(per_match)),
                                           per_match["first"].to_numpy())
    return est



def bounded_interval(e: Estimate, low: float, high: float, confidence: float = 0.95
                     ) -> tuple[float, float]:
    """Score interval of a mean of values in ``[low, high]`` that cannot collapse.

    The mean is mapped onto [0, 1] and given :func:`share_interval` (Wilson at the
    effective sample size; a value's variance is at most that of a 0/1 value of the same
    mean, so the interval is conservative), then mapped back: a skill gap of +100 pp in
    every hand reads ``+100.0 [+9x.x, +100.0]``, never a point.
    """
    if math.isnan(e.value):
        return math.nan, math.nan
    width = high - low
    u = Estimate((e.value - low) / width, e.infl / width, e.n)
    a, b = share_interval(u, confidence)
    return low + width * a, low + width * b


def scorecard(games: pd.DataFrame, hands: pd.DataFrame, by: Sequence[str] = ("cell",),
              confidence: float = 0.95) -> pd.DataFrame:
    """One row per cell (or per group ``by``, e.g. ``("rules", "players")``): the scorecard.

    Columns (``scorecard.csv``): ``cell, rules, players, lineup`` (with ``by="cell"``; else
    the group keys), ``games`` (matches), ``hands``, ``deals``; then for each metric of
    :data:`SCORECARD_METRICS` the value and its 95% deal-clustered interval ``*_lo, *_hi``:
    ``turns_per_hand`` (total turns over total hands), ``hands_per_game``,
    ``stock_out_per_hand`` and ``blocked`` (Wilson at the effective sample size,
    :func:`share_interval`), ``first_seat_edge``, ``seat_spread`` (largest minus smallest
    seat win share, biased upwards; its interval comes from the seats' simultaneous
    intervals, :func:`_spread_bounds`: conservative, and it always contains the value),
    ``skill_gap`` (NaN unless expert and beginner both sit; a score interval on [-1, 1],
    :func:`bounded_interval`, so that a gap of 100 pp is never a point). The other
    intervals are t intervals on cluster-robust errors. Every interval is 95%, not adjusted
    for multiplicity.
    Counts of games come from ``games``; every other figure from ``hands``.
    """
    check_hands(hands, "scorecard")
    hands = plain_strategies(hands)
    require(games, list(by) + ["replicate"], "scorecard")
    keys = list(by)
    game_counts = games.groupby(keys, sort=True).size()
    rows = []
    for key, g in _groups(hands, keys + ([] if "players" in keys else ["players"])):
        row = dict(zip(keys + ["players"], key))
        if keys == ["cell"]:
            row.update({c: g[c].iloc[0] for c in _ID[1:]})
        gk = key[:len(keys)]
        row["games"] = int(game_counts.get(gk if len(gk) > 1 else gk[0], 0))
        row["hands"] = len(g)
        est = _metric_estimates(g)
        row["deals"] = est["turns_per_hand"].deals
        for name in SCORECARD_METRICS:
            if name == "seat_spread":
                share, se, _, deals, _ = seat_estimates(g)
                value = float(share.max() - share.min())
                lo, hi = spread_bounds(share, se, deals, 1 - confidence)
            else:
                e = est[name]
                value = e.value
                lo, hi = (share_interval(e, confidence) if name in BINARY_METRICS
                          else bounded_interval(e, -1.0, 1.0, confidence)
                          if name == "skill_gap" else e.interval(confidence))
            row.update({name: value, f"{name}_lo": float(lo), f"{name}_hi": float(hi)})
        rows.append(row)
    out = pd.DataFrame(rows)
    if keys == ["cell"] and not out.empty:
        out = out[_ID + [c for c in out.columns if c not in _ID]]
    return out.reset_index(drop=True)


def seat_table(hands: pd.DataFrame, by: Sequence[str] = ("cell",), alpha: float = 0.05,
               resamples: int = SEAT_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """Win share of each seat per hand, seat 0 being the hand's first player.

    One row per group (``by``; cells by default) and seat (``seats.csv``): ``cell, rules,
    players, lineup`` (or the group keys), ``seat``, ``hands``, ``deals``, ``win_share``
    (shared ties split, hands nobody won count 0 for everyone), ``fair`` (the mean share a
    seat would get if seats were equal: total share per hand / players), ``se``
    (deal-clustered, of ``win_share - fair``), ``p_value`` (deal-level randomisation test of
    equal seats, :func:`fastmach.analysis.seats.seat_test`), ``p_adjusted`` (step-down max-T
    over every row of the table: family-wise error control at any number of deals, seats
    rotated or not), ``lo, hi`` (score intervals simultaneous with the test, inside [0, 1]),
    ``testable`` (0 when the group has too few deals with a winner for any outcome to reach
    ``alpha``), ``detectable`` (the smallest edge over ``fair`` found with 80% power) and
    ``named`` (1 when ``p_adjusted < alpha``: a seat is named only then).
    """
    check_hands(hands, "seat_table")
    keys = list(by)
    deal_all = deal_key(hands).to_numpy()
    heads, parts, excess = [], [], []
    for key, g in _groups(hands.assign(_deal=deal_all),
                          keys + ([] if "players" in keys else ["players"])):
        players = int(g["players"].iloc[0])
        share, se, _, deals, fair = seat_estimates(g)
        universe = np.unique(deal_all[hands["players"].to_numpy() == players])
        rel = seat_shares(g, players)
        d = deal_excess(rel, g["_deal"].to_numpy(), universe)
        fvar = fair_variance(rel, g["_deal"].to_numpy())
        head = dict(zip(keys + ["players"], key))
        if keys == ["cell"]:
            head.update({c: g[c].iloc[0] for c in _ID[1:]})
        live = int((np.abs(d).sum(axis=1) > 0).sum())
        heads.append(head)
        parts.append((share, se, deals, fair, len(g), players, live, fvar))
        excess.append(d)
    cols = _ID + ["seat", "hands", "deals", "win_share", "fair", "se", "p_value",
                  "p_adjusted", "lo", "hi", "testable", "detectable", "named"]
    if not heads:
        return pd.DataFrame(columns=cols)
    test = seat_test(excess, alpha, resamples, seed)
    rows = []
    for i, (head, (share, se, deals, fair, n, players, live, fvar)) in enumerate(zip(heads, parts)):
        crit = float(test["critical"][i][0])
        sd = test["sd"][i]
        lo, hi = seat_intervals(share, fair, sd, n, crit, fvar)
        testable = int(live > 1 and (live - 1) * math.log(players) >= math.log(1 / alpha))
        edge = detectable_edge(float(sd[0]), n, crit)
        for s in range(len(share)):
            rows.append(head | {"seat": s, "hands": n, "deals": deals,
                                "win_share": share[s], "fair": fair, "se": se[s],
                                "p_value": test["p_value"][i][s],
                                "p_adjusted": test["p_adjusted"][i][s],
                                "lo": lo[s], "hi": hi[s], "testable": testable,
                                "detectable": edge})
    out = pd.DataFrame(rows)
    out["named"] = ((out["p_adjusted"] < alpha) & (out["testable"] == 1)).astype(int)
    if keys == ["cell"]:
        out = out[_ID + [c for c in out.columns if c not in _ID]]
    return out.reset_index(drop=True)


_EFFECT_COLUMNS = ["variant", "baseline", "players", "lineup", "metric", "diff", "lo", "hi",
                   "rel_diff", "p_value", "p_adjusted", "pairs", "baseline_value",
                   "variant_value"]


def _matched(hv: pd.DataFrame, hb: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Keep the hands of the matches both cells played on the same deal and rotation."""
    keys = [c for c in ("seed", "replicate", "rotation") if c in hv.columns and c in hb.columns]
    mv = hv[keys].drop_duplicates()
    mb = hb[keys].drop_duplicates()
    common = mv.merge(mb, on=keys)
    return hv.merge(common, on=keys), hb.merge(common, on=keys), len(common)


#: Smallest p-value reported for a seat-spread difference (the bisection's floor).
SPREAD_P_FLOOR = 1e-12


def _spread_interval(hv, hb, q: float):
    """The interval of :func:`_spread_diff` at confidence ``q``."""
    return _spread_diff(hv, hb, q)[1:3]


def _spread_diff(hv: pd.DataFrame, hb: pd.DataFrame, confidence: float):
    """Seat-spread difference, variant minus baseline, with a conservative interval.

    A max minus a min is not smooth and no simple paired interval of a difference of two
    spreads is valid (a bootstrap percentile interval of the biased statistic can exclude
    its own estimate). So each cell's spread gets :func:`_spread_bounds` at family level
    ``alpha / 2`` (Bonferroni over the two cells) and the difference ``[lo_v - hi_b, hi_v -
    lo_b]``: it covers the true difference with probability at least ``confidence`` and
    contains the estimate, but ignores the pairing of the deals, so it is conservative
    (wider than the data need). The p-value is the smallest alpha at which that interval
    excludes 0 (bisection; at least :data:`SPREAD_P_FLOOR`), as conservative as the
    interval. Returns ``(diff, lo, hi, p_value, baseline spread)``.
    """
    sv, sev, _, gv, _ = seat_estimates(hv)
    sb, seb, _, gb, _ = seat_estimates(hb)
    base = float(sb.max() - sb.min())
    value = float(sv.max() - sv.min()) - base

    def bounds(alpha: float) -> tuple[float, float]:
        lv, uv = spread_bounds(sv, sev, gv, alpha / 2)
        lb, ub = spread_bounds(sb, seb, gb, alpha / 2)
        return lv - ub, uv - lb

    lo, hi = bounds(1 - confidence)
    if math.isnan(lo) or math.isnan(hi):
        return value, math.nan, math.nan, math.nan, base

    def excludes_zero(log_alpha: float) -> bool:
        a, b = bounds(math.exp(log_alpha))
        return a > 0 or b < 0

    low, high = math.log(SPREAD_P_FLOOR), 0.0
    if not excludes_zero(high):
        return value, lo, hi, 1.0, base
    if excludes_zero(low):
        return value, lo, hi, SPREAD_P_FLOOR, base
    for _ in range(30):  # excludes_zero(high) holds, excludes_zero(low) does not
        mid = 0.5 * (low + high)
        low, high = (low, mid) if excludes_zero(mid) else (mid, high)
    return value, lo, hi, math.exp(high), base


@dataclass
class Context:
    """One player count x line-up of a pair: the matched hands and their estimates."""

    players: int
    lineup: str
    pairs: int            # matched matches
    hv: pd.DataFrame      # the variant's matched hands
    hb: pd.DataFrame      # the baseline's
    ev: dict[str, Estimate]
    eb: dict[str, Estimate]


def paired_contexts(hands: pd.DataFrame, pairs: Sequence[tuple[str, str]]):
    """``(variant, baseline, [Context, ...])`` per pair: the cells of the pair matched by
    ``players`` and ``lineup``, their matches deal by deal (same ``seed``, ``replicate``
    and ``rotation``), with the deal-clustered estimates of every metric."""
    by_rules = dict(tuple(hands.groupby("rules", sort=False)))
    for variant, baseline in pairs:
        for r in (variant, baseline):
            if r not in by_rules:
                raise FastmachError(f"effects: no hand of rules {r!r} in the results")
        hv_all, hb_all = by_rules[variant], by_rules[baseline]
        out = []
        for (players, lineup), hv in hv_all.groupby(["players", "lineup"], sort=True):
            hb = hb_all[(hb_all["players"] == players) & (hb_all["lineup"] == lineup)]
            if hb.empty:
                continue
            hv, hb, n = _matched(hv, hb)
            if n == 0:
                continue
            out.append(Context(int(players), str(lineup), n, hv, hb, _metric_estimates(hv),
                               _metric_estimates(hb)))
        yield variant, baseline, out


def paired_interval(name: str, ev: Estimate, eb: Estimate, confidence: float
                    ) -> tuple[float, float]:
    """Interval of the paired difference ``ev - eb`` of metric ``name``: Newcombe's hybrid
    score interval for a share of hands, else the t interval on the cluster-robust error."""
    if name in BINARY_METRICS:
        return newcombe_paired(ev, eb, confidence)
    return (ev - eb).interval(confidence)


def relative(ev: Estimate, eb: Estimate) -> Estimate:
    """``ev / eb - 1`` with its delta-method influence values (NaN when ``eb`` is 0)."""
    if not eb.value or math.isnan(eb.value):
        return Estimate(math.nan, pd.Series(dtype=float))
    r = ev.value / eb.value
    return Estimate(r - 1.0, combine([(1.0 / eb.value, ev), (-r / eb.value, eb)]).infl)


def pooled(parts: Sequence[tuple[int, Estimate, Estimate]]) -> tuple[int, Estimate, Estimate]:
    """Contexts ``(matched matches, variant, baseline)`` pooled, weighted by their matches."""
    tot = sum(n for n, _, _ in parts)
    pv = combine([(n / tot, v) for n, v, _ in parts])
    pb = combine([(n / tot, b) for n, _, b in parts])
    pv.n = sum(v.n for _, v, _ in parts)
    pb.n = sum(b.n for _, _, b in parts)
    return tot, pv, pb


def _effect_row(name: str, ev: Estimate, eb: Estimate, confidence: float) -> dict:
    d = ev - eb
    lo, hi = paired_interval(name, ev, eb, confidence)
    return {"metric": name, "diff": d.value, "lo": lo, "hi": hi, "p_value": d.p_value(),
            "baseline_value": eb.value, "variant_value": ev.value,
            "rel_diff": d.value / eb.value if eb.value else math.nan}


def adjusted_level(p_values, alpha: float = 0.05) -> float:
    """Confidence of intervals simultaneous over a family: ``1 - alpha / m`` (Bonferroni,
    m = the tests with a p-value). An effect whose Holm-adjusted p is below ``alpha`` and
    whose interval at this level excludes 0 is named; both hold at once only then."""
    m = int(np.isfinite(np.asarray(p_values, dtype=float)).sum())
    return 1.0 - alpha / max(m, 1)


def effects(games: pd.DataFrame, hands: pd.DataFrame, pairs: Sequence[tuple[str, str]],
            confidence: float = 0.95, alpha: float = 0.05, paired=None) -> pd.DataFrame:
    """Paired rule effects, variant minus baseline, per player count x line-up and pooled.

    ``pairs`` lists ``(variant_rules, baseline_rules)`` canonical rules strings; the cells
    of a pair are matched by ``players`` and ``lineup``, and their matches deal by deal
    (same ``seed``, ``replicate`` and ``rotation``). One row per pair x players x lineup x
    metric (:data:`EFFECT_METRICS_HANDS`, where defined), then a pooled row per pair x
    metric with ``players`` and ``lineup`` empty (NaN): the contexts weighted by their
    matched matches. Columns (``effects.csv``): ``variant, baseline, players, lineup,
    metric, diff, lo, hi`` (95%, not adjusted for multiplicity, deal-clustered: t interval
    on the cluster-robust error;
    Newcombe's hybrid score interval for the shares of hands ``stock_out_per_hand`` and
    ``blocked``; for ``seat_spread`` a conservative interval from the two cells' seat
    intervals that ignores the pairing, :func:`_spread_diff`), ``rel_diff`` (diff /
    baseline value),
    ``p_value``, ``p_adjusted`` (Holm over every row of the table), ``pairs`` (matched
    matches), ``baseline_value, variant_value``, ``lo_adjusted, hi_adjusted`` (the same
    interval simultaneous over every row, :func:`adjusted_level`) and ``named`` (1 when
    ``p_adjusted < alpha`` and the adjusted interval excludes 0). ``paired``: the
    :func:`paired_contexts` of ``pairs`` when already computed.
    """
    check_hands(hands, "effects")
    hands = plain_strategies(hands)
    require(games, ("rules", "players", "lineup"), "effects")
    rows: list[dict] = []
    redo: list[Callable[[float], Any]] = []
    for variant, baseline, ctxs in (paired_contexts(hands, pairs) if paired is None
                                    else paired):
        contexts = []
        for c in ctxs:
            contexts.append((c.pairs, c.ev, c.eb))
            head = {"variant": variant, "baseline": baseline, "players": c.players,
                    "lineup": c.lineup, "pairs": c.pairs}
            for name in EFFECT_METRICS_HANDS:
                if name == "seat_spread":
                    d, lo, hi, pv, b = _spread_diff(c.hv, c.hb, confidence)
                    rows.append(head | {"metric": name, "diff": d, "lo": lo, "hi": hi,
                                        "p_value": pv, "baseline_value": b,
                                        "variant_value": b + d,
                                        "rel_diff": d / b if b else math.nan})
                    redo.append(partial(_spread_interval, c.hv, c.hb))
                elif not math.isnan(c.ev[name].value) and not math.isnan(c.eb[name].value):
                    ev, eb = c.ev[name], c.eb[name]
                    rows.append(head | _effect_row(name, ev, eb, confidence))
                    redo.append(partial(paired_interval, name, ev, eb))
        for name in EFFECT_METRICS_HANDS:
            if name == "seat_spread":
                continue  # a spread does not pool across player counts
            use = [(n, ev[name], eb[name]) for n, ev, eb in contexts
                   if not math.isnan(ev[name].value) and not math.isnan(eb[name].value)]
            if not use:
                continue
            tot, pv, pb = pooled(use)
            rows.append({"variant": variant, "baseline": baseline, "players": math.nan,
                         "lineup": math.nan, "pairs": tot}
                        | _effect_row(name, pv, pb, confidence))
            redo.append(partial(paired_interval, name, pv, pb))
    out = pd.DataFrame(rows, columns=_EFFECT_COLUMNS)
    out["p_adjusted"] = holm(out["p_value"])
    level = adjusted_level(out["p_value"], alpha)
    adj = [f(level) for f in redo]
    out["lo_adjusted"] = [a for a, _ in adj] if adj else []
    out["hi_adjusted"] = [b for _, b in adj] if adj else []
    out["named"] = named(out, alpha)
    return out


def named(t: pd.DataFrame, alpha: float = 0.05) -> np.ndarray:
    """1 where ``p_adjusted < alpha`` and ``[lo_adjusted, hi_adjusted]`` excludes 0."""
    if t.empty:
        return np.zeros(0, dtype=int)
    return ((t["p_adjusted"] < alpha)
            & ((t["lo_adjusted"] > 0) | (t["hi_adjusted"] < 0))).astype(int).to_numpy()


def strategy_matrix(hands: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per-seat win share of a strategy against another, per player count.

    One row per player count and ordered pair, over the hands seating both: ``players,
    strategy, opponent, hands, win_share`` (mean win share of the seats ``strategy``
    holds, per hand), ``lo, hi`` (95%, not adjusted: Wilson at the deal-clustered effective
    sample size, inside [0, 1] and never a point) and ``fair`` (total share per hand /
    players at that player count).
    """
    check_hands(hands, "strategy_matrix")
    hands = plain_strategies(hands)
    rows = []
    for players, g in hands.groupby("players", sort=True):
        cols = [f"strategy_{i}" for i in range(int(players))]
        if not all(c in g.columns for c in cols):
            continue
        st = g[cols].astype(object).to_numpy()
        names = sorted({x for x in st.ravel() if isinstance(x, str)})
        deal = deal_key(g).to_numpy()
        total = g[[f"win_share_{i}" for i in range(int(players))]].to_numpy(float).sum(1)
        for a in names:
            sa = strategy_share(g, int(players), a)
            for b in names:
                if a == b:
                    continue
                both = ((st == a).any(axis=1) & (st == b).any(axis=1))
                if not both.any():
                    continue
                e = ratio_estimate(sa[both], np.ones(both.sum()), deal[both])
                lo, hi = share_interval(e, confidence)
                rows.append({"players": int(players), "strategy": a, "opponent": b,
                             "hands": int(both.sum()), "win_share": e.value,
                             "lo": lo, "hi": hi,
                             "fair": float(total[both].mean()) / int(players)})
    cols = ["players", "strategy", "opponent", "hands", "win_share", "lo", "hi", "fair"]
    return pd.DataFrame(rows, columns=cols)


def monte_carlo_error(card: pd.DataFrame, metrics: Sequence[str] = (
        "turns_per_hand", "stock_out_per_hand", "first_seat_edge")) -> pd.DataFrame:
    """Monte Carlo error of each scorecard figure and the deals that would halve it.

    ``half_width`` is half the 95% interval; halving it takes four times the deals (the
    error falls as one over the square root of the deals): ``deals_to_halve = 4 * deals``.
    """
    rows = []
    for _, r in card.iterrows():
        for m in metrics:
            if m not in card.columns or pd.isna(r[m]):
                continue
            rows.append({k: r[k] for k in card.columns[:card.columns.get_loc("games")]}
                        | {"metric": m, "value": r[m],
                           "half_width": (r[f"{m}_hi"] - r[f"{m}_lo"]) / 2,
                           "deals": int(r["deals"]), "deals_to_halve": 4 * int(r["deals"])})
    return pd.DataFrame(rows)
