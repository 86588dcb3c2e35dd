"""The designer's page: the first layer of a report, in plain words, one kind of table at a time.

:func:`page` reads the report's tables (the scorecard, seats and rule effects by cell, each
of one line-up) and the hand and match rows, and returns what the first layer shows:

- per rule set and player count, for each kind of table it compares (:func:`kinds`: the
  all-``strong`` table as good play, the all-``expert`` table as expert play; never two
  line-ups pooled), how long a hand and a match last (median and middle half), how often
  the stock runs out and when, whether a seat is favoured (the seat test of ``seats.csv``:
  a seat is named only where it names one) and how much skill decides (expert against
  beginner seats at a mixed table; one strong seat among experts where measured);
- each rule change's effect per player count and kind of table, ranked by size, stated only
  where the adjusted test of ``effects.csv`` detects it and its adjusted interval excludes
  no change, in the metric's own unit; a relative change only for a count whose base is
  well away from 0; the rest "too close to call", with how many more games would settle
  it if the change is as large as it looked.

The words here avoid statistical terms: the appendix names and explains the methods.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd
from markupsafe import Markup, escape

from fastmach.analysis.metrics import METRICS, WORDED_METRICS
from fastmach.report.rulewords import rules_description, rules_name

__all__ = ["Kind", "Effect", "kinds", "page", "hand_svg", "DETAIL"]

#: Metrics a rule change is worded on, in order (the catalogue's).
DETAIL = WORDED_METRICS
#: A close call is said to need at most this many times the games; beyond, "no sign".
_MOST = 25


@dataclass(frozen=True)
class Kind:
    """One kind of table the page compares: its line-up, a heading, the words a sentence
    uses (``short``), the glance table's one word (``tag``), a figure's label and who
    plays."""

    lineup: str
    heading: str
    short: str
    who: str
    tag: str = ""
    label: str = ""


def _strategy_words(name: str) -> str:
    return {"strong": "the trained `strong` player",
            "expert": "`expert` (lays down as many cards as it can)",
            "beginner": "`beginner`, which sees only simple plays"}.get(name, f"`{name}`")


def kinds(lineups) -> list[Kind]:
    """The kinds of table the page sets side by side: the all-``strong`` table (good play)
    and the all-``expert`` one (expert play) when the study has them, else its tables where
    every seat plays the same strategy, else its first line-up; at most two."""
    from fastmach.study import split_lineup

    names = list(dict.fromkeys(str(x) for x in lineups))
    uniform = [lu for lu in names if len(set(split_lineup(lu))) == 1]
    order = sorted(uniform, key=lambda lu: {"strong": 0, "expert": 1}.get(lu, 2))
    chosen = order[:2] or names[:1]
    out = []
    for lu in chosen:
        parts = split_lineup(lu)
        if lu == "strong":
            out.append(Kind(lu, "Good play (trained players)", "good play",
                            "every seat `strong`", "good",
                            "Good play (trained)"))
        elif lu == "expert":
            out.append(Kind(lu, "Greedy play (experts: lay down as much as they can)",
                            "greedy play", "every seat `expert`",
                            "greedy", "Greedy play (experts)"))
        elif len(set(parts)) == 1:
            out.append(Kind(lu, f"Every seat {parts[0]}", f"every seat {parts[0]}",
                            "every seat " + _strategy_words(parts[0]), parts[0],
                            f"Every seat {parts[0]}"))
        else:
            out.append(Kind(lu, f"Table of {' and '.join(parts)}",
                            f"a table of {' and '.join(parts)}",
                            "seats taking turns: " + ", ".join(parts), "mixed",
                            f"Table of {' and '.join(parts)}"))
    return out


# ----------------------------------------------------------------------------- numbers

def _n(x: float) -> str:
    """A count as a designer reads it: whole above 10, one decimal below."""
    return f"{x:.0f}" if abs(x) >= 10 else f"{x:.1f}".rstrip("0").rstrip(".")


def _pct(x: float) -> str:
    """A share as a whole percent (``<1%`` above 0, ``>99%`` below 100)."""
    v = 100 * x
    if 0 < v < 0.5:
        return "<1%"
    if 99.5 <= v < 100:
        return ">99%"
    return f"{v:.0f}%"


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


# ----------------------------------------------------------------------------- one cell

@dataclass
class Cell:
    """What the page says about one rule set, player count and kind of table."""

    hand: str
    hand_q: tuple[float, float, float] | None
    match: str
    stock: str
    seat: str
    seat_flag: bool = False
    seat_sees: float = float("nan")
    seats_named: tuple[int, ...] = ()


def _quantiles(x: pd.Series) -> tuple[float, float, float]:
    q = x.quantile([0.25, 0.5, 0.75])
    return float(q.iloc[0]), float(q.iloc[1]), float(q.iloc[2])


def _fair(fair: float, players: int) -> str:
    """``fair 25%``; where hands nobody wins shrink a seat's fair share below one in
    ``players``, ``fair here 24%`` (the page's note says why)."""
    if _pct(fair) == _pct(1 / players):
        return f"fair {_pct(fair)}"
    return f"fair here {_pct(fair)}"


def _seat_text(s: pd.DataFrame, players: int = 0) -> tuple[str, bool, float]:
    """The seat finding of one cell's rows of ``seats.csv``: words, whether a seat is
    named, and the smallest edge the test would have seen (a share of hands)."""
    if s.empty:
        return "", False, float("nan")
    named = s[s["named"] == 1]
    edge = s.loc[s["testable"] == 1, "detectable"].dropna()
    sees = float(edge.max()) if len(edge) else float("nan")
    if len(named):
        parts = [f"seat {int(r['seat']) + 1} wins {_pct(r['win_share'])}"
                 for _, r in named.sort_values("seat").iterrows()]
        fair = float(named["fair"].iloc[0])
        return (", ".join(parts) + f" ({_fair(fair, players or round(1 / fair))})", True,
                sees)
    if not (s["testable"] == 1).any():
        return "too few games to tell", False, sees
    return "none found", False, sees


def _cells(games: pd.DataFrame, hands: pd.DataFrame, card: pd.DataFrame,
           seats: pd.DataFrame, lineups: list[str]) -> dict[tuple, Cell]:
    keys = ["rules", "players", "lineup"]
    h = hands[hands["lineup"].astype(str).isin(lineups)]
    g = games[games["lineup"].astype(str).isin(lineups)]
    out: dict[tuple, Cell] = {}
    card_at = {(r["rules"], int(r["players"]), str(r["lineup"])): r
               for _, r in card.iterrows()}
    for (rules, players, lineup), hh in h.groupby(keys, sort=False, observed=True):
        key = (str(rules), int(players), str(lineup))
        q = _quantiles(hh["turns"].astype(float))
        hand = f"{_n(q[1])} ({_n(q[0])}-{_n(q[2])})"
        gg = g[(g["rules"] == rules) & (g["players"] == players) & (g["lineup"] == lineup)]
        n_hands = gg["hands"].astype(float) if "hands" in gg.columns else pd.Series(
            [1.0] * len(gg))
        if len(gg) and (n_hands == 1).all():
            match = "one hand"
        elif len(gg):
            hq = _quantiles(n_hands)
            tq = _quantiles(gg["turns"].astype(float))
            match = (f"{_n(hq[1])} hand{'' if hq[1] == 1 else 's'} ({_n(hq[0])}-{_n(hq[2])}), "
                     f"{_n(tq[1])} turns")
        else:
            match = ""
        r = card_at.get(key)
        ran = hh["stock_exhausted_turn"].astype(float) if "stock_exhausted_turn" in \
            hh.columns else pd.Series(dtype=float)
        ran = ran[ran >= 0]
        share = float(r["stock_out_per_hand"]) if r is not None else len(ran) / len(hh)
        if share == 0:
            stock = "never"
        else:
            when = f", turn {_n(float(ran.median()))}" if len(ran) else ""
            stock = ("every hand" if share >= 0.995 else f"{_pct(share)} of hands") + when
        s = seats[(seats["rules"] == rules) & (seats["players"] == players)
                  & (seats["lineup"].astype(str) == str(lineup))]
        seat, flag, sees = _seat_text(s, int(players))
        named = tuple(sorted(int(x) + 1 for x in s.loc[s["named"] == 1, "seat"])) \
            if len(s) else ()
        out[key] = Cell(hand, q, match, stock, seat, flag, sees, named)
    return out


def _skill(hands: pd.DataFrame, ceiling: pd.DataFrame | None) -> dict[tuple, str]:
    """``(rules, players) -> words``: expert against beginner seats at a mixed table (each
    seat's share of hands won), and one strong seat among experts where measured."""
    from fastmach.study import split_lineup

    out: dict[tuple, list[str]] = {}
    mixed = [lu for lu in hands["lineup"].astype(str).unique()
             if set(split_lineup(lu)) == {"expert", "beginner"}]
    n = max((int(c[len("strategy_"):]) for c in hands.columns
             if c.startswith("strategy_")), default=-1) + 1
    for (rules, players), hh in hands[hands["lineup"].astype(str).isin(mixed)].groupby(
            ["rules", "players"], sort=False):
        share = {}
        for s in ("expert", "beginner"):
            won = seats = 0.0
            for i in range(n):
                m = hh[f"strategy_{i}"].astype(str) == s
                won += float(hh.loc[m, f"win_share_{i}"].fillna(0).sum())
                seats += float(m.sum())
            share[s] = won / seats if seats else float("nan")
        if not any(_nan(v) for v in share.values()):
            out.setdefault((str(rules), int(players)), []).append(
                f"expert {_pct(share['expert'])}, beginner {_pct(share['beginner'])} a "
                "seat")
    if ceiling is not None and len(ceiling):
        for _, r in ceiling[ceiling["strategy"].astype(str) == "strong"].iterrows():
            out.setdefault((str(r["rules"]), int(r["players"])), []).append(
                f"1 strong vs {int(r['players']) - 1} experts: {_pct(r['win_share'])}"
                + (f" ({int(r['deals'])} deals)" if "deals" in r and not _nan(r["deals"])
                   else ""))
    return {k: "; ".join(v) for k, v in out.items()}


def _q(cell: Cell | None) -> tuple[float, float, float] | None:
    return None if cell is None else cell.hand_q


def hand_svg(parts: list[tuple[str, tuple[float, float, float] | None]], top: float,
             width: int = 100, colour: int = 0) -> Markup:
    """A small picture of hand length: per kind of table a bar over the middle half of the
    hands and a tick at the median, on a common scale 0..``top`` turns."""
    rows = [(label, q) for label, q in parts if q is not None]
    h = 12 * len(rows) + 2
    out = [f'<svg class="spark" width="{width}" height="{h}" viewBox="0 0 {width} {h}" '
           f'role="img" aria-label="hand length, middle half and median">']
    colours = ["#0072B2", "#D55E00"]
    for i, (label, (lo, mid, hi)) in enumerate(rows):
        y = 2 + 12 * i
        x0, x1, xm = (width * min(v, top) / top for v in (lo, hi, mid))
        c = colours[(i + colour) % len(colours)]
        out.append(f'<line x1="0" x2="{width}" y1="{y + 4}" y2="{y + 4}" stroke="#eee"/>')
        out.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1.5):.1f}" height="8" '
                   f'fill="{c}" fill-opacity="0.35"><title>{escape(label)}</title></rect>')
        out.append(f'<rect x="{xm - 1:.1f}" y="{y - 1}" width="2.5" height="10" fill="{c}"/>')
    out.append("</svg>")
    return Markup("".join(out))


# ----------------------------------------------------------------------------- effects

@dataclass
class Effect:
    """One rule change at one player count on one metric: a sentence and its size."""

    variant: str
    baseline: str
    players: int
    metric: str
    text: str
    size: float
    detected: bool
    close: list[str] = field(default_factory=list)
    family: str = ""


def _detected(r) -> bool:
    return bool(r["named"]) and (r["lo_adjusted"] > 0 or r["hi_adjusted"] < 0)


def _value(metric: str, x: float) -> str:
    m = METRICS[metric]
    if m.unit == "share":
        if metric == "first_seat_edge":
            return f"{100 * x:+.0f} in 100"
        return _pct(x)
    return _n(x)


def _values(metric: str, r) -> str:
    """``on average 46 -> 26 turns`` (means, said so: the glance table shows medians),
    ``0% -> 39% of hands``."""
    m = METRICS[metric]
    a, b = (_value(metric, float(r[k])) for k in ("baseline_value", "variant_value"))
    if m.unit == "share":
        return f"{a} -> {b}" + ("" if metric == "first_seat_edge" else " of hands")
    return f"on average {a} -> {b} {m.unit}"


def _span(metric: str, lo: float, hi: float) -> str:
    """The adjusted range of a change in the metric's unit, said as a designer would."""
    m = METRICS[metric]
    a, b = sorted((abs(lo), abs(hi)))
    up = lo > 0
    if m.unit == "share":
        word = "more" if up else "fewer"
        return f"{100 * a:.0f} to {100 * b:.0f} {word} {m.in100}"
    return f"{_n(a)} to {_n(b)} {m.unit} {m.up if up else m.down}"


def _rel_words(metric: str, r) -> str:
    """``about 40% shorter`` for a count whose base is well away from 0, else ``""``."""
    base = float(r["baseline_value"])
    m = METRICS[metric]
    if not m.rel_base or _nan(base) or base < m.rel_base:
        return ""
    rel = float(r["variant_value"]) / base - 1
    if not math.isfinite(rel) or abs(rel) < 0.05:
        return ""
    if rel >= 1:
        times = f"{rel + 1:.1f}".removesuffix(".0")
        return f"about {times} times as " + ("long" if metric == "turns_per_hand" else "many")
    step = 5 if abs(rel) < 0.3 else 10
    pct = step * round(100 * abs(rel) / step)
    return f"about {pct}% {m.up if rel > 0 else m.down}"


def _verb(metric: str, r, players: int, rules: str) -> str:
    """``makes 4-player classic hands about 40% shorter``."""
    m = METRICS[metric]
    rel = _rel_words(metric, r)
    preset = rules.split("(")[0]
    if metric == "turns_per_hand":
        return (f"makes {players}-player {preset} hands "
                + (rel or ("longer" if r["diff"] > 0 else "shorter")))
    if metric == "hands_per_game":
        return (f"gives {players}-player {preset} matches "
                + (f"{rel} hands" if rel else ("more hands" if r["diff"] > 0 else
                                               "fewer hands")))
    return (m.rise if r["diff"] > 0 else m.fall) + f" at {players} players"


def _needed(r) -> float:
    """Times the games that would make an undetected change of the size measured clear of
    0 (the adjusted range narrows as one over the square root of the games)."""
    half = (float(r["hi_adjusted"]) - float(r["lo_adjusted"])) / 2
    d = abs(float(r["diff"]))
    if d == 0 or not math.isfinite(half):
        return math.inf
    return max(1.0, (half / d) ** 2)


def _effects(e: pd.DataFrame, ks: list[Kind], same_at: set[tuple] | None = None,
             deals: int = 0) -> list[Effect]:
    """The rule effects of the kinds of table, one per rule change, player count and
    metric (the worded metrics only), ranked by size. ``same_at``: the ``(variant, baseline,
    players, lineup)`` whose games are the same deal for deal (:func:`same_games`), said
    so; ``deals``: deals per table, for how many would settle a close call."""
    same_at = same_at or set()
    lineups = [k.lineup for k in ks]
    e = e[e["players"].notna() & e["lineup"].astype(str).isin(lineups)
          & e["metric"].isin(DETAIL)]
    out = []
    for (variant, baseline, players, metric), g in e.groupby(
            ["variant", "baseline", "players", "metric"], sort=False):
        by = {str(r["lineup"]): r for _, r in g.iterrows()}
        rows = [(k, by[k.lineup]) for k in ks if k.lineup in by]
        if metric == "hands_per_game" and all(
                float(r["baseline_value"]) == 1 and float(r["variant_value"]) == 1
                for _, r in rows):
            continue
        p = int(players)
        name = rules_name(str(variant))
        found = [(k, r) for k, r in rows if _detected(r)]
        if not found:
            moving = [(k, r) for k, r in rows if float(r["diff"]) != 0]
            if not moving:
                continue  # the same either way (never happens, or always): nothing to call
            need = min(_needed(r) for _, r in moving)
            out.append(Effect(str(variant), str(baseline), p, str(metric), "", 0.0, False,
                              [METRICS[str(metric)].plain, _times(need, deals)]))
            continue
        lead_k, lead = max(found, key=lambda kr: _size(str(metric), kr[1]))
        text = (f"{name[:1].upper() + name[1:]} {_verb(str(metric), lead, p, str(variant))} "
                f"with {lead_k.short}: {_values(str(metric), lead)} "
                f"({_span(str(metric), float(lead['lo_adjusted']), float(lead['hi_adjusted']))})")
        for k, r in rows:
            if k is lead_k:
                continue
            vals = _values(str(metric), r)
            if (str(variant), str(baseline), p, k.lineup) in same_at:
                text += f"; with {k.short} the same games, deal for deal"
            elif _detected(r):
                same = (r["diff"] > 0) == (lead["diff"] > 0)
                text += (f"; with {k.short} {'likewise' if same else 'the other way'}: {vals} "
                         f"({_span(str(metric), float(r['lo_adjusted']), float(r['hi_adjusted']))})")
            elif float(r["diff"]) == 0 and float(r["baseline_value"]) in (0.0, 1.0) \
                    and METRICS[str(metric)].unit == "share":
                text += f"; with {k.short} no change ({vals})"
            else:
                text += f"; with {k.short} {vals}, too close to call"
        out.append(Effect(str(variant), str(baseline), p, str(metric), text + ".",
                          max(_size(str(metric), r) for _, r in found), True))
    return sorted(out, key=lambda x: -x.size)


def _times(need: float, deals: int = 0) -> str:
    """``about 240 deals per rule set`` (``deals``: the deals played, each rule set on
    each; without them ``about 4 times the games``); ``""`` when even many more games
    would not tell (the change measured is tiny beside its range)."""
    if not math.isfinite(need) or need > _MOST:
        return ""
    times = max(2, math.ceil(need))
    if deals <= 0:
        return f"about {times} times the games"
    total = times * deals
    step = 10 ** max(0, len(str(total)) - 2)
    return f"about {step * math.ceil(total / step)} deals per rule set"


def _size(metric: str, r) -> float:
    """Size for ranking: the relative change of a count on a base well away from 0, twice
    the change of a share (35 in 100 ranks as 70%)."""
    if METRICS[metric].unit == "share":
        return 2 * abs(float(r["diff"]))
    base = float(r["baseline_value"])
    if METRICS[metric].rel_base and base >= METRICS[metric].rel_base:
        return abs(float(r["variant_value"]) / base - 1)
    return 0.0


# ----------------------------------------------------------------------------- same games

#: The hand rows' columns that place a hand (the same deal, seating and hand of a match)
#: and that say how it went; two rule sets play the same games at a kind of table where
#: every hand placed alike went alike.
_PLACE = ("replicate", "rotation", "hand")
_OUTCOME = ("turns", "winner", "end")
#: Why a one-option change never comes into play, where the rows show it: the option, the
#: hand rows' column (or column prefix, ending ``_``) that counts its use, and the words.
_UNUSED = {"failed_penalty": ("failed", "nobody ever fails a move, so the penalty never "
                                        "applies"),
           "may_draw_when_able": ("draws_when_able_", "nobody draws while able to play, "
                                                      "so the freedom is never used")}


def same_games(hands: pd.DataFrame, lineups: list[str]) -> dict[tuple[int, str], list[list[str]]]:
    """``(players, lineup) -> groups of rules strings`` whose hands are the same deal for
    deal (turns, winner and end of every hand alike), read from the hand rows."""
    place = [c for c in _PLACE if c in hands.columns]
    outcome = [c for c in _OUTCOME if c in hands.columns]
    out: dict[tuple[int, str], list[list[str]]] = {}
    if not place or not outcome:
        return out
    h = hands[hands["lineup"].astype(str).isin(lineups)]
    for (players, lineup), g in h.groupby(["players", "lineup"], sort=False, observed=True):
        by: dict[tuple, list[str]] = {}
        for rules, gg in g.groupby("rules", sort=False, observed=True):
            t = gg.sort_values(place)[place + outcome].astype(str)
            by.setdefault(tuple(map(tuple, t.to_numpy())), []).append(str(rules))
        groups = [v for v in by.values() if len(v) > 1]
        if groups:
            out[(int(players), str(lineup))] = groups
    return out


def _unused_reason(hands: pd.DataFrame, variant: str, where: list[tuple[int, str]]) -> str:
    """Why ``variant``'s one change never comes into play at ``where`` (``(players,
    lineup)``), where the rows count its use and it is never used; else the generic words."""
    from fastmach.analysis.variants import parse_rules

    over = parse_rules(variant)[1]
    generic = "the change never comes into play for these players"
    if len(over) != 1 or next(iter(over)) not in _UNUSED:
        return generic
    col, words = _UNUSED[next(iter(over))]
    cols = [c for c in hands.columns if c == col or (col.endswith("_") and c.startswith(col))]
    if not cols:
        return generic
    h = hands[(hands["rules"] == variant) & hands[["players", "lineup"]].astype(str).apply(
        tuple, axis=1).isin([(str(p), lu) for p, lu in where])]
    return words if len(h) and float(h[cols].fillna(0).to_numpy().sum()) == 0 else generic


def _scope(ks: list[Kind], where: dict[str, list[int]], players: list[int]) -> str:
    """``with good play and greedy play at every player count``, ``with greedy play at
    2, 3 players``."""
    shown = [k for k in ks if where.get(k.lineup)]
    if all(sorted(where.get(k.lineup, [])) == players for k in ks):
        return "with " + " and ".join(k.short for k in ks) + (
            " at every player count" if len(players) > 1 else "")
    return "; ".join(
        f"with {k.short}" + ("" if sorted(where[k.lineup]) == players else
                             " at " + ", ".join(map(str, sorted(where[k.lineup])))
                             + " players") for k in shown)


def _same_words(hands: pd.DataFrame, groups: dict[tuple[int, str], list[list[str]]],
                pairs: list[tuple[str, str]], ks: list[Kind], players: list[int]
                ) -> tuple[list[str], set[tuple]]:
    """Sentences on the rule changes that never come into play (the variant plays its
    base's games) and on rule sets that play alike; and the ``(variant, baseline,
    players, lineup)`` where a change never comes into play."""
    said: set[tuple] = set()
    out = []
    for v, b in pairs:
        where: dict[str, list[int]] = {}
        for (p, lu), gs in groups.items():
            if any(v in g and b in g for g in gs):
                where.setdefault(lu, []).append(p)
                said.add((v, b, p, lu))
        if not where:
            continue
        why = _unused_reason(hands, v, [(p, lu) for lu, ps in where.items() for p in ps])
        name = rules_name(v)
        out.append(f"{name[:1].upper() + name[1:]} plays exactly the same games as "
                   f"{rules_name(b)}, deal for deal, {_scope(ks, where, players)}: {why}.")
    alike: dict[tuple[str, ...], dict[str, list[int]]] = {}
    for (p, lu), gs in groups.items():
        for g in gs:
            if len(g) == 2 and (tuple(g) in pairs or tuple(g[::-1]) in pairs):
                continue
            alike.setdefault(tuple(sorted(g)), {}).setdefault(lu, []).append(p)
    for members, seen in alike.items():
        names = [rules_name(r) for r in members]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        out.append(f"{listed[:1].upper() + listed[1:]} play alike: the same games, deal for "
                   f"deal, {_scope(ks, seen, players)}.")
    return out, said


def _seat_moves(cells: dict[tuple, Cell], pairs: list[tuple[str, str]], ks: list[Kind],
                players: list[int]) -> dict[int, list[str]]:
    """Per player count, where the favoured seats of the glance table differ between a
    rule change and its base: what each shows, by seat (a base once, then its changes)."""
    out: dict[int, list[str]] = {}

    def words(c: Cell) -> str:
        return c.seat if c.seat_flag else "no seat stands out"

    for p in players:
        for k in ks:
            by: dict[str, list[str]] = {}
            for v, b in pairs:
                cb, cv = cells.get((b, p, k.lineup)), cells.get((v, p, k.lineup))
                if cb is None or cv is None or cb.seats_named == cv.seats_named:
                    continue
                if b not in by:
                    by[b] = [f"{rules_name(b)}: {words(cb)}"]
                by[b].append(f"{rules_name(v)}: {words(cv)}")
            for parts in by.values():
                out.setdefault(p, []).append(f"with {k.short}, " + "; ".join(parts))
    return out


def _by_count(eff: list[Effect], players: list[int], most: int = 5) -> list[str]:
    """The rule changes whose effect depends on the player count, in plain words: clear at
    some player counts only, or a count about twice as large at one as at another."""
    if len(players) < 2:
        return []
    played: dict[tuple[str, str], set[int]] = {}
    for x in eff:
        played.setdefault((x.variant, x.metric), set()).add(x.players)
    found: dict[tuple[str, str], dict[int, float]] = {}
    for x in eff:
        if x.detected:
            found.setdefault((x.variant, x.metric), {})[x.players] = x.size
    by: dict[str, list[str]] = {}
    for (v, m), sizes in sorted(found.items(), key=lambda kv: -max(kv[1].values())):
        every = sorted(played[(v, m)])
        plain = METRICS[m].plain
        if sorted(sizes) != every:
            by.setdefault(v, []).append(
                f"{plain} at {', '.join(map(str, sorted(sizes)))} players only")
        elif METRICS[m].unit != "share" and min(sizes.values()) > 0 \
                and max(sizes.values()) >= 2 * min(sizes.values()):
            lo = min(sizes, key=lambda q: sizes[q])
            hi = max(sizes, key=lambda q: sizes[q])
            by.setdefault(v, []).append(
                f"{plain} about {5 * round(20 * sizes[lo])}% at {lo} players but "
                f"{5 * round(20 * sizes[hi])}% at {hi}")
    return [f"{rules_name(v)}: {', '.join(w)}" for v, w in by.items()][:most]


def _played_note(rules: str, games: pd.DataFrame) -> str:
    """Where the study plays a rule set outside what its one-line description says (the
    player counts, ace-low's decks and cards by player count): ``""`` if nowhere."""
    from fastmach.report.rulewords import PRESET_DEALS, PRESET_PLAYERS

    g = games[games["rules"] == rules]
    preset = rules.split("(")[0]
    counts = sorted(int(p) for p in g["players"].unique())
    notes = []
    lo, hi = PRESET_PLAYERS.get(preset, (None, None))
    outside = [p for p in counts if (lo is not None and p < lo) or (hi is not None and p > hi)]
    if outside:
        notes.append("also played at " + ", ".join(map(str, outside)) + " players")
    stated = PRESET_DEALS.get(preset)
    if stated and {"decks", "hand_size"} <= set(g.columns):
        by: dict[tuple[int, int], list[int]] = {}
        for p, gg in g.groupby("players"):
            d, h = int(gg["decks"].iloc[0]), int(gg["hand_size"].iloc[0])
            if (d, h) != stated(int(p)):
                by.setdefault((d, h), []).append(int(p))
        for (d, h), ps in by.items():
            notes.append(f"{d} decks and {h} cards at "
                         + ", ".join(map(str, sorted(ps))) + " players")
    return "; ".join(notes)


# ----------------------------------------------------------------------------- the page

def page(games: pd.DataFrame, hands: pd.DataFrame, card: pd.DataFrame, seats: pd.DataFrame,
         effects: pd.DataFrame, order: list[str], ceiling: pd.DataFrame | None = None
         ) -> dict:
    """The first layer's context (see the module docstring). ``order``: the rules strings in
    the report's order; ``card``, ``seats``, ``effects``: ``scorecard.csv``, ``seats.csv``,
    ``effects.csv``; ``ceiling``: ``skill_ceiling.csv`` or None."""
    ks = kinds(games["lineup"].astype(str))
    cells = _cells(games, hands, card, seats, [k.lineup for k in ks])
    skill = _skill(hands, ceiling)
    players = sorted(int(p) for p in hands["players"].unique())
    top = {p: max([q[2] for (r, pp, lu), c in cells.items() if pp == p and c.hand_q
                   for q in [c.hand_q]] or [1.0]) * 1.1 for p in players}
    rows = []
    for rules in order:
        per = {}
        for p in players:
            got = {k.lineup: cells.get((rules, p, k.lineup)) for k in ks}
            if not any(got.values()):
                continue
            per[p] = {"cells": [(k, got[k.lineup], hand_svg(
                          [(k.heading, _q(got[k.lineup]))], top[p], colour=i))
                          for i, k in enumerate(ks)],
                      "skill": skill.get((rules, p), ""),
                      "flag": any(c is not None and c.seat_flag for c in got.values())}
        if per:
            note = _played_note(rules, games)
            rows.append({"rules": rules, "name": rules_name(rules),
                         "family": rules.split("(")[0],
                         "description": rules_description(rules) + (
                             f" In this study: {note}." if note else ""),
                         "players": per})
    deals = int(card["deals"].max()) if "deals" in card.columns and len(card) else 0
    pairs = list(dict.fromkeys(
        (str(v), str(b)) for v, b in zip(effects["variant"], effects["baseline"]))) \
        if effects is not None and len(effects) else []
    same, same_at = _same_words(hands, same_games(hands, [k.lineup for k in ks]), pairs,
                                ks, players)
    eff = _effects(effects, ks, same_at, deals) if effects is not None and len(effects) \
        else []
    said = [x for x in eff if x.detected]
    moves = _seat_moves(cells, pairs, ks, players)
    moved = {(v, b, p) for p in moves for v, b in pairs for k in ks
             if (c := cells.get((b, p, k.lineup))) is not None
             and (d := cells.get((v, p, k.lineup))) is not None
             and c.seats_named != d.seats_named}
    close: dict[int, list[str]] = {}
    tiny: dict[int, list[str]] = {}
    for p in players:
        by_rule: dict[str, list[str]] = {}
        small: dict[str, list[str]] = {}
        for x in eff:
            if x.detected or x.players != p:
                continue
            where = by_rule if x.close[1] else small
            seat = (x.metric == "first_seat_edge"
                    and (x.variant, x.baseline, p) in moved)
            where.setdefault(rules_name(x.variant), []).append(
                x.close[0] + (f" ({x.close[1]})" if x.close[1] else "")
                + (", though which seat is favoured does change (see the seats below)"
                   if seat else ""))
        if by_rule:
            close[p] = [f"{r}: {', '.join(v)}" for r, v in by_rule.items()]
        if small:
            tiny[p] = [f"{r}: {', '.join(v)}" for r, v in small.items()]
    seat_flags = sorted({(r, p) for (r, p, lu), c in cells.items() if c.seat_flag})
    sees = {}
    for p in players:
        v = [c.seat_sees for (r, pp, lu), c in cells.items() if pp == p
             and not _nan(c.seat_sees)]
        if v:
            sees[p] = (f"{100 * min(v):.0f}" if round(100 * min(v)) == round(100 * max(v))
                       else f"{100 * min(v):.0f} to {100 * max(v):.0f}")
    for x in said:
        x.family = x.variant.split("(")[0]
    return {"kinds": ks, "players": players, "families": list(dict.fromkeys(
                r["family"] for r in rows)),
            "has_ceiling": ceiling is not None and bool(len(ceiling)),
            "has_strong": any(k.lineup == "strong" for k in ks),
            "default_players":
            4 if 4 in players else players[-1], "rows": rows, "effects": said,
            "close": close, "tiny": tiny, "deals": deals, "same": same,
            "seat_moves": moves, "by_count": _by_count(eff, players),
            "fair_low": sorted({p for (r, p, lu), c in cells.items()
                                if "fair here" in c.seat}),
            "fair": {p: _pct(1 / p) for p in players},
            "no_casual": all(k.lineup in ("strong", "expert") for k in ks),
            "stronger": [k.lineup for k in ks] == ["strong", "expert"], "seat_flags": seat_flags, "seat_sees": sees,
            "has_skill": bool(skill), "has_match": any(
                c.match not in ("one hand", "") for c in cells.values()),
            "changes": len({(x.variant, x.baseline) for x in eff})}
