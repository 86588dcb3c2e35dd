"""How much skill decides: the skill trace, the ceiling and the ladders of a study's hands.

Every figure is per hand and every interval resamples deals (common random numbers make
the rotations, line-ups and rule variants of one deal correlated; :func:`deal_key`).

- :func:`seat_share` -- the win share per hand of the one seat of a strategy seated with
  ``n - 1`` seats of another (``strong`` with three experts): the ratio estimate of
  :mod:`fastmach.analysis.inference` over hands (a tie counts as its share), its 95%
  interval Wilson's at the deal-clustered effective sample size
  (:func:`~fastmach.analysis.inference.share_interval`), and the fair share
  ``E[total share] / n`` (a hand nobody wins gives nobody a share).
- :func:`trace` -- Ludii's skill trace: the search player with budget ``2b`` in one seat
  against ``n - 1`` seats with budget ``b``, ``b`` doubling; at each step the ``2b``
  seat's win share against the fair share and a two-sided test of "no edge" (deal-
  clustered t test of the mean of ``share - total / n``), Holm-adjusted over the steps of
  the table. Does more thinking keep paying? Where the adjusted test rejects.
- :func:`ceiling` -- the win share of each measuring stick (``clairvoyant``: sees every
  card; ``strong``) against ``n - 1`` experts, next to the fair share: how much of the
  outcome any skill measured here can take. A lower bound on what a perfect player would
  take, not an upper one: the clairvoyant's search is a heuristic over the true cards.
- :func:`ceiling_effects` -- does a rule change make skill matter more or less? The paired
  difference (variant minus baseline, deal by deal) of a measuring stick's win share
  against experts, per player count, with its deal-clustered t interval, Holm-adjusted
  over the table; :func:`direction` words it only where the adjusted test rejects.
- :func:`ladders` -- the Plackett-Luce ladders of :mod:`fastmach.analysis.ratings`, one per
  rules x players, over the strategies that share hands with the anchor (``expert``)
  directly or through others: a strategy never seated with them (a trace step) has no
  rating on that scale and is left out.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from fastmach.analysis.hands import deal_key, plain_strategies, require
from fastmach.analysis.inference import combine, holm, ratio_estimate, share_interval
from fastmach.analysis.ratings import ANCHOR, ladder
from fastmach.errors import FastmachError

__all__ = ["ALPHA", "SEAT_COLUMNS", "TRACE_COLUMNS", "EFFECT_COLUMNS", "lone_lineup",
           "trace_lineup", "lone_hands", "seat_estimates", "seat_share", "trace", "ceiling",
           "ceiling_effects", "direction", "ladders", "rated_strategies"]

#: Family-wise level of every word of this module.
ALPHA = 0.05

SEAT_COLUMNS = ["rules", "players", "strategy", "opponent", "hands", "deals", "win_share",
                "lo", "hi", "fair", "edge", "edge_lo", "edge_hi", "p_value"]
TRACE_COLUMNS = ["rules", "players", "budget", "strategy", "opponent"] + SEAT_COLUMNS[4:] + [
    "p_adjusted", "pays"]
EFFECT_COLUMNS = ["variant", "baseline", "players", "strategy", "pairs", "baseline_value",
                  "variant_value", "diff", "lo", "hi", "p_value", "p_adjusted", "word"]


# ----------------------------------------------------------------------------- line-ups

def lone_lineup(strategy: str, opponent: str, players: int) -> tuple[str, ...]:
    """One ``strategy`` seat and ``players - 1`` ``opponent`` seats (a line-up)."""
    return (strategy,) + (opponent,) * (players - 1)


def trace_lineup(budget: int, players: int) -> tuple[str, ...]:
    """The trace's step ``b``: one ``search(budget=2b)`` seat against ``search(budget=b)``
    seats (canonical strings: the default budget is written ``search``)."""
    from fastmach.strategies import parse_strategy

    return lone_lineup(str(parse_strategy(f"search(budget={2 * budget})")),
                       str(parse_strategy(f"search(budget={budget})")), players)


# ----------------------------------------------------------------------------- one seat

def _columns(hands: pd.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray]:
    require(hands, [f"strategy_{i}" for i in range(players)]
            + [f"win_share_{i}" for i in range(players)] + ["replicate"], "skill")
    st = np.column_stack([hands[f"strategy_{i}"].to_numpy(dtype=object)
                          for i in range(players)])
    ws = np.column_stack([hands[f"win_share_{i}"].to_numpy(dtype=float)
                          for i in range(players)])
    return st, ws


def _lone(st: np.ndarray, strategy: str, opponent: str) -> np.ndarray:
    n = st.shape[1]
    return ((st == strategy).sum(axis=1) == 1) & ((st == opponent).sum(axis=1) == n - 1)


def lone_hands(hands: pd.DataFrame, strategy: str, opponent: str) -> pd.DataFrame:
    """The hands (of one player count) seating one ``strategy`` and only ``opponent``
    otherwise."""
    if hands.empty:
        return hands
    st, _ = _columns(hands, int(hands["players"].iloc[0]))
    return hands[_lone(st, strategy, opponent)]


def _estimates(st: np.ndarray, ws: np.ndarray, deal: np.ndarray, strategy: str):
    n = st.shape[1]
    y = (ws * (st == strategy)).sum(axis=1)
    one = np.ones(len(y))
    return (ratio_estimate(y, one, deal),
            ratio_estimate(y - ws.sum(axis=1) / n, one, deal))


def seat_estimates(hands: pd.DataFrame, strategy: str):
    """``(share, edge)``: deal-clustered estimates over ``hands`` (one player count) of the
    win share per hand of the ``strategy`` seats and of that share minus ``total / n``."""
    st, ws = _columns(hands, int(hands["players"].iloc[0]))
    return _estimates(st, ws, deal_key(hands).to_numpy(), strategy)


def seat_share(hands: pd.DataFrame, strategy: str, opponent: str,
               confidence: float = 0.95) -> dict:
    """The win share per hand of the one ``strategy`` seat among ``opponent`` seats, over
    the hands of one rules x players that seat them so (see the module docstring).
    Keys: :data:`SEAT_COLUMNS`; NaN figures when no hand does."""
    players = int(hands["players"].iloc[0]) if len(hands) else 0
    row = {"rules": hands["rules"].iloc[0] if len(hands) else "",
           "players": players,
           "strategy": strategy, "opponent": opponent, "hands": 0, "deals": 0}
    if hands.empty:
        return row | dict.fromkeys(SEAT_COLUMNS[6:], math.nan)
    st, ws = _columns(hands, players)
    keep = _lone(st, strategy, opponent)
    deal = deal_key(hands).to_numpy()[keep]
    row |= {"hands": int(keep.sum()), "deals": int(len(np.unique(deal)))}
    if not keep.any():
        return row | dict.fromkeys(SEAT_COLUMNS[6:], math.nan)
    share, edge = _estimates(st[keep], ws[keep], deal, strategy)
    lo, hi = share_interval(share, confidence)
    elo, ehi = edge.interval(confidence)
    return row | {"win_share": share.value, "lo": lo, "hi": hi,
                  "fair": share.value - edge.value, "edge": edge.value, "edge_lo": elo,
                  "edge_hi": ehi, "p_value": _p_value(edge)}


def _p_value(e) -> float:
    """The estimate's two-sided t test of 0, where a zero error (every deal's rotations
    split the wins evenly) with a zero value is no evidence (p = 1), whatever the
    rounding of ``share - total / n``."""
    if e.se < 1e-12 and abs(e.value) < 1e-9:
        return 1.0
    return e.p_value()


def _strata(hands: pd.DataFrame) -> Iterable[tuple[tuple[str, int], pd.DataFrame]]:
    require(hands, ("rules", "players"), "skill")
    for (rules, players), g in hands.groupby(["rules", "players"], sort=False):
        yield (str(rules), int(players)), g


# ----------------------------------------------------------------------------- the trace

def _search_budget(text: str) -> tuple[str, int] | None:
    """``(rest, b)`` for a ``search`` seat string: its budget and the canonical text of its
    other parameters (two seats are one trace step only if these agree), else None."""
    from fastmach.strategies import Strategy, parse_strategy

    try:
        spec = parse_strategy(text)
    except FastmachError:
        return None
    if not isinstance(spec, Strategy) or spec.name != "search":
        return None
    values = dict(zip((p.name for p in spec.kind.params), spec.values))
    budget = int(values.pop("budget"))
    return repr(sorted(values.items())), budget


def trace(hands: pd.DataFrame, confidence: float = 0.95, alpha: float = ALPHA
          ) -> pd.DataFrame:
    """The skill trace of hand rows: per rules x players and budget ``b``, the win share
    of the one ``search(budget=2b)`` seat among ``search(budget=b)`` seats (the other
    parameters equal), from every line-up of that shape. Columns :data:`TRACE_COLUMNS`;
    ``p_adjusted`` is Holm's over every row, ``pays`` is 1 where it is below ``alpha`` with
    a positive edge, -1 with a negative one, else 0."""
    from fastmach.strategies import split_strategies

    rows = []
    hands = plain_strategies(hands)
    for (rules, players), g in _strata(hands):
        for lu in pd.unique(g["lineup"]):
            parts = split_strategies(str(lu))
            maybe = [_search_budget(p) for p in parts]
            found = [f for f in maybe if f is not None]
            if len(parts) != players or len(found) != len(parts):
                continue
            if len({f[0] for f in found}) != 1:
                continue
            budgets = [f[1] for f in found]
            lo_b, hi_b = min(budgets), max(budgets)
            if hi_b != 2 * lo_b or budgets.count(hi_b) != 1:
                continue
            hi = parts[budgets.index(hi_b)]
            lo = parts[budgets.index(lo_b)]
            r = seat_share(g[g["lineup"] == lu], hi, lo, confidence)
            rows.append({"rules": rules, "players": players, "budget": lo_b,
                         **{k: r[k] for k in SEAT_COLUMNS[2:]}})
    out = pd.DataFrame(rows, columns=TRACE_COLUMNS[:-2])
    out = out.sort_values(["rules", "players", "budget"], kind="stable").reset_index(drop=True)
    out["p_adjusted"] = holm(out["p_value"].to_numpy(dtype=float))
    out["pays"] = [0 if not p < alpha else (1 if e > 0 else -1)
                   for p, e in zip(out["p_adjusted"], out["edge"])]
    return out


# ----------------------------------------------------------------------------- the ceiling

def ceiling(hands: pd.DataFrame, strategies: Sequence[str], anchor: str = ANCHOR,
            confidence: float = 0.95) -> pd.DataFrame:
    """Per rules x players and strategy: the win share of one seat of it among ``n - 1``
    ``anchor`` seats (:func:`seat_share`), where the study seated it so. Columns
    :data:`SEAT_COLUMNS` (``p_value``: the test of no edge, unadjusted)."""
    rows = []
    hands = plain_strategies(hands)
    for (rules, players), g in _strata(hands):
        for s in strategies:
            r = seat_share(g, s, anchor, confidence)
            if r["hands"]:
                rows.append(r | {"rules": rules, "players": players})
    return pd.DataFrame(rows, columns=SEAT_COLUMNS)


def ceiling_effects(hands: pd.DataFrame, pairs: Sequence[tuple[str, str]],
                    strategies: Sequence[str], anchor: str = ANCHOR,
                    confidence: float = 0.95, alpha: float = ALPHA) -> pd.DataFrame:
    """Does a rule change make skill matter more or less? Per ``(variant, baseline)`` of
    ``pairs``, player count and strategy ``s``: the paired difference of the win share of
    one ``s`` seat among experts, variant minus baseline, over the deals both played
    (deal-clustered t interval of the difference of the two ratio estimates); Holm over
    every row. Columns :data:`EFFECT_COLUMNS` (``word``: :func:`direction`)."""
    rows = []
    hands = plain_strategies(hands)
    by = {k: g for k, g in _strata(hands)}
    for variant, baseline in pairs:
        for (rules, players), gv in by.items():
            if rules != variant or (baseline, players) not in by:
                continue
            gb = by[(baseline, players)]
            for s in strategies:
                hv, hb = lone_hands(gv, s, anchor), lone_hands(gb, s, anchor)
                if hv.empty or hb.empty:
                    continue
                dv, db = deal_key(hv), deal_key(hb)
                common = np.intersect1d(dv.unique(), db.unique())
                if len(common) < 2:
                    continue
                hv, hb = hv[dv.isin(common)], hb[db.isin(common)]
                ev, _ = seat_estimates(hv, s)
                eb, _ = seat_estimates(hb, s)
                d = combine([(1.0, ev), (-1.0, eb)])
                lo, hi = d.interval(confidence)
                rows.append({"variant": variant, "baseline": baseline, "players": players,
                             "strategy": s, "pairs": len(common),
                             "baseline_value": eb.value, "variant_value": ev.value,
                             "diff": d.value, "lo": lo, "hi": hi, "p_value": _p_value(d)})
    out = pd.DataFrame(rows, columns=EFFECT_COLUMNS[:-2])
    out["p_adjusted"] = holm(out["p_value"].to_numpy(dtype=float))
    out["word"] = [direction(d, lo, hi, p, alpha) for d, lo, hi, p in
                   zip(out["diff"], out["lo"], out["hi"], out["p_adjusted"])]
    return out


def direction(diff: float, lo: float, hi: float, p_adjusted: float,
              alpha: float = ALPHA) -> str:
    """``more`` / ``less`` (skill matters) where the adjusted test rejects and the interval
    excludes 0, else ``no clear change``."""
    vals = (diff, lo, hi, p_adjusted)
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals):
        return "no clear change"
    if not p_adjusted < alpha or lo <= 0.0 <= hi:
        return "no clear change"
    return "more" if diff > 0 else "less"


# ----------------------------------------------------------------------------- ladders

def rated_strategies(hands: pd.DataFrame, anchor: str = ANCHOR) -> list[str]:
    """The strategies of hand rows (one player count) connected to ``anchor`` by hands that
    seat both (directly or through others), anchor first, then in order of appearance;
    ``[]`` when the anchor sits in no hand with another strategy."""
    n = int(hands["players"].iloc[0])
    st, _ = _columns(hands, n)
    names = list(pd.unique(st.ravel()))
    if anchor not in names:
        return []
    index = {s: i for i, s in enumerate(names)}
    parent = list(range(len(names)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for row in {tuple(sorted(set(r))) for r in map(tuple, st)}:
        for a in row[1:]:
            parent[find(index[a])] = find(index[row[0]])
    root = find(index[anchor])
    kept = [s for s in names if find(index[s]) == root]
    if len(kept) < 2:
        return []
    return [anchor] + [s for s in kept if s != anchor]


def ladders(hands: pd.DataFrame, anchor: str = ANCHOR, resamples: int = 200,
            seed: int = 0, exclude: Sequence[str] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ratings and head-to-head tables (:func:`fastmach.analysis.ratings.ladder`) of
    every rules x players of ``hands``, each over :func:`rated_strategies` (less
    ``exclude``) and the hands seating only them. Strata with fewer than two such
    strategies are left out. Same seed, same intervals."""
    frames_r, frames_h = [], []
    hands = plain_strategies(hands)
    for k, ((rules, players), g) in enumerate(_strata(hands)):
        names = [s for s in rated_strategies(g, anchor) if s not in exclude]
        if len(names) < 2 or anchor not in names:
            continue
        st, _ = _columns(g, players)
        g = g[np.isin(st, names).all(axis=1)]
        names = [s for s in names if (g[[f"strategy_{i}" for i in range(players)]]
                                      == s).to_numpy().any()]
        if len(names) < 2:
            continue
        r, h = ladder(g, names, resamples=resamples, seed=seed + k)
        frames_r.append(r)
        frames_h.append(h)
    if not frames_r:
        from fastmach.analysis.ratings import H2H_COLUMNS, RATING_COLUMNS
        return pd.DataFrame(columns=RATING_COLUMNS), pd.DataFrame(columns=H2H_COLUMNS)
    return pd.concat(frames_r, ignore_index=True), pd.concat(frames_h, ignore_index=True)
