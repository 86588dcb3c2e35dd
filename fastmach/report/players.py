"""The report's players section (the appendix): ladders, the skill trace, the ceiling, balance under strong play.

:func:`section` reads what the study stored (the grid's hand rows and, when the study has
a ``[skill]`` table, the skill runs in ``DIR/_skill``: :mod:`fastmach.study.skill_runs`) and
returns the context of the template fragment ``_skill.html.j2`` (the appendix): its
sentences, tables, figure and CSV files. The statistics are those of
:mod:`fastmach.analysis.skill` (deal-clustered intervals, Holm over each table's tests);
a sentence says "more" or "less" only where the adjusted test and the interval allow it.

What each figure describes:

- the ladder: ratings (natural-log Plackett-Luce strength, expert = 0) from every hand of
  the rules x players that seats rated strategies together, grid and skill runs pooled;
- the ceiling: one seat of the measuring stick among ``n - 1`` experts (skill runs, and
  grid line-ups of that shape);
- the trace: one ``search(budget=2b)`` seat among ``search(budget=b)`` seats;
- balance under strong play: the grid's all-``strong`` line-up next to its all-``expert``
  line-up, the same deals (the scorecard's figures and the rule effects of each).
"""
from __future__ import annotations

import base64
import math
from pathlib import Path

import pandas as pd

from fastmach.analysis import skill as sk
from fastmach.analysis import tables, variants
from fastmach.analysis.metrics import METRICS, number, p_text
from fastmach.report.table import Table
from fastmach.rules import Rules
from fastmach.strategies.trained import policy_for

__all__ = ["section", "TABLES", "FIGURE", "STRONG", "MEASURING_STICKS", "RESAMPLES"]

#: CSV files of the section (under ``tables/``).
TABLES = ("skill_ladder", "skill_head_to_head", "skill_ceiling", "skill_trace",
          "skill_effects", "strong_play")
#: The trace figure's file name (under ``figures/``).
FIGURE = "skill_trace"
#: The line-up of balance under strong play, and the one it is set against.
STRONG, EXPERT = "strong", "expert"
#: Strategies the ceiling reports (when seated alone among experts).
MEASURING_STICKS = ("clairvoyant", "strong")
#: Places a sentence names before it refers to its table.
_SHOWN = 6
#: Deal resamples of the ladders' intervals.
RESAMPLES = 200
#: Scorecard figures shown under expert and strong play: (metric, column heading, scale,
#: signed), from the metric catalogue.
_STRONG_FIGURES = tuple((m, METRICS[m].column, METRICS[m].scale,
                         "signed" if m == "first_seat_edge" else "")
                        for m in ("turns_per_hand", "stock_out_per_hand", "first_seat_edge",
                                  "blocked"))


def _pct(v, lo=None, hi=None, signed=False) -> str:
    return number(v, lo, hi, 100.0, 1, signed=signed)


def _seats_text(n: int) -> str:
    return f"{n - 1} expert{'s' if n > 2 else ''}"


# ----------------------------------------------------------------------------- the parts

def _ladder_table(r: pd.DataFrame, name) -> pd.DataFrame:
    def rating(x) -> str:
        if x["strategy"] == x["anchor"]:
            return "0 (anchor)"
        if x["rating"] == -math.inf:
            return "-inf (never won)"
        return number(x["rating"], x["rating_lo"], x["rating_hi"], digits=2, signed=True)
    return pd.DataFrame({
        "rules": [name(x) for x in r["rules"]], "players": r["players"],
        "#": r["rank"], "strategy": r["strategy"],
        "rating [95%]": [rating(x) for _, x in r.iterrows()],
        "vs experts, predicted (% of hands)": [
            _pct(x["vs_experts_predicted"], x["vs_experts_predicted_lo"],
                 x["vs_experts_predicted_hi"]) for _, x in r.iterrows()],
        "fair (%)": [_pct(x) for x in r["fair_share"]],
        "seat-hands": r["seat_hands"], "deals": r["deals"]})


def _ceiling_table(c: pd.DataFrame, name) -> pd.DataFrame:
    return pd.DataFrame({
        "rules": [name(x) for x in c["rules"]], "players": c["players"],
        "strategy": c["strategy"],
        "win share vs experts (% of hands) [95%]": [
            _pct(x["win_share"], x["lo"], x["hi"]) for _, x in c.iterrows()],
        "fair (%)": [_pct(x) for x in c["fair"]],
        "edge (pp) [95%]": [_pct(x["edge"], x["edge_lo"], x["edge_hi"], True)
                            for _, x in c.iterrows()],
        "hands": c["hands"], "deals": c["deals"]})


def _trace_table(t: pd.DataFrame, name) -> pd.DataFrame:
    return pd.DataFrame({
        "rules": [name(x) for x in t["rules"]], "players": t["players"],
        "step": [f"{2 * int(b)} vs {int(b)}" for b in t["budget"]],
        "win share of the 2b seat (% of hands) [95%]": [
            _pct(x["win_share"], x["lo"], x["hi"]) for _, x in t.iterrows()],
        "fair (%)": [_pct(x) for x in t["fair"]],
        "edge (pp) [95%]": [_pct(x["edge"], x["edge_lo"], x["edge_hi"], True)
                            for _, x in t.iterrows()],
        "adj. p (Holm)": [p_text(x) for x in t["p_adjusted"]],
        "hands": t["hands"], "deals": t["deals"]})


def _effects_table(e: pd.DataFrame, name) -> pd.DataFrame:
    return pd.DataFrame({
        "variant": [name(x) for x in e["variant"]],
        "baseline": [name(x) for x in e["baseline"]], "players": e["players"],
        "strategy": e["strategy"],
        "baseline (% of hands)": [_pct(x) for x in e["baseline_value"]],
        "variant (% of hands)": [_pct(x) for x in e["variant_value"]],
        "difference (pp) [95%]": [_pct(x["diff"], x["lo"], x["hi"], True)
                                  for _, x in e.iterrows()],
        "adj. p (Holm)": [p_text(x) for x in e["p_adjusted"]],
        "skill matters": e["word"], "deals": e["pairs"]})


def _strong_play(games: pd.DataFrame, hands: pd.DataFrame) -> pd.DataFrame:
    """Scorecard figures of the all-expert and the all-strong line-ups, by rules x
    players (rows of ``scorecard.csv``'s columns, with ``lineup``)."""
    keep = hands["lineup"].isin([EXPERT, STRONG])
    if not (hands["lineup"] == STRONG).any() or not (hands["lineup"] == EXPERT).any():
        return pd.DataFrame()
    h = hands[keep]
    g = games[games["lineup"].isin([EXPERT, STRONG])]
    return tables.scorecard(g, h, by=("rules", "players", "lineup"))


def _strong_table(card: pd.DataFrame, name) -> pd.DataFrame:
    rows = []
    for (rules, players), g in card.groupby(["rules", "players"], sort=False):
        by = {r["lineup"]: r for _, r in g.iterrows()}
        if EXPERT not in by or STRONG not in by:
            continue
        row = {"rules": name(rules), "players": int(players)}
        for metric, label, scale, signed in _STRONG_FIGURES:
            for lu in (EXPERT, STRONG):
                r = by[lu]
                row[f"{label}, {lu}"] = number(r[metric], r[f"{metric}_lo"],
                                               r[f"{metric}_hi"], scale, 1,
                                               signed=bool(signed))
        rows.append(row)
    return pd.DataFrame(rows)


#: Rule effects shown by line-up (names of ``effects.csv``).
_EFFECT_FIGURES = ("turns_per_hand", "stock_out_per_hand", "first_seat_edge")


def _word(metric: str, r) -> str:
    from fastmach.analysis.metrics import METRICS

    vals = [float(r[k]) for k in ("diff", "lo", "hi", "p_adjusted")]
    if any(math.isnan(v) for v in vals) or not vals[3] < sk.ALPHA or vals[1] <= 0 <= vals[2]:
        return "no clear change"
    return METRICS[metric].up if vals[0] > 0 else METRICS[metric].down


def _effects_by_lineup(effects: pd.DataFrame, name) -> tuple[list[str], pd.DataFrame]:
    """Rule effects of the all-expert and the all-strong line-ups side by side (rows of
    ``effects.csv`` per player count, Holm over that whole table), and a sentence for each
    rule x metric whose word differs between the two line-ups at some player count."""
    from fastmach.analysis.metrics import METRICS

    if effects is None or effects.empty:
        return [], pd.DataFrame()
    e = effects[effects["lineup"].isin([EXPERT, STRONG]) & effects["players"].notna()
                & effects["metric"].isin(_EFFECT_FIGURES)]
    if not (e["lineup"] == STRONG).any():
        return [], pd.DataFrame()
    rows, words = [], []
    differ: dict[tuple, list[int]] = {}
    for (variant, baseline, players), g in e.groupby(["variant", "baseline", "players"],
                                                     sort=False):
        row = {"rule": f"{name(variant)} vs {name(baseline)}", "players": int(players)}
        for metric in _EFFECT_FIGURES:
            m = METRICS[metric]
            for lu in (EXPERT, STRONG):
                x = g[(g["metric"] == metric) & (g["lineup"] == lu)]
                if x.empty:
                    row[f"{m.label}, {lu}"] = ""
                    continue
                r = x.iloc[0]
                w = _word(metric, r)
                row[f"{m.label}, {lu}"] = (number(r["diff"], r["lo"], r["hi"], m.scale, 1,
                                                  signed=True)
                                           + ("" if w == "no clear change" else f" {w}"))
            we = [_word(metric, x) for _, x in g[(g["metric"] == metric)
                                                 & (g["lineup"] == EXPERT)].iterrows()]
            ws = [_word(metric, x) for _, x in g[(g["metric"] == metric)
                                                 & (g["lineup"] == STRONG)].iterrows()]
            if we and ws and we[0] != ws[0]:
                differ.setdefault((variant, baseline, metric, we[0], ws[0]), []).append(
                    int(players))
        rows.append(row)
    for (variant, baseline, metric, we, ws), players in differ.items():
        words.append(f"{name(variant)} vs {name(baseline)}: {METRICS[metric].label} "
                     f"{we} under expert play, {ws} under strong play at "
                     f"{', '.join(map(str, players))} players (the table below).")
    return words, pd.DataFrame(rows)


# ----------------------------------------------------------------------------- words

def _ceiling_words(c: pd.DataFrame, name) -> list[str]:
    out = []
    for (rules, players), g in c.groupby(["rules", "players"], sort=False):
        g = g[g["strategy"].isin(MEASURING_STICKS)]
        if g.empty:
            continue
        best = g.loc[g["win_share"].idxmax()]
        parts = [f"{r['strategy']}"
                 + (" (sees every card)" if r["strategy"] == "clairvoyant" else "")
                 + f" wins {number(r['win_share'], r['lo'], r['hi'], 100.0, 1, '% of hands')}"
                 for _, r in g.iterrows()]
        out.append(
            f"{name(rules)}, {int(players)} players, one seat against "
            f"{_seats_text(players)}: " + "; ".join(parts) + f" (fair {_pct(best['fair'])}%). "
            + (f"Skill takes at least {_pct(best['edge'], best['edge_lo'], best['edge_hi'])} "
               f"pp of hands beyond the fair share (the best measured player, "
               f"{best['strategy']}; a perfect player could take more: a floor, not a "
               f"ceiling)." if best["edge_lo"] > 0 else
               f"No measured player's edge over the fair share excludes 0 here (the best, "
               f"{best['strategy']}: {_pct(best['edge'], best['edge_lo'], best['edge_hi'], True)}"
               f" pp)."))
    return out


def _trace_words(t: pd.DataFrame, name) -> list[str]:
    out = []
    for (rules, players), g in t.groupby(["rules", "players"], sort=False):
        steps = []
        for _, r in g.iterrows():
            verdict = {1: "pays", -1: "costs", 0: "no clear edge"}[int(r["pays"])]
            steps.append(f"{2 * int(r['budget'])} vs {int(r['budget'])}: "
                         f"{_pct(r['edge'], r['edge_lo'], r['edge_hi'], True)} pp ({verdict})")
        last_pay = [int(r["budget"]) for _, r in g.iterrows() if r["pays"] == 1]
        if not last_pay:
            end = "no doubling of the budget shows an edge this study can detect"
        elif last_pay[-1] == int(g["budget"].max()):
            end = "more thinking still pays at the largest budget tried"
        else:
            end = f"doubling stops paying beyond budget {2 * last_pay[-1]}"
        out.append(f"{name(rules)}, {int(players)} players, search with budget 2b against "
                   f"b (edge of the 2b seat over its fair share per hand): "
                   + "; ".join(steps) + f": {end} (Holm-adjusted over every step of the "
                   f"table).")
    return out


def _effect_words(e: pd.DataFrame, name) -> list[str]:
    out = []
    live = e[e["word"] != "no clear change"]
    for _, r in live.iterrows():
        out.append(
            f"{name(r['variant'])} makes skill matter {r['word']} than {name(r['baseline'])} "
            f"at {int(r['players'])} players: {r['strategy']} wins "
            f"{_pct(r['variant_value'])}% against {_pct(r['baseline_value'])}% of hands "
            f"against experts ({_pct(r['diff'], r['lo'], r['hi'], True)} pp, paired by "
            f"deal, adjusted p = {p_text(r['p_adjusted'])}).")
    if len(e):
        quiet = len(e) - len(live)
        if quiet:
            out.append(f"{'No other' if len(live) else 'No'} rule change moves a measuring "
                       f"stick's share against experts by more than its interval allows "
                       f"({quiet} of {len(e)} comparisons; Holm, {sk.ALPHA:.0%}).")
    return out


# ----------------------------------------------------------------------------- figure

def _trace_figure(t: pd.DataFrame, name, fig_dir: Path) -> dict | None:
    if t.empty:
        return None
    import matplotlib.pyplot as plt

    from fastmach.report import plots

    groups = list(t.groupby("players", sort=True))
    fig, axes = plt.subplots(1, len(groups), figsize=(4.6 * len(groups), 3.4), squeeze=False,
                             sharey=True)
    for ax, (players, g) in zip(axes[0], groups):
        for i, (rules, r) in enumerate(g.groupby("rules", sort=False)):
            x = r["budget"].to_numpy() * (1 + 0.04 * i)
            ax.errorbar(x, 100 * r["win_share"], yerr=[100 * (r["win_share"] - r["lo"]).clip(0),
                        100 * (r["hi"] - r["win_share"]).clip(0)], fmt="o-", capsize=3,
                        color=plots.preset_colour(sk_preset(rules)), label=name(rules))
        ax.axhline(100 * g["fair"].mean(), color="#999999", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("budget b (search 2b against b)")
        ax.set_title(f"{int(players)} players", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("win share of the 2b seat (% of hands)")
    axes[0][-1].legend(fontsize=8, frameon=False)
    fig.tight_layout()
    try:
        paths = plots.save_figure(fig, fig_dir, FIGURE)
    finally:
        plt.close(fig)
    return {"name": FIGURE, "title": "Skill trace",
            "caption": "Win share per hand of one search seat with budget 2b against "
                       "n - 1 seats with budget b, with 95% deal-clustered intervals; the "
                       "dashed line is the fair share.",
            "png_b64": base64.b64encode(paths["png"].read_bytes()).decode("ascii"),
            "png": f"figures/{paths['png'].name}", "svg": f"figures/{paths['svg'].name}"}


def sk_preset(rules: str) -> str:
    from fastmach.analysis.variants import parse_rules

    return parse_rules(rules)[0]


# ----------------------------------------------------------------------------- section

def section(results_dir: Path | str, games: pd.DataFrame, hands: pd.DataFrame,
            labels: dict[str, str], out: Path, effects: pd.DataFrame | None = None,
            resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """The skill section's context (see the module docstring); writes its CSV files to
    ``out/tables`` and its figure to ``out/figures``. ``effects``: the report's
    ``effects.csv`` rows (the rule effects shown by line-up). Keys: ``sentences`` (lists under
    ``ceiling``, ``trace``, ``rules``, ``strong``), ``tables``, ``figure``, ``csvs``,
    ``skill_runs`` (whether the study has skill runs)."""
    from fastmach.study.skill_runs import read_skill

    extra = read_skill(results_dir)
    every = hands if extra is None else pd.concat([hands, extra], ignore_index=True)

    def name(rules: str) -> str:
        return labels.get(rules, rules)

    ratings, h2h = sk.ladders(every, resamples=resamples, seed=seed)
    ratings = ratings.sort_values(["rules", "players", "rank"], kind="stable",
                                  ignore_index=True)
    names = sorted({s for col in every.columns if col.startswith("strategy_")
                    for s in every[col].dropna().astype(str).unique()})
    sticks = [s for s in names if s.split("(")[0] in MEASURING_STICKS]
    ceil = sk.ceiling(every, sticks)
    tr = sk.trace(every)
    pairs = [] if extra is None else variants.default_pairs(extra)
    eff = sk.ceiling_effects(every, pairs, sticks)
    card = _strong_play(games, hands)
    frames = {"skill_ladder": ratings, "skill_head_to_head": h2h, "skill_ceiling": ceil,
              "skill_trace": tr, "skill_effects": eff, "strong_play": card}
    tdir = out / "tables"
    tdir.mkdir(parents=True, exist_ok=True)
    frames = {k: df for k, df in frames.items() if len(df)}  # no file for what did not run
    for key, df in frames.items():
        df.to_csv(tdir / f"{key}.csv", index=False)
    shown = []
    if len(ratings):
        shown.append(Table("Ladder of ratings", _ladder_table(ratings, name),
                            "Per rules and player count: Plackett-Luce ratings from hand "
                            "winners (natural-log strength, expert = 0; ties shared), over "
                            "every hand seating rated strategies together (grid and skill "
                            f"runs); 95% intervals from {resamples} resamples of the deals. "
                            "Predicted: the win share per hand of one seat against n - 1 "
                            "experts the ratings imply."))
    if len(ceil):
        shown.append(Table("How much skill can take", _ceiling_table(ceil, name),
                            "One seat of the strategy against n - 1 experts, seats rotated: "
                            "its win share per hand (Wilson interval at the deal-clustered "
                            "effective size) and its edge over the fair share (t interval, "
                            "deal-clustered)."))
    if len(tr):
        shown.append(Table("Skill trace", _trace_table(tr, name),
                            "One search seat with budget 2b against n - 1 with budget b, "
                            "seats rotated; adj. p tests a zero edge, Holm over every step "
                            "of the table."))
    if len(eff):
        shown.append(Table("Does a rule change make skill matter more?",
                            _effects_table(eff, name),
                            "The measuring stick's win share against experts under the "
                            "variant minus under its baseline, paired by deal (the same "
                            "deals), deal-clustered t interval; Holm over the table."))
    strong_tbl = _strong_table(card, name) if len(card) else pd.DataFrame()
    if len(strong_tbl):
        shown.append(Table("Balance under strong play", strong_tbl,
                            "The grid's all-expert line-up and its all-strong line-up on the "
                            "same deals, per rules and player count; 95% deal-clustered "
                            "intervals (the scorecard's methods)."))
    lineup_words, lineup_tbl = _effects_by_lineup(effects, name)
    if len(lineup_tbl):
        shown.append(Table("Rule effects by line-up", lineup_tbl,
                            "Each rule's paired effect (variant minus baseline, the same "
                            "deals) with the all-expert and with the all-strong line-up, per "
                            "player count: 95% deal-clustered intervals, and a word where "
                            "the Holm-adjusted p of effects.csv is below 0.05 and the "
                            "interval excludes 0 (stock and first seat in pp of hands)."))
    measured = [w for w, df in (("who beats whom (ratings)", ratings),
                                ("how much of the outcome one skilled seat takes against "
                                 "experts (the ceiling)", ceil),
                                ("whether more thinking keeps paying (the skill trace)", tr),
                                ("whether a rule change makes skill matter more", eff),
                                ("what changes when every seat plays strong", card))
                if len(df)]
    intro = ("A balance figure is a figure of the players that produced it. This section "
             "measures them: " + ", ".join(measured) + "." if measured else "")
    return {"skill_runs": extra is not None, "intro": intro, "ceiling": ceil,
            "sentences": {"ceiling": _ceiling_words(ceil, name),
                          "trace": _trace_words(tr, name),
                          "rules": _effect_words(eff, name),
                          "strong": _strong_words(card, name) + lineup_words},
            "tables": shown, "figure": _trace_figure(tr, name, out / "figures"),
            "csvs": [f"tables/{k}.csv" for k in TABLES if k in frames]}


def _who_is_strong(card: pd.DataFrame, name) -> list[str]:
    """Who plays ``strong`` at each rules x player count: the trained player where one is
    shipped (its exploitability as trained), the hand-tuned player elsewhere, said plainly;
    and where good play stalls (most hands blocked with nobody winning), that too."""
    strong = card[card["lineup"] == STRONG]
    trained, untrained, stalled = [], [], []
    for _, r in strong.iterrows():
        rules = Rules.parse(str(r["rules"])).replace(players=int(r["players"]))
        where = f"{name(r['rules'])} at {int(r['players'])} players"
        policy = policy_for(str(rules), rules.players)
        if policy is None:
            untrained.append(where)
            continue
        g = policy.exploitability
        trained.append(f"{where} (the best response found gains "
                       f"{100 * g['diff']:+.1f} pp [{100 * g['lo']:+.1f}, "
                       f"{100 * g['hi']:+.1f}] over it)")
        if float(r["blocked"]) >= 0.5:
            stalled.append(f"{where} {100 * float(r['blocked']):.0f}%")
    out: list[str] = []
    if trained:
        more = (f"; and {len(trained) - _SHOWN} more" if len(trained) > _SHOWN else "")
        out.append(f"`strong` is the player trained for its rule set by self-play (fastmach "
                   f"train) at {len(trained)} of {len(strong)} rules x player counts: "
                   + "; ".join(trained[:_SHOWN]) + more + ".")
    if untrained:
        more = (f"; and {len(untrained) - _SHOWN} more" if len(untrained) > _SHOWN else "")
        out.append(f"No trained player is shipped for {len(untrained)} of {len(strong)} rules "
                   f"x player counts ({'; '.join(untrained[:_SHOWN])}{more}): there the "
                   f"hand-tuned strong player stands in, tuned for the presets, and how "
                   f"exploitable it is there was not measured.")
    if stalled:
        out.append("Under these rules good players stall: most hands end blocked with "
                   "nobody winning (" + "; ".join(stalled) + " of hands).")
    return out


def _strong_words(card: pd.DataFrame, name) -> list[str]:
    """Who plays strong (:func:`_who_is_strong`), and where strong play changes a scorecard
    figure beyond both intervals (their intervals do not overlap: a conservative reading,
    not a paired test)."""
    out: list[str] = []
    if card.empty:
        return out
    out += _who_is_strong(card, name)
    strong = card[card["lineup"] == STRONG]
    dry = int((strong["stock_out_per_hand"] >= 0.99).sum())
    if dry:
        out.append(f"At {dry} of {len(strong)} rules x player counts the stock runs out in "
                   f"99% or more of the all-strong table's hands: when every seat holds "
                   f"back until it can go out, the hand is drawn to the stock's end, and "
                   f"its length and stock figures are the deck's arithmetic more than play.")
    for metric, label, scale, signed in _STRONG_FIGURES[:2]:
        moved = []
        for (rules, players), g in card.groupby(["rules", "players"], sort=False):
            by = {r["lineup"]: r for _, r in g.iterrows()}
            if EXPERT not in by or STRONG not in by:
                continue
            e, s = by[EXPERT], by[STRONG]
            if any(math.isnan(float(x)) for x in (e[f"{metric}_lo"], s[f"{metric}_lo"])):
                continue
            if s[f"{metric}_lo"] > e[f"{metric}_hi"] or s[f"{metric}_hi"] < e[f"{metric}_lo"]:
                moved.append(f"{name(rules)} at {int(players)} players "
                             f"({number(e[metric], scale=scale)} -> "
                             f"{number(s[metric], scale=scale)})")
        total = card.groupby(["rules", "players"]).ngroups
        if moved:
            more = (f"; and {len(moved) - _SHOWN} more (tables/strong_play.csv)"
                    if len(moved) > _SHOWN else "")
            out.append(f"Under strong play {label} differs from expert play where the two "
                       f"95% intervals do not overlap in {len(moved)} of {total} rules x "
                       f"player counts: " + "; ".join(moved[:_SHOWN]) + more + ".")
        else:
            out.append(f"Strong play leaves {label} within the intervals of expert play in "
                       f"every one of {total} rules x player counts.")
    return out


