"""The columns of hand rows: deals, seats relative to the first player, per-hand outcomes."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from fastmach.errors import FastmachError

__all__ = ["require", "deal_key", "hand_metrics", "SKILL_PAIR", "check_hands", "ID_COLUMNS"]

#: Strategies compared by the skill gap (per-seat win share of the first minus the second).
SKILL_PAIR = ("expert", "beginner")

#: The identifier columns of a cell.
ID_COLUMNS = ["cell", "rules", "players", "lineup"]


def require(df: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """FastmachError naming the columns ``df`` lacks."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise FastmachError(f"{what}: result table lacks column(s) {', '.join(missing)}")


def check_hands(hands: pd.DataFrame, what: str) -> None:
    """FastmachError unless ``hands`` has the columns of hand rows."""
    require(hands, ("cell", "rules", "players", "lineup", "replicate", "hand",
                    "first_player", "turns", "end", "stock_exhausted", "win_share_0"), what)


def groups(df: pd.DataFrame, by: Sequence[str]):
    """``(key tuple, frame)`` per group, sorted."""
    for key, g in df.groupby(list(by), sort=True):
        yield (key if isinstance(key, tuple) else (key,)), g


def deal_key(df: pd.DataFrame) -> pd.Series:
    """One integer per deal: ``(seed, replicate)`` (``replicate`` alone without ``seed``)."""
    require(df, ("replicate",), "deal_key")
    rep = df["replicate"].astype(np.int64)
    if "seed" not in df.columns or df["seed"].nunique() <= 1:
        return rep
    codes, _ = pd.factorize(pd.MultiIndex.from_arrays([df["seed"], rep]))
    return pd.Series(codes.astype(np.int64), index=df.index)


def match_cols(df: pd.DataFrame) -> list[str]:
    return [c for c in ("cell", "seed", "replicate", "rotation") if c in df.columns]


def players_of(g: pd.DataFrame) -> int:
    p = g["players"].unique()
    if len(p) != 1:
        raise FastmachError("a group of hands mixes player counts "
                            f"{sorted(int(x) for x in p)}; group by players")
    return int(p[0])


def seat_shares(g: pd.DataFrame, players: int) -> np.ndarray:
    """(hands, players) win shares by seat relative to the hand's first player."""
    require(g, [f"win_share_{i}" for i in range(players)] + ["first_player"],
              "win shares")
    ws = g[[f"win_share_{i}" for i in range(players)]].to_numpy(dtype=float)
    first = g["first_player"].to_numpy(dtype=np.int64)
    idx = (first[:, None] + np.arange(players)[None, :]) % players
    return np.take_along_axis(ws, idx, axis=1)


def plain_strategies(hands: pd.DataFrame) -> pd.DataFrame:
    """``hands`` with its strategy columns as plain object arrays (converted once)."""
    cols = [c for c in hands.columns if c.startswith("strategy_")]
    if not cols or all(hands[c].dtype == object for c in cols):
        return hands
    return hands.assign(**{c: hands[c].astype(object) for c in cols})


def strategy_share(g: pd.DataFrame, players: int, strategy: str) -> np.ndarray:
    """Per hand: mean win share of the seats holding ``strategy`` (NaN when none does)."""
    ws = g[[f"win_share_{i}" for i in range(players)]].to_numpy(dtype=float)
    st = g[[f"strategy_{i}" for i in range(players)]].to_numpy(dtype=object)
    held = st == strategy
    count = held.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, (ws * held).sum(axis=1) / count, np.nan)


def hand_metrics(g: pd.DataFrame) -> pd.DataFrame:
    """Per-hand outcome columns of one player count: the y of each ratio estimate.

    ``turns``, ``stock_out`` (0/1), ``blocked`` (0/1: the hand ended blocked, ``end ==
    "blocked"``; an emptied or stock-out ending is 0),
    ``first_seat_edge`` (first player's win share minus the hand's total share / players),
    ``skill_gap`` (expert minus beginner per-seat win share; NaN unless both sit).
    """
    players = players_of(g)
    rel = seat_shares(g, players)
    out = pd.DataFrame(index=g.index)
    out["turns"] = g["turns"].to_numpy(dtype=float)
    out["stock_out"] = g["stock_exhausted"].astype(bool).to_numpy(dtype=float)
    out["blocked"] = (g["end"].astype(str) == "blocked").to_numpy(dtype=float)
    out["first_seat_edge"] = rel[:, 0] - rel.sum(axis=1) / players
    if all(f"strategy_{i}" in g.columns for i in range(players)):
        out["skill_gap"] = (strategy_share(g, players, SKILL_PAIR[0])
                            - strategy_share(g, players, SKILL_PAIR[1]))
    else:
        out["skill_gap"] = np.nan
    return out

