"""The search space of ``fastmach tune``: a TOML file -> a validated :class:`Space`.

No game is played here: every error is a :class:`~fastmach.errors.FastmachError` that
names the problem (the file, the table and the key), raised before any game::

    [tune]
    name = "classic-40-turns"
    seed = 20261201
    rules = "classic"            # the base preset or rules string
    players = [4]                # player counts (each one is a cell of every candidate)
    lineup = [["expert"]]        # line-ups, strategies as in studies
    rotate = false               # seat rotations, as in studies
    deals = 25                   # deals of the first rung of the race
    eta = 4                      # each rung keeps the best 1/eta and plays eta x the deals
    rungs = 3                    # 25, 100, 400 deals
    fresh_deals = 400            # the finalists' check on fresh deals
    finalists = 3
    # order = ["turns_per_hand", "stock_out_per_hand"]   # lexicographic instead of weights

    [space]                      # any rules parameter (fastmach.rules.TABLE) but players
    hand_size = "9..15"          # an integer range, both ends included (its values allowed
                                 # by the table, at most MAX_RANGE of them)
    opening_points = [0, 24, 36] # or a list of choices

    [targets]                    # scorecard metrics (fastmach.analysis.stats.SCORECARD_METRICS)
    turns_per_hand = "40 +- 3"   # a band: centre +- tolerance, in the metric's unit
    stock_out_per_hand = "< 2%"  # a bound (<, <=, >, >=); shares also in percent
    # seat_spread = { target = "< 0.03", weight = 2, players = [4] }

A target applies to every cell (player count x line-up) unless it names ``players``; a
candidate meets it when it meets it in each of those cells.
"""
from __future__ import annotations

import hashlib
import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, Mapping

from fastmach.errors import FastmachError
from fastmach.rules import TABLE, Rules, format_value
from fastmach.analysis.metrics import METRICS, SCORECARD_METRICS
from fastmach.analysis.hands import SKILL_PAIR
from fastmach.study import Study
from fastmach.study.tomlfile import read_toml

__all__ = ["Axis", "Target", "Space", "load_space", "METRIC_UNITS"]

#: The unit of each scorecard metric a target is written in (the metric catalogue's).
METRIC_UNITS: dict[str, str] = {name: m.unit for name, m in METRICS.items()}

_TUNE_KEYS = ("name", "seed", "rules", "players", "lineup", "rotate", "deals", "eta",
              "rungs", "fresh_deals", "finalists", "order")
_TARGET_KEYS = ("target", "weight", "players")
_PARAMS = {p.name: p for p in TABLE}
_RANGE_RE = re.compile(r"\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*")
_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_BAND_RE = re.compile(rf"\s*({_NUM})\s*(%?)\s*(?:\+-|±|\+/-)\s*({_NUM})\s*(%?)\s*")
_BOUND_RE = re.compile(rf"\s*(<=|>=|<|>)\s*({_NUM})\s*(%?)\s*")
#: Weight of one place in a lexicographic order over the next (violations are capped at
#: this many tolerances, so a lower target only breaks ties of the higher ones).
LEXICOGRAPHIC_BASE = 1000.0
_CAP = LEXICOGRAPHIC_BASE / 10
#: Weight of the distance from a band's centre (a tie-break among rule sets inside it).
CENTRE_WEIGHT = 0.01
#: Candidates a grid is checked in full against the deal (beyond: the corners of the box).
_CHECK_ALL = 20_000
#: The most values one range may hold (checked before any is listed; a rules parameter's
#: useful span is far smaller, and a parameter without a highest value has no other bound).
MAX_RANGE = 1_000


class SpaceError(FastmachError):
    """A bad search space; ``where`` is ``(table, key)`` for the line number."""

    def __init__(self, table: str, key: str | None, message: str):
        super().__init__(message)
        self.table, self.key = table, key


@dataclass(frozen=True)
class Axis:
    """One searched rules parameter: an integer range ``low..high`` or a list of choices."""

    name: str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def __post_init__(self) -> None:
        if not self.choices and self.low is not None and self.high is not None \
                and self.size > MAX_RANGE:   # (a space built in Python: before any game)
            raise FastmachError(f"{self.name}: range {self.text()} holds {self.size} values; "
                                f"a range may hold at most {MAX_RANGE}")

    @property
    def size(self) -> int:
        """The number of values (counted, not listed)."""
        if self.choices:
            return len(self.choices)
        assert self.low is not None and self.high is not None   # a range, not choices
        return self.high - self.low + 1

    @property
    def values(self) -> tuple:
        if self.choices:
            return self.choices
        assert self.low is not None and self.high is not None   # a range, not choices
        return tuple(range(self.low, self.high + 1))

    def text(self) -> str:
        if self.choices:
            return "[" + ", ".join(format_value(self.name, v) for v in self.choices) + "]"
        return f"{self.low}..{self.high}"


@dataclass(frozen=True)
class Target:
    """A target on a scorecard metric: a band ``centre +- tolerance`` or a bound.

    ``violation`` is 0 when the value meets the target, else the distance beyond it in
    tolerances (a band) or in units of the bound (``|bound|``, or 1 when the bound is 0).
    """

    metric: str
    op: str  # "+-", "<", "<=", ">", ">="
    value: float
    tolerance: float = 0.0
    weight: float = 1.0
    players: tuple[int, ...] = ()
    text: str = ""

    @property
    def low(self) -> float:
        if self.op == "+-":
            return self.value - self.tolerance
        return self.value if self.op in (">", ">=") else -math.inf

    @property
    def high(self) -> float:
        if self.op == "+-":
            return self.value + self.tolerance
        return self.value if self.op in ("<", "<=") else math.inf

    @property
    def scale(self) -> float:
        if self.op == "+-":
            return self.tolerance
        return abs(self.value) or 1.0

    def meets(self, x: float) -> bool:
        if math.isnan(x):
            return False
        if self.op == "<":
            return x < self.value
        if self.op == ">":
            return x > self.value
        return self.low <= x <= self.high

    def violation(self, x: float) -> float:
        if math.isnan(x):
            return _CAP
        if self.meets(x):
            return 0.0
        return min(_CAP, max(self.low - x, x - self.high, 0.0) / self.scale)

    def loss(self, x: float) -> float:
        """Violation plus, for a band, a small pull towards its centre."""
        v = self.violation(x)
        if self.op == "+-" and not math.isnan(x):
            v += CENTRE_WEIGHT * min(_CAP, abs(x - self.value) / self.scale)
        return v

    def probability(self, x: float, se: float) -> float:
        """P(the true value meets the target) under ``N(x, se^2)`` (the estimate's normal
        approximation); with ``se == 0`` (an exact figure) 1 or 0."""
        if math.isnan(x):
            return math.nan
        if not se > 0:
            return 1.0 if self.meets(x) else 0.0
        n = NormalDist(x, se)
        return n.cdf(self.high) - n.cdf(self.low)

    def applies(self, players: int) -> bool:
        return not self.players or players in self.players


@dataclass(frozen=True)
class Space:
    """A validated search space (see the module docstring for the TOML)."""

    name: str
    seed: int
    rules: str
    players: tuple[int, ...]
    lineup: tuple[tuple[str, ...], ...]
    rotate: bool
    axes: tuple[Axis, ...]
    targets: tuple[Target, ...]
    deals: int = 25
    eta: int = 4
    rungs: int = 3
    fresh_deals: int = 400
    finalists: int = 3
    order: tuple[str, ...] = ()
    source: str = field(default="<space>", compare=False)

    # -- derived ---------------------------------------------------------------------
    @property
    def rung_deals(self) -> tuple[int, ...]:
        """Deals per candidate at each rung of the race: deals x eta^k."""
        return tuple(self.deals * self.eta ** k for k in range(self.rungs))

    @property
    def fresh_seed(self) -> int:
        """The seed of the fresh deals: derived from the search seed, never equal to it."""
        h = hashlib.sha256(f"fastmach-tune-fresh:{self.seed}".encode()).digest()
        return int.from_bytes(h[:8], "big") >> 1

    @property
    def grid_size(self) -> int:
        return math.prod(a.size for a in self.axes)

    def weights(self) -> dict[str, float]:
        """Weight of each target's loss: its own, or its place in ``order``."""
        if not self.order:
            return {t.metric: t.weight for t in self.targets}
        n = len(self.order)
        return {m: LEXICOGRAPHIC_BASE ** (n - 1 - i) for i, m in enumerate(self.order)}

    def candidate(self, params: Mapping[str, Any]) -> Rules:
        """The rules of one candidate (``params``: a value for each axis)."""
        return Rules.parse(self.rules).replace(**dict(params))

    def study(self, rules: str, deals: int, *, seed: int | None = None,
              chunk: int | None = None) -> Study:
        """The study that evaluates one candidate: the same seed (common random numbers)
        for every candidate; ``max_games`` lets its result directory grow by rungs."""
        chunk = chunk or self.deals
        top = max(self.rung_deals[-1], deals)
        return Study(name=f"{self.name}-candidate", seed=self.seed if seed is None else seed,
                     games=deals, rules=(rules,), players=self.players, lineup=self.lineup,
                     rotate=self.rotate, chunk=chunk, max_games=-(-top // chunk) * chunk)

    @property
    def games_per_deal(self) -> int:
        """Games one candidate plays per deal: cells x seat rotations."""
        return sum(len(c.rotations) for c in self.study(self.rules, self.deals).cells)

    def to_toml(self) -> str:
        """Canonical text of the space (stored in DIR: a resumed tune must match it)."""
        lines = ["[tune]", f"name = {_q(self.name)}", f"seed = {self.seed}",
                 f"rules = {_q(self.rules)}", f"players = {list(self.players)}",
                 "lineup = [" + ", ".join("[" + ", ".join(_q(s) for s in lu) + "]"
                                          for lu in self.lineup) + "]",
                 f"rotate = {'true' if self.rotate else 'false'}", f"deals = {self.deals}",
                 f"eta = {self.eta}", f"rungs = {self.rungs}",
                 f"fresh_deals = {self.fresh_deals}", f"finalists = {self.finalists}"]
        if self.order:
            lines.append("order = [" + ", ".join(_q(m) for m in self.order) + "]")
        lines += ["", "[space]"]
        lines += [f"{a.name} = {_q(a.text()) if not a.choices else _choices(a)}"
                  for a in self.axes]
        lines += ["", "[targets]"]
        for t in self.targets:
            extra = f", players = {list(t.players)}" if t.players else ""
            lines.append(f"{t.metric} = {{ target = {_q(t.text)}, weight = {t.weight!r}{extra} }}")
        return "\n".join(lines) + "\n"


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _choices(a: Axis) -> str:
    return "[" + ", ".join(_q(v) if isinstance(v, str) else
                           ("true" if v is True else "false" if v is False else str(v))
                           for v in a.choices) + "]"


# ------------------------------------------------------------------------------ parsing

def _int(table: str, key: str, v: Any, lo: int, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        rng = f">= {lo}" if hi is None else f"{lo}..{hi}"
        raise SpaceError(table, key, f"expected an integer {rng}, got {v!r}")
    return v


def _axis(name: str, raw: Any, base: Rules) -> Axis:
    if name == "players":
        raise SpaceError("space", name, "players is not a rules axis here: give the player "
                         "counts as [tune] players = [...]")
    p = _PARAMS.get(name)
    if p is None:
        raise SpaceError("space", name, f"unknown rules parameter {name!r}; known: "
                         f"{', '.join(n for n in _PARAMS if n != 'players')}")
    m = _RANGE_RE.fullmatch(raw) if isinstance(raw, str) else None
    if m is not None:
        if p.type is not int:
            raise SpaceError("space", name, f"{name} is not an integer parameter: give a "
                             f"list of choices")
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            raise SpaceError("space", name, f"empty range {raw!r} (the high end is below "
                             f"the low end)")
        plo, phi = p.allowed
        if lo < plo or (phi is not None and hi > phi):
            span = f"{plo}..{phi}" if phi is not None else f">= {plo}"
            raise SpaceError("space", name, f"range {raw!r} leaves the values {name} "
                             f"allows ({span})")
        if lo == hi:
            raise SpaceError("space", name, f"range {raw!r} holds one value: fix {name} in "
                             f"[tune] rules instead")
        if hi - lo + 1 > MAX_RANGE:
            raise SpaceError("space", name, f"range {raw!r} holds {hi - lo + 1} values; a "
                             f"range may hold at most {MAX_RANGE}: narrow it")
        return Axis(name, low=lo, high=hi)
    if isinstance(raw, list):
        if len(raw) < 2:
            raise SpaceError("space", name, f"expected two or more choices, got {raw!r}")
        out = []
        for v in raw:
            try:
                canon = getattr(base.replace(**{name: v}), name)
            except FastmachError as e:
                raise SpaceError("space", name, str(e)) from None
            if canon in out:
                raise SpaceError("space", name, f"the choice {v!r} is given twice")
            out.append(canon)
        return Axis(name, choices=tuple(out))
    raise SpaceError("space", name, f"expected a range such as \"9..15\" or a list of "
                     f"choices, got {raw!r}")


def _number(table: str, key: str, text: str, pct: str, unit: str) -> float:
    x = float(text)
    if pct:
        if unit != "share":
            raise SpaceError(table, key, f"{key} is counted in {unit}, not a share: no %")
        x /= 100.0
    return x


def _target(metric: str, raw: Any) -> Target:
    if metric not in SCORECARD_METRICS:
        raise SpaceError("targets", metric, f"unknown metric {metric!r}; known: "
                         f"{', '.join(SCORECARD_METRICS)}")
    unit = METRIC_UNITS[metric]
    opts: dict[str, Any] = {}
    if isinstance(raw, Mapping):
        for k in raw:
            if k not in _TARGET_KEYS:
                raise SpaceError("targets", metric, f"unknown key {k!r}; known: "
                                 f"{', '.join(_TARGET_KEYS)}")
        if "target" not in raw:
            raise SpaceError("targets", metric, "missing key 'target', e.g. target = "
                             "\"40 +- 3\"")
        opts = dict(raw)
        raw = opts.pop("target")
    if not isinstance(raw, str):
        raise SpaceError("targets", metric, f"expected a target such as \"40 +- 3\" or "
                         f"\"< 0.02\" (a string), got {raw!r}")
    if m := _BAND_RE.fullmatch(raw):
        c = _number("targets", metric, m.group(1), m.group(2), unit)
        t = _number("targets", metric, m.group(3), m.group(4) or m.group(2), unit)
        if not t > 0:
            raise SpaceError("targets", metric, f"{raw!r}: the tolerance must be > 0")
        op, value, tol = "+-", c, t
    elif m := _BOUND_RE.fullmatch(raw):
        op, value, tol = m.group(1), _number("targets", metric, m.group(2), m.group(3), unit), 0.0
    else:
        raise SpaceError("targets", metric, f"cannot read {raw!r}: expected \"C +- T\" or "
                         f"\"< B\" (<, <=, >, >=), in {unit}")
    weight = opts.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        raise SpaceError("targets", metric, f"weight: expected a number > 0, got {weight!r}")
    players = opts.get("players", [])
    players = [players] if isinstance(players, int) and not isinstance(players, bool) else players
    if not isinstance(players, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in players):
        raise SpaceError("targets", metric, f"players: expected a list of player counts, "
                         f"got {players!r}")
    return Target(metric, op, value, tol, float(weight), tuple(players), raw.strip())


def space_from_dict(data: Mapping[str, Any], source: str = "<space>") -> Space:
    """A space from parsed TOML tables ``{"tune": ..., "space": ..., "targets": ...}``."""
    for table in data:
        if table not in ("tune", "space", "targets"):
            raise SpaceError(table, None, "unknown table; a search space has [tune], [space] "
                             "and [targets]")
    for table in ("tune", "space", "targets"):
        if not isinstance(data.get(table), Mapping):
            raise SpaceError(table, None, "missing table")
    tune, axes_raw, targets_raw = dict(data["tune"]), dict(data["space"]), dict(data["targets"])
    for k in tune:
        if k not in _TUNE_KEYS:
            raise SpaceError("tune", k, f"unknown key; known: {', '.join(_TUNE_KEYS)}")
    for k in ("name", "seed"):
        if k not in tune:
            raise SpaceError("tune", k, "missing key")
    name = tune["name"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise SpaceError("tune", "name", f"expected a name of letters, digits, '-', '_' or "
                         f"'.', got {name!r}")
    seed = _int("tune", "seed", tune["seed"], 0, 2**63 - 1)
    rules = tune.get("rules", "classic")
    if not isinstance(rules, str):
        raise SpaceError("tune", "rules", f"expected a preset or rules string, got {rules!r}")
    try:
        base = Rules.parse(rules)
    except FastmachError as e:
        raise SpaceError("tune", "rules", str(e)) from None
    ints = {k: _int("tune", k, tune.get(k, d), lo) for k, d, lo in (
        ("deals", 25, 2), ("eta", 4, 2), ("rungs", 3, 1), ("fresh_deals", 400, 2),
        ("finalists", 3, 1))}
    rotate = tune.get("rotate", False)
    if not isinstance(rotate, bool):
        raise SpaceError("tune", "rotate", f"expected true or false, got {rotate!r}")
    players = tune.get("players", [base.players])
    players = [players] if isinstance(players, int) and not isinstance(players, bool) else players
    if players == []:
        raise SpaceError("tune", "players", "expected one player count or more, got []")
    lineup = tune.get("lineup", [["expert"]])
    if not axes_raw:
        raise SpaceError("space", None, "no parameter to search: give at least one range "
                         "or list of choices")
    if not targets_raw:
        raise SpaceError("targets", None, "no target: give at least one, e.g. "
                         "turns_per_hand = \"40 +- 3\"")
    # the axes in the order of the rules table
    axes = [_axis(k, axes_raw[k], base) for k in axes_raw]
    order_of = {n: i for i, n in enumerate(_PARAMS)}
    axes.sort(key=lambda a: order_of[a.name])
    targets = [_target(m, targets_raw[m]) for m in targets_raw]
    order = tune.get("order", [])
    if not isinstance(order, list) or not all(isinstance(m, str) for m in order):
        raise SpaceError("tune", "order", f"expected a list of target metrics, got {order!r}")
    if order and sorted(order) != sorted(t.metric for t in targets):
        raise SpaceError("tune", "order", f"order {order!r} must name every target once: "
                         f"{', '.join(t.metric for t in targets)}")
    space = Space(name=name, seed=seed, rules=str(base), players=(), lineup=(),
                  rotate=rotate, axes=tuple(axes), targets=tuple(targets),
                  order=tuple(order), source=source, **ints)
    # players and line-ups exactly as a study reads them
    try:
        probe = Study(name=name, seed=seed, games=2, rules=(str(base),),
                      players=tuple(players) if isinstance(players, list) else players,
                      lineup=lineup if not isinstance(lineup, list) else
                      tuple(tuple(x) if isinstance(x, list) else x for x in lineup),
                      rotate=rotate)
    except FastmachError as e:
        key = getattr(e, "key", None)
        key = key if key in ("players", "lineup") else "lineup" if "lineup" in str(e) else "players"
        raise SpaceError("tune", key, str(e).split(": ", 1)[-1]) from None
    space = _with(space, players=tuple(sorted({c.players for c in probe.cells})),
                  lineup=probe.lineup)
    for t in targets:
        bad = [p for p in t.players if p not in space.players]
        if bad:
            raise SpaceError("targets", t.metric, f"players {bad} are not among the tuned "
                             f"player counts {list(space.players)}")
        if t.metric == "skill_gap" and not any(set(SKILL_PAIR) <= set(lu) for lu in space.lineup):
            raise SpaceError("targets", "skill_gap", f"skill_gap needs a line-up with both "
                             f"{SKILL_PAIR[0]} and {SKILL_PAIR[1]}, e.g. lineup = "
                             f"[[\"{SKILL_PAIR[0]}\", \"{SKILL_PAIR[1]}\"]]")
    _check_deals(space)
    return space


def _with(space: Space, **changes: Any) -> Space:
    from dataclasses import replace

    return replace(space, **changes)


def _check_deals(space: Space) -> None:
    """Every candidate (or, for a large space, every corner of the box) deals for every
    player count: an impossible rule set is named before any game."""
    base = Rules.parse(space.rules)
    if space.grid_size <= _CHECK_ALL:
        combos = itertools.product(*(a.values for a in space.axes))
    else:
        combos = itertools.product(*({a.low, a.high} if not a.choices
                                     else a.values for a in space.axes))
    for combo in combos:
        params = dict(zip((a.name for a in space.axes), combo))
        for p in space.players:
            try:
                base.replace(players=p, **params)
            except FastmachError as e:
                desc = ", ".join(f"{k}={format_value(k, v)}" for k, v in params.items())
                key = next((a.name for a in space.axes if re.search(rf"\b{a.name}\b", str(e))),
                           None)
                raise SpaceError("space", key, f"the rule set {space.rules} at {p} players, "
                                 f"{desc} cannot be played: {e}") from None


def load_space(path_or_text: str | Path) -> Space:
    """A space from a TOML file (a Path or a one-line string) or TOML text; errors name the
    file, line and key."""
    data, text, source = read_toml(path_or_text, "search space", "<space>")
    try:
        return space_from_dict(data, source)
    except SpaceError as e:
        line = _line_of(text, e.table, e.key)
        where = f"{source} line {line}" if line else source
        what = f"[{e.table}]" + (f" {e.key}" if e.key else "")
        raise FastmachError(f"{where}: {what}: {e}") from None


def _line_of(text: str, table: str, key: str | None) -> int | None:
    current = None
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*\[\s*([A-Za-z0-9_.-]+)\s*\]", line)
        if m:
            current = m.group(1)
            if key is None and current == table:
                return n
            continue
        if key is not None and current == table and re.match(rf"\s*{re.escape(key)}\s*=", line):
            return n
    return None
