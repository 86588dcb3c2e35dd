"""fastmach.analysis.stats against hand-computed values on small synthetic tables (and scipy)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.report_data import game_rows, row_template
from fastmach.analysis import stats as S
from fastmach.errors import FastmachError


def table(specs, rules="classic", preset="classic", players=2, lineup=("expert",),
          rotation=0, cell=None):
    """Rows from (replicate, first_player, winner, end, turns, stock_exhausted) tuples."""
    cell = cell or f"{rules}|players={players}|lineup={','.join(lineup)}|rotate=false"
    rows = [row_template(cell, rules, preset, players, list(lineup), rotation) for _ in specs]
    rep, first, win, end, turns, stock = zip(*specs)
    return game_rows(rows, replicate=rep, first_player=first, winner=win, end=end,
                     turns=turns, stock_exhausted=stock)


# ----------------------------------------------------------------- building blocks

def test_wilson_interval_hand_computed():
    lo, hi = S.wilson_interval(8, 10)
    assert lo == pytest.approx(0.4901625, abs=1e-6)
    assert hi == pytest.approx(0.9433178, abs=1e-6)
    lo, hi = S.wilson_interval(0, 10)  # upper bound z^2 / (n + z^2)
    z2 = 1.959963984540054 ** 2
    assert lo == 0.0 and hi == pytest.approx(z2 / (10 + z2), rel=1e-9)
    lo, hi = S.wilson_interval(np.array([5, 0]), np.array([10, 0]))
    assert lo[0] == pytest.approx(1 - hi[0]) and math.isnan(lo[1])


def test_t_quantile_matches_scipy():
    for df in (1, 2, 3, 4, 7, 30, 250, 10_000):
        for p in (0.9, 0.975, 0.995, 0.025):
            assert S.t_quantile(p, df) == pytest.approx(sps.t.ppf(p, df), rel=1e-8)


def test_t_tail_matches_scipy():
    for df in (1, 3, 29, 400):
        for t in (0.0, 0.7, 2.1, 5.0, -1.3):
            assert S.t_sf(t, df) == pytest.approx(sps.t.sf(t, df), rel=1e-8, abs=1e-14)


def test_parse_rules():
    assert S.parse_rules("classic") == ("classic", {})
    assert S.parse_rules("ace-low(jokers=2,opening_points=36)") == (
        "ace-low", {"jokers": "2", "opening_points": "36"})
    with pytest.raises(FastmachError, match="classic\\(ace"):
        S.parse_rules("classic(ace")
    with pytest.raises(FastmachError, match="lowonly"):
        S.parse_rules("classic(lowonly)")


def test_rule_differences_name_the_single_rule():
    base = table([(0, 0, 0, "emptied", 9, False)])
    var = table([(0, 0, 0, "emptied", 9, False)], rules="classic(ace=low-only)")
    other = table([(0, 0, 0, "emptied", 9, False)], players=3)  # no baseline at 3 players
    d = S.rule_differences(pd.concat([base, var, other], ignore_index=True))
    assert len(d) == 1
    r = d.iloc[0]
    assert r["label"] == "ace=low-only vs classic" and r["n_changes"] == 1
    assert r["baseline_cell"] == base["cell"].iloc[0]
    assert r["changed_params"] == "ace: low-or-high -> low-only"


def test_rule_differences_against_another_preset():
    base = table([(0, 0, 0, "emptied", 9, False)])
    jok = table([(0, 0, 0, "emptied", 9, False)], rules="jokers", preset="jokers")
    d = S.rule_differences(pd.concat([base, jok]), baseline="classic")
    assert d["label"].tolist() == ["jokers vs classic"]
    assert "jokers: 0 -> 4" in d["changed_params"].iloc[0]


# ----------------------------------------------------------------- paired effects

def _pair():
    # baseline / variant on replicates 0..3, variant rows shuffled to test key pairing
    base = table([(0, 0, 0, "emptied", 10, False), (1, 0, 1, "emptied", 20, True),
                  (2, 1, 1, "emptied", 30, False), (3, 1, 0, "emptied", 40, False)])
    var = table([(3, 1, 0, "emptied", 40, True), (2, 1, 1, "emptied", 35, False),
                 (1, 0, 1, "emptied", 21, True), (0, 0, 1, "emptied", 12, True)],
                rules="classic(ace=low-only)")
    return base, var


def test_rule_differences_use_nearest_baseline_with_common_overrides():
    # at 5 players every cell has three decks; the ace variant pairs with the 3-deck cell
    base = table([(0, 0, 0, "emptied", 9, False)], players=5,
                 rules="classic(decks=3,hand_size=15)")
    var = table([(0, 0, 0, "emptied", 19, False)], players=5,
                rules="classic(ace=low-only,decks=3,hand_size=15)")
    base2, var2 = _pair()
    df = pd.concat([base, var, base2, var2], ignore_index=True)
    d = S.rule_differences(df).set_index("players")
    assert d.loc[5, "baseline_rules"] == "classic(decks=3,hand_size=15)"
    assert d.loc[5, "change"] == "ace=low-only" and d.loc[5, "pool"] == "ace=low-only vs classic"
    assert S.default_pairs(df) == [
        ("classic(ace=low-only)", "classic"),
        ("classic(ace=low-only,decks=3,hand_size=15)", "classic(decks=3,hand_size=15)")]


def test_is_base_rules_allows_only_deal_size_overrides():
    assert S.is_base_rules("classic") and S.is_base_rules("ace-low(decks=3,hand_size=15)")
    assert not S.is_base_rules("classic(ace=low-only)")
    assert not S.is_base_rules("ace-low(decks=3,hand_size=15,jokers=2)")


def test_rule_parameters_are_every_rules_column_a_study_writes():
    """A rule change the report compares must be named: RULE_PARAMETERS follows Rules."""
    from fastmach.analysis.variants import RULE_PARAMETERS
    from fastmach.study import Study

    study = Study.from_toml('[study]\nname = "t"\nseed = 1\ngames = 1\n'
                            '[grid]\nrules = ["classic", "ace-low"]\nlineup = [["expert"]]\n')
    cols = set(study.cells[0].columns()) - {"cell", "rules", "preset", "players", "lineup"}
    assert cols == set(RULE_PARAMETERS)
    assert {"ties", "scoring", "may_pass_when_able", "first_player_by"} <= set(RULE_PARAMETERS)
