"""A player's edge over a baseline player in the same seat, paired by deal.

Two ``fastmach play --rotate`` runs on the same seed: one with the focal player in a seat
of the line-up (``search(budget=8),strong,strong,strong``), one with the baseline there
(``strong,strong,strong,strong``: rotations of one line-up replay the same deals, so a
baseline run of identical seats may hold rotation 0 only). For every game of the focal
run (a deal and a rotation), the focal seat's win share minus the win share of the same
seat in the baseline's game of that deal and rotation; averaged over the rotations of a
deal, the deal is the unit of the 95% interval (normal, on the deals' sample variance).

``fastmach edge FOCAL.parquet BASE.parquet [--focal NAME]``
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fastmach.errors import FastmachError

__all__ = ["Edge", "paired_edge", "read_edge"]


@dataclass(frozen=True)
class Edge:
    """The focal seat's mean win share, the baseline's in the same seats, their paired
    difference with its 95% interval (all in win share, 0..1), the deals, and the games
    whose outcome (winner, turns, scores) differs from the baseline's."""
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
        return (f"{self.focal}: {100 * self.share:.1f}% against {100 * self.base:.1f}% in "
                f"the same seats, edge {100 * self.diff:+.1f} [{100 * self.lo:+.1f}, "
                f"{100 * self.hi:+.1f}] pp ({self.deals} deals, {self.changed} of "
                f"{self.games} games changed)")


def _seats(df: pd.DataFrame) -> int:
    return sum(1 for c in df.columns if c.startswith("strategy_"))


def paired_edge(focal: pd.DataFrame, base: pd.DataFrame, name: str | None = None) -> Edge:
    """The edge of the seat playing ``name`` (a strategy text or its prefix; default: the
    first seat's strategy of the focal run's rotation 0) in ``focal`` over the same seat
    in ``base`` on the same deal and rotation (see the module's docstring)."""
    P = _seats(focal)
    if P != _seats(base) or P == 0:
        raise FastmachError(f"edge: the runs seat {P} and {_seats(base)} players")
    if name is None:
        name = str(focal.sort_values(["rotation", "replicate"])["strategy_0"].iloc[0])
    strat = focal[[f"strategy_{s}" for s in range(P)]].astype(str).to_numpy()
    hit = np.char.startswith(strat.astype("U"), name)
    if not hit.any(axis=1).all():
        raise FastmachError(f"edge: {name!r} does not sit in every game of the focal run")
    seat = hit.argmax(axis=1)
    b = base.set_index(["replicate", "rotation"])
    if b.index.duplicated().any():
        raise FastmachError("edge: the baseline run holds a deal and rotation twice")
    one = base["rotation"].nunique() == 1
    keys = list(zip(focal["replicate"], focal["rotation"] * (0 if one else 1)))
    missing = [k for k in keys if k not in b.index]
    if missing:
        raise FastmachError(f"edge: the baseline has no game of deal and rotation {missing[0]}"
                            f" (the same seed and --rotate?)")
    rows = b.loc[keys]
    idx = np.arange(len(focal))
    wf = focal[[f"win_share_{s}" for s in range(P)]].to_numpy()[idx, seat]
    wb = rows[[f"win_share_{s}" for s in range(P)]].to_numpy()[idx, seat]
    cols = ["winner", "turns"] + [f"score_{s}" for s in range(P)]
    changed = int((focal[cols].to_numpy() != rows[cols].to_numpy()).any(axis=1).sum())
    per = pd.DataFrame({"deal": focal["replicate"].to_numpy(), "f": wf, "b": wb})
    g = per.groupby("deal").mean()
    d = (g["f"] - g["b"]).to_numpy()
    n = len(d)
    half = 1.96 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return Edge(name, float(g["f"].mean()), float(g["b"].mean()), float(d.mean()),
                float(d.mean()) - half, float(d.mean()) + half, n, len(focal), changed)


def read_edge(focal: str, base: str, name: str | None = None) -> Edge:
    """paired_edge of two play runs' parquet files; FastmachError naming an unreadable one."""
    frames = []
    for path in (focal, base):
        if not Path(path).is_file():
            raise FastmachError(f"edge: no such file: {path}")
        try:
            frames.append(pd.read_parquet(path))
        except (OSError, ValueError) as e:
            raise FastmachError(f"edge: cannot read {path}: {e}") from None
    return paired_edge(frames[0], frames[1], name)
