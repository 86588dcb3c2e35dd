"""Nothing a Python bot does to its observation reaches the game: the observation is the
bot's own immutable copy, and its answer is checked against the engine's position (a
bot that rewrites its view of the table or of its hand has its play rejected)."""
from __future__ import annotations

import dataclasses

import pytest

import fastmach
from fastmach.errors import FastmachError
from fastmach.game.log_reader import replay
from fastmach.engine import run_play
from fastmach.study import Study
from fastmach.study.plan import SweepError
from fastmach.study.driver import run_study

RULES = "classic(match=single)"


class TableClearer:
    """Empties its view of the table (in place where it can, else by force) and lays its
    hand-only melds as the whole table."""

    def act(self, obs):
        try:
            obs.table.clear()
            obs.stands.clear()
        except AttributeError:
            object.__setattr__(obs, "table", ())
            object.__setattr__(obs, "stands", ())
        sol = fastmach.solve([], list(obs.hand), obs.rules)
        return fastmach.Play(sol.melds, sol.placed) if sol.placed else fastmach.Draw()


class HandAppender:
    """Forces a card it does not hold into its view of the hand, and plays it."""

    def act(self, obs):
        for c in range(52):
            if c in obs.hand:
                continue
            try:
                obs.hand.append(c)
            except AttributeError:
                object.__setattr__(obs, "hand", obs.hand + (c,))
            sol = fastmach.solve(obs.table, list(obs.hand), obs.rules)
            if c in sol.placed:
                return fastmach.Play(sol.melds, sol.placed)
            object.__setattr__(obs, "hand", tuple(obs.hand[:-1]))
        return fastmach.Draw()


class Mutator:
    """Tries to change its observation in place; records what each attempt raised."""

    def __init__(self):
        self.raised = []

    def act(self, obs):
        for attempt in (lambda: obs.table.clear(), lambda: obs.stands.clear(),
                        lambda: obs.hand.append(0), lambda: setattr(obs, "table", ()),
                        lambda: setattr(obs.rules, "decks", 3)):
            try:
                attempt()
                self.raised.append(None)
            except (AttributeError, TypeError, dataclasses.FrozenInstanceError) as e:
                self.raised.append(type(e))
        sol = fastmach.solve(obs.table, obs.hand, obs.rules)
        return fastmach.Play(sol.melds, sol.placed) if sol.placed else fastmach.Draw()


class ShortReadings:
    """Plays the maximum placement with one reading too few per meld (the engine would
    keep a table without those cards)."""

    def act(self, obs):
        sol = fastmach.solve(obs.table, list(obs.hand), obs.rules)
        if not sol.placed:
            return fastmach.Draw()
        return fastmach.Play(sol.melds, sol.placed, stands=[m[:-1] for m in sol.stands])


class Relabeller:
    """Plays the maximum placement saying that its first card stands for another card."""

    def act(self, obs):
        sol = fastmach.solve(obs.table, list(obs.hand), obs.rules)
        if not sol.placed:
            return fastmach.Draw()
        stands = [list(m) for m in sol.stands]
        stands[0][0] = (stands[0][0] + 1) % 52
        return fastmach.Play(sol.melds, sol.placed, stands=stands)


@pytest.mark.parametrize("bot,rule", [
    (TableClearer, r"illegal play: card \w+ missing from the melds"),
    (HandAppender, r"placed \w+ x1 but seat 0 holds 0"),
    (ShortReadings, r"stands: the meld .+ has \d cards and \d readings"),
    (Relabeller, r"stands: (\w+ in .+ must stand for itself|.+ is not a meld)"),
])
def test_a_bot_that_rewrites_its_observation_has_its_play_rejected(bot, rule):
    name = f"{bot.__module__}:{bot.__qualname__}"
    with pytest.raises(FastmachError, match=rf"bot '{name}' at seat 0, hand 0, turn \d+: "
                                            rf"illegal action: {rule}"):
        for rep in range(10):
            fastmach.play_games(RULES, [bot(), "expert", "expert", "expert"], 1, [rep])


def test_the_observation_cannot_be_changed_in_place():
    bot = Mutator()
    ref = fastmach.play_games(RULES, ["expert"] * 4, 4, range(2))
    df = fastmach.play_games(RULES, [bot, "expert", "expert", "expert"], 4, range(2))
    assert bot.raised and all(r is not None for r in bot.raised)
    assert (df["winner"] == ref["winner"]).all() and (df["turns"] == ref["turns"]).all()


STUDY = """\
[study]
name = "cheat"
seed = 11
games = 4
chunk = 2

[grid]
rules = ["classic(match=single)"]
players = [4]
lineup = [["tests.test_bot_observation:TableClearer", "expert"]]
"""


def test_a_cheating_bot_in_a_sweep_is_rejected_not_counted(tmp_path):
    with pytest.raises((SweepError, FastmachError), match="TableClearer"):
        run_study(Study.from_toml(STUDY), tmp_path / "out", workers=1, progress=False)


def test_a_clean_bot_games_log_replays_clean(tmp_path):
    log = tmp_path / "b.jsonl"
    run_play(RULES, "fastmach.strategies.examples:MaxPlacement,expert", 6, 2, log=log,
             progress=False)
    assert len(replay(log)) == 6


def test_a_joker_read_as_a_card_that_breaks_its_meld_is_refused():
    from fastmach.core.cards import parse_cards
    from fastmach.game.actions import Play, check_action
    from fastmach.rules import resolve_rules
    r = resolve_rules("jokers")
    hand = [0] * 53
    for c in parse_cards("5H 6H JK"):
        hand[c] += 1
    run = parse_cards("5H 6H JK")
    args = dict(seat=0, hand=hand, melds=[], stands=[], opened=True, stock_left=10,
                play_exists=lambda: True)
    check_action(r, Play([run], run, stands=[parse_cards("5H 6H 7H")]), **args)
    check_action(r, Play([run], run, stands=[parse_cards("5H 6H 4H")]), **args)
    with pytest.raises(FastmachError, match=r"stands: 5H 6H JK read as 5H 6H 9H is not a meld"):
        check_action(r, Play([run], run, stands=[parse_cards("5H 6H 9H")]), **args)
