"""Figures of a balance report (matplotlib, Agg backend; PNG and SVG).

Each ``plot_*`` function takes a table from :mod:`fastmach.stats` (or the raw per-game
table for :func:`plot_length_distributions`) and returns a matplotlib ``Figure``;
:func:`save_figure` writes it as PNG and SVG, :func:`figure_png_base64` embeds it in HTML.
A preset always has the same colour (:data:`PRESET_COLOURS`).
"""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from fastmach.stats import is_base_rules, parse_rules  # noqa: E402

__all__ = [
    "PRESET_COLOURS", "preset_colour", "plot_length_distributions",
    "plot_exhaustion_vs_players", "plot_seat_advantage", "plot_strategy_matrix",
    "plot_forest", "save_figure", "figure_png_base64",
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
# boxplot's ``vert`` became ``orientation`` in matplotlib 3.10
_MPL = tuple(int(x) for x in re.findall(r"\d+", matplotlib.__version__)[:2])
_HORIZONTAL = {"orientation": "horizontal"} if _MPL >= (3, 10) else {"vert": False}


def preset_colour(preset: str) -> str:
    """The colour of ``preset`` (unknown presets get a stable extra colour)."""
    if preset in PRESET_COLOURS:
        return PRESET_COLOURS[preset]
    return _EXTRA[sum(map(ord, preset)) % len(_EXTRA)]


def _rules_order(rules) -> list[str]:
    """Presets in their fixed order, each followed by its variants."""
    def key(r: str):
        p, over = parse_rules(r)
        return (_PRESET_ORDER.index(p) if p in _PRESET_ORDER else 99, p, len(over) > 0, r)
    return sorted(set(rules), key=key)


def _panels(n: int, width: float = 4.2, height: float = 3.6, sharey: bool = True):
    ncols = min(n, 4)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                             squeeze=False, sharey=sharey)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, list(axes.ravel()[:n])


def _legend_presets(fig: Figure, presets) -> None:
    handles = [Patch(color=preset_colour(p), label=p) for p in _rules_order(presets)]
    fig.legend(handles=handles, title="preset", loc="upper right", fontsize=8,
               title_fontsize=8, frameon=False)


def plot_length_distributions(df: pd.DataFrame) -> Figure:
    """Box plots of game length (turns) for every rules variant, one panel per player count."""
    players = sorted(df["players"].unique())
    order = _rules_order(df["rules"])
    fig, axes = _panels(len(players), width=4.6, height=0.45 * len(order) + 1.6)
    for ax, p in zip(axes, players):
        sub = df[df["players"] == p]
        data, labels, colours = [], [], []
        for r in order:
            t = sub.loc[sub["rules"] == r, "turns"].to_numpy()
            if t.size:
                data.append(t)
                labels.append(r)
                colours.append(preset_colour(parse_rules(r)[0]))
        bp = ax.boxplot(data, **_HORIZONTAL, patch_artist=True, showfliers=False,
                        medianprops={"color": "black"})
        for patch, c in zip(bp["boxes"], colours):
            patch.set_facecolor(c)
            patch.set_alpha(0.75)
        ax.set_yticks(range(1, len(labels) + 1), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{p} players", fontsize=10)
        ax.set_xlabel("game length (turns)")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("Game length by rules variant (box: quartiles, whiskers: 1.5 IQR)")
    fig.tight_layout(rect=(0, 0, 0.9, 0.95))
    _legend_presets(fig, [parse_rules(r)[0] for r in order])
    return fig


def plot_exhaustion_vs_players(table: pd.DataFrame) -> Figure:
    """Stock exhaustion probability against player count, one line per preset.

    ``table`` is :func:`fastmach.stats.exhaustion_by_players`; rows whose rules string is a
    bare preset (or a preset with only a bigger deal, :func:`fastmach.stats.is_base_rules`,
    drawn dotted) are drawn (error bars: 95% Wilson intervals).
    """
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    plain = table[table["rules"].map(is_base_rules)]
    rules = _rules_order(plain["rules"])
    for i, r in enumerate(rules):
        s = plain[plain["rules"] == r].sort_values("players")
        x = s["players"].to_numpy() + (i - (len(rules) - 1) / 2) * 0.05
        y = 100 * s["stock_out"].to_numpy()
        err = 100 * np.vstack([s["stock_out"] - s["stock_out_lo"],
                               s["stock_out_hi"] - s["stock_out"]])
        bare = r == parse_rules(r)[0]
        ax.errorbar(x, y, yerr=err, marker="o" if bare else "D", ls="-" if bare else ":",
                    capsize=3, color=preset_colour(parse_rules(r)[0]), label=r)
    ax.set_xticks(sorted(plain["players"].unique()))
    ax.set_xlabel("players")
    ax.set_ylabel("games where the stock ran out (%)")
    ax.set_ylim(bottom=0)
    ax.set_title("Stock exhaustion by player count (95% Wilson intervals)")
    ax.grid(alpha=0.3)
    ax.legend(title="rules", frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def plot_seat_advantage(table: pd.DataFrame) -> Figure:
    """Win rate by seat counted from the first player, one panel per player count.

    ``table`` is :func:`fastmach.stats.seat_win_rates` grouped by ``("rules", "players")``;
    rows of bare presets (or presets with only a bigger deal) are drawn. The dashed lines
    are the fair shares (1/players of the games that have a winner), one per preset.
    """
    plain = table[table["rules"].map(is_base_rules)]
    players = sorted(plain["players"].unique())
    presets = _rules_order(plain["rules"])
    fig, axes = _panels(len(players), sharey=False)
    for ax, p in zip(axes, players):
        sub = plain[plain["players"] == p]
        for i, r in enumerate(presets):
            s = sub[sub["rules"] == r].sort_values("offset")
            if s.empty:
                continue
            x = s["offset"].to_numpy() + 1 + (i - (len(presets) - 1) / 2) * 0.12
            y = 100 * s["win_rate"].to_numpy()
            err = 100 * np.vstack([s["win_rate"] - s["win_rate_lo"],
                                   s["win_rate_hi"] - s["win_rate"]])
            colour = preset_colour(parse_rules(r)[0])
            ax.errorbar(x, y, yerr=err, fmt="o" if r == parse_rules(r)[0] else "D", capsize=3,
                        color=colour, label=r)
            ax.hlines(100 * s["fair"].iloc[0], 0.6, p + 0.4, colors=colour, linestyles="--",
                      lw=0.8, label="fair share" if i == 0 else None)
        ax.set_xticks(range(1, p + 1))
        ax.set_xlabel("seat (1 = first player, clockwise)")
        ax.set_ylabel("games won (%)")
        ax.set_title(f"{p} players", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle("Seat advantage: win rate by seat (95% Wilson intervals)")
    fig.tight_layout()
    return fig


def plot_strategy_matrix(table: pd.DataFrame) -> Figure:
    """Heat map strategy x preset of win rate minus fair share (percentage points).

    ``table`` is :func:`fastmach.stats.strategy_win_rates` grouped by ``"preset"``
    (preferably ``mixed_only=True``). Cells are annotated with win rate and fair share.
    """
    strategies = sorted(table["strategy"].unique())
    presets = _rules_order(table["preset"])
    excess = np.full((len(strategies), len(presets)), np.nan)
    text = [["" for _ in presets] for _ in strategies]
    for _, r in table.iterrows():
        i, j = strategies.index(r["strategy"]), presets.index(r["preset"])
        excess[i, j] = 100 * (r["win_rate"] - r["fair"])
        text[i][j] = (f"{100 * r['win_rate']:.1f}%\n[{100 * r['win_rate_lo']:.1f}, "
                      f"{100 * r['win_rate_hi']:.1f}]\nfair {100 * r['fair']:.0f}%")
    lim = max(5.0, float(np.nanmax(np.abs(excess))) if np.isfinite(excess).any() else 5.0)
    fig, ax = plt.subplots(figsize=(1.9 * len(presets) + 2.6, 1.0 * len(strategies) + 1.8))
    im = ax.imshow(excess, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    for i in range(len(strategies)):
        for j in range(len(presets)):
            dark = np.isfinite(excess[i, j]) and abs(excess[i, j]) > 0.6 * lim
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    ax.set_xticks(range(len(presets)), presets)
    ax.set_yticks(range(len(strategies)), strategies)
    for tick, p in zip(ax.get_xticklabels(), presets):
        tick.set_color(preset_colour(p))
    ax.set_xlabel("preset")
    ax.set_ylabel("strategy")
    fig.colorbar(im, ax=ax, label="win rate minus fair share (percentage points)")
    ax.set_title("Strategy win rate in mixed line-ups")
    fig.tight_layout()
    return fig


_FOREST = [("turns", "game length (turns)", 1.0),
           ("stock_out", "stock exhaustion (percentage points)", 100.0),
           ("first_seat_win", "first-player win rate (percentage points)", 100.0)]


def plot_forest(effects: pd.DataFrame) -> Figure:
    """Forest plot: each rule's paired effect on length, exhaustion and first-seat wins.

    ``effects`` is :func:`fastmach.stats.variant_effects` (pooled); one row per rule change,
    error bars are 95% intervals, the dashed line is no effect.
    """
    labels = list(dict.fromkeys(
        effects.sort_values(["preset", "label"], key=lambda s: s.map(
            lambda v: (_PRESET_ORDER.index(v) if v in _PRESET_ORDER else 99, v)
            if s.name == "preset" else v))["label"]))
    fig, axes = plt.subplots(1, 3, figsize=(14, 0.42 * len(labels) + 1.8), sharey=True)
    for ax, (metric, xlabel, scale) in zip(axes, _FOREST):
        sub = effects[effects["metric"] == metric].set_index("label")
        for y, lab in enumerate(labels):
            if lab not in sub.index:
                continue
            r = sub.loc[lab]
            d, lo, hi = scale * r["diff"], scale * r["diff_lo"], scale * r["diff_hi"]
            ax.errorbar([d], [y], xerr=[[d - lo], [hi - d]], fmt="s", capsize=3,
                        color=preset_colour(r["preset"]))
        ax.axvline(0, color="grey", ls="--", lw=1)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(labels)), labels, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle("Effect of each rule against its baseline "
                 "(paired on common deals, 95% intervals)")
    fig.tight_layout(rect=(0, 0, 0.92, 0.95))
    _legend_presets(fig, effects["preset"].unique())
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
