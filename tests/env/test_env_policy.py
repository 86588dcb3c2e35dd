"""A policy over the environment's observations as a fastmach bot (fastmach.env.policy):
it builds the moves and the vector from the Observation a bot is handed, plays in the
engine and in ``fastmach rate`` beside the built-in strategies."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import fastmach.env as fe
from fastmach import Game
from fastmach.errors import FastmachError
from fastmach.env.policy import LinearPolicy, PolicyBot, choose


def test_the_moves_builder_takes_a_bots_observation():
    st = Game("classic").new_initial_state(3, 0)
    obs = st.observation(st.current_player)
    m = fe.moves(obs)   # (was: 'Observation' object has no attribute 'current_player')
    assert np.array_equal(m.mask, fe.moves(st).mask)
    assert m.action(fe.DRAW) == fe.moves(st).action(fe.DRAW)


@pytest.mark.parametrize("rules", ["classic", "jokers(players=3)"])
def test_a_max_cards_policy_plays_the_experts_games(rules):
    """The policy 'max_cards if legal, else draw' is the expert: the same games, turn by
    turn, with the bot in seat 1 as with the compiled expert there."""
    P = Game(rules).rules.players
    for rep in range(3):
        a = Game(rules, ["expert"] * P).new_initial_state(7, rep).play_out()
        seats = ["expert"] * P
        seats[1] = PolicyBot()
        b = Game(rules, seats).new_initial_state(7, rep).play_out()
        assert [(t.seat, t.action, t.placed) for t in a.history] == \
            [(t.seat, t.action, t.placed) for t in b.history]


def test_a_policy_bot_sees_the_vector_the_environment_shows():
    env = fe.SingleAgentEnv("classic", opponents="expert", observation="vector")
    vec, _ = env.reset(seed=2)
    seen = []
    bot = PolicyBot.of(lambda v, m: seen.append(v.copy()) or fe.DRAW)
    st = env.game_state
    bot.act(st.observation(st.current_player))
    assert np.array_equal(seen[0], vec)


def test_a_linear_policy_file_round_trips_and_names_a_bad_one(tmp_path):
    size = fe.Layout(Game("classic").rules).size
    rng = np.random.default_rng(0)
    pol = LinearPolicy(rng.normal(size=(fe.N_ACTIONS, size)), rng.normal(size=fe.N_ACTIONS))
    path = str(tmp_path / "p.npz")
    pol.save(path)
    bot = PolicyBot(path)
    v = rng.random(size).astype(np.float32)
    assert np.allclose(bot(v, np.ones(fe.N_ACTIONS)), pol(v, None))
    with pytest.raises(FastmachError, match="policy file"):
        PolicyBot(str(tmp_path / "missing.npz"))
    with pytest.raises(FastmachError, match="give package.module:name"):
        PolicyBot("nocolon")
    with pytest.raises(FastmachError, match="inputs was given an observation"):
        bot(np.zeros(5, dtype=np.float32), np.ones(fe.N_ACTIONS))


def test_choose_plays_the_best_legal_score_and_refuses_a_masked_index():
    mask = np.array([1, 0, 1, 0, 0, 0, 0, 0, 1], dtype=np.int8)
    assert choose(np.arange(9.0), mask) == 8
    assert choose(np.int64(2), mask) == 2
    with pytest.raises(FastmachError, match="chose action 1, which is masked now"):
        choose(1, mask)
    with pytest.raises(FastmachError, match="answered 3 scores"):
        choose([1.0, 2.0, 3.0], mask)


def test_a_policy_bot_is_rated_beside_the_built_in_strategies():
    out = subprocess.run(
        [sys.executable, "-m", "fastmach", "rate", "--strategies",
         "expert,beginner,fastmach.env.policy:PolicyBot", "--players", "3", "--games", "3",
         "--workers", "0", "--bootstrap", "20", "-q"],
        capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()
            if line.strip()[:1].isdigit() and "PolicyBot" in line]
    assert rows and rows[0][1] == "fastmach.env.policy:PolicyBot"


def test_the_hold_until_out_policy_beats_three_experts():
    """Holding (drawing) until the expert's play empties the hand: a policy over the
    observation's max_play part. 1,600 games measured 55.9% of matches against three
    experts at 14.7% each; here 24 deals, the bot's seat rotating, above the fair share
    (a quarter; at 55.9% a share of 25% or less in 24 deals has a chance of about 2 in 1,000)."""
    from fastmach.env.policy import hold_until_out
    won = 0.0
    for rep in range(24):
        seats: list = ["expert"] * 4
        seats[rep % 4] = PolicyBot.of(hold_until_out)
        st = Game("classic", seats).new_initial_state(11, rep).play_out()
        won += st.win_shares()[rep % 4]
    assert won / 24 > 0.25
