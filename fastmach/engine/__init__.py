"""Whole games in batches (``play``: ``play_games``, one row per game, and the ``play``
command), their columns and parquet/Arrow output, and the progress bar. The turn loop runs
in the compiled ``fastmach.engine._engine``."""
from fastmach.engine.play import (bench, deck_of, engine_config, game_shares, hand_frame,
                                  hand_shares, make_engine, play_columns, play_games, run_play,
                                  run_play_columns, summary)

__all__ = ["play_games", "play_columns", "run_play", "run_play_columns", "hand_frame",
           "hand_shares", "game_shares", "engine_config", "make_engine", "deck_of", "bench",
           "summary"]
