"""The compiled engine: rows, seeding, validation, strategies registry, end-rule shares."""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
import pytest

from fastmach.engine import _engine
from fastmach.cli import add_play as register_cli
from fastmach.engine import deck_of, play_games, run_play
from fastmach.engine.play import _lineups
from fastmach.errors import FastmachError
from fastmach.rules import PRESETS, Rules
from fastmach.strategies import parse_strategy, split_strategies

BASE_COLUMNS = ["seed", "replicate", "first_player", "winner", "end", "turns", "rounds",
                "stock_exhausted", "stock_exhausted_turn", "cards_drawn", "plays", "failed",
                "max_table"]


def test_columns_one_row_per_replicate():
    df = play_games("classic(players=3,match=single)", ["expert"] * 3, 5, [4, 1, 9])
    assert list(df["replicate"]) == [4, 1, 9] and (df["seed"] == 5).all()
    for c in BASE_COLUMNS:
        assert c in df.columns
    for i in range(3):
        for c in ("strategy", "cards_left", "hand_points", "score"):
            assert f"{c}_{i}" in df.columns
    assert "strategy_3" not in df.columns
    assert set(df["end"]) <= {"emptied", "blocked", "stock-out"}
    assert df["stock_exhausted"].dtype == bool
    assert ((df["winner"] >= -1) & (df["winner"] < 3)).all()
    # single hand: the emptied winner has no card left and scores 0
    for _, row in df[df["end"] == "emptied"].iterrows():
        w = row["winner"]
        assert row[f"cards_left_{w}"] == 0 and row[f"score_{w}"] == 0
    assert (df["rounds"] == np.ceil(df["turns"] / 3)).all()


def test_same_seed_same_game_any_batch_split():
    rules, seats = "classic(match=single)", ["expert"] * 4
    a = play_games(rules, seats, 77, range(12))
    b = pd.concat([play_games(rules, seats, 77, [r]) for r in reversed(range(12))])
    b = b.sort_values("replicate").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    c = play_games(rules, seats, 78, range(12))
    assert not a.drop(columns="seed").equals(c.drop(columns="seed"))


def test_common_random_numbers_same_deal_across_variants():
    # the deal depends only on (replicate, seed, deck): same first player / dealer
    a = play_games("classic(match=single)", ["expert"] * 4, 3, range(20))
    b = play_games("classic(match=single,failed_penalty=1,hand_points=face-ace11)",
                   ["expert"] * 4, 3, range(20))
    assert (a["dealer"] == b["dealer"]).all() and (a["turns"] == b["turns"]).all()


def test_deck_composition():
    r = Rules.parse("jokers(decks=3,players=6,hand_size=15)")
    d = deck_of(r)
    assert len(d) == 160 and (np.bincount(d, minlength=53)[:52] == 3).all() and (d[-4:] == 52).all()
    assert (np.diff(d.astype(int)) >= 0).all()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_terminates_with_consistent_rows(preset):
    rules = Rules.parse(preset)
    df = play_games(rules, ["expert"] * rules.players, 1, range(6))
    assert len(df) == 6
    assert (df["plays"] >= 1).all() and (df["turns"] >= df["plays"]).all()
    P = rules.players
    scores = df[[f"score_{i}" for i in range(P)]].to_numpy()
    if rules.match_kind == "single":
        pts = df[[f"hand_points_{i}" for i in range(P)]].to_numpy()
        assert (scores == pts).all()
    else:
        best = scores.min(axis=1)
        ties = (scores == best[:, None]).sum(axis=1)
        expect = np.where(ties == 1, scores.argmin(axis=1), -1)
        assert (df["winner"].to_numpy() == expect).all()
    if rules.match_kind == "rotations":
        assert (df["hands"] == rules.match_value * P).all()
    if rules.match_kind == "threshold":
        assert (scores.max(axis=1) >= rules.match_value).all()


def test_classic_blocked_hands_have_no_winner_and_everyone_counts():
    # seven players leave little stock: hands run the stock out and block
    df = play_games("classic(players=7,match=single)", ["expert(error=0.3)"] * 7, 2, range(60))
    blocked = df[df["end"] == "blocked"]
    assert len(blocked) > 0
    assert (blocked["winner"] == -1).all() and blocked["stock_exhausted"].all()
    assert (blocked[[f"score_{i}" for i in range(7)]].to_numpy() > 0).all()
    assert df["failed"].sum() > 0 and (df["cards_drawn"] > 0).all()


def test_lowest_points_wins_blocked_hands_under_blocked_winner_lowest():
    df = play_games("classic(players=7,match=single,blocked_winner=lowest,hand_points=face-ace11)",
                    ["expert(error=0.3)"] * 7, 2, range(60))
    blocked = df[df["end"] == "blocked"]
    assert len(blocked) > 0
    pts = blocked[[f"hand_points_{i}" for i in range(7)]].to_numpy()
    best = pts.min(axis=1)
    unique = (pts == best[:, None]).sum(axis=1) == 1
    assert (blocked["winner"].to_numpy()[unique] == pts.argmin(axis=1)[unique]).all()
    assert (blocked["winner"].to_numpy()[~unique] == -1).all()


def test_ends_hand_stops_at_stock_out():
    df = play_games("ace-low(players=7,match=single)", ["expert(error=0.3)"] * 7, 2, range(60))
    assert set(df["end"]) <= {"emptied", "stock-out"}
    out = df[df["end"] == "stock-out"]
    assert len(out) > 0 and out["stock_exhausted"].all()
    assert (out["turns"] >= out["stock_exhausted_turn"]).all()


def test_failed_penalty_zero_draws_nothing_on_failures():
    df = play_games("classic(failed_penalty=0,match=single)", ["expert(error=0.1)"] * 4, 4, range(20))
    df1 = play_games("classic(failed_penalty=3,match=single)", ["expert(error=0.1)"] * 4, 4, range(20))
    assert df["failed"].sum() > 0 and df1["failed"].sum() > 0
    assert df1["cards_drawn"].sum() > df["cards_drawn"].sum()


# ----------------------------------------------------------------- validation
@pytest.mark.parametrize("seats,match", [
    (["expert"] * 3, "3 strategies given for 4 players"),
    (["expert", "expert", "expert", "nobody"], "unknown strategy 'nobody'"),
    (["expert(error=2)"] + ["expert"] * 3, "parameter 'error'=2 outside"),
    (["expert(k=1)"] + ["expert"] * 3, "has no parameter 'k'"),
    (["expert(error=x)"] + ["expert"] * 3, "parameter 'error' must be a number"),
])
def test_bad_strategies_fail_before_any_game(seats, match):
    with pytest.raises(FastmachError, match=match):
        play_games("classic", seats, 0, range(3))


@pytest.mark.parametrize("rules,match", [
    ("classic(players=9)", "players"),
    ("classic(players=8,hand_size=14)", "deck holds"),
    ("nosuch", "unknown rules preset"),
])
def test_bad_rules_fail_before_any_game(rules, match):
    with pytest.raises(FastmachError, match=match):
        play_games(rules, ["expert"] * 4, 0, range(3))


@pytest.mark.parametrize("seed,reps", [(-1, [0]), (1.5, [0]), (0, [-3]), (0, [[1, 2]])])
def test_bad_seed_or_replicates(seed, reps):
    with pytest.raises(FastmachError):
        play_games("classic", ["expert"] * 4, seed, reps)


def test_strategy_registry_canonical_strings():
    assert str(parse_strategy("expert")) == "expert"
    assert str(parse_strategy(" expert( error = 0.25 ) ")) == "expert(error=0.25)"
    assert str(parse_strategy("expert(error=0)")) == "expert"
    assert parse_strategy("expert(error=0.2)").params["error"] == 0.2
    assert split_strategies("expert(error=0.1),expert") == ["expert(error=0.1)", "expert"]
    with pytest.raises(FastmachError, match="given twice"):
        parse_strategy("expert(error=0.1,error=0.2)")
    with pytest.raises(FastmachError, match="empty strategy"):
        split_strategies("expert,,expert")


def test_engine_prng_is_splitmix64():
    s, xs = _engine.splitmix64(0, 2)
    # reference splitmix64 outputs for seed 0
    z = []
    st = 0
    for _ in range(2):
        st = (st + 0x9E3779B97F4A7C15) % 2**64
        v = st
        v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) % 2**64
        v ^= v >> 31
        z.append((v >> 11) / 2**53)
    assert xs == z and s == st


# ----------------------------------------------------------------- command line
def test_rotate_lineups_put_every_strategy_in_every_seat():
    ups = _lineups(["a", "b"], 4, True)
    assert ups == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]  # the period: 2 rotations
    ups = _lineups(["a", "b", "c"], 3, True)
    assert len(ups) == 3
    for seat in range(3):
        assert sorted(u[seat] for u in ups) == ["a", "b", "c"]
    ups = _lineups(["a", "b", "c"], 4, True)  # a b c a: 4 distinct rotations
    assert len(ups) == 4 and all(sorted(u[s] for u in ups) == ["a", "a", "b", "c"] for s in range(4))
    assert _lineups(["a", "b", "c"], 4, False) == [["a", "b", "c", "a"]]
    assert _lineups(["a"], 4, True) == [["a"] * 4]
    # the same seats as a study's rotations (fastmach.study.seating)
    from fastmach.study import seating

    for lineup, players in ((["a", "b", "c"], 4), (["a", "b"], 3), (["x", "y", "z"], 3)):
        for k, seats in enumerate(_lineups(lineup, players, True)):
            assert seats == seating(lineup, players, k)


def test_cli_play_writes_parquet_and_summary(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    register_cli(sub)
    out = tmp_path / "g.parquet"
    args = parser.parse_args(["play", "--rules", "classic(match=single)", "--players", "3",
                              "--strategies", "expert,expert(error=0.2)", "--games", "5",
                              "--seed", "3", "--out", str(out), "--rotate"])
    assert args.func(args) == 0
    df = pd.read_parquet(out)
    assert len(df) == 15 and sorted(df["rotation"].unique()) == [0, 1, 2]
    assert "games of classic(players=3,match=single)" in capsys.readouterr().out
    # rotations replay the same deals
    assert (df.groupby("replicate")["dealer"].nunique() == 1).all()
    bad = parser.parse_args(["play", "--strategies", "wizard", "--out", str(out)])
    with pytest.raises(FastmachError, match="wizard"):
        bad.func(bad)


def test_run_play_validates_games():
    with pytest.raises(FastmachError, match="games=0"):
        run_play("classic", "expert", 0, 1)


# ----------------------------------------------------------------- many games, checked
@pytest.mark.parametrize("rules,seats,games", [
    ("classic(match=single)", "expert", 1000),
    ("classic", "expert(error=0.05)", 60),
    ("classic(match=single)", "expert(error=0.2)", 30),
    ("ace-low(match=single)", "expert", 1000),
    ("ace-low(players=6,jokers=2,match=single)", "expert(error=0.1)", 60),
    ("italian", "expert", 600),
    ("jokers", "expert", 120),
    ("classic(players=7,stock_empty=ends-hand,match=single)", "expert(error=0.3)", 300),
])
def test_thousands_of_games_keep_the_invariants(rules, seats, games):
    # the engine verifies after every turn: all cards accounted for (hands + table + stock
    # = deck), the meld list holds exactly the table cards in melds of 3+, a play adds a
    # hand card, a draw/pass/fail leaves the table alone; every game terminates
    r = Rules.parse(rules)
    df = play_games(r, [seats] * r.players, 31, range(games), check=True)
    assert len(df) == games and (df["turns"] > 0).all()
    P = r.players
    left = df[[f"cards_left_{i}" for i in range(P)]].to_numpy()
    emptied = df["end"] == "emptied"
    if r.match_kind == "single":
        assert (left[emptied.to_numpy(), :].min(axis=1) == 0).all()
        assert (left[~emptied.to_numpy(), :].min(axis=1) > 0).all()


def test_fallible_count_of_dissolved_melds():
    from fastmach.core.cards import parse_cards as p
    old = [p("3H 4H 5H"), p("6H 7H 8H"), p("8S 8D 8C")]
    # extending and merging keep melds; splitting or borrowing breaks them
    assert _engine.dissolved(old, old) == 0
    assert _engine.dissolved(old, [p("3H 4H 5H 6H 7H 8H 9H"), p("8S 8D 8C")]) == 0
    assert _engine.dissolved(old, [p("3H 4H 5H"), p("6H 7H"), p("8H 8S 8D 8C")]) == 1
    assert _engine.dissolved(old, [p("3H 4H 5H 6H"), p("7H 8H 9H"), p("8S 8D 8C 8H")]) == 1
    assert _engine.dissolved(old, [p("3H 4H"), p("5H 6H 7H"), p("8H 8S 8D"), p("8C")]) == 3
