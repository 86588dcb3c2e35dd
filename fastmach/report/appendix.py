"""The appendix of a report: every table, for whoever checks the first page.

Each table is one line-up per row (no two line-ups combined); intervals are the adjusted
ones where a test decides what the first page says. Numbers are written by
:mod:`fastmach.analysis.metrics`; headings come from its catalogue.
"""
from __future__ import annotations

import math

import pandas as pd

from fastmach.analysis import metrics
from fastmach.analysis.metrics import METRICS, WORDED_METRICS
from fastmach.report.analysis import Analysis, in_order
from fastmach.report.table import Table

__all__ = ["tables", "relative_text", "EFFECT_METRICS"]

_num = metrics.number
_p = metrics.p_text

#: Metrics of the appendix's table of rule effects (effects.csv holds them all): those the
#: first layer words (the catalogue's).
EFFECT_METRICS = WORDED_METRICS


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def relative_text(metric: str, r) -> str:
    """``about -43%``: the relative change of a count whose base is well away from 0 and
    whose change is detected (a share, a base near 0 or a change too close to call gets
    none: its ratio would be meaningless or unbounded)."""
    base = r.get("baseline_value")
    rel_base = METRICS[metric].rel_base if metric in METRICS else 0.0
    if not rel_base or _nan(base) or float(base) < rel_base:
        return ""
    lo, hi = r.get("lo_adjusted"), r.get("hi_adjusted")
    if _nan(lo) or _nan(hi) or not (lo > 0 or hi < 0):
        return ""
    rel = float(r["variant_value"]) / float(base) - 1
    return f"about {rel:+.0%}" if math.isfinite(rel) else ""


def _scorecard(a: Analysis) -> pd.DataFrame:
    f = in_order(a, a.card, then=("players", "lineup"))

    def col(m):
        meta = METRICS[m]
        return [_num(r[m], r[f"{m}_lo"], r[f"{m}_hi"], meta.scale, meta.digits,
                     signed=m in ("first_seat_edge", "skill_gap")) for _, r in f.iterrows()]
    out = pd.DataFrame({"rules": [a.labels.get(r, r) for r in f["rules"]]})
    for k in a.params:
        out[k] = [f"{x:g}" for x in f[k]]
    out = out.assign(**{"players": f["players"].to_numpy(),
                        "line-up": f["lineup"].astype(str).to_numpy(),
                        "matches": f["games"].to_numpy(), "hands": f["hands"].to_numpy()})
    for m in ("turns_per_hand", "hands_per_game", "stock_out_per_hand", "blocked"):
        out[METRICS[m].column] = col(m)
    out[METRICS["first_seat_edge"].column.replace(")", ", adjusted)")] = [
        _num(r["first_seat_edge"], r["first_seat_edge_lo_adjusted"],
             r["first_seat_edge_hi_adjusted"], 100, signed=True) for _, r in f.iterrows()]
    out[METRICS["seat_spread"].column] = col("seat_spread")
    if f["skill_gap"].notna().any():
        out[METRICS["skill_gap"].column] = col("skill_gap")
    return out


def _effects(a: Analysis) -> pd.DataFrame:
    t = a.effects[a.effects["metric"].isin(EFFECT_METRICS) & a.effects["players"].notna()]
    order = {m: i for i, m in enumerate(EFFECT_METRICS)}
    t = t.assign(_m=t["metric"].map(order)).sort_values(["_m", "players", "lineup"],
                                                        kind="stable")
    t = in_order(a, t, rules="variant", then=())

    def diff(r):
        m = METRICS[r["metric"]]
        return _num(r["diff"], r["lo_adjusted"], r["hi_adjusted"], m.scale, m.digits,
                    signed=True)

    def values(r):
        m = METRICS[r["metric"]]
        return (f"{_num(r['baseline_value'], scale=m.scale, digits=m.digits)} -> "
                f"{_num(r['variant_value'], scale=m.scale, digits=m.digits)}")
    return pd.DataFrame({
        "rule": [a.labels.get(v, v) for v in t["variant"]],
        "against": [a.labels.get(b, b) for b in t["baseline"]],
        "players": [str(int(p)) for p in t["players"]],
        "line-up": t["lineup"].astype(str).to_numpy(),
        "figure": [METRICS[m].label for m in t["metric"]],
        "base -> variant": [values(r) for _, r in t.iterrows()],
        "difference (adjusted interval)": [diff(r) for _, r in t.iterrows()],
        "relative": [relative_text(r["metric"], r) for _, r in t.iterrows()],
        "adjusted p (Holm)": [_p(x) for x in t["p_adjusted"]],
        "detected": ["yes" if x and (lo > 0 or hi < 0) else "" for x, lo, hi in
                     zip(t["named"], t["lo_adjusted"], t["hi_adjusted"])]})


def _lineup_tests(a: Analysis) -> pd.DataFrame:
    """Whether each rule's effect differs between line-ups, per player count: the
    heterogeneity test of effects_by_players.csv and the range of the line-ups' effects
    (no combined figure)."""
    t = a.by_players[a.by_players["players"].notna()
                     & a.by_players["metric"].isin(EFFECT_METRICS)
                     & (a.by_players["contexts"] > 1)]
    t = in_order(a, t, rules="variant", then=("metric", "players"))

    def span(r):
        m = METRICS[r["metric"]]
        lo, hi = sorted((r["lineup_min_diff"], r["lineup_max_diff"]))
        return (f"{_num(lo, scale=m.scale, digits=m.digits, signed=True)} to "
                f"{_num(hi, scale=m.scale, digits=m.digits, signed=True, unit=m.diff_unit)}")
    return pd.DataFrame({
        "rule": [a.labels.get(v, v) for v in t["variant"]],
        "players": [str(int(p)) for p in t["players"]],
        "figure": [METRICS[m].label for m in t["metric"]],
        "line-ups": t["contexts"].astype(int).to_numpy(),
        "effect by line-up, smallest to largest": [span(r) for _, r in t.iterrows()],
        "differs between line-ups: adjusted p (Holm)": [
            _p(x) for x in t["heterogeneity_p_adjusted"]]})


def _seats(a: Analysis) -> pd.DataFrame:
    s = in_order(a, a.seats[a.seats["named"] == 1], then=("players", "lineup", "seat"))
    return pd.DataFrame({
        "rules": [a.labels.get(r, r) for r in s["rules"]], "players": s["players"],
        "line-up": s["lineup"].astype(str).to_numpy(), "seat": s["seat"] + 1,
        "win share (% of hands, adjusted interval)": [
            _num(r["win_share"], r["lo"], r["hi"], 100) for _, r in s.iterrows()],
        "fair at this player count (%)": [_num(x, scale=100) for x in s["fair"]],
        "adjusted p (max-T)": [_p(x) for x in s["p_adjusted"]]})


def _mc(a: Analysis) -> pd.DataFrame:
    m = in_order(a, a.mc, then=("players", "lineup", "metric"))
    unit = {k: ("pp per hand" if k == "first_seat_edge" else
                "pp of hands" if METRICS[k].unit == "share" else METRICS[k].column
                .split("(")[0].strip()) for k in m["metric"].unique()}
    return pd.DataFrame({
        "rules": [a.labels.get(r, r) for r in m["rules"]], "players": m["players"],
        "line-up": m["lineup"].astype(str).to_numpy(), "figure": m["metric"],
        "value": [_num(v, scale=METRICS[k].scale, digits=2, unit=unit[k])
                  for v, k in zip(m["value"], m["metric"])],
        "Monte Carlo error (+-, 95%)": [_num(h, scale=METRICS[k].scale, digits=2)
                                         for h, k in zip(m["half_width"], m["metric"])],
        "deals": m["deals"], "deals to halve it": m["deals_to_halve"]})


def tables(a: Analysis) -> list[Table]:
    """The appendix's tables, in reading order (an empty one is left out)."""
    kinds = ", ".join(f"`{k.lineup}`" for k in a.kinds)
    out = [
        Table("Scorecard by line-up", _scorecard(a),
              "One row per rules variant, player count and line-up (scorecard.csv, with a "
              "column per swept parameter). 95% deal-clustered intervals, not adjusted, "
              "except the first-seat edge: its interval is the seat test's simultaneous "
              "one (max-T). Ended blocked: hands nobody could or did add a card to for a "
              "round (stock-out endings are counted under the stock only). Seat spread: "
              "largest minus smallest seat win share, its interval from the seats' "
              "Bonferroni intervals (conservative).", "tab-scorecard"),
        Table("Rule effects by line-up", _effects(a),
              "Paired differences variant minus base rule set, the same deals and line-up, "
              "per player count (effects.csv): intervals simultaneous over every row of "
              "effects.csv (Bonferroni), p-values adjusted by Holm over the same rows. "
              "Detected: adjusted p below 0.05 and the adjusted interval excludes 0; the "
              "first page states only these. Relative: only for a detected change of a "
              "count whose base is at least 5 turns or 1.5 hands.", "tab-effects"),
        Table("Does a rule's effect depend on the line-up?", _lineup_tests(a),
              "Per rule, player count and figure: the range of the line-ups' effects and "
              "the heterogeneity test of their equality (effects_by_players.csv, Holm over "
              "that table). The report quotes no figure combining line-ups.",
              "tab-lineups"),
        Table("Named seats", _seats(a),
              "Seats the deal-level randomisation test names (adjusted p below 0.05, "
              "step-down max-T over every seat of every cell of seats.csv), with intervals "
              "simultaneous with the test; one line-up per row.", "tab-seats"),
        Table("How sure are we", _mc(a),
              f"Monte Carlo error of the first page's line-ups ({kinds}): half the 95% "
              "deal-clustered interval of each figure. It falls as one over the square root "
              "of the deals, so halving it takes four times the deals.", "tab-mc"),
        Table("Rule names", pd.DataFrame({"name": list(a.labels.values()),
                                          "rules": list(a.labels)}),
              "Each variant's short name in the tables and figures and its full rules "
              "string.", "tab-names"),
    ]
    return [t for t in out if len(t.frame)]
