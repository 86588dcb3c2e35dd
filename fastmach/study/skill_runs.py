"""The skill runs of a study: its ``[skill]`` table, the studies it plans, their stores.

A study may ask for the games the report's skill section needs, next to its grid::

    [skill]
    rules = ["classic", "jokers"]   # default: the grid's rules
    players = [4]                   # default: the grid's player counts
    games = 40                      # deals per line-up (default: the study's games)
    ceiling = ["strong", "clairvoyant"]   # each seated alone with n - 1 experts
    budgets = [1, 2, 4]             # the skill trace: search(budget=2b) vs search(budget=b)

For each player count ``n`` that is one ordinary :class:`~fastmach.study.Study` (named
``<study>-skill-<n>p``, the study's root seed, so replicate ``r`` deals the same cards as
in the grid: common random numbers), seats rotated, with the line-ups "one ``s`` and
``n - 1`` experts" for each ``s`` of ``ceiling`` and "one ``search(budget=2b)`` and
``n - 1`` ``search(budget=b)``" for each ``b`` of ``budgets``. Each is stored in
``DIR/_skill/<n>p`` (a study store of its own: manifest, checksummed chunks, resume),
run by ``fastmach sweep`` after the grid with the same workers or Dask scheduler
(:func:`execute_skill`). The grid's identity does not include the table: changing it
leaves the grid's games valid and replays only the skill runs. ``fastmach report`` reads
the stores back with :func:`read_skill`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from fastmach.errors import FastmachError

__all__ = ["SKILL", "SkillSpec", "skill_studies", "execute_skill", "read_skill",
           "skill_dirs", "ANCHOR"]

#: Subdirectory of a result directory holding the skill runs (hidden from the grid's rows).
SKILL = "_skill"
#: The strategy the ceiling's measuring sticks sit with.
ANCHOR = "expert"
_KEYS = ("rules", "players", "games", "ceiling", "budgets")


@dataclass(frozen=True)
class SkillSpec:
    """A validated ``[skill]`` table (rules canonical, empty tuples: the grid's)."""

    rules: tuple[str, ...] = ()
    players: tuple[int, ...] = ()
    games: int | None = None
    ceiling: tuple[str, ...] = ()
    budgets: tuple[int, ...] = ()

    @classmethod
    def from_table(cls, table: Any) -> "SkillSpec":
        """From the parsed TOML table; errors name ``[skill] key``."""
        from fastmach.rules import Rules
        from fastmach.strategies import parse_strategy
        from fastmach.study import _KeyError

        if isinstance(table, SkillSpec):
            return table
        if not isinstance(table, Mapping):
            raise _KeyError("skill", None, f"expected a table, got {table!r}")
        for k in table:
            if k not in _KEYS:
                raise _KeyError("skill", k, f"unknown key; known: {', '.join(_KEYS)}")

        def strings(key: str) -> list:
            v = table.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise _KeyError("skill", key, f"expected a list of strings, got {v!r}")
            if len(set(v)) != len(v):
                raise _KeyError("skill", key, f"a value is listed twice in {v!r}")
            return v

        def ints(key: str, lo: int, hi: int) -> list:
            v = table.get(key, [])
            if not isinstance(v, list) or not all(
                    isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi
                    for x in v):
                raise _KeyError("skill", key, f"expected a list of integers {lo}..{hi}, "
                                f"got {v!r}")
            if len(set(v)) != len(v):
                raise _KeyError("skill", key, f"a value is listed twice in {v!r}")
            return v

        rules = []
        for r in strings("rules"):
            try:
                rules.append(str(Rules.parse(r)))
            except FastmachError as e:
                raise _KeyError("skill", "rules", str(e)) from None
        ceiling = []
        for s in strings("ceiling"):
            try:
                canon = str(parse_strategy(s))
            except FastmachError as e:
                raise _KeyError("skill", "ceiling", str(e)) from None
            if canon == ANCHOR:
                raise _KeyError("skill", "ceiling", f"{s!r} is the strategy the ceiling "
                                f"seats it with")
            ceiling.append(canon)
        budgets = ints("budgets", 1, 2048)
        games = table.get("games")
        if games is not None and (isinstance(games, bool) or not isinstance(games, int)
                                  or games < 1):
            raise _KeyError("skill", "games", f"expected an integer >= 1, got {games!r}")
        if not ceiling and not budgets:
            raise _KeyError("skill", None, "nothing to run: give ceiling (strategies seated "
                            "with experts) or budgets (the skill trace)")
        return cls(tuple(rules), tuple(ints("players", 2, 8)), games, tuple(ceiling),
                   tuple(sorted(budgets)))


def _lineups(spec: SkillSpec, n: int) -> tuple[tuple[str, ...], ...]:
    from fastmach.analysis.skill import lone_lineup, trace_lineup

    return tuple([lone_lineup(s, ANCHOR, n) for s in spec.ceiling]
                 + [trace_lineup(b, n) for b in spec.budgets])


def skill_studies(study) -> list:
    """The studies of ``study.skill`` (one per player count; [] without a table). Errors
    (a player count a rules set cannot deal) name ``[skill]``."""
    from fastmach.study import Study, _KeyError

    spec = study.skill
    if spec is None:
        return []
    rules = spec.rules or study.rules
    players = spec.players or tuple(dict.fromkeys(c.players for c in study.cells))
    games = spec.games or study.games
    out = []
    for n in players:
        try:
            out.append(Study(name=f"{study.name}-skill-{n}p", seed=study.seed, games=games,
                             chunk=min(study.chunk, games), rules=rules, players=(n,),
                             lineup=_lineups(spec, n), rotate=True))
        except FastmachError as e:
            raise _KeyError("skill", "players", f"{n} players: {e}") from None
    return out


def skill_dirs(out: str | Path) -> list[Path]:
    """The skill stores under a result directory (``DIR/_skill/<n>p``), in player order."""
    root = Path(out) / SKILL
    if not root.is_dir():
        return []
    return sorted((p for p in root.iterdir() if p.is_dir() and p.name.endswith("p")
                   and p.name[:-1].isdigit()), key=lambda p: int(p.name[:-1]))


def execute_skill(study, out: str | Path, **run: Any) -> list[dict]:
    """Play the missing chunks of every skill study into ``out/_skill/<n>p`` with
    :func:`fastmach.study.driver.execute` (``run``: its keyword arguments: workers,
    scheduler, retries, progress, command). Returns their run summaries."""
    from fastmach.study.driver import execute

    return [execute(s, Path(out) / SKILL / f"{s.players[0]}p", **run)
            for s in skill_studies(study)]


def read_skill(out: str | Path):
    """The hand rows of every skill store under ``out`` (verified as the grid's are), or
    None when the study ran none."""
    import pandas as pd

    from fastmach.study.results import read_hands

    frames = [read_hands(d) for d in skill_dirs(out) if any((d / "_hands").glob("*.parquet"))]
    return pd.concat(frames, ignore_index=True) if frames else None
