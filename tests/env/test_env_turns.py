"""The other seats' turns played in C (fastmach.env._turns, ``turns="compiled"``) against
the reference: the State's own steps (``turns="reference"``). Same seed, same learner
actions: the same observations, masks, rewards, ends and the same State after every step
(every hand, the table, the stock, the records of every turn, the counters)."""
from __future__ import annotations

import numpy as np
import pytest

import fastmach.env as fe
from fastmach import Game, Play
from fastmach.env._probe import Probe
from fastmach.env._turns import Turns
from fastmach.env.moves import N_ACTIONS
from fastmach.errors import FastmachError

# the presets, and the options that change the turn flow the compiled path plays: matches
# of several hands, a stock that ends the hand, the block of a round nobody can play in,
# jokers taken back, the obligation to play, 2 to 5 seats
RULES = ["classic", "jokers", "italian", "ace-low",
         "classic(match=threshold:60)", "jokers(match=rotations:1,players=3)",
         "classic(stock_empty=ends-hand,match=single)",
         "ace-low(blocked_when=nobody-can-play,match=single,players=2)",
         "jokers(players=3,joker_swap=hand)", "classic(may_draw_when_able=false,match=single)",
         "italian(players=5)"]
#: the seeds: drawn once from a fixed generator (random deals, the same at every run)
SEEDS = np.random.default_rng(44).integers(0, 2**31, size=len(RULES)).tolist()
_SKIP = {"game", "rules", "_issued"}


def _state(st) -> dict:
    """Everything a State holds that its steps change (its tables as tuples, the
    counters without zeros)."""
    d = {k: v for k, v in st.__dict__.items() if k not in _SKIP}
    d["_hands"] = st._hands.tolist()
    d["_melds"] = [tuple(m) for m in st._melds]
    d["_stands"] = [tuple(m) for m in st._stands]
    d["stats"], d["hand_stats"] = +st.stats, +st.hand_stats
    return d


def _pair(rules, **kw):
    return [fe.SingleAgentEnv(rules, observation="vector", turns=t, **kw)
            for t in ("compiled", "reference")]


def _same(a, b, where):
    ka, kb = _state(a), _state(b)
    assert ka.keys() == kb.keys(), where
    for k in kb:
        assert ka[k] == kb[k], f"{where}: State.{k} differs"


def _play_both(envs, seed, steps, rng, taken=None):
    """Step both environments with the same random legal actions (a reset after each
    episode), comparing everything after every step; returns (hands, episodes) ended."""
    out = [e.reset(seed=seed) for e in envs]
    assert np.array_equal(out[0][0], out[1][0])
    assert out[0][1]["reward_before"] == out[1][1]["reward_before"]
    ended = hands = 0
    for i in range(steps):
        before = len(envs[1].game_state.hand_results)
        mask = envs[1].action_masks()
        assert np.array_equal(envs[0].action_masks(), mask), i
        a = int(rng.choice(np.flatnonzero(mask)))
        if taken is not None:
            taken.add(a)
        r = [e.step(a) for e in envs]
        assert np.array_equal(r[0][0], r[1][0]), f"step {i}: observations differ"
        assert r[0][1:4] == r[1][1:4], f"step {i}: reward or end differs"
        assert np.array_equal(r[0][4]["action_mask"], r[1][4]["action_mask"])
        _same(envs[0].game_state, envs[1].game_state, f"step {i}")
        hands += len(envs[1].game_state.hand_results) > before
        if r[0][2] or r[0][3]:
            ended += 1
            out = [e.reset() for e in envs]
            assert np.array_equal(out[0][0], out[1][0])
            _same(envs[0].game_state, envs[1].game_state, f"reset after step {i}")
    return hands, ended


@pytest.mark.parametrize("rules,seed", list(zip(RULES, SEEDS)))
def test_the_compiled_turns_give_the_reference_episodes(rules, seed):
    envs = _pair(rules, opponents="expert", reward="hand")
    rng = np.random.default_rng(seed)
    hands, _ = _play_both(envs, seed, 250, rng)
    assert hands >= 1   # (the ends of hands too)


def test_every_action_and_truncation_and_other_opponents_give_the_reference_episodes():
    rng = np.random.default_rng(5)
    taken: set[int] = set()
    for rules, kw in [
            ("classic", {"opponents": "beginner", "max_turns": 25}),
            ("jokers", {"opponents": ["intermediate", "expert(error=0.3)", "strong"],
                        "seat": "random"}),
            ("ace-low(match=threshold:80)", {"opponents": "beginner", "reward": "match"}),
            ("italian", {"opponents": "expert", "max_turns": 7, "seat": 2})]:
        envs = _pair(rules, **kw)
        assert envs[0].table._turns is not None   # (compiled strategies: the C path)
        _, ended = _play_both(envs, int(rng.integers(2**31)), 200, rng, taken)
        assert ended >= 1   # (truncated at max_turns, or the match over)
    assert taken == set(range(N_ACTIONS))   # every macro-action was played


def test_turns_play_to_a_seat_and_to_a_turn_limit_as_the_states_steps():
    for rules in ("jokers", "classic(match=threshold:40)"):
        game = Game(rules, ["expert", "beginner", "intermediate", "expert"])
        turns = Turns(game._engine)
        for rep in range(3):
            a, b = game.new_initial_state(3, rep), game.new_initial_state(3, rep)
            limit = 20
            while not b.is_terminal():
                seat = (b.current_player + 2) % 4
                n = turns.play(a, seat, limit)
                k = 0
                while not b.is_terminal() and b.current_player != seat \
                        and b.total_turns < limit:
                    b.step()
                    k += 1
                assert n == k
                _same(a, b, f"{rules} replicate {rep} turn {b.total_turns}")
                if b.is_terminal():
                    break
                if b.total_turns >= limit:
                    limit += 20
                else:   # (the seat's own turn: its strategy plays it on both)
                    a.step()
                    b.step()


def test_a_python_bot_seat_is_played_by_the_state_and_a_bad_turns_is_named():
    bot = "fastmach.env.policy:PolicyBot"
    env = fe.SingleAgentEnv("classic", opponents=[bot, "expert", "expert"])
    assert env.table._turns is None   # (a Python bot: the reference path)
    obs, _ = env.reset(seed=1)
    assert obs["action_mask"].any()
    with pytest.raises(FastmachError, match="turns must be one of compiled, reference"):
        fe.SingleAgentEnv("classic", turns="fast")


@pytest.mark.parametrize("rules", ["classic", "jokers(joker_swap=hand)", "ace-low(jokers=2)",
                                   "italian"])
def test_the_masks_probe_answers_as_the_states_ability_test(rules):
    """fastmach.env._probe (the table read once) against fastmach.game._ability (read at
    every question) on the positions of real games: every seat's hand, opened or not, on
    the table and on an empty one, and every card alone."""
    game = Game(rules)
    probe = Probe(game.rules)
    eye = np.eye(53, dtype=np.int64)
    asked = 0
    for rep in range(2):
        st = game.new_initial_state(11, rep)
        while not st.is_terminal() and asked < 3000:
            probe.load(st._melds, st._stands)
            for s in range(game.players):
                for opened in (False, True):
                    assert probe.can_play(st._hands[s], opened) == game.ability.can_play(
                        st._hands[s], st._melds, st._stands, opened)
                    assert probe.can_play(st._hands[s], opened, True) == \
                        game.ability.can_play(st._hands[s], (), (), opened)
            for c in range(53):
                assert probe.joins(c) == game.ability.can_play(eye[c], st._melds, st._stands, True)
            asked += 4 * game.players + 53
            st.step()


@pytest.mark.parametrize("rules", ["classic", "jokers", "italian", "ace-low"])
def test_the_tables_moves_are_those_built_from_the_seats_observation_alone(rules):
    """The Table hands its moves the State's counts and fail flags; a bot's moves read them
    from the Observation (fastmach.env.moves): the same mask and the same plays."""
    env = fe.SingleAgentEnv(rules, opponents="expert")
    rng = np.random.default_rng(9)
    env.reset(seed=9)
    for _ in range(120):
        st = env.game_state
        mine, alone = env.table.moves, fe.moves(st.observation(st.current_player))
        assert np.array_equal(mine.mask, alone.mask)
        assert mine.failed_last == alone.failed_last
        for k in np.flatnonzero(mine.mask):
            assert mine.action(int(k)) == alone.action(int(k))
        _, _, te, tr, _ = env.step(int(rng.choice(np.flatnonzero(mine.mask))))
        if te or tr:
            env.reset()


def test_the_compiled_expert_play_is_the_engines_and_only_on_the_position_it_holds():
    env = fe.SingleAgentEnv("jokers", opponents="expert")
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    table, used = env.table, 0
    for _ in range(150):
        st = table.state
        found = table._turns.expert(st, table.game.expert_engine())
        if found is not NotImplemented:
            used += 1
            alone = fe.moves(st.observation(st.current_player)).build(1)
            if found is None:
                assert alone is None
            else:
                assert alone == Play(found[2], found[0], (52,) * found[1])
        _, _, te, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if te or tr:
            env.reset()
    assert used > 100
    st = table.state.clone()   # (another State, or the same one moved on: not held)
    assert table._turns.expert(st, table.game.expert_engine()) is NotImplemented
    st = table.state
    assert table._turns.expert(st, table.game.expert_engine()) is not NotImplemented
    st.set_position(st.hands, st.table, st.stock, current_player=st.current_player,
                    opened=st.opened, stands=st.table_stands)
    assert table._turns.expert(st, table.game.expert_engine()) is NotImplemented
    table.state.step()
    assert table._turns.expert(table.state, table.game.expert_engine()) is NotImplemented


@pytest.mark.parametrize("rules", ["classic", "jokers", "italian", "ace-low"])
def test_the_aec_environment_gives_the_reference_games(rules):
    """Every seat an agent: its draws and plays applied in C or by the State, the same
    observations of every agent, rewards and States."""
    envs = [fe.raw_env(rules, reward="hand", turns=t) for t in ("compiled", "reference")]
    rng = np.random.default_rng(17)
    for e in envs:
        e.reset(seed=17)
    for i in range(300):
        a, b = envs
        if not a.agents:
            for e in envs:
                e.reset()
        assert a.agent_selection == b.agent_selection
        for agent in a.agents:
            oa, ob = a.observe(agent), b.observe(agent)
            assert np.array_equal(oa["observation"], ob["observation"])
            assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert a.rewards == b.rewards and a.terminations == b.terminations
        _same(a.game_state, b.game_state, f"{rules} step {i}")
        agent = a.agent_selection
        if a.terminations[agent] or a.truncations[agent]:
            act = None
        else:
            act = int(rng.choice(np.flatnonzero(a.observe(agent)["action_mask"])))
        for e in envs:
            e.step(act)
