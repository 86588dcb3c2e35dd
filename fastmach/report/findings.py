"""The words of ``fastmach compare``'s rule effects, from ``effects_by_players.csv``.

:func:`effect_sentences` words one rule's effects: pooled only when they have one sign
and a similar size across player counts and line-ups
(:func:`fastmach.analysis.heterogeneity.verdict`), else per player count with the sign
change said; a relative change only for a count. The balance report words its rule
effects per kind of table instead (:mod:`fastmach.report.designer`), never over line-ups.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from fastmach.analysis.heterogeneity import POOLED_METRICS, Verdict, verdict
from fastmach.analysis.metrics import METRICS, PHRASES, number, p_text

__all__ = ["PHRASES", "Finding", "effect_sentences"]

#: The order in which a rule's metrics are worded: the curves' metrics, then the others
#: with words for an effect (:data:`fastmach.analysis.metrics.PHRASES`).
_ORDER = tuple(sorted(PHRASES, key=lambda n: not METRICS[n].curve))


@dataclass
class Finding:
    """One sentence and the figure and table that show it (``(href, text)`` pairs)."""

    text: str
    links: list[tuple[str, str]] = field(default_factory=list)
    rank: float = 0.0


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _p_is(p) -> str:
    """``= 0.0123`` or ``< 0.0001``."""
    text = p_text(p)
    return text.replace("<", "< ") if text.startswith("<") else f"= {text}"


def _counts(ps) -> str:
    ps = sorted(int(p) for p in ps)
    if not ps:
        return ""
    runs, start = [], ps[0]
    for a, b in zip(ps, ps[1:] + [None]):
        if b != a + 1:
            runs.append(f"{start}" if start == a else f"{start}-{a}")
            start = b
    return (", ".join(runs[:-1]) + " and " + runs[-1] if len(runs) > 1 else runs[0]) \
        + " players"


def _diff(metric: str, r, adjusted: bool = True) -> str:
    m = METRICS[metric]
    lo, hi = (r["lo_adjusted"], r["hi_adjusted"]) if adjusted else (r["lo"], r["hi"])
    unit = "pp of hands" if m.unit == "share" else m.diff_unit
    if metric == "first_seat_edge":
        unit = "pp per hand"
    return number(r["diff"], lo, hi, m.scale, m.digits, unit, signed=True)


def _rel(r) -> str:
    """The relative change with its adjusted interval, when that interval tells the same
    as the difference's (excludes 0); else nothing."""
    if _nan(r["rel_diff"]) or _nan(r["rel_lo_adjusted"]):
        return ""
    if not (r["rel_lo_adjusted"] > 0 or r["rel_hi_adjusted"] < 0):
        return ""
    return (f"{r['rel_diff']:+.0%} [{r['rel_lo_adjusted']:+.0%}, "
            f"{r['rel_hi_adjusted']:+.0%}]")


def _rel_span(per: pd.DataFrame) -> str:
    """The smallest and the largest relative change of the player counts' rows:
    ``+5% at 2 players to +14% at 5 players``."""
    ok = per.dropna(subset=["rel_diff"]).sort_values("rel_diff")
    lo, hi = ok.iloc[0], ok.iloc[-1]
    return (f"{lo['rel_diff']:+.0%} at {int(lo['players'])} players to "
            f"{hi['rel_diff']:+.0%} at {int(hi['players'])} players")


def _values(metric: str, r) -> str:
    m = METRICS[metric]
    unit = "% of hands" if m.unit == "share" else f" {m.value_unit}"
    if metric == "first_seat_edge":
        return ""
    f = f"{{:.{m.digits}f}}"
    return (f"{f.format(m.scale * r['baseline_value'])} -> "
            f"{f.format(m.scale * r['variant_value'])}{unit}")


def _relative(metric: str) -> bool:
    """A relative change is worded for counts (turns, hands), not for shares near 0."""
    return METRICS[metric].unit != "share"


def _at(metric: str, r) -> str:
    """``+14.0 [+10.0, +18.0] turns (+25% [+18%, +32%]; 56.0 -> 70.0 turns) at 5
    players``; where the count's line-ups differ (one sign), their range instead:
    ``-15.7 to -18.0 turns by line-up at 4 players``."""
    if not r.get("one_effect", 1):
        m = METRICS[metric]
        unit = "pp of hands" if m.unit == "share" else m.diff_unit
        a, b = sorted((r["lineup_min_diff"], r["lineup_max_diff"]), key=abs)
        return (f"{number(a, scale=m.scale, digits=m.digits, signed=True)} to "
                f"{number(b, scale=m.scale, digits=m.digits, signed=True, unit=unit)} by "
                f"line-up at {int(r['players'])} players")
    extra = "; ".join(x for x in (_rel(r) if _relative(metric) else "",
                                  _values(metric, r)) if x)
    return (_diff(metric, r) + (f" ({extra})" if extra else "")
            + f" at {int(r['players'])} players")


def _rank(metric: str, rows: pd.DataFrame, v: Verdict) -> float:
    """Size of a named effect for ordering the first screen: the relative change of a
    count, twice the change of a share (35 pp ranks as +70%), capped at 1; plus 0.5 for a
    sign change (a pooled figure would hide it)."""
    named = rows[rows["named"] == 1]
    if named.empty:
        return 0.0
    if METRICS[metric].unit == "share":
        size = 2 * named["diff"].abs()
    else:
        size = named["rel_diff"].abs().fillna(0)
    return float(size.clip(upper=1.0).max()) + (0.5 if v.sign_change else 0.0)


def _lineups(t: pd.DataFrame) -> int:
    return int(t["contexts"].max()) if "contexts" in t.columns and len(t) else 1


def _metric_sentence(name: str, metric: str, v: Verdict, alpha: float) -> str | None:
    """The sentence of one rule and metric, or None when nothing is named."""
    up, down = PHRASES[metric]
    label = METRICS[metric].label
    if v.pooled is not None:
        r = v.pooled
        if not r["named"]:
            return None
        per = v.rows
        mid = per.iloc[len(per) // 2] if len(per) else None
        rel = _rel(r) if _relative(metric) else ""
        if rel and not r.get("one_relative", 1):
            # an equal difference on unequal baselines: the relative change differs
            rel = f"relative change unequal across player counts: {_rel_span(per)}"
        where = (f"over {_counts(per['players'])}"
                 + (" and every line-up" if _lineups(per) > 1 else "")
                 + " (no difference between them detected: heterogeneity adjusted p "
                 f"{_p_is(r['heterogeneity_p_adjusted'])})")
        example = ""
        if mid is not None and metric != "first_seat_edge":
            example = f"; {_values(metric, mid)} at {int(mid['players'])} players"
        return (f"{name} {up if r['diff'] > 0 else down}: {label} "
                f"{_diff(metric, r)}" + (f" ({rel})" if rel else "")
                + f" pooled, {where}{example}.")
    if not v.named:
        return None
    if v.overall is not None and not v.up and not v.down and not v.by_lineup:
        return None  # named pooled, unequal across counts, no count on its own: unclear
    rows = v.rows.set_index(v.rows["players"].astype(int))
    parts = []
    def each(ps) -> str:
        """Every count's effect, or with three or more the smallest and the largest."""
        if len(ps) == 1:
            return _at(metric, rows.loc[ps[0]]).rsplit(" at ", 1)[0]
        if len(ps) == 2:
            return "; ".join(_at(metric, rows.loc[p]) for p in ps)
        size = {p: abs(float(rows.loc[p, "diff"])) for p in ps}
        small, large = min(ps, key=size.__getitem__), max(ps, key=size.__getitem__)
        return (f"from {_at(metric, rows.loc[small])} to {_at(metric, rows.loc[large])}; "
                "the others in the table")

    if v.up:
        parts.append(f"{up} at {_counts(v.up)} ({each(v.up)})")
    if v.down:
        parts.append(f"{down} at {_counts(v.down)} ({each(v.down)})")
    if parts:
        text = f"{name} " + (" but " if v.sign_change else "; ").join(parts)
    else:
        text = f"{name} changes {label}"
    if v.sign_change:
        text += f": the effect on {label} changes sign with the player count"
    elif v.overall is not None:
        het = v.overall["heterogeneity_p_adjusted"]
        if len(v.rows) > 1 and not _nan(het) and het < alpha:
            text += (f": its size differs across player counts (heterogeneity adjusted "
                     f"p {_p_is(het)}), so no pooled figure is given")
    sized = v.rows[(v.rows["one_effect"] == 0) & ~v.rows["players"].isin(v.by_lineup)]
    if len(sized):
        text += ("; " if text.endswith(("given", "count")) else ": ") + (
            f"its size differs between line-ups at {_counts(sized['players'])} "
            f"(heterogeneity adjusted p {_p_is(sized['heterogeneity_p_adjusted'].min())})")
    if v.by_lineup:
        split = v.rows[v.rows["players"].isin(v.by_lineup)]
        text += ("; " if text.endswith(("given", "count", ")")) else ": ") + (
            f"at {_counts(v.by_lineup)} it depends on the line-up (heterogeneity adjusted "
            f"p {_p_is(split['heterogeneity_p_adjusted'].min())}), so no figure over the "
            f"line-ups is given: see the table by line-up")
    if v.unclear:
        text += f"; not told apart from 0 at {_counts(v.unclear)}"
    return text + "."


def effect_sentences(t: pd.DataFrame, pairs, names: dict[str, str], alpha: float = 0.05,
                     curves=()) -> tuple[list[Finding], list[str]]:
    """``(findings, unclear)`` for the pairs ``(variant, baseline)`` of
    ``effects_by_players.csv`` (``t``): a sentence per rule and named metric, and one line
    for the rules with nothing named. ``names`` maps a rules string to its name;
    ``curves``: the swept parameters (a finding on a rule that changes one links to its
    response curve)."""
    from fastmach.analysis.variants import parse_rules

    out, quiet, lost = [], [], []
    for variant, baseline in pairs:
        changed = set(parse_rules(variant)[1].items()) ^ set(parse_rules(baseline)[1].items())
        curve = [(f"#fig-curve-{k}", f"curve against {k}") for k in curves
                 if k in {c for c, _ in changed}]
        name = f"{names.get(variant, variant)} (against {names.get(baseline, baseline)})"
        said = 0
        for metric in _ORDER:
            if metric not in POOLED_METRICS:
                continue
            v = verdict(t, variant, baseline, metric)
            if v.overall is None:
                continue
            s = _metric_sentence(name, metric, v, alpha)
            if s is None:
                if (v.pooled is None and v.overall is not None and v.overall["named"]
                        and not v.up and not v.down):
                    lost.append(
                        f"where the effect of {name} on {METRICS[metric].label} lives: "
                        f"{_diff(metric, v.overall)} pooled, but unequal across player "
                        f"counts or line-ups (heterogeneity adjusted p "
                        f"{_p_is(v.overall['heterogeneity_p_adjusted'])}) and no player "
                        "count's effect is told apart from 0 on its own")
                    said += 1
                continue
            said += 1
            out.append(Finding(s, [("#fig-rule_effects", "figure"), *curve,
                                   ("#tab-effects", "table")],
                               _rank(metric, pd.concat([v.rows, v.overall.to_frame().T]),
                                     v)))
        if not said and ((t["variant"] == variant) & (t["baseline"] == baseline)).any():
            g = t[(t["variant"] == variant) & (t["baseline"] == baseline)
                  & t["players"].isna() & (t["metric"] == "turns_per_hand")]
            hint = (f" (turns per hand {_diff('turns_per_hand', g.iloc[0])})"
                    if len(g) else "")
            quiet.append(f"{name}{hint}")
    unclear = [] if not quiet else [
        ("whether these rules change anything: no effect on hand length, stock-outs, "
         "blocked hands, the first seat or skill is told apart from 0 for " if len(quiet) > 1
         else "whether this rule changes anything: no effect on hand length, stock-outs, "
         "blocked hands, the first seat or skill is told apart from 0 for ")
        + "; ".join(quiet[:4])
        + (f" and {len(quiet) - 4} more (tables/effects_by_players.csv)"
           if len(quiet) > 4 else "")]
    return out, unclear + lost
