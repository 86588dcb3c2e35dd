"""Balance report: stored study results -> figures -> ``index.html`` and ``summary.md``.

``build_report(RESULTS_DIR, OUT_DIR)`` reads only what a sweep stored (the game chunks,
the hand rows in ``_hands/`` and ``_study.json``), so a report can be rebuilt at any time
without running the study again. Every figure comes from :mod:`fastmach.analysis.stats` (the deal is the
unit of every interval). ``index.html`` is self-contained (figures embedded as base64
PNG); ``summary.md`` links to the PNG/SVG files in ``OUT_DIR/figures/``; ``OUT_DIR/tables/``
holds the numbers as CSV (``scorecard.csv``, ``seats.csv``, ``effects.csv``,
``effects_by_players.csv``, ...). The page opens on the findings
(:mod:`fastmach.report.findings`), then the words it uses
(:mod:`fastmach.report.glossary`); every swept parameter gets response curves
(:mod:`fastmach.report.curves`). ``fastmach report
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
from functools import partial
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import jinja2
import matplotlib.pyplot as plt
import pandas as pd
from markupsafe import Markup

from fastmach.analysis import metrics, stats
from fastmach.analysis.hands import plain_strategies
from fastmach.analysis.heterogeneity import effects_by_players
from fastmach.analysis.tables import paired_contexts
from fastmach.analysis.variants import swept_parameters, with_parameters
from fastmach.report import curves, plots
from fastmach.report import findings as words
from fastmach.report.glossary import glossary
from fastmach.errors import FastmachError
from fastmach.study.sweep import MANIFEST

__all__ = ["load_results", "build_report", "findings", "FIGURES", "TABLES", "Section"]

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
                        "opponent, against the fair share of each player count, "
                        "deal-clustered 95% score intervals (not adjusted)."),
    "rule_effects": ("Effect of each rule by player count",
                     "Paired difference variant minus baseline on the same deals, per player "
                     "count (one marker per line-up) and pooled (black), deal-clustered 95% "
                     "intervals, not adjusted (Newcombe's hybrid score interval for shares "
                     "of hands); the findings quote the adjusted ones."),
}

#: Tables written to ``tables/`` (numbers and identifiers only).
TABLES = ("scorecard", "seats", "seats_by_players", "effects", "effects_by_players",
          "strategies", "monte_carlo_error")

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
    id: str = ""

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
    by_players: pd.DataFrame    # effects per player count and pooled (effects_by_players.csv)
    pairs: list
    params: list                # swept numeric rule parameters
    strategies: pd.DataFrame
    mc: pd.DataFrame


def _seat_edge_frame(card: pd.DataFrame, seats: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``card`` with ``first_seat_edge_lo_adjusted, first_seat_edge_hi_adjusted``: the seat
    test's simultaneous interval of seat 1 minus the fair share, so that the edge the
    scorecard shows and the seat findings share a frame (``first_seat_edge_lo, _hi`` stay
    the 95% interval, not adjusted)."""
    first = seats[seats["seat"] == 0][keys + ["lo", "hi", "fair"]]
    m = card[keys].merge(first, on=keys, how="left")
    out = card.copy()
    at = out.columns.get_loc("first_seat_edge_hi") + 1
    out.insert(at, "first_seat_edge_lo_adjusted", (m["lo"] - m["fair"]).to_numpy())
    out.insert(at + 1, "first_seat_edge_hi_adjusted", (m["hi"] - m["fair"]).to_numpy())
    return out


def _analyse(games: pd.DataFrame, hands: pd.DataFrame, pairs=None, axes=()) -> _Analysis:
    pairs = stats.default_pairs(games) if pairs is None else list(pairs)
    params = swept_parameters(hands["rules"].unique(), axes)
    seats = stats.seat_table(hands, alpha=ALPHA)
    seats_rp = stats.seat_table(hands, by=("rules", "players"), alpha=ALPHA)
    from fastmach.report.skill import front_rows  # the all-strong line-up set apart
    front = _seat_edge_frame(
        stats.scorecard(*front_rows(games, hands), by=("rules", "players")), seats_rp,
        ["rules", "players"])
    card = _seat_edge_frame(stats.scorecard(games, hands), seats, ["cell"])
    paired = list(paired_contexts(plain_strategies(hands), pairs))
    return _Analysis(
        labels=plots.short_labels(hands["rules"]),
        card=with_parameters(card, params, after="lineup"),
        front=with_parameters(front, params, after="players"),
        seats=seats,
        seats_rp=seats_rp,
        effects=with_parameters(stats.effects(games, hands, pairs, alpha=ALPHA,
                                              paired=paired), params,
                                column="variant", after="lineup"),
        by_players=with_parameters(effects_by_players(hands, pairs, alpha=ALPHA,
                                                      paired=paired), params,
                                   column="variant", after="players"),
        pairs=pairs,
        params=params,
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
            + ("" if len(g) == 1 else
               f" vs {_num(hi_r['stock_out_per_hand'], hi_r['stock_out_per_hand_lo'], hi_r['stock_out_per_hand_hi'], 100, unit='%')}")
            + " of hands (95% intervals, not adjusted).")

    said, unclear = words.effect_sentences(a.by_players, a.pairs, a.labels, ALPHA,
                                           curves=a.params)
    out["rules"] = [x.text for x in said] + [f"We could not tell {u}." for u in unclear]

    for _, r in a.strategies.iterrows():
        out["skill"].append(
            f"{r['strategy']} against {r['opponent']} at {int(r['players'])} players: "
            f"{_num(r['win_share'], r['lo'], r['hi'], 100, unit='% of hands per seat')} "
            f"against a fair {_num(r['fair'], scale=100)}% at {int(r['players'])} players "
            f"({int(r['hands'])} hands; 95%, not adjusted).")
    sg = a.front.dropna(subset=["skill_gap"])
    for rules, g in sg.groupby("rules", sort=False):
        out["skill"].append(
            f"{name(rules)}: skill gap (expert minus beginner win share, pp per seat and "
            "hand; 95%, not adjusted) " + ", ".join(
                f"{_num(r['skill_gap'], r['skill_gap_lo'], r['skill_gap_hi'], 100, signed=True)}"
                f" at {int(r['players'])} players" for _, r in g.iterrows()) + ".")
    return out


def _in_order(a: _Analysis, df: pd.DataFrame, rules: str = "rules",
              then: tuple[str, ...] = ("players",)) -> pd.DataFrame:
    """Rows in the labels' order (presets, then variants in parameter order: hand_size=9
    before hand_size=11), then by ``then``."""
    from fastmach.analysis.variants import parameter_values, parse_rules

    order = list(a.labels)
    presets = list(dict.fromkeys(parse_rules(r)[0] for r in order))

    def key(r: str) -> tuple:
        values = parameter_values(r) if a.params else {}
        return (presets.index(parse_rules(r)[0]), tuple(values.get(k, 0.0) for k in a.params),
                order.index(r) if r in order else len(order))
    rank = {r: i for i, r in enumerate(sorted(order, key=key))}
    keys = [c for c in then if c in df.columns]
    return (df.assign(_rank=df[rules].map(rank).fillna(len(rank)))
            .sort_values(["_rank", *keys], kind="stable").drop(columns="_rank"))


def _front_table(a: _Analysis) -> pd.DataFrame:
    f = _in_order(a, a.front)

    def col(m, scale=1.0, digits=1, signed=False):
        return [_num(r[m], r[f"{m}_lo"], r[f"{m}_hi"], scale, digits, signed=signed)
                for _, r in f.iterrows()]
    out = pd.DataFrame({"rules": [a.labels[r] for r in f["rules"]]})
    for k in a.params:
        out[k] = [f"{x:g}" for x in f[k]]
    return out.assign(**{
        "players": f["players"].to_numpy(),
        "matches": f["games"].to_numpy(), "hands": f["hands"].to_numpy(),
        "turns per hand": col("turns_per_hand"),
        "hands per match": col("hands_per_game", digits=2),
        "stock ran out (% of hands)": col("stock_out_per_hand", 100),
        "ended blocked (% of hands)": col("blocked", 100),
        "first-seat edge (pp per hand, adjusted)": [
            _num(r["first_seat_edge"], r["first_seat_edge_lo_adjusted"],
                 r["first_seat_edge_hi_adjusted"], 100, signed=True)
            for _, r in f.iterrows()],
        "seat spread (pp per hand)": col("seat_spread", 100),
        "skill gap (pp per seat)": col("skill_gap", 100, signed=True),
    })


def _legend_table(a: _Analysis) -> pd.DataFrame:
    return pd.DataFrame({"name": list(a.labels.values()), "rules": list(a.labels)})


def _mc_table(a: _Analysis) -> pd.DataFrame:
    m = _in_order(a, a.mc, then=("players", "metric"))
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
    s = _in_order(a, a.seats_rp[a.seats_rp["named"] == 1], then=("players", "seat"))
    return pd.DataFrame({
        "rules": [a.labels[r] for r in s["rules"]], "players": s["players"],
        "seat": s["seat"] + 1,
        "win share (% of hands, adjusted interval)": [
            _num(r["win_share"], r["lo"], r["hi"], 100) for _, r in s.iterrows()],
        "fair at this player count (%)": [_num(x, scale=100) for x in s["fair"]],
        "adjusted p (max-T)": [_p(x) for x in s["p_adjusted"]]})


#: Metrics of the effects table in the report (effects_by_players.csv holds them all).
_EFFECT_TABLE_METRICS = ("turns_per_hand", "stock_out_per_hand", "blocked",
                         "first_seat_edge")


def _effects_table(a: _Analysis) -> pd.DataFrame:
    t = a.by_players[a.by_players["metric"].isin(_EFFECT_TABLE_METRICS)]
    order = {m: i for i, m in enumerate(_EFFECT_TABLE_METRICS)}
    t = t.assign(_m=t["metric"].map(order), _p=t["players"].fillna(99)).sort_values(
        ["_m", "_p"], kind="stable")
    t = _in_order(a, t, rules="variant", then=())

    def diff(r):
        m = metrics.METRICS[r["metric"]]
        return _num(r["diff"], r["lo_adjusted"], r["hi_adjusted"], m.scale, m.digits,
                    signed=True)

    def rel(r):
        if _nan(r["rel_diff"]) or _nan(r["rel_lo_adjusted"]):
            return ""
        return (f"{r['rel_diff']:+.0%} [{r['rel_lo_adjusted']:+.0%}, "
                f"{r['rel_hi_adjusted']:+.0%}]")
    return pd.DataFrame({
        "rule": [a.labels.get(v, v) for v in t["variant"]],
        "against": [a.labels.get(b, b) for b in t["baseline"]],
        "figure": [metrics.METRICS[m].label for m in t["metric"]],
        "players": ["pooled" if _nan(p) else str(int(p)) for p in t["players"]],
        "difference (adjusted interval)": [diff(r) for _, r in t.iterrows()],
        "relative (adjusted)": [rel(r) for _, r in t.iterrows()],
        "adjusted p (Holm)": [_p(x) for x in t["p_adjusted"]],
        "named": ["yes" if x else "" for x in t["named"]],
        "heterogeneity adj. p": [_p(x) for x in t["heterogeneity_p_adjusted"]],
        "stated as one effect": ["yes" if x else "no" for x in t["one_effect"]]})


def _tables(a: _Analysis) -> list[_Table]:
    return [
        _Table("Effects by player count", _effects_table(a),
               "Paired differences variant minus baseline per player count (line-ups "
               "pooled) and pooled over every player count; intervals simultaneous over "
               "every row of tables/effects_by_players.csv (adjusted with the Holm test). "
               "Shares in pp of hands. Heterogeneity: the effects of the player count x "
               "line-up contexts are equal (Holm over the table); an effect is stated as one "
               "only when it is not rejected and no two player counts have named effects of "
               "opposite signs.", "tab-effects"),
        _Table("Named seats", _named_seat_table(a),
               "Seats the deal-level randomisation test names (adjusted p below 0.05, max-T "
               "over every seat), with intervals simultaneous with the test, "
               "line-ups pooled per rules and player count; tables/seats_by_players.csv "
               "lists every seat, tables/seats.csv every cell.", "tab-seats"),
        _Table("Rule names", _legend_table(a),
               "Each variant's name in this report (what it changes) and its full rules "
               "string.", "tab-names"),
    ]


def _tables_csv(games: pd.DataFrame, hands: pd.DataFrame, a: _Analysis, out: Path) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    frames = {"scorecard": a.card, "seats": a.seats, "seats_by_players": a.seats_rp,
              "effects": a.effects, "effects_by_players": a.by_players,
              "strategies": a.strategies, "monte_carlo_error": a.mc}
    for name in TABLES:
        frames[name].to_csv(out / f"{name}.csv", index=False)
    return [f"tables/{name}.csv" for name in TABLES]


# --------------------------------------------------------------------------- figures

def _figures(hands: pd.DataFrame, a: _Analysis, fig_dir: Path) -> list[dict]:
    makers: dict[str, tuple[Callable[[], Any], bool]] = {
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
    for axis in curves.curve_axes(a.front, a.params):
        makers[f"curve-{axis}"] = (
            partial(curves.plot_curve, a.front, axis, a.params, a.labels), True)
    out = []
    for name, (make, available) in makers.items():
        if not available:
            continue
        if name.startswith("curve-"):
            axis = name[len("curve-"):]
            title, caption = curves.curve_title(axis), curves.curve_caption(axis, a.params)
        else:
            title, caption = FIGURES[name]
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


# --------------------------------------------------------------------------- sections

@dataclass
class Section:
    """A section of the report after the scorecard: anchor, title and its two bodies."""

    id: str
    title: str
    html: Markup
    markdown: str


def _sections(games: pd.DataFrame, hands: pd.DataFrame, a: _Analysis) -> list[Section]:
    """The report's further sections, in order (a new concern adds its own here)."""
    return []


def _grid_axes(manifest: dict) -> tuple[str, ...]:
    """The grid keys of the study besides rules, players, line-up and rotation."""
    import tomllib

    try:
        grid = tomllib.loads(str(manifest.get("study") or "")).get("grid", {})
    except tomllib.TOMLDecodeError:
        return ()
    return tuple(k for k in grid if k not in ("rules", "players", "lineup", "rotate"))


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
                 pairs: list[tuple[str, str]] | None = None,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Write ``index.html``, ``summary.md``, ``figures/``, ``tables/*.csv`` and ``games/``.

    ``show_games``: write, per rules variant, viewer pages of the longest hand, a stock-out
    and a blocked hand (:mod:`fastmach.report.showcase`; the games are written again from their
    seeds and checked against the hand rows) and link them from the findings.

    Reads a study's stored game and hand rows (the study is not run again; only the few
    games shown in ``games/`` are replayed from their seeds); ``out_dir`` defaults to
    ``reports/<study name>``. Returns the path of ``index.html``. Raises FastmachError when
    the results directory, its parquet files, hand rows or manifest are missing or bad, or
    when ``out_dir`` cannot be written (checked before the work), lies inside the results
    directory, or holds anything but a report's files. The report is built under a
    temporary name beside ``out_dir`` and takes its place whole when complete (a failed
    report leaves the one before, and a new one no page of an older one).
    ``pairs``: the ``(variant, baseline)`` rules of the effects (default: every variant
    against its baseline, :func:`fastmach.analysis.stats.default_pairs`); ``fastmach compare``
    passes its own, and its command (which rewrites the report) is then the one to rerun.
    ``progress``: called with each of :data:`STEPS` as it begins (a progress bar's).
    """
    from fastmach.outputs import atomic_dir, probe_dir

    step = progress or (lambda name: None)
    step(STEPS[0])
    games, hands, manifest = load_results(results_dir, ignore_foreign=ignore_foreign)
    out = Path(out_dir) if out_dir is not None else default_out_dir(manifest)
    _check_out(Path(results_dir), out)
    probe_dir(out, "out=")
    with atomic_dir(out, REPORT_ENTRIES) as stage:
        _write(results_dir, games, hands, manifest, out, stage, pairs, show_games, step)
    return out / "index.html"


#: the report's steps, in order (``build_report(progress=...)`` is called with each)
STEPS = ("reading the results", "the analysis", "the figures", "the tables",
         "the games shown", "the skill section", "the pages")


#: what a report directory holds (its whole content, replaced by the next report)
REPORT_ENTRIES = frozenset({"index.html", "summary.md", "figures", "tables", "games"})


def _check_out(results_dir: Path, out: Path) -> None:
    """A report is never written into its results (a sweep would then meet its files),
    nor where it would replace them (a directory holding them, by any name)."""
    from fastmach.outputs import refuse_inputs

    refuse_inputs(out, "out=", [("the results directory", results_dir)], directory=True)


def _write(results_dir, games, hands, manifest, out: Path, stage: Path, pairs,
           show_games: bool, step: Callable[[str], None]) -> None:
    """The report's files, written into ``stage`` (which becomes ``out``); ``step`` is
    called with each of STEPS but the first as it begins."""
    from fastmach.outputs import atomic_path

    step(STEPS[1])
    a = _analyse(games, hands, pairs, _grid_axes(manifest))
    step(STEPS[2])
    figs = _figures(hands, a, stage / "figures")
    first, unclear, _ = words.headline(a.by_players, a.pairs, a.seats_rp, a.labels, ALPHA,
                                       curves=a.params)
    fair = {int(p): float(g["fair"].mean()) for p, g in a.seats_rp.groupby("players")}
    step(STEPS[3])
    csvs = _tables_csv(games, hands, a, stage / "tables")
    step(STEPS[4])
    shown = _games(results_dir, hands, manifest, a, stage) if show_games else []
    step(STEPS[5])
    from fastmach.report import skill as skill_section  # the skill section (report/skill.py)
    skill = skill_section.section(results_dir, games, hands, a.labels, stage, a.effects)
    csvs += skill["csvs"]
    seeds = sorted({int(x) for x in games["seed"].unique()}) if "seed" in games.columns else []
    step(STEPS[6])
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
        "headline": first,
        "unclear": unclear,
        "frame": words.frame_note(a.by_players),
        "glossary": glossary(hands, fair),
        "sections": _sections(games, hands, a),
        "axes": curves.curve_axes(a.front, a.params),
        "shown": shown,
        "skill": skill,
        "front": _Table("Scorecard", _front_table(a),
                        "One row per rules variant and player count, line-ups pooled ("
                        + skill_section.pooled_lineups(games) +
                        "; tables/scorecard.csv has one row per cell, and a column per "
                        "swept parameter). Values with 95% intervals clustered by deal, "
                        "not adjusted for multiplicity, except the first-seat edge: its "
                        "interval is the seat test's simultaneous one (adjusted, max-T), "
                        "so it excludes 0 only where the test names the first seat. "
                        "pp = percentage points. Ended "
                        "blocked: hands nobody could or did add a card to for a round "
                        "(stock-out endings are counted under the stock only). Seat "
                        "spread: largest minus smallest seat win share; its interval "
                        "comes from the seats' Bonferroni intervals (conservative, not the "
                        "seat test's). Shares are score intervals: none is a point at 0 "
                        "or 100%."),
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
    with atomic_path(stage / "index.html") as tmp:
        tmp.write_text(env.get_template("report.html.j2").render(**ctx), encoding="utf-8")
    md_env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                                undefined=jinja2.StrictUndefined, trim_blocks=True,
                                lstrip_blocks=True)
    md_env.filters.update(md=md_text, fence=md_fence)
    with atomic_path(stage / "summary.md") as tmp:
        tmp.write_text(md_env.get_template("summary.md.j2").render(**ctx), encoding="utf-8")


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
