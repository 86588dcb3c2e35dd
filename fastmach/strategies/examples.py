"""Example Python bots (the ``Bot`` protocol): import paths such as
``fastmach.strategies.examples:MaxPlacement`` work in ``--strategies`` and study line-ups."""
from __future__ import annotations

from fastmach.core.cards import JOKER
from fastmach.game.actions import Draw, Play
from fastmach.solver import opening, solve
from fastmach.strategies.bots import Observation

__all__ = ["MaxPlacement", "HoldBack"]


class MaxPlacement:
    """Plays the maximum placement (the exact solver over the whole table) whenever one
    exists, draws otherwise: the expert's play where no opening threshold or joker swap
    applies."""

    def act(self, obs: Observation):
        sol = solve(obs.table, obs.hand, obs.rules)
        return Play(sol.melds, sol.placed) if sol.placed else Draw()


class HoldBack:
    """Plays the maximum placement but holds jokers and J/Q/K back until the play empties
    the hand; draws otherwise (a play made only of held cards waits too). Where the rules
    make a player play when able (``may_draw_when_able`` false, or ``may_pass_when_able``
    false on an empty stock) it plays the whole maximum placement. Before opening
    (``opening_points``) it opens with the best hand-only melds, as the expert does."""

    def act(self, obs: Observation):
        r = obs.rules
        if r.opening_points > 0 and not obs.opened:
            sol = opening(obs.hand, r)   # new melds of hand cards, the table kept as it is
            if sol is None:
                return Draw()
            return Play(list(obs.table) + sol.melds, sol.placed,
                        stands=list(obs.stands) + sol.stands)
        full = solve(obs.table, obs.hand, r, trusted=True)
        if not full.placed or len(full.placed) == len(obs.hand):
            return Play(full.melds, full.placed) if full.placed else Draw()
        passing = not obs.stock and r.stock_empty == "play-on"
        must_play = not (r.may_pass_when_able if passing else r.may_draw_when_able)
        if must_play:
            return Play(full.melds, full.placed)
        kept = [c for c in obs.hand if c != JOKER and c % 13 < 10]
        part = solve(obs.table, kept, r, trusted=True) if kept else None
        return Play(part.melds, part.placed) if part is not None and part.placed else Draw()
