"""Strategy registry: name -> compiled strategy class + typed parameters; the seats of a table.

A strategy is written as a canonical string, the name alone when every parameter has its
default (``expert``) and otherwise the non-default parameters in declaration order
(``expert(error=0.2)``). Each registered name maps to a compiled class behind one
interface (``_base.pxd``: ``Strategy.decide``, ``Skill.play``): a skill family
(``_expert``, ``_beginner``, ``_intermediate``) wrapped by the tactics (``_tactics``:
objective, keep_jokers, opening, patience, error), or a strategy of its own
(``_lookahead``). ``build_seats`` turns validated strategies into those objects.

A Python bot (``Bot``: ``act(obs) -> Play | Draw | Pass``) takes a seat like any
compiled strategy: pass the object itself, or its import path ``"package.module:Class"``
with the constructor's arguments, ``"package.module:Class(k=v,...)"``, and the seat's
``time_limit=`` seconds per move; sweeps rebuild it in every worker). See
``fastmach.strategies.bots`` and ``fastmach.strategies.botspec``.

Skill (what a player can see), for the maximum placement it looks for:

- ``beginner``: the best melds from the hand alone (the exact solver on an empty table),
  then lay-offs one card at a time onto the table melds as they were (the next card at
  the top, then at the bottom, of a run; the missing suit of a group of three), repeated
  while any card fits (melds in table order, real cards first; a joker only when no real
  card fits). The table is never rearranged. (Lay-offs onto its own new melds never
  happen: the hand-only melds are already maximal.)
- ``intermediate(k)``: for every set S of at most k table melds, the exact solver on the
  cards of S (as the table) plus the hand, the other melds left intact, then the
  beginner's lay-offs onto the intact melds; the best S wins (S = {} is the beginner's
  play, so intermediate >= beginner, and k=1 <= k=2 <= expert). Pruning that loses no
  placement: S is tried only when its melds are connected to the hand by "could share a
  meld" (same rank, or same suit with every rank between them in the pool of S's cards
  and the hand; any joker connects everything). A part of S not connected to the rest and
  the hand can only regroup among itself, so dissolving it places no more hand cards.
  The search stops early when a play empties the hand. (The engine also skips a set whose
  upper bound, from the hand-only value, the hand cards that could join its melds, exact
  small solves and the lay-off chains, cannot beat the best so far: the same play is
  chosen, ties to the earlier set; the tests compare it with the plain search,
  ``_probe.PlainIntermediate``.)
- ``expert``: the exact solver over the whole table.

Tactics (every skill level): ``objective`` 0 = most cards, 1 = most points of the placed
cards (``hand_points`` scheme; ties to more cards); ``keep_jokers`` 1 = play hand jokers
only in a play that empties the hand; ``min_cards`` (patience) = draw instead of a play
placing fewer cards (net) while the stock holds at least ``PATIENCE_STOCK`` cards, unless
the play empties the hand, and never where ``may_draw_when_able`` is false.

Search (``search(budget, policy, opponents, deals)``, ``_search``): candidates are the playout policy's own
play, the expert's maximum placement and that placement restricted to parts of the hand
(without its jokers; without J/Q/K; without both; without the placed cards that could
share a meld with a card kept in hand, the pieces of future melds; without pieces and
jokers; without 10-K and jokers; without 8-K and jokers), the most points placed, and a
draw (where holding is allowed); a play that empties the hand is made at once. Each of
``budget`` rounds deals the cards the seat cannot see (other hands' contents, the stock
order) at random from the cards not in its hand or on the table, sizes kept (``deals=
history``, the default: an opponent seen drawing on its last turn is dealt again until
its hand, less one card as its draw, is one its playout model would draw from), and plays
every candidate out from that deal with the same PRNG, every seat played by the policy
(``strong`` by default, without its botch, ``expert``, or ``holding``: jokers and J/Q/K kept until the play
empties the hand), the opponents seen placing cards while the stock lasted by the expert
(``opponents=observed``, the default). Outcome: the share of the hand's win; the
candidate of the highest mean paired difference from the policy's play replaces it where
that mean clears a one-sided 5% test Bonferroni-adjusted over the candidates, the
variance pooled over them (budget 1 plays the policy's play). ``clairvoyant`` is the same search over the true
position (every hand, the stock order): not a fair player but the ceiling's measuring
stick (the best mean, no sampling error), ``fair=False`` in its registry entry
(``fair_names`` leaves it out).

Fallible (``error=p``): a play fails with chance 1-(1-p)^d, d = the table melds it
dissolves plus the new melds it lays of hand cards alone (000: "Cette annulation pénalise
aussi une nouvelle combinaison tentée sans succès": a new meld tried without success is
penalised too; the reading chosen: each new hand meld is one more chance to botch, like a
dissolved meld, the opening included); for ``beginner`` and ``intermediate`` each intact
meld they lay off onto counts too (their own manipulations; the expert's extensions count
as kept melds). A new meld holding a dissolved meld's cards counts once, as the dissolved
meld. Fallback so that a hand cannot stall: under ``failed_penalty=0`` a player who failed
on their previous turn does not fail this turn.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TypeVar

from fastmach.strategies.bots import Bot, BotStrategy, bot_name, bot_seat
from fastmach.strategies.bots import Observation as Observation  # re-exported
from fastmach.strategies.botspec import load_bot as load_bot  # re-exported
from fastmach.strategies.botspec import BOT_PATH_RE as _BOT_PATH_RE, parse_bot_spec

from fastmach.errors import FastmachError
from fastmach.strategies._base import Context, Skill, Strategy as CompiledStrategy
from fastmach.strategies._beginner import Beginner
from fastmach.strategies._expert import Expert
from fastmach.strategies._intermediate import Intermediate
from fastmach.strategies._lookahead import Lookahead
from fastmach.strategies._mixed import Mixed
from fastmach.strategies._search import DEALS, OPPONENTS, POLICIES, Search, build_search
from fastmach.strategies._strong import Strong
from fastmach.strategies._tactics import (Fallible, KeepJokers, Opening, Patience,
                                          PointsObjective, Skilled)
from fastmach.strategies.trained import Policy, policy_for

_T = TypeVar("_T")


@dataclass(frozen=True)
class Param:
    """One typed strategy parameter with its default and inclusive range."""

    name: str
    kind: type  # int or float
    default: float
    lo: float
    hi: float
    doc: str
    words: tuple[str, ...] = ()  # names of the values 0, 1, ... (accepted for the numbers)

    def coerce(self, strategy: str, text: str) -> float:
        """Parse and range-check the text value of this parameter (a number, or one of
        its ``words``: the canonical form keeps the number)."""
        if text.lower() in self.words:
            return self.words.index(text.lower())
        try:
            value = self.kind(text) if self.kind is float else int(text, 10)
        except ValueError:
            words = f" or one of {', '.join(self.words)}" if self.words else ""
            raise FastmachError(
                f"strategy {strategy!r}: parameter {self.name!r} must be "
                f"{'an integer' if self.kind is int else 'a number'}{words}, got {text!r}"
            ) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise FastmachError(f"strategy {strategy!r}: parameter {self.name!r} must be finite")
        if not (self.lo <= value <= self.hi):
            raise FastmachError(
                f"strategy {strategy!r}: parameter {self.name!r}={text} outside "
                f"[{_fmt(self.lo)}, {_fmt(self.hi)}]"
            )
        return value


@dataclass(frozen=True)
class StrategyKind:
    """A registered strategy: its compiled class, parameters and a one-line description.

    ``cls`` is a skill (``Skill`` subclass, wrapped by the tactics whose parameters it
    declares; ``skill_params`` are handed to the class itself) or a whole strategy
    (``Strategy`` subclass) that ``build(ctx, params, expert, rules)`` makes, ``expert()``
    giving an expert seat and its skill (lookahead plays out with them)."""

    name: str
    cls: type
    params: tuple[Param, ...]
    doc: str
    skill_params: tuple[str, ...] = ()
    build: Callable | None = None
    #: the skill sees fewer plays than the exact solver: under may_draw_when_able = false
    #: the reference State asks this skill's search whether a play exists
    limited_search: bool = False
    fair: bool = True  # False: sees hidden cards (kept out of line-ups unless named)


PATIENCE_STOCK = 10  # "a large stock" for patient players: at least this many cards

ERROR = Param(
    "error", float, 0.0, 0.0, 1.0,
    "fallible player: each table meld a play dissolves adds a chance p of botching it "
    "(table restored, failed_penalty cards drawn); beginner/intermediate: each meld laid "
    "off onto counts too",
)
K = Param("k", int, 2, 1, 3, "table melds the player may dissolve and regroup")
MIN_CARDS = Param(
    "min_cards", int, 0, 0, 20,
    f"patience: draw instead of a play of fewer cards while the stock holds >= "
    f"{PATIENCE_STOCK} cards, unless it empties the hand (0 = off; must play where "
    "may_draw_when_able is false)",
)
OBJECTIVE = Param("objective", int, 0, 0, 1,
                  "0 (or cards): most cards placed, 1 (or points): most hand points placed "
                  "(ties: more cards)", ("cards", "points"))
KEEP_JOKERS = Param("keep_jokers", int, 0, 0, 1,
                    "1 (or true): keep hand jokers until a play that empties the hand",
                    ("false", "true"))
PLAYOUTS = Param("playouts", int, 32, 1, 4096,
                 "Monte Carlo playouts per candidate play")
TACTICS = (ERROR, MIN_CARDS, OBJECTIVE, KEEP_JOKERS)
BUDGET = Param("budget", int, 8, 1, 4096,
               "sampled deals per decision, each candidate played out on every one")
_POLICY_DOC = ("every seat's play in the playouts, and the search's base play: 0 (or "
               "expert), 1 (or holding: jokers and J/Q/K kept until the play empties the "
               "hand), 2 (or strong: the strong player's defaults but botch=false), 3 (or "
               "auto: strong where the rules let a player draw when able, else expert), "
               "4 (or botching: the hand-tuned strong player with its defaults, the botch "
               "included), 5 (or trained, the search's default: the trained player of the "
               "rules in play, the opponents' members drawn by its weights; botching where "
               "none is shipped)")
POLICY = Param("policy", int, POLICIES.index("trained"), 0, len(POLICIES) - 1,
               _POLICY_DOC, POLICIES)
CLAIRVOYANT_POLICY = Param("policy", int, POLICIES.index("auto"), 0, len(POLICIES) - 1,
                           _POLICY_DOC, POLICIES)
_OPPONENTS_DOC = (
    "how the playouts play the other seats: 0 (or policy), 1 (or expert), 2 (or observed: "
    "the expert for a seat the public hand sizes show placing cards without going out "
    "while the stock lasted, the policy for the others)")
OPPONENTS_PARAM = Param(
    "opponents", int, OPPONENTS.index("observed"), 0, len(OPPONENTS) - 1,
    _OPPONENTS_DOC, OPPONENTS)
DEALS_PARAM = Param(
    "deals", int, DEALS.index("history"), 0, len(DEALS) - 1,
    "how the hidden cards are dealt for the playouts: 0 (or uniform: at random), 1 (or "
    "history: an opponent seen drawing on its last turn is dealt a hand from which its "
    "playout model, less the card drawn, would draw too)", DEALS)
STRONG = (
    Param("stock_low", int, 0, 0, 200,
          "holding stops when the stock holds at most this many cards"),
    Param("hand_cap", int, 0, 0, 150,
          "... or when the hand holds at least this many cards (0 = no cap)"),
    Param("rush", int, 0, 0, 20,
          "... or when an opponent holds at most this many cards"),
    Param("keep", int, 2, 0, 2,
          "what a play outside holding keeps back: 0 (or none), 1 (or jokers), 2 (or faces: "
          "jokers and J/Q/K)", ("none", "jokers", "faces")),
    Param("last_round", int, 1, 0, 1,
          "1 (or true): where the stock's end ends the hand (stock_empty=ends-hand), stop "
          "holding once the stock holds at most one card per player (its last round)",
          ("false", "true")),
    Param("botch", int, 1, 0, 1,
          "1 (or true, the default): where a failed manipulation draws more than one card "
          "(failed_penalty > 1), a held turn botches a play on purpose (the table kept, "
          "the penalty drawn) instead of drawing one card, while an opponent holds fewer "
          "than botch_below cards; 0 (or false): it never botches", ("false", "true")),
    Param("botch_below", int, 8, 0, 200,
          "botch only while some opponent holds fewer than this many cards (0: at every "
          "held turn)"),
    Param("keep_from", int, 0, 0, 13,
          "a play outside holding also keeps back the jokers and every card of this rank "
          "and above (A=1 .. K=13; 0 = off: keep alone says)"),
    Param("pass_on", int, 0, 0, 200,
          "on an empty stock where a player may pass, pass on (unless the hand goes out) "
          "while every opponent holds at least this many cards (0 = off: play)"),
    Param("place", int, 0, 0, 2,
          "how a play outside holding places the cards not kept back: 0 (or most) the "
          "maximum placement, 1 (or one) the one card of the most points that a play of it "
          "alone places, 2 (or points) the placement of the most hand points",
          ("most", "one", "points")),
    Param("hold_table", int, 0, 0, 500,
          "hold only while the table holds at least this many cards (0: whatever it holds): "
          "an empty table, where every other seat holds too, is played on"),
)
#: ``strong`` with every parameter at its default is the trained player of the rules in
#: play where one is shipped (``fastmach.strategies.trained``); ``trained=false`` (or any
#: other parameter set) names the hand-tuned player of exactly these parameters
TRAINED = Param("trained", int, 1, 0, 1,
                "1 (or true): with every other parameter at its default, play the trained "
                "player of the rules in play where one is shipped (fastmach train); 0 (or "
                "false): these parameters", ("false", "true"))


def _asks_trained(p: dict[str, float]) -> bool:
    """Whether ``strong`` of parameters ``p`` names the trained player: ``trained`` on and
    every other parameter at its default."""
    return bool(p.get("trained")) and all(p[q.name] == q.default for q in STRONG)


def trained_policy(p: dict[str, float], rules) -> "Policy | None":
    """The shipped policy ``strong`` with parameters ``p`` plays under ``rules`` (where
    ``p`` names the trained player and one is shipped), else None."""
    if rules is None or not _asks_trained(p):
        return None
    return policy_for(str(rules), rules.players)


def seats_trained_strong(lineup: Iterable) -> bool:
    """Whether a line-up seats ``strong`` as the trained player (every parameter at its
    default); a seat that does not parse is left to the line-up's own check."""
    for seat in lineup:
        try:
            s = parse_strategy(seat)
        except FastmachError:
            continue
        if isinstance(s, Strategy) and s.name == "strong" and _asks_trained(s.params):
            return True
    return False


def stand_in_warning(rules, lineup: Iterable) -> str | None:
    """Where a line-up seats the trained ``strong`` under rules that have no shipped trained
    player: the sentence that says the hand-tuned player stands in; else None."""
    if not seats_trained_strong(lineup) or policy_for(str(rules), rules.players) is not None:
        return None
    return (f"strong under {rules} at {rules.players} players: no trained player is shipped "
            f"for these rules, so the hand-tuned strong stands in (tuned for the presets; "
            f"train one with: fastmach train '{rules}' --players {rules.players})")


def _trained_seat(ctx: Context, expert: Callable, rules) -> CompiledStrategy | None:
    """The trained player of ``rules`` (the search's ``policy=trained``), None where no
    policy is shipped."""
    defaults = {q.name: q.default for q in STRONG + (TRAINED,)}
    if trained_policy(defaults, rules) is None:
        return None
    return _build_strong(ctx, defaults, expert, rules)


def _build_strong(ctx: Context, p: dict[str, float], expert: Callable,
                  rules=None) -> CompiledStrategy:
    """The strong player of parameters ``p`` (its expert seat and skill from ``expert``;
    ``place=points`` adds the points objective over that skill), or the trained mixture of
    the rules in play (:func:`trained_policy`): each member built the same way."""
    policy = trained_policy(p, rules)
    if policy is not None:
        members = []
        for text in policy.members:
            member = parse_strategy(text)
            assert isinstance(member, Strategy) and member.name == "strong"
            members.append(_build_strong(ctx, member.params, expert))
        return Mixed(ctx, members, policy.weights)
    xstrat, skill = expert()
    values = [int(p[q.name]) for q in STRONG]
    points = PointsObjective(ctx, skill) if p["place"] == 2 else None
    return Strong(ctx, xstrat, skill, *values, points=points)

REGISTRY: dict[str, StrategyKind] = {
    "expert": StrategyKind(
        "expert", Expert, TACTICS,
        "exact solver over the whole table: plays the maximum placement (most hand cards) "
        "whenever one exists, draws otherwise; before opening, the best hand-only melds if "
        "they reach opening_points",
    ),
    "beginner": StrategyKind(
        "beginner", Beginner, TACTICS,
        "new melds from the hand alone (exact), then lay-offs onto the ends of runs and "
        "groups of three, one card at a time while any fits; never rearranges the table",
        limited_search=True,
    ),
    "intermediate": StrategyKind(
        "intermediate", Intermediate, (K,) + TACTICS,
        "may dissolve up to k table melds and regroup their cards with the hand (exact "
        "over every such set), other melds intact, plus lay-offs onto the intact melds",
        skill_params=("k",), limited_search=True,
    ),
    "patient": StrategyKind(
        "patient", Expert,
        (Param("min_cards", int, 3, 0, 20, MIN_CARDS.doc), ERROR, OBJECTIVE, KEEP_JOKERS),
        "the expert's skill, but draws instead of a play of fewer than min_cards cards "
        f"while the stock holds >= {PATIENCE_STOCK} cards (unless the play empties the hand)",
    ),
    "lookahead": StrategyKind(
        "lookahead", Lookahead, (PLAYOUTS,),
        "the best of its candidates by Monte Carlo playouts (determinised hidden hands "
        "and stock, played out by experts, the same deals for every candidate; mean "
        "outcome: win, then fewer cards left): all of the expert's maximum placement, "
        "some of it (keeping the jokers; placing the most points), or none (a draw)",
        build=lambda ctx, p, expert, rules: Lookahead(ctx, *expert(), int(p["playouts"])),
    ),
    "search": StrategyKind(
        "search", Search, (BUDGET, POLICY, OPPONENTS_PARAM, DEALS_PARAM),
        "the best of its candidates by playouts of `budget` sampled deals of the hidden "
        "cards (the same deals for every candidate; win share, then fewer cards left): the "
        "policy's play (by default the trained strong player's), the maximum "
        "placement and its holding variants (keeping the jokers, J/Q/K, both, the pieces of future melds, "
        "pieces and jokers, 10-K and jokers, 8-K and jokers; the most points), a draw; it "
        "leaves the policy's play for the best mean candidate where a one-sided 5% test, "
        "Bonferroni-adjusted over the candidates (the variance pooled over them), says it "
        "is better (a candidate no better than it after half the rounds leaves the race); "
        "the opponents seen placing cards early are played as experts, and an "
        "opponent seen drawing is dealt a hand its model would draw from (opponents, "
        "deals); budget 1 is the policy itself",
        build=lambda ctx, p, expert, rules: build_search(
            ctx, p, expert, trained=_trained_seat(ctx, expert, rules)),
    ),
    "clairvoyant": StrategyKind(
        "clairvoyant", Search, (Param("budget", int, 1, 1, 4096,
                                      "playouts per candidate (the true deal each time)"),
                                CLAIRVOYANT_POLICY, OPPONENTS_PARAM),
        "a measuring stick, not a fair player: the search over the true position (every "
        "hand and the stock order, no sampling)",
        build=lambda ctx, p, expert, rules: build_search(
            ctx, p, expert, clairvoyant=True, trained=_trained_seat(ctx, expert, rules)),
        fair=False,
    ),
    "strong": StrategyKind(
        "strong", Strong, STRONG + (TRAINED,),
        "the player trained for the rules in play (fastmach train: a mixture of these "
        "parameters found by self-play) where one is shipped; else, or with trained=false "
        "or any parameter given, the hand-tuned player: "
        "holds: draws instead of any play that does not empty its hand (the others build "
        "the table; it goes out in one play; where a failure draws more than one card and an "
        "opponent holds fewer than 8, it botches a one-card play on purpose to draw the "
        "penalty, unless botch=false) until the stock runs low, its hand grows "
        "large or an opponent nears going out; then plays the maximum placement keeping "
        "cards back (jokers, J/Q/K); plays when it must; opens as the expert",
        build=_build_strong,
    ),
}


def fair_names() -> list[str]:
    """The registered strategies that see only what their seat sees (every name but the
    measuring sticks such as ``clairvoyant``): the ones a line-up built from the registry
    takes unless a strategy is named."""
    return [name for name, kind in REGISTRY.items() if kind.fair]


@dataclass(frozen=True)
class Strategy:
    """A parsed, validated strategy: a registered name and its parameter values."""

    name: str
    values: tuple[float, ...]  # one per declared parameter, in declaration order

    @property
    def kind(self) -> StrategyKind:
        return REGISTRY[self.name]

    @property
    def limited_search(self) -> bool:
        return self.kind.limited_search

    @property
    def params(self) -> dict[str, float]:
        return {p.name: v for p, v in zip(self.kind.params, self.values)}

    def __str__(self) -> str:
        parts = [
            f"{p.name}={_fmt(v)}"
            for p, v in zip(self.kind.params, self.values)
            if v != p.default
        ]
        return f"{self.name}({','.join(parts)})" if parts else self.name


_STRATEGY_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(?:\((.*)\))?\s*$", re.S)


def parse_strategy(text: "str | Strategy | BotStrategy | Bot") -> "Strategy | BotStrategy":
    """Parse ``name`` or ``name(p=v,...)``, a bot's import path ``package.module:Class``,
    or take a bot object; FastmachError names the bad strategy/parameter."""
    if isinstance(text, (Strategy, BotStrategy)):
        return text
    if not isinstance(text, str) and callable(getattr(text, "act", None)):
        return BotStrategy(bot_name(text), text)
    if not isinstance(text, str):
        raise FastmachError(f"strategy must be a string or a bot (an object with act(obs)), got {text!r}")
    if _BOT_PATH_RE.match(text):  # fails now, naming the bot, rather than in the first game
        return BotStrategy.of_spec(parse_bot_spec(text))
    m = _STRATEGY_RE.match(text)
    if not m:
        raise FastmachError(f"bad strategy {text!r}: expected name or name(param=value,...)")
    name, args = m.group(1).lower(), m.group(2)
    if name not in REGISTRY:
        raise FastmachError(
            f"unknown strategy {m.group(1)!r} (known: {', '.join(sorted(REGISTRY))})"
        )
    kind = REGISTRY[name]
    values = {p.name: p.default for p in kind.params}
    seen: set[str] = set()
    if args is not None and args.strip():
        for item in args.split(","):
            if "=" not in item:
                raise FastmachError(f"strategy {text!r}: expected param=value, got {item.strip()!r}")
            key, val = (s.strip() for s in item.split("=", 1))
            spec = next((p for p in kind.params if p.name == key), None)
            if spec is None:
                known = ", ".join(p.name for p in kind.params) or "none"
                raise FastmachError(
                    f"strategy {name!r} has no parameter {key!r} (parameters: {known})"
                )
            if key in seen:
                raise FastmachError(f"strategy {text!r}: parameter {key!r} given twice")
            seen.add(key)
            values[key] = spec.coerce(name, val)
    return Strategy(name, tuple(values[p.name] for p in kind.params))


def split_strategies(text: str) -> list[str]:
    """Split a comma-separated line-up, keeping commas inside parentheses."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    if any(not s for s in out):
        raise FastmachError(f"strategies={text!r}: empty strategy in the list")
    return out


def parse_seats(seats: Sequence[str | Strategy] | str, players: int) -> list[Strategy | BotStrategy]:
    """One validated strategy per seat; len must equal ``players``."""
    if isinstance(seats, str):
        seats = split_strategies(seats)
    if not hasattr(seats, "__iter__"):
        raise FastmachError(f"seats: expected one strategy per seat (a list), got "
                            f"{type(seats).__name__}")
    parsed = [parse_strategy(s) for s in seats]
    if len(parsed) != players:
        raise FastmachError(
            f"seats: {len(parsed)} strategies given for {players} players "
            "(one strategy per seat)"
        )
    return parsed


def build_seats(strategies: Sequence[Strategy | BotStrategy], ctx: Context, rules,
                classes: dict[str, type] | None = None,
                strict: bool = False) -> list[CompiledStrategy]:
    """The compiled strategy object of each seat, sharing ``ctx``.

    A seat is Fallible(Patience(Opening(Skilled(KeepJokers(PointsObjective(skill)))))),
    each tactic present only when its parameter is set; seats with the same skill share
    one skill object (its scratch and caches), as they share the engine. ``classes``
    replaces a registered class by name (test hooks, see ``_probe``); ``strict``: Python
    bots' plays go through the independent validator (see ``bots.bot_seat``)."""
    classes = classes or {}
    skills: dict[tuple, Skill] = {}

    def skill(cls: type, *args) -> Skill:
        key = (cls, args)
        if key not in skills:
            skills[key] = cls(ctx, *args)
        return skills[key]

    def expert_seat() -> tuple[CompiledStrategy, Skill]:
        sk = skill(classes.get("expert", Expert))
        return Opening(ctx, Skilled(ctx, sk)), sk

    out = []
    for seat, s in enumerate(strategies):
        if isinstance(s, BotStrategy):
            out.append(bot_seat(s, seat, ctx, rules, strict))
            continue
        kind = s.kind
        p = s.params
        cls = classes.get(kind.name, kind.cls)
        if kind.build is not None:  # a strategy of its own (lookahead)
            out.append(kind.build(ctx, p, expert_seat, rules))
            continue
        sk = skill(cls, *(int(p[n]) for n in kind.skill_params))
        if p.get("objective"):
            sk = PointsObjective(ctx, sk)
        if p.get("keep_jokers"):
            sk = KeepJokers(ctx, sk)
        st = Opening(ctx, Skilled(ctx, sk))
        if p.get("min_cards"):
            st = Patience(ctx, st, int(p["min_cards"]))
        if p.get("error"):
            st = Fallible(ctx, st, float(p["error"]))
        out.append(st)
    return out


# ----------------------------------------------------------------------------- seating
def seating(lineup: Sequence[_T], players: int, rotation: int = 0) -> list[_T]:
    """Strategy of each seat: ``lineup`` cycled over ``players`` seats, shifted by ``rotation``.

    >>> seating(["a", "b"], 3, 1)
    ['b', 'a', 'a']
    """
    base = [lineup[j % len(lineup)] for j in range(players)]
    return [base[(i + rotation) % players] for i in range(players)]


def rotations_of(lineup: Sequence[str], players: int, rotate: bool) -> tuple[int, ...]:
    """Rotations played per deal: ``(0,)`` or ``0 .. d-1`` with ``d`` the seating's period."""
    if not rotate:
        return (0,)
    base = seating(lineup, players)
    for d in range(1, players + 1):
        if players % d == 0 and all(base[i] == base[i % d] for i in range(players)):
            return tuple(range(d))
    return tuple(range(players))  # pragma: no cover - d = players always matches


def describe() -> Iterable[str]:
    """Lines listing every registered strategy with its parameters."""
    for kind in REGISTRY.values():
        unfair = "" if kind.fair else " [not fair: sees hidden cards; only in line-ups that name it]"
        yield f"{kind.name}: {kind.doc}{unfair}"
        for p in kind.params:
            yield (
                f"    {p.name} ({p.kind.__name__}, default {_fmt(p.default)}, "
                f"range {_fmt(p.lo)}..{_fmt(p.hi)}): {p.doc}"
            )
    yield ("package.module:Class(k=v,...): a Python bot (act(obs) -> Play | Draw | Pass), "
           "built with the constructor's keyword arguments (int, float, bool, str); "
           "time_limit=SECONDS limits each move; e.g. fastmach.strategies.examples:MaxPlacement")


def _fmt(v: float) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)
