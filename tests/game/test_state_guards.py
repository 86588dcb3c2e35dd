"""The State API keeps the game whole whatever its caller hands it: seats out of range and
per-seat lists of the wrong length are errors (not a crash of the compiled engine), an
action is checked and applied from one reading of its fields, nothing the caller keeps is
shared with the game, and the game's random state is never the caller's."""
from __future__ import annotations

import copy
from collections import Counter

import pytest

import fastmach
from fastmach import Draw, Play
from fastmach.errors import FastmachError


def _state(strategies=None):
    return fastmach.Game("classic(match=single)", strategies).new_initial_state(0, 0)


def _at_a_play(s):
    while not any(isinstance(a, Play) for a in s.legal_actions()):
        s.step()
    return next(a for a in s.legal_actions() if isinstance(a, Play))


def _cards(s):
    return (Counter(c for h in s.hands for c in h) + Counter(c for m in s.table for c in m)
            + Counter(s.stock))


@pytest.mark.parametrize("seat", [4, -1, 100000, True, 1.0, "1"])
def test_set_position_refuses_a_current_player_that_is_no_seat(seat):
    with pytest.raises(FastmachError, match="current_player .* is not a seat 0..3"):
        _state().set_position(["AS 2S", "3S", "4S", "5S"], current_player=seat)


def test_set_position_refuses_opened_flags_of_the_wrong_length():
    with pytest.raises(FastmachError, match="1 opened flag"):
        _state().set_position(["AS 2S", "3S", "4S", "5S"], opened=[True])


@pytest.mark.parametrize("attr,value,message", [
    ("current_player", 4, "the current player 4 is not a seat 0..3"),
    ("current_player", -1, "the current player -1 is not a seat 0..3"),
    ("scores", [0], "scores: 1 value"),
    ("failed_last", [False], "failed_last: 1 value"),
    ("opened", [True], "opened: 1 value"),
])
def test_a_state_edited_to_a_seat_out_of_range_is_an_error_not_a_crash(attr, value, message):
    s = _state()
    setattr(s, attr, value)
    for ask in (s.step, s.legal_actions, s.strategy_action):
        with pytest.raises(FastmachError, match=message):
            ask()


def test_a_play_is_applied_as_it_was_checked():
    s = _state()
    legal = _at_a_play(s)

    class Flip(Play):   # legal while checked, a 2-card meld of cards from nowhere after
        def __getattribute__(self, name):
            if name == "melds":
                d = object.__getattribute__(self, "__dict__")
                d["n"] = d.get("n", 0) + 1
                if d["n"] > 1:
                    return ((0, 1),)
            return object.__getattribute__(self, name)

    before = _cards(s)
    rec = s.apply_action(Flip(legal.melds, legal.placed))
    assert [tuple(m) for m in s.table] == [tuple(m) for m in legal.melds]
    assert rec.table == legal.melds and _cards(s) == before


def test_the_callers_lists_are_not_the_games():
    s = _state()
    legal = _at_a_play(s)
    placed = list(legal.placed)
    melds = [list(m) for m in legal.melds]
    a = object.__new__(Play)   # a Play holding the caller's own lists
    for k, v in dict(melds=melds, placed=placed, taken=[], stands=None, rng_after=None).items():
        object.__setattr__(a, k, v)
    s.apply_action(a)
    placed += [51, 50]
    melds[0].append(51)
    assert s.history[-1].placed == legal.placed
    assert s.public_history[-1].placed == legal.placed
    assert s.history[-1].table == legal.melds


def test_an_actions_random_state_from_outside_is_not_the_games():
    lineup = ["expert(error=0.3)"] * 4
    a, b = _state(lineup), _state(lineup)
    a.apply_action(Draw(rng_after=2**70))   # (a value no generator holds)
    b.apply_action(Draw())
    assert a.rng_state == b.rng_state
    for _ in range(30):
        assert a.step() == b.step()
    # the strategies' own decision keeps the random state it left
    c, d = _state(lineup), _state(lineup)
    c.apply_action(c.strategy_action())
    d.step()
    assert c.rng_state == d.rng_state and c.history == d.history


def test_a_shallow_copy_is_an_independent_state():
    s = _state()
    for _ in range(5):
        s.step()
    t = copy.copy(s)
    hands, turns = [list(h) for h in s.hands], len(s.history)
    for _ in range(10):
        t.step()
    assert [list(h) for h in s.hands] == hands and len(s.history) == turns


class _Vandal:
    """A bot that rewrites every record of the history it is shown."""

    def act(self, obs):
        for t in obs.history:
            t.__dict__["placed"] = (0, 0, 0)
        sol = fastmach.solve(obs.table, obs.hand, obs.rules)
        return Play(sol.melds, sol.placed) if sol.placed else Draw()


class _Watcher:
    def __init__(self):
        self.seen = []

    def act(self, obs):
        self.seen.append([t.placed for t in obs.history])
        sol = fastmach.solve(obs.table, obs.hand, obs.rules)
        return Play(sol.melds, sol.placed) if sol.placed else Draw()


def test_a_bots_edits_of_its_history_reach_no_other_seat():
    w = _Watcher()
    fastmach.play_games("classic(match=single)", [_Vandal(), w, "expert", "expert"], 0, [0])
    assert w.seen and all((0, 0, 0) not in seen for seen in w.seen)
    # the State's own public history, on the State's path
    s = fastmach.Game("classic(match=single)", [_Vandal(), "expert", "expert", "expert"]
                      ).new_initial_state(0, 0)
    for _ in range(12):
        if s.is_terminal():
            break
        s.step()
    assert all(t.placed != (0, 0, 0) for t in s.public_history)


class _Quitter:
    def act(self, obs):
        raise GeneratorExit()


def test_a_bot_raising_generator_exit_is_named_as_the_bots_error():
    from fastmach.errors import BotError
    with pytest.raises(BotError, match=r"seat 0.*act\(\) raised GeneratorExit"):
        fastmach.play_games("classic(match=single)", [_Quitter(), "expert", "expert", "expert"],
                            0, [0])


def test_seats_given_as_none_or_as_one_string_are_read_as_the_command_line_reads_them():
    with pytest.raises(FastmachError, match="seats: expected one strategy per seat"):
        fastmach.play_games("classic(match=single)", None, 0, [0])
    g = fastmach.Game("classic(match=single)", "expert,beginner,expert,beginner")
    assert [str(s) for s in g.seats] == ["expert", "beginner", "expert", "beginner"]
    with pytest.raises(FastmachError, match="1 strategies given for 4 players"):
        fastmach.Game("classic(match=single)", "expert")   # (not read letter by letter)
