"""Learning environments for Machiavelli: PettingZoo's AEC interface (``env``, ``raw_env``)
and a Gymnasium single-agent environment (``SingleAgentEnv``), on the reference State.

Needs the ``rl`` extra (``pip install "fastmach[rl]"``: pettingzoo, gymnasium); ``import
fastmach`` does not. The action space is ``Discrete(N_ACTIONS)`` macro-actions, each an
exact action (fastmach.env.moves); the observation a fixed-size int16 vector with an
action mask (fastmach.env.encoding); seeds and rewards: fastmach.env.table.
"""
from __future__ import annotations

from fastmach.errors import FastmachError

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as _err:  # pragma: no cover - the rl extra is in the test extra
    raise FastmachError(f"fastmach.env needs the rl extra: pip install \"fastmach[rl]\" "
                        f"({_err})") from None

from .aec import env, raw_env
from .encoding import Layout
from .moves import ACTIONS, DRAW, N_ACTIONS, Moves, moves
from .single import SingleAgentEnv
from .table import REWARDS, Table

__all__ = ["env", "raw_env", "SingleAgentEnv", "Layout", "ACTIONS", "DRAW", "N_ACTIONS",
           "Moves", "moves", "REWARDS", "Table"]
