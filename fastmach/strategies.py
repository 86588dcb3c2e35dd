"""Strategy registry: name -> compiled strategy code + typed parameters.

A strategy is written as a canonical string, the name alone when every parameter has its
default (``expert``) and otherwise the non-default parameters in declaration order
(``expert(error=0.2)``). The engine (``fastmach._engine``) dispatches on ``Strategy.code``
and reads the parameters from ``Strategy.vector()`` (slot i = i-th declared parameter).

Adding a strategy (issue 4: beginner, intermediate(k), patient(min_cards), lookahead) means
one ``StrategyKind`` entry here and one code path in ``_engine.pyx`` (``Engine.decide``).
"""
from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from fastmach.errors import FastmachError

N_PARAMS = 4  # parameter slots the compiled engine reserves per seat


@dataclass(frozen=True)
class Param:
    """One typed strategy parameter with its default and inclusive range."""

    name: str
    kind: type  # int or float
    default: float
    lo: float
    hi: float
    doc: str

    def coerce(self, strategy: str, text: str) -> float:
        """Parse and range-check the text value of this parameter."""
        try:
            value = self.kind(text) if self.kind is float else int(text, 10)
        except ValueError:
            raise FastmachError(
                f"strategy {strategy!r}: parameter {self.name!r} must be "
                f"{'an integer' if self.kind is int else 'a number'}, got {text!r}"
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


ERROR = Param(
    "error", float, 0.0, 0.0, 1.0,
    "fallible player: each table meld a play dissolves adds a chance p of botching it "
    "(table restored, failed_penalty cards drawn)",
)

# Engine codes: keep in sync with the S_* enum in fastmach/_engine.pyx (a test checks it).
REGISTRY: dict[str, StrategyKind] = {
    "expert": StrategyKind(
        "expert", 0, (ERROR,),
        "exact solver over the whole table: plays the maximum placement (most hand cards) "
        "whenever one exists, draws otherwise; before opening, the best hand-only melds if "
        "they reach opening_points",
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
        out = [float(v) for v in self.values]
        return out + [0.0] * (N_PARAMS - len(out))

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
