"""What a seat may know: the public history of a hand (fastmach.game.history) in a Python bot's
Observation, in State.observation, the same in the compiled engine and step by step, and
no hidden card (another hand, the stock) in any of it."""
from __future__ import annotations

import numpy as np
import pytest

import fastmach
from fastmach import Draw, Game, Play, solve
from fastmach.game.history import PublicTurn

RULES = ["classic(players=3)", "jokers", "ace-low(jokers=2,match=single)",
         "italian(jokers=2)", "classic(opening_points=30,match=single)"]


class Recorder:
    """Plays the maximum placement (or draws) and keeps every observation it was given."""

    def __init__(self):
        self.seen = []

    def act(self, obs):
        self.seen.append(obs)
        r = obs.rules
        if not (r.opening_points and not obs.opened):
            sol = solve(obs.table, obs.hand, r, trusted=True)
            if sol.n_placed:
                return Play(sol.melds, sol.placed, stands=sol.stands)
        return Draw()


@pytest.mark.parametrize("rules", RULES)
def test_a_bot_sees_the_same_history_in_the_engine_and_step_by_step(rules):
    P = fastmach.Rules.parse(rules).players
    seats = [Recorder(), "expert(error=0.3)", "beginner", "expert", "beginner"][:P]
    fastmach.play_games(rules, seats, 7, [3])
    engine_seen = seats[0].seen
    again = [Recorder() if isinstance(s, Recorder) else s for s in seats]
    Game(rules, again).new_initial_state(7, 3).play_out()
    assert engine_seen and engine_seen == again[0].seen
    assert any(o.history for o in engine_seen)


@pytest.mark.parametrize("rules", RULES)
def test_the_history_retells_every_turn_of_the_hand(rules):
    P = fastmach.Rules.parse(rules).players
    st = Game(rules, (["expert(error=0.3)", "beginner", "expert"] * 2)[:P]).new_initial_state(11, 0)
    P = st.rules.players
    while not st.is_terminal():
        hand = st.hand_index
        sizes = [len(h) for h in st.hands]
        opened = list(st.opened)
        rec = st.step()
        if st.hand_index != hand:
            continue  # the hand ended: a new hand's history starts empty
        t = st.public_history[-1]
        assert isinstance(t, PublicTurn)
        assert (t.turn, t.seat, t.action) == (rec.turn, rec.seat, rec.action)
        assert t.placed == rec.placed and t.taken == rec.taken and t.drawn == len(rec.drawn)
        sizes[t.seat] += t.drawn - len(t.placed) + len(t.taken)
        assert list(t.hand_sizes) == sizes == [len(h) for h in st.hands]
        assert t.opened == (t.action == "play" and not opened[t.seat])
        assert [x.turn for x in st.public_history] == list(range(1, st.turn + 1))
        obs = st.observation((t.seat + 1) % P)
        assert obs.history == st.public_history and obs.opened_seats == tuple(st.opened)


def _permuted_hidden(st, seat, rng):
    """The same position with the cards ``seat`` cannot see (other hands, the stock)
    shuffled among the other hands and the stock, every size kept."""
    P = st.rules.players
    hidden = [c for s in range(P) if s != seat for c in st.hand_of(s)] + st.stock
    hidden = list(rng.permutation(hidden))
    hands, at = [], 0
    for s in range(P):
        if s == seat:
            hands.append(st.hand_of(s))
        else:
            n = len(st.hand_of(s))
            hands.append([int(c) for c in hidden[at:at + n]])
            at += n
    other = st.clone()
    other.set_position(hands, st.table, [int(c) for c in hidden[at:]],
                       current_player=st.current_player, opened=st.opened,
                       stands=st.table_stands)
    return other


@pytest.mark.parametrize("rules", ["classic", "jokers", "ace-low(jokers=2)", "italian"])
def test_permuting_hidden_cards_leaves_an_observation_unchanged(rules):
    rng = np.random.default_rng(5)
    st = Game(rules).new_initial_state(2, 1)
    for k in range(40):
        if st.is_terminal():
            break
        seat = st.current_player
        other = _permuted_hidden(st, seat, rng)
        assert other.hands != st.hands or len(st.stock) + sum(
            len(h) for s, h in enumerate(st.hands) if s != seat) < 2
        assert other.observation(seat) == st.observation(seat)
        st.step()


def test_state_is_exported_with_game():
    assert fastmach.State is fastmach.game.State
    assert isinstance(fastmach.Game("classic").new_initial_state(0), fastmach.State)
