"""Response curves: each headline figure of a study against each swept parameter.

Every numeric rule parameter the study sweeps (:func:`fastmach.analysis.variants.
swept_parameters`) and the player count is an axis. :func:`plot_curve` draws the headline
metrics (:data:`CURVE_METRICS`) against one axis with their intervals, one line per value
of the other parameters, the axis in numeric order; a figure per axis, a row of panels per
metric and, for a rule parameter, a column per player count.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from fastmach.analysis.metrics import CURVE_METRICS, METRICS
from fastmach.analysis.variants import parameter_values, parse_rules
from fastmach.report.plots import preset_colour

__all__ = ["CURVE_METRICS", "curve_axes", "curve_caption", "curve_title", "plot_curve"]


_STYLES = ["-", "--", ":", "-."]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X"]
_SEQ = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]


def curve_axes(front: pd.DataFrame, params) -> list[str]:
    """The axes of a study: ``players`` when it has two or more player counts, then each
    swept rule parameter."""
    out = ["players"] if front["players"].nunique() > 1 else []
    return out + [p for p in params]


def curve_title(axis: str) -> str:
    return ("Headline figures against the player count" if axis == "players"
            else f"Headline figures against {axis}")


def curve_caption(axis: str, params, who: str = "") -> str:
    others = [p for p in params if p != axis]
    if axis == "players":
        lines = "one line per rules variant"
    else:
        lines = ("one line per value of " + " and ".join(others) if others
                 else "one line per rules family") + ", a column per player count"
    return (f"Each headline figure against {axis} (in numeric order), {lines}; "
            f"{who or 'one line-up'} (no two line-ups are combined). Bars: 95% deal-clustered intervals, not adjusted for multiplicity "
            "(the first-seat edge: simultaneous with the seat test); a share's interval is a "
            "score interval and stays inside 0-100%.")


def _value(metric: str, r, suffix: str = "") -> float:
    return METRICS[metric].scale * float(r[f"{metric}{suffix}"])


def _ylabel(metric: str) -> str:
    m = METRICS[metric]
    unit = "pp per hand" if metric == "first_seat_edge" else m.value_unit
    return f"{m.label} ({unit})"


def _families(front: pd.DataFrame, axis: str, params) -> dict[tuple, list[str]]:
    """Rules grouped by everything but ``axis``: preset, other swept values, other
    overrides; only families with two or more values on the axis."""
    fams: dict[tuple, list[str]] = {}
    for r in sorted(front["rules"].unique()):
        preset, over = parse_rules(r)
        vals = parameter_values(r)
        rest = tuple((k, v) for k, v in sorted(over.items()) if k != axis and k not in params)
        key = (preset, tuple((p, vals[p]) for p in params if p != axis), rest)
        fams.setdefault(key, []).append(r)
    return {k: v for k, v in fams.items()
            if len({parameter_values(r)[axis] for r in v}) > 1}


def _family_label(key: tuple, several_presets: bool) -> str:
    preset, swept, rest = key
    words = [f"{p}={v:g}" for p, v in swept] + [f"{k}={v}" for k, v in rest]
    head = preset if several_presets or not words else ""
    return ", ".join(x for x in [head] + words if x) or preset


def plot_curve(front: pd.DataFrame, axis: str, params, labels: dict[str, str],
               who: str = "") -> Figure:
    """Headline metrics against ``axis`` (``players`` or a swept rule parameter).

    ``front`` is the scorecard by ``("rules", "players")`` (values and ``*_lo, *_hi``);
    ``labels`` names each rules string by what it changes; ``who``: the players the rows
    describe (one line-up), for the title.
    """
    import matplotlib.pyplot as plt

    metrics = [m for m in CURVE_METRICS if m in front.columns
               and front[m].notna().any()]
    if axis == "players":
        columns: list[int | None] = [None]
        order = list(labels) if labels else sorted(front["rules"].unique())
        lines = [(labels.get(r, r), [r]) for r in order if r in set(front["rules"])]
    else:
        columns = [int(p) for p in sorted(front["players"].unique())]
        fams = _families(front, axis, params)
        several = len({k[0] for k in fams}) > 1
        lines = [(_family_label(k, several), v) for k, v in
                 sorted(fams.items(), key=lambda kv: tuple(x for _, x in kv[0][1]))]
    fig, axes = plt.subplots(len(metrics), len(columns),
                             figsize=(3.6 * len(columns) + (4.6 if len(columns) == 1 else 2.6),
                                      2.5 * len(metrics) + 1.1),
                             squeeze=False, sharex=True, sharey="row")
    xs_all = sorted({float(x) for x in (front["players"] if axis == "players" else
                     [parameter_values(r)[axis] for r in front["rules"]])})
    step = (min(np.diff(xs_all)) if len(xs_all) > 1 else 1.0) * 0.06
    for j, players in enumerate(columns):
        sub = front if players is None else front[front["players"] == players]
        for k, (name, rules) in enumerate(lines):
            pts = sub[sub["rules"].isin(rules)].copy()
            if pts.empty:
                continue
            pts["_x"] = (pts["players"].astype(float) if axis == "players" else
                         [parameter_values(r)[axis] for r in pts["rules"]])
            pts = pts.sort_values("_x")
            off = (k - (len(lines) - 1) / 2) * step
            if axis == "players":
                colour = preset_colour(parse_rules(rules[0])[0])
                style = _STYLES[k % len(_STYLES)]
            else:
                colour, style = _SEQ[k % len(_SEQ)], "-"
            for i, m in enumerate(metrics):
                ax = axes[i][j]
                y = np.array([_value(m, r) for _, r in pts.iterrows()])
                adj = "_adjusted" if f"{m}_lo_adjusted" in pts.columns else ""
                lo = np.array([_value(m, r, "_lo" + adj) for _, r in pts.iterrows()])
                hi = np.array([_value(m, r, "_hi" + adj) for _, r in pts.iterrows()])
                err = np.vstack([np.maximum(y - lo, 0), np.maximum(hi - y, 0)])
                ax.errorbar(pts["_x"] + off, y, yerr=err, color=colour, ls=style, lw=1.3,
                            marker=_MARKERS[k % len(_MARKERS)], ms=3.5, capsize=2,
                            label=name if (i == 0 and j == 0) else None)
    for i, m in enumerate(metrics):
        axes[i][0].set_ylabel(_ylabel(m), fontsize=8)
        for j, players in enumerate(columns):
            ax = axes[i][j]
            ax.grid(alpha=0.3)
            if m == "first_seat_edge":
                ax.axhline(0, color="grey", ls="--", lw=1)
            if i == 0 and players is not None:
                ax.set_title(f"{players} players", fontsize=10)
            if i == len(metrics) - 1:
                ax.set_xlabel("players" if axis == "players" else axis)
                ax.set_xticks(xs_all, [f"{x:g}" for x in xs_all])
    fig.suptitle(curve_title(axis) + (f"\n{who}" if who else "") + " (95% intervals)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.55 if len(columns) == 1 else 0.8, 0.93))
    others = [p for p in params if p != axis]
    fig.legend(loc="center right", fontsize=7, title="rules" if axis == "players"
               else (", ".join(others) or "rules"), title_fontsize=8, frameon=False)
    return fig
