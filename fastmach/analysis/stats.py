"""Statistics of a study's hand and game rows (pandas in, pandas out).

Every function is pure. Common random numbers make the deal (``seed``, ``replicate``) the
unit of replication: the rotations, line-ups and rule variants of a study replay the same
deals, and the hands of a match share one, so every interval and test here resamples
deals (cluster-robust errors; the seat spread's interval is built from the seats'
simultaneous intervals) and every paired difference is formed deal by deal. Intervals
are 95% by default. Nothing here needs scipy: the Student t quantile and tail are
computed with :mod:`math` (the tests check them against scipy).

Public functions
----------------
- :func:`scorecard`, :func:`seat_table`, :func:`effects`, :func:`write_tables` -- the
  tables ``scorecard.csv``, ``seats.csv``, ``effects.csv`` (what the report and
  ``fastmach compare`` use); :func:`strategy_matrix`, :func:`monte_carlo_error`.
- :func:`ratio_estimate`, :class:`Estimate`, :func:`combine` -- means, shares and ratios
  (turns per hand over matches of unequal length) with cluster-robust errors;
  :func:`newcombe_paired` (paired proportions), :func:`holm` (family-wise control),
  :func:`cluster_bootstrap`; :func:`wilson_interval`, :func:`t_quantile`.
- :func:`parse_rules`, :func:`is_base_rules`, :func:`rule_differences`,
  :func:`default_pairs` -- which single rule a cell changes against its baseline.
"""

from __future__ import annotations

import dataclasses
import math
import re
from functools import lru_cache
from pathlib import Path
from statistics import NormalDist
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from fastmach.errors import FastmachError
from fastmach.rules import Rules

__all__ = [
    "RULE_PARAMETERS", "wilson_interval", "t_quantile", "parse_rules", "is_base_rules",
    "rule_differences", "Estimate", "ratio_estimate", "combine", "newcombe_paired", "holm",
    "cluster_bootstrap", "share_interval", "deal_key", "hand_metrics", "scorecard", "seat_table", "effects",
    "default_pairs", "strategy_matrix", "monte_carlo_error", "write_tables",
]

#: Rules parameters stored as columns of the result table: every field of ``Rules`` but the
#: player count (a column of its own) and the preset name.
RULE_PARAMETERS = tuple(f.name for f in dataclasses.fields(Rules)
                        if f.name not in ("players", "preset"))


# --------------------------------------------------------------------------- building blocks

def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise FastmachError(f"confidence must lie in (0, 1), got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


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


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def _t_sf(t: float, df: float) -> float:
    """Upper tail P(T > t) of Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t distribution (``p`` in (0, 1), ``df`` > 0), by bisection."""
    if not 0.0 < p < 1.0:
        raise FastmachError(f"t_quantile: p must lie in (0, 1), got {p!r}")
    if df <= 0:
        raise FastmachError(f"t_quantile: df must be positive, got {df!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    if df > 1e7:
        return NormalDist().inv_cdf(p)
    target = 1.0 - p
    lo, hi = 0.0, 1.0
    while _t_sf(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_sf(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------- helpers

def _require(df: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise FastmachError(f"{what}: result table lacks column(s) {', '.join(missing)}")


# --------------------------------------------------------------------------- rule differences

_RULES_RE = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:\((.*)\))?\s*$")


def parse_rules(text: str) -> tuple[str, dict[str, str]]:
    """Split a canonical rules string ``preset(key=value,...)`` into preset and overrides.

    >>> parse_rules("classic(ace=low-only,opening_points=36)")
    ('classic', {'ace': 'low-only', 'opening_points': '36'})
    """
    m = _RULES_RE.match(str(text))
    if not m:
        raise FastmachError(f"cannot parse rules string {text!r}: expected preset(key=value,...)")
    preset, body = m.group(1), m.group(2)
    overrides: dict[str, str] = {}
    if body:
        for item in body.split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise FastmachError(f"cannot parse rules string {text!r}: "
                                    f"override {item.strip()!r} lacks '='")
            k, v = item.split("=", 1)
            overrides[k.strip()] = v.strip()
    return preset, overrides


#: Overrides that only size the deal (three decks, 15 cards for 5-6 players): a preset
#: with only these overrides still counts as the bare tradition (:func:`is_base_rules`).
DEAL_PARAMETERS = ("decks", "hand_size")


def is_base_rules(rules: str) -> bool:
    """True for a bare preset, or a preset whose only overrides size the deal."""
    return set(parse_rules(rules)[1]) <= set(DEAL_PARAMETERS)


def _context(cell: str, rules: str) -> str:
    """The part of a cell string that is not its rules (players, line-up, rotation)."""
    return cell[len(rules):] if cell.startswith(rules) else cell.split("|", 1)[-1]


def _parent(ctx: str, rules: str, cells: dict) -> str | None:
    """Rules string of the nearest baseline of ``rules`` in context ``ctx``.

    Among the cells of the same context and preset whose overrides are a strict subset of
    this cell's overrides, the one with the most overrides (``classic(decks=3)`` is the
    baseline of ``classic(ace=low-only,decks=3)``; ``classic`` that of
    ``classic(ace=low-only)``).
    """
    preset, over = parse_rules(rules)
    items = set(over.items())
    best, best_n = None, -1
    for (c, other) in cells:
        if c != ctx or other == rules:
            continue
        p, o = parse_rules(other)
        if p == preset and set(o.items()) < items and len(o) > best_n:
            best, best_n = other, len(o)
    return best


def rule_differences(df: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """Pair every cell with its baseline cell and name what differs.

    The baseline of a cell is the cell with the same players, line-up and rotation whose
    rules string is ``baseline`` if given; else the nearest cell of the same preset whose
    overrides are a strict subset of this cell's (usually the bare preset: ``classic`` for
    ``classic(ace=low-only)``; ``classic(decks=3,hand_size=15)`` for
    ``classic(ace=low-only,decks=3,hand_size=15)``). Cells without a baseline are left out.
    Columns: ``cell, baseline_cell, rules, baseline_rules, preset, players, lineup,
    n_changes, change`` (``ace=low-only``, or the rules string when presets differ),
    ``label`` (``ace=low-only vs classic``), ``pool`` (the label with the baseline named by
    its preset only, so that contexts with extra common overrides pool together) and
    ``changed_params`` (every parameter column that differs, ``name: base -> variant``).
    """
    _require(df, ("cell", "rules"), "rule_differences")
    info = df.drop_duplicates("cell")
    cells = {}
    for _, r in info.iterrows():
        cells[(_context(r["cell"], r["rules"]), r["rules"])] = r
    rows = []
    for (ctx, rules), r in sorted(cells.items(), key=lambda kv: kv[0]):
        preset, over = parse_rules(rules)
        base_rules = baseline if baseline is not None else _parent(ctx, rules, cells)
        if base_rules is None or base_rules == rules or (ctx, base_rules) not in cells:
            continue
        b = cells[(ctx, base_rules)]
        bpreset, bover = parse_rules(base_rules)
        if bpreset == preset:
            diff = {k: v for k, v in over.items() if bover.get(k) != v}
            diff.update({k: "(preset)" for k in bover if k not in over})
            change = ",".join(f"{k}={v}" for k, v in sorted(diff.items()))
            n = len(diff)
            pool = f"{change} vs {preset}"
        else:
            change, n = rules, -1
            pool = f"{rules} vs {base_rules}"
        params = [f"{p}: {b[p]} -> {r[p]}" for p in RULE_PARAMETERS
                  if p in info.columns and str(b[p]) != str(r[p])]
        rows.append({"cell": r["cell"], "baseline_cell": b["cell"], "rules": rules,
                     "baseline_rules": base_rules, "preset": preset,
                     "players": r.get("players", np.nan), "lineup": r.get("lineup", None),
                     "n_changes": n, "change": change,
                     "label": f"{change} vs {base_rules}", "pool": pool,
                     "changed_params": "; ".join(params)})
    cols = ["cell", "baseline_cell", "rules", "baseline_rules", "preset", "players",
            "lineup", "n_changes", "change", "label", "pool", "changed_params"]
    return pd.DataFrame(rows, columns=cols)


# =========================================================================== the deal as unit
#
# Common random numbers make the deal (``seed``, ``replicate``) the unit of replication:
# the rotations of a cell, its line-ups and its rule variants all replay the same deals, and
# the hands of a match share one. Every interval below is clustered by deal.
#
# One estimator covers means, shares and ratios: R = sum(y) / sum(x) over rows (hands or
# matches), with deal-level influence values e_g = (Y_g - R X_g) / sum(X) (Y_g, X_g the
# deal's sums). The cluster-robust variance is G / (G - 1) * sum(e_g^2) over the G deals,
# and the interval is R +- t(G - 1) * se. A difference (paired, deal by deal) or a weighted
# pool of estimates is a linear combination: its influence values are the same combination
# of the parts' (aligned on the deal). The seat spread (a maximum minus a minimum) is not
# smooth and its plug-in estimate is biased upwards: its interval comes from the seats'
# simultaneous (Bonferroni) intervals, valid and conservative, and always contains the
# estimate (a bootstrap percentile interval of the biased statistic need not).

#: Strategies compared by the skill gap (per-seat win share of the first minus the second).
SKILL_PAIR = ("expert", "beginner")

#: Scorecard metrics: name -> description with its unit.
SCORECARD_METRICS = {
    "turns_per_hand": "turns per hand (total turns / total hands)",
    "hands_per_game": "hands per match",
    "stock_out_per_hand": "share of hands in which the stock ran out",
    "blocked": "share of hands that ended blocked (nobody could or did add a card for a "
               "round; stock-out endings are stock_out_per_hand's)",
    "first_seat_edge": "first player's win share per hand minus the fair share",
    "seat_spread": "largest minus smallest seat win share per hand",
    "skill_gap": "expert minus beginner win share per seat and hand",
}

#: Metrics that are shares of hands (paired differences use Newcombe's interval).
BINARY_METRICS = ("stock_out_per_hand", "blocked")

#: Resamples of :func:`cluster_bootstrap`.
BOOTSTRAP_RESAMPLES = 1000


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
        return min(1.0, 2.0 * _t_sf(abs(self.value - null) / se, len(self.infl) - 1))

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


# --------------------------------------------------------------------------- hand columns

def deal_key(df: pd.DataFrame) -> pd.Series:
    """One integer per deal: ``(seed, replicate)`` (``replicate`` alone without ``seed``)."""
    _require(df, ("replicate",), "deal_key")
    rep = df["replicate"].astype(np.int64)
    if "seed" not in df.columns or df["seed"].nunique() <= 1:
        return rep
    codes, _ = pd.factorize(pd.MultiIndex.from_arrays([df["seed"], rep]))
    return pd.Series(codes.astype(np.int64), index=df.index)


def _match_cols(df: pd.DataFrame) -> list[str]:
    return [c for c in ("cell", "seed", "replicate", "rotation") if c in df.columns]


def _players(g: pd.DataFrame) -> int:
    p = g["players"].unique()
    if len(p) != 1:
        raise FastmachError("a group of hands mixes player counts "
                            f"{sorted(int(x) for x in p)}; group by players")
    return int(p[0])


def _shares(g: pd.DataFrame, players: int) -> np.ndarray:
    """(hands, players) win shares by seat relative to the hand's first player."""
    _require(g, [f"win_share_{i}" for i in range(players)] + ["first_player"],
              "win shares")
    ws = g[[f"win_share_{i}" for i in range(players)]].to_numpy(dtype=float)
    first = g["first_player"].to_numpy(dtype=np.int64)
    idx = (first[:, None] + np.arange(players)[None, :]) % players
    return np.take_along_axis(ws, idx, axis=1)


def _plain_strategies(hands: pd.DataFrame) -> pd.DataFrame:
    """``hands`` with its strategy columns as plain object arrays (converted once)."""
    cols = [c for c in hands.columns if c.startswith("strategy_")]
    if not cols or all(hands[c].dtype == object for c in cols):
        return hands
    return hands.assign(**{c: hands[c].astype(object) for c in cols})


def _strategy_share(g: pd.DataFrame, players: int, strategy: str) -> np.ndarray:
    """Per hand: mean win share of the seats holding ``strategy`` (NaN when none does)."""
    ws = g[[f"win_share_{i}" for i in range(players)]].to_numpy(dtype=float)
    st = g[[f"strategy_{i}" for i in range(players)]].to_numpy(dtype=object)
    held = st == strategy
    count = held.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, (ws * held).sum(axis=1) / count, np.nan)


def hand_metrics(g: pd.DataFrame) -> pd.DataFrame:
    """Per-hand outcome columns of one player count: the y of each ratio estimate.

    ``turns``, ``stock_out`` (0/1), ``blocked`` (0/1: the hand ended blocked, ``end ==
    "blocked"``; an emptied or stock-out ending is 0),
    ``first_seat_edge`` (first player's win share minus the hand's total share / players),
    ``skill_gap`` (expert minus beginner per-seat win share; NaN unless both sit).
    """
    players = _players(g)
    rel = _shares(g, players)
    out = pd.DataFrame(index=g.index)
    out["turns"] = g["turns"].to_numpy(dtype=float)
    out["stock_out"] = g["stock_exhausted"].astype(bool).to_numpy(dtype=float)
    out["blocked"] = (g["end"].astype(str) == "blocked").to_numpy(dtype=float)
    out["first_seat_edge"] = rel[:, 0] - rel.sum(axis=1) / players
    if all(f"strategy_{i}" in g.columns for i in range(players)):
        out["skill_gap"] = (_strategy_share(g, players, SKILL_PAIR[0])
                            - _strategy_share(g, players, SKILL_PAIR[1]))
    else:
        out["skill_gap"] = np.nan
    return out


def _metric_estimates(hands: pd.DataFrame) -> dict[str, Estimate]:
    """Deal-clustered estimates of every smooth scorecard metric over a set of hands."""
    deal = deal_key(hands).to_numpy()
    m = hand_metrics(hands)
    one = np.ones(len(hands))
    est = {"turns_per_hand": ratio_estimate(m["turns"], one, deal),
           "stock_out_per_hand": ratio_estimate(m["stock_out"], one, deal),
           "blocked": ratio_estimate(m["blocked"], one, deal),
           "first_seat_edge": ratio_estimate(m["first_seat_edge"], one, deal),
           "skill_gap": ratio_estimate(m["skill_gap"], one, deal)}
    mcols = _match_cols(hands)
    per_match = (hands[mcols].assign(_d=deal).groupby(mcols, sort=False)["_d"]
                 .agg(["size", "first"]))
    est["hands_per_game"] = ratio_estimate(per_match["size"].to_numpy(dtype=float),
                                           np.ones(len(per_match)),
                                           per_match["first"].to_numpy())
    return est


def _seat_estimates(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Per seat relative to the first player, over one player count's hands.

    Returns the win shares, the deal-clustered standard errors and t-test p-values of
    ``share - fair`` (``fair`` = the hand's total share / players), the number of deals
    and the mean fair share.
    """
    players = _players(g)
    rel = _shares(g, players)
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


def _simultaneous(value, se, deals, alpha: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Bonferroni t intervals ``value +- t(1 - alpha / 2m, deals - 1) * se`` (arrays).

    The m intervals cover their truths simultaneously with probability at least
    ``1 - alpha``; NaN where a row has fewer than two deals.
    """
    q = np.array([t_quantile(1 - alpha / (2 * max(m, 1)), d - 1) if d > 1 else math.nan
                  for d in np.broadcast_to(deals, np.shape(value))])
    return value - q * se, value + q * se


def _spread_bounds(share: np.ndarray, se: np.ndarray, deals: int, alpha: float
                   ) -> tuple[float, float]:
    """Interval of the seat spread (max minus min seat share) at level ``1 - alpha``.

    From the seats' simultaneous intervals ``[lo_i, hi_i]`` at family level ``alpha``
    (:func:`_simultaneous`, m = seats): ``[max(0, max_i lo_i - min_j hi_j), max_i hi_i -
    min_j lo_j]``. ``se`` is the error of ``share - fair``: the spread of the shares is that
    of these contrasts (the fair share, common to all seats, cancels), so whenever every
    seat's interval covers its true contrast the true spread lies inside. The interval is
    conservative (its coverage is at least that of the simultaneous seat intervals) and
    always contains the estimate.
    """
    lo, hi = _simultaneous(share, se, deals, alpha, len(share))
    return float(np.maximum(0.0, lo.max() - hi.min())), float(hi.max() - lo.min())


def _check_hands(hands: pd.DataFrame, what: str) -> None:
    _require(hands, ("cell", "rules", "players", "lineup", "replicate", "hand",
                     "first_player", "turns", "end", "stock_exhausted", "win_share_0"),
             what)


_ID = ["cell", "rules", "players", "lineup"]


def _groups(df: pd.DataFrame, by: Sequence[str]):
    for key, g in df.groupby(list(by), sort=True):
        yield (key if isinstance(key, tuple) else (key,)), g


# --------------------------------------------------------------------------- public tables

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
    ``skill_gap`` (NaN unless expert and beginner both sit). The other intervals are t
    intervals on cluster-robust errors.
    Counts of games come from ``games``; every other figure from ``hands``.
    """
    _check_hands(hands, "scorecard")
    hands = _plain_strategies(hands)
    _require(games, list(by) + ["replicate"], "scorecard")
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
                share, se, _, deals, _ = _seat_estimates(g)
                value = float(share.max() - share.min())
                lo, hi = _spread_bounds(share, se, deals, 1 - confidence)
            else:
                e = est[name]
                value = e.value
                lo, hi = (share_interval(e, confidence) if name in BINARY_METRICS
                          else e.interval(confidence))
            row.update({name: value, f"{name}_lo": float(lo), f"{name}_hi": float(hi)})
        rows.append(row)
    out = pd.DataFrame(rows)
    if keys == ["cell"] and not out.empty:
        out = out[_ID + [c for c in out.columns if c not in _ID]]
    return out.reset_index(drop=True)


def seat_table(hands: pd.DataFrame, by: Sequence[str] = ("cell",), alpha: float = 0.05
               ) -> pd.DataFrame:
    """Win share of each seat per hand, seat 0 being the hand's first player.

    One row per group (``by``; cells by default) and seat (``seats.csv``): ``cell, rules,
    players, lineup`` (or the group keys), ``seat``, ``hands``, ``deals``, ``win_share``
    (shared ties split, hands nobody won count 0 for everyone), ``fair`` (the mean share a
    seat would get if seats were equal: total share per hand / players), ``se``
    (deal-clustered, of ``win_share - fair``), ``p_value`` (t test of ``win_share == fair``),
    ``p_adjusted`` (Holm over every row of the table: family-wise error control), ``lo,
    hi`` (simultaneous Bonferroni interval at level ``1 - alpha / m`` for the m rows) and
    ``named`` (1 when ``[lo, hi]`` excludes ``fair``: a seat is named only then; it implies
    ``p_adjusted < alpha``).
    """
    _check_hands(hands, "seat_table")
    keys = list(by)
    rows = []
    for key, g in _groups(hands, keys + ([] if "players" in keys else ["players"])):
        share, se, pv, deals, fair = _seat_estimates(g)
        head = dict(zip(keys + ["players"], key))
        if keys == ["cell"]:
            head.update({c: g[c].iloc[0] for c in _ID[1:]})
        for s in range(len(share)):
            rows.append(head | {"seat": s, "hands": len(g), "deals": deals,
                                "win_share": share[s], "fair": fair, "se": se[s],
                                "p_value": pv[s]})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=_ID + ["seat", "hands", "deals", "win_share", "fair",
                                           "se", "p_value", "p_adjusted", "lo", "hi",
                                           "named"])
    m = int(out["p_value"].notna().sum())
    out["p_adjusted"] = holm(out["p_value"])
    lo, hi = _simultaneous(out["win_share"].to_numpy(), out["se"].to_numpy(),
                           out["deals"].to_numpy(), alpha, m)
    out["lo"], out["hi"] = lo, hi
    out["named"] = ((out["lo"] > out["fair"]) | (out["hi"] < out["fair"])).astype(int)
    if keys == ["cell"]:
        out = out[_ID + [c for c in out.columns if c not in _ID]]
    return out.reset_index(drop=True)


#: Metrics of :func:`effects`, in table order.
EFFECT_METRICS_HANDS = ("turns_per_hand", "stock_out_per_hand", "hands_per_game", "blocked",
                        "first_seat_edge", "seat_spread", "skill_gap")

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
    sv, sev, _, gv, _ = _seat_estimates(hv)
    sb, seb, _, gb, _ = _seat_estimates(hb)
    base = float(sb.max() - sb.min())
    value = float(sv.max() - sv.min()) - base

    def bounds(alpha: float) -> tuple[float, float]:
        lv, uv = _spread_bounds(sv, sev, gv, alpha / 2)
        lb, ub = _spread_bounds(sb, seb, gb, alpha / 2)
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


def _effect_row(name: str, ev: Estimate, eb: Estimate, confidence: float) -> dict:
    d = ev - eb
    if name in BINARY_METRICS:
        lo, hi = newcombe_paired(ev, eb, confidence)
    else:
        lo, hi = d.interval(confidence)
    return {"metric": name, "diff": d.value, "lo": lo, "hi": hi, "p_value": d.p_value(),
            "baseline_value": eb.value, "variant_value": ev.value,
            "rel_diff": d.value / eb.value if eb.value else math.nan}


def effects(games: pd.DataFrame, hands: pd.DataFrame, pairs: Sequence[tuple[str, str]],
            confidence: float = 0.95) -> pd.DataFrame:
    """Paired rule effects, variant minus baseline, per player count x line-up and pooled.

    ``pairs`` lists ``(variant_rules, baseline_rules)`` canonical rules strings; the cells
    of a pair are matched by ``players`` and ``lineup``, and their matches deal by deal
    (same ``seed``, ``replicate`` and ``rotation``). One row per pair x players x lineup x
    metric (:data:`EFFECT_METRICS_HANDS`, where defined), then a pooled row per pair x
    metric with ``players`` and ``lineup`` empty (NaN): the contexts weighted by their
    matched matches. Columns (``effects.csv``): ``variant, baseline, players, lineup,
    metric, diff, lo, hi`` (95%, deal-clustered: t interval on the cluster-robust error;
    Newcombe's hybrid score interval for the shares of hands ``stock_out_per_hand`` and
    ``blocked``; for ``seat_spread`` a conservative interval from the two cells' seat
    intervals that ignores the pairing, :func:`_spread_diff`), ``rel_diff`` (diff /
    baseline value),
    ``p_value``, ``p_adjusted`` (Holm over every row of the table), ``pairs`` (matched
    matches), ``baseline_value, variant_value``.
    """
    _check_hands(hands, "effects")
    hands = _plain_strategies(hands)
    _require(games, ("rules", "players", "lineup"), "effects")
    rows = []
    by_rules = dict(tuple(hands.groupby("rules", sort=False)))
    for variant, baseline in pairs:
        for r in (variant, baseline):
            if r not in by_rules:
                raise FastmachError(f"effects: no hand of rules {r!r} in the results")
        hv_all, hb_all = by_rules[variant], by_rules[baseline]
        contexts = []
        for (players, lineup), hv in hv_all.groupby(["players", "lineup"], sort=True):
            hb = hb_all[(hb_all["players"] == players) & (hb_all["lineup"] == lineup)]
            if hb.empty:
                continue
            hv, hb, n = _matched(hv, hb)
            if n == 0:
                continue
            ev, eb = _metric_estimates(hv), _metric_estimates(hb)
            contexts.append((n, ev, eb))
            head = {"variant": variant, "baseline": baseline, "players": players,
                    "lineup": lineup, "pairs": n}
            for name in EFFECT_METRICS_HANDS:
                if name == "seat_spread":
                    d, lo, hi, pv, b = _spread_diff(hv, hb, confidence)
                    rows.append(head | {"metric": name, "diff": d, "lo": lo, "hi": hi,
                                        "p_value": pv, "baseline_value": b,
                                        "variant_value": b + d,
                                        "rel_diff": d / b if b else math.nan})
                elif not math.isnan(ev[name].value) and not math.isnan(eb[name].value):
                    rows.append(head | _effect_row(name, ev[name], eb[name], confidence))
        for name in EFFECT_METRICS_HANDS:
            if name == "seat_spread":
                continue  # a spread does not pool across player counts
            use = [(n, ev[name], eb[name]) for n, ev, eb in contexts
                   if not math.isnan(ev[name].value) and not math.isnan(eb[name].value)]
            if not use:
                continue
            tot = sum(n for n, _, _ in use)
            pv = combine([(n / tot, v) for n, v, _ in use])
            pb = combine([(n / tot, b) for n, _, b in use])
            pv.n = sum(v.n for _, v, _ in use)
            pb.n = sum(b.n for _, _, b in use)
            rows.append({"variant": variant, "baseline": baseline, "players": math.nan,
                         "lineup": math.nan, "pairs": tot}
                        | _effect_row(name, pv, pb, confidence))
    out = pd.DataFrame(rows, columns=_EFFECT_COLUMNS)
    out["p_adjusted"] = holm(out["p_value"])
    return out


def default_pairs(games: pd.DataFrame) -> list[tuple[str, str]]:
    """``(variant, baseline)`` rules pairs of a study (see :func:`rule_differences`)."""
    d = rule_differences(games)
    return list(dict.fromkeys(zip(d["rules"], d["baseline_rules"])))


def strategy_matrix(hands: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per-seat win share of a strategy against another, over hands seating both.

    One row per ordered pair: ``strategy, opponent, hands, win_share`` (mean win share of
    the seats ``strategy`` holds, per hand), ``lo, hi`` (deal-clustered) and ``fair``
    (total share per hand / players).
    """
    _check_hands(hands, "strategy_matrix")
    hands = _plain_strategies(hands)
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
            sa = _strategy_share(g, int(players), a)
            for b in names:
                if a == b:
                    continue
                both = ((st == a).any(axis=1) & (st == b).any(axis=1))
                if not both.any():
                    continue
                e = ratio_estimate(sa[both], np.ones(both.sum()), deal[both])
                rows.append({"players": int(players), "strategy": a, "opponent": b,
                             "hands": int(both.sum()), "win_share": e.value,
                             "_n": e.n, "_e": e,
                             "fair": float(total[both].mean()) / int(players)})
    cols = ["strategy", "opponent", "hands", "win_share", "lo", "hi", "fair"]
    if not rows:
        return pd.DataFrame(columns=cols)
    long = pd.DataFrame(rows)
    out = []
    for (a, b), g in long.groupby(["strategy", "opponent"], sort=True):
        w = g["_n"].to_numpy() / g["_n"].sum()
        e = combine([(wi, ei) for wi, ei in zip(w, g["_e"])])
        lo, hi = e.interval(confidence)
        out.append({"strategy": a, "opponent": b, "hands": int(g["hands"].sum()),
                    "win_share": e.value, "lo": lo, "hi": hi,
                    "fair": float((w * g["fair"]).sum())})
    return pd.DataFrame(out, columns=cols)


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


def write_tables(games: pd.DataFrame, hands: pd.DataFrame, outdir: str | Path,
                 pairs: Sequence[tuple[str, str]] | None = None) -> dict[str, Path]:
    """Write ``scorecard.csv``, ``seats.csv`` and ``effects.csv`` into ``outdir``.

    Also ``seats_by_players.csv`` (seat table pooled over line-ups per rules and player
    count). ``pairs`` defaults to :func:`default_pairs`. Every column is a number or an
    identifier (no formatted string). Returns the paths by table name.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    tables = {"scorecard": scorecard(games, hands),
              "seats": seat_table(hands),
              "seats_by_players": seat_table(hands, by=("rules", "players")),
              "effects": effects(games, hands, default_pairs(games) if pairs is None
                                 else pairs)}
    paths = {}
    for name, t in tables.items():
        paths[name] = out / f"{name}.csv"
        t.to_csv(paths[name], index=False)
    return paths
