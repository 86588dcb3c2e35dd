"""Study definitions: a TOML file -> a validated grid of cells (no game is played here).

A study names a root seed, a number of deals per cell and a grid::

    [study]
    name = "ace-rule"
    seed = 20261129
    games = 2000          # deals (replicates) per cell
    chunk = 200           # optional: games per task and per parquet file
    # optional: play deals chunk by chunk until every cell's 95% intervals are this narrow
    # precision = { turns_per_hand = 1.0, win_share = 0.03 }   # half-widths
    # max_games = 10000     # needed with precision: the most deals per cell
    [grid]
    rules = ["classic", "classic(ace=low-only)"]
    players = [2, 3, 4, 5]
    lineup = [["expert"], ["expert", "beginner"]]   # cycled over the seats
    rotate = true
    failed_penalty = [1, 3]    # any Rules parameter is an axis, applied on top of rules

The cells are the cartesian product ``rules x players x lineup x axes`` (in that order, axes
in the order of ``fastmach.rules.PARAMETERS``). Each cell has a canonical string
``RULES|players=N|lineup=a,b|rotate=true`` where ``RULES`` is the canonical rules string
without ``players`` (that is a column of its own).

Seating and rotation. The line-up is cycled over the seats: seat ``i`` of ``P`` gets
``base[i] = lineup[i % len(lineup)]``. Rotation ``k`` seats ``base[(i + k) % P]`` at seat
``i``. With ``rotate = true`` every deal (replicate) is played once for each rotation
``k = 0 .. d-1``, where ``d`` is the smallest period of ``base`` (``d = P`` unless the seating
repeats itself, e.g. ``["expert"]`` has ``d = 1`` and ``["a","b"]`` on 4 seats has ``d = 2``);
over these ``d`` rotations each entry of ``base`` sits in each seat exactly once, so every
strategy sits in every seat equally often (in proportion to its share of ``base``) and
rotations that would repeat the same seating are not played twice. ``games`` counts deals:
a cell plays ``games x d`` games.

Every error raises :class:`~fastmach.errors.FastmachError` naming the key; a study read
from TOML names the file and line as well.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from fastmach.errors import FastmachError
from fastmach.study.tomlfile import read_toml
from fastmach.strategies import parse_strategy, rotations_of, seating, split_strategies

__all__ = ["Study", "Cell", "DEFAULT_CHUNK", "seating", "rotations_of", "split_lineup"]

#: Games per task (and per parquet chunk file) unless the study says otherwise.
DEFAULT_CHUNK = 200

_STUDY_KEYS = ("name", "seed", "games", "chunk", "log_games", "precision", "max_games")
#: Figures a study may ask a precision for (half-width of the 95% interval per cell).
PRECISION_KEYS = ("turns_per_hand", "win_share")
_GRID_KEYS = ("rules", "players", "lineup", "rotate")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


class _KeyError(FastmachError):
    """A FastmachError about one key of the study (``table``, ``key``), for line lookup."""

    def __init__(self, table: str, key: str | None, message: str):
        self.table, self.key = table, key
        where = f"[{table}] {key}" if key else f"[{table}]"
        super().__init__(f"{where}: {message}")


# ----------------------------------------------------------------------------- seating

def split_lineup(text: str) -> list[str]:
    """Split ``a,b(x=1,y=2),c`` at the commas outside parentheses."""
    return split_strategies(text)


# ----------------------------------------------------------------------------- helpers

def _rules_api():
    from fastmach import rules as R  # lazy: keeps `import fastmach.study` light
    return R


def _canonical_strategy(text: str) -> str:
    """Validated canonical strategy string (via the strategy registry)."""
    return str(parse_strategy(text))


def _rules_text(rules) -> str:
    """Canonical rules string without ``players`` (players is a column of its own)."""
    R = _rules_api()
    base = R.PRESETS[rules.preset]
    diffs = [
        f"{k}={R.format_value(k, getattr(rules, k))}"
        for k in R.PARAMETERS
        if k != "players" and getattr(rules, k) != base[k]
    ]
    return f"{rules.preset}({','.join(diffs)})" if diffs else rules.preset


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(v)  # pragma: no cover


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _as_list(table: str, key: str, value: Any, *, scalar_ok: bool) -> list:
    if isinstance(value, list):
        if not value:
            raise _KeyError(table, key, "empty list: the grid would have no cell")
        return value
    if scalar_ok:
        return [value]
    raise _KeyError(table, key, f"expected a list, got {value!r}")


def _no_duplicates(table: str, key: str, values: Sequence) -> None:
    seen = set()
    for v in values:
        h = json.dumps(v, sort_keys=True, default=str)
        if h in seen:
            raise _KeyError(table, key, f"duplicate value {v!r}")
        seen.add(h)


# ----------------------------------------------------------------------------- cells

@dataclass(frozen=True)
class Cell:
    """One point of the grid: rules (players included), line-up and rotation switch."""

    index: int
    rules: Any  # fastmach.rules.Rules, players included
    rules_text: str  # canonical rules string without players
    lineup: tuple[str, ...]
    rotate: bool

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def preset(self) -> str:
        return self.rules.preset

    @property
    def key(self) -> str:
        """Canonical cell string ``RULES|players=N|lineup=a,b|rotate=true``."""
        return (f"{self.rules_text}|players={self.players}|lineup={','.join(self.lineup)}"
                f"|rotate={'true' if self.rotate else 'false'}")

    @property
    def hash(self) -> str:
        """12 hex digits of the SHA-1 of :attr:`key` (names the cell's chunk files)."""
        return hashlib.sha1(self.key.encode()).hexdigest()[:12]

    @property
    def rotations(self) -> tuple[int, ...]:
        return rotations_of(self.lineup, self.players, self.rotate)

    def seats(self, rotation: int = 0) -> list[str]:
        """Strategy string of each seat under ``rotation``."""
        return seating(self.lineup, self.players, rotation)

    def columns(self) -> dict[str, Any]:
        """Constant columns of this cell's rows (``rotation`` excepted)."""
        cols = {"cell": self.key, "rules": self.rules_text, "preset": self.preset,
                "players": self.players, "lineup": ",".join(self.lineup)}
        for k, v in self.rules.params().items():
            cols.setdefault(k, v)
        return cols


# ----------------------------------------------------------------------------- study

@dataclass(frozen=True)
class Study:
    """A validated study: name, root seed, deals per cell, and the grid.

    ``rules``: presets or rules strings; ``players``: player counts (empty: each rules
    entry's own); ``lineup``: line-ups of strategy strings; ``axes``: Rules parameter ->
    values applied on top of every rules entry. Construction validates every cell.
    """

    name: str
    seed: int
    games: int
    rules: tuple[str, ...] = ("classic",)
    players: tuple[int, ...] = ()
    lineup: tuple[tuple[str, ...], ...] = (("expert",),)
    rotate: bool = False
    axes: tuple[tuple[str, tuple], ...] = ()
    chunk: int = DEFAULT_CHUNK
    precision: tuple[tuple[str, float], ...] = ()
    max_games: int | None = None
    source: str = field(default="<study>", compare=False, repr=False)
    #: first N games of each cell (and rotation) also written as logs (DIR/_logs); not part
    #: of the study's identity: the games are the same with or without logs
    log_games: int = field(default=0, compare=False)
    #: the ``[skill]`` table (:mod:`fastmach.study.skill_runs`): studies of their own, stored
    #: apart, so not part of the grid's identity either
    skill: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        R = _rules_api()
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        if not isinstance(self.name, str) or not _NAME_RE.fullmatch(self.name):
            raise _KeyError("study", "name", f"expected a name of letters, digits, '-', '_' "
                            f"or '.', got {self.name!r}")
        for key, lo, hi in (("seed", 0, 2**63 - 1), ("games", 1, None), ("chunk", 1, None),
                            ("log_games", 0, None)):
            v = getattr(self, key)
            if not _is_int(v) or v < lo or (hi is not None and v > hi):
                rng = f"an integer >= {lo}" if hi is None else f"an integer {lo}..2**63-1"
                raise _KeyError("study", key, f"expected {rng}, got {v!r}")
        self._check_precision()
        if self.skill is not None:
            from fastmach.study.skill_runs import SkillSpec
            set_("skill", SkillSpec.from_table(self.skill))
        # rules
        rules = _as_list("grid", "rules", list(self.rules) if isinstance(self.rules, tuple)
                         else self.rules, scalar_ok=True)
        parsed = []
        for r in rules:
            if not isinstance(r, str):
                raise _KeyError("grid", "rules", f"expected a preset or rules string, got {r!r}")
            try:
                parsed.append(R.Rules.parse(r))
            except FastmachError as e:
                raise _KeyError("grid", "rules", str(e)) from None
        canon_rules = tuple(str(p) for p in parsed)
        _no_duplicates("grid", "rules", canon_rules)
        set_("rules", canon_rules)
        # players
        players: Any = self.players   # as given; a tuple of ints when checked
        if players is None or (isinstance(players, tuple) and players == ()):
            players = ()
        else:
            players = _as_list("grid", "players", list(players) if isinstance(players, tuple)
                               else players, scalar_ok=True)
            for p in players:
                if not _is_int(p) or not 2 <= p <= 8:
                    raise _KeyError("grid", "players", f"players must be an integer 2..8, "
                                    f"got {p!r}")
            _no_duplicates("grid", "players", players)
        set_("players", tuple(players))
        # line-ups
        lineups = _as_list("grid", "lineup", list(self.lineup) if isinstance(self.lineup, tuple)
                           else self.lineup, scalar_ok=False)
        if all(isinstance(x, str) for x in lineups):
            raise _KeyError("grid", "lineup", f"expected a list of line-ups (lists of strategy "
                            f"strings), e.g. [{_toml_value(list(lineups))}], got "
                            f"{_toml_value(list(lineups))}")
        canon_lineups = []
        for lu in lineups:
            if not isinstance(lu, (list, tuple)) or not lu or not all(isinstance(s, str)
                                                                     for s in lu):
                raise _KeyError("grid", "lineup", f"each line-up must be a non-empty list of "
                                f"strategy strings, got {lu!r}")
            try:
                canon_lineups.append(tuple(_canonical_strategy(s) for s in lu))
            except FastmachError as e:
                raise _KeyError("grid", "lineup", str(e)) from None
        _no_duplicates("grid", "lineup", canon_lineups)
        set_("lineup", tuple(canon_lineups))
        if not isinstance(self.rotate, bool):
            raise _KeyError("grid", "rotate", f"expected true or false, got {self.rotate!r}")
        # axes
        axes = dict(self.axes)
        for k in axes:
            if k == "players" or k not in R.PARAMETERS:
                raise _KeyError("grid", k, _unknown_grid_key(k))
        ordered = []
        for k in R.PARAMETERS:
            if k in axes:
                vals = _as_list("grid", k, list(axes[k]) if isinstance(axes[k], tuple)
                                else axes[k], scalar_ok=True)
                _no_duplicates("grid", k, vals)
                ordered.append((k, tuple(vals)))
        set_("axes", tuple(ordered))
        self.cells  # validate every cell now, before any game
        if self.skill is not None:  # and the skill runs' cells
            from fastmach.study.skill_runs import skill_studies
            skill_studies(self)

    def _check_precision(self) -> None:
        """``precision``: half-widths wanted per cell; sizes grow by ``chunk`` up to
        ``max_games``, so both stay on chunk boundaries (a grown run's chunks are a
        fixed-size run's chunks)."""
        raw: Any = self.precision   # as given; (figure, half-width) pairs when checked
        prec: dict[str, Any]
        if isinstance(raw, Mapping):
            prec = dict(raw)
        elif isinstance(raw, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in raw):
            prec = dict(raw)
        else:
            raise _KeyError("study", "precision", "expected a table such as "
                            f"{{ turns_per_hand = 1.0, win_share = 0.03 }}, got {raw!r}")
        for k, v in prec.items():
            if k not in PRECISION_KEYS:
                raise _KeyError("study", "precision", f"unknown figure {k!r}; known: "
                                f"{', '.join(PRECISION_KEYS)}")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                raise _KeyError("study", "precision", f"{k}: expected a positive half-width, "
                                f"got {v!r}")
        object.__setattr__(self, "precision", tuple((k, float(prec[k]))
                                                    for k in PRECISION_KEYS if k in prec))
        if self.max_games is None:
            if prec:
                raise _KeyError("study", "max_games", "missing key: a study with a precision "
                                "needs max_games, the most deals per cell it may play")
            return
        if not _is_int(self.max_games) or self.max_games < self.games:
            raise _KeyError("study", "max_games", f"expected an integer >= games "
                            f"({self.games}), got {self.max_games!r}")
        for key in ("games", "max_games"):
            if getattr(self, key) % self.chunk:
                raise _KeyError("study", key, f"with a precision, {key} must be a multiple of "
                                f"chunk ({self.chunk}), got {getattr(self, key)}")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<study>") -> Study:
        """A study from the parsed TOML tables ``{"study": {...}, "grid": {...}}``."""
        if not isinstance(data, Mapping):   # (None, a list: a TypeError from inside)
            raise FastmachError(f"{source}: expected the study's tables as a mapping "
                                f"{{'study': ..., 'grid': ...}}, got {type(data).__name__}")
        for table in data:
            if table not in ("study", "grid", "skill"):
                raise _KeyError(table, None, "unknown table; a study has [study], [grid] "
                                "and optionally [skill]")
        for table in ("study", "grid"):
            if not isinstance(data.get(table), Mapping):
                raise _KeyError(table, None, "missing table")
        st, grid = dict(data["study"]), dict(data["grid"])
        for k in st:
            if k not in _STUDY_KEYS:
                raise _KeyError("study", k, f"unknown key; known: {', '.join(_STUDY_KEYS)}")
        for k in ("name", "seed", "games"):
            if k not in st:
                raise _KeyError("study", k, "missing key")
        if "rules" not in grid:
            raise _KeyError("grid", "rules", "missing key: the grid needs at least one rules "
                            "entry, e.g. rules = [\"classic\"]")
        if "lineup" not in grid:
            raise _KeyError("grid", "lineup", "missing key, e.g. lineup = [[\"expert\"]]")
        axes: Any = {k: v for k, v in grid.items() if k not in _GRID_KEYS}  # checked by Study
        return cls(name=st["name"], seed=st["seed"], games=st["games"],
                   chunk=st.get("chunk", DEFAULT_CHUNK),
                   precision=st.get("precision", ()),
                   max_games=st.get("max_games"), rules=grid["rules"],
                   players=grid.get("players", ()), lineup=grid["lineup"],
                   rotate=grid.get("rotate", False), axes=axes, source=source,
                   log_games=st.get("log_games", 0), skill=data.get("skill"))

    @classmethod
    def from_toml(cls, path_or_text: str | Path, *, games: int | None = None) -> Study:
        """A study from a TOML file (a Path, or a one-line string) or TOML text (several
        lines); ``games`` overrides the games per cell. Errors name the file, line and key.
        """
        data, text, source = read_toml(path_or_text, "study file", "<study>")
        if games is not None:
            data.setdefault("study", {})
            if isinstance(data["study"], dict):
                data["study"]["games"] = games
        try:
            return cls.from_dict(data, source=source)
        except _KeyError as e:
            if games is not None and (e.table, e.key) == ("study", "games"):
                # (the value came from the caller, --games, not from the file)
                raise FastmachError(f"games={games!r} (given for {source}): "
                                    f"{str(e).split(': ', 1)[-1]}") from None
            line = _line_of(text, e.table, e.key)
            where = f"{source} line {line}" if line else source
            raise FastmachError(f"{where}: {e}") from None

    def replace(self, **changes: Any) -> Study:
        """A copy with some fields changed (re-validated), e.g. ``study.replace(games=100)``."""
        return dataclasses.replace(self, **changes)

    # -- the grid -----------------------------------------------------------------------
    @cached_property
    def cells(self) -> tuple[Cell, ...]:
        """Every cell of the grid, validated, in canonical order."""
        R = _rules_api()
        cells: list[Cell] = []
        axis_names = [k for k, _ in self.axes]
        for rtext in self.rules:
            base = R.Rules.parse(rtext)
            for players in self.players or (base.players,):
                for lineup in self.lineup:
                    for combo in itertools.product(*[v for _, v in self.axes]):
                        changes = dict(zip(axis_names, combo))
                        changes["players"] = players
                        try:
                            rules = base.replace(**changes)
                        except FastmachError as e:
                            key = _culprit(str(e), axis_names)
                            desc = ", ".join(f"{k}={v}" for k, v in changes.items())
                            raise _KeyError("grid", key, f"invalid rules in the cell "
                                            f"{rtext!r} with {desc}: {e}") from None
                        if len(lineup) > players:
                            raise _KeyError("grid", "lineup", f"line-up {list(lineup)} has "
                                            f"more strategies than players={players}")
                        cells.append(Cell(len(cells), rules, _rules_text(rules), lineup,
                                          self.rotate))
        seen: dict[str, int] = {}
        for c in cells:
            if c.key in seen:
                raise _KeyError("grid", None, f"two grid points give the same cell {c.key!r}")
            seen[c.key] = c.index
        return tuple(cells)

    @property
    def max_players(self) -> int:
        return max(c.players for c in self.cells)

    @property
    def total_games(self) -> int:
        """Games the study plays: deals x rotations, summed over cells."""
        return sum(self.games * len(c.rotations) for c in self.cells)

    def to_toml(self) -> str:
        """Canonical TOML text of the study (the identity stored in the result manifest)."""
        lines = ["[study]", f"name = {_toml_value(self.name)}", f"seed = {self.seed}",
                 f"games = {self.games}", f"chunk = {self.chunk}"]
        if self.precision:
            lines.append("precision = { " + ", ".join(f"{k} = {v!r}" for k, v in self.precision)
                         + " }")
        if self.max_games is not None:
            lines.append(f"max_games = {self.max_games}")
        lines += ["", "[grid]", f"rules = {_toml_value(list(self.rules))}"]
        if self.players:
            lines.append(f"players = {_toml_value(list(self.players))}")
        lines.append(f"lineup = {_toml_value([list(x) for x in self.lineup])}")
        lines.append(f"rotate = {_toml_value(self.rotate)}")
        for k, vals in self.axes:
            lines.append(f"{k} = {_toml_value(list(vals))}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_toml()

    # -- execution ----------------------------------------------------------------------


def _unknown_grid_key(key: str) -> str:
    R = _rules_api()
    known = list(_GRID_KEYS) + [p for p in R.PARAMETERS if p != "players"]
    return f"unknown key; known: {', '.join(known)}"


def _culprit(message: str, axis_names: Iterable[str]) -> str:
    """The grid key an impossible-rules message most likely blames."""
    for k in ["players", *axis_names]:
        if re.search(rf"\b{re.escape(k)}\b", message):
            return k
    return "rules"


def _line_of(text: str, table: str, key: str | None) -> int | None:
    """1-based line of ``key = ...`` inside ``[table]`` (or of the header when key is None)."""
    current = None
    header = re.compile(r"\s*\[\s*([A-Za-z0-9_.\-\"']+)\s*\]\s*(#.*)?$")
    for n, line in enumerate(text.splitlines(), 1):
        m = header.match(line)
        if m:
            current = m.group(1).strip("\"'")
            if key is None and current == table:
                return n
            continue
        if key is not None and current == table:
            if re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
                return n
        if key is not None and current is None and re.match(
                rf"\s*{re.escape(table)}\.{re.escape(key)}\s*=", line):
            return n
    return None
