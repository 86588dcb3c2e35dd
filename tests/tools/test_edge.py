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


# ------------------------------------------------------------- the runs' rows refused

@pytest.fixture(scope="module")
def pair():
    """A 2-player focal run ('expert(error=0.3),expert', seed 7), its all-expert baseline
    on seed 7 and on seed 8, and the focal run's hands file."""
    rules, lineup = "classic(match=single)", "expert(error=0.3),expert"
    focal = run_play(rules, lineup, 6, 7, players=2, rotate=True, progress=False)
    base = run_play(rules, "expert", 6, 7, players=2, rotate=True, progress=False)
    base8 = run_play(rules, "expert", 6, 8, players=2, rotate=True, progress=False)
    _, hands = run_play("classic", lineup, 4, 7, players=2, rotate=True, progress=False,
                        hands=True)
    return focal, base, base8, hands


def _edge_cli(tmp_path, focal: pd.DataFrame, base: pd.DataFrame, *flags: str):
    """The command on the two frames written to f.parquet and b.parquet: its exit status."""
    f, b = tmp_path / "f.parquet", tmp_path / "b.parquet"
    focal.to_parquet(f)
    base.to_parquet(b)
    return main(["edge", str(f), str(b), *flags])


def test_runs_on_different_seeds_are_refused(pair, tmp_path, capsys):
    """Games are the same deals only on the same seed: the seed column is compared."""
    focal, _, base8, _ = pair
    with pytest.raises(FastmachError, match="seed.*7.*8"):
        paired_edge(focal, base8)
    assert _edge_cli(tmp_path, focal, base8) == 2
    err = capsys.readouterr().err
    assert "seed" in err and "f.parquet" in err and "b.parquet" in err


def test_runs_of_different_rules_are_refused_where_the_rows_name_them(pair):
    """A rules column both runs hold (a study's rows) must agree, game by game."""
    focal, base, _, _ = pair
    with pytest.raises(FastmachError, match="rules"):
        paired_edge(focal.assign(rules="classic"), base.assign(rules="jokers"))
    with pytest.raises(FastmachError, match="players"):
        paired_edge(focal.assign(players=2), base.assign(players=3))
    e = paired_edge(focal.assign(rules="classic"), base.assign(rules="classic"))
    assert e == paired_edge(focal, base)


def test_a_focal_name_of_two_strategies_is_refused_with_the_strategies(pair, tmp_path,
                                                                       capsys):
    """'exp' starts both 'expert(error=0.3)' and 'expert': no seat is guessed."""
    focal, base, _, _ = pair
    with pytest.raises(FastmachError, match=r"expert\(error=0\.3\).*expert"):
        paired_edge(focal, base, "exp")
    assert _edge_cli(tmp_path, focal, base, "--focal", "exp") == 2
    assert "'expert(error=0.3)', 'expert'" in capsys.readouterr().err


def test_a_focal_name_written_as_a_strategy_picks_that_one(pair):
    """'expert' is one strategy as written (and the start of 'expert(error=0.3)'): the plain
    expert's seat, the other seat of each game."""
    focal, base, _, _ = pair
    e = paired_edge(focal, base, "expert")
    assert e.focal == "expert"
    seat = np.where(focal["rotation"] == 0, 1, 0)
    wf = focal[["win_share_0", "win_share_1"]].to_numpy()[np.arange(12), seat]
    assert e.share == pytest.approx(wf.mean())


def test_an_empty_or_absent_focal_name_is_refused_with_the_strategies(pair, tmp_path,
                                                                      capsys):
    """--focal '' names no strategy (it printed the label ':'); nor does one not seated."""
    focal, base, _, _ = pair
    for name in ("", "search", "xpert"):
        with pytest.raises(FastmachError, match=r"'expert\(error=0\.3\)', 'expert'"):
            paired_edge(focal, base, name)
    assert _edge_cli(tmp_path, focal, base, "--focal", "") == 2
    assert "empty" in capsys.readouterr().err


def test_the_focal_name_picks_its_seat_and_labels_the_strategy(pair):
    """A prefix of one strategy picks the seat it sits in, whichever the rotation."""
    focal, base, _, _ = pair
    e = paired_edge(focal, base, "expert(")
    assert e.focal == "expert(error=0.3)" and e == paired_edge(focal, base)
    seat = np.where(focal["rotation"] == 0, 0, 1)
    wf = focal[["win_share_0", "win_share_1"]].to_numpy()[np.arange(12), seat]
    assert e.share == pytest.approx(wf.mean())


def test_a_hands_file_is_refused_as_either_run(pair, tmp_path, capsys):
    """A match's per-hand rows hold each game more than once: named, focal or baseline."""
    focal, base, _, hands = pair
    for f, b in ((hands, base), (focal, hands)):
        with pytest.raises(FastmachError, match="per-hand"):
            paired_edge(f, b)
    assert _edge_cli(tmp_path, hands, base) == 2
    err = capsys.readouterr().err
    assert "f.parquet" in err and "per-hand" in err


def test_a_game_twice_in_the_focal_run_is_refused(pair):
    """Duplicate (replicate, rotation) rows are checked in both runs, not the baseline only."""
    focal, base, _, _ = pair
    with pytest.raises(FastmachError, match="focal run.*twice"):
        paired_edge(pd.concat([focal, focal.iloc[:1]]), base)


@pytest.mark.parametrize("value", [math.nan, None, 1.5, -0.5, math.inf])
def test_a_missing_or_impossible_win_share_is_refused(pair, value):
    """A NaN, missing or out-of-range win share (either run) is named, not averaged."""
    focal, base, _, _ = pair
    for f, b, who in ((focal, base, "focal"), (base, base, "baseline")):
        bad = f.astype({"win_share_0": object})
        bad.loc[bad.index[1], "win_share_0"] = value
        if who == "focal":
            args = (bad.astype({"win_share_0": float}), b)
        else:
            args = (focal, bad.astype({"win_share_0": float}))
        with pytest.raises(FastmachError, match=f"{who} run.*win_share_0"):
            paired_edge(*args)


def test_a_focal_run_of_nan_win_shares_exits_2(pair, tmp_path, capsys):
    """All NaN win shares printed 'nan%' with exit status 0."""
    focal, base, _, _ = pair
    assert _edge_cli(tmp_path, focal.assign(win_share_0=math.nan), base) == 2
    err = capsys.readouterr().err
    assert "f.parquet" in err and "win_share_0" in err and "Traceback" not in err


@pytest.mark.parametrize("column", ["win_share_1", "winner", "rotation", "replicate",
                                    "seed", "strategy_1", "turns", "score_0"])
def test_a_missing_column_is_named_with_its_file(pair, tmp_path, capsys, column):
    """A column the edge reads, missing from either file: the file and column named."""
    _, base, _, _ = pair
    for f, b, name in ((base.drop(columns=[column]), base, "f.parquet"),
                       (base, base.drop(columns=[column]), "b.parquet")):
        assert _edge_cli(tmp_path, f, b) == 2
        err = capsys.readouterr().err
        assert name in err and column in err and "Traceback" not in err


def test_a_run_of_no_games_is_named(pair, tmp_path, capsys):
    """Zero rows (focal or baseline) raised IndexError."""
    _, base, _, _ = pair
    for f, b, name in ((base.iloc[:0], base, "f.parquet"), (base, base.iloc[:0], "b.parquet")):
        assert _edge_cli(tmp_path, f, b) == 2
        err = capsys.readouterr().err
        assert name in err and "no games" in err


@pytest.mark.parametrize("column", ["win_share_0", "replicate", "winner"])
def test_a_text_column_is_named_with_its_file(pair, tmp_path, capsys, column):
    """Numbers stored as text ('0.0') raised TypeError, or compared as text."""
    _, base, _, _ = pair
    assert _edge_cli(tmp_path, base.astype({column: str}), base) == 2
    err = capsys.readouterr().err
    assert "f.parquet" in err and column in err and "not numbers" in err


def test_a_one_rotation_baseline_of_mixed_seats_is_not_stretched(pair):
    """Only a baseline of identical seats may stand for every rotation with rotation 0."""
    focal, _, _, _ = pair
    with pytest.raises(FastmachError, match="no game"):
        paired_edge(focal, focal[focal["rotation"] == 0])


def test_the_printed_edge_says_its_unit_and_interval(runs):
    """Percentages and points, the interval's level, and its unit: the deal."""
    focal, base = runs
    text = str(paired_edge(focal, base, "expert"))
    assert text.startswith("expert: ") and " pp" in text and "95% interval" in text
    assert "by deal" in text and "6 deals" in text
    one = paired_edge(focal[focal["replicate"] == 0], base)
    assert one.deals == 1 and "no interval" in str(one) and "inf" not in str(one)


def test_deals_of_one_difference_give_no_interval(pair):
    """Changed games whose deals all differ alike have no variance to build an interval
    on: no [x, x] is printed as if certain."""
    focal, base, _, _ = pair
    e = paired_edge(focal.assign(win_share_0=0.0, win_share_1=0.0),
                    base.assign(win_share_0=1.0, win_share_1=0.0))
    assert e.diff == -0.5 and e.changed > 0 and e.deals == 6
    assert e.lo == -math.inf and e.hi == math.inf
    assert "no interval" in str(e) and "[" not in str(e)
