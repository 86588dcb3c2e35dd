"""The words of a report: what a hand, a match, a deal, a cell, a rotation and a turn are,
each strategy of the study in one line, and the fair share at each player count."""

from __future__ import annotations

import pandas as pd

from fastmach.errors import FastmachError

__all__ = ["TERMS", "METHODS", "glossary", "strategy_line"]

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
    ("pp", "percentage points: the difference of two percentages (\"5 in 100 hands\" on "
           "the first page)."),
    ("line-up", "the strategies at a table, seat by seat (`expert,beginner`: experts and "
                "beginners taking turns round the table); a line-up of one strategy puts it "
                "in every seat. No figure of this report combines two line-ups."),
    ("good play, greedy play", "the first page's names for the all-`strong` line-up "
                               "(trained players) and the all-`expert` one (players that "
                               "lay down as many cards as they can; the stronger players "
                               "are the trained ones)."),
    ("replicate", "a deal's index: replicate r is the same shuffled cards in every cell."),
)

#: The methods a report uses, each named and said in words, in reading order.
METHODS = (
    ("median, middle half", "half the hands are shorter than the median; the middle half "
                            "runs from the hand a quarter of the way up to the one three "
                            "quarters of the way up (the interquartile range)."),
    ("95% interval", "a range built so that, over many studies, 95 in 100 such ranges hold "
                     "the true value; wider with fewer deals."),
    ("deal-clustered", "an interval or test that treats the deal as the unit: the hands "
                       "and rotations of one deal share its cards, so they count as one "
                       "observation, never as several independent ones."),
    ("Wilson (score) interval", "the interval of a share that stays inside 0-100% and is "
                                "honest near 0 and 100% (a share of 0 of 60 still gets a "
                                "range above 0)."),
    ("paired difference", "a rule's effect measured deal by deal: the variant and its base "
                          "rule set play the same deals with the same line-up, and the "
                          "difference is taken deal by deal."),
    ("Newcombe's interval", "the interval of a paired difference of two shares (hybrid "
                            "score method), used for stock-outs and blocked hands."),
    ("p-value", "how often a difference at least this large would appear by chance if the "
                "rule changed nothing; small means the difference is unlikely to be luck."),
    ("family-wise error, multiple testing", "with hundreds of comparisons some would look "
                                            "real by luck; each family of tests (rule "
                                            "effects, seats, skill) is adjusted so that the "
                                            "chance of even one false finding in it stays "
                                            "at 5%."),
    ("Holm", "the step-down adjustment of the rule effects' p-values over every row of "
             "effects.csv: an effect is detected only if its adjusted p-value is below 0.05."),
    ("Bonferroni", "the adjustment of the rule effects' intervals: each is widened to the "
                   "level 5% / number of effects, so all hold together; the first page "
                   "quotes these ranges, and states an effect only where the Holm test "
                   "detects it and this range excludes no change."),
    ("max-T (step-down)", "the seat test: a randomisation test that shuffles which seat "
                          "won within each deal, compared with the largest seat edge over "
                          "every seat of every cell, so that naming any seat keeps a 5% "
                          "family-wise error."),
    ("heterogeneity", "a test of whether a rule's effect differs between line-ups or "
                      "player counts (Holm-adjusted); where it does, no single figure for "
                      "the rule is given."),
    ("smallest detectable edge", "the seat edge the seat test would find 80% of the time "
                                 "at this study's size (its power); smaller edges may go "
                                 "unseen."),
    ("too close to call", "the effect is not detected: its adjusted range includes no "
                          "change. \"About k times the games\" is (half the range / the "
                          "measured change)^2: the games at which a change as large as the "
                          "one measured would be told from none, because ranges narrow as "
                          "one over the square root of the games."),
    ("Monte Carlo error", "half the 95% interval of a figure; halving it takes four times "
                          "the deals."),
    ("Plackett-Luce rating", "a strength per strategy fitted to who wins each hand "
                             "(natural-log scale, expert = 0); a difference of 1 means about "
                             "2.7 times the chance of winning a hand between the two."),
    ("ceiling, measuring stick", "one seat of a strong (or clairvoyant: it sees every "
                                 "card) player among experts: how much of the outcome skill "
                                 "can take; a floor for what a perfect player could take."),
    ("skill gap", "expert minus beginner win share per seat and hand at an "
                  "`expert,beginner` table."),
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
