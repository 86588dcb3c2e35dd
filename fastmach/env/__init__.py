"""Learning environments for Machiavelli: PettingZoo's AEC interface (``env``, ``raw_env``),
a Gymnasium single-agent environment (``SingleAgentEnv``), a vectorised one
(``VectorEnv``), and the adapter that makes any policy over observations a fastmach bot
(``PolicyBot``). docs/env.md describes the observation and every action.

Needs the ``rl`` extra (``pip install "fastmach[rl]"``: pettingzoo, gymnasium); ``import
fastmach`` does not. The action space is ``Discrete(N_ACTIONS)`` macro-actions, each an
exact action (fastmach.env.moves); the observation a float32 vector in [0, 1] with an
action mask (fastmach.env.encoding); seeds and rewards: fastmach.env.table. The other
seats' turns are played in C (fastmach.env._turns; ``turns="reference"``: by the State).

Importing this package registers Gymnasium ids (``gym.make`` and ``gym.make_vec``):
``fastmach/Classic-v0``, ``fastmach/Jokers-v0``, ``fastmach/AceLow-v0``,
``fastmach/Italian-v0`` (one per preset) and ``fastmach/Machiavelli-v0`` (``rules=`` any
rules string); every keyword of ``SingleAgentEnv`` passes through
(``gym.make("fastmach/Classic-v0", opponents="expert", players=3)``).
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
from .encoding import Encoder, Layout
from .moves import ACTIONS, BOTCH, DRAW, N_ACTIONS, Moves, moves
from .policy import LinearPolicy, PolicyBot
from .single import SingleAgentEnv
from .table import REWARDS, Table
from .vector import VectorEnv, make_vector

__all__ = ["env", "raw_env", "SingleAgentEnv", "VectorEnv", "Layout", "Encoder", "ACTIONS",
           "DRAW", "BOTCH", "N_ACTIONS", "Moves", "moves", "REWARDS", "Table", "GYM_IDS", "make_vector",
           "PolicyBot", "LinearPolicy"]

#: the registered Gymnasium ids and the rules each makes by default
GYM_IDS = {"fastmach/Classic-v0": "classic", "fastmach/Jokers-v0": "jokers",
           "fastmach/AceLow-v0": "ace-low", "fastmach/Italian-v0": "italian",
           "fastmach/Machiavelli-v0": "classic"}


def _register() -> None:
    for gid, rules in GYM_IDS.items():
        if gid not in gymnasium.registry:
            gymnasium.register(gid, entry_point="fastmach.env.single:SingleAgentEnv",
                               vector_entry_point="fastmach.env.vector:make_vector",
                               kwargs={"rules": rules})


_register()
