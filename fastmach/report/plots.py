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


def _kind_rows(hands: pd.DataFrame, rows) -> list[tuple[str, pd.DataFrame]]:
    """``rows``: ``(title, line-up)`` pairs; each becomes a row of panels of its hands only
    (no two line-ups in one curve). None: every hand in one row (a study of one line-up)."""
    if rows is None:
        return [("", hands)]
    return [(title, hands[hands["lineup"].astype(str) == lu]) for title, lu in rows]


def _grid(nrows: int, ncols: int, width: float = 3.3, height: float = 2.7):
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols + 2.6, height * nrows + 0.8),
                             squeeze=False, sharex=True, sharey=True)
    return fig, axes


def plot_length_survival(hands: pd.DataFrame, labels: dict[str, str], rows=None) -> Figure:
    """Share of hands still running after t turns, one line per rules, a panel per player
    count and a row per kind of table (``rows``: ``(title, line-up)`` pairs).

    Every panel has the same axes; the turn axis runs to the longest hand, so no curve is
    cut while hands still run.
    """
    players = sorted(int(p) for p in hands["players"].unique())
    order = _rules_order(hands["rules"])
    groups = _kind_rows(hands, rows)
    top = float(max((g["turns"].max() for _, g in groups if len(g)), default=1.0))
    grid = np.linspace(0, top * 1.02, 400)
    fig, axes = _grid(len(groups), len(players))
    for i, (title, sub_k) in enumerate(groups):
        for ax, p in zip(axes[i], players):
            sub = sub_k[sub_k["players"] == p]
            for r in order:
                t = sub.loc[sub["rules"] == r, "turns"].to_numpy(dtype=float)
                if t.size:
                    ax.plot(grid, 100 * _survival(t, grid), **_line_style(r, order))
            ax.set_title(f"{p} players" + (f", {title}" if title else ""), fontsize=9)
            ax.set_ylim(0, 101)
            ax.grid(alpha=0.3)
        axes[i][0].set_ylabel("hands still running (%)", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("turns into the hand")
    fig.suptitle("Hand length: share of hands lasting longer than t turns")
    fig.tight_layout(rect=(0, 0, 0.8, 0.95))
    _legend_rules(fig, order, labels)
    return fig


def plot_stock_timing(hands: pd.DataFrame, labels: dict[str, str], rows=None) -> Figure:
    """Share of hands whose stock has run out by turn t (``stock_exhausted_turn``).

    One line per rules, a panel per player count, a row per kind of table (``rows``), shared
    axes; a curve ends at the share of hands in which the stock ran out at all.
    """
    players = sorted(int(p) for p in hands["players"].unique())
    order = _rules_order(hands["rules"])
    groups = _kind_rows(hands, rows)
    turn = hands["stock_exhausted_turn"].to_numpy(dtype=float)
    ran = turn >= 0
    top = float(turn[ran].max()) if ran.any() else 1.0
    grid = np.linspace(0, max(top, 1.0) * 1.02, 400)
    fig, axes = _grid(len(groups), len(players))
    for i, (title, sub_k) in enumerate(groups):
        for ax, p in zip(axes[i], players):
            sub = sub_k[sub_k["players"] == p]
            for r in order:
                t = sub.loc[sub["rules"] == r, "stock_exhausted_turn"].to_numpy(dtype=float)
                if not t.size:
                    continue
                hit = np.where(t >= 0, t, np.inf)
                curve = 100 * np.searchsorted(np.sort(hit), grid, side="right") / t.size
                ax.plot(grid, curve, **_line_style(r, order))
            ax.set_title(f"{p} players" + (f", {title}" if title else ""), fontsize=9)
            ax.set_ylim(0, 101)
            ax.grid(alpha=0.3)
        axes[i][0].set_ylabel("stock gone (% of hands)", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("turn of the hand")
    fig.suptitle("When the stock runs out: share of hands whose stock is gone by turn t")
    fig.tight_layout(rect=(0, 0, 0.8, 0.95))
    _legend_rules(fig, order, labels)
    return fig


def plot_seat_dots(seats: pd.DataFrame, labels: dict[str, str], title: str = "") -> Figure:
    """Dot plot of each seat's win share minus the fair share (percentage points per hand).

    ``seats`` is :func:`fastmach.analysis.stats.seat_table` rows of one line-up (by cell, or
    of a study of one line-up); the bars are its multiplicity-adjusted intervals; filled
    dots are named seats (interval excluding the fair share). One panel per player count,
    a shared axis; ``title`` says whose seats they are.
    """
    players = sorted(int(p) for p in seats["players"].unique())
    order = _rules_order(seats["rules"])
    rows_max = max(len(seats[seats["players"] == p]) for p in players)
    ncols = min(2, len(players))
    nrows = (len(players) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, sharex=True, layout="constrained",
                             figsize=(6.4 * ncols, (0.12 * rows_max + 1.2) * nrows + 0.6))
    for ax in axes.ravel()[len(players):]:
        ax.set_visible(False)
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
        ax.set_yticks(ticks, names, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{p} players", fontsize=10)
        ax.set_xlabel("win share minus fair (pp per hand)")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("Seat edges (s1 = first player)" + (f", {title}" if title else "")
                 + ": 95% intervals simultaneous with the seat test", fontsize=10)
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
    ncols = min(2, len(counts))
    nrows = (len(counts) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, layout="constrained",
                             figsize=((1.45 * len(names) + 1.6) * ncols + 1.4,
                                      (1.0 * len(names) + 1.3) * nrows + 0.8))
    for ax in axes.ravel()[len(counts):]:
        ax.set_visible(False)
    im = None
    for ax, p in zip(axes.ravel(), counts):
        excess, text = grids[p]
        im = ax.imshow(excess, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
        for i in range(len(names)):
            for j in range(len(names)):
                dark = np.isfinite(excess[i, j]) and abs(excess[i, j]) > 0.6 * lim
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=9,
                        color="white" if dark else "black")
        ax.set_xticks(range(len(names)), names, rotation=15, fontsize=9)
        ax.set_yticks(range(len(names)), names, fontsize=9)
        k = counts.index(p)
        if k // ncols == nrows - 1 or k + ncols >= len(counts):
            ax.set_xlabel("opponent")
        if k % ncols == 0:
            ax.set_ylabel("strategy")
        ax.set_title(f"{p} players", fontsize=11)
    assert im is not None   # one panel at least
    fig.colorbar(im, ax=list(axes.ravel()), label="win share per seat minus fair (pp per hand)",
                 shrink=0.6)
    fig.suptitle("Strategy against strategy: win share per seat at tables seating both "
                 "(every rule set)")
    return fig


#: Metrics of the figure of rule effects, in panel-row order.
EFFECT_PANELS = ("turns_per_hand", "stock_out_per_hand")
_COUNT_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]


def plot_effects(effects: pd.DataFrame, labels: dict[str, str], kinds) -> Figure:
    """Each rule's paired effect by player count, a column per kind of table (``kinds``:
    ``(title, line-up)`` pairs; no two line-ups combined) and a row per metric of
    :data:`EFFECT_PANELS` in its own unit.

    ``effects`` is :func:`fastmach.analysis.stats.effects` (by cell); the bars are its
    adjusted intervals (simultaneous over the table), a filled marker an effect the adjusted
    test detects; the dashed line is no change.
    """
    e = effects[effects["players"].notna()]
    variants = _rules_order(e["variant"])
    counts = sorted(int(p) for p in e["players"].unique())
    metrics = [m for m in EFFECT_PANELS if (e["metric"] == m).any()]
    fig, axes = plt.subplots(len(metrics), len(kinds), squeeze=False, sharey=True,
                             sharex="row",
                             figsize=(5.2 * len(kinds) + 2.8,
                                      (0.34 * len(variants) + 1.0) * len(metrics) + 0.8))
    for i, m in enumerate(metrics):
        meta = METRICS[m]
        for j, (title, lineup) in enumerate(kinds):
            ax = axes[i][j]
            sub = e[(e["metric"] == m) & (e["lineup"].astype(str) == lineup)]
            for y, v in enumerate(variants):
                for k, p in enumerate(counts):
                    r = sub[(sub["variant"] == v) & (sub["players"] == p)]
                    if r.empty:
                        continue
                    r = r.iloc[0]
                    d = meta.scale * r["diff"]
                    lo, hi = meta.scale * r["lo_adjusted"], meta.scale * r["hi_adjusted"]
                    off = (k - (len(counts) - 1) / 2) * 0.16
                    c = _COUNT_COLOURS[k % len(_COUNT_COLOURS)]
                    found = bool(r["named"]) and (lo > 0 or hi < 0)
                    ax.errorbar([d], [y + off], xerr=[[max(d - lo, 0)], [max(hi - d, 0)]],
                                fmt="o", ms=4.5, capsize=2, color=c,
                                mfc=c if found else "white")
            ax.axvline(0, color="grey", ls="--", lw=1)
            ax.grid(axis="x", alpha=0.3)
            unit = "turns" if meta.unit == "turns" else "hands in 100"
            ax.set_xlabel(f"change in {meta.plain or meta.label} ({unit})", fontsize=9)
            if i == 0:
                ax.set_title(title, fontsize=10)
        axes[i][0].set_yticks(range(len(variants)), [labels.get(v, v) for v in variants],
                              fontsize=8)
        axes[i][0].invert_yaxis()
    handles = [Line2D([], [], marker="o", ls="", color=_COUNT_COLOURS[k % 6],
                      label=f"{p} players") for k, p in enumerate(counts)]
    handles.append(Line2D([], [], marker="o", ls="", color="grey", mfc="white",
                          label="too close to call"))
    fig.legend(handles=handles, loc="center right", fontsize=8, frameon=False)
    fig.suptitle("What each rule change does, against its base rule set on the same deals")
    fig.tight_layout(rect=(0, 0, 0.86, 0.95))
    return fig


def save_figure(fig: Figure, out_dir: Path | str, name: str, dpi: int = 110) -> dict:
    """Write ``fig`` as ``out_dir/name.png`` and ``out_dir/name.svg``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"png": out / f"{name}.png", "svg": out / f"{name}.svg"}
    fig.savefig(paths["png"], dpi=dpi)
    with matplotlib.rc_context({"svg.hashsalt": name}):  # the same figure, the same file
        fig.savefig(paths["svg"], metadata={"Date": None})
    return paths


def figure_png_base64(fig: Figure, dpi: int = 110) -> str:
    """The figure as a base64 PNG, ready for an ``<img src="data:image/png;base64,...">``."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return base64.b64encode(buf.getvalue()).decode("ascii")
