"""Skill in the report: the skill trace's deal-clustered intervals on planted truths, the
ceiling's rule comparisons, the ladder's rated strategies, the [skill] table of a study,
the report's skill section, and `fastmach compare --lineup strong`."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fastmach.analysis import skill as sk
from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.study import Study

ROOT = Path(__file__).resolve().parents[2]
STEP = sk.trace_lineup(1, 4)  # search(budget=2) against three search(budget=1)


def rotated_hands(lineup, deals, p_of_deal, rng, rules="jokers", seed=7, hands=1):
    """Hand rows of ``lineup`` in its rotations on ``deals`` deals (``hands`` per rotation):
    in deal ``d`` the lone seat (``lineup[0]``) wins each hand with chance ``p_of_deal[d]``,
    else one of the other seats at random; the rotations of a deal share its chance, so
    the hands of a deal are correlated."""
    n = len(lineup)
    d = np.repeat(np.arange(deals), n * hands)
    rot = np.tile(np.repeat(np.arange(n), hands), deals)
    lone = (-rot) % n  # seat i plays lineup[(i + rot) % n]: the lone seat is n - rot
    other = (lone + 1 + rng.integers(0, n - 1, size=len(d))) % n
    win = np.where(rng.random(len(d)) < np.asarray(p_of_deal)[d], lone, other)
    df = pd.DataFrame({"rules": rules, "players": n, "lineup": ",".join(lineup),
                       "cell": f"{rules}|{','.join(lineup)}", "seed": seed,
                       "replicate": d, "rotation": rot,
                       "hand": np.tile(np.arange(hands), deals * n)})
    for i in range(n):
        df[f"strategy_{i}"] = np.asarray(lineup, dtype=object)[(i + rot) % n]
        df[f"win_share_{i}"] = (win == i).astype(float)
    return df


def deal_chances(rng, deals, mean, concentration=2.0):
    """Per-deal chances of the lone seat, Beta with the given mean (strong deal effect)."""
    return rng.beta(mean * concentration, (1 - mean) * concentration, size=deals)


# ----------------------------------------------------------------------------- the trace

def test_trace_interval_covers_the_planted_share_about_95_percent_of_the_time():
    rng = np.random.default_rng(11)
    truth, covered, naive = 0.40, 0, 0
    reps = 100
    for _ in range(reps):
        h = rotated_hands(STEP, 40, deal_chances(rng, 40, truth, 0.5), rng, hands=2)
        r = sk.seat_share(h, STEP[0], STEP[1])  # the trace's figure (next test: the same)
        covered += r["lo"] <= truth <= r["hi"]
        # the same hands with every hand its own deal: the interval ignores the deal effect
        alone = sk.seat_share(h.assign(replicate=np.arange(len(h))), STEP[0], STEP[1])
        naive += alone["lo"] <= truth <= alone["hi"]
    assert 0.89 <= covered / reps <= 0.99
    assert naive / reps < 0.8  # clustering by deal is what covers


def test_trace_interval_is_deal_clustered_copies_of_a_deal_add_no_information():
    rng = np.random.default_rng(5)
    h = rotated_hands(STEP, 60, deal_chances(rng, 60, 0.5), rng)
    once = sk.trace(h).iloc[0]
    direct = sk.seat_share(h, STEP[0], STEP[1])
    assert (once["lo"], once["hi"]) == (direct["lo"], direct["hi"])
    twice = sk.trace(pd.concat([h, h.assign(hand=1)], ignore_index=True)).iloc[0]
    assert twice["win_share"] == pytest.approx(once["win_share"])
    assert twice["hi"] - twice["lo"] == pytest.approx(once["hi"] - once["lo"], rel=0.05)
    as_deals = sk.seat_share(pd.concat([h, h.assign(replicate=h["replicate"] + 1000)]),
                             STEP[0], STEP[1])
    assert as_deals["hi"] - as_deals["lo"] < 0.8 * (once["hi"] - once["lo"])


def test_trace_names_each_doubling_and_says_where_it_pays():
    rng = np.random.default_rng(2)
    pays = rotated_hands(sk.trace_lineup(1, 4), 80, np.full(80, 0.6), rng)
    flat = rotated_hands(sk.trace_lineup(2, 4), 80, np.full(80, 0.25), rng)
    t = sk.trace(pd.concat([pays, flat], ignore_index=True))
    assert list(t["budget"]) == [1, 2]
    assert list(t["strategy"]) == ["search(budget=2)", "search(budget=4)"]
    assert list(t["opponent"]) == ["search(budget=1)", "search(budget=2)"]
    assert list(t["pays"]) == [1, 0]
    assert t["fair"].tolist() == pytest.approx([0.25, 0.25])
    assert t["p_adjusted"].iloc[0] < 0.05 <= t["p_adjusted"].iloc[1]


def test_trace_with_rotations_splitting_every_deal_evenly_is_no_edge():
    # identical play: each rotation of a deal has the same winning seat, so the lone seat
    # wins exactly one hand of four in every deal: a zero edge with zero error
    rows = rotated_hands(STEP, 10, np.zeros(10), np.random.default_rng(0))
    for d in range(10):
        for rot in range(4):
            sel = (rows["replicate"] == d) & (rows["rotation"] == rot)
            for i in range(4):
                rows.loc[sel, f"win_share_{i}"] = float(i == d % 4)
    r = sk.trace(rows).iloc[0]
    assert r["edge"] == pytest.approx(0.0) and r["p_value"] == 1.0 and r["pays"] == 0


def test_a_lineup_that_is_no_doubling_is_not_a_trace_step():
    rng = np.random.default_rng(1)
    h = rotated_hands(("search(budget=4)",) + ("search(budget=1)",) * 3, 5,
                      np.full(5, 0.5), rng)
    assert sk.trace(h).empty


# ----------------------------------------------------------------------------- ceiling

def test_ceiling_effect_says_more_only_where_the_paired_interval_allows():
    rng = np.random.default_rng(8)
    lu = sk.lone_lineup("strong", "expert", 4)
    base = rotated_hands(lu, 60, np.full(60, 0.5), rng, rules="jokers")
    more = rotated_hands(lu, 60, np.full(60, 0.8), rng, rules="jokers(jokers=0)")
    same = rotated_hands(lu, 60, np.full(60, 0.5), rng, rules="jokers(decks=3)")
    e = sk.ceiling_effects(pd.concat([base, more, same], ignore_index=True),
                           [("jokers(jokers=0)", "jokers"), ("jokers(decks=3)", "jokers")],
                           ["strong"])
    got = dict(zip(e["variant"], e["word"]))
    assert got == {"jokers(jokers=0)": "more", "jokers(decks=3)": "no clear change"}
    r = e.set_index("variant").loc["jokers(jokers=0)"]
    assert r["lo"] < 0.3 < r["hi"] and r["pairs"] == 60


def test_ceiling_reports_the_lone_seat_against_the_fair_share():
    rng = np.random.default_rng(6)
    h = rotated_hands(sk.lone_lineup("clairvoyant", "expert", 4), 50, np.full(50, 0.7), rng)
    c = sk.ceiling(h, ["clairvoyant", "strong"])
    assert list(c["strategy"]) == ["clairvoyant"]  # strong never sat: no row
    r = c.iloc[0]
    assert r["lo"] < 0.7 < r["hi"] and r["fair"] == pytest.approx(0.25)
    assert r["edge"] == pytest.approx(r["win_share"] - 0.25)


def test_ladder_rates_only_strategies_connected_to_the_expert():
    rng = np.random.default_rng(3)
    mixed = rotated_hands(sk.lone_lineup("strong", "expert", 4), 30, np.full(30, 0.6), rng)
    step = rotated_hands(STEP, 30, np.full(30, 0.3), rng)
    hands = pd.concat([mixed, step], ignore_index=True)
    assert sk.rated_strategies(hands) == ["expert", "strong"]
    ratings, _ = sk.ladders(hands, resamples=20)
    assert set(ratings["strategy"]) == {"expert", "strong"}
    assert ratings.set_index("strategy").loc["strong", "rating"] > 0


# ----------------------------------------------------------------------------- the study

def test_default_study_parses_with_the_strong_lineup_and_its_skill_runs():
    from fastmach.study.skill_runs import skill_studies

    s = Study.from_toml(ROOT / "simulations" / "balance.toml")
    assert ("strong",) in s.lineup and ("expert",) in s.lineup
    runs = skill_studies(s)
    assert runs and all(r.seed == s.seed and r.rotate for r in runs)
    lineups = {lu for r in runs for lu in r.lineup}
    assert ("strong", "expert", "expert", "expert") in lineups
    assert ("clairvoyant", "expert", "expert", "expert") in lineups
    # the trace's first step: one search with budget 2 against three with budget 1
    assert ("search(budget=2)", "search(budget=1)", "search(budget=1)", "search(budget=1)") in lineups
    assert not any("budget=4" in name for lu in lineups for name in lu)


def test_skill_table_changes_leave_the_grid_identity_alone(tmp_path):
    text = (ROOT / "simulations" / "example.toml").read_text()
    with_skill = Study.from_toml(text + '\n[skill]\nceiling = ["strong"]\n')
    assert with_skill == Study.from_toml(text)
    assert with_skill.to_toml() == Study.from_toml(text).to_toml()


@pytest.mark.parametrize("table, needle", [
    ('ceiling = ["nobody"]', r"\[skill\] ceiling: unknown strategy 'nobody'"),
    ('budgets = [0]', r"\[skill\] budgets: expected a list of integers"),
    ('colour = 1', r"\[skill\] colour: unknown key"),
    ('games = 5', r"\[skill\]: nothing to run"),
    ('ceiling = ["expert"]', r"\[skill\] ceiling: 'expert' is the strategy"),
])
def test_bad_skill_table_names_file_line_and_key(tmp_path, table, needle):
    f = tmp_path / "s.toml"
    f.write_text((ROOT / "simulations" / "example.toml").read_text() + f"\n[skill]\n{table}\n")
    with pytest.raises(FastmachError, match=needle) as e:
        Study.from_toml(f)
    assert str(f) in str(e.value) and "line" in str(e.value)


# ----------------------------------------------------------------------------- the report

class _Relabelled:
    """The engine with every seat played by the expert, the rows labelled with the seats
    asked for (the report's shape without the cost of strong, search or clairvoyant);
    each rules set is played once and its rows reused."""

    def __init__(self):
        self.played = {}

    def __call__(self, rules, seats, seed, replicates, hands=False):
        from fastmach.engine import play_games

        key = (str(rules), len(seats), seed, tuple(replicates))
        if key not in self.played:
            self.played[key] = play_games(rules, ["expert"] * len(seats), seed, replicates,
                                          hands=True)
        games, rows = (f.copy() for f in self.played[key])
        for frame in (games, rows):
            for i, s in enumerate(seats):
                frame[f"strategy_{i}"] = s
        return games, rows


TINY = ('[study]\nname = "tiny"\nseed = 3\ngames = 3\n[grid]\nrules = ["jokers", '
        '"jokers(jokers=0)"]\nplayers = [2]\nlineup = [["expert"], ["strong"], ["expert", '
        '"beginner"]]\nrotate = true\n[skill]\nceiling = ["strong", "clairvoyant"]\n'
        'budgets = [1]\n')


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A tiny study with its skill runs, stored as `fastmach sweep` stores them."""
    from fastmach.study.skill_runs import execute_skill
    from fastmach.study.driver import execute

    study = Study.from_toml(TINY)
    out = tmp_path_factory.mktemp("skill") / "res"
    run = dict(workers=0, engine=_Relabelled(), progress=False)
    execute(study, out, **run)
    assert len(execute_skill(study, out, **run)) == 1
    return out


def test_sweep_stores_the_skill_runs_apart_from_the_grid(stored):
    from fastmach.study.skill_runs import read_skill
    from fastmach.study.results import read_hands

    assert (stored / "_skill" / "2p" / "_study.json").is_file()
    grid, extra = read_hands(stored), read_skill(stored)
    assert set(grid["lineup"]) == {"expert", "strong", "expert,beginner"}
    assert set(extra["lineup"]) == {"strong,expert", "clairvoyant,expert",
                                    "search(budget=2),search(budget=1)"}
    assert set(extra["replicate"]) == set(grid["replicate"])  # the same deals


def test_skill_section_renders_from_what_the_study_stored(stored, tmp_path):
    import jinja2

    from fastmach.report import TEMPLATES, load_results
    from fastmach.report import players as section_of
    from fastmach.report.plots import short_labels

    games, hands, _ = load_results(stored)
    ctx = section_of.section(stored, games, hands, short_labels(hands["rules"]), tmp_path,
                             resamples=20)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             undefined=jinja2.StrictUndefined, autoescape=True)
    page = env.get_template("_skill.html.j2").render(skill=ctx)
    for title in ("The players: skill and strong play", "How much skill can take",
                  "Table: Skill trace", "Table: Ladder of ratings", "Balance under strong play",
                  "Does a rule change make skill matter more?", "the skill trace"):
        assert title in page, title
    assert "jokers=0, 2 players, one seat against 1 expert: clairvoyant (sees every card)" \
        " wins" in page
    heads = re.findall(r"<h[23][^>]*>([^<]*)</h[23]>", page)
    assert len(heads) == len(set(heads))  # no heading twice
    assert 'id="fig-skill_trace"' in page and (tmp_path / "figures" / "skill_trace.png").is_file()
    for name in section_of.TABLES:
        assert (tmp_path / "tables" / f"{name}.csv").is_file()
    trace = pd.read_csv(tmp_path / "tables" / "skill_trace.csv")
    assert list(trace["budget"]) == [1, 1] and (trace["pays"] == 0).all()  # same play
    card = pd.read_csv(tmp_path / "tables" / "strong_play.csv")
    assert set(card["lineup"]) == {"expert", "strong"}
    ladder = pd.read_csv(tmp_path / "tables" / "skill_ladder.csv")
    assert {"expert", "beginner", "strong", "clairvoyant"} == set(ladder["strategy"])
    assert "search(budget=2)" not in set(ladder["strategy"])  # never seated with an expert


def test_skill_section_announces_only_what_the_study_ran(stored, tmp_path):
    """Without skill runs there is no trace and no ceiling: the section says nothing of
    them and writes no empty table."""
    import shutil

    from fastmach.report import load_results
    from fastmach.report import players as section_of
    from fastmach.report.plots import short_labels

    grid_only = tmp_path / "grid"
    shutil.copytree(stored, grid_only, ignore=shutil.ignore_patterns("_skill"))
    games, hands, _ = load_results(grid_only)
    ctx = section_of.section(grid_only, games, hands, short_labels(hands["rules"]),
                             tmp_path / "out", resamples=20)
    assert "trace" not in ctx["intro"] and "who beats whom" in ctx["intro"]
    assert ctx["figure"] is None and not ctx["sentences"]["trace"]
    assert "tables/skill_trace.csv" not in ctx["csvs"]
    assert not (tmp_path / "out" / "tables" / "skill_trace.csv").exists()
    for csv in (tmp_path / "out" / "tables").glob("*.csv"):
        assert len(pd.read_csv(csv)) > 0, csv.name


def test_report_templates_hold_the_skill_section():
    from fastmach.report import TEMPLATES

    assert '{% include "_skill.html.j2" %}' in (TEMPLATES / "report.html.j2").read_text()
    assert "include" not in (TEMPLATES / "summary.md.j2").read_text()  # the first page only


# ----------------------------------------------------------------------------- compare

def test_compare_takes_the_strong_lineup():
    from fastmach.tools.comparison import compare

    c = compare(["jokers", "jokers(jokers=0)"], [2], ["strong"], games=2, workers=0)
    assert c.study.lineup == (("strong",),)
    assert set(c.effects["lineup"].dropna()) == {"strong"}
    assert "line-ups strong" in c.header()


def test_compare_with_a_bad_lineup_is_one_line_on_stderr_and_exit_2(capsys):
    code = main(["compare", "jokers", "jokers(jokers=0)", "--players", "2", "--lineup",
                 "strong,nobody", "--games", "2", "--workers", "0", "-q"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--lineup 'strong,nobody'" in err
    assert "unknown strategy 'nobody'" in err
