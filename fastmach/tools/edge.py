"""A player's edge over a baseline player in the same seat, paired by deal.

Two ``fastmach play --rotate`` runs on the same seed: one with the focal player in a seat
of the line-up (``search(budget=8),strong,strong,strong``), one with the baseline there
(``strong,strong,strong,strong``: rotations of one line-up replay the same deals, so a
baseline run of identical seats may hold rotation 0 only). For every game of the focal
run (a deal and a rotation), the focal seat's win share minus the win share of the same
seat in the baseline's game of that deal and rotation; averaged over the rotations of a
deal, the deal is the unit of the 95% interval (normal, on the deals' sample variance).

A game pairs only with the baseline's game of the same seed, replicate and rotation (and
the same rules, where both runs' rows name them: a study's ``rules``, ``players``, ...
columns); both runs' rows are checked before anything is computed.

``fastmach edge FOCAL.parquet BASE.parquet [--focal NAME]``
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fastmach.errors import FastmachError
from fastmach.rules import PARAMETERS

__all__ = ["Edge", "paired_edge", "read_edge"]

#: the columns that name a run's rules where its rows hold them (a study's rows do)
RULES_COLUMNS = ("rules", "preset", *PARAMETERS)
#: the per-seat columns the edge reads
_SEAT_COLUMNS = ("strategy", "win_share", "score")
#: the per-game columns the edge reads (integers)
_GAME_COLUMNS = ("seed", "replicate", "rotation", "winner", "turns")
_SEAT = re.compile(rf"^({'|'.join(_SEAT_COLUMNS)})_(\d+)$")


@dataclass(frozen=True)
class Edge:
    """The focal seat's mean win share, the baseline's in the same seats, their paired
    difference with its 95% interval (all in win share, 0..1), the deals, and the games
    whose outcome (winner, turns, scores) differs from the baseline's. The interval is
    infinite where the deals cannot give one (one deal, or changed games whose deals all
    differ alike), and ``[0, 0]`` where no game changed."""
    focal: str
    share: float
    base: float
    diff: float
    lo: float
    hi: float
    deals: int
    games: int
    changed: int

    def __str__(self) -> str:
        if self.deals < 2:
            interval = "no interval from one deal"
        elif not math.isfinite(self.hi - self.lo):
            interval = "no interval: the same difference in every deal"
        elif self.changed == 0:
            interval = "no game changed"
        else:
            interval = (f"95% interval [{100 * self.lo:+.1f}, {100 * self.hi:+.1f}] "
                        f"by deal")
        deals = f"{self.deals} deal{'s' if self.deals != 1 else ''}"
        return (f"{self.focal}: win share {100 * self.share:.1f}% against "
                f"{100 * self.base:.1f}% in the same seats, edge {100 * self.diff:+.1f} pp, {interval} ({deals}, "
                f"{self.changed} of {self.games} games changed)")


def _seats_of(df: pd.DataFrame) -> int:
    """The seats the rows' per-seat columns name (the highest seat number, plus one)."""
    seats = [int(m.group(2)) for c in df.columns if (m := _SEAT.match(str(c)))]
    return max(seats) + 1 if seats else 0


def _values(df: pd.DataFrame, col: str, who: str) -> pd.Series:
    """The column ``col`` of ``who``'s rows, numeric and without missing values."""
    s = df[col]
    if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        ex = next((v for v in s if not pd.isna(v)), None)
        raise FastmachError(f"edge: {who}: column {col!r} holds {s.dtype} values, not numbers"
                            f" (e.g. {ex!r})")
    if s.isna().any():
        raise FastmachError(f"edge: {who}: column {col!r} holds {int(s.isna().sum())} "
                            f"missing values (NaN) in {len(s)} rows")
    inf = ~np.isfinite(s.to_numpy(dtype=float))
    if inf.any():
        raise FastmachError(f"edge: {who}: column {col!r} holds {s[inf].iloc[0]!r}, not a "
                            f"finite number")
    return s


def _check_runs(focal: pd.DataFrame, base: pd.DataFrame,
                labels: tuple[str, str]) -> tuple[int, list[str]]:
    """Check both runs' columns and values before anything is computed: each must be one
    play run's game rows (not a per-hand file, no game twice) holding every column the
    edge reads, with integer ids, numeric outcomes and win shares in 0..1; the two must
    seat as many players, on the same seeds and rules. The seats, and the rules columns
    both runs hold (paired as the seed is)."""
    common = [c for c in RULES_COLUMNS if c in focal.columns and c in base.columns]
    seats = []
    for df, who in zip((focal, base), labels):
        if not isinstance(df, pd.DataFrame):
            raise FastmachError(f"edge: {who} is a {type(df).__name__}, not a DataFrame")
        if "hand" in df.columns:
            raise FastmachError(f"edge: {who} is a per-hand file (it has a 'hand' column): "
                                f"give the games file of `fastmach play`, not its hands file")
        P = _seats_of(df)
        if P < 2:
            raise FastmachError(f"edge: {who} has no per-seat columns strategy_0, "
                                f"strategy_1, ... (not the rows of `fastmach play`?)")
        need = list(_GAME_COLUMNS) + [f"{k}_{s}" for s in range(P) for k in _SEAT_COLUMNS]
        missing = [c for c in need if c not in df.columns]
        if missing:
            raise FastmachError(f"edge: {who} has no column {', '.join(map(repr, missing))}"
                                f" (the game rows of `fastmach play` hold it)")
        if len(df) == 0:
            raise FastmachError(f"edge: {who} holds no games")
        for s in range(P):
            _values(df, f"score_{s}", who)
        for c in _GAME_COLUMNS:
            v = _values(df, c, who)
            bad = v != np.floor(v)
            if c in ("replicate", "rotation"):
                bad |= v < 0
            if bad.any():
                kind = "a count" if c in ("replicate", "rotation") else "a whole number"
                raise FastmachError(f"edge: {who}: column {c!r} holds {v[bad].iloc[0]!r}, "
                                    f"not {kind}")
        for s in range(P):
            w = _values(df, f"win_share_{s}", who)
            bad = ~w.between(0.0, 1.0)
            if bad.any():
                raise FastmachError(f"edge: {who}: column 'win_share_{s}' holds "
                                    f"{w[bad].iloc[0]!r}, not a win share in 0..1")
            if df[f"strategy_{s}"].isna().any():
                raise FastmachError(f"edge: {who}: column 'strategy_{s}' holds missing "
                                    f"values")
        for c in common:
            if df[c].isna().any():
                raise FastmachError(f"edge: {who}: column {c!r} holds missing values")
        dup = df.duplicated(["seed", "replicate", "rotation", *common])
        if dup.any():
            r = df[dup].iloc[0]
            raise FastmachError(f"edge: {who} holds the game of seed {r['seed']}, replicate "
                                f"{r['replicate']}, rotation {r['rotation']} twice (one run's "
                                f"games file is needed, not runs joined together)")
        seats.append(P)
    if seats[0] != seats[1]:
        raise FastmachError(f"edge: the runs seat {seats[0]} and {seats[1]} players "
                            f"({labels[0]}, {labels[1]})")
    for c in ("seed", *common):
        extra = sorted(set(focal[c].tolist()) - set(base[c].tolist()), key=str)
        if extra:
            had = sorted(set(base[c].tolist()), key=str)
            raise FastmachError(
                f"edge: the runs are not the same deals: {c} {_listed(extra)} in "
                f"{labels[0]}, {_listed(had)} in {labels[1]} (pair two runs of one "
                f"seed and rules)")
    return seats[0], common


def _listed(values: list, most: int = 5) -> str:
    """``values`` as text, the first ``most`` of them."""
    text = ", ".join(map(str, values[:most]))
    return text + (f", ... ({len(values)} in all)" if len(values) > most else "")


def _focal_seat(strat: np.ndarray, name: str | None, first: str,
                who: str) -> tuple[str, np.ndarray]:
    """The focal strategy's text and its seat in each game: ``name`` one of the run's
    strategies exactly, else a prefix of exactly one (default: ``first``, exactly)."""
    present = list(dict.fromkeys(strat.ravel().tolist()))
    listed = ", ".join(map(repr, present))
    if name is None:
        text = first
    elif not isinstance(name, str) or not name:
        what = "empty" if name == "" else repr(name)
        raise FastmachError(f"edge: the focal strategy's name is {what}: give a prefix of "
                            f"one of {who}'s strategies: {listed}")
    else:
        hits = [p for p in present if p == name] or [p for p in present if p.startswith(name)]
        if not hits:
            raise FastmachError(f"edge: {name!r} does not sit at {who}'s table (its "
                                f"strategies: {listed})")
        if len(hits) > 1:
            raise FastmachError(f"edge: {name!r} starts {len(hits)} of {who}'s strategies "
                                f"({listed}): give a prefix of exactly one")
        text = hits[0]
    hit = strat == text
    if not hit.any(axis=1).all():
        raise FastmachError(f"edge: {text!r} does not sit in every game of {who} (its "
                            f"strategies: {listed})")
    return text, hit.argmax(axis=1)


def paired_edge(focal: pd.DataFrame, base: pd.DataFrame, name: str | None = None, *,
                labels: tuple[str, str] = ("the focal run", "the baseline run")) -> Edge:
    """The edge of the seat playing ``name`` (one of the focal run's strategies as written,
    or a prefix of exactly one; default: the first seat's strategy of the focal run's rotation 0) in
    ``focal`` over the same seat in ``base`` on the same deal and rotation (see the
    module's docstring). ``labels`` name the two runs in errors."""
    P, common = _check_runs(focal, base, labels)
    cols = [f"strategy_{s}" for s in range(P)]
    strat = focal[cols].astype(str).to_numpy()
    first = str(focal.sort_values(["rotation", "replicate"])["strategy_0"].iloc[0])
    text, seat = _focal_seat(strat, name, first, labels[0])
    bstrat = base[cols].astype(str).to_numpy()
    # a baseline of identical seats in rotation 0 only stands for every rotation
    same = base["rotation"].nunique() == 1 and bool((bstrat == bstrat[:, :1]).all())
    brot = int(base["rotation"].iloc[0]) if same else None
    ids = ["seed", "replicate", *common]
    where = {k: i for i, k in enumerate(zip(*(base[c].tolist() for c in ids),
                                            base["rotation"].tolist()))}
    rows = []
    for k in zip(*(focal[c].tolist() for c in ids), focal["rotation"].tolist()):
        i = where.get(k[:-1] + (k[-1] if brot is None else brot,))
        if i is None:
            deal = ", ".join(f"{c} {v}" for c, v in zip(ids, k))
            raise FastmachError(f"edge: {labels[1]} has no game of deal ({deal}) at rotation "
                                f"{k[-1]} (are both runs rotated, on one seed and rules?)")
        rows.append(i)
    b = base.iloc[rows]
    idx = np.arange(len(focal))
    shares = [f"win_share_{s}" for s in range(P)]
    wf = focal[shares].to_numpy(dtype=float)[idx, seat]
    wb = b[shares].to_numpy(dtype=float)[idx, seat]
    out = ["winner", "turns"] + [f"score_{s}" for s in range(P)]
    changed = int((focal[out].to_numpy(dtype=float) != b[out].to_numpy(dtype=float))
                  .any(axis=1).sum())
    per = focal[ids].reset_index(drop=True).assign(f=wf, b=wb)
    g = per.groupby(ids, sort=False)[["f", "b"]].mean()
    d = (g["f"] - g["b"]).to_numpy()
    n = len(d)
    if changed == 0:
        half = 0.0                         # the same games: the same shares, deal by deal
    elif n < 2 or float(np.ptp(d)) < 1e-12:
        half = math.inf                    # no spread to measure the deals' variance by
    else:
        half = 1.96 * float(d.std(ddof=1)) / math.sqrt(n)
    return Edge(text, float(g["f"].mean()), float(g["b"].mean()), float(d.mean()),
                float(d.mean()) - half, float(d.mean()) + half, n, len(focal), changed)


def read_edge(focal: str, base: str, name: str | None = None) -> Edge:
    """paired_edge of two play runs' parquet files; FastmachError naming an unreadable one
    (or the file whose rows are refused)."""
    frames = []
    for path in (focal, base):
        if not Path(path).is_file():
            raise FastmachError(f"edge: no such file: {path}")
        try:
            frames.append(pd.read_parquet(path))
        except (OSError, ValueError) as e:
            raise FastmachError(f"edge: cannot read {path}: {e}") from None
    return paired_edge(frames[0], frames[1], name, labels=(focal, base))
