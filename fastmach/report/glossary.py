"""The words of a report: what a hand, a match, a deal, a cell, a rotation and a turn are,
each strategy of the study in one line, and the fair share at each player count."""

from __future__ import annotations

import pandas as pd

from fastmach.errors import FastmachError

__all__ = ["TERMS", "glossary", "strategy_line"]

#: The terms every report uses, in reading order.
TERMS = (
    ("hand", "cards dealt and played until a player empties their hand (or the stock or "
             "the table ends it); every length, stock-out and win share here is per hand."),
    ("match", "one game of the study: a single hand, or hands played to the match's end "
              "(classic: one hand per player; ace-low: to 100 points)."),
    ("deal", "one replicate's shuffled cards; every rules variant, line-up and rotation "
             "replays the same deals, so a deal is the unit of every interval and test."),
    ("cell", "one point of the grid: a rules variant x a player count x a line-up."),
    ("rotation", "the same deal played again with the line-up shifted by a seat, so that "
                 "each strategy sits in each seat."),
    ("turn", "one player's move: a play that adds cards to the table, or a draw."),
    ("seat", "counted from the hand's first player (seat 1)."),
    ("fair share", "the win share each seat would have if seats were equal: total share "
                   "per hand / players, so it depends on the player count."),
    ("pp", "percentage points: the difference of two percentages."),
)


def strategy_line(text: str) -> str:
    """One line on a strategy string: its description and every non-default parameter."""
    from fastmach.strategies import parse_strategy

    try:
        s = parse_strategy(text)
    except FastmachError:
        return "a strategy of the study"
    kind = getattr(s, "kind", None)
    if kind is None:
        return "a Python bot"
    values = s.values  # type: ignore[union-attr]  # a built-in (it has a kind)
    line = kind.doc.split(";")[0].rstrip(".")
    for p, v in zip(kind.params, values):  # "fewer than min_cards cards" -> "than 3"
        line = line.replace(f" {p.name} ", f" {v:g} ")
    extra = [p.doc.split(" (")[0].replace(" p ", f" {v:g} ") for p, v in
             zip(kind.params, values) if v != p.default and f" {p.name} " not in kind.doc]
    return line + ("" if not extra else " (" + "; ".join(extra) + ")") + "."


def glossary(hands: pd.DataFrame, fair: dict[int, float]) -> list[tuple[str, str]]:
    """``(term, meaning)`` rows: :data:`TERMS`, each strategy of the line-ups, and the fair
    share at each player count (``fair``: players -> mean fair share)."""
    rows = list(TERMS)
    from fastmach.study import split_lineup

    names: list[str] = []
    for lu in hands["lineup"].dropna().unique():
        for s in split_lineup(str(lu)):
            if s and s not in names:
                names.append(s)
    rows += [(s, strategy_line(s)) for s in sorted(names)]
    if fair:
        rows.append(("fair share here", ", ".join(
            f"{100 * f:.1f}% at {p} players" for p, f in sorted(fair.items())) + "."))
    return rows
