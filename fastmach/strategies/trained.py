"""The trained players shipped with the package: one mixture of ``strong`` parameter points
per rule set and player count (``policies/*.json``, written by ``fastmach train``).

A file holds the canonical rules string, the player count, the members (``strong(...)``
strings, ``trained=0``: each names its own parameters) and their weights, the command that
trains it again, and its exploitability as measured when it was trained (the best response
found and its gain over the mixture, in win share, with a 95% interval).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from fastmach.errors import FastmachError

__all__ = ["Policy", "shipped", "policy_for", "policy_from_json"]


@dataclass(frozen=True)
class Policy:
    """A trained mixture for one rule set and player count."""

    rules: str
    players: int
    members: tuple[str, ...]
    weights: tuple[float, ...]
    command: str
    exploitability: dict[str, Any]

    def describe(self) -> str:
        parts = [f"{w:.0%} {m}" for m, w in zip(self.members, self.weights)]
        return " + ".join(parts)


def policy_from_json(d: dict[str, Any], where: str = "policy") -> Policy:
    """A Policy from its JSON record; FastmachError naming what is wrong."""
    try:
        members = tuple(str(m) for m in d["members"])
        weights = tuple(float(w) for w in d["weights"])
        policy = Policy(str(d["rules"]), int(d["players"]), members, weights,
                        str(d.get("command", "")), dict(d.get("exploitability") or {}))
    except (KeyError, TypeError, ValueError) as e:
        raise FastmachError(f"{where}: not a trained policy ({e})") from None
    if not members or len(weights) != len(members) or min(weights) < 0 or sum(weights) <= 0:
        raise FastmachError(f"{where}: a policy needs members with non-negative weights")
    return policy


@lru_cache(maxsize=1)
def shipped() -> dict[tuple[str, int], Policy]:
    """Every shipped policy, by (canonical rules string, players)."""
    out: dict[tuple[str, int], Policy] = {}
    folder = resources.files("fastmach.strategies").joinpath("policies")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            p = policy_from_json(json.loads(entry.read_text()), entry.name)
            out[(p.rules, p.players)] = p
    return out


def policy_for(rules_text: str, players: int) -> Policy | None:
    """The shipped policy of these rules (canonical string) and player count, or None."""
    return shipped().get((rules_text, players))
