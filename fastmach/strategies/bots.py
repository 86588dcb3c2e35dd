"""Python bots: the ``Bot`` protocol, the ``Observation`` a bot sees, and its seat in the
compiled engine.

A bot is any object with ``act(obs) -> Play | Draw | Pass``. It plays wherever a compiled
strategy does (``play_games``, ``fastmach play --strategies``, ``Game``, study line-ups,
``compare --lineup``, ``rate``): pass the object, or the import path
``"package.module:Class"``, with the constructor's arguments if any,
``"package.module:Class(k=v,...)"`` (``fastmach.strategies.botspec``: a sweep's workers
rebuild it; the canonical string is the strategy's name in the rows). A
bot object is called for every game of the batch it was given to: keep it stateless, or
derive what it needs from the observation, so games stay reproducible on any number of
workers.

The observation is the bot's own copy, immutable (tuples, a frozen record, its own copy of
the rules): nothing a bot does to it reaches the game, and its answer is checked against
the engine's position, never against what the bot was handed.

The engine asks the bot on its seat's turn and applies the answer with the same game flow
as every other strategy. The answer is checked first: a draw, a pass and a plain play
(no joker taken back, no readings of its own, not an opening) by the compiled check of
the whole answer (``fastmach.strategies._answer``: the cards held, the table's melds, the
hand delta), anything else, and any refusal, by ``fastmach.game.actions.check_action``
(a play's table by the compiled check first, or under ``play_games(check=True)`` by the
independent validator, as every play is then):
an illegal action stops the game with a FastmachError naming the seat, the hand, the turn
and the rule broken. A bot that raises, or whose move takes longer than the seat's
``time_limit`` (seconds, measured around ``act``: a move is not cut short, it is an error
once it returns), stops the game with a BotError naming the bot, the seat, the hand, the
turn and the exception or the time (CLI: exit 1). A ``Draw`` from an empty stock under ``stock_empty = "play-on"`` is the
pass the engine makes of any draw there.
"""
from __future__ import annotations

import copy
import sys
import time
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

import numpy as np

from fastmach.game.actions import Action, Draw, Fail, Pass, Play, check_action, meld_stands
from fastmach.core.cards import JOKER, NCARD
from fastmach.errors import BotError, FastmachError
from fastmach.game.ability import play_exists
from fastmach.game.history import PublicTurn
from fastmach.game.observation import Observation
from fastmach.rules import Rules
from fastmach.strategies._python import PyBot
from fastmach.strategies.botspec import BotSpec, load_bot

__all__ = ["Bot", "Observation", "BotStrategy", "load_bot", "bot_name"]

#: the bot seat's compiled observation and answer check (fastmach.strategies._python,
#: _answer); False: the Python ones (BotSeat.__call__), their reference in the tests
FAST_PATH = True


@runtime_checkable
class Bot(Protocol):
    """A player written in Python: ``act(obs) -> Play | Draw | Pass``."""

    def act(self, obs: Observation) -> Action: ...


@dataclass(frozen=True)
class BotStrategy:
    """A seat played by a Python bot: its name (the canonical strategy string, see
    ``fastmach.strategies.botspec``), the object if given, else the parsed import path
    with the constructor's arguments; ``time_limit`` seconds per move, if any."""

    name: str
    bot: object | None = field(default=None, compare=False, repr=False)
    spec: BotSpec | None = field(default=None, compare=False, repr=False)
    time_limit: float | None = None

    @classmethod
    def of_spec(cls, spec: BotSpec) -> "BotStrategy":
        return cls(str(spec), spec=spec, time_limit=spec.time_limit)

    def make(self) -> Bot:
        """The bot object (a new one from the import path and its arguments; an isolated
        bot: its proxy, the bot built in its own process)."""
        if self.bot is not None:
            return cast(Bot, self.bot)
        spec = self.spec or BotSpec(self.name)
        if spec.isolated:
            from fastmach.strategies.isolation import IsolatedBot  # subprocess: only here

            return IsolatedBot(spec.path, dict(spec.kwargs), spec.time_limit)
        return cast(Bot, load_bot(spec.path)(**dict(spec.kwargs)))   # (act() checked on load)

    def __str__(self) -> str:
        return self.name


def bot_name(bot: object) -> str:
    """``module:Class`` of a bot object (its strategy name in the rows)."""
    cls = type(bot)
    return f"{cls.__module__}:{cls.__qualname__}"


_new = object.__new__


class BotSeat:
    """The engine's callback for one bot seat: position -> checked decision."""

    def __init__(self, bot: Bot, name: str, seat: int, rules: Rules,
                 time_limit: float | None = None, strict: bool = False):
        self.bot, self.name, self.seat, self.rules = bot, name, seat, rules
        self.time_limit, self.strict = time_limit, strict
        # the hand's public turns (PublicTurn records), kept by whoever runs the game (the
        # engine, the State) and shown as a tuple
        self.public_log: list[PublicTurn] = []
        self._src: list[PublicTurn] = []     # the records of public_log copied so far ...
        self._shown: list[PublicTurn] = []   # ... and their copies, the bot's own
        # the bot's own copy of the rules, made once: whatever it does to it stays its own
        # (the game checks against self.rules), and the solver's record of it is reused
        self._rules_shown = copy.copy(rules)

    def history(self) -> tuple[PublicTurn, ...]:
        """The public log so far, as this seat's own copies of its records (made once
        each): what the bot does to them never reaches the game or another seat."""
        log, src, shown = self.public_log, self._src, self._shown
        n = len(src)
        if len(log) < n or (n and log[n - 1] is not src[n - 1]) or (n and log[0] is not src[0]):
            src, shown, n = [], [], 0   # (another hand's log: copied again)
        for t in log[n:]:
            c = _new(PublicTurn)
            c.__dict__.update(t.__dict__)   # (immutable fields: ints, strings, tuples)
            src.append(t)
            shown.append(c)
        self._src, self._shown = src, shown
        return tuple(shown)

    def observation(self, seat: int, pos: dict) -> Observation:
        """The seat's Observation of the engine's position ``pos`` (Python data; the
        compiled seat makes the same one from the position itself)."""
        counts = pos["hands"][seat]
        return Observation(
            seat=seat, hand=tuple(np.repeat(np.arange(NCARD), counts).tolist()),
            table=tuple(map(tuple, pos["melds"])), stands=tuple(map(tuple, pos["stands"])),
            stock=pos["stock"], hand_sizes=tuple(map(sum, pos["hands"])),
            scores=tuple(pos["scores"]), opened=pos["opened"][seat], rules=self._rules_shown,
            hand_index=pos["hand"], turn=pos["turn"],
            opened_seats=tuple(pos["opened"]), history=self.history())

    def ask(self, seat: int, obs: Observation) -> Action:
        """The bot's answer to ``obs``: a Play, Draw or Pass object (its type checked, not
        its legality); its exception, its time over the limit or another answer is an
        error naming the bot, the seat, the hand and the turn."""
        t0 = time.perf_counter()
        try:
            action = self.bot.act(obs)
        except (KeyboardInterrupt, SystemExit):
            raise   # (Ctrl-C stops the run; a bot's sys.exit is named by the command)
        except BaseException as e:   # GeneratorExit and the like: the bot's error too
            raise self.raised(seat, obs, e) from e
        took = time.perf_counter() - t0
        if self.time_limit is not None and took > self.time_limit:
            raise BotError(f"{self._where(seat, obs.hand_index, obs.turn)}: act() took "
                           f"{took:.3f} s, over the time limit of {self.time_limit:g} s")
        if not is_answer(action):
            raise self.returned(seat, obs, action)
        return action

    def raised(self, seat: int, obs: Observation, e: BaseException) -> BotError:
        """The error of a bot whose act() raised ``e``."""
        return BotError(f"{self._where(seat, obs.hand_index, obs.turn)}: act() raised "
                        f"{_type_name(e)}: {e}")

    def returned(self, seat: int, obs: Observation, action: object) -> FastmachError:
        """The error of a bot whose act() returned something other than an answer."""
        return FastmachError(f"{self._where(seat, obs.hand_index, obs.turn)}: act() "
                             f"returned {action!r}; expected fastmach.Play, Draw or Pass")

    def checked(self, seat: int, action: Action, pos: dict):
        """``action`` checked against the engine's position ``pos`` (fastmach.game.actions;
        a play's table by the compiled check first unless strict) as the engine's
        decision ``(kind, placed counts, taken, melds, stands)``; an illegal action is a
        FastmachError naming the seat, the hand, the turn and the rule."""
        r = self.rules
        counts = pos["hands"][seat]
        if isinstance(action, Play):   # judged and applied from one reading of each field
            try:
                action = Play(action.melds, action.placed, action.taken, stands=action.stands)
            except (TypeError, ValueError, OverflowError) as e:
                raise FastmachError(f"{self._where(seat, pos['hand'], pos['turn'])}: illegal "
                                    f"action: the play holds something other than card "
                                    f"ids ({e})") from None
        try:
            check_action(r, action, seat=seat, hand=counts, melds=pos["melds"],
                         stands=pos["stands"], opened=pos["opened"][seat],
                         stock_left=pos["stock"], draw_passes=True, strict=self.strict,
                         play_exists=lambda: play_exists(
                             r, np.repeat(np.arange(NCARD), counts).tolist(), pos["melds"],
                             pos["stands"], pos["opened"][seat]))
        except FastmachError as e:
            raise FastmachError(f"{self._where(seat, pos['hand'], pos['turn'])}: illegal "
                                f"action: {e}") from None
        if isinstance(action, Play):
            placed = np.bincount(action.placed, minlength=NCARD).tolist()
            stands = (action.stands if action.stands is not None  # checked: readings
                      else [meld_stands(m, r.ace_high) if JOKER in m else m
                            for m in action.melds])
            return "play", placed, len(action.taken), action.melds, stands
        return ("pass" if isinstance(action, Pass) else "draw"), None, 0, None, None

    def __call__(self, seat: int, pos: dict):
        """The whole turn in Python (the reference of the compiled seat's fast path):
        the observation of ``pos``, the bot's answer, its check."""
        # pos is the engine's position, fresh for this call and never shown to the bot:
        # the bot sees immutable copies, and its answer is checked against pos
        return self.checked(seat, self.ask(seat, self.observation(seat, pos)), pos)

    def _where(self, seat: int, hand: int, turn: int) -> str:
        return f"bot {self.name!r} at seat {seat}, hand {hand}, turn {turn}"


def is_answer(action: object) -> bool:
    """Whether ``action`` is a bot's answer: a Play, Draw or Pass (a Fail is not)."""
    return isinstance(action, (Play, Draw, Pass)) and not isinstance(action, Fail)


def _type_name(e: BaseException) -> str:
    """The exception's type name (for a bot in its own process: the type it raised there;
    such an error exists only once the isolation module is loaded)."""
    isolation = sys.modules.get("fastmach.strategies.isolation")
    if isolation is not None and isinstance(e, isolation.RemoteError):
        return e.remote_type
    return type(e).__name__


def bot_seat(strategy: BotStrategy, seat: int, ctx, rules: Rules, strict: bool = False):
    """The compiled seat (``_python.PyBot``) that asks this bot; a constructor that raises
    is a FastmachError naming the bot and the seat (before any game). ``strict``: every
    play's table goes through the independent validator, not the compiled check first
    (``play_games(check=True)``)."""
    try:
        bot = strategy.make()
    except FastmachError:
        raise
    except Exception as e:
        raise FastmachError(f"bot {strategy.name!r} at seat {seat}: its constructor raised "
                            f"{_type_name(e)}: {e}") from None
    return PyBot(ctx, BotSeat(bot, strategy.name, seat, rules, strategy.time_limit, strict),
                 FAST_PATH)
