"""The paired edge of a player over a baseline in the same seat (fastmach.tools.edge):
against a plain per-game loop, zero for the baseline itself, clear errors."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fastmach.engine import run_play
from fastmach.errors import FastmachError
from fastmach.cli.main import main
from fastmach.tools.edge import paired_edge

RULES = "classic(match=single)"


@pytest.fixture(scope="module")
def runs():
    focal = run_play(RULES, "expert,strong,strong,strong", 6, 31, rotate=True, progress=False)
    base = run_play(RULES, "strong,strong,strong,strong", 6, 31, rotate=True, progress=False)
    return focal, base


def _reference(focal: pd.DataFrame, base: pd.DataFrame, name: str):
    """Game by game: the focal seat's win share minus the baseline game's same seat (the
    baseline's rotation 0 where it has one rotation), averaged per deal."""
    per: dict[int, list[float]] = {}
    for _, r in focal.iterrows():
        seat = next(s for s in range(4) if str(r[f"strategy_{s}"]).startswith(name))
        rot = r["rotation"] if base["rotation"].nunique() > 1 else 0
        b = base[(base["replicate"] == r["replicate"]) & (base["rotation"] == rot)].iloc[0]
        per.setdefault(int(r["replicate"]), []).append(
            r[f"win_share_{seat}"] - b[f"win_share_{seat}"])
    d = np.array([np.mean(v) for v in per.values()])
    return d.mean(), 1.96 * d.std(ddof=1) / math.sqrt(len(d)), len(d)


def test_the_edge_is_the_per_game_loops(runs):
    focal, base = runs
    assert base["rotation"].nunique() == 1 and focal["rotation"].nunique() == 4
    e = paired_edge(focal, base, "expert")
    mean, half, n = _reference(focal, base, "expert")
    assert e.deals == n == 6 and e.games == 24
    assert e.diff == pytest.approx(mean) and e.lo == pytest.approx(mean - half)
    assert e.hi == pytest.approx(mean + half)
    assert e.share - e.base == pytest.approx(e.diff)
    assert 0 < e.changed <= 24   # the expert does not play the trained player's games


def test_a_player_against_itself_has_no_edge(runs):
    _, base = runs
    focal = run_play(RULES, "strong,strong,strong,strong", 6, 31, rotate=True, progress=False)
    e = paired_edge(focal, base)
    assert e.diff == 0 and e.changed == 0 and e.lo == e.hi == 0


def test_wrong_pairings_are_named(runs, tmp_path, capsys):
    focal, base = runs
    with pytest.raises(FastmachError, match="does not sit"):
        paired_edge(focal, base, "search")
    with pytest.raises(FastmachError, match="no game of deal"):
        paired_edge(focal, base[base["replicate"] < 3], "expert")
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    focal.to_parquet(a)
    base[base["replicate"] < 3].to_parquet(b)
    assert main(["edge", str(a), str(b), "--focal", "expert"]) == 2
    assert "no game of deal" in capsys.readouterr().err
    base.to_parquet(b)
    assert main(["edge", str(a), str(b), "--focal", "expert"]) == 0
    assert "edge" in capsys.readouterr().out
