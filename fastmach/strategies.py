"""Strategy registry: name -> compiled strategy code + typed parameters.

A strategy is written as a canonical string, the name alone when every parameter has its
default (``expert``) and otherwise the non-default parameters in declaration order
(``expert(error=0.2)``). The engine (``fastmach._engine``) dispatches on ``Strategy.code``
and reads the parameters from ``Strategy.vector()``: every parameter has a fixed engine
slot (``Param.slot``: 0 error, 1 k, 2 min_cards, 3 objective, 4 keep_jokers, 5 playouts),
the same for every strategy, so the engine's tactics code is shared by all skill levels.

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
  chosen, ties to the earlier set; ``Engine.exhaustive`` turns that off for tests.)
- ``expert``: the exact solver over the whole table.

Tactics (every skill level): ``objective`` 0 = most cards, 1 = most points of the placed
cards (``hand_points`` scheme; ties to more cards); ``keep_jokers`` 1 = play hand jokers
only in a play that empties the hand; ``min_cards`` (patience) = draw instead of a play
placing fewer cards (net) while the stock holds at least ``PATIENCE_STOCK`` cards, unless
the play empties the hand, and never where ``may_draw_when_able`` is false.

Fallible (``error=p``): a play fails with chance 1-(1-p)^d, d = the table melds it
dissolves; for ``beginner`` and ``intermediate`` each intact meld they lay off onto counts
too (their own manipulations; the expert's extensions count as kept melds). Fallback so
that a hand cannot stall: under ``failed_penalty=0`` a player who failed on their
previous turn does not fail this turn.
"""
from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from fastmach.errors import FastmachError


@dataclass(frozen=True)
class Param:
    """One typed strategy parameter with its default and inclusive range."""

    name: str
    kind: type  # int or float
    default: float
    lo: float
    hi: float
    doc: str
    slot: int = 0  # the engine's parameter slot (fixed meaning across strategies)
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
    """A registered strategy: its engine code, parameters and a one-line description."""

    name: str
    code: int
    params: tuple[Param, ...]
    doc: str


N_PARAMS = 8
PATIENCE_STOCK = 10  # "a large stock" for patient players: at least this many cards

ERROR = Param(
    "error", float, 0.0, 0.0, 1.0,
    "fallible player: each table meld a play dissolves adds a chance p of botching it "
    "(table restored, failed_penalty cards drawn); beginner/intermediate: each meld laid "
    "off onto counts too",
    0,
)
K = Param("k", int, 2, 1, 3, "table melds the player may dissolve and regroup", 1)
MIN_CARDS = Param(
    "min_cards", int, 0, 0, 20,
    f"patience: draw instead of a play of fewer cards while the stock holds >= "
    f"{PATIENCE_STOCK} cards, unless it empties the hand (0 = off; must play where "
    "may_draw_when_able is false)",
    2,
)
OBJECTIVE = Param("objective", int, 0, 0, 1,
                  "0 (or cards): most cards placed, 1 (or points): most hand points placed "
                  "(ties: more cards)", 3, ("cards", "points"))
KEEP_JOKERS = Param("keep_jokers", int, 0, 0, 1,
                    "1 (or true): keep hand jokers until a play that empties the hand", 4,
                    ("false", "true"))
PLAYOUTS = Param("playouts", int, 32, 1, 4096,
                 "Monte Carlo playouts per candidate play", 5)
TACTICS = (ERROR, MIN_CARDS, OBJECTIVE, KEEP_JOKERS)

# Engine codes: keep in sync with the S_* enum in fastmach/_engine.pyx (a test checks it).
REGISTRY: dict[str, StrategyKind] = {
    "expert": StrategyKind(
        "expert", 0, TACTICS,
        "exact solver over the whole table: plays the maximum placement (most hand cards) "
        "whenever one exists, draws otherwise; before opening, the best hand-only melds if "
        "they reach opening_points",
    ),
    "beginner": StrategyKind(
        "beginner", 1, TACTICS,
        "new melds from the hand alone (exact), then lay-offs onto the ends of runs and "
        "groups of three, one card at a time while any fits; never rearranges the table",
    ),
    "intermediate": StrategyKind(
        "intermediate", 2, (K,) + TACTICS,
        "may dissolve up to k table melds and regroup their cards with the hand (exact "
        "over every such set), other melds intact, plus lay-offs onto the intact melds",
    ),
    "patient": StrategyKind(
        "patient", 3,
        (Param("min_cards", int, 3, 0, 20, MIN_CARDS.doc, 2), ERROR, OBJECTIVE, KEEP_JOKERS),
        "the expert's skill, but draws instead of a play of fewer than min_cards cards "
        f"while the stock holds >= {PATIENCE_STOCK} cards (unless the play empties the hand)",
    ),
    "lookahead": StrategyKind(
        "lookahead", 4, (PLAYOUTS,),
        "the best of its candidates by Monte Carlo playouts (determinised hidden hands "
        "and stock, played out by experts, the same deals for every candidate; mean "
        "outcome: win, then fewer cards left): all of the expert's maximum placement, "
        "some of it (keeping the jokers; placing the most points), or none (a draw)",
    ),
}


@dataclass(frozen=True)
class Strategy:
    """A parsed, validated strategy: a registered name and its parameter values."""

    name: str
    values: tuple[float, ...]  # one per declared parameter, in declaration order

    @property
    def kind(self) -> StrategyKind:
        return REGISTRY[self.name]

    @property
    def code(self) -> int:
        return self.kind.code

    @property
    def params(self) -> dict[str, float]:
        return {p.name: v for p, v in zip(self.kind.params, self.values)}

    def vector(self) -> list[float]:
        """Parameter slots handed to the engine (N_PARAMS floats)."""
        out = [0.0] * N_PARAMS
        for p, v in zip(self.kind.params, self.values):
            out[p.slot] = float(v)
        return out

    def __str__(self) -> str:
        parts = [
            f"{p.name}={_fmt(v)}"
            for p, v in zip(self.kind.params, self.values)
            if v != p.default
        ]
        return f"{self.name}({','.join(parts)})" if parts else self.name


_STRATEGY_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(?:\((.*)\))?\s*$", re.S)


def parse_strategy(text: str | Strategy) -> Strategy:
    """Parse ``name`` or ``name(p=v,...)``; FastmachError names the bad strategy/parameter."""
    if isinstance(text, Strategy):
        return text
    if not isinstance(text, str):
        raise FastmachError(f"strategy must be a string, got {text!r}")
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
    out, depth, cur = [], 0, []
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
        raise FastmachError(f"--strategies {text!r}: empty strategy in the list")
    return out


def parse_seats(seats: Sequence[str | Strategy] | str, players: int) -> list[Strategy]:
    """One validated strategy per seat; len must equal ``players``."""
    if isinstance(seats, str):
        seats = split_strategies(seats)
    parsed = [parse_strategy(s) for s in seats]
    if len(parsed) != players:
        raise FastmachError(
            f"seats: {len(parsed)} strategies given for {players} players "
            "(one strategy per seat)"
        )
    return parsed


def describe() -> Iterable[str]:
    """Lines listing every registered strategy with its parameters."""
    for kind in REGISTRY.values():
        yield f"{kind.name}: {kind.doc}"
        for p in kind.params:
            yield (
                f"    {p.name} ({p.kind.__name__}, default {_fmt(p.default)}, "
                f"range {_fmt(p.lo)}..{_fmt(p.hi)}): {p.doc}"
            )


def _fmt(v: float) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def _cli_strategies(args: argparse.Namespace) -> int:
    for line in describe():
        print(line)
    return 0


def register_cli(subparsers) -> None:
    """Add ``fastmach strategies`` (list the registry)."""
    p = subparsers.add_parser("strategies", help="list the strategies and their parameters")
    p.set_defaults(func=_cli_strategies)
