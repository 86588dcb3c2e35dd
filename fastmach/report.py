"""Balance report: stored study results -> figures -> ``index.html`` and ``summary.md``.

``build_report(RESULTS_DIR, OUT_DIR)`` reads only what a sweep stored (the parquet chunks
and ``_study.json``), so a report can be rebuilt at any time without running a game.
``index.html`` is self-contained (figures embedded as base64 PNG); ``summary.md`` links to
the PNG/SVG files written in ``OUT_DIR/figures/``. ``register_cli`` adds
``fastmach report RESULTS_DIR [--out DIR]``.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import jinja2
import matplotlib.pyplot as plt
import pandas as pd
from markupsafe import Markup

from fastmach import plots, stats
from fastmach.errors import FastmachError
from fastmach.sweep import MANIFEST

__all__ = ["load_results", "build_report", "findings", "register_cli", "FIGURES"]

TEMPLATES = Path(__file__).with_name("templates")

#: Figures of a report: file name -> (title, caption).
FIGURES = {
    "game_length": ("Game length by rules variant",
                    "Distribution of the number of turns per game for every rules string, "
                    "one panel per player count (all line-ups pooled)."),
    "stock_exhaustion": ("Stock exhaustion against player count",
                         "Share of games in which the stock ran out, per preset (bare "
                         "preset rules, all line-ups pooled), with 95% Wilson intervals."),
    "seat_advantage": ("Seat advantage",
                       "Win rate of each seat counted clockwise from the first player, per "
                       "preset and player count; the dashed lines are the fair shares "
                       "(1/players of the games that have a winner)."),
    "strategy_matrix": ("Strategy win rates",
                        "Share of games a strategy wins when seated in a mixed line-up (every "
                        "rules variant of a preset pooled), against the share it would win if "
                        "skill did not matter."),
    "rule_effects": ("Effect of each rule",
                     "Paired difference variant minus baseline on the same deals (common "
                     "random numbers), pooled over player counts and line-ups."),
}


# --------------------------------------------------------------------------- loading

def load_results(results_dir: Path | str) -> tuple[pd.DataFrame, dict]:
    """Read a study's result table and manifest; FastmachError if anything is missing."""
    d = Path(results_dir)
    if not d.is_dir():
        raise FastmachError(f"results directory {str(d)!r} does not exist")
    if not any(d.rglob("*.parquet")):
        raise FastmachError(f"results directory {str(d)!r} holds no parquet file "
                            "(run `fastmach sweep` first)")
    mpath = d / MANIFEST
    if not mpath.is_file():
        raise FastmachError(f"results directory {str(d)!r} lacks the manifest {MANIFEST}")
    try:
        manifest = json.loads(mpath.read_text())
    except json.JSONDecodeError as exc:
        raise FastmachError(f"manifest {str(mpath)!r} is not valid JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise FastmachError(f"manifest {str(mpath)!r} is not a JSON object")
    try:
        df = pd.read_parquet(d)
    except Exception as exc:  # pyarrow raises several types
        raise FastmachError(f"cannot read results in {str(d)!r}: {exc}") from None
    if df.empty:
        raise FastmachError(f"results directory {str(d)!r} holds no game")
    need = ("cell", "rules", "preset", "players", "lineup", "replicate", "first_player",
            "winner", "end", "turns", "rounds", "stock_exhausted")
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise FastmachError(f"results in {str(d)!r} lack column(s) {', '.join(missing)}")
    return df, manifest


# --------------------------------------------------------------------------- formatting

def _pct(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _ci_pct(p, lo, hi) -> str:
    if any(isinstance(v, float) and math.isnan(v) for v in (p, lo, hi)):
        return _pct(p)
    return f"{100 * p:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _ci(m, lo, hi, digits: int = 1) -> str:
    if isinstance(m, float) and math.isnan(m):
        return "n/a"
    if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _signed(d, lo, hi, scale: float = 1.0, unit: str = "") -> str:
    return (f"{scale * d:+.1f}{unit} [{scale * lo:+.1f}, {scale * hi:+.1f}]")


def _p(p: float) -> str:
    if isinstance(p, float) and math.isnan(p):
        return "n/a"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _is_plain(rules: str) -> bool:
    return stats.is_base_rules(rules)


@dataclass
class _Table:
    title: str
    frame: pd.DataFrame
    note: str = ""

    def html(self) -> Markup:
        return Markup(self.frame.to_html(index=False, border=0, classes="data",
                                         na_rep="", escape=True))

    def markdown(self) -> str:
        return _markdown_table(self.frame)


def _markdown_table(df: pd.DataFrame) -> str:
    def cell(v) -> str:
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else \
            str(v).replace("|", "\\|")
    head = "| " + " | ".join(cell(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(False)]
    return "\n".join([head, sep, *body])


# --------------------------------------------------------------------------- analysis

@dataclass
class _Analysis:
    summary: pd.DataFrame
    by_players: pd.DataFrame
    exhaustion: pd.DataFrame
    seats: pd.DataFrame
    seat_tests: pd.DataFrame
    strategies: pd.DataFrame
    penalties: pd.DataFrame
    effects: pd.DataFrame
    extra: dict = field(default_factory=dict)


def _analyse(df: pd.DataFrame) -> _Analysis:
    rp = ["rules", "players"]
    return _Analysis(
        summary=stats.cell_summary(df),
        by_players=stats.cell_summary(df, by=["rules", "preset", "players"]),
        exhaustion=stats.exhaustion_by_players(df),
        seats=stats.seat_win_rates(df, by=rp),
        seat_tests=stats.seat_equality_test(df, by=rp),
        strategies=stats.strategy_win_rates(df, by="preset", mixed_only=True),
        penalties=stats.penalty_points(df, by=rp),
        effects=stats.variant_effects(df),
    )


def findings(df: pd.DataFrame, a: _Analysis | None = None) -> dict[str, list[str]]:
    """Short sentences, generated from the numbers, for each question a report answers.

    Keys: ``seats``, ``players``, ``rules``, ``skill``; each a list of sentences.
    """
    a = a or _analyse(df)
    out: dict[str, list[str]] = {"seats": [], "players": [], "rules": [], "skill": []}

    for _, t in a.seat_tests.iterrows():
        if not _is_plain(t["rules"]) or t["decided"] == 0:
            continue
        s = a.seats[(a.seats["rules"] == t["rules"]) & (a.seats["players"] == t["players"])]
        best = s[s["offset"] == t["best_offset"]].iloc[0]
        seat = _ordinal(int(t["best_offset"]) + 1)
        test = f"seat equality chi2 = {t['chi2']:.1f} ({t['dof']} dof), p = {_p(t['p_value'])}"
        if t["p_value"] < 0.05:
            out["seats"].append(
                f"{t['rules']}, {t['players']} players: the {seat} seat has the edge, winning "
                f"{_ci_pct(best['win_rate'], best['win_rate_lo'], best['win_rate_hi'])} of "
                f"games against a fair {_pct(best['fair'])} ("
                + (f"{_pct(t['decided'] / best['games'])} of games have a winner; "
                   if t['decided'] < best['games'] else "") + f"{test}).")
        else:
            out["seats"].append(
                f"{t['rules']}, {t['players']} players: no clear seat edge ({test}; best: "
                f"{seat} seat, {_ci_pct(best['win_rate'], best['win_rate_lo'], best['win_rate_hi'])}).")

    bp = a.by_players[a.by_players["rules"].map(_is_plain)]
    for rules, g in bp.groupby("rules", sort=True):
        g = g.sort_values("players")
        lo_r, hi_r = g.iloc[0], g.iloc[-1]
        if len(g) < 2:
            out["players"].append(
                f"{rules}, {lo_r['players']} players: games last "
                f"{_ci(lo_r['turns_mean'], lo_r['turns_mean_lo'], lo_r['turns_mean_hi'])} turns "
                f"on average; the stock runs out in "
                f"{_ci_pct(lo_r['stock_out'], lo_r['stock_out_lo'], lo_r['stock_out_hi'])} of games.")
            continue
        out["players"].append(
            f"{rules}: from {lo_r['players']} to {hi_r['players']} players the mean game "
            f"length goes from "
            f"{_ci(lo_r['turns_mean'], lo_r['turns_mean_lo'], lo_r['turns_mean_hi'])} to "
            f"{_ci(hi_r['turns_mean'], hi_r['turns_mean_lo'], hi_r['turns_mean_hi'])} turns "
            f"({_ci(lo_r['rounds_mean'], lo_r['rounds_mean_lo'], lo_r['rounds_mean_hi'])} to "
            f"{_ci(hi_r['rounds_mean'], hi_r['rounds_mean_lo'], hi_r['rounds_mean_hi'])} rounds), "
            f"and the stock runs out in "
            f"{_ci_pct(lo_r['stock_out'], lo_r['stock_out_lo'], lo_r['stock_out_hi'])} vs "
            f"{_ci_pct(hi_r['stock_out'], hi_r['stock_out_lo'], hi_r['stock_out_hi'])} of games.")

    eff = a.effects
    for label, g in eff.groupby("label", sort=True):
        m = g.set_index("metric")
        parts = []
        for metric, what, scale, unit in (("turns", "game length", 1.0, " turns"),
                                          ("stock_out", "stock exhaustion", 100.0, " pp"),
                                          ("first_seat_win", "first-player win rate", 100.0,
                                           " pp")):
            if metric not in m.index:
                continue
            r = m.loc[metric]
            sig = "" if r["diff_lo"] <= 0 <= r["diff_hi"] else " (significant)"
            parts.append(f"{what} {_signed(r['diff'], r['diff_lo'], r['diff_hi'], scale, unit)}"
                         f"{sig}")
        pairs = int(m["pairs"].iloc[0])
        out["rules"].append(f"{label}: " + "; ".join(parts) + f" ({pairs} paired games).")

    for preset, g in a.strategies.groupby("preset", sort=True):
        g = g.sort_values("win_rate", ascending=False)
        parts = [f"{r['strategy']} wins "
                 f"{_ci_pct(r['win_rate'], r['win_rate_lo'], r['win_rate_hi'])} "
                 f"(fair {_pct(r['fair'])})" for _, r in g.iterrows()]
        out["skill"].append(f"{preset}, mixed line-ups: " + "; ".join(parts) + ".")
    return out


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _tables(a: _Analysis) -> list[_Table]:
    s = a.summary
    summary = pd.DataFrame({
        "cell": s["cell"], "games": s["games"],
        "mean turns": [_ci(*r) for r in s[["turns_mean", "turns_mean_lo", "turns_mean_hi"]].itertuples(False)],
        "median turns": [_ci(*r, digits=0) for r in s[["turns_median", "turns_median_lo", "turns_median_hi"]].itertuples(False)],
        "mean rounds": [_ci(*r) for r in s[["rounds_mean", "rounds_mean_lo", "rounds_mean_hi"]].itertuples(False)],
        "stock ran out": [_ci_pct(*r) for r in s[["stock_out", "stock_out_lo", "stock_out_hi"]].itertuples(False)],
        "blocked / stock-out end": [_ci_pct(*r) for r in s[["blocked", "blocked_lo", "blocked_hi"]].itertuples(False)],
    })
    seat_rows = []
    for _, t in a.seat_tests.iterrows():
        sub = a.seats[(a.seats["rules"] == t["rules"]) & (a.seats["players"] == t["players"])]
        row = {"rules": t["rules"], "players": t["players"], "games": int(sub["games"].iloc[0])}
        for _, r in sub.iterrows():
            row[f"seat {r['offset'] + 1}"] = _ci_pct(r["win_rate"], r["win_rate_lo"],
                                                     r["win_rate_hi"])
        row["chi2 (dof)"] = (f"{t['chi2']:.1f} ({t['dof']})"
                             if not math.isnan(t["chi2"]) else "n/a")
        row["p"] = _p(t["p_value"])
        seat_rows.append(row)
    seats = pd.DataFrame(seat_rows)
    if not seats.empty:
        seat_cols = sorted([c for c in seats.columns if c.startswith("seat ")],
                           key=lambda c: int(c.split()[1]))
        seats = seats[["rules", "players", "games", *seat_cols, "chi2 (dof)", "p"]]
    st = a.strategies
    strategies = pd.DataFrame({
        "preset": st["preset"], "strategy": st["strategy"], "games seated": st["games"],
        "wins": st["wins"],
        "win rate": [_ci_pct(*r) for r in st[["win_rate", "win_rate_lo", "win_rate_hi"]].itertuples(False)],
        "fair share": [_pct(x) for x in st["fair"]],
    })
    pen = a.penalties
    penalties = pd.DataFrame({
        "rules": pen["rules"], "players": pen["players"],
        "seat": pen["offset"] + 1,
        "hand points left": [_ci(*r, digits=2) for r in pen[["hand_points", "hand_points_lo", "hand_points_hi"]].itertuples(False)],
        "cards left": [f"{x:.2f}" if not math.isnan(x) else "n/a" for x in pen["cards_left"]],
        "score": [f"{x:.2f}" if not math.isnan(x) else "n/a" for x in pen["score"]],
    })
    eff_rows = []
    for label, g in a.effects.groupby("label", sort=True):
        m = g.set_index("metric")
        row = {"rule change": label, "paired games": int(m["pairs"].iloc[0])}
        for metric, name, scale, unit in (("turns", "length (turns)", 1.0, ""),
                                          ("stock_out", "stock exhaustion (pp)", 100.0, ""),
                                          ("first_seat_win", "first-player wins (pp)", 100.0, "")):
            r = m.loc[metric]
            row[name] = _signed(r["diff"], r["diff_lo"], r["diff_hi"], scale, unit)
        eff_rows.append(row)
    effects = pd.DataFrame(eff_rows)
    return [
        _Table("Per-cell summary", summary,
               "Means with 95% t intervals, medians with order-statistic intervals, shares "
               "with 95% Wilson intervals."),
        _Table("Win rate by seat", seats,
               "Seat 1 is the first player; rates are shares of all games (95% Wilson); the "
               "chi-square test compares seat wins among games with a winner."),
        _Table("Win rate by strategy (mixed line-ups)", strategies,
               "A game counts once for each strategy seated in it; every rules variant of a "
               "preset pooled; fair share = seats held / players of the games with a winner."),
        _Table("Effect of each rule against its baseline", effects,
               "Variant minus baseline on the same deals, 95% intervals (paired t for length, "
               "paired difference of proportions for binary outcomes); pp = percentage points."),
        _Table("Penalty points left per seat", penalties,
               "Mean hand points (the rules' penalty count) left at the end, 95% t interval."),
    ]


# --------------------------------------------------------------------------- figures

def _figures(df: pd.DataFrame, a: _Analysis, fig_dir: Path) -> list[dict]:
    makers = {
        "game_length": (lambda: plots.plot_length_distributions(df), True),
        "stock_exhaustion": (lambda: plots.plot_exhaustion_vs_players(a.exhaustion),
                             bool(a.exhaustion["rules"].map(_is_plain).any())),
        "seat_advantage": (lambda: plots.plot_seat_advantage(a.seats),
                           bool(a.seats["rules"].map(_is_plain).any())),
        "strategy_matrix": (lambda: plots.plot_strategy_matrix(a.strategies),
                            not a.strategies.empty),
        "rule_effects": (lambda: plots.plot_forest(a.effects), not a.effects.empty),
    }
    out = []
    for name, (make, available) in makers.items():
        title, caption = FIGURES[name]
        if not available:
            continue
        fig = make()
        try:
            paths = plots.save_figure(fig, fig_dir, name)
            b64 = plots.figure_png_base64(fig)
        finally:
            plt.close(fig)
        out.append({"name": name, "title": title, "caption": caption, "png_b64": b64,
                    "png": f"figures/{paths['png'].name}",
                    "svg": f"figures/{paths['svg'].name}"})
    return out


# --------------------------------------------------------------------------- report

def _run_time(manifest: dict) -> str:
    try:
        t0 = datetime.fromisoformat(str(manifest["started"]))
        t1 = datetime.fromisoformat(str(manifest["finished"]))
    except (KeyError, ValueError, TypeError):
        return "unknown"
    secs = (t1 - t0).total_seconds()
    h, rem = divmod(int(round(secs)), 3600)
    m, s = divmod(rem, 60)
    return f"{h}h {m:02d}m {s:02d}s" if h else f"{m}m {s:02d}s"


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "study"


def default_out_dir(manifest: dict) -> Path:
    """``reports/<study name>`` (relative to the working directory)."""
    return Path("reports") / _safe_name(str(manifest.get("name", "study")))


def build_report(results_dir: Path | str, out_dir: Path | str | None = None) -> Path:
    """Write ``index.html``, ``summary.md`` and ``figures/`` for a study's stored results.

    ``out_dir`` defaults to ``reports/<study name>``. Returns the path of ``index.html``.
    Raises FastmachError when the results directory, its parquet files or its manifest
    are missing.
    """
    df, manifest = load_results(results_dir)
    out = Path(out_dir) if out_dir is not None else default_out_dir(manifest)
    out.mkdir(parents=True, exist_ok=True)
    a = _analyse(df)
    figs = _figures(df, a, out / "figures")
    tables = _tables(a)
    seeds = sorted({int(x) for x in df["seed"].unique()}) if "seed" in df.columns else []
    ctx = {
        "name": manifest.get("name", "study"),
        "version": manifest.get("fastmach_version", "unknown"),
        "seed": manifest.get("seed", seeds[0] if seeds else "unknown"),
        "seeds": seeds,
        "started": manifest.get("started", "unknown"),
        "finished": manifest.get("finished", "unknown"),
        "run_time": _run_time(manifest),
        "command": manifest.get("command", "unknown"),
        "report_command": "fastmach report " + shlex.quote(str(results_dir)) +
                          " --out " + shlex.quote(str(out)),
        "study": manifest.get("study", ""),
        "games": len(df),
        "cells": int(df["cell"].nunique()),
        "replicates": int(df["replicate"].nunique()),
        "findings": findings(df, a),
        "figures": figs,
        "tables": tables,
        "generated": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    index = out / "index.html"
    index.write_text(env.get_template("report.html.j2").render(**ctx), encoding="utf-8")
    md_env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                                undefined=jinja2.StrictUndefined, trim_blocks=True,
                                lstrip_blocks=True)
    (out / "summary.md").write_text(md_env.get_template("summary.md.j2").render(**ctx),
                                    encoding="utf-8")
    return index


# --------------------------------------------------------------------------- CLI

def _cmd_report(args) -> int:
    index = build_report(args.results_dir, args.out)
    print(f"report written to {index}")
    return 0


def register_cli(subparsers) -> None:
    """Add ``fastmach report RESULTS_DIR [--out DIR]`` to an argparse subparsers object."""
    p = subparsers.add_parser(
        "report", help="build the balance report (HTML + Markdown) from stored results",
        description="Build index.html, summary.md and figures/ from a study's stored "
                    "results (parquet + _study.json). No game is run.")
    p.add_argument("results_dir", metavar="RESULTS_DIR",
                   help="directory written by `fastmach sweep --out`")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="output directory (default: reports/<study name>)")
    p.set_defaults(func=_cmd_report)
