"""The numbers a report is built from: the tables of :mod:`fastmach.analysis.stats`, each
by cell (one rules variant, player count and line-up: no two line-ups combined), and the
kinds of table the designer's page compares (:func:`fastmach.report.designer.kinds`)."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from fastmach.analysis import tables, variants
from fastmach.analysis.hands import plain_strategies
from fastmach.analysis.heterogeneity import effects_by_players
from fastmach.analysis.tables import paired_contexts
from fastmach.analysis.variants import swept_parameters, with_parameters
from fastmach.report import plots
from fastmach.report.designer import Kind, kinds

__all__ = ["ALPHA", "Analysis", "analyse", "in_order"]

#: Significance level of every test of a report.
ALPHA = 0.05


@dataclass
class Analysis:
    """A report's tables (``tables/*.csv``) and what they are read with."""

    labels: dict
    kinds: list[Kind]
    card: pd.DataFrame          # by cell (scorecard.csv)
    seats: pd.DataFrame         # by cell (seats.csv)
    effects: pd.DataFrame       # by cell pair (effects.csv)
    by_players: pd.DataFrame    # the line-up tests of each rule (effects_by_players.csv)
    pairs: list
    params: list                # swept numeric rule parameters
    strategies: pd.DataFrame
    mc: pd.DataFrame            # by cell of the kinds (monte_carlo_error.csv)


def _seat_edge_frame(card: pd.DataFrame, seats: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``card`` with ``first_seat_edge_lo_adjusted, first_seat_edge_hi_adjusted``: the seat
    test's simultaneous interval of seat 1 minus the fair share, so that the edge the
    scorecard shows and the seat findings share a frame (``first_seat_edge_lo, _hi`` stay
    the 95% interval, not adjusted)."""
    first = seats[seats["seat"] == 0][keys + ["lo", "hi", "fair"]]
    m = card[keys].merge(first, on=keys, how="left")
    out = card.copy()
    at = out.columns.get_loc("first_seat_edge_hi") + 1
    out.insert(at, "first_seat_edge_lo_adjusted", (m["lo"] - m["fair"]).to_numpy())
    out.insert(at + 1, "first_seat_edge_hi_adjusted", (m["hi"] - m["fair"]).to_numpy())
    return out


def analyse(games: pd.DataFrame, hands: pd.DataFrame, pairs=None, axes=()) -> Analysis:
    """Every table of a report (see :class:`Analysis`)."""
    pairs = variants.default_pairs(games) if pairs is None else list(pairs)
    params = swept_parameters(hands["rules"].unique(), axes)
    seats = tables.seat_table(hands, alpha=ALPHA)
    card = _seat_edge_frame(tables.scorecard(games, hands), seats, ["cell"])
    paired = list(paired_contexts(plain_strategies(hands), pairs))
    ks = kinds(games["lineup"].astype(str))
    card = with_parameters(card, params, after="lineup")
    mine = card[card["lineup"].astype(str).isin([k.lineup for k in ks])]
    return Analysis(
        labels=plots.short_labels(hands["rules"]),
        kinds=ks,
        card=card,
        seats=seats,
        effects=with_parameters(tables.effects(games, hands, pairs, alpha=ALPHA,
                                              paired=paired), params,
                                column="variant", after="lineup"),
        by_players=with_parameters(effects_by_players(hands, pairs, alpha=ALPHA,
                                                      paired=paired), params,
                                   column="variant", after="players"),
        pairs=pairs,
        params=params,
        strategies=tables.strategy_matrix(hands),
        mc=tables.monte_carlo_error(mine),
    )


def in_order(a: Analysis, df: pd.DataFrame, rules: str = "rules",
             then: tuple[str, ...] = ("players",)) -> pd.DataFrame:
    """Rows in the labels' order (presets, then variants in parameter order: hand_size=9
    before hand_size=11), then by ``then``."""
    from fastmach.analysis.variants import parameter_values, parse_rules

    order = list(a.labels)
    presets = list(dict.fromkeys(parse_rules(r)[0] for r in order))

    def key(r: str) -> tuple:
        values = parameter_values(r) if a.params else {}
        return (presets.index(parse_rules(r)[0]), tuple(values.get(k, 0.0) for k in a.params),
                order.index(r) if r in order else len(order))
    rank = {r: i for i, r in enumerate(sorted(order, key=key))}
    keys = [c for c in then if c in df.columns]
    return (df.assign(_rank=df[rules].map(rank).fillna(len(rank)))
            .sort_values(["_rank", *keys], kind="stable").drop(columns="_rank"))
