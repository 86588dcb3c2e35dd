"""Game logs as JSON lines, written from the engine's own record of the games it played.

One game (a hand; a match is several hands in a row) is::

    {"type": "header", "rules": "classic", "seed": 7, "replicate": 0, "hand": 0,
     "dealer": 2, "first_player": 3, "strategies": ["expert", ...],
     "hands": [["AS", "10H", ...], ...], "stock": ["5C", ...]}        # next card first
    {"type": "turn", "turn": 1, "seat": 3, "action": "play", "placed": [...],
     "drawn": [], "taken": [], "table": [["3H", "4H", "5H"], ...]}    # whole table after
    ...
    {"type": "end", "end": "emptied", "winner": 3, "points": [...], "cards_left": [...],
     "shares": [0, 0, 0, 1], "scores": [...], "match_over": true, "match_winner": 3,
     "match_shares": [0, 0, 0, 1]}

``shares`` are the seats' win shares of the hand, ``match_shares`` of the whole game
(1 for a sole winner, 1/k for each of k tied winners where the rules share ties);
``scores`` each seat's match score after the hand.

Cards are canonical text (``10H``, ``JK``). ``action`` is play, draw, pass or fail;
``taken`` lists jokers a play took back into the hand (``joker_swap = "hand"``); a draw
from an empty stock under ``stock_empty = "ends-hand"`` has ``drawn: []`` and ends the hand
(under that rule the turn that draws the stock's last card already ends it).

Each call of :func:`write_log` (one batch of games, appended) ends with a closing record
``{"type": "close", "games": N}``, and ``"of": T`` where the log is written in several
batches (``fastmach play --log``: T the games of the whole log, so that a log cut after a
batch is seen as cut): a log whose last record is not a closing record, whose games are
not the last closing record's T, or a game whose last hand is not ``match_over``, is
incomplete and ``fastmach replay``
(``fastmach.game.log_reader``, which re-checks a log without the engine) rejects it. A name
ending in ``.gz`` writes the log gzip-compressed (:func:`fastmach.outputs.open_text`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import numpy as np

from fastmach.core.cards import NCARD, card_str
from fastmach.outputs import open_text
from fastmach.rules import Rules

__all__ = ["write_log"]


#: text of every card id (a log writes a few hundred thousand cards per thousand games)
_TEXT = tuple(card_str(c) for c in range(NCARD))


def _txt(cards: Iterable[int]) -> list[str]:
    text = _TEXT
    return [text[c] for c in cards]


def write_log(path: str | Path, rules: Rules, seats, seed: int, replicates, games: list,
              rows, of: int | None = None, close: int | None = None) -> None:
    """Append the logs of these games to ``path``: ``games`` is the engine's record of
    them (``Engine.play_batch(..., record=True)["log"]``: per game its hands, each with
    the deal, every turn's action as applied, the end, the shares and the scores after
    it), ``rows`` its rows (the match winner and shares: a DataFrame, or columns name ->
    array). Ends with the closing record of the batch (``of``: the games of the whole
    log, when it is written in several batches; ``close``: the games it counts, those
    appended since the last closing record, 0 for none yet; default these games)."""
    names = [str(s) for s in seats]
    winners = np.asarray(rows["winner"])
    shares = [np.asarray(rows[f"win_share_{i}"]) for i in range(rules.players)]
    reps = np.asarray(replicates).tolist()
    with open_text(path, "a") as f:
        for i, (r, hands) in enumerate(zip(reps, games)):
            for rec in _engine_lines(rules, names, seed, int(r), hands, int(winners[i]),
                                     [float(s[i]) for s in shares]):
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        if close == 0:
            return
        record: dict = {"type": "close", "games": len(reps) if close is None else close}
        if of is not None:
            record["of"] = int(of)
        f.write(json.dumps(record) + "\n")


def _engine_lines(rules: Rules, names: list[str], seed: int, replicate: int, hands: list,
                  winner: int, shares: list[float]) -> list[dict]:
    out: list[dict] = []
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
        last = h == len(hands) - 1
        end = {
            "type": "end", "end": hand["end"], "winner": hand["winner"],
            "points": list(hand["points"]), "cards_left": list(hand["cards_left"]),
            "shares": list(hand["shares"]), "scores": list(hand["scores"]), "match_over": last,
        }
        if last:
            end["match_winner"] = winner
            end["match_shares"] = shares
        out.append(end)
    return out
