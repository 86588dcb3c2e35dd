"""Strategies: the registry of compiled players (``registry``), Python bots (``bots``,
``botspec``, ``isolation``), the trained players (``trained``) and the seats of a table.
See ``fastmach.strategies.registry`` for the players and their parameters."""
from fastmach.strategies._base import Context
from fastmach.strategies.bots import Bot, Observation
from fastmach.strategies.botspec import load_bot
from fastmach.strategies.registry import (K, PATIENCE_STOCK, REGISTRY, TACTICS, Param, Strategy,
                                          StrategyKind, build_seats, describe, fair_names,
                                          parse_seats, parse_strategy, rotations_of, seating,
                                          seats_trained_strong, split_strategies,
                                          stand_in_warning, trained_policy)

__all__ = ["Bot", "Context", "K", "Observation", "PATIENCE_STOCK", "Param", "REGISTRY",
           "Strategy", "StrategyKind", "TACTICS", "build_seats", "describe", "fair_names",
           "load_bot", "parse_seats", "parse_strategy", "rotations_of", "seating",
           "seats_trained_strong", "split_strategies", "stand_in_warning", "trained_policy"]
