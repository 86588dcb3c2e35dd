"""fastmach.stats against hand-computed values on small synthetic tables (and scipy)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from conftest_report_data import game_rows, random_study, row_template
from fastmach import stats as S
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


def test_t_interval_hand_computed():
    m, lo, hi = S.t_interval([1, 2, 3, 4, 5])
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert (m, lo, hi) == pytest.approx((3.0, 3.0 - half, 3.0 + half), rel=1e-9)
    m, lo, hi = S.t_interval([7.0])
    assert m == 7.0 and math.isnan(lo) and math.isnan(hi)


def test_median_interval_order_statistics():
    # n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so j = 2: [x_(2), x_(9)]
    assert S.median_interval(np.arange(1, 11)) == (5.5, 2.0, 9.0)
    # coverage of the chosen ranks is at least 95% for several n (exact binomial)
    for n in (6, 11, 25, 100, 999):
        x = np.arange(n, dtype=float)
        _, lo, hi = S.median_interval(x[::-1])  # order of input does not matter
        j = int(lo) + 1
        assert int(hi) == n - j
        coverage = sps.binom.cdf(n - j, n, 0.5) - sps.binom.cdf(j - 1, n, 0.5)
        assert coverage >= 0.95
        # and j is the largest such rank
        assert sps.binom.cdf(n - j - 1, n, 0.5) - sps.binom.cdf(j, n, 0.5) < 0.95
    assert S.median_interval([3.0, 1.0]) == (2.0, 1.0, 3.0)  # too small: [min, max]


@pytest.mark.parametrize("dof", [1, 2, 3, 4, 5, 7, 10, 31])
def test_chi2_sf_matches_scipy(dof):
    for x in (0.001, 0.1, 0.5, 1.0, 2.5, dof, dof + 1.5, 7.0, 15.0, 40.0, 120.0):
        ours, ref = S.chi2_sf(x, dof), sps.chi2.sf(x, dof)
        assert ours == pytest.approx(ref, rel=1e-9, abs=1e-300)
    assert S.chi2_sf(0.0, dof) == 1.0


def test_chi2_sf_two_dof_is_exponential():
    assert S.chi2_sf(1.0, 2) == pytest.approx(math.exp(-0.5), rel=1e-12)


# ----------------------------------------------------------------- per-cell summary

def test_cell_summary_hand_computed():
    df = table([(0, 0, 0, "emptied", 10, False), (1, 1, 1, "emptied", 20, True),
                (2, 0, -1, "blocked", 30, True), (3, 1, 0, "emptied", 40, False)])
    s = S.cell_summary(df)
    assert len(s) == 1
    r = s.iloc[0]
    assert r["games"] == 4 and r["turns_mean"] == 25.0 and r["turns_median"] == 25.0
    half = sps.t.ppf(0.975, 3) * np.std([10, 20, 30, 40], ddof=1) / 2
    assert r["turns_mean_lo"] == pytest.approx(25 - half)
    assert r["rounds_mean"] == pytest.approx(np.mean([5, 10, 15, 20]))
    assert r["stock_out"] == 0.5 and r["blocked"] == 0.25 and r["no_winner"] == 0.25
    assert (r["stock_out_lo"], r["stock_out_hi"]) == pytest.approx(S.wilson_interval(2, 4))
    assert (r["blocked_lo"], r["blocked_hi"]) == pytest.approx(S.wilson_interval(1, 4))


def test_cell_summary_counts_stock_out_ending_as_blocked():
    df = table([(0, 0, -1, "stock-out", 10, True), (1, 0, 1, "emptied", 12, False)])
    assert S.cell_summary(df).iloc[0]["blocked"] == 0.5


def test_exhaustion_by_players_pools_lineups():
    a = table([(0, 0, 0, "emptied", 10, True), (1, 0, 0, "emptied", 10, False)])
    b = table([(0, 0, 0, "emptied", 10, True), (1, 0, 0, "emptied", 10, True)],
              lineup=("expert", "beginner"))
    e = S.exhaustion_by_players(pd.concat([a, b]))
    assert e[["games", "stock_out"]].values.tolist() == [[4, 0.75]]


# ----------------------------------------------------------------- seats

def test_seat_offset_counts_clockwise_from_first_player():
    df = pd.DataFrame({"players": [4, 4, 3, 2], "first_player": [3, 1, 0, 1],
                       "winner": [1, -1, 2, 0]})
    assert S.seat_offsets(df).tolist() == [2, -1, 2, 1]


def test_seat_win_rates_and_equality_test_hand_computed():
    # 3 players; offsets of the winners: 0,0,0,1,1,2 plus one game without winner
    specs = [(0, 0, 0, "emptied", 9, False), (1, 1, 1, "emptied", 9, False),
             (2, 2, 2, "emptied", 9, False), (3, 2, 0, "emptied", 9, False),
             (4, 0, 1, "emptied", 9, False), (5, 1, 0, "emptied", 9, False),
             (6, 0, -1, "blocked", 9, True)]
    df = table(specs, players=3)
    w = S.seat_win_rates(df)
    assert w["wins"].tolist() == [3, 2, 1] and (w["games"] == 7).all()
    assert w["win_rate"].tolist() == pytest.approx([3 / 7, 2 / 7, 1 / 7])
    # 6 of 7 games decided: a fair seat wins 6 / 7 / 3 of all games
    assert (w["decided"] == 6).all() and w["fair"].tolist() == pytest.approx([6 / 7 / 3] * 3)
    lo, hi = S.wilson_interval(3, 7)
    assert (w.loc[0, "win_rate_lo"], w.loc[0, "win_rate_hi"]) == pytest.approx((lo, hi))
    t = S.seat_equality_test(df).iloc[0]
    # expected 2 each among 6 decided: chi2 = (1 + 0 + 1) / 2 = 1, dof 2, p = exp(-1/2)
    assert t["decided"] == 6 and t["chi2"] == pytest.approx(1.0) and t["dof"] == 2
    assert t["p_value"] == pytest.approx(math.exp(-0.5))
    assert t["p_value"] == pytest.approx(sps.chisquare([3, 2, 1]).pvalue)
    assert t["best_offset"] == 0 and t["best_share"] == 0.5


# ----------------------------------------------------------------- strategies and points

def test_strategy_win_rates_credit_the_winning_seats_strategy():
    # seats: 0 expert, 1 beginner, 2 expert (line-up cycled)
    df = table([(0, 0, 0, "emptied", 9, False), (1, 0, 1, "emptied", 9, False),
                (2, 0, 2, "emptied", 9, False), (3, 0, -1, "blocked", 9, True)],
               players=3, lineup=("expert", "beginner"))
    s = S.strategy_win_rates(df).set_index("strategy")
    assert s.loc["expert", "games"] == 4 and s.loc["expert", "wins"] == 2
    assert s.loc["beginner", "games"] == 4 and s.loc["beginner", "wins"] == 1
    # 3 of the 4 games have a winner: a fair expert (2 seats of 3) wins 2/3 of those
    assert s.loc["expert", "fair"] == pytest.approx(2 / 3 * 3 / 4)
    assert s.loc["beginner", "fair"] == pytest.approx(1 / 3 * 3 / 4)
    assert s.loc["beginner", "win_rate"] == 0.25
    lo, hi = S.wilson_interval(2, 4)
    assert s.loc["expert", ["win_rate_lo", "win_rate_hi"]].tolist() == pytest.approx([lo, hi])


def test_strategy_win_rates_mixed_only_drops_single_strategy_lineups():
    solo = table([(0, 0, 0, "emptied", 9, False)], players=2)
    mixed = table([(0, 0, 1, "emptied", 9, False)], players=2, lineup=("expert", "beginner"))
    df = pd.concat([solo, mixed], ignore_index=True)
    allg = S.strategy_win_rates(df, by="preset").set_index("strategy")
    assert allg.loc["expert", "games"] == 2
    only = S.strategy_win_rates(df, by="preset", mixed_only=True).set_index("strategy")
    assert only.loc["expert", "games"] == 1 and only.loc["expert", "wins"] == 0
    assert only.loc["beginner", "wins"] == 1


def test_penalty_points_follow_seat_offset():
    # the helper gives a loser in seat i 5 + i points, the winner 0
    df = table([(0, 1, 1, "emptied", 9, False), (1, 1, 0, "emptied", 9, False)], players=2)
    p = S.penalty_points(df)
    # offset 0 is seat 1: points 0 (won) and 6 (lost); offset 1 is seat 0: 5 and 0
    assert p["hand_points"].tolist() == pytest.approx([3.0, 2.5])
    assert p["offset"].tolist() == [0, 1]


# ----------------------------------------------------------------- rule differences

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


def test_paired_effects_hand_computed():
    base, var = _pair()
    e = S.paired_effects(var, base).set_index("metric")
    # turns: d = 2, 1, 5, 0 -> mean 2, sd sqrt(14/3), paired t with 3 dof
    half = sps.t.ppf(0.975, 3) * math.sqrt(14 / 3) / 2
    assert e.loc["turns", "pairs"] == 4 and e.loc["turns", "diff"] == 2.0
    assert e.loc["turns", ["diff_lo", "diff_hi"]].tolist() == pytest.approx([2 - half, 2 + half])
    assert e.loc["turns", ["baseline", "variant"]].tolist() == [25.0, 27.0]
    # stock out: base 0,1,0,0 variant 1,1,0,1 -> d = 1,0,0,1: p10 = .5, p01 = 0
    z = 1.959963984540054
    se = math.sqrt(0.5 - 0.25) / 2
    assert e.loc["stock_out", "diff"] == 0.5
    assert e.loc["stock_out", ["diff_lo", "diff_hi"]].tolist() == pytest.approx(
        [0.5 - z * se, 0.5 + z * se])
    # first-seat win: base 1,0,1,0 variant 0,0,1,0 -> d = -1,0,0,0: p01 = .25
    se = math.sqrt(0.25 - 0.0625) / 2
    assert e.loc["first_seat_win", "diff"] == -0.25
    assert e.loc["first_seat_win", "diff_lo"] == pytest.approx(-0.25 - z * se)


def test_paired_effects_refuse_duplicate_replicates():
    base, var = _pair()
    with pytest.raises(FastmachError, match="replicate"):
        S.paired_effects(pd.concat([var, var]), base)


def test_variant_effects_pool_contexts_and_pair_within_them():
    base, var = _pair()
    base3 = table([(0, 0, 0, "emptied", 10, False)], players=3)
    var3 = table([(0, 0, 0, "emptied", 110, False)], players=3, rules="classic(ace=low-only)")
    df = pd.concat([base, var, base3, var3], ignore_index=True)
    pooled = S.variant_effects(df).set_index("metric")
    assert pooled.loc["turns", "pairs"] == 5 and pooled.loc["turns", "cells"] == 2
    # pairs are 2, 1, 5, 0 (2 players) and 100 (3 players): replicate 0 is not crossed
    assert pooled.loc["turns", "diff"] == pytest.approx(108 / 5)
    per_cell = S.variant_effects(df, pooled=False)
    assert sorted(per_cell["players"].unique()) == [2, 3]
    assert per_cell[per_cell["metric"] == "turns"]["diff"].tolist() == pytest.approx([2, 100])


def test_random_study_recovers_its_built_in_effects():
    df = random_study(games=40)
    eff = S.variant_effects(df).set_index(["change", "metric"])
    lo, hi = eff.loc[("ace=low-only", "turns"), ["diff_lo", "diff_hi"]]
    assert lo < 7.5 and hi > 4.5 and lo > 0  # built in: +6 turns (+0..3 noise difference)
    t = S.seat_equality_test(df, by=["rules", "players"])
    assert (t["best_offset"] == 0).mean() > 0.7  # built in: first player favoured


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
    pooled = S.variant_effects(df).set_index("metric")
    assert pooled.loc["turns", "label"] == "ace=low-only vs classic"
    assert pooled.loc["turns", "pairs"] == 5 and pooled.loc["turns", "diff"] == pytest.approx(18 / 5)


def test_is_base_rules_allows_only_deal_size_overrides():
    assert S.is_base_rules("classic") and S.is_base_rules("ace-low(decks=3,hand_size=15)")
    assert not S.is_base_rules("classic(ace=low-only)")
    assert not S.is_base_rules("ace-low(decks=3,hand_size=15,jokers=2)")
