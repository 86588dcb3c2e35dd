"""The figures of a report: which exist, their titles and captions, and their files.

Each figure is one line-up per panel or curve (no two line-ups combined): the kinds of
table of the designer's page (:attr:`fastmach.report.analysis.Analysis.kinds`). The
figure of rule effects belongs to the first page; the others to the appendix.
"""
from __future__ import annotations

import base64
import re
from functools import partial
from pathlib import Path
from typing import Any, Callable

import matplotlib.pyplot as plt
import pandas as pd

from fastmach.report import curves, plots
from fastmach.report.analysis import Analysis
from fastmach.report.rulewords import rules_name

__all__ = ["FIGURES", "FIRST", "make_figures"]

#: Figures of a report: name -> (title, caption); a name with a line-up gets ``-<line-up>``.
FIGURES = {
    "rule_effects": ("What each rule change does, by player count",
                     "Change from the base rule set to the variant on the same deals, per "
                     "player count (colour), one column per kind of table. Bars: the "
                     "adjusted ranges the first page quotes (simultaneous over every rule "
                     "effect of the study); a filled dot is a detected change, an open one "
                     "too close to call."),
    "hand_length": ("How long hands last",
                    "Share of hands still running after t turns, one panel per player count "
                    "and one row per kind of table; every panel has the same axes, and the "
                    "turn axis runs to the longest hand."),
    "stock_timing": ("When the stock runs out",
                     "Share of hands whose stock is gone by turn t of the hand; a curve "
                     "ends at the share of hands in which the stock ran out at all. Same "
                     "axes in every panel, a row per kind of table."),
    "seat_edges": ("Seat edges",
                   "Each seat's win share per hand minus the fair share (total share per "
                   "hand / players), seat 1 = the hand's first player. Bars: intervals "
                   "simultaneous with the seat test (deal-level randomisation, step-down "
                   "max-T over every seat of every cell, 95%); filled dots: seats the test "
                   "names."),
    "strategy_matrix": ("Strategy against strategy",
                        "Per-seat win share of a strategy at tables seating it with the "
                        "opponent (every rule set of the study), against the fair share of "
                        "each player count; 95% deal-clustered score intervals (not "
                        "adjusted)."),
}
#: Figures of the first page.
FIRST = ("rule_effects",)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def make_figures(hands: pd.DataFrame, a: Analysis, fig_dir: Path) -> list[dict]:
    """Draw every figure the study's data allow; write PNG and SVG to ``fig_dir``."""
    rows = [(k.label.lower() + f" ({k.lineup})", k.lineup) for k in a.kinds]
    names = {r: rules_name(r) for r in a.labels}  # the first page's words
    kind_cols = [(f"{k.label}: every seat {k.lineup}" if "," not in k.lineup else
                  k.label, k.lineup) for k in a.kinds]
    makers: dict[str, tuple[Callable[[], Any], bool, str, str]] = {
        "rule_effects": (lambda: plots.plot_effects(a.effects, names, kind_cols),
                         not a.effects.empty, *FIGURES["rule_effects"]),
        "hand_length": (lambda: plots.plot_length_survival(hands, a.labels, rows), True,
                        *FIGURES["hand_length"]),
        "stock_timing": (lambda: plots.plot_stock_timing(hands, a.labels, rows),
                         "stock_exhausted_turn" in hands.columns, *FIGURES["stock_timing"]),
    }
    for k in a.kinds:
        s = a.seats[a.seats["lineup"].astype(str) == k.lineup]
        title, caption = FIGURES["seat_edges"]
        makers[f"seat_edges-{_safe(k.lineup)}"] = (
            partial(plots.plot_seat_dots, s, a.labels, f"{k.label.lower()} ({k.lineup})"),
            not s.empty, f"{title}: {k.label.lower()}", caption + f" Every seat: {k.who}.")
    makers["strategy_matrix"] = (lambda: plots.plot_strategy_matrix(a.strategies),
                                 not a.strategies.empty, *FIGURES["strategy_matrix"])
    for k in a.kinds:
        card = a.card[a.card["lineup"].astype(str) == k.lineup]
        for axis in curves.curve_axes(card, a.params):
            who = f"{k.label.lower()}: every seat {k.lineup}" if "," not in k.lineup \
                else k.label.lower()
            makers[f"curve-{axis}-{_safe(k.lineup)}"] = (
                partial(curves.plot_curve, card, axis, a.params, a.labels, who), True,
                f"{curves.curve_title(axis)}: {k.label.lower()}",
                curves.curve_caption(axis, a.params, who))
    out = []
    for name, (make, available, title, caption) in makers.items():
        if not available:
            continue
        fig = make()
        try:
            paths = plots.save_figure(fig, fig_dir, name)
            b64 = base64.b64encode(paths["png"].read_bytes()).decode("ascii")
        finally:
            plt.close(fig)
        out.append({"name": name, "title": title, "caption": caption, "png_b64": b64,
                    "png": f"figures/{paths['png'].name}",
                    "svg": f"figures/{paths['svg'].name}",
                    "first": name in FIRST})
    return out
