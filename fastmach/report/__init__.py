"""Balance report: stored study results -> figures -> ``index.html`` and ``summary.md``.

``build_report(RESULTS_DIR, OUT_DIR)`` reads only what a sweep stored (the game chunks,
the hand rows in ``_hands/`` and ``_study.json``), so a report can be rebuilt at any time
without running the study again. Every figure comes from :mod:`fastmach.analysis.stats` (the deal is the
unit of every interval). ``index.html`` is self-contained (figures embedded as base64
PNG); ``summary.md`` links to the PNG/SVG files in ``OUT_DIR/figures/``; ``OUT_DIR/tables/``
holds the numbers as CSV (``scorecard.csv``, ``seats.csv``, ``effects.csv``, ...). ``fastmach report
RESULTS_DIR [--out DIR]`` (fastmach.cli) calls :func:`build_report`. ``OUT_DIR/games/`` holds viewer pages of games
that show the findings (:mod:`fastmach.report.showcase`).
"""

from __future__ import annotations

import base64
import json
import math
import re
import shlex
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import jinja2
import matplotlib.pyplot as plt
import pandas as pd
from markupsafe import Markup

from fastmach.analysis import metrics, stats
from fastmach.report import plots
from fastmach.errors import FastmachError
from fastmach.study.sweep import MANIFEST

__all__ = ["load_results", "build_report", "findings", "FIGURES", "TABLES"]

HANDS = "_hands"
TEMPLATES = Path(__file__).with_name("templates")

#: Figures of a report: file name -> (title, caption).
FIGURES = {
    "hand_length": ("Hand length",
                    "Share of hands still running after t turns (per hand, every line-up "
                    "pooled), one panel per player count; every panel has the same axes."),
    "stock_timing": ("When the stock runs out",
                     "Share of hands whose stock is gone by turn t of the hand (from "
                     "stock_exhausted_turn); a curve ends at the share of hands in which the "
                     "stock ran out at all. Same axes in every panel."),
    "seat_edges": ("Seat edges",
                   "Each seat's win share per hand minus the fair share (total share per "
                   "hand / players), line-ups pooled, seat 1 = the hand's first player. Bars: "
                   "score intervals simultaneous with the seat test (deal-level randomisation, "
                   "step-down max-T over every seat of the report, 95%); filled dots are the seats named in the findings."),
    "strategy_matrix": ("Strategy against strategy",
                        "Per-seat win share of a strategy in hands that seat it with the "
                        "opponent, against the fair share, deal-clustered 95% intervals."),
    "rule_effects": ("Effect of each rule by player count",
                     "Paired difference variant minus baseline on the same deals, per player "
                     "count (one marker per line-up) and pooled (black), deal-clustered 95% "
                     "intervals (Newcombe's hybrid score interval for shares of hands)."),
}

#: Tables written to ``tables/`` (numbers and identifiers only).
TABLES = ("scorecard", "seats", "seats_by_players", "effects", "strategies",
          "monte_carlo_error")

#: Significance level of the report's named findings.
ALPHA = 0.05


# --------------------------------------------------------------------------- loading

def load_results(results_dir: Path | str, *, ignore_foreign: bool = False
                 ) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Read a study's game rows, hand rows and manifest; FastmachError if anything is missing.

    Every chunk file is checked against the manifest's sizes and checksums; a bad chunk, or
    one the manifest does not record, is an error naming the file (``ignore_foreign``:
    leave out the unrecorded ones instead). See :func:`fastmach.study.store.read_table`.
    """
    from fastmach.study.store import read_table

    d = Path(results_dir)
    if d.exists() and not d.is_dir():
        raise FastmachError(f"results directory {str(d)!r} is a file; give the directory "
                            f"written by `fastmach sweep --out`")
    if not d.is_dir():
        raise FastmachError(f"results directory {str(d)!r} does not exist")
    game_files = [p for p in d.rglob("*.parquet") if HANDS not in p.relative_to(d).parts]
    if not game_files:
        raise FastmachError(f"results directory {str(d)!r} holds no parquet file "
                            "(run `fastmach sweep` first)")
    mpath = d / MANIFEST
    if not mpath.is_file():
        raise FastmachError(f"results directory {str(d)!r} lacks the manifest {MANIFEST}")
    try:
        manifest = json.loads(mpath.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise FastmachError(f"manifest {str(mpath)!r} is not UTF-8 text: {exc}") from None
    except json.JSONDecodeError as exc:
        raise FastmachError(f"manifest {str(mpath)!r} is not valid JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise FastmachError(f"manifest {str(mpath)!r} is not a JSON object")
    df = read_table(d, manifest, ignore_foreign=ignore_foreign)  # names a bad file
    if df.empty:
        raise FastmachError(f"results directory {str(d)!r} holds no game")
    need = ("cell", "rules", "preset", "players", "lineup", "replicate", "first_player",
            "winner", "end", "turns", "rounds", "stock_exhausted")
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise FastmachError(f"results in {str(d)!r} lack column(s) {', '.join(missing)}")
    if not any((d / HANDS).glob("*.parquet")):
        raise FastmachError(f"results in {str(d)!r} hold no hand rows ({HANDS}/): they were "
                            "made by an older fastmach; run the sweep again")
    hands = read_table(d, manifest, ignore_foreign=ignore_foreign, subdir=HANDS)
    return df, hands, manifest


# --------------------------------------------------------------------------- formatting

def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


_num = metrics.number
_p = metrics.p_text


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


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
        return "" if _nan(v) else str(v).replace("|", "\\|")
    head = "| " + " | ".join(cell(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(False)]
    return "\n".join([head, sep, *body])


# --------------------------------------------------------------------------- analysis

@dataclass
class _Analysis:
    labels: dict
    card: pd.DataFrame          # by cell (scorecard.csv)
    front: pd.DataFrame         # by rules x players (first page)
    seats: pd.DataFrame         # by cell (seats.csv)
    seats_rp: pd.DataFrame      # by rules x players (the report's seat findings)
    effects: pd.DataFrame
    strategies: pd.DataFrame
    mc: pd.DataFrame


def _analyse(games: pd.DataFrame, hands: pd.DataFrame, pairs=None) -> _Analysis:
    from fastmach.report.skill import front_rows  # the all-strong line-up set apart
    front = stats.scorecard(*front_rows(games, hands), by=("rules", "players"))
    return _Analysis(
        labels=plots.short_labels(hands["rules"]),
        card=stats.scorecard(games, hands),
        front=front,
        seats=stats.seat_table(hands, alpha=ALPHA),
        seats_rp=stats.seat_table(hands, by=("rules", "players"), alpha=ALPHA),
        effects=stats.effects(games, hands, stats.default_pairs(games) if pairs is None
                              else pairs),
        strategies=stats.strategy_matrix(hands),
        mc=stats.monte_carlo_error(front),
    )


def _rules_name(labels: dict[str, str], rules: str) -> str:
    """A rules string as the findings name it: by what it changes."""
    return labels.get(rules, rules)


def findings(a: _Analysis) -> dict[str, list[str]]:
    """Short sentences, generated from the numbers, for each question a report answers.

    Keys: ``seats``, ``players``, ``rules``, ``skill``; each a list of sentences.
    """
    out: dict[str, list[str]] = {"seats": [], "players": [], "rules": [], "skill": []}

    def name(rules: str) -> str:
        return _rules_name(a.labels, rules)

    s = a.seats_rp
    named = s[s["named"] == 1]
    for _, r in named.iterrows():
        seat = int(r["seat"]) + 1
        who = "the first player" if seat == 1 else f"the {_ordinal(seat)} seat"
        side = "more" if r["win_share"] > r["fair"] else "less"
        out["seats"].append(
            f"{name(r['rules'])}, {int(r['players'])} players: {who} wins {side} than its "
            f"share: {_num(r['win_share'], r['lo'], r['hi'], 100, unit='% of hands')} "
            f"(interval simultaneous with the test) against a fair "
            f"{_num(r['fair'], scale=100)}% at {int(r['players'])} players "
            f"(adjusted p = {_p(r['p_adjusted'])}, {int(r['deals'])} deals).")
    groups = s.groupby(["rules", "players"]).ngroups
    small = s[s["testable"] == 0].groupby(["rules", "players"]).ngroups
    quiet = groups - named.groupby(["rules", "players"]).ngroups
    if groups and small == groups:
        out["seats"].append(
            "This study is too small to test the seats: no group has enough deals with a "
            "winner for any outcome to be significant.")
    elif groups:
        edge = s.loc[s["testable"] == 1, "detectable"].dropna()
        see = ("" if edge.empty else
               f": the smallest edge this study could see (80% power) is "
               f"{_num(edge.min(), scale=100)} to {_num(edge.max(), scale=100)} pp of hands")
        out["seats"].append(
            f"{quiet} of {groups} rules x player-count groups have no seat with an edge large "
            f"enough to detect{see} ({len(s)} seat tests: a deal-level randomisation test, "
            f"family-wise control at {ALPHA:.0%} by step-down max-T"
            + (f"; {small} groups too small to test" if small else "") + ").")

    f = a.front
    for rules, g in f.groupby("rules", sort=False):
        g = g.sort_values("players")
        lo_r, hi_r = g.iloc[0], g.iloc[-1]
        per_match = ("one hand per match" if (g["hands_per_game"] == 1).all() else
                     f"{_num(lo_r['hands_per_game'], digits=2)} to "
                     f"{_num(hi_r['hands_per_game'], digits=2)} hands per match")
        out["players"].append(
            f"{name(rules)}: "
            + (f"at {int(lo_r['players'])} players, "
               f"{_num(lo_r['turns_per_hand'], lo_r['turns_per_hand_lo'], lo_r['turns_per_hand_hi'])}"
               if len(g) == 1 else
               f"from {int(lo_r['players'])} to {int(hi_r['players'])} players, "
               f"{_num(lo_r['turns_per_hand'], lo_r['turns_per_hand_lo'], lo_r['turns_per_hand_hi'])}"
               f" to {_num(hi_r['turns_per_hand'], hi_r['turns_per_hand_lo'], hi_r['turns_per_hand_hi'])}")
            + f" turns per hand ({per_match}); the stock runs out in "
            f"{_num(lo_r['stock_out_per_hand'], lo_r['stock_out_per_hand_lo'], lo_r['stock_out_per_hand_hi'], 100, unit='%')}"
            f" vs {_num(hi_r['stock_out_per_hand'], hi_r['stock_out_per_hand_lo'], hi_r['stock_out_per_hand_hi'], 100, unit='%')}"
            f" of hands.")

    e = a.effects
    all_lineups = sorted(e["lineup"].dropna().unique())
    for (variant, baseline), g in e.groupby(["variant", "baseline"], sort=False):
        parts = []
        for metric, what, scale, unit in (
                ("turns_per_hand", "turns per hand", 1.0, "turns"),
                ("stock_out_per_hand", "stock exhaustion", 100.0, "pp of hands"),
                ("blocked", "blocked hands", 100.0, "pp of hands"),
                ("first_seat_edge", "first-seat edge", 100.0, "pp per hand")):
            pooled = g[(g["metric"] == metric) & g["players"].isna()]
            if pooled.empty:
                continue
            r = pooled.iloc[0]
            ctx = g[(g["metric"] == metric) & g["players"].notna()]
            live = ctx[ctx["p_adjusted"] < ALPHA]
            text = (f"{what} {_num(r['diff'], r['lo'], r['hi'], scale, signed=True, unit=unit)}"
                    + ("" if _nan(r["rel_diff"]) or metric != "turns_per_hand"
                       else f" ({r['rel_diff']:+.1%})"))
            if live.empty:
                text += " pooled, in no line-up on its own"
            else:
                lus = sorted(live["lineup"].unique())
                where = ", ".join(
                    f"{lu} ({', '.join(str(int(p)) for p in sorted(live.loc[live['lineup'] == lu, 'players']))} players: "
                    + ", ".join(_num(x, scale=scale, signed=True) for x in live.loc[live['lineup'] == lu, 'diff'])
                    + ")" for lu in lus)
                if len(lus) < len(all_lineups):
                    text += f" pooled, confined to line-up {where}"
                else:
                    text += f" pooled, in every line-up ({where})"
            parts.append(text)
        pairs = int(g.loc[g["players"].isna(), "pairs"].max()) if g["players"].isna().any() else 0
        out["rules"].append(f"{name(variant)} vs {baseline}: " + "; ".join(parts)
                            + f" ({pairs} paired matches; Holm-adjusted p < {ALPHA} per "
                            "line-up).")

    for _, r in a.strategies.iterrows():
        out["skill"].append(
            f"{r['strategy']} against {r['opponent']}: "
            f"{_num(r['win_share'], r['lo'], r['hi'], 100, unit='% of hands per seat')} "
            f"against a fair {_num(r['fair'], scale=100)}% ({int(r['hands'])} hands).")
    sg = a.front.dropna(subset=["skill_gap"])
    for rules, g in sg.groupby("rules", sort=False):
        out["skill"].append(
            f"{name(rules)}: skill gap (expert minus beginner win share, pp per seat and "
            "hand) " + ", ".join(
                f"{_num(r['skill_gap'], r['skill_gap_lo'], r['skill_gap_hi'], 100, signed=True)}"
                f" at {int(r['players'])} players" for _, r in g.iterrows()) + ".")
    return out


def _front_table(a: _Analysis) -> pd.DataFrame:
    f = a.front

    def col(m, scale=1.0, digits=1, signed=False):
        return [_num(r[m], r[f"{m}_lo"], r[f"{m}_hi"], scale, digits, signed=signed)
                for _, r in f.iterrows()]
    return pd.DataFrame({
        "rules": [a.labels[r] for r in f["rules"]], "players": f["players"],
        "matches": f["games"], "hands": f["hands"],
        "turns per hand": col("turns_per_hand"),
        "hands per match": col("hands_per_game", digits=2),
        "stock ran out (% of hands)": col("stock_out_per_hand", 100),
        "ended blocked (% of hands)": col("blocked", 100),
        "first-seat edge (pp per hand)": col("first_seat_edge", 100, signed=True),
        "seat spread (pp per hand)": col("seat_spread", 100),
        "skill gap (pp per seat)": col("skill_gap", 100, signed=True),
    })


def _legend_table(a: _Analysis) -> pd.DataFrame:
    return pd.DataFrame({"label": list(a.labels.values()), "rules": list(a.labels)})


def _mc_table(a: _Analysis) -> pd.DataFrame:
    m = a.mc
    units = {"turns_per_hand": (1.0, "turns per hand", 2),
             "stock_out_per_hand": (100.0, "pp of hands", 2),
             "first_seat_edge": (100.0, "pp per hand", 2)}
    return pd.DataFrame({
        "rules": [a.labels[r] for r in m["rules"]], "players": m["players"],
        "figure": m["metric"],
        "value": [_num(v, scale=units[k][0], digits=units[k][2], unit=units[k][1])
                  for v, k in zip(m["value"], m["metric"])],
        "Monte Carlo error (+-, 95%)": [_num(h, scale=units[k][0], digits=units[k][2])
                                         for h, k in zip(m["half_width"], m["metric"])],
        "deals": m["deals"], "deals to halve it": m["deals_to_halve"]})


def _named_seat_table(a: _Analysis) -> pd.DataFrame:
    s = a.seats_rp[a.seats_rp["named"] == 1]
    return pd.DataFrame({
        "rules": [a.labels[r] for r in s["rules"]], "players": s["players"],
        "seat": s["seat"] + 1,
        "win share (% of hands, adjusted interval)": [
            _num(r["win_share"], r["lo"], r["hi"], 100) for _, r in s.iterrows()],
        "fair (%)": [_num(x, scale=100) for x in s["fair"]],
        "adjusted p (max-T)": [_p(x) for x in s["p_adjusted"]]})


def _tables(a: _Analysis) -> list[_Table]:
    return [
        _Table("Rule labels", _legend_table(a), "Short labels used in tables and figures."),
        _Table("Named seats", _named_seat_table(a),
               "Seats the deal-level randomisation test names (adjusted p below 0.05, max-T "
               "over every seat), with intervals simultaneous with the test, "
               "line-ups pooled per rules and player count; tables/seats_by_players.csv "
               "lists every seat, tables/seats.csv every cell."),
    ]


def _tables_csv(games: pd.DataFrame, hands: pd.DataFrame, a: _Analysis, out: Path) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    frames = {"scorecard": a.card, "seats": a.seats, "seats_by_players": a.seats_rp,
              "effects": a.effects, "strategies": a.strategies, "monte_carlo_error": a.mc}
    for name in TABLES:
        frames[name].to_csv(out / f"{name}.csv", index=False)
    return [f"tables/{name}.csv" for name in TABLES]


# --------------------------------------------------------------------------- figures

def _figures(hands: pd.DataFrame, a: _Analysis, fig_dir: Path) -> list[dict]:
    makers = {
        "hand_length": (lambda: plots.plot_length_survival(hands, a.labels), True),
        "stock_timing": (lambda: plots.plot_stock_timing(hands, a.labels),
                         "stock_exhausted_turn" in hands.columns),
        "seat_edges": (lambda: plots.plot_seat_dots(a.seats_rp, a.labels),
                       not a.seats_rp.empty),
        "strategy_matrix": (lambda: plots.plot_strategy_matrix(a.strategies),
                            not a.strategies.empty),
        "rule_effects": (lambda: plots.plot_effects(a.effects, a.labels),
                         not a.effects.empty),
    }
    out = []
    for name, (make, available) in makers.items():
        title, caption = FIGURES[name]
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
                    "svg": f"figures/{paths['svg'].name}"})
    return out


# --------------------------------------------------------------------------- games

def _games(results_dir: Path | str, hands: pd.DataFrame, manifest: dict, a: _Analysis,
           out: Path) -> list[dict]:
    """Viewer pages of games that show the findings (``OUT/games/``, see
    :mod:`fastmach.report.showcase`): per rules variant, its name and links."""
    from fastmach.report import showcase
    from fastmach.study import Study

    text = manifest.get("study")
    if not isinstance(text, str) or "\n" not in text:
        raise FastmachError("the manifest lacks the study definition ('study'): the games of "
                            "the findings cannot be written (--no-games leaves them out)")
    study = Study.from_toml(text)
    examples = showcase.pick_examples(hands, a.labels,
                                      showcase.logged_counts(study, Path(results_dir)))
    showcase.write_examples(examples, hands, study, Path(results_dir), out)
    shown: dict[str, list] = {}
    for ex in examples:
        shown.setdefault(ex.rules, []).append(
            {"href": ex.href, "text": ex.text, "where": ex.where})
    return [{"name": _rules_name(a.labels, r), "links": links} for r, links in shown.items()]


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


def _unfinished(games: pd.DataFrame, manifest: dict) -> str:
    """`` (unfinished: N of M deals)`` for a study whose run has not finished (a sweep still
    running, or stopped), else ``""``: the report's first line says so."""
    if manifest.get("finished"):
        return ""
    try:
        from fastmach.study import Study
        planned = Study.from_toml(str(manifest.get("study")))
        total = f" of {len(planned.cells) * planned.games}"
    except FastmachError:
        total = ""
    done = len(games[["cell", "replicate"]].drop_duplicates())
    return f" (unfinished: {done}{total} deals played so far)"


def default_out_dir(manifest: dict) -> Path:
    """``reports/<study name>`` (relative to the working directory)."""
    return Path("reports") / _safe_name(str(manifest.get("name", "study")))


def _display_path(text: str) -> str:
    """A path as a user would type it: relative to the working directory when under it,
    else its last component (a report never shows a machine's directory layout)."""
    p = Path(text)
    if not p.is_absolute():
        return text
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return p.name


def _display_command(command: str) -> str:
    """``command`` with the program as ``fastmach`` and no absolute path."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if not words:
        return command
    if words[0].endswith("fastmach") or words[0].endswith("__main__.py"):
        words[0] = "fastmach"
    elif Path(words[0]).name.startswith("python") and words[1:3] == ["-m", "fastmach"]:
        words = ["fastmach", *words[3:]]
    return shlex.join(_display_path(w) if w.startswith("/") else w for w in words)


def build_report(results_dir: Path | str, out_dir: Path | str | None = None, *,
                 ignore_foreign: bool = False, show_games: bool = True,
                 pairs: list[tuple[str, str]] | None = None) -> Path:
    """Write ``index.html``, ``summary.md``, ``figures/``, ``tables/*.csv`` and ``games/``.

    ``show_games``: write, per rules variant, viewer pages of the longest hand, a stock-out
    and a blocked hand (:mod:`fastmach.report.showcase`; the games are written again from their
    seeds and checked against the hand rows) and link them from the findings.

    Reads a study's stored game and hand rows (the study is not run again; only the few
    games shown in ``games/`` are replayed from their seeds); ``out_dir`` defaults to
    ``reports/<study name>``. Returns the path of ``index.html``. Raises FastmachError when
    the results directory, its parquet files, hand rows or manifest are missing or bad, or
    when ``out_dir`` cannot be written (checked before the work). The two pages are written
    under temporary names and moved into place when complete.
    ``pairs``: the ``(variant, baseline)`` rules of the effects (default: every variant
    against its baseline, :func:`fastmach.analysis.stats.default_pairs`); ``fastmach compare``
    passes its own, and its command (which rewrites the report) is then the one to rerun.
    """
    from fastmach.outputs import atomic_path, probe_dir

    games, hands, manifest = load_results(results_dir, ignore_foreign=ignore_foreign)
    out = Path(out_dir) if out_dir is not None else default_out_dir(manifest)
    probe_dir(out, "--out")
    a = _analyse(games, hands, pairs)
    figs = _figures(hands, a, out / "figures")
    csvs = _tables_csv(games, hands, a, out / "tables")
    shown = _games(results_dir, hands, manifest, a, out) if show_games else []
    from fastmach.report import skill as skill_section  # the skill section (report/skill.py)
    skill = skill_section.section(results_dir, games, hands, a.labels, out, a.effects)
    csvs += skill["csvs"]
    seeds = sorted({int(x) for x in games["seed"].unique()}) if "seed" in games.columns else []
    ctx = {
        "name": manifest.get("name", "study"),
        "version": manifest.get("fastmach_version", "unknown"),
        "seed": manifest.get("seed", seeds[0] if seeds else "unknown"),
        "seeds": seeds,
        "started": manifest.get("started", "unknown"),
        "finished": manifest.get("finished", "unknown"),
        "run_time": _run_time(manifest),
        "command": _display_command(str(manifest.get("command") or "unknown")),
        "report_command": "fastmach report " + shlex.quote(_display_path(str(results_dir)))
                          + " --out " + shlex.quote(_display_path(str(out))) if pairs is None
                          else _display_command(str(manifest.get("command") or "unknown")),
        "study": manifest.get("study", ""),
        "games": len(games),
        "hands": len(hands),
        "cells": int(games["cell"].nunique()),
        "replicates": int(games["replicate"].nunique()),
        "unfinished": _unfinished(games, manifest),
        "findings": findings(a),
        "shown": shown,
        "skill": skill,
        "front": _Table("Scorecard", _front_table(a),
                        "One row per rules variant and player count, line-ups pooled ("
                        + skill_section.pooled_lineups(games) +
                        "; tables/scorecard.csv has one row per cell). Values with 95% "
                        "intervals clustered by deal; pp = percentage points. Ended "
                        "blocked: hands nobody could or did add a card to for a round "
                        "(stock-out endings are counted under the stock only). Seat "
                        "spread: largest minus smallest seat win share; its interval "
                        "comes from the seats' simultaneous intervals (conservative)."),
        "mc": _Table("How sure are we", _mc_table(a),
                     "Monte Carlo error: half the 95% deal-clustered interval of each "
                     "headline figure. It falls as one over the square root of the deals, so "
                     "halving it takes four times the deals."),
        "figures": figs,
        "tables": _tables(a),
        "csvs": csvs,
        "generated": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    index = out / "index.html"
    with atomic_path(index) as tmp:
        tmp.write_text(env.get_template("report.html.j2").render(**ctx), encoding="utf-8")
    md_env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                                undefined=jinja2.StrictUndefined, trim_blocks=True,
                                lstrip_blocks=True)
    md_env.filters.update(md=md_text, fence=md_fence)
    with atomic_path(out / "summary.md") as tmp:
        tmp.write_text(md_env.get_template("summary.md.j2").render(**ctx), encoding="utf-8")
    return index


def md_text(text) -> str:
    """Text from a manifest made inert in Markdown outside code: one line, with the
    characters that open emphasis, code, links, HTML or headings escaped."""
    return re.sub(r"([\\`*_\[\]<>|!~#&])", r"\\\1", " ".join(str(text).splitlines()))


def md_fence(text, info: str = "") -> str:
    """A fenced code block holding ``text`` verbatim: the fence is longer than any run of
    backticks inside it."""
    runs = [len(m) for m in re.findall(r"`+", str(text))]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}{info}\n{text}\n{fence}"


# --------------------------------------------------------------------------- CLI
