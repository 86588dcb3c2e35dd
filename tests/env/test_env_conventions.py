"""The learning environments under the conventions of the tools researchers use:
Gymnasium's registry and vector API, MaskablePPO's ``action_masks()``, copies and pickles
that continue the same episode, the learner's seat chosen at reset, PettingZoo's seed test,
and the vectorised environment against the single one it batches."""
from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import fastmach.env as fe
from fastmach.errors import FastmachError


def _play(env, obs, rng, steps):
    """``steps`` random legal learner steps (resetting at an episode's end); returns the
    observations and rewards seen."""
    seen = []
    for _ in range(steps):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, r, term, trunc, _ = env.step(a)
        seen.append((obs["observation"].copy(), r))
        if term or trunc:
            obs, _ = env.reset()
            seen.append((obs["observation"].copy(), 0.0))
    return seen


@pytest.mark.parametrize("gid", list(fe.GYM_IDS))
def test_every_registered_id_makes_the_environment_and_a_vector_of_it(gid):
    e = gym.make(gid, opponents="expert")
    obs, _ = e.reset(seed=2)
    assert e.unwrapped.rules.preset == fe.GYM_IDS[gid].replace("ace-low", "ace-low")
    assert e.observation_space.contains(obs)
    v = gym.make_vec(gid, num_envs=3, opponents="expert")
    assert isinstance(v, fe.VectorEnv)
    obs, info = v.reset(seed=2)
    assert obs.shape == (3, e.unwrapped.layout.size) and info["action_mask"].shape == (3, 9)
    v.close()
    g = gym.make("fastmach/Machiavelli-v0", rules="jokers(players=3,jokers=2)")
    assert g.unwrapped.rules.players == 3 and g.unwrapped.rules.jokers == 2


def test_action_masks_is_the_mask_and_the_vector_holds_it_too():
    env = fe.SingleAgentEnv("classic", opponents="expert", observation="vector")
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert env.action_masks().dtype == bool
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    assert np.array_equal(obs[env.layout.slices["legal"]], env.action_masks())


@pytest.mark.parametrize("rules", ["classic", "jokers(players=3)"])
def test_a_deep_copy_and_a_pickle_continue_the_same_episode(rules):
    env = fe.SingleAgentEnv(rules, opponents="expert", seat="random")
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    _play(env, obs, rng, 17)
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for twin in twins:
        assert twin.seat == env.seat
        assert twin.game_state.history == env.game_state.history
        assert np.array_equal(twin.action_masks(), env.action_masks())
    runs = []
    for e in [env, *twins]:
        obs = {"observation": None}
        runs.append(_play(e, obs, np.random.default_rng(9), 40))
    for run in runs[1:]:
        assert len(run) == len(runs[0])
        assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(run, runs[0]))


def test_a_copy_changes_nothing_in_the_original():
    env = fe.SingleAgentEnv("classic", opponents="expert")
    env.reset(seed=3)
    before = list(env.game_state.history)
    twin = copy.deepcopy(env)
    _play(twin, None, np.random.default_rng(1), 10)
    assert env.game_state.history == before


def test_reset_options_seat_and_a_random_seat_drawn_from_the_seed():
    env = fe.SingleAgentEnv("classic", opponents="expert")
    for k in range(4):
        _, info = env.reset(seed=2, options={"seat": k})
        assert info["seat"] == k == env.seat == env.game_state.current_player
    with pytest.raises(FastmachError, match=r"seat must be 0..3, got 4"):
        env.reset(options={"seat": 4})
    r = fe.SingleAgentEnv("classic", opponents="expert", seat="random")
    seats = [r.reset(seed=s)[1]["seat"] for s in range(40)]
    assert set(seats) == {0, 1, 2, 3}
    assert seats == [r.reset(seed=s)[1]["seat"] for s in range(40)]
    _, info = r.reset(seed=7)
    assert r.game_state.current_player == info["seat"]


def test_the_same_seed_gives_the_same_deal_whatever_the_seat():
    a, b = (fe.SingleAgentEnv("classic", opponents="expert") for _ in range(2))
    a.reset(seed=4, options={"seat": 2})
    b.reset(seed=4)
    assert a.game_state.dealt == b.game_state.dealt


def test_pettingzoo_seed_test_and_api_test_with_default_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        seed_test(fe.env, num_cycles=60)
        api_test(fe.env(), num_cycles=100)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_vector_environment_steps_each_game_as_the_single_environment_does(workers):
    n, seed = 3, 10
    v = fe.VectorEnv("classic(players=3)", num_envs=n, workers=workers, opponents="expert")
    singles = [fe.SingleAgentEnv("classic(players=3)", opponents="expert",
                                 observation="vector") for _ in range(n)]
    obs, info = v.reset(seed=seed)
    for i, s in enumerate(singles):
        o, _ = s.reset(seed=seed + i)
        assert np.array_equal(obs[i], o)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(120):
        masks = v.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = v.step(acts)
        for i, s in enumerate(singles):
            o, r, te, tr, _ = s.step(int(acts[i]))
            assert (r, te, tr) == (rew[i], term[i], trunc[i])
            if te or tr:
                assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], o)
                o, _ = s.reset()
                ended += 1
            assert np.array_equal(obs[i], o)
            assert np.array_equal(info["action_mask"][i],
                                  s.action_masks())
    v.close()
    assert ended > 0


def test_the_vector_environment_names_bad_arguments():
    with pytest.raises(FastmachError, match="workers must be 1..num_envs"):
        fe.VectorEnv(num_envs=2, workers=3)
    v = fe.VectorEnv(num_envs=2)
    v.reset(seed=0)
    with pytest.raises(FastmachError, match=r"step: \(3,\) actions for 2 games"):
        v.step([0, 0, 0])


def test_the_environments_observation_is_the_states_own():
    from fastmach.env.table import _observation
    st = fe.Table(fe.SingleAgentEnv().rules, ["expert"] * 4).reset(6)
    for _ in range(30):
        for s in range(4):
            assert _observation(st, s) == st.observation(s)
        st.step()


def test_bench_env_measures_the_single_and_the_vectorised_environment():
    from fastmach.tools.bench_env import bench_env, format_env
    rows = bench_env(seconds=0.3, num_envs=2)
    assert [(r["env"], r["workers"]) for r in rows] == [
        ("single-agent", 1), ("single (reference)", 1), ("vector (2 games)", 1),
        ("vector (2 games)", 2), ("vector (8 games)", 2), ("vector (reference)", 1)]
    assert all(r["steps"] > 0 and r["steps_per_s"] > 0 for r in rows)
    assert all(r["steps"] % g == 0 for r, g in zip(rows[2:], (2, 2, 8, 2)))
    text = format_env(rows)
    assert text.splitlines()[0].startswith("learning environment, classic")
    assert len(text.splitlines()) == 8


@pytest.mark.parametrize("make", [fe.raw_env, fe.env])
def test_the_aec_environment_deep_copies_and_pickles_to_the_same_game(make):
    e = make("jokers(players=3)")
    e.reset(seed=2)
    rng = np.random.default_rng(4)
    for _ in range(25):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    twins = [copy.deepcopy(e), pickle.loads(pickle.dumps(e))]
    runs = []
    for env in [e, *twins]:
        r = np.random.default_rng(8)
        seen = []
        for agent in env.agent_iter(60):
            obs, reward, term, trunc, _ = env.last()
            seen.append((agent, obs["observation"].copy(), reward))
            env.step(None if term or trunc else
                     int(r.choice(np.flatnonzero(obs["action_mask"]))))
        runs.append(seen)
    for run in runs[1:]:
        assert [(a, rw) for a, _, rw in run] == [(a, rw) for a, _, rw in runs[0]]
        assert all(np.array_equal(x[1], y[1]) for x, y in zip(run, runs[0]))
