"""How strong is each player? A round-robin on common deals: ``fastmach rate``.

``rate(["beginner", "expert", "patient"], rules="classic", players=4, games=100)`` plans
one :class:`~fastmach.study.Study` per player count ``n`` and runs it with the sweep's
plumbing (:func:`fastmach.study.driver.execute`: worker processes or Dask, resumable stores),
then fits the ratings of :mod:`fastmach.analysis.ratings` to the hand rows.

The design, for each table size ``n``:

- line-ups: every multiset of ``n`` strategies drawn from the list (combinations with
  repetition) except the ``m`` that seat one strategy only (they say nothing about
  strength): ``C(m + n - 1, n) - m`` line-ups, each seated in the order of the list
  (``expert,expert,patient,beginner`` is written ``beginner,expert,expert,patient`` when
  beginner comes first). When that exceeds ``max_lineups`` (default 128), a balanced
  design of ``max_lineups`` line-ups instead: first every "one ``s`` and ``n - 1``
  experts" line-up (when expert is rated), then line-ups chosen greedily, each the best
  of 64 random multisets (seeded by the root seed) by the fewest seats already given to
  its strategies and the fewest times its pairs of strategies already met, so that every
  strategy sits about equally often and every pair meets about equally often.
- rotations: every line-up is played in its ``n`` cyclic seat rotations (the study's
  ``rotate = true``): each strategy of a line-up sits in every seat once per deal. The
  order around the table is the line-up's; other permutations are not played.
- deals: replicate ``r`` is the same deal (the same deck order, dealer and in-game seed,
  hand after hand of the match) in every line-up, rotation and rules set with the same
  deck (common random numbers, :mod:`fastmach.engine`), so the deal is the cluster of
  every interval. ``games`` counts deals: a player count plays ``games x line-ups x n``
  games.

With ``out=DIR``: ``DIR/results/<n>p`` holds each player count's study store (running
the same command again resumes there), and ``DIR/ratings.csv`` / ``ratings.parquet``,
``DIR/head_to_head.csv`` and the ladder figure ``DIR/ratings.svg`` / ``ratings.png`` are
written (atomically) once the games are played. Same seed, same tables, whatever the
worker count.
"""
from __future__ import annotations

import itertools
import math
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from fastmach.analysis.ratings import ANCHOR, RANKS, check_resamples, ladder
from fastmach.errors import FastmachError
from fastmach.game.deal import resolve_seed
from fastmach.outputs import as_path, atomic_path, probe_dir
from fastmach.rules import Rules, is_integer
from fastmach.strategies import parse_strategy, split_strategies
from fastmach.study import Study
from fastmach.tools.defaults import RATE_BOOTSTRAP, RATE_GAMES, RATE_MAX_LINEUPS, RATE_SEED

__all__ = ["rate", "Rating", "RatePlan", "plan_rate", "lineups_for", "format_ladder",
           "ladder_figure", "DEFAULT_GAMES", "DEFAULT_SEED", "DEFAULT_MAX_LINEUPS",
           "DEFAULT_BOOTSTRAP"]

DEFAULT_GAMES = RATE_GAMES
DEFAULT_SEED = RATE_SEED
DEFAULT_CHUNK = 50
DEFAULT_MAX_LINEUPS = RATE_MAX_LINEUPS
DEFAULT_BOOTSTRAP = RATE_BOOTSTRAP
#: Random multisets each greedy step of the balanced design chooses among.
CANDIDATES = 64


# ----------------------------------------------------------------------------- the design

def lineups_for(m: int, n: int, max_lineups: int = DEFAULT_MAX_LINEUPS,
                anchor: int | None = None, seed: int = DEFAULT_SEED
                ) -> tuple[list[tuple[int, ...]], bool]:
    """Line-ups (sorted tuples of strategy indices) of ``n`` seats from ``m`` strategies,
    and whether the balanced design replaced the full one (see the module docstring)."""
    full = math.comb(m + n - 1, n) - m
    if full <= max_lineups:
        return [c for c in itertools.combinations_with_replacement(range(m), n)
                if len(set(c)) > 1], False
    chosen: list[tuple[int, ...]] = []
    seats = np.zeros(m)
    pairs = np.zeros((m, m))

    def take(c: tuple[int, ...]) -> None:
        chosen.append(c)
        counts = np.bincount(c, minlength=m)
        seats[:] += counts
        pairs[:] += np.outer(counts, counts) - np.diag(counts)

    if anchor is not None:
        for s in range(m):
            if s != anchor and len(chosen) < max_lineups:
                take(tuple(sorted((s,) + (anchor,) * (n - 1))))
    rng = np.random.default_rng([seed, m, n])
    taken = set(chosen)
    while len(chosen) < max_lineups:
        best: tuple[int, ...] | None = None
        best_score = math.inf
        for _ in range(CANDIDATES):
            c = tuple(sorted(int(x) for x in rng.integers(m, size=n)))
            if len(set(c)) == 1 or c in taken:
                continue
            counts = np.bincount(c, minlength=m)
            score = float(seats @ counts + counts @ pairs @ counts
                          + pairs.diagonal() @ (counts * (counts - 1)))
            if score < best_score:
                best, best_score = c, score
        if best is None:  # nearly every line-up is chosen: the first one left
            best = next(c for c in itertools.combinations_with_replacement(range(m), n)
                        if len(set(c)) > 1 and c not in taken)
        take(best)
        taken.add(best)
    return chosen, True


@dataclass(frozen=True)
class RatePlan:
    """What a rate run plays: the strategies (canonical strings), rules, player counts,
    and one study per player count (``balanced[n]``: the balanced design was used)."""

    strategies: tuple[str, ...]
    rules: tuple[str, ...]
    players: tuple[int, ...]
    studies: tuple[Study, ...]
    balanced: dict[int, bool] = field(default_factory=dict)

    @property
    def total_games(self) -> int:
        return sum(s.total_games for s in self.studies)


def _strategies_of(strategies: Sequence[str] | str) -> tuple[str, ...]:
    if isinstance(strategies, str):
        strategies = split_strategies(strategies)
    if not isinstance(strategies, Sequence):
        raise FastmachError(f"strategies: expected a list of strategies, got "
                            f"{strategies!r}")
    out: list[str] = []
    for s in strategies:
        if not isinstance(s, str):
            raise FastmachError(f"strategies: expected strategy strings (a Python bot by "
                                f"its import path package.module:Class), got {s!r}")
        canon = str(parse_strategy(s))
        if canon in out:
            raise FastmachError(f"strategies: {s!r} is listed twice (as {canon!r})")
        out.append(canon)
    if len(out) < 2:
        raise FastmachError(f"strategies: a rating needs two or more strategies, got "
                            f"{out}")
    return tuple(out)


def _rules_of(rules: Sequence[str] | str) -> list[Rules]:
    if isinstance(rules, str):
        rules = [rules]
    if not isinstance(rules, Sequence):
        raise FastmachError(f"rules: expected a preset or rules string, or a list of them, "
                            f"got {rules!r}")
    if not rules:
        raise FastmachError("rules: no rules given")
    parsed = []
    for r in rules:
        if not isinstance(r, str):
            raise FastmachError(f"rules: expected a preset or rules string, got {r!r}")
        parsed.append(Rules.parse(r))
    canon = [str(p) for p in parsed]
    for r in canon:
        if canon.count(r) > 1:
            raise FastmachError(f"rules: {r!r} is listed twice")
    return parsed


def _players_of(players: Sequence[int] | int, parsed: list[Rules]) -> tuple[int, ...]:
    if is_integer(players):
        players = [players]
    if isinstance(players, (bool, str)) or not isinstance(players, Sequence):
        raise FastmachError(f"players: expected integers 2..8, got {players!r}")
    if not players:
        raise FastmachError("players: no player count given")
    out = []
    for p in players:
        if not is_integer(p) or not 2 <= p <= 8:
            raise FastmachError(f"players: expected integers 2..8, got {p!r}")
        p = int(p)
        for r in parsed:
            try:
                r.replace(players=p)
            except FastmachError as e:
                raise FastmachError(f"players={p}: impossible under {r}: {e}") from None
        if p in out:
            raise FastmachError(f"players: {p} is listed twice")
        out.append(p)
    return tuple(out)


def _positive(value: Any, option: str, least: int = 1) -> int:
    if not is_integer(value) or value < least:
        raise FastmachError(f"{option}: expected an integer >= {least}, got {value!r}")
    return int(value)


def plan_rate(strategies: Sequence[str] | str, rules: Sequence[str] | str = "classic",
              players: Sequence[int] | int = 4, *, games: int = DEFAULT_GAMES,
              seed: int = DEFAULT_SEED, chunk: int = DEFAULT_CHUNK,
              max_lineups: int = DEFAULT_MAX_LINEUPS) -> RatePlan:
    """Validate the request and plan its studies; no game is played. Every error is a
    FastmachError naming the bad input (strategy, rules, player count, size)."""
    names = _strategies_of(strategies)
    parsed = _rules_of(rules)
    counts = _players_of(players, parsed)
    games = _positive(games, "games")
    max_lineups = _positive(max_lineups, "max_lineups", len(names))
    if not is_integer(seed) or not 0 <= seed < 2**63:
        raise FastmachError(f"seed: expected an integer 0..2**63-1, got {seed!r}")
    seed = int(seed)
    anchor = names.index(ANCHOR) if ANCHOR in names else None
    studies, balanced = [], {}
    for n in counts:
        combos, balanced[n] = lineups_for(len(names), n, max_lineups, anchor, seed)
        studies.append(Study(
            name=f"rate-{n}p", seed=seed, games=games, chunk=min(_positive(chunk, "chunk"),
                                                                 games),
            rules=tuple(str(r) for r in parsed), players=(n,),
            lineup=tuple(tuple(names[i] for i in c) for c in combos), rotate=True))
    return RatePlan(names, tuple(str(r) for r in parsed), counts, tuple(studies), balanced)


# ----------------------------------------------------------------------------- the result

@dataclass
class Rating:
    """The answer of :func:`rate`.

    ``ratings``: one row per rules x players x strategy, best first (the columns of
    :data:`fastmach.analysis.ratings.RATING_COLUMNS`: ``rating`` with its 95% interval
    ``rating_lo, rating_hi`` in natural-log strength, expert = 0; ``elo``; the win
    share against ``n - 1`` experts, predicted and measured); ``head_to_head``: one row per
    ordered pair; ``plan``: what was played; ``out``: the directory kept, if any.
    """

    plan: RatePlan
    ratings: pd.DataFrame
    head_to_head: pd.DataFrame
    out: Path | None = None
    summaries: list[dict] = field(default_factory=list)

    def __str__(self) -> str:
        return format_ladder(self.ratings, self.head_to_head, self.plan)


def _pct(v: float) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.1f}"


def _share(v: float, lo: float, hi: float) -> str:
    if math.isnan(v):
        return "n/a"
    if math.isnan(lo):
        return f"{_pct(v)}%"
    return f"{_pct(v)}% [{_pct(lo)}, {_pct(hi)}]"


def format_ladder(ratings: pd.DataFrame, head_to_head: pd.DataFrame,
                  plan: RatePlan | None = None) -> str:
    """The printed ladders (one per rules x players) and head-to-head matrices."""
    lines: list[str] = []
    for (rules, players), t in ratings.groupby(["rules", "players"], sort=False):
        n = int(players)
        first = t.iloc[0]
        study = next((s for s in plan.studies if s.players == (n,)), None) if plan else None
        head = f"{rules}, {n} players"
        if plan is not None and study is not None:
            lus = len(study.lineup)
            design = " (balanced design)" if plan.balanced.get(n) else ""
            games = study.games * lus * n
            head += (f": {study.games} deals x {lus} line-up{'s' if lus != 1 else ''}"
                     f"{design} x {n} rotations = "
                     f"{games:,} games, seed {study.seed}")
        what = ("hand winners (ties shared)" if first["rank_by"] == "winner"
                else "every hand's order (winners, then hand points; ties shared)")
        unit = (f"rating: natural-log Plackett-Luce strength from {what}, "
                f"{first['anchor']} = 0 (+1 = e times as strong; Elo = 1500 + 173.7 x "
                f"rating)")
        if int(first["resamples"]):
            unit += (f"; 95% intervals from {int(first['resamples'])} bootstrap resamples "
                     f"of the {int(first['deals'])} "
                     f"{'deals' if first['cluster'] == 'deal' else 'hands'}")
        experts = f"{n - 1} expert{'s' if n > 2 else ''}"
        vs = f"vs {experts}"
        unit_vs = (f"{vs}: the win share per hand of one seat of the strategy at a table "
                   f"with {experts} (fair {100 / n:.1f}%), predicted by the ratings "
                   f"and measured in that line-up")
        lines += [head] + ["  " + x for x in textwrap.wrap(unit, 90)]
        lines += ["  " + x for x in textwrap.wrap(unit_vs, 90)] + [""]
        cells = [["#", "strategy", "rating [95% interval]", "Elo", f"{vs}: predicted",
                  "measured", "seat-hands"]]
        for _, r in t.iterrows():
            if r["strategy"] == r["anchor"]:
                rating = "0 (anchor)"
            elif r["rating"] == -math.inf:
                rating = "-inf (never won)"
            elif math.isnan(r["rating_lo"]):
                rating = f"{r['rating']:+.2f}"
            else:
                rating = f"{r['rating']:+.2f} [{r['rating_lo']:+.2f}, {r['rating_hi']:+.2f}]"
            measured = ("" if r["strategy"] == ANCHOR else
                        _share(r["vs_experts_measured"], r["vs_experts_measured_lo"],
                               r["vs_experts_measured_hi"]))
            predicted = (_share(r["vs_experts_predicted"], math.nan, math.nan)
                         if r["strategy"] == ANCHOR else
                         _share(r["vs_experts_predicted"], r["vs_experts_predicted_lo"],
                                r["vs_experts_predicted_hi"]))
            cells.append([str(int(r["rank"])), str(r["strategy"]), rating,
                          f"{r['elo']:.0f}", predicted, measured,
                          f"{int(r['seat_hands']):,}"])
        lines += _columns(cells, right={0, 3, 6})
        h = head_to_head[(head_to_head["rules"] == rules) & (head_to_head["players"] == n)]
        if len(h):
            order = list(t["strategy"])
            lines += ["", ("  head to head: share of the wins of the two that went to the "
                           "row strategy, in hands seating both (per seat; %)")]
            grid = [[""] + order]
            for a in order:
                row = [a]
                for b in order:
                    x = h[(h["strategy"] == a) & (h["opponent"] == b)]
                    row.append("-" if a == b or x.empty else _pct(float(x["win_share"].iloc[0])))
                grid.append(row)
            lines += _columns(grid, right=set(range(1, len(order) + 1)))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _columns(cells: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(c[i]) for c in cells) for i in range(len(cells[0]))]
    return ["  " + "  ".join(x.rjust(w) if i in right else x.ljust(w)
                             for i, (x, w) in enumerate(zip(c, widths))).rstrip()
            for c in cells]


# ----------------------------------------------------------------------------- the figure

def ladder_figure(ratings: pd.DataFrame):
    """A matplotlib figure: one panel per rules x players, each strategy's rating with
    its 95% interval, best at the top, the anchor's 0 marked (a strategy that never won
    has no dot; an interval open below has no lower whisker)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(ratings.groupby(["rules", "players"], sort=False))
    rows = max(len(g) for _, g in groups)
    fig, axes = plt.subplots(1, len(groups), figsize=(5.2 * len(groups), 0.45 * rows + 1.6),
                             squeeze=False, sharex=True)
    for ax, ((rules, players), g) in zip(axes[0], groups):
        g = g.iloc[::-1]
        g = g.assign(rating_lo=g["rating_lo"].where(np.isfinite(g["rating_lo"])))
        g = g.assign(rating=g["rating"].where(np.isfinite(g["rating"])))  # never won: no dot
        y = np.arange(len(g))
        lo = (g["rating"] - g["rating_lo"]).fillna(0).clip(lower=0)
        hi = (g["rating_hi"] - g["rating"]).fillna(0).clip(lower=0)
        ax.errorbar(g["rating"], y, xerr=[lo, hi], fmt="o", color="#1f4e79", capsize=3)
        ax.axvline(0.0, color="#999999", lw=0.8, ls="--")
        ax.set_yticks(y, list(g["strategy"]))
        ax.set_title(f"{rules}, {int(players)} players", fontsize=10)
        ax.set_xlabel(f"rating (natural-log strength, {g['anchor'].iloc[0]} = 0)")
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def write_outputs(rating: Rating, out: Path) -> dict[str, Path]:
    """``ratings.csv``/``.parquet``, ``head_to_head.csv``, ``ratings.svg``/``.png``."""
    paths = {name: out / name for name in ("ratings.csv", "ratings.parquet",
                                           "head_to_head.csv", "ratings.svg", "ratings.png")}
    with atomic_path(paths["ratings.csv"]) as tmp:
        rating.ratings.to_csv(tmp, index=False)
    with atomic_path(paths["ratings.parquet"]) as tmp:
        rating.ratings.to_parquet(tmp, index=False)
    with atomic_path(paths["head_to_head.csv"]) as tmp:
        rating.head_to_head.to_csv(tmp, index=False)
    fig = ladder_figure(rating.ratings)
    try:
        for ext in ("svg", "png"):
            with atomic_path(paths[f"ratings.{ext}"]) as tmp:
                fig.savefig(tmp, format=ext, dpi=120)
    finally:
        import matplotlib.pyplot as plt
        plt.close(fig)
    return paths


# ----------------------------------------------------------------------------- running

def rate(strategies: Sequence[str] | str, rules: Sequence[str] | str = "classic",
         players: Sequence[int] | int = 4, *, games: int = DEFAULT_GAMES,
         seed: int | str = DEFAULT_SEED, workers: int | None = None,
         scheduler: str | None = None, out: str | Path | None = None, bootstrap: int = DEFAULT_BOOTSTRAP,
         rank: str = "winner", max_lineups: int = DEFAULT_MAX_LINEUPS,
         chunk: int = DEFAULT_CHUNK, progress: bool = False,
         command: str | None = None) -> Rating:
    """Rate strategies by a round-robin on common deals (see the module docstring).

    ``strategies``: two or more strategy strings (``expert(error=0.1)``, a Python bot by
    its import path ``package.module:Class``) or one comma-separated string; ``rules``:
    a preset or rules string, or several; ``players``: a table size or several;
    ``games``: deals per line-up. ``workers`` (0: this process; default all cores) and
    ``scheduler`` (``"local"`` or a Dask address) as :func:`fastmach.run_study`.
    ``bootstrap``: deal resamples of the intervals (0: none); ``rank``: ``"winner"``
    (who wins the hand) or ``"points"`` (everyone, by hand points). ``out``: keep the
    study stores and write the tables and the figure there (the same call resumes).
    ``seed="secret"``: a root seed drawn from the operating system, recorded only in the
    results (a competition's setting; such a run cannot be resumed).
    """
    seed = resolve_seed(seed)
    plan = plan_rate(strategies, rules, players, games=games, seed=seed, chunk=chunk,
                     max_lineups=max_lineups)
    if rank not in RANKS:
        raise FastmachError(f"rank={rank!r}: expected one of {', '.join(RANKS)}")
    check_resamples(bootstrap)   # (before any game: the intervals come last)
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if progress else (lambda s: None)
    if command is None:
        command = f"python: fastmach.rate({list(plan.strategies)!r}, ...)"
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="fastmach-rate-")
        root = Path(tmp.name)
    else:
        from fastmach.study.results import refuse_results_dir

        root = as_path(out, "out=", "a directory path")
        refuse_results_dir(root, "rate")
        root = probe_dir(root, "out=")
    try:
        from fastmach.study.driver import execute, format_summary
        from fastmach.study.results import read_hands

        summaries, frames = [], []
        for study in plan.studies:
            where = root / "results" / f"{study.players[0]}p"
            summary = execute(study, where, workers=workers, scheduler=scheduler,
                              progress=progress, command=command, kept=tmp is None)
            log(format_summary(summary))
            summaries.append(summary)
            frames.append(read_hands(where, study))
        from fastmach.engine.progress import Steps

        names = ("the ratings",) + (() if out is None else ("the tables and the figure",))
        with Steps(names, None if progress else False, "rate") as steps:
            steps(names[0])
            hands = pd.concat(frames, ignore_index=True)
            ratings, h2h = ladder(hands, plan.strategies, rank=rank, resamples=bootstrap,
                                  seed=seed)
            result = Rating(plan, ratings, h2h, None if out is None else root, summaries)
            if out is not None:
                steps(names[1])
                write_outputs(result, root)
        return result
    finally:
        if tmp is not None:
            tmp.cleanup()
