"""``fastmach bench bots`` measures the bot path, the State and replay (figures, no asserts
on speed): it runs, prints every figure, and its ratios are of the same games."""
from __future__ import annotations

import math

from fastmach.cli import main
from fastmach.tools.bench_bots import bench_bots


def test_bench_bots_reports_every_figure_as_a_positive_rate():
    r = bench_bots(games=6, repeats=1)
    for key in ("experts_games_per_s", "bots_games_per_s", "bots_strict_games_per_s",
                "state_steps_per_s", "clone_us", "replay_games_per_s"):
        assert math.isfinite(r[key]) and r[key] > 0, key
    assert math.isclose(r["ratio"], r["bots_games_per_s"] / r["experts_games_per_s"])


def test_cli_bench_bots_prints_the_table(capsys):
    assert main(["bench", "bots", "--games", "5"]) == 0
    out = capsys.readouterr().out
    assert "2 x MaxPlacement + 2 x expert" in out and "State.clone" in out
    assert "replay of the experts' log" in out
