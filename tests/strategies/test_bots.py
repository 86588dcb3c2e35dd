"""Python bots (the ``Bot`` protocol) in the compiled engine, ``Game``, the CLI and sweeps.

The contract: a bot that plays the solver's maximum placement gives, under rules with no
opening threshold and no joker swap, exactly the rows of the compiled expert; an illegal
action stops the game with an error naming the seat, the turn and the rule broken.
"""
from __future__ import annotations

import pandas as pd
import pytest

import fastmach
from fastmach.errors import FastmachError
from fastmach.game import Game
from fastmach.study import Study
from fastmach.study.driver import run_study


class MaxPlacement:
    def act(self, obs):
        sol = fastmach.solve(obs.table, obs.hand, obs.rules)
        return fastmach.Play(sol.melds, sol.placed) if sol.placed else fastmach.Draw()


class Recorder:
    """Draws always; keeps what it saw."""

    def __init__(self):
        self.seen = []

    def act(self, obs):
        self.seen.append(obs)
        return fastmach.Draw()


def _without_names(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in df.columns if c.startswith("strategy_")])


def test_max_placement_bot_plays_the_experts_games():
    rules = "classic(match=single)"
    bot = fastmach.play_games(rules, [MaxPlacement(), "expert", "expert", "expert"], 5, range(12))
    ref = fastmach.play_games(rules, ["expert"] * 4, 5, range(12))
    pd.testing.assert_frame_equal(_without_names(bot), _without_names(ref))
    assert bot["strategy_0"].iloc[0].endswith(":MaxPlacement")
    assert isinstance(MaxPlacement(), fastmach.Bot) and not isinstance(object(), fastmach.Bot)


def test_bot_in_every_seat_and_by_import_path():
    rules = "classic(match=single,players=3)"
    path = "fastmach.strategies.examples:MaxPlacement"
    bot = fastmach.play_games(rules, [path] * 3, 9, range(6))
    ref = fastmach.play_games(rules, ["expert"] * 3, 9, range(6))
    pd.testing.assert_frame_equal(_without_names(bot), _without_names(ref))
    assert (bot["strategy_1"] == path).all()


def test_observation_holds_what_the_seat_may_know():
    rec = Recorder()
    fastmach.play_games("classic(match=single)", ["expert", rec, "expert", "expert"], 3, range(1))
    assert rec.seen
    first = rec.seen[0]
    assert first.seat == 1 and len(first.hand) == first.hand_sizes[1]
    assert sum(first.hand_sizes) + first.stock + sum(len(m) for m in first.table) == 104
    assert first.scores == (0, 0, 0, 0) and first.rules.players == 4
    # one turn in four, each a draw while the stock lasts
    for a, b in zip(rec.seen, rec.seen[1:]):
        assert b.turn - a.turn == 4
        assert b.hand_sizes[1] == a.hand_sizes[1] + (a.stock > 0)


class Cheater:
    """Places a card it does not hold."""

    def act(self, obs):
        missing = next(c for c in range(52) if c not in obs.hand)
        return fastmach.Play(list(obs.table) + [[missing]], [missing])


class BadTable:
    """Places one real card as a meld of its own."""

    def act(self, obs):
        return fastmach.Play(list(obs.table) + [[obs.hand[0]]], [obs.hand[0]])


class Fails:
    def act(self, obs):
        return "draw"


@pytest.mark.parametrize("bot,rule", [
    (Cheater(), "but seat 0 holds 0"),
    (BadTable(), "illegal play"),
    (Fails(), "expected fastmach.Play, Draw or Pass"),
])
def test_illegal_action_names_seat_turn_and_rule(bot, rule):
    with pytest.raises(FastmachError, match=r"seat 0, hand 0, turn \d+.*") as e:
        # seat 0 plays first when the dealer is seat 3
        for rep in range(20):
            fastmach.play_games("classic(match=single)", [bot, "expert", "expert", "expert"], 1,
                                [rep])
    assert rule in str(e.value)


def test_pass_with_a_full_stock_is_illegal():
    class Passer:
        def act(self, obs):
            return fastmach.Pass()

    with pytest.raises(FastmachError, match="pass: only with an empty stock"):
        fastmach.play_games("classic(match=single)", [Passer()] * 4, 1, range(1))


def test_unknown_import_path_is_a_clear_error():
    with pytest.raises(FastmachError, match="cannot import 'no_such_module'"):
        fastmach.play_games("classic", ["no_such_module:Bot"] * 4, 1, range(1))
    with pytest.raises(FastmachError, match="has no 'Nope'"):
        fastmach.play_games("classic", ["fastmach.strategies.examples:Nope"] * 4, 1, range(1))


def test_bot_in_the_state_api_plays_the_engine_game():
    rules = "classic(match=single)"
    g = Game(rules, [MaxPlacement(), "expert", "expert", "expert"])
    st = g.new_initial_state(5, 2).play_out()
    row = fastmach.play_games(rules, [MaxPlacement(), "expert", "expert", "expert"], 5, [2])
    want = row.iloc[0].to_dict()
    got = st.row()
    for k in want:
        if not k.startswith("strategy_"):
            assert got[k] == want[k], k


def test_cli_play_takes_a_bot_import_path(tmp_path, capsys):
    from fastmach.cli import main

    out = tmp_path / "g.parquet"
    rc = main(["play", "--rules", "classic(match=single)", "--strategies",
               "fastmach.strategies.examples:MaxPlacement,expert", "--games", "4", "--seed", "2",
               "--out", str(out)])
    assert rc == 0
    df = pd.read_parquet(out)
    ref = fastmach.play_games("classic(match=single)", ["expert"] * 4, 2, range(4))
    pd.testing.assert_frame_equal(_without_names(df.drop(columns=["rotation"])), _without_names(ref))


STUDY = """\
[study]
name = "bots"
seed = 11
games = 6
chunk = 2

[grid]
rules = ["classic(match=single)"]
players = [4]
lineup = [["fastmach.strategies.examples:MaxPlacement", "expert"]]
rotate = true
"""


def test_sweep_with_a_python_bot_same_table_on_one_and_two_workers(tmp_path):
    study = Study.from_toml(STUDY)
    one = run_study(study, tmp_path / "one", workers=1, progress=False)
    two = run_study(study, tmp_path / "two", workers=2, progress=False)
    pd.testing.assert_frame_equal(one, two)
    assert (one["strategy_0"].isin(["fastmach.strategies.examples:MaxPlacement", "expert"])).all()
    assert len(one) == 6 * 2


def test_the_engine_refuses_a_play_of_cards_the_seat_does_not_hold_whatever_the_check_said(
        monkeypatch):
    # a bot that replaces the Python check (it runs in the game's process): the compiled
    # apply still compares the placed counts with the hand's, and names the bot
    from fastmach.strategies import bots

    monkeypatch.setattr(bots, "check_action", lambda *args, **kwargs: None)
    for fast in (True, False):
        monkeypatch.setattr(bots, "FAST_PATH", fast)
        with pytest.raises(FastmachError, match=r"^bot '.*Cheater' at seat 0, hand 0, turn \d+: "
                           r"illegal action: placed \w+ x1 but seat 0 holds 0$"):
            fastmach.play_games("classic(match=single)", [Cheater(), "expert", "expert",
                                                          "expert"], 1, [0])
