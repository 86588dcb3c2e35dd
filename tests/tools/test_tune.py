"""fastmach tune: a planted optimum is found; resume and a seed give the same trials; bad
spaces and budgets exit 2 before any game; targets read and judge their metrics."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from fastmach import Rules
from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.tools.tune import load_space, tune
from fastmach.tools.tune import search as search_mod
from fastmach.tools.tune.space import Target

# 2 players, 5 cards each: quick games; match options whose hands per match are exact
# (rotations:N plays N x players hands), so the target's optimum is known by construction.
PLANTED = """
[tune]
name = "planted"
seed = 7
rules = "classic(hand_size=5)"
players = [2]
deals = 4
eta = 2
rungs = 2
fresh_deals = 8
finalists = 2

[space]
match = ["single", "rotations:1", "rotations:2", "rotations:3"]
failed_penalty = "1..3"

[targets]
hands_per_game = "4 +- 0.5"
"""


def _trials(out, failed: bool = False):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    storage = JournalStorage(JournalFileBackend(str(out / "trials.journal")))
    study = optuna.load_study(study_name="planted", storage=storage)
    # a trial killed before its parameters were stored fails and is not one of the trials
    return [(t.params, t.state.name, dict(t.intermediate_values), t.user_attrs.get("rules"))
            for t in study.trials if failed or t.state.name != "FAIL"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The planted tune run once, uninterrupted."""
    out = tmp_path_factory.mktemp("tune") / "whole"
    return out, tune(PLANTED, out, max_games=400)


def test_planted_target_on_hands_per_match_is_found(whole):
    out, a = whole
    assert Rules.parse(a.best).match == "rotations:2"
    assert a.probability == 1.0  # hands per match are exact: no doubt
    table = pd.read_csv(out / "candidates.csv")
    best = table[(table["rank"] == 1) & (table["stage"] == "fresh")].iloc[0]
    assert best["hands_per_game"] == 4.0 and bool(best["meets_hands_per_game"])
    assert best["deals"] == 8
    # every other match option misses the target in the table
    others = table[table["match"] != "rotations:2"]
    assert not others["meets_hands_per_game"].astype(bool).any()
    assert not others["meets_all"].astype(bool).any() and bool(best["meets_all"])
    assert {"rules", "match", "failed_penalty", "turns_per_hand_lo", "p_all"} <= set(table)
    assert (out / "partial_dependence.png").stat().st_size > 0
    assert "best: " in (out / "answer.txt").read_text()


def test_race_gives_pruned_candidates_fewer_deals(whole):
    _, a = whole
    deals = a.search.deals
    assert max(deals.values()) == 8 and min(deals.values()) == 4
    assert deals[a.best] == 8


def test_same_seed_same_trials_and_answer(whole, tmp_path):
    out, a = whole
    b = tune(PLANTED, tmp_path / "b", max_games=400)
    assert _trials(out) == _trials(tmp_path / "b")
    pd.testing.assert_frame_equal(a.table, b.table)


def test_a_finished_tune_run_again_adds_no_trial_and_gives_the_same_answer(whole, tmp_path):
    import shutil
    out, a = whole
    again = tmp_path / "again"
    shutil.copytree(out, again)
    b = tune(PLANTED, again, max_games=400)
    assert _trials(again, failed=True) == _trials(out, failed=True)
    assert (again / "answer.txt").read_text() == (out / "answer.txt").read_text()
    pd.testing.assert_frame_equal(a.table, b.table)


def test_resume_after_a_kill_gives_the_same_trials(whole, tmp_path, monkeypatch):
    out, a = whole
    calls = {"n": 0}
    real = search_mod.Evaluator.__call__

    def dies(self, rules, deals):
        calls["n"] += 1
        if calls["n"] == 6:  # in the middle of a trial's race
            raise KeyboardInterrupt
        return real(self, rules, deals)

    monkeypatch.setattr(search_mod.Evaluator, "__call__", dies)
    with pytest.raises(KeyboardInterrupt):
        tune(PLANTED, tmp_path / "killed", max_games=400)
    assert any(t[1] == "RUNNING" for t in _trials(tmp_path / "killed"))
    monkeypatch.setattr(search_mod.Evaluator, "__call__", real)
    resumed = tune(PLANTED, tmp_path / "killed", max_games=400)
    assert _trials(tmp_path / "killed") == _trials(out)
    pd.testing.assert_frame_equal(resumed.table, a.table)


def test_the_budget_stops_the_search_and_says_so(tmp_path):
    a = tune(PLANTED, tmp_path / "t", max_games=40)
    assert "budget" in a.text
    assert a.search.games + a.fresh_games <= 40


def _space(tmp_path, space: str, targets: str = 'turns_per_hand = "40 +- 3"',
           extra: str = "") -> str:
    p = tmp_path / "space.toml"
    p.write_text(f'[tune]\nname = "x"\nseed = 1\nplayers = [4]\n{extra}\n[space]\n{space}\n'
                 f'[targets]\n{targets}\n', encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("space, targets, extra, words", [
    ('hand_size = "15..9"', 'turns_per_hand = "40 +- 3"', "", "empty range"),
    ('hand_sizes = "9..15"', 'turns_per_hand = "40 +- 3"', "", "hand_sizes"),
    ('ace = ["low-or-high", "sideways"]', 'turns_per_hand = "40 +- 3"', "", "ace"),
    ('hand_size = "9..15"', 'turns_per_game = "40 +- 3"', "", "turns_per_game"),
    ('hand_size = "9..15"', 'turns_per_hand = "about 40"', "", "about 40"),
    ('hand_size = "20..30"', 'turns_per_hand = "40 +- 3"', "", "hand_size"),
    ('hand_size = "9..15"', 'skill_gap = "> 0.1"', "", "skill_gap needs a line-up"),
    ('hand_size = "9..15"', 'turns_per_hand = "40 +- 3"', 'lineup = [["wizard"]]', "wizard"),
])
def test_bad_space_exits_2_naming_the_problem_before_any_game(tmp_path, capsys, space,
                                                              targets, extra, words):
    path = _space(tmp_path, space, targets, extra)
    out = tmp_path / "out"
    assert main(["tune", path, "--out", str(out), "--max-games", "5000"]) == 2
    err = capsys.readouterr().err
    assert words in err and "line" in err
    assert not out.exists()


def test_an_empty_list_of_player_counts_is_refused(tmp_path):
    path = _space(tmp_path, 'hand_size = "9..15"')
    text = open(path, encoding="utf-8").read().replace("players = [4]", "players = []")
    open(path, "w", encoding="utf-8").write(text)
    with pytest.raises(FastmachError, match=r"\[tune\] players: expected one player count "
                                            r"or more, got \[\]"):
        load_space(path)


def test_a_deal_that_does_not_fit_names_players_hand_size_and_decks(tmp_path):
    with pytest.raises(FastmachError, match=r"at 4 players, hand_size=26 cannot be played.*decks"):
        load_space(_space(tmp_path, 'hand_size = "9..27"'))


def test_a_budget_below_one_candidate_and_the_check_exits_2(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(PLANTED, encoding="utf-8")
    assert main(["tune", str(path), "--out", str(tmp_path / "o"), "--max-games", "10"]) == 2
    assert "--max-games 10 is too small" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_another_space_in_the_same_directory_is_refused(tmp_path):
    tune(PLANTED, tmp_path / "t", max_games=40)
    with pytest.raises(FastmachError, match="another search space"):
        tune(PLANTED.replace("seed = 7", "seed = 8"), tmp_path / "t", max_games=40)


def test_targets_read_units_and_percent():
    s = load_space(PLANTED.replace('hands_per_game = "4 +- 0.5"',
                                   'hands_per_game = "4 +- 0.5"\n'
                                   'stock_out_per_hand = { target = "< 2%", weight = 3 }'))
    band, bound = s.targets
    assert (band.low, band.high) == (3.5, 4.5)
    assert bound.high == pytest.approx(0.02) and bound.weight == 3.0
    with pytest.raises(FastmachError, match="not a share"):
        load_space(PLANTED.replace('"4 +- 0.5"', '"4% +- 1%"'))


def test_target_meets_violation_and_probability():
    t = Target("turns_per_hand", "+-", 40.0, 3.0)
    assert t.meets(43.0) and not t.meets(43.5)
    assert t.violation(46.0) == pytest.approx(1.0)  # one tolerance beyond the band
    assert t.probability(40.0, 3.0 / 1.959964) == pytest.approx(0.95, abs=1e-4)
    assert t.probability(44.0, 0.0) == 0.0
    b = Target("stock_out_per_hand", "<", 0.02)
    assert b.probability(0.02, 0.01) == pytest.approx(0.5)
    assert math.isinf(b.low) and b.violation(0.04) == pytest.approx(1.0)


def test_space_axes_are_checked_against_the_rules_table():
    s = load_space(PLANTED)
    assert [a.name for a in s.axes] == ["failed_penalty", "match"]  # the table's order
    assert s.grid_size == 12 and s.rung_deals == (4, 8)
    assert s.fresh_seed != s.seed
    assert load_space(s.to_toml()) == s  # the stored text reads back as the same space


def test_a_tune_killed_with_sigkill_resumes_with_the_same_trials(whole, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    out, _ = whole
    space = tmp_path / "planted.toml"
    space.write_text(PLANTED, encoding="utf-8")
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "fastmach", "tune", str(space), "--out", str(killed),
           "--max-games", "400", "-q"]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    journal = killed / "trials.journal"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and journal.read_text(errors="replace").count('"op_code":4') >= 3:
            break  # a few trials have reported: kill it in the middle of the search
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert subprocess.run(cmd, env=env, capture_output=True).returncode == 0
    assert _trials(killed) == _trials(out)
    assert pd.read_csv(killed / "candidates.csv").equals(pd.read_csv(out / "candidates.csv"))


def test_a_kill_between_a_trials_parameters_fails_it_and_keeps_the_sequence(whole, tmp_path,
                                                                            monkeypatch):
    out, _ = whole
    calls = {"n": 0}
    real = search_mod._suggest

    def dies(trial, axis):
        calls["n"] += 1
        if calls["n"] == 6:  # trial 2's second parameter: the first one is stored
            raise KeyboardInterrupt
        return real(trial, axis)

    monkeypatch.setattr(search_mod, "_suggest", dies)
    with pytest.raises(KeyboardInterrupt):
        tune(PLANTED, tmp_path / "killed", max_games=400)
    monkeypatch.setattr(search_mod, "_suggest", real)
    tune(PLANTED, tmp_path / "killed", max_games=400)
    assert _trials(tmp_path / "killed") == _trials(out)
    assert len(_trials(tmp_path / "killed", failed=True)) == len(_trials(out)) + 1


@pytest.mark.parametrize("verdict", [True, False], ids=["pruned", "promoted"])
def test_a_kill_after_the_pruner_judged_a_rung_resumes_with_the_same_verdict(
        whole, tmp_path, monkeypatch, verdict):
    # the pruner marks the rung judged on the trial before it answers: a kill right after
    # leaves the mark, and the resumed trial must get the verdict it had, not skip the rung
    import optuna

    out, _ = whole
    real = optuna.trial.Trial.should_prune

    def dies(self):
        answer = real(self)
        if answer == verdict:
            raise KeyboardInterrupt
        return answer

    monkeypatch.setattr(optuna.trial.Trial, "should_prune", dies)
    with pytest.raises(KeyboardInterrupt):
        tune(PLANTED, tmp_path / "killed", max_games=400)
    monkeypatch.setattr(optuna.trial.Trial, "should_prune", real)
    tune(PLANTED, tmp_path / "killed", max_games=400)
    assert _trials(tmp_path / "killed") == _trials(out)


def test_conflicting_targets_get_a_pareto_front_figure(tmp_path):
    from fastmach.tools.tune.answer import conflicting_pair, write_answer

    s = load_space(PLANTED.replace('hands_per_game = "4 +- 0.5"',
                                   'turns_per_hand = "40 +- 3"\nhands_per_game = "< 2"'))
    rows = [("a", 41.0, 3.0), ("b", 50.0, 1.0), ("c", 52.0, 3.0)]  # a or b, never both
    table = pd.DataFrame([{"stage": "search", "rules": r, "match": "single",
                           "failed_penalty": 1, "turns_per_hand": t, "hands_per_game": h}
                          for r, t, h in rows])
    assert conflicting_pair(s, table) == ("turns_per_hand", "hands_per_game")
    files = write_answer(tmp_path, s, table, "text")
    assert files["pareto"].stat().st_size > 0
    agreeing = table.assign(hands_per_game=[1.0, 1.0, 3.0])  # a meets both
    assert conflicting_pair(s, agreeing) is None


def test_loss_weights_targets_or_orders_them_lexicographically():
    two = PLANTED.replace('hands_per_game = "4 +- 0.5"',
                          'hands_per_game = "4 +- 0.5"\nturns_per_hand = "40 +- 4"')
    weighted = load_space(two)
    ordered = load_space(two.replace("finalists = 2", 'finalists = 2\norder = '
                                     '["turns_per_hand", "hands_per_game"]'))
    assert ordered.weights() == {"turns_per_hand": 1000.0, "hands_per_game": 1.0}
    # a: hands missed by 2 tolerances, turns at the centre; b: hands exact, turns 1 beyond
    card = pd.DataFrame({"players": [2, 2], "lineup": ["expert", "expert"],
                         "hands_per_game": [5.5, 4.0], "turns_per_hand": [40.0, 48.0]})
    a, b = card.iloc[[0]], card.iloc[[1]]
    assert search_mod.loss_of(weighted, a) > search_mod.loss_of(weighted, b)
    assert search_mod.loss_of(ordered, a) < search_mod.loss_of(ordered, b)
    with pytest.raises(FastmachError, match="order"):
        load_space(two.replace("finalists = 2", 'finalists = 2\norder = ["turns_per_hand"]'))


def test_a_candidate_killed_while_its_store_grew_is_evaluated_again(tmp_path, monkeypatch):
    """A kill while a promoted candidate's store grows to the next rung's deals leaves a
    study of more deals than the rung that is asked first on resume: the evaluator keeps
    that size (plays the missing chunks) and scores the rung's deals, the same scorecard
    as an evaluator that was never killed (it used to refuse the store: another study)."""
    from fastmach.study import driver

    space = load_space(PLANTED)
    rules = space.study(space.rules, 4).rules[0]
    killed = search_mod.Evaluator(space, tmp_path / "killed", chunk=4)
    killed(rules, 4)
    real, calls = driver.play_chunk, {"n": 0}

    def dies(spec):
        calls["n"] += 1
        if calls["n"] == 1:   # growing to 8 deals: the kill before its first chunk ends
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(driver, "play_chunk", dies)
    with pytest.raises(KeyboardInterrupt):
        killed(rules, 8)
    monkeypatch.setattr(driver, "play_chunk", real)
    assert killed.stored(rules) == 0   # (not finished: nothing counted complete)
    resumed = search_mod.Evaluator(space, tmp_path / "killed", chunk=4)
    fresh = search_mod.Evaluator(space, tmp_path / "fresh", chunk=4)
    pd.testing.assert_frame_equal(resumed(rules, 4), fresh(rules, 4))
    assert resumed.stored(rules) == 8


TWO_RULE_SETS = PLANTED.replace(
    'match = ["single", "rotations:1", "rotations:2", "rotations:3"]\nfailed_penalty = "1..3"',
    'match = ["single", "rotations:2"]').replace("finalists = 2", "finalists = 1")


def test_a_small_space_the_optimiser_keeps_reproposing_is_tried_whole(tmp_path, monkeypatch):
    """An optimiser proposing only the rule set it played (here: always the first choice)
    does not end the search while a rule set of a small space is unplayed."""
    import optuna

    class Stubborn(optuna.samplers.RandomSampler):
        def sample_independent(self, study, trial, name, distribution):
            return distribution.choices[0]

    monkeypatch.setattr(search_mod, "_sampler", lambda space, n: Stubborn(seed=0))
    a = tune(TWO_RULE_SETS, tmp_path / "t", max_games=400)
    played = {Rules.parse(r).match for r in a.search.deals}
    assert played == {"single", "rotations:2"}
    assert Rules.parse(a.best).match == "rotations:2"   # (the one on target: 4 hands)
    assert "already played 2 times in a row (the space holds 2 rule sets, 2 played)" in \
        a.search.stopped
