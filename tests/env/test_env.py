"""The learning environments (fastmach.env): PettingZoo's and Gymnasium's own API checks,
macro-actions that are exact legal actions, seeds, rewards, and observations that hold no
hidden card."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test
from tests.game.test_observation import _permuted_hidden

import fastmach.env as fe
from fastmach import Draw, Game, Pass, Play
from fastmach.game.actions import Fail
from fastmach.core.cards import NCARD
from fastmach.errors import FastmachError

# presets, seat counts and the options that change what a seat may do
RULES = ["classic", "jokers", "ace-low", "italian", "classic(players=2)",
         "classic(players=3)", "classic(players=5)", "jokers(players=3,joker_swap=hand)",
         "ace-low(jokers=2,opening_points=30,match=single)", "italian(jokers=2)",
         "classic(may_draw_when_able=false,match=single)", "ace-low(jokers=4,match=single)",
         "jokers(players=5,decks=3,hand_size=15,jokers=2)"]


def _random_game(e, seed, rng, check=None):
    """Play one match with uniformly random legal macro-actions; returns the rewards summed
    per agent."""
    e.reset(seed=seed)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total


@pytest.mark.parametrize("rules", ["classic", "jokers", "ace-low", "italian"])
def test_pettingzoo_api_test_passes(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dict observations: a warning only
        api_test(fe.env(rules), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_pettingzoo_api_test_passes_with_2_to_5_seats(players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(fe.env("classic", players), num_cycles=50)


@pytest.mark.parametrize("rules", RULES)
def test_every_unmasked_macro_action_is_a_legal_action_and_the_mask_is_what_builds(rules):
    """The mask, computed without building a play, says exactly which macro-actions the
    builders (the solver on each holding) make; each is a legal action of its kind."""
    def check(e, agent, obs):
        st = e.unwrapped.game_state
        mask = obs["action_mask"]
        assert mask.any()
        moves = e.unwrapped.table.moves
        for k in range(fe.N_ACTIONS):
            built = moves.build(k)
            assert bool(mask[k]) == (built is not None), (k, fe.ACTIONS[k])
            if mask[k]:
                a = e.unwrapped.action(agent, k)
                kind = (Draw, Pass) if k == fe.DRAW else Fail if k == fe.BOTCH else Play
                assert isinstance(a, kind)
                assert st.is_legal(a), (k, a)
        draw = Pass() if not st.stock and st.rules.stock_empty == "play-on" else Draw()
        assert bool(mask[fe.DRAW]) == st.is_legal(draw)
        assert bool(mask[fe.BOTCH]) == st.can_play(st.current_player)
        assert np.array_equal(obs["observation"][e.unwrapped.table.layout.slices["legal"]], mask)
    _random_game(fe.raw_env(rules), 3, np.random.default_rng(0), check)


def test_the_holding_actions_hold_back_their_cards_and_the_botch_draws_the_penalty():
    from fastmach.core.cards import JOKER
    faces = {c for c in range(52) if c % 13 >= 10}
    e = fe.raw_env("jokers")
    rng = np.random.default_rng(5)
    e.reset(seed=8)
    seen = set()
    for agent in e.agent_iter(600):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        moves = e.unwrapped.table.moves
        for k, held in ((3, {JOKER}), (4, faces), (5, faces | {JOKER})):
            a = moves.build(k)
            if a is not None:
                assert not held & set(a.placed), (fe.ACTIONS[k], a.placed)
                seen.add(k)
        if obs["action_mask"][fe.BOTCH] and "botch" not in seen:
            st = e.unwrapped.game_state
            size, table = len(st.hands[st.current_player]), st.table
            e.step(fe.BOTCH)
            assert e.unwrapped.game_state.history[-1].action == "fail"
            assert e.unwrapped.game_state.table == table
            assert len(e.unwrapped.game_state.hands[st.history[-1].seat]) == size + 3
            seen.add("botch")
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen == {3, 4, 5, "botch"}


def test_max_cards_is_the_expert_play_and_one_card_places_one():
    e = fe.raw_env("classic")
    e.reset(seed=4)
    seen = set()
    rng = np.random.default_rng(1)
    for agent in e.agent_iter(400):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        st = e.unwrapped.game_state
        moves = e.unwrapped.table.moves
        exp = st.expert_action()
        if isinstance(exp, Play):
            assert moves.build(1) is not None and moves.build(1).placed == exp.placed
            seen.add("max")
        if moves.build(6) is not None:
            assert len(moves.build(6).placed) == 1
            seen.add("one")
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen == {"max", "one"}


def test_a_masked_action_is_an_error_naming_the_legal_ones():
    e = fe.raw_env("classic")
    e.reset(seed=0)
    while e.observe(e.agent_selection)["action_mask"].all():
        e.step(fe.DRAW)
    mask = e.observe(e.agent_selection)["action_mask"]
    k = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(FastmachError, match=f"action {k} .* is masked now; legal: 0 draw"):
        e.step(k)
    with pytest.raises(FastmachError, match="integer 0..8"):
        e.step(99)


def test_reset_with_a_seed_deals_the_replicates_of_that_root_seed():
    e = fe.raw_env("ace-low")
    e.reset(seed=9)
    assert e.game_state.dealt == Game("ace-low").new_initial_state(9, 0).dealt
    e.reset()
    assert e.game_state.dealt == Game("ace-low").new_initial_state(9, 1).dealt


def test_the_same_seed_and_actions_give_the_same_episode():
    runs = []
    for _ in range(2):
        e = fe.raw_env("jokers")
        rng = np.random.default_rng(7)
        e.reset(seed=21)
        obs_seen = []
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            obs_seen.append(obs["observation"].copy())
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        runs.append((obs_seen, e.game_state.win_shares()))
    assert len(runs[0][0]) == len(runs[1][0])
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][0], runs[1][0]))
    assert runs[0][1] == runs[1][1]


@pytest.mark.parametrize("rules", ["classic(players=3)", "ace-low(players=3)"])
def test_match_rewards_are_the_win_shares_and_hand_rewards_each_hands_shares(rules):
    e = fe.raw_env(rules)
    total = _random_game(e, 5, np.random.default_rng(2))
    st = e.game_state
    assert [total[a] for a in e.possible_agents] == pytest.approx(st.win_shares())
    e = fe.raw_env(rules, reward="hand")
    total = _random_game(e, 5, np.random.default_rng(2))
    st = e.game_state
    per_hand = np.sum([h.shares for h in st.hand_results], axis=0)
    assert len(st.hand_results) > 1
    assert [total[a] for a in e.possible_agents] == pytest.approx(per_hand.tolist())


def test_max_turns_truncates_the_match():
    e = fe.raw_env("classic", max_turns=10)
    e.reset(seed=0)
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term
            assert not obs["action_mask"].any()   # (a truncated agent may only step None)
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 10


@pytest.mark.parametrize("rules", ["classic", "jokers", "ace-low(jokers=2)", "italian"])
def test_permuting_hidden_cards_leaves_the_encoded_observation_and_mask_unchanged(rules):
    rng = np.random.default_rng(3)
    e = fe.raw_env(rules)
    e.reset(seed=6)
    table = e.unwrapped.table
    for _ in range(30):
        st = table.state
        if st.is_terminal():
            break
        seat = st.current_player
        before = table.observe(seat)
        table.state = _permuted_hidden(st, seat, rng)
        table._moves = None
        after = table.observe(seat)
        assert [table.moves.build(k) for k in range(fe.N_ACTIONS)][1:-1] == \
            [fe.Moves(st.observation(seat), st.game).build(k) for k in range(fe.N_ACTIONS)][1:-1]
        assert np.array_equal(before["observation"], after["observation"])
        assert np.array_equal(before["action_mask"], after["action_mask"])
        table.state = st
        table._moves = None
        e.step(int(rng.choice(np.flatnonzero(before["action_mask"]))))


def test_the_encoding_holds_the_hand_the_table_and_the_public_history():
    e = fe.raw_env("jokers(players=3)")
    rng = np.random.default_rng(4)
    e.reset(seed=2)
    lay = e.unwrapped.table.layout
    for _ in range(25):
        agent = e.agent_selection
        st = e.game_state
        seat = st.current_player
        v = lay.counts(e.observe(agent)["observation"])
        assert v["hand"].tolist() == np.bincount(st.hand_of(seat), minlength=NCARD).tolist()
        assert v["table"].tolist() == st.table_counts().tolist()
        assert v["melds"].sum() == sum(len(m) for m in st.table)
        assert v["hand_sizes"].tolist() == [len(st.hands[(seat + k) % 3]) for k in range(3)]
        placed = np.zeros((3, NCARD), dtype=int)
        for t in st.public_history:
            for c in t.placed:
                placed[(t.seat - seat) % 3, c] += 1
        assert v["placed"].tolist() == np.minimum(placed, lay.copies).tolist()
        assert v["stock"][0] == len(st.stock)
        e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
    assert e.unwrapped.observation_space(e.agent_selection)["observation"].shape == (lay.size,)


@pytest.mark.parametrize("rules", ["classic", "jokers", "ace-low(jokers=2,players=3)",
                                   "italian(players=5)", "jokers(players=2,joker_swap=hand)"])
def test_the_compiled_encoding_is_the_reference_loop_and_within_its_bounds(rules):
    """Every seat's vector, from the incremental C encoder, equals the independent loop
    over the whole Observation (tests/refs/env_encoding.py), and lies in [0, 1]."""
    from tests.refs.env_encoding import reference_encode
    e = fe.raw_env(rules)
    rng = np.random.default_rng(11)
    e.reset(seed=4)
    lay = e.unwrapped.table.layout
    space = e.unwrapped.observation_space(e.possible_agents[0])["observation"]
    for i, agent in enumerate(e.agent_iter(300)):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        st = e.game_state
        for s in range(st.rules.players):
            mask = e.unwrapped.table.mask(s)
            best = None
            if s == st.current_player:
                exp = st.expert_action()
                hand = len(st.hands[s])
                best = ((len(exp.placed) / hand, float(len(exp.placed) - len(exp.taken) == hand))
                        if isinstance(exp, Play) else (0.0, 0.0))
            want = reference_encode(lay, st.observation(s), mask, best)
            got = e.unwrapped.table.observe(s)["observation"]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
            assert space.contains(got)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_render_shows_the_table_and_the_hand_to_play():
    e = fe.raw_env("classic", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "seat" in text and "holds" in text and "legal: draw" in text


def test_gymnasium_env_checker_passes_on_the_single_agent_environment():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_env(fe.SingleAgentEnv(), skip_render_check=True)
        check_env(fe.SingleAgentEnv("jokers(players=3)", observation="vector", seat="random"),
                  skip_render_check=True)


class FirstCard:
    """A Python bot: lays off the first card that fits alone, else draws."""

    def act(self, obs):
        from fastmach import solve
        for c in obs.hand:
            sol = solve(obs.table, [c], obs.rules, trusted=True) if obs.table else None
            if sol is not None and sol.n_placed:
                return Play(sol.melds, sol.placed, stands=sol.stands)
        return Draw()


@pytest.mark.parametrize("opponents", ["beginner", ["expert", FirstCard()]])
def test_single_agent_episode_ends_with_the_learners_win_share(opponents):
    env = fe.SingleAgentEnv("classic(players=3)", opponents=opponents, seat=1)
    obs, info = env.reset(seed=3)
    total, done = info["reward_before"], False
    while not done:
        assert env.game_state.current_player == 1
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        total += r
        done = term or trunc
    assert total == pytest.approx(env.game_state.win_shares()[1])


def test_single_agent_masked_action_is_the_draw_counted_and_warned_once_or_raises():
    env = fe.SingleAgentEnv("classic", opponents="expert")
    obs, _ = env.reset(seed=0)
    while obs["action_mask"].all():
        obs, *_ = env.step(fe.DRAW)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="masked action was played as the draw"):
        _, _, _, _, info = env.step(bad)
    assert info["illegal"] and env.illegal_count == 1
    assert env.game_state.history[-4].action == "draw"
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (once per environment)
        obs, _ = env.reset(seed=0)
        while obs["action_mask"].all():
            obs, *_ = env.step(fe.DRAW)
        _, _, _, _, info = env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert info["illegal"] and env.illegal_count == 2
    strict = fe.SingleAgentEnv("classic", opponents="expert", illegal="raise")
    obs, _ = strict.reset(seed=0)
    while obs["action_mask"].all():
        obs, *_ = strict.step(fe.DRAW)
    with pytest.raises(FastmachError, match="is masked now"):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(FastmachError, match="opponents: 2 given for the 3 other seats"):
        fe.SingleAgentEnv("classic", opponents=["beginner", "expert"])


def test_import_fastmach_needs_no_rl_package_and_env_names_the_extra():
    code = ("import sys; sys.modules['pettingzoo'] = None; sys.modules['gymnasium'] = None\n"
            "import fastmach\n"
            "try:\n    import fastmach.env\nexcept fastmach.FastmachError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert 'pip install "fastmach[rl]"' in out.stdout


def test_the_training_example_runs_and_prints_its_learning_curve(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "train_agent.py"
    spec = importlib.util.spec_from_file_location("train_agent", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--rules", "classic(players=2,match=single)", "--opponents", "expert",
                     "--episodes", "4", "--every", "2", "--eval", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("fair share 0.500")
    assert [line.split()[0] for line in out[2:4]] == ["2", "4"]
    assert out[4].startswith("held-out 2 deals: learned")


def test_an_environment_used_before_reset_says_to_reset_it():
    e = fe.raw_env(rules="classic", players=3)
    with pytest.raises(FastmachError, match=r"call reset\(\) first"):
        e.observe(e.possible_agents[0])
    s = fe.SingleAgentEnv("classic(players=3)")
    with pytest.raises(FastmachError, match=r"call reset\(\) first"):
        s.step(0)


def test_the_raw_environment_stepped_before_reset_or_asked_of_an_unknown_agent_names_it():
    e = fe.raw_env(rules="classic", players=3)
    with pytest.raises(FastmachError, match=r"call reset\(\) first"):
        e.step(0)
    e.reset(seed=1)
    for ask in (e.observe, e.observation_space, e.action_space, lambda a: e.action(a, 0)):
        with pytest.raises(FastmachError, match=r"unknown agent 'player_3': the agents are "
                                                r"player_0, player_1, player_2$"):
            ask("player_3")
    with pytest.raises(FastmachError, match=r"unknown agent \['player_0'\]"):
        e.observe(["player_0"])
    assert e.observation_space("player_2") is e.observation_spaces["player_2"]


def test_single_agent_reset_never_hands_back_a_match_the_others_already_ended():
    """jokers, seed 24229: seat 1 goes first and empties its hand. That deal is no episode:
    reset deals the next replicate, says so, and the learner has a move."""
    s = fe.SingleAgentEnv("jokers", opponents="expert")
    obs, info = s.reset(seed=24229)
    assert info["skipped"] == [0] and s.table.replicate == 1
    assert not s.game_state.is_terminal() and s.game_state.current_player == 0
    assert obs["action_mask"].any() and info["reward_before"] == 0.0
    s.step(int(np.flatnonzero(obs["action_mask"])[0]))
    obs, info = s.reset()
    assert info["skipped"] == [] and s.table.replicate == 2   # (the same sequence each time)
    assert fe.SingleAgentEnv("jokers", opponents="expert").reset(seed=24229)[1]["skipped"] == [0]


@pytest.mark.parametrize("k", [np.array(1), np.int64(1), np.uint8(1), 1])
def test_an_action_discrete_accepts_is_played_by_every_environment(k):
    """Discrete(9).contains takes a 0-d integer array (a policy's tensor.numpy()): each
    environment plays it as that macro-action, and illegal="draw" does not replace it."""
    assert fe.SingleAgentEnv("classic").action_space.contains(k)
    for make in (fe.raw_env, fe.env):
        e = make("classic")
        e.reset(seed=3)
        agent = e.agent_selection
        mask = e.observe(agent)["action_mask"]
        assert mask[1] == 1   # (a play of the most cards exists in this deal)
        e.step(k)
        assert e.game_state.history[-1].action == "play"
    for illegal in ("raise", "draw"):
        s = fe.SingleAgentEnv("classic", opponents="expert", illegal=illegal)
        obs, _ = s.reset(seed=3)
        assert obs["action_mask"][1] == 1
        _, _, _, _, info = s.step(k)
        assert "illegal" not in info
        assert [t.action for t in s.game_state.history if t.seat == 0][0] == "play"
    e = fe.raw_env("classic")
    e.reset(seed=3)
    for bad in (np.array([1]), np.array(1.0), np.bool_(True), 9):   # (Discrete refuses them too)
        assert not e.action_space(e.agent_selection).contains(bad)
        with pytest.raises(FastmachError, match="action must be an integer 0..8"):
            e.step(bad)


@pytest.mark.parametrize("limit", [5, 10, 13])
def test_single_agent_max_turns_truncates_at_that_turn_and_a_step_after_it_is_refused(limit):
    s = fe.SingleAgentEnv("classic", opponents="expert", max_turns=limit)
    obs, _ = s.reset(seed=1)
    truncated = terminated = False
    while not (truncated or terminated):
        obs, _, terminated, truncated, _ = s.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert truncated and s.game_state.total_turns == limit   # (not past it: others stop)
    with pytest.raises(FastmachError, match=r"truncated at max_turns = \d+ \(call reset\)"):
        s.step(0)
    obs, _ = s.reset(seed=1)   # a new episode steps again
    s.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_the_single_agent_reset_takes_a_numpy_integer_seed_and_names_a_bad_one():
    e = fe.SingleAgentEnv("classic(players=3)")
    a, _ = e.reset(seed=np.int64(3))
    b, _ = e.reset(seed=3)
    assert (a["observation"] == b["observation"]).all()
    for bad in (-1, 1.5, True):
        with pytest.raises(FastmachError, match=rf"seed must be a non-negative integer, "
                                                rf"got {bad!r}"):
            e.reset(seed=bad)


def test_the_linear_policy_example_trains_saves_a_player_and_measures_it(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    from fastmach.env.policy import PolicyBot

    root = next(p for p in Path(__file__).resolve().parents if (p / "examples").is_dir())
    path = root / "examples" / "train_linear_policy.py"
    spec = importlib.util.spec_from_file_location("train_linear_policy", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = str(tmp_path / "agent.npz")
    assert mod.main(["--rules", "classic(players=3,match=single)", "--generations", "1",
                     "--candidates", "2", "--deals", "2", "--eval", "3", "--out", out]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("generation   1")
    assert lines[-2].startswith("trained: ") and "learner steps" in lines[-2]
    assert lines[-1].startswith("held-out 3 deals vs three experts: win share")
    bot = PolicyBot(out)
    st = Game("classic(players=3,match=single)", [bot, "expert", "expert"]).new_initial_state(
        1, 0).play_out()
    assert st.is_terminal()
