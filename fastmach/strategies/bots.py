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
and the rule broken. A bot that raises (``sys.exit`` too), whose answer cannot be read, or
whose move takes longer than the seat's ``time_limit`` (seconds, measured around ``act``: a
move is not cut short, it is an error once it returns), stops the game with a BotError
naming the bot, the seat, the hand, the turn and the exception or the time (CLI: exit 1).
The answer is read once, on the Python side, into a fresh Play, Draw or Pass (its kind
from ``type(answer)`` alone) before any compiled code sees it. A ``Draw`` from an empty
stock under ``stock_empty = "play-on"`` is the pass the engine makes of any draw there.
"""
from __future__ import annotations

import copy
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, cast, runtime_checkable

import numpy as np

from fastmach.game.actions import Action, Draw, Fail, Pass, Play, check_action, meld_stands
from fastmach.core.cards import JOKER, NCARD
from fastmach.errors import BotError, FastmachError, class_name
from fastmach.errors import shown as shown_value
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
        self.player, self.name, self.seat, self.rules = bot, name, seat, rules
        self.time_limit, self.strict = time_limit, strict
        # what the compiled seat calls as the bot when the seat has no time limit
        # (_python.PyBot.ask: ``callback.bot.act(obs)``): the answer read here, in Python
        self.bot = _Asked(bot, name)
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
        """The bot's answer to ``obs``, as a fresh Play, Draw or Pass (its type checked and
        its fields read once, not its legality); its exception (a ``sys.exit`` too), its
        time over the limit, an answer that cannot be read or another answer is an error
        naming the bot, the seat, the hand and the turn."""
        return _ask(self.player, self.name, seat, obs, self.time_limit)

    def raised(self, seat: int, obs: Observation, e: BaseException) -> Exception:
        """The error of a bot whose act() raised ``e`` (the compiled seat's; an error the
        seat made itself, ``_Stop``: that error, a new one of its class and message)."""
        if type(e) is _Stop:
            return e.error.__class__(*e.error.args)
        return BotError(f"{self._where(seat, obs.hand_index, obs.turn)}: {_raised_text(e)}")

    def returned(self, seat: int, obs: Observation, action: object) -> FastmachError:
        """The error of a bot whose act() returned something other than an answer."""
        return _returned(_where(self.name, seat, obs.hand_index, obs.turn), action)

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
                                    f"ids ({_text(e, str)})") from None
            except KeyboardInterrupt:
                raise
            except BaseException as e:   # (the bot's code, run by reading its fields)
                raise BotError(f"{self._where(seat, pos['hand'], pos['turn'])}: "
                               f"{_unreadable(e)}") from e
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
        return _where(self.name, seat, hand, turn)


class _Asked:
    """The bot as the compiled seat asks it (``act(obs)``): the bot's own ``act``, its
    answer read into a fresh action (``_answer``); an error it makes reaches
    ``BotSeat.raised`` as a ``_Stop``, which gives it back."""

    __slots__ = ("player", "name")

    def __init__(self, player: object, name: str):
        self.player, self.name = player, name

    def act(self, obs: Observation) -> Action:
        seat, hand, turn = obs.seat, obs.hand_index, obs.turn   # (before the bot holds obs)
        try:
            action = self.player.act(obs)   # type: ignore[attr-defined]
        except KeyboardInterrupt:
            raise   # (Ctrl-C stops the run)
        except BaseException as e:   # SystemExit, GeneratorExit and the like: its error too
            raise _Stop(BotError(f"{_where(self.name, seat, hand, turn)}: "
                                 f"{_raised_text(e)}")) from e
        t = type(action)   # (the usual answers made here: a frame less)
        if t is Play:
            try:
                return _copy(action)
            except KeyboardInterrupt:
                raise
            except BaseException:
                pass   # (_answer reads it again, and names what is wrong)
        elif t is Draw:
            return cast(Draw, _new(Draw))
        try:
            return _answer(action, self.name, seat, hand, turn)
        except (BotError, FastmachError) as e:
            raise _Stop(e) from e.__cause__


class _Stop(Exception):
    """Carries the error ``_Asked.act`` made past the compiled seat, which hands what
    ``act`` raised to ``BotSeat.raised``."""

    def __init__(self, error: Exception):
        super().__init__(*error.args)
        self.error = error


def _ask(player: object, name: str, seat: int, obs: Observation,
         time_limit: float | None) -> Action:
    """BotSeat.ask: ``player.act(obs)`` as a fresh Play, Draw or Pass, else the error."""
    hand, turn = obs.hand_index, obs.turn   # (read before the bot holds the observation)
    t0 = time.perf_counter()
    try:
        action = player.act(obs)   # type: ignore[attr-defined]
    except KeyboardInterrupt:
        raise   # (Ctrl-C stops the run)
    except BaseException as e:   # SystemExit, GeneratorExit and the like: the bot's error too
        raise BotError(f"{_where(name, seat, hand, turn)}: {_raised_text(e)}") from e
    took = time.perf_counter() - t0
    if time_limit is not None and took > time_limit:
        raise BotError(f"{_where(name, seat, hand, turn)}: act() took {took:.3f} s, over "
                       f"the time limit of {time_limit:g} s")
    return _answer(action, name, seat, hand, turn)


def _answer(action: object, name: str, seat: int, hand: int, turn: int) -> Action:
    """A new Play, Draw or Pass of the bot's answer ``action`` (a Play: its fields read
    once, as they are; the checks judge them); a BotError naming the bot where reading it
    raises, a FastmachError for anything else (a Fail too). Only the answer's type decides
    (``type(action)``: nothing the object says about itself)."""
    t = type(action)
    try:
        if t is Play or (issubclass(t, Play) and not issubclass(t, Fail)):
            return _copy(cast(Play, action))
    except KeyboardInterrupt:
        raise
    except BaseException as e:   # (the bot's code, run by reading the answer's fields)
        raise BotError(f"{_where(name, seat, hand, turn)}: act() returned a "
                       f"{class_name(action)} that cannot be read: {_type_name(e)}: "
                       f"{_text(e, str)}") from e
    if issubclass(t, Fail) or not issubclass(t, (Draw, Pass)):
        raise _returned(_where(name, seat, hand, turn), action)
    # (as check_action: a Pass first; rng_after: the class's None)
    return cast(Action, _new(Pass if issubclass(t, Pass) else Draw))


def _copy(play: Play) -> Play:
    """A new Play of ``play``'s fields, each read once (as they are: the checks judge
    them; ``rng_after``: the class's None)."""
    p = cast(Play, _new(Play))
    d = p.__dict__
    d["melds"], d["placed"], d["taken"], d["stands"] = (play.melds, play.placed, play.taken,
                                                        play.stands)
    return p


def is_answer(action: object) -> bool:
    """Whether ``action`` is a bot's answer: a Play, Draw or Pass (a Fail is not)."""
    t = type(action)
    return issubclass(t, (Play, Draw, Pass)) and not issubclass(t, Fail)


def _where(name: str, seat: int, hand: int, turn: int) -> str:
    return f"bot {name!r} at seat {seat}, hand {hand}, turn {turn}"


def _returned(where: str, action: object) -> FastmachError:
    return FastmachError(f"{where}: act() returned {_text(action, repr)}; expected "
                         f"fastmach.Play, Draw or Pass")


def _raised_text(e: BaseException) -> str:
    """``act() raised TYPE: MESSAGE`` (a sys.exit named as one)."""
    if issubclass(type(e), SystemExit):
        try:
            code = _text(cast(SystemExit, e).code, repr)
        except KeyboardInterrupt:
            raise
        except BaseException:   # (a subclass's own code)
            code = "..."
        return f"act() called sys.exit({code}) (a bot must return an action or raise, not exit)"
    return f"act() raised {_type_name(e)}: {_text(e, str)}"


def _unreadable(e: BaseException) -> str:
    return f"act() returned a Play that cannot be read: {_type_name(e)}: {_text(e, str)}"


#: the most characters of a bot's object shown in an error
TEXT_LIMIT = 300


def _text(x: object, show: Callable[[object], str]) -> str:
    """``show(x)`` (``str`` or ``repr``) of an object a bot made, cut at TEXT_LIMIT
    characters; where that raises, its type's name."""
    return shown_value(x, TEXT_LIMIT, show)


def _type_name(e: BaseException) -> str:
    """The exception's type name (for a bot in its own process: the type it raised there;
    such an error exists only once the isolation module is loaded)."""
    isolation = sys.modules.get("fastmach.strategies.isolation")
    if isolation is not None and issubclass(type(e), isolation.RemoteError):
        return _text(getattr(e, "remote_type", "?"), str)
    return class_name(e)


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
                            f"{_type_name(e)}: {_text(e, str)}") from None
    return PyBot(ctx, BotSeat(bot, strategy.name, seat, rules, strategy.time_limit, strict),
                 FAST_PATH)
