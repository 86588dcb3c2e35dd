"""Python bots: the ``Bot`` protocol, the ``Observation`` a bot sees, and its seat in the
compiled engine.

A bot is any object with ``act(obs) -> Play | Draw | Pass``. It plays wherever a compiled
strategy does (``play_games``, ``fastmach play --strategies``, ``Game``, study line-ups):
pass the object, or the import path ``"package.module:Class"`` of a class built with no
arguments (a sweep's workers import it; the path is the strategy's name in the rows). A
bot object is called for every game of the batch it was given to: keep it stateless, or
derive what it needs from the observation, so games stay reproducible on any number of
workers.

The observation is the bot's own copy, immutable (tuples, a frozen record, its own copy of
the rules): nothing a bot does to it reaches the game, and its answer is checked against
the engine's position, never against what the bot was handed.

The engine asks the bot on its seat's turn and applies the answer with the same game flow
as every other strategy. The answer is checked first (``fastmach.game.actions.check_action``):
an illegal action stops the game with a FastmachError naming the seat, the hand, the turn
and the rule broken. A ``Draw`` from an empty stock under ``stock_empty = "play-on"`` is the
pass the engine makes of any draw there.
"""
from __future__ import annotations

import copy
import importlib
import re
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from fastmach.game.actions import Action, Draw, Fail, Pass, Play, check_action, meld_stands
from fastmach.core.cards import JOKER, NCARD
from fastmach.errors import FastmachError
from fastmach.game.history import PublicTurn, from_raw
from fastmach.game.observation import Observation
from fastmach.rules import Rules
from fastmach.solver import opening, solve
from fastmach.strategies._python import PyBot

__all__ = ["Bot", "Observation", "BotStrategy", "load_bot", "bot_name"]

_BOT_PATH_RE = re.compile(r"^\s*[A-Za-z_][\w.]*:[A-Za-z_][\w.]*\s*$")


@runtime_checkable
class Bot(Protocol):
    """A player written in Python: ``act(obs) -> Play | Draw | Pass``."""

    def act(self, obs: Observation) -> Action: ...


@dataclass(frozen=True)
class BotStrategy:
    """A seat played by a Python bot: its name (an import path) and the object, if given."""

    name: str
    bot: object | None = field(default=None, compare=False, repr=False)

    def make(self) -> Bot:
        """The bot object (a new one from the import path)."""
        return self.bot if self.bot is not None else load_bot(self.name)()

    def __str__(self) -> str:
        return self.name


def bot_name(bot: object) -> str:
    """``module:Class`` of a bot object (its strategy name in the rows)."""
    cls = type(bot)
    return f"{cls.__module__}:{cls.__qualname__}"


def load_bot(path: str) -> type:
    """The class named by ``"package.module:Class"``; FastmachError says what is wrong."""
    mod_name, _, attr = path.strip().partition(":")
    try:
        obj = importlib.import_module(mod_name)
    except ImportError as e:
        raise FastmachError(f"bot {path!r}: cannot import {mod_name!r} ({e})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise FastmachError(f"bot {path!r}: {mod_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(getattr(obj, "act", None)):
        raise FastmachError(f"bot {path!r}: {attr!r} has no act(obs) method")
    return obj


class BotSeat:
    """The engine's callback for one bot seat: position -> checked decision."""

    def __init__(self, bot: Bot, name: str, seat: int, rules: Rules):
        self.bot, self.name, self.seat, self.rules = bot, name, seat, rules
        # the hand's public turns, kept by whoever runs the game (the engine: its raw
        # records, fastmach.game.history.from_raw; the State: PublicTurn records)
        self.public_log: list = []
        self._seen: tuple[list | None, list[PublicTurn]] = (None, [])

    def history(self) -> tuple[PublicTurn, ...]:
        """The public log as PublicTurn records (each raw record converted once)."""
        src, done = self._seen
        if src is not self.public_log or len(done) > len(src):
            src, done = self.public_log, []
            self._seen = (src, done)
        for t in src[len(done):]:
            done.append(t if isinstance(t, PublicTurn) else from_raw(t))
        return tuple(done)

    def __call__(self, seat: int, pos: dict):
        # pos is the engine's position, fresh for this call and never shown to the bot:
        # the bot sees immutable copies, and its answer is checked against pos
        r = self.rules
        counts = pos["hands"][seat]
        hand = np.repeat(np.arange(NCARD), counts).tolist()
        obs = Observation(
            seat=seat, hand=tuple(hand), table=tuple(tuple(m) for m in pos["melds"]),
            stands=tuple(tuple(m) for m in pos["stands"]),
            stock=pos["stock"], hand_sizes=tuple(sum(h) for h in pos["hands"]),
            scores=tuple(pos["scores"]), opened=pos["opened"][seat], rules=copy.copy(r),
            hand_index=pos["hand"], turn=pos["turn"],
            opened_seats=tuple(pos["opened"]), history=self.history())
        action = self.bot.act(obs)
        where = f"bot {self.name!r} at seat {seat}, hand {pos['hand']}, turn {pos['turn']}"
        if not isinstance(action, (Play, Draw, Pass)) or isinstance(action, Fail):
            raise FastmachError(f"{where}: act() returned {action!r}; expected "
                                "fastmach.Play, Draw or Pass")
        try:
            check_action(r, action, seat=seat, hand=counts, melds=pos["melds"],
                         stands=pos["stands"], opened=pos["opened"][seat],
                         stock_left=pos["stock"], draw_passes=True,
                         play_exists=lambda: _play_exists(r, hand, pos, seat))
        except FastmachError as e:
            raise FastmachError(f"{where}: illegal action: {e}") from None
        if isinstance(action, Play):
            placed = np.bincount(action.placed, minlength=NCARD).tolist()
            stands = (action.stands if action.stands is not None
                      else [meld_stands(m, r.ace_high) for m in action.melds])
            return "play", placed, len(action.taken), action.melds, stands
        return ("pass" if isinstance(action, Pass) else "draw"), None, 0, None, None


def _play_exists(rules: Rules, hand: list[int], pos: dict, seat: int) -> bool:
    """Whether the seat can add a card (the exact solver; the opening rule included)."""
    if not hand:
        return False
    if rules.opening_points > 0 and not pos["opened"][seat]:
        return opening(hand, rules, rules.opening_points) is not None
    if rules.joker_swap == "hand" and any(
            c == JOKER and s in hand for m, st in zip(pos["melds"], pos["stands"])
            for c, s in zip(m, st)):
        return True
    return solve(pos["melds"], hand, rules).n_placed > 0


def bot_seat(strategy: BotStrategy, seat: int, ctx, rules: Rules):
    """The compiled seat (``_python.PyBot``) that asks this bot."""
    return PyBot(ctx, BotSeat(strategy.make(), strategy.name, seat, rules))
