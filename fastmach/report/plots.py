"""Figures of a balance report (matplotlib, Agg backend; PNG and SVG).

Each ``plot_*`` function takes hand rows or a table from :mod:`fastmach.analysis.stats` and returns
a matplotlib ``Figure``; panels of a figure share their axes (no panel is shrunk to a
sliver by another's range); rules appear by their short labels (:func:`short_labels`);
:func:`save_figure` writes it as PNG and SVG, :func:`figure_png_base64` embeds it in HTML.
A preset always has the same colour (:data:`PRESET_COLOURS`).
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from fastmach.analysis.metrics import METRICS  # noqa: E402
from fastmach.analysis.variants import parse_rules  # noqa: E402

__all__ = [
    "PRESET_COLOURS", "preset_colour", "short_labels", "plot_length_survival",
    "plot_stock_timing", "plot_seat_dots", "plot_strategy_matrix", "plot_effects",
    "save_figure", "figure_png_base64",
]

#: One colour per preset, used by every figure (Okabe-Ito, colour-blind safe).
PRESET_COLOURS = {
    "classic": "#0072B2",
    "jokers": "#D55E00",
    "ace-low": "#009E73",
    "italian": "#CC79A7",
}
_EXTRA = ["#E69F00", "#56B4E9", "#F0E442", "#000000"]
_PRESET_ORDER = list(PRESET_COLOURS)
_STYLES = ["-", "--", ":", "-."]


def preset_colour(preset: str) -> str:
    """The colour of ``preset`` (unknown presets get a stable extra colour)."""
    if preset in PRESET_COLOURS:
        return PRESET_COLOURS[preset]
    return _EXTRA[sum(map(ord, preset)) % len(_EXTRA)]


def _rules_order(rules) -> list[str]:
    """Presets in their fixed order, each followed by its variants in parameter order
    (numeric parameters by value: hand_size=9 before hand_size=11)."""
    from fastmach.rules import Rules

    def key(r: str):
        p, over = parse_rules(r)
        typed = Rules.parse(r)
        values = tuple((k, (0, getattr(typed, k), "") if isinstance(getattr(typed, k), (int, float))
                        else (1, 0, str(getattr(typed, k)))) for k in sorted(over))
        return (_PRESET_ORDER.index(p) if p in _PRESET_ORDER else 99, p, len(over) > 0,
                len(over), values)
    return sorted(set(rules), key=key)


def _panels(n: int, width: float = 4.2, height: float = 3.6, sharey: bool = True,
            sharex: bool = True):
    ncols = min(n, 4)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                             squeeze=False, sharey=sharey, sharex=sharex)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, list(axes.ravel()[:n])


def short_labels(rules) -> dict[str, str]:
    """``{rules string: name}``: presets keep their name, a variant is named by what it
    changes (``hand_size=9, opening_points=24``; ``classic with jokers=2`` when the study
    holds several presets)."""
    order = _rules_order(rules)
    several = len({parse_rules(r)[0] for r in order}) > 1
    out = {}
    for r in order:
        preset, over = parse_rules(r)
        change = ", ".join(f"{k}={v}" for k, v in over.items())
        out[r] = preset if not over else (f"{preset} with {change}" if several else change)
    return out


def _line_style(rules: str, order: list[str]) -> dict:
    preset = parse_rules(rules)[0]
    same = [r for r in order if parse_rules(r)[0] == preset]
    return {"color": preset_colour(preset), "ls": _STYLES[same.index(rules) % len(_STYLES)],
            "lw": 1.6 if rules == preset else 1.2}


def _legend_rules(fig: Figure, order: list[str], labels: dict[str, str]) -> None:
    handles = [Line2D([], [], label=labels[r], **_line_style(r, order)) for r in order]
    fig.legend(handles=handles, title="rules", loc="center right", fontsize=8,
               title_fontsize=8, frameon=False)


def _survival(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    v = np.sort(values)
    return 1.0 - np.searchsorted(v, grid, side="right") / max(len(v), 1)


def plot_length_survival(hands: pd.DataFrame, labels: dict[str, str]) -> Figure:
    """Share of hands still running after t turns, one line per rules, a panel per player count.

    Every panel has the same turn axis and the same 0-100% axis.
    """
    players = sorted(int(p) for p in hands["players"].unique())
    order = _rules_order(hands["rules"])
    top = float(np.quantile(hands["turns"], 0.995)) if len(hands) else 1.0
    grid = np.linspace(0, top, 300)
    fig, axes = _panels(len(players), width=3.6, height=3.2)
    for ax, p in zip(axes, players):
        sub = hands[hands["players"] == p]
        for r in order:
            t = sub.loc[sub["rules"] == r, "turns"].to_numpy(dtype=float)
            if t.size:
                ax.plot(grid, 100 * _survival(t, grid), **_line_style(r, order))
        ax.set_title(f"{p} players", fontsize=10)
        ax.set_xlabel("turns into the hand")
        ax.set_ylim(0, 101)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("hands still running (%)")
    fig.suptitle("Hand length: share of hands lasting longer than t turns (per hand)")
    fig.tight_layout(rect=(0, 0, 0.84, 0.94))
    _legend_rules(fig, order, labels)
    return fig


def plot_stock_timing(hands: pd.DataFrame, labels: dict[str, str]) -> Figure:
    """Share of hands whose stock has run out by turn t (``stock_exhausted_turn``).

    One line per rules, a panel per player count, shared axes; a curve ends at the share
    of hands in which the stock ran out at all.
    """
    players = sorted(int(p) for p in hands["players"].unique())
    order = _rules_order(hands["rules"])
    turn = hands["stock_exhausted_turn"].to_numpy(dtype=float)
    ran = turn >= 0
    top = float(turn[ran].max()) if ran.any() else 1.0
    grid = np.linspace(0, max(top, 1.0), 300)
    fig, axes = _panels(len(players), width=3.6, height=3.2)
    ymax = 0.0
    for ax, p in zip(axes, players):
        sub = hands[hands["players"] == p]
        for r in order:
            t = sub.loc[sub["rules"] == r, "stock_exhausted_turn"].to_numpy(dtype=float)
            if not t.size:
                continue
            hit = np.where(t >= 0, t, np.inf)
            curve = 100 * np.searchsorted(np.sort(hit), grid, side="right") / t.size
            ymax = max(ymax, float(curve[-1]))
            ax.plot(grid, curve, **_line_style(r, order))
        ax.set_title(f"{p} players", fontsize=10)
        ax.set_xlabel("turn of the hand")
        ax.grid(alpha=0.3)
    for ax in axes:
        ax.set_ylim(0, max(1.0, 1.08 * ymax))
    axes[0].set_ylabel("hands whose stock ran out (%)")
    fig.suptitle("Stock exhaustion timing: share of hands whose stock is gone by turn t")
    fig.tight_layout(rect=(0, 0, 0.84, 0.94))
    _legend_rules(fig, order, labels)
    return fig


def plot_seat_dots(seats: pd.DataFrame, labels: dict[str, str]) -> Figure:
    """Dot plot of each seat's win share minus the fair share (percentage points per hand).

    ``seats`` is :func:`fastmach.analysis.stats.seat_table` by ``("rules", "players")``; the bars
    are its multiplicity-adjusted intervals; filled dots are named seats (interval
    excluding the fair share). One panel per player count, a shared axis.
    """
    players = sorted(int(p) for p in seats["players"].unique())
    order = _rules_order(seats["rules"])
    rows_max = max(len(seats[seats["players"] == p]) for p in players)
    fig, axes = plt.subplots(1, len(players), figsize=(3.4 * len(players) + 1.2,
                                                      0.16 * rows_max + 1.6),
                             squeeze=False, sharex=True)
    for ax, p in zip(axes.ravel(), players):
        sub = seats[seats["players"] == p]
        ticks: list[float] = []
        names: list[str] = []
        y = 0.0
        for r in order:
            s = sub[sub["rules"] == r].sort_values("seat")
            for _, row in s.iterrows():
                d = 100 * (row["win_share"] - row["fair"])
                lo, hi = 100 * (row["lo"] - row["fair"]), 100 * (row["hi"] - row["fair"])
                c = preset_colour(parse_rules(r)[0])
                ax.errorbar([d], [y], xerr=[[max(d - lo, 0.0)], [max(hi - d, 0.0)]], fmt="o", capsize=2, ms=4,
                            color=c, mfc=c if row["named"] else "white")
                ticks.append(y)
                names.append(f"{labels[r]} s{int(row['seat']) + 1}")
                y += 1
            y += 0.6
        ax.axvline(0, color="grey", ls="--", lw=1)
        ax.set_yticks(ticks, names, fontsize=6)
        ax.invert_yaxis()
        ax.set_title(f"{p} players", fontsize=10)
        ax.set_xlabel("win share minus fair (pp per hand)")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("Seat edges (s1 = first player): 95% score intervals simultaneous with "
                 "the seat test (max-T over every seat)")
    fig.tight_layout()
    return fig


def plot_strategy_matrix(matrix: pd.DataFrame) -> Figure:
    """Heat maps strategy x opponent, one per player count: per-seat win share minus the
    fair share at that player count (pp per hand).

    ``matrix`` is :func:`fastmach.analysis.stats.strategy_matrix`; cells are annotated with
    the win share, its deal-clustered interval and the fair share of the player count.
    """
    names = sorted(set(matrix["strategy"]) | set(matrix["opponent"]))
    counts = sorted(int(p) for p in matrix["players"].unique())
    grids = {}
    for p in counts:
        excess = np.full((len(names), len(names)), np.nan)
        text = [["" for _ in names] for _ in names]
        for _, r in matrix[matrix["players"] == p].iterrows():
            i, j = names.index(r["strategy"]), names.index(r["opponent"])
            excess[i, j] = 100 * (r["win_share"] - r["fair"])
            text[i][j] = (f"{100 * r['win_share']:.1f}%\n[{100 * r['lo']:.1f}, "
                          f"{100 * r['hi']:.1f}]\nfair {100 * r['fair']:.0f}%")
        grids[p] = (excess, text)
    finite = [np.nanmax(np.abs(e)) for e, _ in grids.values() if np.isfinite(e).any()]
    lim = max([5.0] + [float(x) for x in finite])
    fig, axes = plt.subplots(1, len(counts), squeeze=False,
                             figsize=((1.7 * len(names) + 1.2) * len(counts) + 1.6,
                                      1.1 * len(names) + 1.8))
    im = None
    for ax, p in zip(axes[0], counts):
        excess, text = grids[p]
        im = ax.imshow(excess, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
        for i in range(len(names)):
            for j in range(len(names)):
                dark = np.isfinite(excess[i, j]) and abs(excess[i, j]) > 0.6 * lim
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
        ax.set_xticks(range(len(names)), names, rotation=20, fontsize=7)
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.set_xlabel("opponent")
        ax.set_title(f"{p} players", fontsize=10)
    axes[0][0].set_ylabel("strategy")
    assert im is not None   # one panel at least
    fig.colorbar(im, ax=list(axes[0]), label="win share per seat minus fair (pp per hand)")
    fig.suptitle("Strategy against strategy (hands seating both, rules pooled; fair share "
                 "of each player count)")
    return fig


_EFFECT_PANELS = [(m, f"{METRICS[m].label} ({METRICS[m].diff_unit} per hand)"
                   if METRICS[m].unit == "share" else METRICS[m].label, METRICS[m].scale)
                  for m in ("turns_per_hand", "stock_out_per_hand", "first_seat_edge")]


def plot_effects(effects: pd.DataFrame, labels: dict[str, str]) -> Figure:
    """Each rule's paired effect by player count (one marker per line-up, black: pooled).

    ``effects`` is :func:`fastmach.analysis.stats.effects`; one panel per metric with its own unit,
    shared by every rule; 95% deal-clustered intervals; the dashed line is no effect.
    """
    variants = _rules_order(effects["variant"])
    lineups = sorted(x for x in effects["lineup"].dropna().unique())
    markers = ["o", "s", "^", "v", "D", "P", "X"]
    rows = []
    for v in variants:
        sub = effects[effects["variant"] == v]
        for p in sorted(sub["players"].dropna().unique()):
            rows.append((v, p))
        rows.append((v, None))
    fig, axes = plt.subplots(1, len(_EFFECT_PANELS),
                             figsize=(13, 0.22 * len(rows) + 1.8), sharey=True)
    for ax, (metric, xlabel, scale) in zip(axes, _EFFECT_PANELS):
        sub = effects[effects["metric"] == metric]
        for y, (v, p) in enumerate(rows):
            if p is None:
                pick = sub[(sub["variant"] == v) & sub["players"].isna()]
                style = [("pooled", "D", "black")]
            else:
                pick = sub[(sub["variant"] == v) & (sub["players"] == p)]
                style = None
            for k, (_, r) in enumerate(pick.iterrows()):
                if style:
                    _, mk, c = style[0]
                    off = 0.0
                else:
                    j = lineups.index(r["lineup"])
                    mk = markers[j % len(markers)]
                    c = preset_colour(parse_rules(v)[0])
                    off = (j - (len(lineups) - 1) / 2) * 0.12
                d, lo, hi = scale * r["diff"], scale * r["lo"], scale * r["hi"]
                ax.errorbar([d], [y + off], xerr=[[max(d - lo, 0)], [max(hi - d, 0)]],
                            fmt=mk, ms=4, capsize=2, color=c, mfc="white" if not style else c)
        ax.axvline(0, color="grey", ls="--", lw=1)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(rows)),
                       [f"{labels[v]} {int(p)}p" if p is not None else f"{labels[v]} pooled"
                        for v, p in rows], fontsize=7)
    axes[0].invert_yaxis()
    handles = [Line2D([], [], marker=markers[j % len(markers)], ls="", color="grey",
                      mfc="white", label=lu) for j, lu in enumerate(lineups)]
    handles.append(Line2D([], [], marker="D", ls="", color="black", label="pooled"))
    fig.legend(handles=handles, title="line-up", loc="center right", fontsize=8,
               title_fontsize=8, frameon=False)
    fig.suptitle("Effect of each rule against its baseline, by player count and line-up "
                 "(paired on common deals, 95% intervals)")
    fig.tight_layout(rect=(0, 0, 0.85, 0.94))
    return fig


def save_figure(fig: Figure, out_dir: Path | str, name: str, dpi: int = 110) -> dict:
    """Write ``fig`` as ``out_dir/name.png`` and ``out_dir/name.svg``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"png": out / f"{name}.png", "svg": out / f"{name}.svg"}
    fig.savefig(paths["png"], dpi=dpi)
    fig.savefig(paths["svg"])
    return paths


def figure_png_base64(fig: Figure, dpi: int = 110) -> str:
    """The figure as a base64 PNG, ready for an ``<img src="data:image/png;base64,...">``."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return base64.b64encode(buf.getvalue()).decode("ascii")
