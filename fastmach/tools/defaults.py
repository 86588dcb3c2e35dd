"""The defaults of ``fastmach compare`` and ``fastmach rate``, importable without their
statistics (pandas): the command line prints them in its help, and a command that is
neither imports only this."""
from __future__ import annotations

__all__ = ["COMPARE_GAMES", "COMPARE_MAX_GAMES", "COMPARE_SEED", "RATE_GAMES", "RATE_SEED",
           "RATE_MAX_LINEUPS", "RATE_BOOTSTRAP"]

#: deals per cell of a comparison; the cap of deals under --precision; its root seed
COMPARE_GAMES = 500
COMPARE_MAX_GAMES = 10_000
COMPARE_SEED = 20261201

#: deals per line-up of a rating; its root seed; line-ups per table size before a balanced
#: design; deal resamples of the intervals
RATE_GAMES = 100
RATE_SEED = 20261201
RATE_MAX_LINEUPS = 128
RATE_BOOTSTRAP = 1000
