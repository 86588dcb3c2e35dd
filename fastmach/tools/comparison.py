"""What does a rule change? Rule sets played on the same deals: ``fastmach compare``.

``compare(["classic", "classic(jokers=2)"])`` builds an ordinary
:class:`~fastmach.study.Study` whose cells are the rule sets x player counts x line-ups,
seats rotated, so that replicate ``r`` is the same deal in every cell (common random
numbers). The first rule set is the baseline A; every other one is compared with A deal
by deal. The statistics (intervals clustered by deal, multiplicity control, the
scorecard and effects tables) are those of :mod:`fastmach.analysis.stats`; this module plans and
runs the study, picks the rows of the comparison and words them.

With ``out=DIR`` everything is kept: ``DIR/results`` is a normal study store (resumable,
read by ``pandas.read_parquet`` and ``fastmach.read_hands``) and ``DIR/report`` the
report and ``tables/*.csv`` that ``fastmach report`` writes, on the compared pairs.
Running the same comparison again resumes it.

A sample size can be asked for instead of a number of deals: with ``precision`` the
study is the study-level precision of :mod:`fastmach.study.precision` (deals added a chunk at a
time, the same seeds as a fixed-size run, until every cell's turns per hand, and if asked
every seat's win share, is known that well, or ``max_games`` deals per cell).
"""
from __future__ import annotations

import html
import math
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from fastmach.analysis.metrics import METRICS as CATALOGUE, Metric, p_text
from fastmach.errors import FastmachError
from fastmach.rules import is_integer
from fastmach.study import Study, split_lineup
from fastmach.tools.defaults import COMPARE_GAMES, COMPARE_MAX_GAMES, COMPARE_SEED

__all__ = ["compare", "Comparison", "METRICS", "plan_study", "parse_precision", "word", "UNEQUAL",
           "comparison_table", "format_table", "format_sentences", "sentences_of"]

DEFAULT_PLAYERS = (2, 3, 4, 5)
DEFAULT_LINEUPS = (("expert",), ("expert", "beginner"))
DEFAULT_GAMES = COMPARE_GAMES
DEFAULT_MAX_GAMES = COMPARE_MAX_GAMES
DEFAULT_SEED = COMPARE_SEED
DEFAULT_CHUNK = 100
#: Family-wise level of the words: a word only where the adjusted interval excludes 0.
ALPHA = 0.05


#: The metrics of the comparison, in the order of the table (names of ``effects.csv``):
#: the catalogue of :mod:`fastmach.analysis.metrics`.
METRICS: dict[str, Metric] = dict(CATALOGUE)


#: The figure a bare ``precision`` number is the half-width of (in every cell).
HEADLINE = "turns_per_hand"

NO_CHANGE = "no clear change"
#: The word of a pooled row with no figure: the effect changes sign or size with the
#: player count or line-up (the rows follow)
UNEQUAL = "unequal across the rows below: no pooled figure"


# ----------------------------------------------------------------------------- the study

def _parse_rules(rules: Sequence[str]) -> list:
    from fastmach.rules import Rules

    if isinstance(rules, str) or not isinstance(rules, Sequence):
        raise FastmachError(f"compare: expected a list of two or more rule sets, got "
                            f"{rules!r}")
    if len(rules) < 2:
        raise FastmachError(f"compare: give two or more rule sets (the first is the "
                            f"baseline), got {list(rules)!r}")
    parsed: list[Rules] = []
    for r in rules:
        if not isinstance(r, str):
            raise FastmachError(f"compare: expected a preset or rules string, got {r!r}")
        parsed.append(Rules.parse(r))
    seen: dict[str, str] = {}
    for text, rr in zip(rules, parsed):
        if str(rr) in seen:
            same = "" if seen[str(rr)] == text else f" (the same rules as {seen[str(rr)]!r})"
            raise FastmachError(f"compare: duplicate rule set {text!r}{same}; each rule set "
                                f"is compared with the first, so give distinct ones")
        seen[str(rr)] = text
    return parsed


def _players_of(parsed: list, players: Sequence[int] | int | None, least: int = 2
                ) -> tuple[int, ...]:
    """Player counts: the ones asked for (each one every rule set can deal), or the default
    2-5 clipped to the range of every rule set's source (``rules.SOURCE_PLAYERS``) and to
    ``least`` (the longest line-up) or more."""
    from fastmach.rules import SOURCE_PLAYERS

    def fits(p: int) -> str | None:
        for r in parsed:
            try:
                r.replace(players=p)
            except FastmachError as e:
                return f"{r}: {e}"
        return None

    def in_source(p: int) -> bool:
        return all(lo <= p and (hi is None or p <= hi)
                   for lo, hi in (SOURCE_PLAYERS[r.preset] for r in parsed))

    if players is None:
        kept = tuple(p for p in DEFAULT_PLAYERS
                     if p >= least and in_source(p) and fits(p) is None)
        if not kept:
            raise FastmachError(f"compare: no player count of {DEFAULT_PLAYERS} suits every "
                                f"rule set and its source; give --players")
        return kept
    counts: Sequence[Any] = [players] if is_integer(players) else players  # type: ignore[assignment]
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Iterable):
        raise FastmachError(f"players: expected an integer 2..8 or a list of them, got "
                            f"{players!r}")
    out = []
    for p in counts:
        if not is_integer(p) or not 2 <= p <= 8:
            raise FastmachError(f"players: expected integers 2..8, got {p!r}")
        p = int(p)
        why = fits(p)
        if why is not None:
            raise FastmachError(f"players={p}: impossible under {why}")
        if p not in out:
            out.append(p)
    if not out:
        raise FastmachError("players: empty list")
    return tuple(out)


def _lineups_of(lineups: Sequence[str | Sequence[str]] | None) -> tuple[tuple[str, ...], ...]:
    if lineups is None:
        return DEFAULT_LINEUPS
    if isinstance(lineups, str):
        lineups = [lineups]
    if not isinstance(lineups, Iterable):
        raise FastmachError(f"lineups: expected line-ups (a list of strategy lists or "
                            f"'a,b' strings), got {lineups!r}")
    out = []
    for lu in lineups:
        if isinstance(lu, str):
            try:
                out.append(tuple(split_lineup(lu)))
            except FastmachError:
                raise FastmachError(f"lineup={lu!r}: empty strategy in the line-up"
                                    ) from None
        elif isinstance(lu, (list, tuple)) and lu:
            out.append(tuple(lu))
        else:
            raise FastmachError(f"lineup: expected 'a,b' or a list of strategies, got "
                                f"{lu!r}")
    if not out:
        raise FastmachError("lineup: no line-up given")
    from fastmach.strategies import parse_strategy

    for lu in out:  # named by the option, before the study names it by its grid key
        for s in lu:
            try:
                parse_strategy(s)
            except FastmachError as e:
                raise FastmachError(f"lineup={','.join(map(str, lu))!r}: {e}") from None
    return tuple(out)


def _as_int(v: Any) -> Any:
    """A NumPy integer as a Python int (a Study's fields); anything else as it is."""
    return int(v) if is_integer(v) else v


def plan_study(rules: Sequence[str], players: Sequence[int] | int | None = None,
               lineups: Sequence[str | Sequence[str]] | None = None,
               games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED,
               chunk: int = DEFAULT_CHUNK, precision: Mapping[str, float] | None = None,
               max_games: int | None = None) -> Study:
    """The study of a comparison: cells rules x players x line-ups, seats rotated.

    ``players`` default to 2-5, clipped to every rule set's source range (``jokers``:
    2-4), to the counts its deck can deal and to the longest line-up or more;
    ``lineups`` (strings ``"expert,beginner"`` or lists) default to an expert line-up and
    an expert/beginner one. ``precision`` and ``max_games`` are the study's (see
    :mod:`fastmach.study.precision`). Every error is a FastmachError naming the bad input.
    """
    parsed = _parse_rules(rules)
    lus = _lineups_of(lineups)
    if not is_integer(seed) or not 0 <= seed < 2**63:
        raise FastmachError(f"seed: expected an integer 0..2**63-1, got {seed!r}")
    # (NumPy integers as Python ints; anything else the Study names)
    seed, games, chunk = int(seed), _as_int(games), _as_int(chunk)
    max_games = _as_int(max_games)
    if len({str(r.replace(players=2)) for r in parsed}) < len(parsed):
        raise FastmachError(
            f"compare: two of the rule sets {', '.join(map(str, rules))} are the same once "
            f"each cell's player count is set (the players compared, --players, replace a "
            f"players= of a rules string; it does not make another rule set)")
    return Study(name="compare", seed=seed, games=games, chunk=chunk,
                 rules=tuple(str(r) for r in parsed),
                 players=_players_of(parsed, players, max(len(lu) for lu in lus)),
                 lineup=lus, rotate=True,
                 precision=tuple((precision or {}).items()), max_games=max_games)


def rules_columns(study: Study) -> list[str]:
    """The ``rules`` column value of each rule set of the study, in order (A first)."""
    per = len(study.cells) // len(study.rules)
    return [study.cells[i * per].rules_text for i in range(len(study.rules))]


def pairs_of(study: Study) -> list[tuple[str, str]]:
    """``(variant, baseline)`` rules strings: every rule set against the first."""
    cols = rules_columns(study)
    return [(v, cols[0]) for v in cols[1:]]


# ----------------------------------------------------------------------------- words

def word(metric: str, diff: float, lo: float, hi: float, p_adjusted: float,
         alpha: float = ALPHA) -> str:
    """The word of a paired difference: ``no clear change`` unless the adjusted test
    rejects (``p_adjusted < alpha``) and the interval ``[lo, hi]`` excludes 0; then the
    metric's word for the direction (``longer``/``shorter``, ``more``/``fewer``, ...)."""
    m = METRICS.get(metric, Metric(metric, metric, "", "higher", "lower", metric))
    vals = (diff, lo, hi, p_adjusted)
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals):
        return NO_CHANGE
    if p_adjusted >= alpha or lo <= 0.0 <= hi:
        return NO_CHANGE
    return m.up if diff > 0 else m.down


def _empty(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v == ""


def comparison_table(effects: pd.DataFrame, pairs: Sequence[tuple[str, str]],
                     alpha: float = ALPHA, by_players: pd.DataFrame | None = None
                     ) -> pd.DataFrame:
    """The printed table as numbers: one row per pair x metric (pooled) and, where the
    words of the player-count x line-up rows differ between them, those rows too.

    A pooled effect is never stated where it changes sign between those rows, or where
    ``by_players`` (:func:`fastmach.analysis.heterogeneity.effects_by_players`, as the
    report reads it) says it may not be stated as one effect (unequal across player counts
    or line-ups): its row then carries no figure and the word :data:`UNEQUAL`, and every
    player-count x line-up row follows.

    Columns: ``variant, baseline, players, lineup, metric, label, baseline_value,
    variant_value, diff, lo, hi, p_adjusted, pairs, word``, all from the rows of
    ``effects`` (:func:`fastmach.analysis.tables.effects`); ``players``/``lineup`` are empty on
    pooled rows. A metric with no pooled row (the seat spread does not pool across player
    counts) shows its rows by player count and line-up when any of them has a word, else
    one row that says so.
    """
    rows = []
    for variant, baseline in pairs:
        eff = effects[(effects["variant"] == variant) & (effects["baseline"] == baseline)]
        present = set(eff["metric"])
        for metric in [m for m in METRICS if m in present] + sorted(present - set(METRICS)):
            em = eff[eff["metric"] == metric]
            is_pooled = em["players"].map(_empty) & em["lineup"].map(_empty)
            out = [_row(variant, baseline, metric, r, alpha)
                   for _, r in pd.concat([em[is_pooled], em[~is_pooled]]).iterrows()]
            pooled = [o for o in out if o["players"] is None]
            strata = [o for o in out if o["players"] is not None]
            words = {o["word"] for o in strata}
            if pooled and (_both_ways(metric, words)
                           or not _one_effect(by_players, variant, baseline, metric)):
                rows.append(_row(variant, baseline, metric, None, alpha)
                            | {"pairs": pooled[0]["pairs"], "word": UNEQUAL})
                rows.extend(strata)
            elif pooled:
                rows.extend(pooled + (strata if len(words) > 1 else []))
            elif words - {NO_CHANGE}:
                rows.extend(strata)
            elif strata:
                rows.append(_row(variant, baseline, metric, None, alpha)
                            | {"pairs": sum(o["pairs"] for o in strata)})
    return pd.DataFrame(rows, columns=_TABLE_COLUMNS)


def _both_ways(metric: str, words: set[str]) -> bool:
    """Named effects of both directions among a metric's rows."""
    m = METRICS.get(metric)
    return m is not None and m.up in words and m.down in words


def _one_effect(by_players: pd.DataFrame | None, variant: str, baseline: str,
                metric: str) -> bool:
    """Whether the report may state the pair's pooled effect on ``metric`` as one effect
    (True where ``by_players`` has no pooled row for it)."""
    if by_players is None or by_players.empty:
        return True
    t = by_players
    row = t[(t["variant"] == variant) & (t["baseline"] == baseline) & (t["metric"] == metric)
            & t["players"].isna()]
    return row.empty or bool(row["one_effect"].iloc[0])


_TABLE_COLUMNS = ["variant", "baseline", "players", "lineup", "metric", "label",
                  "baseline_value", "variant_value", "diff", "lo", "hi", "p_adjusted",
                  "pairs", "word"]


def _row(variant: str, baseline: str, metric: str, r, alpha: float) -> dict:
    """A table row from an effects row (``r``; None: a metric with no pooled row)."""
    label = METRICS[metric].label if metric in METRICS else metric
    if r is None:
        return dict.fromkeys(_TABLE_COLUMNS, math.nan) | {
            "variant": variant, "baseline": baseline, "players": None, "lineup": None,
            "metric": metric, "label": label, "word": NO_CHANGE}
    num = {k: float(r[k]) if k in r.index and not _empty(r[k]) else math.nan
           for k in ("baseline_value", "variant_value", "diff", "lo", "hi", "p_adjusted")}
    return {"variant": variant, "baseline": baseline,
            "players": None if _empty(r["players"]) else int(r["players"]),
            "lineup": None if _empty(r["lineup"]) else str(r["lineup"]),
            "metric": metric, "label": label, **num, "pairs": int(r["pairs"]),
            "word": word(metric, num["diff"], num["lo"], num["hi"], num["p_adjusted"],
                         alpha)}


# ----------------------------------------------------------------------------- printing

def _digits(metric: str, width: float | None = None) -> int:
    """Decimals of a metric: 1 (2 for hands per match), more for a share whose interval
    is narrower than a point, so that a small difference does not print as 0.0."""
    unit = METRICS[metric].unit if metric in METRICS else ""
    base = 2 if unit == "hands" else 1
    if unit != "share" or width is None or not width > 0 or math.isnan(width):
        return base
    return max(base, min(3, 1 - math.floor(math.log10(100 * width))))


def _fmt_value(metric: str, v: float, digits: int | None = None) -> str:
    if _empty(v):
        return "n/a"
    unit = METRICS[metric].unit if metric in METRICS else ""
    d = _digits(metric) if digits is None else digits
    if metric in METRICS and METRICS[metric].gap:   # a difference of win shares
        return f"{100 * v:+.{d}f} pp"
    return f"{100 * v:.{d}f}%" if unit == "share" else f"{v:.{d}f}"


def _fmt_diff(metric: str, d: float, lo: float, hi: float) -> str:
    if any(_empty(v) for v in (d, lo, hi)):
        return "n/a"
    k = _digits(metric, hi - lo)
    if (METRICS[metric].unit if metric in METRICS else "") == "share":
        return f"{100 * d:+.{k}f} pp [{100 * lo:+.{k}f}, {100 * hi:+.{k}f}]"
    return f"{d:+.{k}f} [{lo:+.{k}f}, {hi:+.{k}f}]"


def _where(row) -> str:
    if _empty(row["players"]):
        return "all" if not _empty(row["diff"]) else "each"
    return f"{int(row['players'])}p {row['lineup']}"


def _fmt_p(p: float) -> str:
    return "" if _empty(p) else p_text(p)


#: Headers of the printed columns.
_HEAD = ["metric", "where", "A", "B", "B - A [95% interval]", "adj. p", ""]


def _cells(r) -> list[str]:
    """The printed cells of a table row (blank values on a metric's summary row)."""
    m = r["metric"]
    head = [r["label"] if _empty(r["players"]) else "  " + r["label"], _where(r)]
    if _empty(r["players"]) and _empty(r["diff"]):
        return head + ["", "", "", "", r["word"]]
    k = _digits(m, r["hi"] - r["lo"])
    return head + [_fmt_value(m, r["baseline_value"], k), _fmt_value(m, r["variant_value"], k),
                   _fmt_diff(m, r["diff"], r["lo"], r["hi"]), _fmt_p(r["p_adjusted"]),
                   r["word"]]


_FOOTNOTE = ("Differences are paired by deal (the same deals under A and B), with 95% "
             "intervals clustered by deal; adj. p is Holm-adjusted over every row of "
             "effects.csv, and a word appears only where it is below 0.05 and the interval "
             "excludes 0. Rows by player count and line-up ('3p expert') appear where the "
             "words differ between them ('each': no pooled value, for a metric that does "
             "not pool or an effect that changes sign or size between the rows).")


def format_table(table: pd.DataFrame, header: str = "") -> str:
    """The compact text table of :func:`comparison_table` (one block per pair)."""
    import textwrap

    lines = [header] if header else []
    for (variant, baseline), t in table.groupby(["variant", "baseline"], sort=False):
        cells = [_HEAD] + [_cells(r) for _, r in t.iterrows()]
        widths = [max(len(c[i]) for c in cells) for i in range(len(_HEAD))]
        lines += ["", f"B: {variant}  vs  A: {baseline}"]
        for c in cells:
            lines.append("  ".join(x.rjust(w) if i in (2, 3, 5) else x.ljust(w)
                                   for i, (x, w) in enumerate(zip(c, widths))).rstrip())
    return "\n".join(lines + [""] + textwrap.wrap(_FOOTNOTE, 92))


def format_sentences(sentences: Sequence[str]) -> str:
    """The findings' sentences as printed under the table (empty when there are none)."""
    import textwrap

    if not sentences:
        return ""
    lines = ["", "", "Findings (the report's sentences: intervals adjusted over every effect "
             "of effects_by_players.csv):"]
    for x in sentences:
        lines += textwrap.wrap(x, 92, initial_indent="- ", subsequent_indent="  ",
                               break_on_hyphens=False)
    return "\n".join(lines)


def sentences_of(by_players: pd.DataFrame, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """The sentences the report writes on ``pairs`` (what each rule changes, and what the
    study could not tell), from ``effects_by_players.csv``'s rows."""
    from fastmach.report.findings import effect_sentences
    from fastmach.report.plots import short_labels

    names = short_labels([r for pair in pairs for r in pair])
    said, unclear = effect_sentences(by_players, pairs, names, ALPHA)
    return [f.text for f in said] + [f"We could not tell {u}." for u in unclear]


# ----------------------------------------------------------------------------- result

@dataclass
class Comparison:
    """The answer of :func:`compare`.

    ``effects``: the rows of ``effects.csv`` for the compared pairs (``variant,
    baseline, players, lineup, metric, diff, lo, hi, rel_diff, p_value, p_adjusted,
    pairs, baseline_value, variant_value``, from :func:`fastmach.analysis.tables.effects`);
    ``scorecard``: one row per cell; ``table``: the printed table as numbers
    (:func:`comparison_table`); ``study``: the Study it ran (its ``games`` the deals
    played); ``out``: the directory kept, if any.
    """

    rules: tuple[str, ...]
    study: Study
    effects: pd.DataFrame
    scorecard: pd.DataFrame
    table: pd.DataFrame
    out: Path | None = None
    notes: list[str] = field(default_factory=list)
    #: The report's sentences on the compared pairs (:mod:`fastmach.report.findings`).
    sentences: list[str] = field(default_factory=list)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return pairs_of(self.study)

    def header(self) -> str:
        s = self.study
        return (f"{len(s.rules)} rule sets on the same {s.games} deals per cell: players "
                f"{', '.join(map(str, s.players))}; line-ups "
                f"{' | '.join(','.join(lu) for lu in s.lineup)}; seats rotated; seed "
                f"{s.seed}")

    def __str__(self) -> str:
        return format_table(self.table, self.header()) + format_sentences(self.sentences)

    def _repr_html_(self) -> str:
        t = self.table
        rows = [_cells(r) for _, r in t.iterrows()]
        shown = pd.DataFrame(rows, columns=_HEAD[:-1] + ["word"]).assign(
            **{"B vs A": [f"{v} vs {b}" for v, b in zip(t["variant"], t["baseline"])]})
        shown = shown[["B vs A"] + _HEAD[:-1] + ["word"]]
        return (f"<div><p>{html.escape(self.header())}</p>"
                + shown.to_html(index=False, border=0, escape=True)
                + f"<p>{html.escape(_FOOTNOTE)}</p>"
                + "".join(f"<p>{html.escape(x)}</p>" for x in self.sentences) + "</div>")


# ----------------------------------------------------------------------------- running

def _analyse(results: Path, study: Study, pairs: list[tuple[str, str]]
             ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(effects, scorecard, effects by player count)`` of a result store, from :mod:`fastmach.analysis.stats`."""
    from fastmach.analysis import tables
    from fastmach.study.results import read_hands, read_results

    from fastmach.analysis.heterogeneity import effects_by_players

    games, hands = read_results(results, study), read_hands(results, study)
    return (tables.effects(games, hands, pairs), tables.scorecard(games, hands),
            effects_by_players(hands, pairs))


def parse_precision(value: float | str | Mapping[str, float] | Sequence[str]
                    ) -> dict[str, float]:
    """``precision`` as the study's ``{figure: half-width}`` (:mod:`fastmach.study.precision`):
    a number is the half-width of every cell's turns per hand; ``"win_share=0.03"`` (or a
    mapping) asks it of every seat's win share per hand as well."""
    from fastmach.study import PRECISION_KEYS

    items: list = []
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        items = [(HEADLINE, value)]
    elif not isinstance(value, (str, Iterable)):
        raise FastmachError(f"precision: expected a half-width, 'figure=half-width' texts or "
                            f"a mapping of them, got {value!r}")
    else:
        for text in ([value] if isinstance(value, str) else list(value)):  # type: ignore[arg-type]
            name, sep, x = str(text).partition("=")
            items.append((name.strip(), x) if sep else (HEADLINE, name))
    out = {}
    for name, x in items:
        if name not in PRECISION_KEYS:
            raise FastmachError(f"precision: unknown figure {name!r}; known: "
                                f"{', '.join(PRECISION_KEYS)}")
        try:
            half = float(x)
        except (TypeError, ValueError):
            raise FastmachError(f"precision={name}: expected a number, got {x!r}") from None
        if not half > 0 or math.isinf(half):
            raise FastmachError(f"precision={name}: expected a half-width > 0, got {half!r}")
        out[name] = half
    if not out:
        raise FastmachError("precision: no value given")
    return out


def compare(rules: Sequence[str], players: Sequence[int] | int | None = None,
            lineups: Sequence[str | Sequence[str]] | None = None, *,
            games: int | None = None, precision: Any = None,
            max_games: int = DEFAULT_MAX_GAMES, seed: int = DEFAULT_SEED,
            chunk: int = DEFAULT_CHUNK, workers: int | None = None,
            out: str | Path | None = None, report: bool = True, progress: bool = False,
            command: str | None = None) -> Comparison:
    """Play every rule set on the same deals and compare each with the first.

    ``rules``: two or more presets or rules strings (A first). ``players`` (default 2-5,
    clipped to every rule set's source range) and ``lineups`` (default ``expert`` and
    ``expert,beginner``) span the cells; seats are rotated. ``games``: deals per cell
    (default 500); or ``precision``: deals are added ``chunk`` at a time (the study's
    precision, :mod:`fastmach.study.precision`) until every cell's turns per hand is known to
    +- that many turns (a number), or also every seat's win share (``{"turns_per_hand":
    1.0, "win_share": 0.03}``), at most ``max_games`` deals per cell.
    ``workers``: 0 plays in this process, default all cores. ``out``: keep the results
    (``out/results``) and the report (``out/report``); the same call resumes there.
    ``report=False`` skips ``out/report``. ``progress``: progress on stderr.
    """
    if games is not None and precision is not None:
        raise FastmachError("compare: give games or precision, not both")
    if games is not None and (not is_integer(games) or games < 1):
        raise FastmachError(f"games: expected an integer >= 1, got {games!r}")
    wanted = parse_precision(precision) if precision is not None else None
    if wanted is None and (not is_integer(max_games) or max_games != DEFAULT_MAX_GAMES):
        raise FastmachError(f"max_games={max_games!r}: caps the deals per cell of a "
                            f"precision run; give precision with it, or games alone")
    if wanted is not None and (not is_integer(chunk) or chunk < 1):
        raise FastmachError(f"chunk: expected an integer >= 1, got {chunk!r}")
    if wanted is not None and (not is_integer(max_games) or max_games < chunk
                               or max_games % chunk):
        raise FastmachError(f"max_games: expected a multiple of {chunk} (the deals added "
                            f"at a time), got {max_games!r}")
    if wanted is None:
        study = plan_study(rules, players, lineups, games=games or DEFAULT_GAMES, seed=seed,
                           chunk=chunk)
    else:
        study = plan_study(rules, players, lineups, games=chunk, seed=seed, chunk=chunk,
                           precision=wanted, max_games=max_games)
    pairs = pairs_of(study)
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if progress else (lambda s: None)
    if command is None:
        command = "python: fastmach.compare(" + repr(list(study.rules)) + ", ...)"
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="fastmach-compare-")
        root = Path(tmp.name)
    else:
        from fastmach.outputs import as_path

        root = as_path(out, "out=", "a directory path")
        if root.exists() and not root.is_dir():
            raise FastmachError(f"out={str(root)!r} is a file, not a directory")
        from fastmach.study.results import refuse_results_dir

        refuse_results_dir(root, "compare")
    results = root / "results"
    notes: list[str] = []
    try:
        from fastmach.study.driver import execute, format_summary

        run: dict[str, Any] = dict(workers=workers, progress=progress, command=command,
                                   kept=tmp is None)
        if wanted is None:
            summary = execute(study, results, **run)
        else:
            from fastmach.study.precision import execute_to_precision

            summary = execute_to_precision(study, results, **run)
            study = study.replace(games=summary["precision_games"])
            missed = summary["precision_missed"]
            if missed:
                notes.append(f"the precision was not reached by max_games = {max_games} "
                             f"deals in {len(missed)} of {len(study.cells)} cells")
        log(format_summary(summary))
        from fastmach.engine.progress import Steps

        reported = out is not None and report
        names = ("the effects",) + (_report_steps() if reported else ())
        with Steps(names, None if progress else False, "compare") as steps:
            steps(names[0])
            effects, scorecard, by_players = _analyse(results, study, pairs)
            table = comparison_table(effects, pairs, by_players=by_players)
            index = _write_report(results, root / "report", pairs, steps) if reported else None
        if index is not None:
            log(f"report written to {index}")
        return Comparison(tuple(study.rules), study, effects, scorecard, table,
                          None if out is None else root, notes,
                          sentences_of(by_players, pairs))
    finally:
        if tmp is not None:
            tmp.cleanup()


def _report_steps() -> tuple[str, ...]:
    from fastmach.report import STEPS

    return STEPS


def _write_report(results: Path, report: Path, pairs, progress) -> Path:
    """The report and ``tables/*.csv`` of the store, on the compared pairs (``progress``
    called with each of its steps); the path of its page."""
    from fastmach.report import build_report

    return build_report(results, report, pairs=pairs, progress=progress)
