"""Rules of a Machiavelli game as validated, frozen data; presets; canonical strings.

Every rule parameter is one entry of ``TABLE`` (``parameters``); the ``Rules`` record and
its rules strings (``record``), the presets (``presets``) and the parameter reference of
docs/rules.md (``doc``) are derived from it.
"""
from fastmach.rules.parameters import (MAX_MATCH_HANDS, MAX_THRESHOLD, PARAMETERS, TABLE,
                                       Parameter, format_value, is_integer, parse_value)
from fastmach.rules.presets import PRESETS, SOURCE_PLAYERS, source_warning
from fastmach.rules.record import BLOCK_ROUNDS, Rules, resolve_rules, rules_of

__all__ = ["Rules", "PRESETS", "PARAMETERS", "TABLE", "Parameter", "SOURCE_PLAYERS",
           "parse_value", "format_value", "resolve_rules", "rules_of", "source_warning",
           "BLOCK_ROUNDS", "is_integer", "MAX_MATCH_HANDS", "MAX_THRESHOLD"]
