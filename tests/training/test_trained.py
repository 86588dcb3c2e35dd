"""Trained players: the mixed player (a member per hand, from the deal), strong as the
shipped policy of the rules in play, the meta-game's equilibrium and alpha-rank, training
that resumes to the same state at any worker count, and exploitability found."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import fastmach.strategies.trained as trained
from fastmach.engine import engine_config, play_games
from fastmach.game import Game
from fastmach.rules import Rules
from fastmach.strategies import build_seats, parse_seats, parse_strategy
from fastmach.strategies._base import Context
from fastmach.strategies._mixed import Mixed
from fastmach.strategies.trained import Policy, shipped
from fastmach.training.exploit import exploit
from fastmach.training.meta import EmpiricalGame, alpha_rank, equilibrium, regret
from fastmach.training.space import policy_space
from fastmach.training.train import TrainConfig, Training, train


@pytest.fixture
def policy(monkeypatch):
    """Ship one policy for the test: ``policy(rules, members, weights)``."""
    def ship(rules: str, members: tuple[str, ...], weights: tuple[float, ...],
             exploitability: dict | None = None) -> None:
        r = Rules.parse(rules)
        table = {(str(r), r.players): Policy(str(r), r.players, members, weights, "",
                                             exploitability or {})}
        monkeypatch.setattr(trained, "shipped", lambda: table)
    return ship


# ----------------------------------------------------------------------- the mixed player
def test_mixed_player_draws_each_member_with_its_weight():
    rules = Rules.parse("classic(match=single)")
    ctx = Context(engine_config(rules), None)
    members = build_seats(parse_seats(["expert", "strong(trained=false)", "strong(pass_on=1)"],
                                      3), ctx, rules)
    mixed = Mixed(ctx, members, [0.2, 0.5, 0.3])
    draws = np.array([mixed.member_of(int(k), s) for k in
                      np.random.default_rng(5).integers(0, 2**63, 20000) for s in (0,)])
    freq = np.bincount(draws, minlength=3) / len(draws)
    assert np.abs(freq - [0.2, 0.5, 0.3]).max() < 0.015
    # the seat's draw is its own: another seat in the same hand draws independently
    keys = np.random.default_rng(6).integers(0, 2**63, 4000)
    same = np.mean([mixed.member_of(int(k), 0) == mixed.member_of(int(k), 1) for k in keys])
    assert abs(same - (0.2**2 + 0.5**2 + 0.3**2)) < 0.03


def test_mixed_player_plays_the_same_games_in_the_state_as_in_the_engine(policy):
    # a match (several hands, a member drawn per hand) with a fallible seat moving the PRNG
    policy("classic", ("strong(trained=0)", "strong(pass_on=1,trained=0)"), (0.5, 0.5))
    seats = ["strong", "expert(error=0.3)", "strong", "expert"]
    game = Game("classic", seats)
    df = play_games(game.rules, seats, 7, range(3))
    for r in range(3):
        st = game.new_initial_state(7, r).play_out()
        assert st.row() == {k: df.iloc[r][k] for k in st.row()}
    assert (df["hands"] > 1).all()


def test_strong_is_the_shipped_policy_of_the_rules_in_play(policy):
    policy("classic(match=single)", ("strong(pass_on=1,trained=0)",), (1.0,))
    r = "classic(match=single)"
    a = play_games(r, ["strong", "expert", "strong", "expert"], 3, range(40))
    b = play_games(r, ["strong(pass_on=1)", "expert", "strong(pass_on=1)", "expert"], 3,
                   range(40))
    c = play_games(r, ["strong(trained=false)", "expert"] * 2, 3, range(40))
    cols = [f"win_share_{k}" for k in range(4)] + ["turns", "end"]
    assert a[cols].equals(b[cols])
    assert not a[cols].equals(c[cols])
    # rules without a shipped policy: strong is the hand-tuned player
    d = play_games("classic(match=single,hand_size=12)", ["strong", "expert"] * 2, 3, range(20))
    e = play_games("classic(match=single,hand_size=12)", ["strong(trained=false)", "expert"] * 2,
                   3, range(20))
    assert d[cols].equals(e[cols])


def test_shipped_policies_name_their_rules_members_and_exploitability():
    assert shipped(), "no trained policy is shipped"
    for (rules, players), p in shipped().items():
        r = Rules.parse(rules)
        assert str(r) == rules and r.players == players
        assert abs(sum(p.weights) - 1) < 1e-4 and min(p.weights) > 0
        space = policy_space(r)
        for m in p.members:
            s = parse_strategy(m)
            assert s.name == "strong" and s.params["trained"] == 0
            assert space.point_of(m) is not None
        assert p.command.startswith("fastmach train")
        assert {"strategy", "diff", "lo", "hi", "deals"} <= set(p.exploitability)


# ----------------------------------------------------------------------------- meta-game
def _game(players: int, k: int, payoff) -> EmpiricalGame:
    import itertools
    g = EmpiricalGame(players, [f"s{i}" for i in range(k)])
    for m in itertools.combinations_with_replacement(range(k), players):
        g.record(m, {i: payoff(i, [j for j in m]) for i in set(m)})
    return g


def test_equilibrium_of_rock_paper_scissors_is_uniform_and_has_no_regret():
    beats = {(0, 2), (1, 0), (2, 1)}

    def payoff(i, lineup):   # two seats: the win share of member i
        j = lineup[0] if lineup[1] == i else lineup[1]
        return 0.5 if i == j else float((i, j) in beats)
    g = _game(2, 3, payoff)
    x = equilibrium(g)
    assert np.abs(x - 1 / 3).max() < 0.02
    assert regret(g, x) < 0.01
    assert regret(g, np.array([1.0, 0, 0])) > 0.4


def test_equilibrium_and_alpha_rank_pick_a_dominant_member():
    def payoff(i, lineup):   # member 1 wins every table it sits at, shared among its copies
        c = lineup.count(1)
        return (1.0 / c if i == 1 else 0.0) if c else 1.0 / len(lineup)
    g = _game(4, 3, payoff)
    x = equilibrium(g)
    assert x[1] > 0.99 and regret(g, x) < 1e-3
    assert int(np.argmax(alpha_rank(g))) == 1 and alpha_rank(g)[1] > 0.9


# ------------------------------------------------------------------------------ training
SMALL = TrainConfig(seed=5, meta_deals=6, race_deals=6, eta=3, rungs=2, check_deals=40,
                    sampled=4, target=0.02, iterations=2)


def test_training_resumes_to_the_same_state_at_any_worker_count(tmp_path):
    rules = Rules.parse("classic(match=single)")
    whole = train(rules, tmp_path / "a", SMALL, workers=1)
    seen = []

    def stop_after(n: int) -> None:   # interrupted inside the second iteration's games
        seen.append(n)
        if len(seen) == 6:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        train(rules, tmp_path / "b", SMALL, workers=2, progress=stop_after)
    resumed = train(rules, tmp_path / "b", SMALL, workers=2)
    assert resumed.to_json() == whole.to_json()
    assert json.loads(next((tmp_path / "a").glob("*.json")).read_text()) == whole.to_json()
    assert whole.done and not whole.history[-1]["added"]
    # the pass-on edge over the hand-tuned start is found and added
    assert "strong(pass_on=1,trained=0)" in whole.game.members


def test_training_refuses_a_state_of_other_settings(tmp_path):
    from fastmach.errors import FastmachError
    rules = Rules.parse("classic(match=single)")
    train(rules, tmp_path, SMALL, workers=1)
    with pytest.raises(FastmachError, match="other settings"):
        train(rules, tmp_path, TrainConfig(seed=6), workers=1)


def test_exploit_finds_the_pass_on_edge_against_the_hand_tuned_player():
    g = exploit("strong(trained=false)", Rules.parse("classic(match=single)"), deals=12,
                check_deals=200, sampled=6, rungs=2, workers=2)
    assert "pass_on" in g.strategy
    assert g.lo > 0.15


def test_training_state_round_trips_through_json():
    g = _game(2, 2, lambda i, m: 0.5)
    t = Training("classic", 2, SMALL, g, [0.5, 0.5], [{"iteration": 0}], True)
    assert Training.from_json(json.loads(json.dumps(t.to_json()))).to_json() == t.to_json()


# ------------------------------------------------------------------------------- commands
@pytest.mark.parametrize("args,named", [
    (["train", "classic", "--players", "0"], "players"),
    (["train", "classic", "--iterations", "0"], "iterations"),
    (["train", "classic", "--target", "2"], "target"),
    (["train", "classic", "--workers", "-1"], "workers"),
    (["train", "nosuch"], "nosuch"),
    (["exploit", "nosuch", "--rules", "classic"], "nosuch"),
    (["exploit", "expert", "--deals", "0"], "deals"),
])
def test_train_and_exploit_refuse_bad_arguments_before_any_game(args, named, tmp_path):
    out = subprocess.run([sys.executable, "-m", "fastmach", *args, "--out", str(tmp_path)]
                         if args[0] == "train" else [sys.executable, "-m", "fastmach", *args],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert named in out.stderr and "Traceback" not in out.stderr


def test_a_run_says_plainly_where_the_hand_tuned_strong_stands_in(tmp_path):
    def warnings_of(rules: str, strategies: str) -> str:
        out = subprocess.run([sys.executable, "-m", "fastmach", "play", "--rules", rules,
                              "--strategies", strategies, "--games", "2", "--out",
                              str(tmp_path / "g.parquet")], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stderr
    assert "hand-tuned strong stands in" in warnings_of("classic(hand_size=12,match=single)",
                                                        "strong,expert")
    assert "stands in" not in warnings_of("classic(hand_size=12,match=single)",
                                          "strong(trained=false),expert")
    assert "stands in" not in warnings_of("classic(match=single)", "strong,expert")


def test_the_reports_strong_section_names_its_trained_players_and_stalled_play(policy):
    import pandas as pd

    from fastmach.report.players import _who_is_strong
    policy("classic(match=single)", ("strong(pass_on=1,trained=0)",), (1.0,),
           {"strategy": "x", "diff": 0.012, "lo": 0.002, "hi": 0.022})
    card = pd.DataFrame([
        {"rules": "classic(match=single)", "players": 4, "lineup": "strong", "blocked": 0.86},
        {"rules": "classic(match=single)", "players": 3, "lineup": "strong", "blocked": 0.1},
        {"rules": "classic(match=single)", "players": 4, "lineup": "expert", "blocked": 0.0}])
    words = " ".join(_who_is_strong(card, str))
    assert "trained for its rule set" in words and "+1.2 pp [+0.2, +2.2]" in words
    assert "classic(match=single) at 3 players" in words and "stands in" in words
    assert "good players stall" in words and "86%" in words


def test_a_best_responses_parameters_that_do_not_pay_go_back_to_the_defaults():
    from fastmach.training.oracle import Mixture
    from fastmach.training.train import _simplify
    rules = Rules.parse("classic(match=single)")
    space = policy_space(rules)
    mix = Mixture(("strong(trained=0)",), (1.0,))
    # against holders nobody nears going out while the stock lasts: rush=7 changes nothing,
    # passing on the empty stock wins
    kept = _simplify(space, rules, "strong(rush=7,pass_on=1,trained=0)", mix, 9, 60, 0.005,
                     2, None)
    assert kept == "strong(pass_on=1,trained=0)"


def test_the_search_plays_out_on_the_trained_player_where_one_is_shipped(policy):
    policy("classic(match=single)", ("strong(pass_on=1,trained=0)",), (1.0,))
    r = "classic(match=single)"
    seats = ["search(budget=2,policy=trained)", "expert", "strong", "expert"]
    a = play_games(r, seats, 4, range(6), check=True)
    b = play_games(r, ["search(budget=2,policy=botching)"] + seats[1:], 4, range(6))
    assert not a.equals(b)   # a playout policy that passes on the empty stock plays otherwise
    # no trained player shipped: the botching strong player stands in
    r2 = "classic(match=single,hand_size=12)"
    c = play_games(r2, seats, 4, range(4))
    d = play_games(r2, ["search(budget=2,policy=botching)"] + seats[1:], 4, range(4))
    assert c.drop(columns=["strategy_0"]).equals(d.drop(columns=["strategy_0"]))


def test_holding_on_a_built_table_is_an_axis_where_the_stock_ends_the_hand():
    axes = {r: {a.name for a in policy_space(Rules.parse(r)).axes}
            for r in ("ace-low(match=single)", "classic(match=single)", "jokers", "italian")}
    assert "hold_table" in axes["ace-low(match=single)"]
    assert not any("hold_table" in axes[r] for r in ("classic(match=single)", "jokers", "italian"))
    # and it changes games there: a holder that plays on a thin table plays other hands
    seats = ["expert", "strong(keep_from=8,place=one,trained=false)"] * 2
    thin = ["expert", "strong(keep_from=8,place=one,hold_table=8)"] * 2
    cols = ["turns", "winner", "cards_left_1", "cards_left_3"]
    a = play_games("ace-low(match=single)", seats, 5, range(30))[cols]
    b = play_games("ace-low(match=single)", thin, 5, range(30))[cols]
    assert not a.equals(b)
