"""Which rules a cell changes against its baseline (rules strings read by ``Rules.parse``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from fastmach.analysis.hands import require
from fastmach.errors import FastmachError
from fastmach.rules import PARAMETERS, PRESETS, Rules, format_value

__all__ = ["RULE_PARAMETERS", "DEAL_PARAMETERS", "parse_rules", "is_base_rules",
           "rule_differences", "default_pairs", "parameter_values", "swept_parameters",
           "with_parameters"]

#: Rules parameters stored as columns of the result table: every field of ``Rules`` but the
#: player count (a column of its own) and the preset name.
RULE_PARAMETERS = tuple(f.name for f in dataclasses.fields(Rules)
                        if f.name not in ("players", "preset"))


def parse_rules(text: str) -> tuple[str, dict[str, str]]:
    """Split a rules string ``preset(key=value,...)`` into preset and overrides.

    The string is read by :meth:`Rules.parse` (validated); the overrides are the
    parameters that differ from the preset, their values in canonical text.

    >>> parse_rules("classic(ace=low-only,opening_points=36)")
    ('classic', {'ace': 'low-only', 'opening_points': '36'})
    """
    try:
        rules = Rules.parse(str(text))
    except FastmachError as exc:
        raise FastmachError(f"cannot parse rules string {text!r}: {exc}") from None
    base = PRESETS[rules.preset]
    return rules.preset, {k: format_value(k, getattr(rules, k)) for k in PARAMETERS
                          if getattr(rules, k) != base[k]}


#: Overrides that only size the deal (three decks, 15 cards for 5-6 players): a preset
#: with only these overrides still counts as the bare tradition (:func:`is_base_rules`).
DEAL_PARAMETERS = ("decks", "hand_size")


def is_base_rules(rules: str) -> bool:
    """True for a bare preset, or a preset whose only overrides size the deal."""
    return set(parse_rules(rules)[1]) <= set(DEAL_PARAMETERS)


def _context(cell: str, rules: str) -> str:
    """The part of a cell string that is not its rules (players, line-up, rotation)."""
    return cell[len(rules):] if cell.startswith(rules) else cell.split("|", 1)[-1]


def _parent(ctx: str, rules: str, cells: dict) -> str | None:
    """Rules string of the nearest baseline of ``rules`` in context ``ctx``.

    Among the cells of the same context and preset whose overrides are a strict subset of
    this cell's overrides, the one with the most overrides (``classic(decks=3)`` is the
    baseline of ``classic(ace=low-only,decks=3)``; ``classic`` that of
    ``classic(ace=low-only)``).
    """
    preset, over = parse_rules(rules)
    items = set(over.items())
    best, best_n = None, -1
    for (c, other) in cells:
        if c != ctx or other == rules:
            continue
        p, o = parse_rules(other)
        if p == preset and set(o.items()) < items and (
                len(o) > best_n or (len(o) == best_n and other < best)):
            best, best_n = other, len(o)  # ties: the first rules string, in every context
    return best


def rule_differences(df: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """Pair every cell with its baseline cell and name what differs.

    The baseline of a cell is the cell with the same players, line-up and rotation whose
    rules string is ``baseline`` if given; else the nearest cell of the same preset whose
    overrides are a strict subset of this cell's (usually the bare preset: ``classic`` for
    ``classic(ace=low-only)``; ``classic(decks=3,hand_size=15)`` for
    ``classic(ace=low-only,decks=3,hand_size=15)``). Cells without a baseline are left out.
    Columns: ``cell, baseline_cell, rules, baseline_rules, preset, players, lineup,
    n_changes, change`` (``ace=low-only``, or the rules string when presets differ),
    ``label`` (``ace=low-only vs classic``), ``pool`` (the label with the baseline named by
    its preset only, so that contexts with extra common overrides pool together) and
    ``changed_params`` (every parameter column that differs, ``name: base -> variant``).
    """
    require(df, ("cell", "rules"), "rule_differences")
    info = df.drop_duplicates("cell")
    cells = {}
    for _, r in info.iterrows():
        cells[(_context(r["cell"], r["rules"]), r["rules"])] = r
    rows = []
    for (ctx, rules), r in sorted(cells.items(), key=lambda kv: kv[0]):
        preset, over = parse_rules(rules)
        base_rules = baseline if baseline is not None else _parent(ctx, rules, cells)
        if base_rules is None or base_rules == rules or (ctx, base_rules) not in cells:
            continue
        b = cells[(ctx, base_rules)]
        bpreset, bover = parse_rules(base_rules)
        if bpreset == preset:
            diff = {k: v for k, v in over.items() if bover.get(k) != v}
            diff.update({k: "(preset)" for k in bover if k not in over})
            change = ",".join(f"{k}={v}" for k, v in sorted(diff.items()))
            n = len(diff)
            pool = f"{change} vs {preset}"
        else:
            change, n = rules, -1
            pool = f"{rules} vs {base_rules}"
        params = [f"{p}: {b[p]} -> {r[p]}" for p in RULE_PARAMETERS
                  if p in info.columns and str(b[p]) != str(r[p])]
        rows.append({"cell": r["cell"], "baseline_cell": b["cell"], "rules": rules,
                     "baseline_rules": base_rules, "preset": preset,
                     "players": r.get("players", np.nan), "lineup": r.get("lineup", None),
                     "n_changes": n, "change": change,
                     "label": f"{change} vs {base_rules}", "pool": pool,
                     "changed_params": "; ".join(params)})
    cols = ["cell", "baseline_cell", "rules", "baseline_rules", "preset", "players",
            "lineup", "n_changes", "change", "label", "pool", "changed_params"]
    return pd.DataFrame(rows, columns=cols)



def default_pairs(games: pd.DataFrame) -> list[tuple[str, str]]:
    """``(variant, baseline)`` rules pairs of a study (see :func:`rule_differences`)."""
    d = rule_differences(games)
    return list(dict.fromkeys(zip(d["rules"], d["baseline_rules"])))



def _numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parameter_values(rules: str) -> dict[str, float]:
    """The numeric rule parameters of a rules string (``hand_size``, ``opening_points``...)."""
    r = Rules.parse(str(rules))
    return {k: float(getattr(r, k)) for k in RULE_PARAMETERS if _numeric(getattr(r, k))}


def swept_parameters(rules, axes=()) -> list[str]:
    """The numeric rule parameters that are axes of a study, in table order.

    A parameter is swept when the study's grid names it (``axes``: the grid keys besides
    rules, players and line-up) and it is numeric, or when three or more of its values
    appear among rules that differ in nothing else (a sweep written as rules strings).
    """
    rules = sorted(set(map(str, rules)))
    vals = {r: parameter_values(r) for r in rules}
    full = {r: Rules.parse(r) for r in rules}
    out = []
    for k in RULE_PARAMETERS:
        if not all(k in v for v in vals.values()):
            continue
        if k in set(axes) and len({v[k] for v in vals.values()}) > 1:
            out.append(k)
            continue
        lines: dict[tuple, set] = {}
        for r in rules:
            rest = tuple((f, str(getattr(full[r], f))) for f in RULE_PARAMETERS if f != k)
            lines.setdefault((full[r].preset, rest), set()).add(vals[r][k])
        if any(len(s) >= 3 for s in lines.values()):
            out.append(k)
    return out


def with_parameters(df: pd.DataFrame, params, column: str = "rules",
                    after: str | None = None) -> pd.DataFrame:
    """``df`` with one numeric column per parameter of ``params``, read from ``column``
    (a rules string), placed after ``after`` (default: at the end)."""
    out = df.copy()
    if out.empty or not params:
        return out
    cache = {r: parameter_values(r) for r in out[column].dropna().unique()}
    for k in params:
        if k in out.columns:
            out = out.drop(columns=k)
    for k in params:
        out[k] = [cache[r][k] if isinstance(r, str) else np.nan for r in out[column]]
    if after is not None and after in out.columns:
        cols = [c for c in out.columns if c not in params]
        i = cols.index(after) + 1
        out = out[cols[:i] + list(params) + cols[i:]]
    return out
