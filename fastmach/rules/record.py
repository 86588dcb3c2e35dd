"""Rules of a Machiavelli game as validated, frozen data; presets; canonical strings.

Every rule parameter (docs/rules.md) is one entry of :data:`TABLE`: its name, type, allowed
values, default, meaning and the clause of each preset's source text it comes from. The fields
of :class:`Rules`, their validation, the rules strings and the parameter reference of
docs/rules.md (:mod:`fastmach.rules.doc`) are all derived from it, so a sweep can vary each
parameter on its own and adding one is one entry of :mod:`fastmach.rules.parameters` (and
its value in each preset) plus its use in the game flow. A preset is only a set of parameter
values (:data:`PRESETS`, :mod:`fastmach.rules.presets`). The canonical string names the
preset and the fields that differ from it::

    >>> str(Rules.preset("classic", jokers=2, ace="low-only"))
    'classic(jokers=2,ace=low-only)'
    >>> Rules.parse("classic( jokers = 2 , ace = low-only )").jokers
    2

``Rules.preset`` is a constructor on the class (``Rules.preset("jokers", players=3)``) and
the name of the preset the record was built from on an instance (``rules.preset``).
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fastmach.core.cards import card_points
from fastmach.errors import FastmachError
from fastmach.rules.parameters import (MAX_MATCH_HANDS, MAX_THRESHOLD, PARAMETERS, TABLE,
                                       Parameter, check_value, format_value, is_integer,
                                       parse_value)
from fastmach.rules.presets import PRESETS, SOURCE_PLAYERS, source_warning

__all__ = ["Rules", "PRESETS", "PARAMETERS", "TABLE", "Parameter", "SOURCE_PLAYERS", "parse_value", "format_value",
           "resolve_rules", "rules_of", "source_warning", "BLOCK_ROUNDS", "is_integer", "MAX_MATCH_HANDS",
           "MAX_THRESHOLD"]

#: stock_empty = play-on: a full round of turns begun with an empty stock that adds no card
#: ends the hand (blocked) when no seat can play, a fact of the position (the exact
#: solver); while a seat could play, play goes on (a player who misses a play is making an
#: error) until this many such rounds have passed (only players who cannot see their
#: plays, or keep botching them, remain). The engine's BLOCK_ROUNDS (fastmach/game/_turn.pxd).
BLOCK_ROUNDS = 10

_RULES_RE = re.compile(r"\s*([A-Za-z0-9_-]+)\s*(?:\((.*)\))?\s*", re.S)


def _fields_from_table(cls: type) -> type:
    """Give ``cls`` one annotated field per parameter of :data:`TABLE` (then ``preset``)."""
    cls.__annotations__ = {**{p.name: p.type for p in TABLE}, "preset": str}
    for p in TABLE:
        setattr(cls, p.name, p.default)
    cls.preset = "classic"  # type: ignore[attr-defined]
    return cls


# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
@_fields_from_table
class Rules:
    """Every rule parameter (docs/rules.md); validated on construction (defaults = classic).

    One field per entry of :data:`TABLE`, in its order, then ``preset``.

    ``jokers_per_meld`` is 1 or 0 (unlimited; the string "unlimited" is accepted too).
    ``joker_swap``: "table" (a retrieved joker stays on the table for any meld) or "hand"
    (the player who puts the real card in its place takes the joker into hand).
    ``preset`` is the preset the record was built from: part of the record (and of
    equality), it chooses the base of the canonical string and is never an override.
    """

    if TYPE_CHECKING:  # the fields are made from TABLE (_fields_from_table)
        preset: str

        def __getattr__(self, name: str) -> Any: ...

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str) or self.preset not in PRESETS:
            raise FastmachError(
                f"unknown rules preset {self.preset!r}; known: {', '.join(PRESETS)}"
            )
        for name in PARAMETERS:
            object.__setattr__(self, name, check_value(name, getattr(self, name)))
        dealt = self.players * self.hand_size
        if dealt >= self.deck_size:
            raise FastmachError(
                f"the deal does not fit: players={self.players} x hand_size={self.hand_size} "
                f"deals {dealt} cards and the deck holds {self.deck_size} (decks={self.decks} "
                f"x 52 + jokers={self.jokers}), leaving no stock to draw from: lower players "
                f"or hand_size, or add decks"
            )
        if self.match_kind == "rotations" and self.match_value * self.players > MAX_MATCH_HANDS:
            raise FastmachError(
                f"rules parameter 'match' = {self.match!r} plays {self.match_value:,} x "
                f"{self.players} players = {self.match_value * self.players:,} hands a match; "
                f"at most {MAX_MATCH_HANDS:,}: lower N"
            )
        if self.scoring == "winner-takes" and self.match != "single":
            raise FastmachError(
                f"rules parameter 'scoring' = 'winner-takes' is 003's single-deal option: it "
                f"needs match=single, got match={self.match}"
            )

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> Rules:
        """The preset ``name`` with some parameters changed (re-validated)."""
        if name not in PRESETS:
            raise FastmachError(f"unknown rules preset {name!r}; known: {', '.join(PRESETS)}")
        for key in overrides:
            if key not in PARAMETERS:
                raise FastmachError(_unknown_param_message(key, None))
        return cls(**{**PRESETS[name], **overrides}, preset=name)

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Rules from ``preset`` or ``preset(name=value, ...)`` (whitespace tolerant)."""
        if not isinstance(text, str):
            raise FastmachError(f"a rules string must be text, got {type(text).__name__}")
        m = _RULES_RE.fullmatch(text)
        if m is None:
            raise FastmachError(
                f"bad rules string {text!r}: expected 'preset' or 'preset(name=value, ...)', "
                f"presets: {', '.join(PRESETS)}"
            )
        name, body = m.group(1).lower(), m.group(2)
        if name not in PRESETS:
            raise FastmachError(
                f"unknown rules preset {m.group(1)!r} in {text!r}; known: {', '.join(PRESETS)}"
            )
        values: dict[str, Any] = {}
        if body is not None and body.strip():
            for item in body.split(","):
                key, eq, raw = item.partition("=")
                key = key.strip().lower()
                if not eq or not key:
                    raise FastmachError(
                        f"bad rules parameter {item.strip()!r} in {text!r}: expected name=value"
                    )
                if key not in PARAMETERS:
                    raise FastmachError(_unknown_param_message(key, text))
                if key in values:
                    raise FastmachError(f"duplicate rules parameter {key!r} in {text!r}")
                try:
                    values[key] = parse_value(key, raw)
                except FastmachError as e:
                    raise FastmachError(f"{e} (in {text!r})") from None
        try:
            return cls.from_preset(name, **values)
        except FastmachError as e:
            raise FastmachError(f"{e} (in {text!r})") from None

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (``preset`` included), re-validated."""
        for key in changes:
            if key not in PARAMETERS and key != "preset":
                raise FastmachError(_unknown_param_message(key, None))
        return dataclasses.replace(self, **changes)

    # -- text ---------------------------------------------------------------------------
    def canonical(self) -> str:
        """``preset`` or ``preset(k=v,...)`` listing the fields that differ from the preset."""
        base = PRESETS[self.preset]
        diffs = [
            f"{k}={format_value(k, getattr(self, k))}"
            for k in PARAMETERS
            if getattr(self, k) != base[k]
        ]
        return f"{self.preset}({','.join(diffs)})" if diffs else self.preset

    def __str__(self) -> str:
        return self.canonical()

    def params(self) -> dict[str, Any]:
        """The parameter values (every field but ``preset``), in declaration order."""
        return {k: getattr(self, k) for k in PARAMETERS}

    # -- derived values -----------------------------------------------------------------
    @property
    def deck_size(self) -> int:
        """Cards in the deck: 52 x decks + jokers."""
        return 52 * self.decks + self.jokers

    @property
    def stock_size(self) -> int:
        """Cards left in the stock after the deal."""
        return self.deck_size - self.players * self.hand_size

    @property
    def ace_high(self) -> bool:
        """True when Q-K-A is a valid run (ace = low-or-high)."""
        return self.ace == "low-or-high"

    @property
    def ace_code(self) -> int:
        """The compiled core's ``ace_high``: 0 low only, 1 low or high (an ace at each end
        of a run allowed), 2 low or high, never both in one run."""
        if not self.ace_high:
            return 0
        return 1 if self.ace_both_ends else 2

    @property
    def match_kind(self) -> str:
        """"single", "rotations" or "threshold"."""
        return self.match.partition(":")[0]

    @property
    def match_value(self) -> int:
        """N of rotations:N, T of threshold:T, 0 for a single hand."""
        _, _, n = self.match.partition(":")
        return int(n) if n else 0

    @property
    def match_end_total(self) -> int:
        """The lowest total that ends a ``threshold:T`` match after its hand: T, or T + 1
        under ``threshold_reached = "exceed"`` (totals are whole points); 0 for the other
        matches. The engine, the State and the log replay all end a match by it."""
        if self.match_kind != "threshold":
            return 0
        return self.match_value + (self.threshold_reached == "exceed")

    def points_table(self) -> np.ndarray:
        """int32 points of each card id under ``hand_points`` (fresh array)."""
        return card_points(self.hand_points)


def _unknown_param_message(key: str, text: str | None) -> str:
    where = f" in {text!r}" if text is not None else ""
    if key == "preset":
        return (
            f"'preset' is not a rules parameter{where}: write the preset name first, "
            f"e.g. 'jokers(players=3)'"
        )
    return f"unknown rules parameter {key!r}{where}; known: {', '.join(PARAMETERS)}"


class _PresetAccess:
    """``Rules.preset(name, **overrides)`` on the class; the preset name on an instance.

    A non-data descriptor: each instance keeps its ``preset`` field in its ``__dict__``,
    which shadows this object, so only class access reaches ``__get__``. It is installed
    after ``@dataclass`` has read the field's default ("classic").
    """

    def __get__(self, obj: Rules | None, cls: type[Rules]):
        if obj is None:
            return cls.from_preset
        return obj.__dict__["preset"]  # pragma: no cover - the instance dict wins


Rules.preset = _PresetAccess()  # type: ignore[assignment]


def _named_arguments(init):
    """The dataclass's ``__init__``, whose unknown or positional arguments are
    FastmachErrors naming them (not the TypeError the generated one raises)."""
    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            raise FastmachError(f"Rules takes its parameters by name (Rules(players=3)), got "
                                f"{len(args)} positional argument(s); a preset: "
                                f"Rules.preset('jokers'), a rules string: Rules.parse(...)")
        for key in kwargs:
            if key not in PARAMETERS and key != "preset":
                raise FastmachError(_unknown_param_message(key, None))
        init(self, **kwargs)
    return __init__


Rules.__init__ = _named_arguments(Rules.__init__)  # type: ignore[method-assign]


def resolve_rules(x: Rules | str) -> Rules:
    """A Rules from a Rules (returned as is) or a rules string."""
    if isinstance(x, Rules):
        return x
    if isinstance(x, str):
        return Rules.parse(x)
    raise FastmachError(f"expected Rules or a rules string like 'classic(players=3)', got {x!r}")


def rules_of(rules: Rules | str, players: int | None) -> Rules:
    """The rules with ``players`` seats (None: the rules' own; FastmachError naming a bad
    value)."""
    r = resolve_rules(rules)
    if players is not None:
        if not is_integer(players):
            raise FastmachError(f"players must be an integer, got {players!r}")
        r = r.replace(players=int(players))
    return r
