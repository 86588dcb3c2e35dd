"""``fastmach rate``: the round-robin's design, the same tables on any worker count, the
outputs, and bad input refused before any game."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import fastmach
from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.tools.rate import lineups_for, plan_rate, rate

SMALL = dict(rules="classic(match=single)", players=[2, 3], games=4, bootstrap=50)


def test_lineups_are_every_multiset_but_those_of_one_strategy():
    lus, balanced = lineups_for(4, 4)
    assert not balanced
    assert len(lus) == math.comb(7, 4) - 4 == 31
    assert len(set(lus)) == 31
    assert all(list(c) == sorted(c) and len(set(c)) > 1 for c in lus)
    assert (0, 1, 1, 1) in lus and (0, 0, 0, 0) not in lus


def test_beyond_max_lineups_the_design_is_balanced_and_seats_one_against_experts():
    m, n, anchor = 8, 4, 2
    lus, balanced = lineups_for(m, n, max_lineups=60, anchor=anchor, seed=7)
    assert balanced and len(lus) == 60 == len(set(lus))
    assert all(len(set(c)) > 1 for c in lus)
    for s in range(m):
        if s != anchor:
            assert tuple(sorted((s,) + (anchor,) * (n - 1))) in lus
    seats = np.bincount(np.concatenate(lus), minlength=m)
    assert seats.max() <= 1.3 * seats.min()
    meets = np.zeros((m, m))
    for c in lus:
        for a, b in itertools.combinations(sorted(set(c)), 2):
            meets[a, b] += 1
    pairs = meets[np.triu_indices(m, 1)]
    assert pairs.min() >= 1  # every pair of strategies meets
    assert lineups_for(m, n, 60, anchor, seed=7) == (lus, True)
    assert lineups_for(m, n, 60, anchor, seed=8)[0] != lus


def test_the_plan_seats_every_lineup_in_every_rotation_on_common_deals():
    plan = plan_rate("beginner,expert,patient", ["classic", "jokers"], [3, 4], games=5)
    assert plan.strategies == ("beginner", "expert", "patient")
    assert [s.players for s in plan.studies] == [(3,), (4,)]
    s3 = plan.studies[0]
    assert s3.rotate and s3.rules == ("classic", "jokers") and s3.seed == plan.studies[1].seed
    assert len(s3.lineup) == math.comb(5, 3) - 3
    assert all(len(c.rotations) == 3 for c in s3.cells)
    assert plan.total_games == 5 * (2 * 7 * 3 + 2 * 12 * 4)


def test_a_rate_run_on_two_workers_equals_one():
    one = rate("beginner,expert", workers=1, **SMALL)
    two = rate("beginner,expert", workers=2, **SMALL)
    pd.testing.assert_frame_equal(one.ratings, two.ratings)
    pd.testing.assert_frame_equal(one.head_to_head, two.head_to_head)
    assert set(one.ratings["players"]) == {2, 3}
    assert (one.ratings.groupby("players")["strategy"].first() == "expert").all()


def test_rate_writes_the_tables_and_the_figure_and_resumes(tmp_path):
    out = tmp_path / "rated"
    r = rate(["expert", "patient", "intermediate(k=1)"], workers=0, out=out,
             **SMALL | {"players": [3]})
    for name in ("ratings.csv", "ratings.parquet", "head_to_head.csv", "ratings.svg",
                 "ratings.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "ratings.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    back = pd.read_parquet(out / "ratings.parquet")
    pd.testing.assert_frame_equal(back, r.ratings, check_dtype=False)
    csv = pd.read_csv(out / "head_to_head.csv")
    assert len(csv) == 6 and set(csv["strategy"]) == {"expert", "patient",
                                                       "intermediate(k=1)"}
    again = rate(["expert", "patient", "intermediate(k=1)"], workers=0, out=out,
                 **SMALL | {"players": [3]})
    assert again.summaries[0]["played"] == 0  # every chunk resumed
    pd.testing.assert_frame_equal(again.ratings, r.ratings)
    text = str(r)
    assert "0 (anchor)" in text and "vs 2 experts" in text and "intermediate(k=1)" in text


def test_a_python_bot_takes_part_by_its_import_path():
    r = fastmach.rate(["expert", "fastmach.strategies.examples:MaxPlacement"],
                      "classic(match=single)", 2, games=3, workers=0, bootstrap=0)
    assert set(r.ratings["strategy"]) == {"expert",
                                          "fastmach.strategies.examples:MaxPlacement"}


@pytest.mark.parametrize("kwargs,needle", [
    (dict(strategies="beginner,wizard"), "unknown strategy 'wizard'"),
    (dict(strategies="expert"), "two or more strategies"),
    (dict(strategies="expert,expert"), "listed twice"),
    (dict(strategies="expert,beginner", players=9), "expected integers 2..8, got 9"),
    (dict(strategies="expert,beginner", players=[4, 1]), "got 1"),
    (dict(strategies="expert,beginner", rules="classic", players=8), "players=8: impossible"),
    (dict(strategies="expert,beginner", rules="classik"), "classik"),
    (dict(strategies="expert,beginner", games=0), "games"),
    (dict(strategies="expert,beginner,patient", max_lineups=2), "max_lineups"),
])
def test_bad_input_is_refused_naming_it(kwargs, needle):
    with pytest.raises(FastmachError, match=needle.replace("(", r"\(").replace(".", r"\.")):
        plan_rate(**kwargs)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv,needle", [
    (["--strategies", "beginner,wizard"], "'wizard'"),
    (["--strategies", "expert"], "two or more strategies"),
    (["--strategies", "expert,beginner", "--players", "9"], "got 9"),
    (["--strategies", "expert,beginner", "--players", "4,8"], "--players 8: impossible"),
    (["--strategies", "expert,beginner", "--players", "four"], "--players 'four'"),
    (["--strategies", "expert,beginner", "--rules", "classic,"], "--rules"),
    (["--strategies", "expert(error=2),beginner"], "'error'"),
    (["--strategies", "expert,beginner", "--bootstrap", "-1"], "--bootstrap"),
    (["--strategies", "expert,beginner", "--bootstrap", "99999999999999"],
     "--bootstrap: at most 100,000 resamples"),
])
def test_bad_input_exits_2_before_any_game(capsys, tmp_path, argv, needle):
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "rate", *argv, "--out", str(out), "-q")
    assert code == 2 and stdout == ""
    assert err.startswith("fastmach: error:") and needle in err
    assert "Traceback" not in err
    assert not (out / "results").exists()  # no game was played


def test_the_command_prints_the_ladder_with_intervals(capsys):
    code, out, _ = run(capsys, "rate", "--rules", "classic(match=single)", "--players", "3",
                       "--strategies", "beginner,expert", "--games", "4", "--workers", "0",
                       "--bootstrap", "40", "-q")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("classic(match=single), 3 players: 4 deals x 2 line-ups x 3 "
                               "rotations = 24 games")
    assert "95% intervals from 40 bootstrap resamples of the 4 deals" in " ".join(out.split())
    row = next(x for x in lines if x.strip().startswith("2  beginner"))
    assert "[" in row and "%" in row
