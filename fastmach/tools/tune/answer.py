"""The answer of ``fastmach tune``: the fresh-deal check, candidates.csv, figures, text.

The finalists (the best candidates of the largest rung reached) are played again on
``fresh_deals`` new deals (another seed, :attr:`Space.fresh_seed`): the search picked them
for doing well on its own deals, so their search estimates are biased in their favour (the
winner's curse); the fresh estimates are not. Each metric's deal-clustered 95% interval is
the scorecard's (:func:`fastmach.analysis.stats.scorecard`). The probability that a finalist meets
a target in a cell is ``P(L <= X <= H)`` for ``X ~ N(estimate, se^2)``, ``se`` being the
interval's half-width over its 97.5% quantile (the normal approximation of the
estimate; for shares this reads the Wilson interval as if symmetric, for the seat spread
its conservative interval, so that probability is conservative too). The probability
that it meets every target is the product over targets and cells: the estimates are
treated as independent (they share deals, so this is an approximation). The finalists are
ranked by that probability (to two decimals: 0.999 and 1.000 are a tie), then by their
loss on the fresh deals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fastmach.outputs import atomic_path
from fastmach.rules import format_value
from fastmach.analysis.metrics import SCORECARD_METRICS
from fastmach.analysis.inference import t_quantile
from fastmach.tools.tune.search import Evaluator, Search, _has_metric, loss_of
from fastmach.tools.tune.space import METRIC_UNITS, Space

__all__ = ["Answer", "fresh_check", "candidates_table", "write_answer"]


@dataclass
class Answer:
    """What a tune found: the table of candidates, the best rule set and how sure we are."""

    space: Space
    table: pd.DataFrame
    best: str | None
    runner_up: str | None
    probability: float
    text: str
    search: Search
    fresh_games: int
    out: Path | None = None
    files: dict[str, Path] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


def _se(row: pd.Series, metric: str) -> float:
    lo, hi, d = row[f"{metric}_lo"], row[f"{metric}_hi"], int(row["deals"])
    if d < 2 or math.isnan(lo) or math.isnan(hi):
        return math.nan
    return (hi - lo) / (2 * t_quantile(0.975, d - 1))


def _judge(space: Space, card: pd.DataFrame) -> tuple[pd.DataFrame, float]:
    """The card with ``meets_<metric>`` and ``p_<metric>`` per cell; P(meets every target)."""
    card = card.copy()
    p_all = 1.0
    for t in space.targets:
        meets, probs = [], []
        for _, row in card.iterrows():
            if not t.applies(int(row["players"])) or not _has_metric(t.metric, row):
                meets.append(pd.NA)
                probs.append(math.nan)
                continue
            x = float(row[t.metric])
            p = t.probability(x, _se(row, t.metric))
            meets.append(t.meets(x))
            probs.append(p)
            p_all *= 0.0 if math.isnan(p) else p
        card[f"meets_{t.metric}"] = meets
        card[f"p_{t.metric}"] = probs
    return card, p_all


def fresh_check(space: Space, search: Search, evaluate: Evaluator
                ) -> dict[str, tuple[pd.DataFrame, float]]:
    """The finalists on fresh deals: rules -> (judged scorecard, P(meets every target))."""
    out = {}
    for rules in search.ranked()[:space.finalists]:
        card = evaluate(rules, space.fresh_deals)
        out[rules] = _judge(space, card)
    return out


#: The most tick labels a partial-dependence panel shows (a long range is thinned).
_MAX_TICKS = 24
_METRIC_COLS = [c for m in SCORECARD_METRICS for c in (m, f"{m}_lo", f"{m}_hi")]


def candidates_table(space: Space, search: Search,
                     fresh: dict[str, tuple[pd.DataFrame, float]]) -> pd.DataFrame:
    """One row per candidate, stage (fresh / search) and cell, best first."""
    order = sorted(fresh, key=lambda r: (-round(fresh[r][1], 2), loss_of(space, fresh[r][0]), r))
    order += [r for r in search.ranked() if r not in fresh]
    rows = []
    for rank, rules in enumerate(order, 1):
        stages = [("fresh", fresh[rules][0], fresh[rules][1])] if rules in fresh else []
        judged, p = _judge(space, search.cards[rules])
        stages.append(("search", judged, p))
        for stage, card, p_all in stages:
            for i, row in card.iterrows():
                r: dict[str, Any] = {"rank": rank, "rules": rules}
                r.update({a.name: search.params[rules][a.name] for a in space.axes})
                r.update(stage=stage, players=int(row["players"]), lineup=row["lineup"],
                         deals=int(row["deals"]), hands=int(row["hands"]),
                         loss=loss_of(space, card.loc[[i]]))
                r.update({c: float(row[c]) for c in _METRIC_COLS})
                for t in space.targets:
                    r[f"meets_{t.metric}"] = row[f"meets_{t.metric}"]
                    r[f"p_{t.metric}"] = row[f"p_{t.metric}"]
                r["meets_all"] = all(pd.isna(row[f"meets_{t.metric}"])  # not applicable
                                     or bool(row[f"meets_{t.metric}"]) for t in space.targets)
                r["p_all"] = p_all
                rows.append(r)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ wording

def _fmt(metric: str, x: float) -> str:
    if math.isnan(x):
        return "n/a"
    if METRIC_UNITS[metric] == "share":
        return f"{100 * x:.1f}%"
    return f"{x:.2f}" if metric == "hands_per_game" else f"{x:.1f}"


def _figures(space: Space, row: pd.Series) -> str:
    parts = []
    for t in space.targets:
        if pd.isna(row[f"meets_{t.metric}"]):
            continue
        m = t.metric
        word = "met" if row[f"meets_{m}"] else "missed"
        parts.append(f"{m} {_fmt(m, row[m])} [{_fmt(m, row[m + '_lo'])}, "
                     f"{_fmt(m, row[m + '_hi'])}] (target {t.text}: {word}, "
                     f"P = {row[f'p_{m}']:.2f})")
    return "; ".join(parts)


def _params_text(space: Space, params: dict[str, Any]) -> str:
    return ", ".join(f"{a.name}={format_value(a.name, params[a.name])}" for a in space.axes)


def answer_text(space: Space, table: pd.DataFrame, search: Search, fresh_games: int,
                max_games: int) -> tuple[str, str | None, str | None, float]:
    """The short text: best rule set, how sure, the runner-up that differs most."""
    head = (f"fastmach tune {space.name}: {search.trials} trials, {len(search.cards)} "
            f"distinct rule sets, {search.games + fresh_games} of {max_games} games "
            f"(search {search.games}, fresh-deal check {fresh_games})")
    lines = [head, f"stopped: {search.stopped or 'the race finished'}"]
    fresh = table[table["stage"] == "fresh"]
    if fresh.empty:
        lines.append("no finalist was checked on fresh deals")
        return "\n".join(lines), None, None, math.nan
    ranked = list(dict.fromkeys(fresh["rules"]))
    best = ranked[0]
    p_best = float(fresh.loc[fresh["rules"] == best, "p_all"].iloc[0])
    params = search.params
    lines.append(f"best: {best}  ({_params_text(space, params[best])})")
    for _, row in fresh[fresh["rules"] == best].iterrows():
        lines.append(f"  {row['players']} players, {row['lineup']}, {row['deals']} fresh "
                     f"deals: {_figures(space, row)}")
    lines.append(f"  P(meets every target) = {p_best:.2f} (normal approximation of each "
                 f"fresh estimate; targets and cells taken as independent)")
    others = ranked[1:]
    runner = None
    if others:
        p_of = {r: float(fresh.loc[fresh["rules"] == r, "p_all"].iloc[0]) for r in others}
        good = [r for r in others if p_of[r] >= 0.5] or others
        diff = lambda r: sum(params[r][a.name] != params[best][a.name]  # noqa: E731
                             for a in space.axes)
        runner = max(good, key=lambda r: (diff(r), p_of[r]))
        changed = [a.name for a in space.axes if params[runner][a.name] != params[best][a.name]]
        lines.append(f"runner-up that differs most: {runner} (differs in "
                     f"{', '.join(changed) or 'nothing'}), P(meets every target) = "
                     f"{p_of[runner]:.2f}")
        for _, row in fresh[fresh["rules"] == runner].iterrows():
            lines.append(f"  {row['players']} players, {row['lineup']}: "
                         f"{_figures(space, row)}")
    met = [r for r in ranked if bool(fresh.loc[fresh["rules"] == r, "meets_all"].all())]
    lines.append(f"{len(met)} of {len(ranked)} finalists meet every target on fresh deals")
    return "\n".join(lines), best, runner, p_best


# ------------------------------------------------------------------------------ figures

def _search_rows(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["stage"] == "search"]


def plot_partial_dependence(space: Space, table: pd.DataFrame):
    """Each metric (rows) against each searched parameter (columns): every candidate at
    its largest rung (dots) and the mean at each value (line), the target's band shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _search_rows(table)
    targeted = [t.metric for t in space.targets]
    metrics = targeted + [m for m in SCORECARD_METRICS if m not in targeted and m in rows
                          and rows[m].notna().any() and rows[m].nunique() > 1]
    nr, nc = len(metrics), len(space.axes)
    fig, axes = plt.subplots(nr, nc, figsize=(3.2 * nc + 0.6, 2.4 * nr + 0.6), squeeze=False,
                             sharey="row")
    for i, m in enumerate(metrics):
        target = next((t for t in space.targets if t.metric == m), None)
        for j, a in enumerate(space.axes):
            ax = axes[i][j]
            pos = {v: k for k, v in enumerate(a.values)}
            x = rows[a.name].map(pos).to_numpy(dtype=float)
            ax.scatter(x, rows[m], s=10, alpha=0.45, color="#4477aa")
            mean = rows.groupby(rows[a.name].map(pos))[m].mean().sort_index()
            ax.plot(mean.index, mean.to_numpy(), color="#222222", lw=1.5)
            if target is not None:
                lo = target.low if math.isfinite(target.low) else None
                hi = target.high if math.isfinite(target.high) else None
                ax.axhspan(lo if lo is not None else ax.get_ylim()[0],
                           hi if hi is not None else ax.get_ylim()[1],
                           color="#66aa55", alpha=0.15, lw=0)
            step = -(-len(a.values) // _MAX_TICKS)   # (a long range: every step-th value)
            ax.set_xticks(range(0, len(a.values), step))
            ax.set_xticklabels([format_value(a.name, v) for v in a.values[::step]],
                               fontsize=7, rotation=0 if len(a.values) < 8 else 90)
            if i == nr - 1:
                ax.set_xlabel(a.name)
            if j == 0:
                ax.set_ylabel(m.replace("_", " "), fontsize=8)
    fig.suptitle("metric against each searched parameter (dots: candidates; line: mean at "
                 "each value; green: target)", fontsize=9)
    fig.tight_layout()
    return fig


def conflicting_pair(space: Space, table: pd.DataFrame) -> tuple[str, str] | None:
    """Two targets in conflict: no candidate has the least violation of both."""
    rows = _search_rows(table)
    by = rows.groupby("rules")
    for i, a in enumerate(space.targets):
        for b in space.targets[i + 1:]:
            va = by[a.metric].mean().map(a.violation)
            vb = by[b.metric].mean().map(b.violation)
            if not ((va == va.min()) & (vb == vb.min())).any():
                return a.metric, b.metric
    return None


def plot_pareto(space: Space, table: pd.DataFrame, pair: tuple[str, str]):
    """The two metrics of conflicting targets, every candidate, the Pareto front of their
    violations joined, the target regions shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ta = next(t for t in space.targets if t.metric == pair[0])
    tb = next(t for t in space.targets if t.metric == pair[1])
    g = _search_rows(table).groupby("rules")[[ta.metric, tb.metric]].mean()
    va, vb = g[ta.metric].map(ta.violation), g[tb.metric].map(tb.violation)
    front = [r for r in g.index if not any((va[o] <= va[r]) and (vb[o] <= vb[r]) and
                                           (va[o] < va[r] or vb[o] < vb[r]) for o in g.index)]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.scatter(g[ta.metric], g[tb.metric], s=14, color="#999999", label="candidates")
    f = g.loc[front].sort_values(ta.metric)
    ax.plot(f[ta.metric], f[tb.metric], "o-", color="#cc3311", label="Pareto front")
    for t, span in ((ta, ax.axvspan), (tb, ax.axhspan)):
        lim = ax.get_xlim() if span is ax.axvspan else ax.get_ylim()
        span(t.low if math.isfinite(t.low) else lim[0],
             t.high if math.isfinite(t.high) else lim[1], color="#66aa55", alpha=0.12, lw=0)
    ax.set_xlabel(f"{ta.metric} (target {ta.text})")
    ax.set_ylabel(f"{tb.metric} (target {tb.text})")
    ax.legend(fontsize=8)
    ax.set_title("conflicting targets: the candidates no other beats on both", fontsize=9)
    fig.tight_layout()
    return fig


def write_answer(out: Path, space: Space, table: pd.DataFrame, text: str) -> dict[str, Path]:
    """DIR/candidates.csv, DIR/answer.txt, DIR/partial_dependence.png and, when two targets
    conflict, DIR/pareto.png; each written atomically."""
    files = {"candidates": out / "candidates.csv", "answer": out / "answer.txt",
             "partial_dependence": out / "partial_dependence.png"}
    with atomic_path(files["candidates"]) as tmp:
        table.to_csv(tmp, index=False)
    with atomic_path(files["answer"]) as tmp:
        tmp.write_text(text + "\n", encoding="utf-8")
    import matplotlib.pyplot as plt

    fig = plot_partial_dependence(space, table)
    with atomic_path(files["partial_dependence"]) as tmp:
        fig.savefig(tmp, dpi=100, format="png")
    plt.close(fig)
    pair = conflicting_pair(space, table) if len(space.targets) > 1 else None
    if pair is not None:
        files["pareto"] = out / "pareto.png"
        fig = plot_pareto(space, table, pair)
        with atomic_path(files["pareto"]) as tmp:
            fig.savefig(tmp, dpi=100, format="png")
        plt.close(fig)
    return files

