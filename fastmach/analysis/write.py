"""The study's statistics tables as CSV files (``scorecard.csv``, ``seats.csv``,
``effects.csv``, ``effects_by_players.csv``): one row per line-up, never pooled over
line-ups of different kinds."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd

from fastmach.analysis.heterogeneity import effects_by_players
from fastmach.analysis.tables import effects, scorecard, seat_table
from fastmach.analysis.variants import default_pairs

__all__ = ["write_tables"]


def write_tables(games: pd.DataFrame, hands: pd.DataFrame, outdir: str | Path,
                 pairs: Sequence[tuple[str, str]] | None = None) -> dict[str, Path]:
    """Write ``scorecard.csv``, ``seats.csv``, ``effects.csv`` and ``effects_by_players.csv``
    (:mod:`fastmach.analysis.heterogeneity`) into ``outdir``. ``pairs`` defaults to
    :func:`default_pairs`. Every column is a number or an identifier (no formatted
    string). Returns the paths by table name.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    pairs = default_pairs(games) if pairs is None else pairs
    tables = {"scorecard": scorecard(games, hands),
              "seats": seat_table(hands),
              "effects": effects(games, hands, pairs),
              "effects_by_players": effects_by_players(hands, pairs)}
    paths = {}
    for name, t in tables.items():
        paths[name] = out / f"{name}.csv"
        t.to_csv(paths[name], index=False)
    return paths
