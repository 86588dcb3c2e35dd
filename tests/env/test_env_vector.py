"""The compiled vector games (fastmach.env.fast, fastmach.env._vector_step) against the
reference path (SingleAgentEnv games stepped in Python): the same seed gives the same
observations, masks, rewards, ends, final observations and illegal flags, step after
step, under random legal, arbitrary and one-sided action sequences."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastmach.env as fe
from fastmach.errors import FastmachError

INFOS = ("action_mask", "illegal", "final_obs", "_final_obs")


def _actions(kind: str, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per game: ``legal`` uniformly among the unmasked, ``any`` any integer
    from -1 to 9 (masked and out-of-range ones included), ``hold`` the draw where it is
    unmasked else max_cards, ``botch`` the botch where unmasked one time in three (hands
    grow large), else at random."""
    n = len(masks)
    legal = np.argmax(rng.random(masks.shape) * masks, axis=1)
    if kind == "legal":
        return legal
    if kind == "any":
        return rng.integers(-1, 10, n)
    if kind == "hold":
        return np.where(masks[:, 0], 0, 1)
    return np.where(masks[:, 8] & (rng.random(n) < 1 / 3), 8, legal)


def _compare(rules: str, kind: str, steps: int, n: int = 4, seed: int = 5, **kw) -> int:
    """Step both engines with the same actions; returns the episodes ended."""
    a = fe.VectorEnv(rules, num_envs=n, engine="compiled", **kw)
    b = fe.VectorEnv(rules, num_envs=n, engine="reference", **kw)
    assert (a.engine, b.engine) == ("compiled", "reference")
    rng = np.random.default_rng(seed)
    ended = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        assert np.array_equal(oa, ob) and np.array_equal(ia["action_mask"], ib["action_mask"])
        for t in range(steps):
            assert np.array_equal(a.action_masks(), b.action_masks()), t
            acts = _actions(kind, b.action_masks(), rng)
            ra, rb = a.step(acts), b.step(acts)
            for k in range(4):
                assert np.array_equal(ra[k], rb[k]), (t, k)
                assert ra[k].dtype == rb[k].dtype
            for key in INFOS:
                assert np.array_equal(ra[4][key], rb[4][key]), (t, key)
            ended += int(ra[4]["_final_obs"].sum())
    a.close()
    b.close()
    return ended


@pytest.mark.parametrize("rules", ["classic", "jokers", "ace-low", "italian"])
@pytest.mark.parametrize("kind", ["legal", "any"])
def test_the_compiled_games_give_the_reference_arrays_in_every_preset(rules, kind):
    assert _compare(rules, kind, 100, opponents="expert") > 0


@pytest.mark.parametrize("rules,kw", [
    ("classic", {"reward": "hand", "max_turns": 40}),
    ("jokers(players=3)", {"seat": "random"}),
    ("jokers(players=3,joker_swap=hand)", {}),
    ("classic(may_draw_when_able=false,match=single)", {}),
    ("ace-low(jokers=2,opening_points=30,match=single)", {"seat": 2}),
    ("classic(players=3,match=single)", {"opponents": ["beginner", "intermediate"]}),
])
@pytest.mark.parametrize("kind", ["legal", "hold", "botch"])
def test_the_compiled_games_give_the_reference_arrays_under_variants(rules, kw, kind):
    kw = {"opponents": "expert", **kw}
    assert _compare(rules, kind, 60, **kw) > 0


def test_the_compiled_games_are_the_same_whatever_the_workers():
    a = fe.VectorEnv("classic", num_envs=4, workers=1, opponents="expert")
    b = fe.VectorEnv("classic", num_envs=4, workers=2, opponents="expert")
    rng = np.random.default_rng(1)
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    assert np.array_equal(oa, ob)
    for _ in range(60):
        acts = _actions("legal", a.action_masks(), rng)
        ra, rb = a.step(acts), b.step(acts)
        for k in range(4):
            assert np.array_equal(ra[k], rb[k])
    a.close()
    b.close()


def test_game_i_of_a_seeded_reset_is_the_single_environment_seeded_s_plus_i():
    v = fe.VectorEnv("classic", num_envs=3, opponents="expert")
    obs, _ = v.reset(seed=20)
    for i in range(3):
        o, _ = fe.SingleAgentEnv("classic", opponents="expert", observation="vector").reset(
            seed=20 + i)
        assert np.array_equal(obs[i], o)


def test_a_python_bot_opponent_is_stepped_by_the_reference_path():
    bot = "fastmach.env.policy:PolicyBot"
    v = fe.VectorEnv("classic(players=2)", num_envs=2, opponents=bot)
    assert v.engine == "reference"
    v.reset(seed=0)
    v.step(np.argmax(v.action_masks(), axis=1))


def test_the_compiled_games_refuse_a_masked_action_naming_the_legal_ones():
    v = fe.VectorEnv("classic", num_envs=2, opponents="expert", illegal="raise")
    v.reset(seed=0)
    while v.action_masks()[0].all():   # (a position where some action is masked)
        v.step(np.zeros(2, dtype=np.int64))
    k = int(np.flatnonzero(~v.action_masks()[0])[0])
    with pytest.raises(FastmachError, match=rf"game 0: action {k} \(.*\) is masked now; legal: 0 draw"):
        v.step(np.array([k, 0]))
    with pytest.raises(FastmachError, match=r"game 0: action must be an integer 0..8, got 9"):
        v.step(np.array([9, 0]))
    with pytest.raises(FastmachError, match="engine must be one of compiled, reference"):
        fe.VectorEnv("classic", num_envs=2, engine="fast")


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_refused_step_moves_no_game_whatever_the_workers(workers, engine):
    """A masked action in the last game (a worker's share where workers=2) is refused
    before any game moves: the next legal steps give the arrays of games never refused."""
    def env():
        v = fe.VectorEnv("classic", num_envs=4, workers=workers, opponents="expert",
                         illegal="raise", engine=engine)
        v.reset(seed=5)
        return v
    a, b = env(), env()
    try:
        rng = np.random.default_rng(1)
        for _ in range(3):
            m = a.action_masks()
            acts = np.argmax(rng.random(m.shape) * m, axis=1)
            a.step(acts)
            b.step(acts)
        m = a.action_masks()
        bad = np.argmax(m, axis=1)
        bad[3] = 9
        with pytest.raises(FastmachError, match=r"game 3: action must be an integer 0..8"):
            a.step(bad)
        for _ in range(5):
            m = a.action_masks()
            assert (m == b.action_masks()).all()
            acts = np.argmax(rng.random(m.shape) * m, axis=1)
            oa, ra, ta, _, _ = a.step(acts)
            ob, rb, tb, _, _ = b.step(acts)
            assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
    finally:
        a.close()
        b.close()


def test_a_masked_action_is_played_as_the_draw_flagged_and_warned_once():
    v = fe.VectorEnv("classic", num_envs=2, opponents="expert")
    v.reset(seed=0)
    with pytest.warns(UserWarning, match="masked action"):
        _, _, _, _, info = v.step(np.array([9, -1]))
    assert info["illegal"].tolist() == [True, True]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, _, _, _, info = v.step(np.array([42, 0]))
    assert info["illegal"].tolist() == [True, False]


@pytest.mark.parametrize("workers", [1, 2])
def test_an_observation_array_still_held_is_never_written_again(workers):
    """The step's observation arrays are handed out again only once nothing holds them:
    one kept (or a view of one) keeps its values through later steps."""
    v = fe.VectorEnv("classic", num_envs=3, workers=workers, opponents="expert")
    try:
        v.reset(seed=2)
        rng = np.random.default_rng(0)

        def step():
            m = v.action_masks()
            return v.step(np.argmax(rng.random(m.shape) * m, axis=1))[0]

        kept = step()
        snap = kept.copy()
        row = step()[1]   # (a view: its array is held through it)
        row_snap = row.copy()
        ids = set()
        for _ in range(12):
            ids.add(id(step()))
        assert np.array_equal(kept, snap) and np.array_equal(row, row_snap)
        assert len(ids) <= 3   # (the arrays dropped at once are reused)
    finally:
        v.close()


def test_the_workers_spin_or_sleep_to_the_same_games():
    runs = []
    for spin in (0, 0.002):
        v = fe.VectorEnv("classic", num_envs=4, workers=2, opponents="expert", spin=spin)
        try:
            out = [v.reset(seed=8)[0]]
            rng = np.random.default_rng(3)
            for _ in range(20):
                m = v.action_masks()
                o, r, *_ = v.step(np.argmax(rng.random(m.shape) * m, axis=1))
                out += [o, r]
        finally:
            v.close()
        runs.append(out)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))
    with pytest.raises(FastmachError, match=r"spin must be a number of seconds in \[0, 1\], got -1"):
        fe.VectorEnv("classic", num_envs=2, spin=-1)
