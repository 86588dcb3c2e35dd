"""`fastmach compare`: the study it plans, the words it prints, resuming and sample size.

The games are real (small counts of fast cells). The tables of effects and scorecards are
those of fastmach.analysis.stats; the tests of the words and of the printed table feed them rows of
the effects.csv schema built by hand, so that every branch of the wording is reached.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fastmach import cli
from fastmach.tools.comparison import (
    METRICS, NO_CHANGE, UNEQUAL, comparison_table, compare, format_table, pairs_of, parse_precision,
    plan_study, rules_columns, word,
)
from fastmach.errors import FastmachError
from fastmach.study.results import read_results
from fastmach.study.driver import run_study


# ----------------------------------------------------------------------------- the study

def test_study_is_rules_x_players_x_lineups_rotated_on_common_deals():
    s = plan_study(["classic", "classic(ace=low-only)"], [3, 4],
                   ["expert", "expert,beginner"], games=150)
    assert s.rotate and s.games == 150
    assert [(c.rules_text, c.players, c.lineup) for c in s.cells] == [
        (r, p, lu) for r in ("classic", "classic(ace=low-only)") for p in (3, 4)
        for lu in (("expert",), ("expert", "beginner"))]
    assert rules_columns(s) == ["classic", "classic(ace=low-only)"]
    assert pairs_of(s) == [("classic(ace=low-only)", "classic")]


def test_defaults_are_players_2_to_5_and_an_expert_and_a_mixed_lineup():
    s = plan_study(["classic", "classic(jokers=2)", "classic(opening_points=36)"])
    assert s.players == (2, 3, 4, 5)
    assert s.lineup == (("expert",), ("expert", "beginner"))
    assert pairs_of(s) == [("classic(jokers=2)", "classic"),
                           ("classic(opening_points=36)", "classic")]


def test_default_players_are_clipped_to_every_source_range():
    # jokers: "pour 2 à 4 joueurs"; a rule set beyond its source still plays when asked
    assert plan_study(["classic", "jokers"]).players == (2, 3, 4)
    assert plan_study(["classic", "jokers"], [5]).players == (5,)


def test_default_players_seat_the_longest_lineup():
    s = plan_study(["classic", "classic(ace=low-only)"],
                   lineups=["expert", "expert,beginner,intermediate"])
    assert s.players == (3, 4, 5)


def test_default_players_are_clipped_to_what_every_rule_set_can_deal():
    # 21 cards each: 104 cards deal at most 4 hands
    s = plan_study(["classic", "classic(hand_size=21)"])
    assert s.players == (2, 3, 4)
    with pytest.raises(FastmachError, match=r"players=5: impossible under "
                                            r"classic\(hand_size=21\)"):
        plan_study(["classic", "classic(hand_size=21)"], [4, 5])


@pytest.mark.parametrize("rules, players, lineups, message", [
    (["classic"], None, None, "two or more rule sets"),
    ("classic", None, None, "a list of two or more"),
    (["classic", "clasic"], None, None, "clasic"),
    (["classic", "classic(jokers=9)"], None, None, "jokers"),
    (["classic", "classic"], None, None, "duplicate"),
    (["ace-low", "ace-low(players=6)"], None, None, "are the same once each cell's player"),
    (["classic", "classic(ace=low-only)"], [1], None, "2..8"),
    (["classic", "classic(ace=low-only)"], [3], ["expert,nobody"], "nobody"),
    (["classic", "classic(ace=low-only)"], [2], ["expert,beginner,expert"], "more strategies"),
    (["classic", "classic(ace=low-only)"], None, ["expert,"], "lineup='expert,': empty"),
    (["classic", "classic(ace=low-only)"], None, [5], "lineup: expected"),
])
def test_bad_input_names_what_is_wrong(rules, players, lineups, message):
    with pytest.raises(FastmachError, match=message):
        plan_study(rules, players, lineups)


def test_replicate_r_is_the_same_deal_in_every_cell(tmp_path):
    """Common random numbers: same seed and replicates everywhere, and the deal (the
    first player, drawn with the deck) is the same for the two rule sets."""
    from fastmach.study.driver import execute
    s = plan_study(["classic", "classic(ace=low-only)"], [3], ["expert", "expert,beginner"],
                   games=6)
    execute(s, tmp_path / "r", workers=0, progress=False)
    df = read_results(tmp_path / "r", s)
    assert df["seed"].nunique() == 1
    for _, g in df.groupby(["cell", "rotation"]):
        assert list(g["replicate"]) == list(range(6))
    order = ["lineup", "rotation", "replicate"]
    by_rules = {r: g.sort_values(order)["first_player"].to_numpy()
                for r, g in df.groupby("rules")}
    assert np.array_equal(by_rules["classic"], by_rules["classic(ace=low-only)"])


# ----------------------------------------------------------------------------- words

@pytest.mark.parametrize("metric, diff, lo, hi, p, expected", [
    ("turns_per_hand", 2.0, 0.5, 3.5, 0.001, "longer"),
    ("turns_per_hand", -2.0, -3.5, -0.5, 0.001, "shorter"),
    ("turns_per_hand", 2.0, -0.1, 4.1, 0.001, NO_CHANGE),   # interval contains 0
    ("turns_per_hand", 2.0, 0.5, 3.5, 0.2, NO_CHANGE),      # adjusted test does not reject
    ("turns_per_hand", 0.0, 0.0, 0.0, math.nan, NO_CHANGE),  # identical outcomes
    ("stock_out_per_hand", 0.02, 0.01, 0.03, 0.0, "more"),
    ("blocked", -0.02, -0.03, -0.01, 0.0, "fewer"),
    ("hands_per_game", 1.0, 0.5, 1.5, 0.0, "more"),
    ("first_seat_edge", -0.02, -0.03, -0.01, 0.0, "smaller"),
    ("seat_spread", 0.02, 0.01, 0.03, 0.0, "wider"),
    ("skill_gap", 0.02, 0.01, 0.03, 0.0, "larger"),
])
def test_a_word_only_where_the_adjusted_interval_excludes_zero(metric, diff, lo, hi, p,
                                                               expected):
    assert word(metric, diff, lo, hi, p) == expected


def _effects(rows):
    """effects.csv rows: (variant, baseline, players, lineup, metric, diff, lo, hi,
    p_adjusted, pairs); the baseline value is 10 and the variant's 10 + diff."""
    cols = ["variant", "baseline", "players", "lineup", "metric", "diff", "lo", "hi",
            "p_adjusted", "pairs"]
    df = pd.DataFrame([dict(zip(cols, r)) for r in rows], columns=cols)
    return df.assign(rel_diff=df["diff"] / 10.0, p_value=df["p_adjusted"],
                     baseline_value=10.0, variant_value=10.0 + df["diff"])


V, B = "classic(ace=low-only)", "classic"
NAN = math.nan


def test_table_breaks_down_only_where_the_strata_disagree():
    eff = _effects([
        (V, B, NAN, NAN, "turns_per_hand", 3.0, 2.0, 4.0, 0.0, 200),
        (V, B, 3, "expert", "turns_per_hand", 3.0, 1.5, 4.5, 0.0, 100),
        (V, B, 4, "expert", "turns_per_hand", 3.0, -0.5, 6.5, 0.3, 100),
        (V, B, NAN, NAN, "stock_out_per_hand", 0.0, -0.01, 0.01, 1.0, 200),
        (V, B, 3, "expert", "stock_out_per_hand", 0.0, -0.02, 0.02, 1.0, 100),
        (V, B, 4, "expert", "stock_out_per_hand", 0.0, -0.02, 0.02, 1.0, 100),
    ])
    t = comparison_table(eff, [(V, B)])
    turns = t[t["metric"] == "turns_per_hand"]
    assert list(turns["word"]) == ["longer", "longer", NO_CHANGE]
    assert list(turns["players"].fillna(0).astype(int)) == [0, 3, 4]
    assert list(turns["variant_value"]) == [13.0, 13.0, 13.0]
    stock = t[t["metric"] == "stock_out_per_hand"]
    assert len(stock) == 1 and stock["word"].iloc[0] == NO_CHANGE
    text = format_table(t)
    assert text.count("longer") == 2
    assert "+3.0 [+2.0, +4.0]" in text and "+0.0 pp [-1.0, +1.0]" in text
    assert "3p expert" in text and "4p expert" in text


def test_a_pooled_effect_that_changes_sign_between_the_rows_gets_no_figure():
    """Shorter at 3 players, longer at 5: the pooled "+4.6 longer" (weighted by the
    rotations, so by the 5-player rows) is no effect of the rule; the row says so and the
    rows follow."""
    eff = _effects([
        (V, B, NAN, NAN, "turns_per_hand", 4.6, 3.7, 5.5, 0.0, 3200),
        (V, B, 3, "expert", "turns_per_hand", -7.8, -9.5, -6.0, 0.0, 600),
        (V, B, 3, "expert,beginner", "turns_per_hand", -6.8, -8.2, -5.4, 0.0, 600),
        (V, B, 5, "expert", "turns_per_hand", 20.9, 18.9, 22.8, 0.0, 400),
        (V, B, 5, "expert,beginner", "turns_per_hand", 18.2, 16.0, 20.4, 0.0, 1600),
    ])
    t = comparison_table(eff, [(V, B)])
    assert list(t["word"]) == [UNEQUAL, "shorter", "shorter", "longer", "longer"]
    assert t["diff"].isna().iloc[0] and t["pairs"].iloc[0] == 3200
    text = format_table(t)
    assert "+4.6" not in text and "each" in text and text.count("longer") == 2


def test_a_pooled_effect_the_report_would_not_pool_gets_no_figure():
    """One direction everywhere, but effects_by_players says the size differs across the
    player counts (one_effect = 0 on its pooled row): no pooled figure either."""
    eff = _effects([
        (V, B, NAN, NAN, "stock_out_per_hand", 0.06, 0.047, 0.075, 0.0, 3200),
        (V, B, 3, "expert", "stock_out_per_hand", 0.0, -0.01, 0.01, 1.0, 1600),
        (V, B, 5, "expert", "stock_out_per_hand", 0.16, 0.12, 0.20, 0.0, 1600),
    ])
    by_players = pd.DataFrame([
        {"variant": V, "baseline": B, "players": NAN, "metric": "stock_out_per_hand",
         "one_effect": 0},
        {"variant": V, "baseline": B, "players": 3, "metric": "stock_out_per_hand",
         "one_effect": 1}])
    t = comparison_table(eff, [(V, B)], by_players=by_players)
    assert list(t["word"]) == [UNEQUAL, NO_CHANGE, "more"]
    assert list(comparison_table(eff, [(V, B)])["word"]) == ["more", NO_CHANGE, "more"]
    pooled = by_players.assign(one_effect=1)
    assert list(comparison_table(eff, [(V, B)], by_players=pooled)["word"]) == [
        "more", NO_CHANGE, "more"]


def test_a_metric_without_pooled_row_shows_its_strata_only_with_a_word():
    quiet = _effects([(V, B, p, "expert", "seat_spread", 0.01, -0.02, 0.04, 1.0, 100)
                      for p in (3, 4)])
    t = comparison_table(quiet, [(V, B)])
    assert len(t) == 1 and t["word"].iloc[0] == NO_CHANGE and t["pairs"].iloc[0] == 200
    assert "each" in format_table(t)
    loud = _effects([(V, B, 3, "expert", "seat_spread", 0.05, 0.02, 0.08, 0.01, 100),
                     (V, B, 4, "expert", "seat_spread", 0.01, -0.02, 0.04, 1.0, 100)])
    t = comparison_table(loud, [(V, B)])
    assert list(t["word"]) == ["wider", NO_CHANGE]


def test_printed_words_follow_the_intervals():
    """Whatever the numbers, a printed line carries a direction word only when its
    interval excludes 0 and its adjusted p-value is below 0.05."""
    rng = np.random.default_rng(3)
    names = [m for m in METRICS if m != "seat_spread"]
    for i in range(200):
        d = rng.normal(0, 2)
        half = abs(rng.normal(1.5, 1))
        r = (V, B, NAN, NAN, names[i % len(names)], d, d - half, d + half,
             rng.uniform(0, 0.1), 100)
        t = comparison_table(_effects([r]), [(V, B)])
        w = t["word"].iloc[0]
        m = METRICS[r[4]]
        if (r[6] > 0 or r[7] < 0) and r[8] < 0.05:
            assert w == (m.up if r[5] > 0 else m.down)
        else:
            assert w == NO_CHANGE
        line = format_table(t).splitlines()[3]
        assert line.endswith(w)


# ----------------------------------------------------------------------------- precision

def test_precision_parsing():
    assert parse_precision(0.5) == {"turns_per_hand": 0.5}
    assert parse_precision(["0.5", "win_share=0.03"]) == {
        "turns_per_hand": 0.5, "win_share": 0.03}
    for bad, msg in ((["x=1"], "unknown figure"), (["abc"], "expected a number"),
                     ([0], "> 0"), (["turns_per_hand=-1"], "> 0")):
        with pytest.raises(FastmachError, match=msg):
            parse_precision(bad)


PREC = dict(players=[2], lineups=["expert"], chunk=20, workers=0, report=False)


def test_precision_grows_to_the_study_precision_matches_a_fixed_run_and_resumes(tmp_path):
    """The study-level precision of fastmach.study.precision: deals are added a chunk at a time
    until every cell's turns per hand is known to +-2 turns; a rerun resumes."""
    from fastmach.study import precision
    from fastmach.study.driver import execute
    from fastmach.study.results import read_hands
    rules = ["classic", "classic(ace=low-only)"]
    c = compare(rules, precision=2.0, max_games=400, out=tmp_path / "p", **PREC)
    n = c.study.games
    assert 20 < n < 400 and n % 20 == 0 and not c.notes
    hands = read_hands(tmp_path / "p" / "results", c.study)
    assert (precision.half_widths(hands)["turns_per_hand"] <= 2.0).all()
    # one chunk fewer was not enough
    fewer = precision.half_widths(hands[hands["replicate"] < n - 20])
    assert (fewer["turns_per_hand"] > 2.0).any()
    # the rows are those of a fixed-size run of the same length
    fixed = plan_study(rules, [2], ["expert"], games=n, chunk=20)
    execute(fixed, tmp_path / "f", workers=0, progress=False)
    pd.testing.assert_frame_equal(read_results(tmp_path / "p" / "results", c.study),
                                  read_results(tmp_path / "f", fixed))
    # a rerun resumes: nothing is played, the answer is the same
    stamps = {q.name: q.stat().st_mtime_ns for q in (tmp_path / "p" / "results" / "chunks"
                                                     ).iterdir()}
    again = compare(rules, precision=2.0, max_games=400, out=tmp_path / "p", **PREC)
    assert again.study.games == n
    assert stamps == {q.name: q.stat().st_mtime_ns
                      for q in (tmp_path / "p" / "results" / "chunks").iterdir()}
    pd.testing.assert_frame_equal(again.effects, c.effects)


def test_a_precision_sweep_run_again_resumes_where_it_stopped(tmp_path, capsys):
    """fastmach sweep on a study with a precision: the second run starts from the deals
    the first reached (the manifest holds the grown study) instead of refusing it."""
    toml = tmp_path / "p.toml"
    toml.write_text('[study]\nname = "p"\nseed = 3\ngames = 20\nchunk = 20\n'
                    'precision = { turns_per_hand = 2.0 }\nmax_games = 400\n\n[grid]\n'
                    'rules = ["classic"]\nplayers = [2]\nlineup = [["expert"]]\n')
    argv = ["sweep", str(toml), "--out", str(tmp_path / "out"), "--workers", "0", "-q"]
    assert cli.main(argv) == 0
    first = capsys.readouterr()
    assert cli.main(argv) == 0
    second = capsys.readouterr()
    reached = [ln for ln in first.err.splitlines() if ln.startswith("precision reached")]
    assert reached and reached == [ln for ln in second.err.splitlines()
                                   if ln.startswith("precision reached")]
    assert "played 0 " in second.out


def test_precision_stops_at_the_cap_and_says_so():
    c = compare(["classic", "classic(ace=low-only)"], precision=0.01, max_games=40, **PREC)
    assert c.study.games == 40
    assert c.notes and "not reached by max_games = 40 deals in 2 of 2 cells" in c.notes[0]
    with pytest.raises(FastmachError, match="max_games: expected a multiple of 20"):
        compare(["classic", "classic(ace=low-only)"], precision=1.0, max_games=50, **PREC)


# ----------------------------------------------------------------------------- CLI

@pytest.mark.parametrize("argv, message", [
    (["compare", "classic"], "two or more rule sets"),
    (["compare", "classic", "classic(ace=low-only)", "--players", "3,x"], "--players"),
    (["compare", "classic", "classic(ace=low-only)", "--games", "0"], "--games"),
    (["compare", "classic", "jokers", "--seed", "-1"], "--seed: expected an integer 0..2**63-1"),
    (["compare", "classic", "classic(ace=low-only)", "--precision", "turns=1"],
     "unknown figure"),
])
def test_cli_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_max_games_without_precision_is_named_not_ignored(capsys):
    assert cli.main(["compare", "classic", "jokers", "--games", "5", "--max-games", "0",
                     "--workers", "0", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--max-games 0: caps the deals per cell of a precision run" in err
    with pytest.raises(FastmachError, match=r"^max_games=40: caps the deals per cell"):
        compare(["classic", "classic(ace=low-only)"], games=5, max_games=40, **PREC)


def test_cli_games_and_precision_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["compare", "classic", "jokers", "--games", "5", "--precision", "1"])
    assert e.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


# ----------------------------------------------------------------------------- end to end

ARGV = ["compare", "classic", "classic(ace=low-only)", "--players", "3,4", "--lineup",
        "expert", "--lineup", "expert,beginner", "--games", "150", "--workers", "0", "-q"]


def _cli(argv, capsys) -> str:
    assert cli.main(argv) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The issue's command, run twice on the same directory: (out, first and second
    stdout, chunk files' (inode, mtime) after the first run)."""
    import contextlib
    import io
    out = tmp_path_factory.mktemp("compare") / "cmp"
    texts, stamps = [], None
    for i in range(2):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert cli.main(ARGV + ["--out", str(out)]) == 0
        texts.append(buf.getvalue())
        if i == 0:
            stamps = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
                      for p in (out / "results" / "chunks").iterdir()}
    return out, texts, stamps


def _per_cell(games: pd.DataFrame, hands: pd.DataFrame) -> pd.DataFrame:
    """Sums per (rules, players, lineup, replicate): written with plain pandas."""
    h = hands.copy()
    p = h["players"].to_numpy()
    ws = np.stack([h[f"win_share_{i}"].fillna(0).to_numpy(float) for i in range(4)], 1)
    first = ws[np.arange(len(h)), h["first_player"].to_numpy()]
    h["edge"] = first - ws.sum(1) / p
    h["n"] = 1
    h["stock"] = h["stock_exhausted"].astype(float)
    h["blk"] = (h["end"] != "emptied").astype(float)
    keys = ["rules", "players", "lineup", "replicate"]
    s = h.groupby(keys)[["turns", "n", "stock", "blk", "edge"]].sum()
    s["games"] = games.groupby(keys).size()
    return s


METRIC_SUMS = {"turns_per_hand": ("turns", "n"), "stock_out_per_hand": ("stock", "n"),
               "blocked": ("blk", "n"), "first_seat_edge": ("edge", "n"),
               "hands_per_game": ("n", "games")}


def test_compare_writes_a_study_store_and_the_report(run):
    import fastmach
    out, texts, _ = run
    games = pd.read_parquet(out / "results")
    hands = fastmach.read_hands(out / "results")
    # 150 deals x (1 + 3 rotations at 3 players, 1 + 2 at 4) x 2 rule sets
    assert len(games) == 150 * 7 * 2
    assert len(hands) == int(games["hands"].sum())
    assert set(games["rules"]) == {"classic", "classic(ace=low-only)"}
    for name in ("index.html", "tables/effects.csv", "tables/scorecard.csv"):
        assert (out / "report" / name).is_file()
    assert "fastmach compare classic" in (out / "report" / "index.html").read_text()


#: Metrics whose interval widths are checked against the bootstrap (the shares of hands
#: that classic almost never reaches, stock-out and blocked, have no bootstrap spread).
WIDTHS_CHECKED = ("turns_per_hand", "first_seat_edge", "hands_per_game")


def test_effects_csv_agrees_with_a_paired_recomputation_from_raw_rows(run):
    import fastmach
    out, _, _ = run
    games = pd.read_parquet(out / "results")
    hands = fastmach.read_hands(out / "results")
    eff = pd.read_csv(out / "report" / "tables" / "effects.csv")
    assert set(zip(eff["variant"], eff["baseline"])) == {(V, B)}
    s = _per_cell(games, hands)
    rng = np.random.default_rng(11)
    reps = np.arange(150)
    boot = rng.multinomial(150, np.full(150, 1 / 150), size=800).astype(float)
    contexts = [(p, lu) for p in (3, 4) for lu in ("expert", "expert,beginner")]
    for metric, (num, den) in METRIC_SUMS.items():
        pooled_diff, pooled_boot, total = 0.0, np.zeros(len(boot)), 0
        for p, lu in contexts:
            a = s.loc[(B, p, lu)].reindex(reps)
            b = s.loc[(V, p, lu)].reindex(reps)
            va, vb = a[num].sum() / a[den].sum(), b[num].sum() / b[den].sum()
            row = eff[(eff["players"] == p) & (eff["lineup"] == lu)
                      & (eff["metric"] == metric)].iloc[0]
            assert row["baseline_value"] == pytest.approx(va, abs=1e-12)
            assert row["variant_value"] == pytest.approx(vb, abs=1e-12)
            assert row["diff"] == pytest.approx(vb - va, abs=1e-12)
            n = int(a["games"].sum())
            assert row["pairs"] == n
            # the deal-clustered paired bootstrap: resample deals, both rules together
            bd = (boot @ b[num].to_numpy() / (boot @ b[den].to_numpy())
                  - boot @ a[num].to_numpy() / (boot @ a[den].to_numpy()))
            pooled_diff += n * (vb - va)
            pooled_boot += n * bd
            total += n
            width = np.subtract(*np.quantile(bd, [0.975, 0.025]))
            if metric in WIDTHS_CHECKED:
                assert row["hi"] - row["lo"] == pytest.approx(width, rel=0.25)
        row = eff[eff["players"].isna() & (eff["metric"] == metric)].iloc[0]
        assert row["pairs"] == total
        assert row["diff"] == pytest.approx(pooled_diff / total, abs=1e-12)
        if metric in WIDTHS_CHECKED:
            width = np.subtract(*np.quantile(pooled_boot / total, [0.975, 0.025]))
            assert row["hi"] - row["lo"] == pytest.approx(width, rel=0.25)


def test_printed_words_follow_the_intervals_of_effects_csv(run):
    out, texts, _ = run
    eff = pd.read_csv(out / "report" / "tables" / "effects.csv")
    pooled = eff[eff["players"].isna()].set_index("metric")
    seen = 0
    for line in texts[0].splitlines():
        for metric, m in METRICS.items():
            if not line.startswith(m.label + " ") or metric not in pooled.index:
                continue
            r = pooled.loc[metric]
            words = line.split("]")[-1].split()
            w = " ".join(words[1:])
            excludes = r["lo"] > 0 or r["hi"] < 0
            if excludes and r["p_adjusted"] < 0.05:
                assert w == (m.up if r["diff"] > 0 else m.down)
            else:
                assert w == NO_CHANGE
            # the printed interval is effects.csv's, rounded
            scale = 100 if m.unit == "share" else 1
            text = line.split("[")[1].split("]")[0]
            lo, hi = (float(x) for x in text.split(","))
            decimals = len(text.split(",")[0].split(".")[1])
            assert abs(lo - scale * r["lo"]) <= 0.5 * 10 ** -decimals + 1e-12
            assert abs(hi - scale * r["hi"]) <= 0.5 * 10 ** -decimals + 1e-12
            seen += 1
    assert seen == 6  # every metric with a pooled row; the seat spread has none
    # ace low only lengthens the hands here: the word says so
    turns = [ln for ln in texts[0].splitlines() if ln.startswith("turns per hand ")]
    assert turns[0].endswith("longer")


def test_a_rerun_resumes_instead_of_replaying(run):
    out, texts, stamps = run
    now = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
           for p in (out / "results" / "chunks").iterdir()}
    assert now == stamps and len(now) == 28
    import json
    runs = json.loads((out / "results" / "_study.json").read_text())["runs"]
    assert len(runs) == 2 and all(r["finished"] for r in runs)
    assert texts[1] == texts[0]


def test_a_rerun_with_other_settings_is_refused(run, capsys):
    out, _, _ = run
    argv = [a if a != "150" else "200" for a in ARGV] + ["--out", str(out)]
    assert cli.main(argv) == 2
    assert "different study" in capsys.readouterr().err


def test_python_api_returns_effects_scorecard_html_and_the_study(tmp_path):
    import fastmach
    from fastmach.analysis import stats
    c = fastmach.compare(["classic", "classic(ace=low-only)"], players=[2],
                         lineups=["expert,beginner"], games=30, workers=0)
    assert isinstance(c.study, fastmach.Study) and c.study.games == 30
    assert c.study.rules == ("classic", "classic(ace=low-only)") and c.out is None
    assert set(c.effects["metric"]) >= {"turns_per_hand", "skill_gap"}
    assert sorted(c.scorecard["rules"]) == ["classic", "classic(ace=low-only)"]
    # .study replays the same games: the statistics of a fresh run are the same
    games = run_study(c.study, tmp_path / "again", workers=0, progress=False)
    hands = fastmach.read_hands(tmp_path / "again")
    pd.testing.assert_frame_equal(stats.effects(games, hands, c.pairs), c.effects)
    html = c._repr_html_()
    assert "<table" in html and "turns per hand" in html and "classic(ace=low-only)" in html
    assert str(c).splitlines()[0].startswith("2 rule sets on the same 30 deals")


def test_cli_warns_when_a_player_count_leaves_the_source(tmp_path, capsys):
    argv = ["compare", "jokers(match=single)", "jokers(match=single,ace=low-only)",
            "--players", "5", "--lineup", "expert", "--games", "4", "--workers", "0", "-q"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert "outside the 2-4 players of the jokers source" in captured.err
    assert "turns per hand" in captured.out


def test_compare_prints_the_reports_sentences_for_its_pair(run):
    import html as markup
    import re

    out, texts, _ = run
    printed = texts[0].split("Findings (", 1)[1].split("\n", 1)[1]
    printed = printed.split("\nnote: ", 1)[0]
    sentences = [" ".join(x.split()) for x in ("\n" + printed.strip()).split("\n- ")
                 if x.strip()]
    assert any("ace=low-only (against classic) makes hands longer" in s for s in sentences)
    # the report states the same rule's effect per kind of table (no line-ups combined)
    page = markup.unescape((out / "report" / "index.html").read_text())
    section = page.split('id="changes"', 1)[1].split("</ol>", 1)[0]
    items = [" ".join(re.sub(r"<[^>]+>", "", li).split())
             for li in section.split("<li")[1:]]
    assert any("Classic with the ace low only makes" in s and "longer" in s for s in items)
