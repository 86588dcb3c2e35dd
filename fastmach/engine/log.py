"""Game logs as JSON lines, written from the engine's own record of the games it played.

One game (a hand; a match is several hands in a row) is::

    {"type": "header", "rules": "classic", "seed": 7, "replicate": 0, "hand": 0,
     "dealer": 2, "first_player": 3, "strategies": ["expert", ...],
     "hands": [["AS", "10H", ...], ...], "stock": ["5C", ...]}        # next card first
    {"type": "turn", "turn": 1, "seat": 3, "action": "play", "placed": [...],
     "drawn": [], "taken": [], "table": [["3H", "4H", "5H"], ...]}    # whole table after
    ...
    {"type": "end", "end": "emptied", "winner": 3, "points": [...], "cards_left": [...],
     "scores": [...], "match_over": true, "match_winner": 3}

Cards are canonical text (``10H``, ``JK``). ``action`` is play, draw, pass or fail;
``taken`` lists jokers a play took back into the hand (``joker_swap = "hand"``); a draw
from an empty stock under ``stock_empty = "ends-hand"`` has ``drawn: []`` and ends the hand.
``fastmach replay`` (``fastmach.gamelog``) re-checks a log without the engine.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import numpy as np

from fastmach.cards import card_str
from fastmach.rules import Rules

__all__ = ["write_log"]


def _txt(cards: Iterable[int]) -> list[str]:
    return [card_str(c) for c in cards]


def write_log(path: str | Path, rules: Rules, seats, seed: int, replicates, games: list,
              rows) -> None:
    """Append the logs of these games to ``path``: ``games`` is the engine's record of
    them (``Engine.play_batch(..., record=True)["log"]``: per game its hands, each with
    the deal, every turn's action as applied and the end), ``rows`` its DataFrame (the
    match winner)."""
    names = [str(s) for s in seats]
    with open(path, "a", encoding="utf-8") as f:
        for r, hands, winner in zip(np.asarray(replicates).tolist(), games, rows["winner"]):
            for rec in _engine_lines(rules, names, seed, int(r), hands, int(winner)):
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def _engine_lines(rules: Rules, names: list[str], seed: int, replicate: int, hands: list,
                  winner: int) -> list[dict]:
    out: list[dict] = []
    scores = [0] * rules.players
    for h, hand in enumerate(hands):
        out.append({
            "type": "header", "rules": str(rules), "seed": seed, "replicate": replicate,
            "hand": h, "dealer": hand["dealer"], "first_player": hand["first_player"],
            "strategies": names, "hands": [_txt(x) for x in hand["hands"]],
            "stock": _txt(hand["stock"]),
        })
        for t, turn in enumerate(hand["turns"], 1):
            out.append({
                "type": "turn", "turn": t, "seat": turn["seat"], "action": turn["action"],
                "placed": _txt(turn["placed"]), "drawn": _txt(turn["drawn"]),
                "taken": _txt(turn["taken"]), "table": [_txt(m) for m in turn["table"]],
            })
        scores = [a + b for a, b in zip(scores, hand["points"])]
        last = h == len(hands) - 1
        end = {
            "type": "end", "end": hand["end"], "winner": hand["winner"],
            "points": list(hand["points"]), "cards_left": list(hand["cards_left"]),
            "scores": scores, "match_over": last,
        }
        if last:
            end["match_winner"] = winner
        out.append(end)
    return out
