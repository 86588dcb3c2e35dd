"""Plackett-Luce ratings of strategies from hand outcomes, with deal-clustered intervals.

The model. Each seat of a hand is a competitor whose strength is ``exp(theta[s])``, ``s``
the strategy it plays (two seats of one strategy are two competitors of equal strength).
A hand's outcome is an ordered partition of its seats into tied groups ``G1 > G2 > ...``;
with ``R_k`` the seats not yet placed before group ``G_k``, its likelihood is::

    prod_k prod_{i in G_k} (exp(theta_i) / sum_{j in R_k} exp(theta_j)) ** (1 / |G_k|)

(Plackett-Luce; a tie is *shared*: each of the ``|G|`` tied seats is chosen first from
``R_k`` with weight ``1/|G|``, so a hand two seats tie for equals half a hand won by
each). A stage that places every seat left (``G_k = R_k``) says nothing and is dropped.
``rank="winner"`` (the default) uses the first stage only: the winner(s) of the hand with
their ``win_share_*`` (1, or 1/k for k tied winners, none when nobody wins), i.e. the
Luce choice model of who wins; it is what the expected win share against a table of
experts predicts. ``rank="points"`` ranks everyone: the winner(s) first, then the others
by ``hand_points_*`` (fewer first; equal points tie).

Every stage is a choice from a set of strategies (a multiset); the log-likelihood depends
on the data only through, per choice set ``K``, the number of choices ``N_K`` and the
weight ``W_Ks`` each strategy took, so the fit runs on these sums (one row per deal and
choice set). The maximum-likelihood fit is Newton's method on the concave
log-likelihood with ``theta[anchor] = 0`` held fixed and a vanishing ridge
``alpha/2 * |theta|^2`` (``alpha = 1e-6``, choix's default) that keeps the fit finite;
a strategy that never wins (in the data or a resample) is rated ``-inf``. The tests
check the fit against choix's maximum-likelihood estimates (``ilsr_top1``,
``ilsr_rankings``).

The unit. A rating is the natural log of the Plackett-Luce strength, anchored at
``expert = 0`` (the first strategy when there is no expert): ``i`` beats ``j`` with
probability ``1 / (1 + exp(theta_j - theta_i))`` in a hand where exactly one of the two
wins. ``elo = 1500 + 400 * log10(e) * theta`` is the same number on the Elo scale.

Intervals resample deals (:func:`fastmach.analysis.inference.cluster_bootstrap`): the line-ups,
rotations and hands of one deal are one cluster (common random numbers make them
correlated); each resample refits the ratings, so every figure below has a 95% percentile
interval from the same resamples. ``cluster="hand"`` resamples hands instead (the naive
interval, for comparison only).

Figures besides the ratings (:func:`ladder`):

- head to head (:func:`ladder`'s second table): for strategies ``a`` and ``b``, over the
  hands both sat in, the share of the wins of the two that went to ``a``, per seat
  (``sum wa / (sum wa + sum wb)``, ``wa`` the mean win share of ``a``'s seats in a hand);
  the model predicts ``1 / (1 + exp(theta_b - theta_a))`` whatever the table.
- against experts: the win share per hand of one ``s`` seated with ``n - 1`` experts,
  predicted ``exp(theta_s) / (exp(theta_s) + (n - 1) exp(theta_expert))``, and measured
  (the mean win share of the ``s`` seat) where the line-up was played.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from fastmach.errors import FastmachError
from fastmach.rules import is_integer
from fastmach.analysis.hands import deal_key
from fastmach.analysis.inference import cluster_bootstrap

__all__ = ["ALPHA", "ELO_PER_UNIT", "ChoiceData", "choice_data", "fit", "log_likelihood",
           "ladder", "RANKS"]

#: Ridge of the fit (choix's default): a strategy that never wins stays finite.
ALPHA = 1e-6
#: Elo points per unit of rating (natural-log strength): 400 * log10(e).
ELO_PER_UNIT = 400.0 / math.log(10.0)
#: What a hand's outcome ranks: its winners only, or everyone (then by hand points).
RANKS = ("winner", "points")
#: The strategy ratings are anchored at when it is rated.
ANCHOR = "expert"


# ----------------------------------------------------------------------------- the data

@dataclass(frozen=True)
class ChoiceData:
    """The choice stages of a set of hands, summed by deal and choice set.

    ``sets[k, s]``: seats of strategy ``s`` in choice set ``k``; ``clusters``: the label
    of each cluster (deal); ``events[d, k]``: choices from set ``k`` in cluster ``d``;
    ``wins[d, k, s]``: the weight strategy ``s`` took in them.
    """

    strategies: tuple[str, ...]
    sets: np.ndarray
    clusters: np.ndarray
    events: np.ndarray
    wins: np.ndarray

    def totals(self) -> tuple[np.ndarray, np.ndarray]:
        """``(N_K, W_Ks)`` summed over clusters."""
        return self.events.sum(axis=0), self.wins.sum(axis=0)

    @property
    def sums(self) -> np.ndarray:
        """One row per cluster: ``events`` then ``wins`` flattened (bootstrap sums)."""
        d = len(self.clusters)
        return np.hstack([self.events, self.wins.reshape(d, -1)])


def _seat_arrays(hands: pd.DataFrame, players: int, strategies: Sequence[str]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes, shares, points)``: per hand and seat the strategy's index, win share and
    hand points. Unknown strategy names raise a FastmachError."""
    index = {s: i for i, s in enumerate(strategies)}
    st = hands[[f"strategy_{i}" for i in range(players)]].astype(object).to_numpy()
    codes = np.empty(st.shape, dtype=np.int64)
    for name in pd.unique(st.ravel()):
        if name not in index:
            raise FastmachError(f"hand rows seat the strategy {name!r}, which is not among "
                                f"the rated strategies {list(strategies)}")
        codes[st == name] = index[name]
    shares = hands[[f"win_share_{i}" for i in range(players)]].to_numpy(dtype=float)
    points = (hands[[f"hand_points_{i}" for i in range(players)]].to_numpy(dtype=float)
              if all(f"hand_points_{i}" in hands.columns for i in range(players))
              else np.zeros_like(shares))
    return codes, shares, points


def _stages(codes: np.ndarray, shares: np.ndarray, points: np.ndarray, rank: str, m: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every informative stage: ``(row, composition (m,), events, weights (m,))``."""
    rows_n, n = codes.shape
    onehot = codes[:, :, None] == np.arange(m)[None, None, :]  # (rows, seats, m)
    out_rows, out_comp, out_n, out_w = [], [], [], []
    if rank == "winner":
        won = shares > 0
        keep = won.any(axis=1) & ~won.all(axis=1)
        comp = onehot.sum(axis=1)
        w = (shares[:, :, None] * onehot).sum(axis=1)
        ev = w.sum(axis=1)
        idx = np.nonzero(keep)[0]
        return idx, comp[idx], ev[idx], w[idx]
    key = np.where(shares > 0, -1.0, points)
    remaining = np.ones((rows_n, n), dtype=bool)
    for _ in range(n - 1):
        masked = np.where(remaining, key, np.inf)
        best = masked.min(axis=1)
        group = remaining & (key == best[:, None])
        gsize, rsize = group.sum(axis=1), remaining.sum(axis=1)
        active = (rsize >= 2) & (gsize < rsize)
        if not active.any():
            break
        idx = np.nonzero(active)[0]
        comp = (remaining[idx, :, None] & onehot[idx]).sum(axis=1)
        w = (group[idx, :, None] & onehot[idx]).sum(axis=1) / gsize[idx, None]
        out_rows.append(idx)
        out_comp.append(comp)
        out_n.append(np.ones(len(idx)))
        out_w.append(w)
        remaining &= ~group
    if not out_rows:
        return (np.zeros(0, np.int64), np.zeros((0, m), np.int64), np.zeros(0),
                np.zeros((0, m)))
    return (np.concatenate(out_rows), np.concatenate(out_comp), np.concatenate(out_n),
            np.concatenate(out_w))


def choice_data(hands: pd.DataFrame, strategies: Sequence[str], rank: str = "winner",
                cluster: np.ndarray | None = None) -> ChoiceData:
    """The choice stages of hand rows of one player count (see the module docstring).

    ``hands``: rows with ``players``, ``replicate`` (and ``seed``), ``strategy_i``,
    ``win_share_i`` and, for ``rank="points"``, ``hand_points_i``. ``cluster``: one label
    per row (default: the deal, :func:`fastmach.analysis.hands.deal_key`).
    """
    if rank not in RANKS:
        raise FastmachError(f"rank={rank!r}: expected one of {', '.join(RANKS)}")
    players = hands["players"].unique()
    if len(players) != 1:
        raise FastmachError(f"choice_data: the hands mix player counts {sorted(players)}")
    n, m = int(players[0]), len(strategies)
    codes, shares, points = _seat_arrays(hands, n, strategies)
    labels = deal_key(hands).to_numpy() if cluster is None else np.asarray(cluster)
    clusters, inv = np.unique(labels, return_inverse=True)
    rows, comp, ev, w = _stages(codes, shares, points, rank, m)
    sets, k = (np.unique(comp, axis=0, return_inverse=True) if len(comp)
               else (np.zeros((0, m), np.int64), np.zeros(0, np.int64)))
    k = np.asarray(k).reshape(-1)
    d = inv[rows]
    events = np.zeros((len(clusters), len(sets)))
    wins = np.zeros((len(clusters), len(sets), m))
    np.add.at(events, (d, k), ev)
    for s in range(m):
        np.add.at(wins[:, :, s], (d, k), w[:, s])
    return ChoiceData(tuple(strategies), sets.astype(float), clusters, events, wins)


# ----------------------------------------------------------------------------- the fit

def log_likelihood(theta: np.ndarray, sets: np.ndarray, events: np.ndarray,
                   wins: np.ndarray) -> float:
    """``sum_K [sum_s W_Ks theta_s - N_K log sum_s C_Ks exp(theta_s)]`` (no ridge)."""
    top = float(np.max(theta)) if len(theta) else 0.0
    z = sets @ np.exp(theta - top)
    used = events > 0
    return float((wins * theta).sum() - events[used] @ (np.log(z[used]) + top))


def fit(sets: np.ndarray, events: np.ndarray, wins: np.ndarray, anchor: int = 0,
        alpha: float = ALPHA, start: np.ndarray | None = None, tol: float = 1e-9,
        max_iter: int = 200) -> np.ndarray:
    """Maximum-likelihood ratings (``theta[anchor] = 0``) from choice sums.

    ``sets (K, m)``: seats of each strategy in each choice set; ``events (K,)``: choices
    made from it; ``wins (K, m)``: weight each strategy took. Newton's method with step
    halving on the penalised log-likelihood (concave: the step always exists).
    """
    m = sets.shape[1]
    free = np.array([i for i in range(m) if i != anchor], dtype=np.int64)
    theta = np.zeros(m) if start is None else np.array(start, dtype=float)
    theta -= theta[anchor]
    used = events > 0
    sets, events, wins = sets[used], events[used], wins[used]
    total = wins.sum(axis=0)

    def objective(t: np.ndarray) -> float:
        return log_likelihood(t, sets, events, wins) - 0.5 * alpha * float(t @ t)

    value = objective(theta)
    scale = 1.0 + float(events.sum())
    for _ in range(max_iter):
        u = sets * np.exp(theta - theta.max())[None, :]
        p = u / u.sum(axis=1, keepdims=True)
        grad = total - events @ p - alpha * theta
        if np.max(np.abs(grad[free]), initial=0.0) < tol * scale:
            break
        hess = (p.T * events) @ p - np.diag(events @ p) - alpha * np.eye(m)
        step = np.linalg.solve(hess[np.ix_(free, free)], -grad[free])
        t = 1.0
        while True:
            cand = theta.copy()
            cand[free] += t * step
            new = objective(cand)
            if new >= value - 1e-12 * abs(value) or t < 1e-10:
                break
            t /= 2
        if t < 1e-10:
            break
        theta, value = cand, new
    return theta


# ----------------------------------------------------------------------------- the ladder

def _anchor_of(strategies: Sequence[str]) -> int:
    return list(strategies).index(ANCHOR) if ANCHOR in strategies else 0


def _pair_sums(codes: np.ndarray, shares: np.ndarray, inv: np.ndarray, n_clusters: int,
               m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster ``num[a, b]`` (sum over hands seating both of ``a``'s mean win share
    per seat) and the number of hands seating both."""
    onehot = codes[:, :, None] == np.arange(m)[None, None, :]
    count = onehot.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, (shares[:, :, None] * onehot).sum(axis=1) / count, 0.0)
    present = count > 0
    num = np.zeros((n_clusters, m, m))
    both = np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            if a == b:
                continue
            sel = present[:, a] & present[:, b]
            both[a, b] = sel.sum()
            num[:, a, b] = np.bincount(inv[sel], weights=mean[sel, a], minlength=n_clusters)
    return num, both


def _expert_sums(codes: np.ndarray, shares: np.ndarray, inv: np.ndarray, n_clusters: int,
                 m: int, expert: int) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster and strategy ``s``: the win share of the ``s`` seat and the hands, over
    hands seating one ``s`` and ``n - 1`` experts (strategy index ``expert``)."""
    n = codes.shape[1]
    ws = np.zeros((n_clusters, m))
    hands = np.zeros((n_clusters, m))
    experts = (codes == expert).sum(axis=1)
    for s in range(m):
        if s == expert:
            continue
        is_s = codes == s
        sel = (is_s.sum(axis=1) == 1) & (experts == n - 1)
        ws[:, s] = np.bincount(inv[sel], weights=(shares * is_s)[sel].sum(axis=1),
                               minlength=n_clusters)
        hands[:, s] = np.bincount(inv[sel], minlength=n_clusters)
    return ws, hands


def _interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column (outer order statistics; NaN where every
    resample is NaN)."""
    q = 100 * (1 - confidence) / 2
    if samples.shape[0] == 0:
        nan = np.full(samples.shape[1:], np.nan)
        return nan, nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
        # order statistics, not interpolated: a bound stays -inf where resamples are
        return (np.nanpercentile(samples, q, axis=0, method="lower"),
                np.nanpercentile(samples, 100 - q, axis=0, method="higher"))


RATING_COLUMNS = ["rules", "players", "strategy", "rank", "rating", "rating_lo",
                  "rating_hi", "elo", "elo_lo", "elo_hi", "vs_experts_predicted",
                  "vs_experts_predicted_lo", "vs_experts_predicted_hi",
                  "vs_experts_measured", "vs_experts_measured_lo",
                  "vs_experts_measured_hi", "vs_experts_hands", "fair_share", "seat_hands",
                  "win_share", "wins", "deals", "anchor", "rank_by", "cluster",
                  "resamples"]
H2H_COLUMNS = ["rules", "players", "strategy", "opponent", "hands", "win_share", "lo",
               "hi", "predicted", "predicted_lo", "predicted_hi"]


#: the most deal resamples an interval takes (each holds a row of every deal's counts;
#: past about ten thousand the intervals' order statistics no longer move)
MAX_RESAMPLES = 100_000


def check_resamples(resamples: object) -> int:
    """``resamples`` (``--bootstrap``) as given, or FastmachError naming it."""
    if not is_integer(resamples) or resamples < 0:
        raise FastmachError(f"bootstrap: expected an integer >= 0, got {resamples!r}")
    if resamples > MAX_RESAMPLES:
        raise FastmachError(f"bootstrap: at most {MAX_RESAMPLES:,} resamples, got "
                            f"{resamples:,}")
    return int(resamples)


def ladder(hands: pd.DataFrame, strategies: Sequence[str], *, rank: str = "winner",
           resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
           cluster: str = "deal") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ratings and head-to-head tables of hand rows, one ladder per rules x players.

    ``hands``: hand rows (``rules``, ``players``, ``replicate``, ``strategy_i``,
    ``win_share_i``, ``hand_points_i``) of line-ups drawn from ``strategies`` (canonical
    strategy strings). Ratings are anchored at ``expert`` (else the first strategy).
    ``resamples`` deal bootstraps (``cluster="hand"``: hand bootstraps) give the
    ``confidence`` intervals; ``seed`` fixes them. Returns ``(ratings, head_to_head)``
    with the columns :data:`RATING_COLUMNS` and :data:`H2H_COLUMNS`, best first.
    """
    if cluster not in ("deal", "hand"):
        raise FastmachError(f"cluster {cluster!r}: expected 'deal' or 'hand'")
    check_resamples(resamples)
    strategies = list(strategies)
    if len(set(strategies)) != len(strategies) or len(strategies) < 2:
        raise FastmachError(f"ladder: expected two or more distinct strategies, got "
                            f"{strategies}")
    if "rules" not in hands.columns:
        hands = hands.assign(rules="")
    rating_rows, h2h_rows = [], []
    for stratum, ((rules, players), g) in enumerate(
            hands.groupby(["rules", "players"], sort=False)):
        r, h = _ladder_one(g, strategies, int(players), rank=rank, resamples=resamples,
                           seed=(seed, stratum), confidence=confidence, cluster=cluster)
        rating_rows += [{"rules": rules, "players": int(players)} | x for x in r]
        h2h_rows += [{"rules": rules, "players": int(players)} | x for x in h]
    return (pd.DataFrame(rating_rows, columns=RATING_COLUMNS),
            pd.DataFrame(h2h_rows, columns=H2H_COLUMNS))


def _ladder_one(g: pd.DataFrame, strategies: list[str], n: int, *, rank: str,
                resamples: int, seed: tuple[int, int], confidence: float, cluster: str
                ) -> tuple[list[dict], list[dict]]:
    m = len(strategies)
    anchor = _anchor_of(strategies)
    labels = deal_key(g).to_numpy() if cluster == "deal" else np.arange(len(g))
    data = choice_data(g, strategies, rank, cluster=labels)
    codes, shares, _ = _seat_arrays(g, n, strategies)
    _, inv = np.unique(labels, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    nc = len(data.clusters)
    seated = np.zeros(m, dtype=bool)
    seated[np.unique(codes)] = True
    if not seated.all():
        missing = [s for s, ok in zip(strategies, seated) if not ok]
        raise FastmachError(f"no hand seats {missing} among the {n}-player hands")
    num, both = _pair_sums(codes, shares, inv, nc, m)
    expert = strategies.index(ANCHOR) if ANCHOR in strategies else None
    if expert is None:  # no table of experts to predict or measure
        vs_ws = vs_hands = np.zeros((nc, m))
    else:
        vs_ws, vs_hands = _expert_sums(codes, shares, inv, nc, m, expert)
    K = len(data.sets)
    sums = np.hstack([data.sums, num.reshape(nc, -1), vs_ws, vs_hands])

    def stats_of(total: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """Every figure of the ladder from one row of (weighted) cluster sums."""
        ev, rest = total[:K], total[K:]
        w = rest[:K * m].reshape(K, m)
        rest = rest[K * m:]
        nm = rest[:m * m].reshape(m, m)
        vw, vh = rest[m * m:m * m + m], rest[m * m + m:]
        theta = fit(data.sets, ev, w, anchor, start=start)
        never = w.sum(axis=0) <= 0
        never[anchor] = False
        theta[never] = -np.inf  # never won: unbounded below (not the ridge's value)
        with np.errstate(invalid="ignore", divide="ignore"):
            h2h = nm / (nm + nm.T)
            measured = vw / vh
        if expert is not None:
            pred = np.exp(theta) / (np.exp(theta) + (n - 1) * np.exp(theta[expert]))
        else:
            pred = np.full(m, np.nan)
        with np.errstate(invalid="ignore", over="ignore"):
            pair = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        return np.concatenate([theta, pred, measured, h2h.ravel(), pair.ravel()])

    point = stats_of(sums.sum(axis=0))
    theta0 = fit(data.sets, *data.totals(), anchor)  # finite: the resamples' start
    if resamples:
        boot = cluster_bootstrap(sums, lambda tot: np.stack(
            [stats_of(row, theta0) for row in tot]), resamples=resamples,
            seed=int(np.random.SeedSequence(list(seed)).generate_state(1)[0]))
    else:
        boot = np.zeros((0, len(point)))
    lo, hi = _interval(boot, confidence)

    def part(i: int, size: int):
        return (point[i * m:i * m + size], lo[i * m:i * m + size], hi[i * m:i * m + size])

    th, th_lo, th_hi = part(0, m)
    pr, pr_lo, pr_hi = part(1, m)
    ms, ms_lo, ms_hi = part(2, m)
    off = 3 * m
    hh, hh_lo, hh_hi = (x[off:off + m * m].reshape(m, m) for x in (point, lo, hi))
    off += m * m
    pp, pp_lo, pp_hi = (x[off:off + m * m].reshape(m, m) for x in (point, lo, hi))
    seat_hands = (codes[:, :, None] == np.arange(m)).sum(axis=(0, 1))
    wins = np.array([(shares * (codes == s)).sum() for s in range(m)])
    fair = shares.sum(axis=1).mean() / n if len(shares) else math.nan
    order = np.argsort(-th, kind="stable")
    rows = []
    for place, s in enumerate(order, 1):
        has_vs = vs_hands[:, s].sum() > 0
        rows.append({
            "strategy": strategies[s], "rank": place, "rating": th[s],
            "rating_lo": th_lo[s], "rating_hi": th_hi[s],
            "elo": 1500 + ELO_PER_UNIT * th[s], "elo_lo": 1500 + ELO_PER_UNIT * th_lo[s],
            "elo_hi": 1500 + ELO_PER_UNIT * th_hi[s],
            "vs_experts_predicted": pr[s], "vs_experts_predicted_lo": pr_lo[s],
            "vs_experts_predicted_hi": pr_hi[s],
            "vs_experts_measured": ms[s] if has_vs else math.nan,
            "vs_experts_measured_lo": ms_lo[s] if has_vs else math.nan,
            "vs_experts_measured_hi": ms_hi[s] if has_vs else math.nan,
            "vs_experts_hands": int(vs_hands[:, s].sum()), "fair_share": fair,
            "seat_hands": int(seat_hands[s]), "win_share": wins[s] / seat_hands[s],
            "wins": wins[s], "deals": nc if cluster == "deal" else int(deal_key(g).nunique()),
            "anchor": strategies[anchor], "rank_by": rank, "cluster": cluster,
            "resamples": resamples})
    h2h = []
    for a in order:
        for b in order:
            if a == b or both[a, b] == 0:
                continue
            h2h.append({"strategy": strategies[a], "opponent": strategies[b],
                        "hands": int(both[a, b]), "win_share": hh[a, b], "lo": hh_lo[a, b],
                        "hi": hh_hi[a, b], "predicted": pp[a, b],
                        "predicted_lo": pp_lo[a, b], "predicted_hi": pp_hi[a, b]})
    return rows, h2h
