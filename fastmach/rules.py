"""Rules of a Machiavelli game as validated, frozen data; presets; canonical strings.

Every rule parameter (docs/rules.md) is a field of :class:`Rules`, so a sweep can vary each one on
its own. A preset is only a set of parameter values (:data:`PRESETS`). The canonical
string names the preset and the fields that differ from it::

    >>> str(Rules.preset("classic", jokers=2, ace="low-only"))
    'classic(jokers=2,ace=low-only)'
    >>> Rules.parse("classic( jokers = 2 , ace = low-only )").jokers
    2

``Rules.preset`` is a constructor on the class (``Rules.preset("jokers", players=3)``) and
the name of the preset the record was built from on an instance (``rules.preset``).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastmach.cards import POINT_SCHEMES, card_points
from fastmach.errors import FastmachError

__all__ = ["Rules", "PRESETS", "PARAMETERS", "SOURCE_PLAYERS", "parse_value", "format_value",
           "resolve_rules", "source_warning"]

# ---------------------------------------------------------------------------------------
# presets: the sources are the rule texts 000, 001, 003 and 004; docs/rules.md quotes the
# clause behind every value (fastmach.rules_doc holds the quotes, `fastmach rules PRESET`)

PRESETS: dict[str, dict[str, Any]] = {
    # 000_fe2f...: 104 cards without jokers, 13 each, ace low or high, a failed manipulation
    # restores the table and draws 3, 1 penalty per card, explicit empty-stock convention
    # (drawing passes, a round without additions ends the hand, nobody wins it), a match
    # of fixed dealer rotations (the count is not given: 1 here, a sweep varies it).
    "classic": dict(
        players=4, decks=2, jokers=0, jokers_per_meld=1, joker_swap="table", hand_size=13,
        first_player_by="left-of-dealer", ace="low-or-high", may_draw_when_able=True,
        may_pass_when_able=True, opening_points=0, failed_penalty=3, stock_empty="play-on",
        blocked_winner="none", ties="shared", scoring="penalties", hand_points="cards",
        match="rotations:1",
    ),
    # 001_1720...: 108 cards (4 jokers, one per meld), "si tu ne peux pas ou ne veux pas
    # jouer, pioche", a pure race ("ni score"); blocked game: lowest hand points win
    # (A 11, 10 and figures 10, joker 25). failed_penalty 3 is our choice: the text is
    # silent on failed manipulations, and 3 is the classic tradition's penalty.
    "jokers": dict(
        players=4, decks=2, jokers=4, jokers_per_meld=1, joker_swap="table", hand_size=13,
        first_player_by="left-of-dealer", ace="low-or-high", may_draw_when_able=True,
        may_pass_when_able=False, opening_points=0, failed_penalty=3, stock_empty="play-on",
        blocked_winner="lowest", ties="draw", scoring="penalties", hand_points="face-ace11",
        match="single",
    ),
    # 003_1b83...: ace always low, restore + 1 penalty card, penalties at face value
    # (A 1, J/Q/K 10), session to 100 or 200 (100 here), "si la pioche s'épuise avant que
    # quiconque ne termine, le joueur ayant le moins de points en main remporte la donne"
    # (ends-hand + lowest). No jokers by default; joker_swap "hand" takes effect when a
    # sweep adds them: the variant text says the swapper "conserve le joker".
    "ace-low": dict(
        players=4, decks=2, jokers=0, jokers_per_meld=1, joker_swap="hand", hand_size=13,
        first_player_by="cut", ace="low-only", may_draw_when_able=True, may_pass_when_able=False,
        opening_points=0, failed_penalty=1, stock_empty="ends-hand", blocked_winner="lowest",
        ties="shared", scoring="penalties", hand_points="face-ace1", match="threshold:100",
    ),
    # 004_3b54...: 104 cards, jolly optional (0 here) and unrestricted ("può assumere il
    # valore e il seme che il suo proprietario desidera": unlimited per meld), Q-K-A valid,
    # draw only when no play exists ("se non può calare ... è costretto a pescare"), empty
    # stock: pass without drawing (play-on), points A 11 / figures 10 / jolly 25.
    # Our choices where the text is silent: failed_penalty 1 (no penalty rule is given;
    # one card is the mildest rule of the other traditions) and blocked_winner "lowest"
    # (the text never ends a blocked hand; lowest by its own point count is the natural
    # reading). match "single": the text offers "partita singola" or points with no target.
    "italian": dict(
        players=4, decks=2, jokers=0, jokers_per_meld=0, joker_swap="table", hand_size=13,
        first_player_by="left-of-dealer", ace="low-or-high", may_draw_when_able=False,
        may_pass_when_able=False, opening_points=0, failed_penalty=1, stock_empty="play-on",
        blocked_winner="lowest", ties="shared", scoring="penalties", hand_points="face-ace11",
        match="single",
    ),
}

#: The player counts each preset's source text gives: (fewest, most; None = no limit).
#: 000 "Pour 2–5 personnes"; 001 "pour 2 à 4 joueurs"; 003 "De deux à cinq joueurs" and
#: "pour cinq ou six joueurs, utilisez trois jeux (156 cartes) et distribuez 15 cartes";
#: 004 "Giocatori: 2 o più". Outside it a rule set is ours, not the source's: the CLI warns.
SOURCE_PLAYERS: dict[str, tuple[int, int | None]] = {
    "classic": (2, 5), "jokers": (2, 4), "ace-low": (2, 6), "italian": (2, None),
}


def source_warning(rules: "Rules") -> str | None:
    """Why ``rules`` plays outside its preset source's player range (None when inside)."""
    lo, hi = SOURCE_PLAYERS[rules.preset]
    P = rules.players
    span = f"{lo}-{hi}" if hi is not None else f"{lo} or more"
    if P < lo or (hi is not None and P > hi):
        return (f"{rules}: players={P} is outside the {span} players of the {rules.preset} "
                f"source text (docs/rules.md); these games extrapolate its rules")
    if rules.preset == "ace-low" and P == 6 and (rules.decks, rules.hand_size) != (3, 15):
        return (f"{rules}: the ace-low source plays 6 players with decks=3 and hand_size=15 "
                f"(docs/rules.md); these games extrapolate its rules")
    return None


# allowed values, one registry per kind of parameter
_INT_RANGES: dict[str, tuple[int, int | None]] = {
    "players": (2, 8),
    "decks": (2, 3),
    "jokers": (0, 4),
    "hand_size": (1, None),
    "opening_points": (0, None),
    "failed_penalty": (0, None),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "joker_swap": ("table", "hand"),
    "ace": ("low-or-high", "low-only"),
    "stock_empty": ("play-on", "ends-hand"),
    "blocked_winner": ("none", "lowest"),
    "ties": ("shared", "draw"),
    "scoring": ("penalties", "winner-takes"),
    "first_player_by": ("left-of-dealer", "cut"),
    "hand_points": tuple(POINT_SCHEMES),
}
_BOOLS = ("may_draw_when_able", "may_pass_when_able")
_MATCH_RE = re.compile(r"(rotations|threshold)\s*:\s*(\d+)")
_MATCH_ALLOWED = "'single', 'rotations:N' or 'threshold:T' (N, T positive integers)"
_RULES_RE = re.compile(r"\s*([A-Za-z0-9_-]+)\s*(?:\((.*)\))?\s*", re.S)


def _allowed(name: str) -> str:
    """Human text of the values a parameter accepts (used in every message)."""
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        if name == "decks":
            return "2 or 3"
        return f"an integer {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
    if name in _CHOICES:
        return "one of " + ", ".join(repr(v) for v in _CHOICES[name])
    if name == "jokers_per_meld":
        return "1 or 'unlimited' (0)"
    if name in _BOOLS:
        return "true or false"
    if name == "match":
        return _MATCH_ALLOWED
    raise KeyError(name)  # pragma: no cover - every field is listed above


def _bad(name: str, value: Any) -> FastmachError:
    return FastmachError(f"rules parameter '{name}' must be {_allowed(name)}, got {value!r}")


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check(name: str, value: Any) -> Any:
    """Validated, normalised value of one parameter (raises naming the parameter)."""
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        if not _is_int(value) or value < lo or (hi is not None and value > hi):
            raise _bad(name, value)
        return int(value)
    if name in _CHOICES:
        v = value.strip().lower() if isinstance(value, str) else value
        if v not in _CHOICES[name]:
            raise _bad(name, value)
        return v
    if name == "jokers_per_meld":
        if isinstance(value, str) and value.strip().lower() == "unlimited":
            return 0
        if not _is_int(value) or value not in (0, 1):
            raise _bad(name, value)
        return int(value)
    if name in _BOOLS:
        if not isinstance(value, (bool, np.bool_)):
            raise _bad(name, value)
        return bool(value)
    if name == "match":
        if not isinstance(value, str):
            raise _bad(name, value)
        v = value.strip().lower()
        if v == "single":
            return v
        m = _MATCH_RE.fullmatch(v)
        if m is None or int(m.group(2)) < 1:
            raise _bad(name, value)
        return f"{m.group(1)}:{int(m.group(2))}"
    raise FastmachError(f"unknown rules parameter {name!r}; known: {', '.join(PARAMETERS)}")


def parse_value(name: str, text: str) -> Any:
    """Typed value of parameter ``name`` written as text (as in a rules string)."""
    if name not in PARAMETERS:
        raise FastmachError(f"unknown rules parameter {name!r}; known: {', '.join(PARAMETERS)}")
    t = text.strip()
    low = t.lower()
    try:
        if name in _INT_RANGES:
            if not re.fullmatch(r"[+-]?\d+", t):
                raise _bad(name, t)
            return _check(name, int(t))
        if name == "jokers_per_meld":
            return _check(name, "unlimited" if low == "unlimited" else int(t))
        if name in _BOOLS:
            if low not in ("true", "false"):
                raise _bad(name, t)
            return low == "true"
        return _check(name, t)
    except (FastmachError, ValueError):
        raise FastmachError(
            f"bad value {t!r} for rules parameter '{name}': expected {_allowed(name)}"
        ) from None


def format_value(name: str, value: Any) -> str:
    """Text of a parameter value as written in rules strings."""
    if name == "jokers_per_meld" and value == 0:
        return "unlimited"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Rules:
    """Every rule parameter (docs/rules.md); validated on construction (defaults = classic).

    ``jokers_per_meld`` is 1 or 0 (unlimited; the string "unlimited" is accepted too).
    ``joker_swap``: "table" (a retrieved joker stays on the table for any meld) or "hand"
    (the player who puts the real card in its place takes the joker into hand).
    ``preset`` is the preset the record was built from: part of the record (and of
    equality), it chooses the base of the canonical string and is never an override.
    """

    players: int = 4
    decks: int = 2
    jokers: int = 0
    jokers_per_meld: int = 1
    joker_swap: str = "table"
    hand_size: int = 13
    first_player_by: str = "left-of-dealer"
    ace: str = "low-or-high"
    may_draw_when_able: bool = True
    may_pass_when_able: bool = True
    opening_points: int = 0
    failed_penalty: int = 3
    stock_empty: str = "play-on"
    blocked_winner: str = "none"
    ties: str = "shared"
    scoring: str = "penalties"
    hand_points: str = "cards"
    match: str = "rotations:1"
    preset: str = "classic"

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str) or self.preset not in PRESETS:
            raise FastmachError(
                f"unknown rules preset {self.preset!r}; known: {', '.join(PRESETS)}"
            )
        for name in PARAMETERS:
            object.__setattr__(self, name, _check(name, getattr(self, name)))
        dealt = self.players * self.hand_size
        if dealt >= self.deck_size:
            raise FastmachError(
                f"the deal does not fit: players={self.players} x hand_size={self.hand_size} "
                f"deals {dealt} cards and the deck holds {self.deck_size} (decks={self.decks} "
                f"x 52 + jokers={self.jokers}), leaving no stock to draw from: lower players "
                f"or hand_size, or add decks"
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
    def match_kind(self) -> str:
        """"single", "rotations" or "threshold"."""
        return self.match.partition(":")[0]

    @property
    def match_value(self) -> int:
        """N of rotations:N, T of threshold:T, 0 for a single hand."""
        _, _, n = self.match.partition(":")
        return int(n) if n else 0

    def points_table(self) -> np.ndarray:
        """int32 points of each card id under ``hand_points`` (fresh array)."""
        return card_points(self.hand_points)


#: Parameter names in declaration order (every field but ``preset``).
PARAMETERS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset")


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


def resolve_rules(x: Rules | str) -> Rules:
    """A Rules from a Rules (returned as is) or a rules string."""
    if isinstance(x, Rules):
        return x
    if isinstance(x, str):
        return Rules.parse(x)
    raise FastmachError(f"expected Rules or a rules string like 'classic(players=3)', got {x!r}")
