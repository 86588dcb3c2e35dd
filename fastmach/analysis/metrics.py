"""The metric catalogue: what each figure of a study is, its unit, direction and format.

One entry per metric of ``scorecard.csv`` and ``effects.csv``; the statistics, ``fastmach
compare``, the report and its figures read their names, units and words from here, and
every number and p-value of a page is written by :func:`number` and :func:`p_text`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Metric", "METRICS", "WORDED_METRICS", "PHRASES", "CURVE_METRICS", "SCORECARD_METRICS", "BINARY_METRICS",
           "EFFECT_METRICS_HANDS", "number", "p_text", "value_text", "diff_text"]


@dataclass(frozen=True)
class Metric:
    """How a metric reads.

    ``label`` (words a designer uses), ``unit`` (of a value: ``turns``, ``hands`` or
    ``share``, a share shown in percent and a difference of shares in points),
    ``up``/``down`` (the words of a rise and a fall), ``meaning`` (one sentence), ``binary``
    (a share of hands: paired differences use Newcombe's interval), ``digits``,
    ``rise``/``fall`` (what a rule does when the metric rises or falls: "makes hands
    longer"), ``per`` (what one value is counted on: ``hand``, ``match`` or ``seat``) and
    ``curve`` (drawn in the response curves and the report's figures of effects),
    ``plain`` (its name on a report's first page, for a reader who is not a statistician)
    ``gap`` (a difference of win shares, printed in pp even as a value), ``rel_base`` (the
    smallest base, in its unit, a relative change is worded or printed on; 0: never) and
    ``in100`` (a share of hands in a designer's words, counted in 100 hands; set for the
    metrics a rule change is worded on in the report's first layer, with ``rel_base``) and
    ``hand_value`` (the column of :func:`fastmach.analysis.hands.hand_metrics` whose mean
    per hand it is, estimated by the deal-clustered ratio; "" where its estimate is its own:
    hands per match, the seat spread).
    """

    name: str
    label: str
    unit: str
    up: str
    down: str
    meaning: str
    binary: bool = False
    digits: int = 1
    rise: str = ""
    fall: str = ""
    per: str = "hand"
    curve: bool = False
    plain: str = ""
    gap: bool = False
    rel_base: float = 0.0
    in100: str = ""
    hand_value: str = ""

    @property
    def worded(self) -> bool:
        """Whether the report's first layer words a rule change on it."""
        return bool(self.rel_base or self.in100)

    @property
    def scale(self) -> float:
        """Factor from the stored value to the printed one (100 for a share)."""
        return 100.0 if self.unit == "share" else 1.0

    @property
    def value_unit(self) -> str:
        """Unit of a printed value (``%`` for a share)."""
        return "%" if self.unit == "share" else self.unit

    @property
    def column(self) -> str:
        """A table column's heading: the label and its printed unit."""
        unit = {"share": "% of hands", "turns": "turns", "hands": "hands"}[self.unit]
        if self.gap:
            unit = "pp per " + self.per
        return f"{self.label} ({unit})"

    @property
    def diff_unit(self) -> str:
        """Unit of a printed difference (``pp``, percentage points, for a share)."""
        return "pp" if self.unit == "share" else self.unit


#: The catalogue, in table order.
METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("turns_per_hand", "turns per hand", "turns", "longer", "shorter",
           "turns per hand (total turns / total hands)",
           rise="makes hands longer", fall="makes hands shorter", curve=True, plain="hand length",
           rel_base=5.0, hand_value="turns"),
    Metric("hands_per_game", "hands per match", "hands", "more", "fewer",
           "hands per match", digits=2, rise="adds hands to a match",
           fall="takes hands from a match", per="match", plain="match length", rel_base=1.5),
    Metric("stock_out_per_hand", "stock exhaustion per hand", "share", "more", "fewer",
           "share of hands in which the stock ran out", binary=True,
           rise="makes the stock run out more often",
           fall="makes the stock run out less often", curve=True,
           plain="how often the stock runs out", in100="hands in 100 where the stock runs out",
           hand_value="stock_out"),
    Metric("blocked", "blocked hands", "share", "more", "fewer",
           "share of hands that ended blocked (nobody could or did add a card for a round; "
           "stock-out endings are stock_out_per_hand's)", binary=True,
           rise="makes more hands end blocked", fall="makes fewer hands end blocked",
           curve=True, plain="blocked hands", in100="blocked hands in 100",
           hand_value="blocked"),
    Metric("first_seat_edge", "first-seat edge", "share", "larger", "smaller",
           "first player's win share per hand minus the fair share",
           rise="widens the first player's edge", fall="narrows the first player's edge",
           curve=True, plain="the first player's edge", gap=True,
           in100="wins in 100 hands for the first player", hand_value="first_seat_edge"),
    Metric("seat_spread", "seat spread", "share", "wider", "narrower",
           "largest minus smallest seat win share per hand", plain="the gap between seats",
           gap=True),
    Metric("skill_gap", "skill gap", "share", "larger", "smaller",
           "expert minus beginner win share per seat and hand",
           rise="makes skill matter more", fall="makes skill matter less", per="seat",
           plain="how much skill decides", gap=True, hand_value="skill_gap"),
)}

#: Metrics a rule change is worded on in the report's first layer, in table order.
WORDED_METRICS = tuple(name for name, m in METRICS.items() if m.worded)

#: Metrics with words for a rule's effect (name -> (rise, fall)).
PHRASES = {name: (m.rise, m.fall) for name, m in METRICS.items() if m.rise}

#: Metrics drawn in the response curves, in panel order.
CURVE_METRICS = tuple(name for name, m in METRICS.items() if m.curve)

#: Scorecard metrics: name -> description with its unit.
SCORECARD_METRICS = {name: m.meaning for name, m in METRICS.items()}

#: Metrics that are shares of hands (paired differences use Newcombe's interval).
BINARY_METRICS = tuple(name for name, m in METRICS.items() if m.binary)

#: Metrics of :func:`fastmach.analysis.tables.effects`, in table order.
EFFECT_METRICS_HANDS = ("turns_per_hand", "stock_out_per_hand", "hands_per_game", "blocked",
                        "first_seat_edge", "seat_spread", "skill_gap")


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def number(m, lo=None, hi=None, scale: float = 1.0, digits: int = 1, unit: str = "",
           signed: bool = False) -> str:
    """``12.3 [11.9, 12.7] unit`` (``+`` signs when ``signed``); ``n/a`` for NaN."""
    if _nan(m):
        return "n/a"
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    text = f.format(scale * m)
    if lo is not None and not _nan(lo) and not _nan(hi):
        text += f" [{f.format(scale * lo)}, {f.format(scale * hi)}]"
    if not unit:
        return text
    return text + (unit if unit.startswith("%") else f" {unit}")


def p_text(p) -> str:
    """The one p-value format: ``0.0123``, ``<0.0001``; ``n/a`` for NaN."""
    if _nan(p):
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def value_text(metric: str, v, lo=None, hi=None, digits: int | None = None) -> str:
    """A value of ``metric`` in its unit (a share in percent)."""
    m = METRICS[metric]
    return number(v, lo, hi, m.scale, m.digits if digits is None else digits, m.value_unit)


def diff_text(metric: str, d, lo=None, hi=None, digits: int | None = None) -> str:
    """A difference of ``metric`` in its unit (a share in percentage points), signed."""
    m = METRICS[metric]
    return number(d, lo, hi, m.scale, m.digits if digits is None else digits, m.diff_unit,
                  signed=True)
