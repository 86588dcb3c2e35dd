"""Misuse of the vector and single-agent environments: every bad argument is refused with
a FastmachError naming it, before any game (or worker) moves; non-integer actions are
invalid actions, as in SingleAgentEnv; a failed worker, a lost one and a closed
environment say so."""
from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pytest

import fastmach.env as fe
from fastmach.env import fast, vector
from fastmach.errors import FastmachError

RULES = "classic(match=single)"


def _vec(workers: int = 1, n: int = 4, **kw) -> fe.VectorEnv:
    return fe.VectorEnv(RULES, num_envs=n, workers=workers, opponents="expert", **kw)


def _first(seed: int, n: int = 4) -> np.ndarray:
    """The observations of a one-process reset(seed)."""
    v = _vec(1, n)
    try:
        return v.reset(seed=seed)[0].copy()
    finally:
        v.close()


def test_a_refused_reset_leaves_the_workers_games_as_they_were(monkeypatch):
    """A reset refused for its seed sends nothing to the worker: the next reset's rows
    are that seed's, not the refused one's (no stale reply read; the worker made slow)."""
    want = _first(5)
    parent = os.getpid()
    real = fast.CompiledGames.reset

    def reset(self, seeds, options):
        if os.getpid() != parent:
            time.sleep(0.2)
        return real(self, seeds, options)

    monkeypatch.setattr(fast.CompiledGames, "reset", reset)
    v = _vec(2)
    try:
        v.reset(seed=0)
        for _ in range(3):
            with pytest.raises(FastmachError, match="seed must be a non-negative integer"):
                v.reset(seed=-1)
            assert np.array_equal(v.reset(seed=5)[0], want)
    finally:
        v.close()


def test_a_reset_failing_in_this_process_leaves_no_stale_worker_reply(monkeypatch):
    """This process's share failing after the worker was told: the worker's reply is read
    with it, and the next reset's rows are its own."""
    want = _first(5)
    parent = os.getpid()
    real = fast.CompiledGames.reset

    def reset(self, seeds, options):
        if os.getpid() == parent and seeds[0] == 100:
            raise FastmachError("boom here")
        return real(self, seeds, options)

    monkeypatch.setattr(fast.CompiledGames, "reset", reset)
    v = _vec(2)
    try:
        with pytest.raises(FastmachError, match="boom here"):
            v.reset(seed=100)
        with pytest.raises(FastmachError, match="the last reset failed: call reset"):
            v.step(np.zeros(4, dtype=np.int64))
        assert np.array_equal(v.reset(seed=5)[0], want)
    finally:
        v.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_arguments_a_worker_would_refuse_are_refused_first_and_the_env_stays_usable(workers):
    want = _first(0)
    v = _vec(workers)
    try:
        v.reset(seed=3)
        for seed in (2**63 - 3, 2**63 - 1):
            with pytest.raises(FastmachError, match=r"must be below 2\*\*63, so seed at most "
                                                    r"9223372036854775804"):
                v.reset(seed=seed)
        with pytest.raises(FastmachError, match="seat must be 0..3, got 9"):
            v.reset(seed=0, options={"seat": 9})
        with pytest.raises(FastmachError, match="unknown key 'bogus'; allowed: seat"):
            v.reset(seed=0, options={"bogus": 1})
        with pytest.raises(FastmachError, match="must be a dict"):
            v.reset(seed=0, options=[("seat", 1)])
        assert v.step(np.zeros(4, dtype=np.int64))[0].shape == (4, v.layout.size)
        assert np.array_equal(v.reset(seed=0)[0], want)
        v.reset(seed=2**63 - 4)   # (the largest seed for 4 games)
    finally:
        v.close()


def test_a_worker_that_fails_answers_with_its_error_and_a_reset_recovers(monkeypatch):
    parent = os.getpid()
    real = fast.CompiledGames.advance

    def advance(self, actions):
        if os.getpid() != parent and self.replicates[0] == 0 and self.roots[0] == 102:
            raise RuntimeError("worker boom")
        return real(self, actions)

    monkeypatch.setattr(fast.CompiledGames, "advance", advance)
    want = _first(7)
    v = _vec(2)
    try:
        v.reset(seed=100)   # (the worker's games: seeds 102 and 103)
        with pytest.raises(FastmachError, match="worker failed: RuntimeError: worker boom"):
            v.step(np.zeros(4, dtype=np.int64))
        with pytest.raises(FastmachError, match="the last step failed: call reset"):
            v.step(np.zeros(4, dtype=np.int64))
        assert np.array_equal(v.reset(seed=7)[0], want)
        v.step(np.zeros(4, dtype=np.int64))
    finally:
        v.close()


def test_a_worker_gone_closes_the_environment_with_one_clear_error():
    v = _vec(2)
    try:
        v.reset(seed=0)
        v._procs[0].kill()
        v._procs[0].join()
        with pytest.raises(FastmachError, match="closed: a worker process was lost"):
            v.step(np.zeros(4, dtype=np.int64))
        assert v.closed
        for _ in range(2):
            with pytest.raises(FastmachError, match="the vector environment is closed"):
                v.reset(seed=0)
    finally:
        v.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_reset_and_step_after_close_are_refused_whatever_the_workers(workers):
    v = _vec(workers)
    v.reset(seed=0)
    v.close()
    v.close()
    with pytest.raises(FastmachError, match="the vector environment is closed"):
        v.reset(seed=0)
    with pytest.raises(FastmachError, match="the vector environment is closed"):
        v.step(np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize("workers", [1, 2])
def test_step_before_reset_says_to_reset_as_the_single_environment(workers):
    v = _vec(workers)
    try:
        with pytest.raises(FastmachError, match=r"not dealt yet: call reset\(\) first"):
            v.step(np.zeros(4, dtype=np.int64))
    finally:
        v.close()


BAD = [np.array([1.7, 1.7]), np.array([0.5, 1.0]), np.array(["1", "1"]),
       np.array([True, True]), np.array([np.nan, 1.0]), np.array([None, 1.3], dtype=object)]


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("bad", BAD, ids=lambda a: str(a.tolist()))
def test_a_non_integer_action_is_an_invalid_action_in_both_engines(engine, bad):
    """Under illegal="draw" it is played as an invalid action (as 9 is: the draw,
    flagged), never truncated; the same in both engines."""
    def run(acts):
        v = _vec(1, 2, engine=engine)
        v.reset(seed=3)
        assert v.action_masks()[:, 1].all()   # (action 1 is legal: truncation would play it)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            out = v.step(acts)
        v.close()
        return out
    got, want = run(bad), run(np.array([9, 9]))
    assert got[4]["illegal"].tolist() == [True, True]
    assert np.array_equal(got[0], want[0])


def test_an_object_array_plays_its_integers_and_flags_the_rest():
    v = _vec(1, 2)
    v.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        info = v.step(np.array([1, None], dtype=object))[4]
    assert info["illegal"].tolist() == [False, True]


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_non_integer_action_is_refused_under_raise_showing_the_value_given(engine):
    v = _vec(1, 2, engine=engine, illegal="raise")
    v.reset(seed=3)
    for acts, shown in ((np.array([1.7, 1.0]), "1.7"), (np.array([np.nan, 1.0]), "nan"),
                        (np.array(["1", "1"]), "'1'"), (np.array([True, True]), "True"),
                        (np.array([1, None], dtype=object), "None")):
        game = 1 if shown == "None" else 0   # (a float array: 1.0 is no integer either)
        with pytest.raises(FastmachError, match=rf"game {game}: action must be an integer "
                                                rf"0..8, got {shown}$"):
            v.step(acts)
    v.step(np.array([1, 1]))   # (nothing moved: still the first turn, action 1 legal)
    v.close()


@pytest.mark.parametrize("seed", [1.0, 1.9, np.float32(1), "1", True, [1.5, 2]])
def test_a_seed_that_is_not_an_integer_is_refused(seed):
    v = _vec(1, 2)
    with pytest.raises(FastmachError, match="seed must be a non-negative integer"):
        v.reset(seed=seed)
    v.close()


def test_the_compiled_games_refuse_non_integer_actions_rather_than_truncate_them():
    g = fast.CompiledGames(1, {"rules": RULES, "opponents": "expert"})
    g.reset([3], None)
    with pytest.raises(FastmachError, match="actions must be integers, got dtype float64"):
        g.advance(np.array([1.7]))


@pytest.mark.parametrize("options", ["notadict", [("seat", 1)], {"bogus": 1},
                                     {"seat": 1, "other": 2}])
def test_single_agent_reset_refuses_options_that_are_not_a_dict_of_known_keys(options):
    s = fe.SingleAgentEnv(RULES, opponents="expert")
    with pytest.raises(FastmachError, match="allowed: seat|keys: seat"):
        s.reset(seed=0, options=options)
    assert s.reset(seed=0, options={"seat": 2})[1]["seat"] == 2


def test_single_agent_reward_none_is_named_as_raw_env_names_it():
    for make in (fe.SingleAgentEnv, fe.raw_env):
        with pytest.raises(FastmachError, match="reward must be one of match, hand, got None"):
            make("classic", reward=None)


def test_make_vector_bounds_num_envs_and_names_an_unknown_argument():
    with pytest.raises(FastmachError, match=rf"num_envs must be an integer 1..{vector.MAX_ENVS}"):
        fe.make_vector(num_envs=10**9)
    with pytest.raises(FastmachError, match=rf"num_envs must be an integer 1..{vector.MAX_ENVS}"):
        fe.make_vector(num_envs=vector.MAX_ENVS + 1)
    with pytest.raises(FastmachError, match="unknown argument 'foo'"):
        fe.make_vector(num_envs=2, foo=1)
