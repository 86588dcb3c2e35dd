"""The policy space of training: the strong player's parameters, as a grid per rule set.

A point of the space is a ``strong(...)`` strategy. Only the parameters that can change
a game under the rules in play are axes (holding needs ``may_draw_when_able``; passing on
an empty stock needs ``may_pass_when_able`` and a play-on stock; a botch needs a penalty
of more than one card; the last round needs a stock whose end ends the hand): the others
keep strong's defaults, so two points never name the same play twice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from fastmach.rules import Rules
from fastmach.strategies import REGISTRY, parse_strategy

__all__ = ["Axis", "PolicySpace", "policy_space"]

_DEFAULTS = {p.name: int(p.default) for p in REGISTRY["strong"].params}


@dataclass(frozen=True)
class Axis:
    """One parameter of ``strong`` and the values training tries."""

    name: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class PolicySpace:
    """The axes of ``strong`` that matter under ``rules``; a point is one value per axis."""

    rules: Rules
    axes: tuple[Axis, ...]

    @property
    def size(self) -> int:
        return int(np.prod([len(a.values) for a in self.axes])) if self.axes else 1

    def strategy(self, point: tuple[int, ...]) -> str:
        """The canonical ``strong(...)`` string of a point (values by index per axis)."""
        values = dict(_DEFAULTS, trained=0)   # the point itself, never the shipped player
        for axis, i in zip(self.axes, point):
            values[axis.name] = axis.values[i]
        # one name per play: a threshold of a switched-off botch, and keep where keep_from
        # (which keeps the jokers and J/Q/K too) says more, take their defaults
        if not values["botch"]:
            values["botch_below"] = _DEFAULTS["botch_below"]
        if values["keep_from"]:
            values["keep"] = _DEFAULTS["keep"]
        text = ",".join(f"{k}={v}" for k, v in values.items())
        return str(parse_strategy(f"strong({text})"))

    def point_of(self, strategy: str) -> tuple[int, ...] | None:
        """The point naming ``strategy`` (a ``strong`` string), or None outside the grid."""
        s = parse_strategy(strategy)
        if getattr(s, "name", None) != "strong":
            return None
        params = s.params  # type: ignore[union-attr]
        point = []
        for axis in self.axes:
            v = int(params[axis.name])
            if v not in axis.values:
                return None
            point.append(axis.values.index(v))
        fixed = {a.name for a in self.axes} | {"trained"}
        if any(int(v) != _DEFAULTS[k] for k, v in params.items() if k not in fixed):
            return None
        return tuple(point)

    def anchors(self) -> list[tuple[int, ...]]:
        """Two named corners of the space: the hand-tuned player (every default) and the
        expert's play (never hold, keep nothing back, the maximum placement)."""
        base = self.point_of("strong(trained=0)")
        expert = self.point_of("strong(stock_low=200,keep=0,trained=0)")
        return [p for p in (base, expert) if p is not None]

    def sample(self, rng: np.random.Generator, n: int) -> list[tuple[int, ...]]:
        """``n`` points drawn uniformly (with replacement) from the grid."""
        return [tuple(int(rng.integers(len(a.values))) for a in self.axes) for _ in range(n)]

    def neighbours(self, point: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """The points that differ from ``point`` along one axis (every other value of it)."""
        for j, axis in enumerate(self.axes):
            for i in range(len(axis.values)):
                if i != point[j]:
                    yield point[:j] + (i,) + point[j + 1:]


def policy_space(rules: Rules) -> PolicySpace:
    """The grid of ``strong`` parameters that can change a game under ``rules``."""
    axes: list[Axis] = []
    if rules.may_draw_when_able:
        # stock_low 200: never hold (the stock never holds more), the expert's timing
        axes += [Axis("stock_low", (0, 3, 8, 15, 30, 200)), Axis("rush", (0, 2, 4, 7))]
        if rules.failed_penalty > 1:
            axes += [Axis("botch", (0, 1)), Axis("botch_below", (0, 5, 8, 12))]
        if rules.stock_empty == "ends-hand":
            # where the stock's end ends the hand, a table of holders places nothing until
            # its last round: holding only on a table others have built is an axis there
            axes += [Axis("last_round", (0, 1)), Axis("hold_table", (0, 3, 8))]
    axes += [Axis("keep", (0, 1, 2)), Axis("keep_from", (0, 4, 6, 8, 10)),
             Axis("place", (0, 1, 2))]
    if rules.may_pass_when_able and rules.stock_empty == "play-on":
        axes.append(Axis("pass_on", (0, 1, 3, 6)))
    return PolicySpace(rules, tuple(axes))
