"""Statistics of a study's hand and game rows: the public names in one place.

The work lives in modules by concern: :mod:`~fastmach.analysis.inference` (deal-clustered
estimates, intervals, tests, Holm), :mod:`~fastmach.analysis.metrics` (the metric
catalogue and the number formats), :mod:`~fastmach.analysis.variants` (which rules a cell
changes), :mod:`~fastmach.analysis.hands` (the columns of hand rows),
:mod:`~fastmach.analysis.seats` (seat win shares) and :mod:`~fastmach.analysis.tables`
(``scorecard.csv``, ``seats.csv``, ``effects.csv``). ``fastmach.stats`` is this module.

Public functions
----------------
- :func:`scorecard`, :func:`seat_table`, :func:`effects`, :func:`write_tables` -- the
  tables ``scorecard.csv``, ``seats.csv``, ``effects.csv`` (what the report and
  ``fastmach compare`` use); :func:`strategy_matrix`, :func:`monte_carlo_error`.
- :func:`ratio_estimate`, :class:`Estimate`, :func:`combine` -- means, shares and ratios
  (turns per hand over matches of unequal length) with cluster-robust errors;
  :func:`newcombe_paired` (paired proportions), :func:`holm` (family-wise control),
  :func:`cluster_bootstrap`; :func:`wilson_interval`, :func:`t_quantile`.
- :func:`parse_rules`, :func:`is_base_rules`, :func:`rule_differences`,
  :func:`default_pairs` -- which single rule a cell changes against its baseline.
"""

from __future__ import annotations

from fastmach.analysis.hands import SKILL_PAIR, deal_key, hand_metrics
from fastmach.analysis.inference import (BOOTSTRAP_RESAMPLES, Estimate, cluster_bootstrap,
                                         combine, holm, newcombe_paired, ratio_estimate,
                                         share_interval, t_quantile, t_sf, wilson_interval)
from fastmach.analysis.metrics import (BINARY_METRICS, EFFECT_METRICS_HANDS, METRICS,
                                       SCORECARD_METRICS)
from fastmach.analysis.tables import (SPREAD_P_FLOOR, _spread_diff, effects, monte_carlo_error,
                                      scorecard, seat_table, strategy_matrix)
from fastmach.analysis.write import write_tables
from fastmach.analysis.variants import (DEAL_PARAMETERS, RULE_PARAMETERS, default_pairs,
                                        is_base_rules, parse_rules, rule_differences)

__all__ = [
    "RULE_PARAMETERS", "wilson_interval", "t_quantile", "parse_rules", "is_base_rules",
    "rule_differences", "Estimate", "ratio_estimate", "combine", "newcombe_paired", "holm",
    "cluster_bootstrap", "share_interval", "deal_key", "hand_metrics", "scorecard",
    "seat_table", "effects", "default_pairs", "strategy_matrix", "monte_carlo_error",
    "write_tables",
]

_ALSO = (SKILL_PAIR, BOOTSTRAP_RESAMPLES, t_sf, BINARY_METRICS, EFFECT_METRICS_HANDS, METRICS,
         SCORECARD_METRICS, SPREAD_P_FLOOR, _spread_diff, DEAL_PARAMETERS)
