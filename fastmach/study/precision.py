"""Sample size on purpose: grow a study chunk by chunk until its intervals are narrow enough.

A study with ``precision = { turns_per_hand = H1, win_share = H2 }`` and ``max_games = N``
is played ``games`` deals per cell first, then ``chunk`` more at a time (the same seeds as a
fixed-size run, so the result directory is identical to one of that many deals) until every
cell's 95% deal-clustered half-width of turns per hand, and of every seat's win share per
hand, is at most the one asked for, or ``N`` deals are played. The cells that did not get
there are named.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastmach.analysis.hands import deal_key, hand_metrics, seat_shares
from fastmach.analysis.inference import ratio_estimate, t_quantile
from fastmach.errors import FastmachError
from fastmach.study import Study
from fastmach.study.driver import open_backend
from fastmach.study.store import ReadCache, load_json
from fastmach.study.plan import MANIFEST
from fastmach.study.driver import execute
from fastmach.study.results import read_hands

__all__ = ["half_widths", "shortfall", "execute_to_precision"]


def half_widths(hands: pd.DataFrame) -> pd.DataFrame:
    """Per cell: ``deals``, ``turns_per_hand`` and ``win_share`` 95% half-widths.

    The scorecard's deal-clustered t interval of turns per hand, and the widest of the
    cell's seats' unadjusted 95% t intervals of the win share (the seat table's ``se``).
    """
    rows = {}
    for cell, g in hands.groupby("cell", sort=True):
        deal = deal_key(g).to_numpy()
        turns = ratio_estimate(hand_metrics(g)["turns"].to_numpy(), np.ones(len(g)), deal)
        players = int(g["players"].iloc[0])
        rel = seat_shares(g, players)  # the seat table's se: of each share minus the fair one
        fair = rel.sum(axis=1) / players
        se = max(ratio_estimate(rel[:, s] - fair, np.ones(len(g)), deal).se
                 for s in range(players))
        q = t_quantile(0.975, turns.deals - 1) if turns.deals > 1 else math.nan
        lo, hi = turns.interval(0.95)
        rows[cell] = {"deals": turns.deals, "turns_per_hand": (hi - lo) / 2,
                      "win_share": q * se}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "cell"
    return out


def shortfall(widths: pd.DataFrame, study: Study) -> pd.DataFrame:
    """The cells (rows of :func:`half_widths`) whose half-width exceeds the study's wish."""
    bad = pd.Series(False, index=widths.index)
    for key, target in study.precision:
        bad |= ~(widths[key] <= target)  # NaN (too few deals) counts as not there yet
    return widths[bad]


def _resumed_games(study: Study, out: str | Path) -> int:
    """Deals per cell that an earlier run of this growing study reached in ``out`` (a
    rerun starts there, so that it resumes instead of being refused); else ``games``."""
    try:
        old = Study.from_toml(load_json((Path(out) / MANIFEST).read_text())["study"])
    except (OSError, ValueError, KeyError, TypeError, FastmachError):
        return study.games  # (the store, opened next, names what is wrong with it)
    same = old.replace(games=study.games).to_toml() == study.to_toml()
    top = study.max_games if study.max_games is not None else study.games
    return old.games if same and study.games < old.games <= top else study.games


def execute_to_precision(study: Study, out: str | Path, **kwargs: Any) -> dict:
    """Run ``study`` into ``out``, growing it by ``chunk`` deals until precise enough.

    ``kwargs`` go to :func:`fastmach.study.driver.execute`. Every round runs on one worker
    pool, started once (``workers``, ``scheduler``). Returns the run summary (every
    round's games and time) with ``rounds``, ``precision_games`` (deals per cell reached)
    and ``precision_missed`` (cell -> half-widths for the cells that did not reach the
    precision by ``max_games``); prints them.
    """
    if study.max_games is None:
        raise FastmachError(f"study {study.name!r}: a precision run needs max_games")
    top: int = study.max_games
    games = _resumed_games(study, out)
    played, wall, rounds = 0, 0.0, []
    pool = {k: kwargs.pop(k) for k in ("workers", "scheduler") if k in kwargs}
    backend = open_backend(**pool, engine=kwargs.get("engine"))
    cache = ReadCache()  # each round reads and verifies only the chunks it added
    if backend is None:
        kwargs.update(workers=0)
    try:
        while True:
            current = study.replace(games=games)
            summary = execute(current, out, backend=backend, **kwargs)
            rounds.append(summary)
            played += summary.get("played", 0)
            wall += summary.get("wall", 0.0)
            widths = half_widths(read_hands(out, current, cache=cache))
            missing = shortfall(widths, current)
            if missing.empty or games >= top:
                break
            games = min(games + study.chunk, top)
    except BaseException:
        if backend is not None:
            backend.close(cancel=True)
            backend = None
        raise
    finally:
        if backend is not None:
            backend.close()
    want = ", ".join(f"{k} +-{v:g}" for k, v in study.precision)
    if missing.empty:
        print(f"precision reached ({want}) with {games} deals per cell", file=sys.stderr)
    else:
        print(f"precision ({want}) not reached by max_games = {study.max_games} in "
              f"{len(missing)} of {len(widths)} cells:", file=sys.stderr)
        for cell, r in missing.iterrows():
            got = ", ".join(f"{k} +-{r[k]:.4g}" for k, _ in study.precision)
            print(f"  {cell}: {got}", file=sys.stderr)
    # the run's figures, not the last round's: every round's play and time, and the chunks
    # that were on disk before the first round
    summary["played"] = played
    summary["wall"] = wall
    summary["games_per_s"] = played / wall if wall > 0 else float("nan")
    summary["resumed_chunks"] = rounds[0]["resumed_chunks"]
    summary["rounds"] = len(rounds)
    summary["precision_games"] = games
    summary["precision_missed"] = {c: {k: float(r[k]) for k, _ in study.precision}
                                   for c, r in missing.iterrows()}
    return summary
