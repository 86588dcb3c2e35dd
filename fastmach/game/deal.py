"""The deck of a rule set and the seed check, shared by the engine and the reference State."""
from __future__ import annotations

import secrets

import numpy as np

from fastmach.core.cards import JOKER
from fastmach.errors import FastmachError
from fastmach.rules import Rules, is_integer


def deck_of(rules: Rules) -> np.ndarray:
    """Sorted card ids of the deck: each of the 52 types ``decks`` times, then jokers."""
    return np.concatenate([
        np.repeat(np.arange(JOKER, dtype=np.uint8), rules.decks),
        np.full(rules.jokers, JOKER, dtype=np.uint8),
    ])


def check_seed(root_seed) -> int:
    """``root_seed`` as an int: a non-negative integer below 2**63, else an error naming it."""
    if not is_integer(root_seed) or root_seed < 0:
        raise FastmachError(f"seed must be a non-negative integer, got {root_seed!r}")
    if root_seed >= 2**63:
        raise FastmachError(f"seed must be below 2**63, got {root_seed}")
    return int(root_seed)


#: the root seed that is drawn from the operating system (``--seed secret``)
SECRET = "secret"


def resolve_seed(root_seed) -> int:
    """A root seed: ``"secret"`` draws one from the operating system (a tournament's
    setting: no bot can guess the deals; the seed is recorded only in the result rows),
    anything else must pass :func:`check_seed`."""
    if isinstance(root_seed, str) and root_seed.strip().lower() == SECRET:
        return secrets.randbits(63)
    return check_seed(root_seed)
