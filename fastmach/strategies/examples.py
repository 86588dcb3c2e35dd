"""Example Python bots (the ``Bot`` protocol): import paths such as
``fastmach.strategies.examples:MaxPlacement`` work in ``--strategies`` and study line-ups."""
from __future__ import annotations

from fastmach.game.actions import Draw, Play
from fastmach.solver import solve
from fastmach.strategies.bots import Observation

__all__ = ["MaxPlacement"]


class MaxPlacement:
    """Plays the maximum placement (the exact solver over the whole table) whenever one
    exists, draws otherwise: the expert's play where no opening threshold or joker swap
    applies."""

    def act(self, obs: Observation):
        sol = solve(obs.table, obs.hand, obs.rules)
        return Play(sol.melds, sol.placed) if sol.placed else Draw()
