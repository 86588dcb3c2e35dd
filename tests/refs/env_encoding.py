"""An independent reference of the environment's observation vector (fastmach.env.encoding):
plain Python loops over the seat's Observation, rebuilt from the whole history every time.

The model: each part of the layout is a count divided by its scale and clipped at 1;
seats relative to the observer; melds each sorted, in the order of their sorted cards;
the recent rows newest last, each (present, relative seat / max(P - 1, 1), one-hot
play/draw/pass/fail, placed / deck, drawn / deck, hand size after / deck).
"""
from __future__ import annotations

import numpy as np

JOKER, NCARD = 52, 53
CODES = {"play": 0, "draw": 1, "pass": 2, "fail": 3}


def reference_encode(layout, obs, mask=None, max_play=None) -> np.ndarray:
    P, me = layout.players, obs.seat
    C, D = layout.copies, layout.deck
    parts = {name: np.zeros(shape, dtype=np.float64) for name, (shape, _) in layout.parts.items()}

    def clip(x):
        return min(x, 1.0)

    for c in obs.hand:
        parts["hand"][c] += 1 / C
    melds = sorted(sorted(m) for m in obs.table)
    for i, m in enumerate(melds):
        for c in m:
            parts["melds"][i, c] += 1 / C
            parts["table"][c] += 1 / C
    jscale = max(layout.rules.jokers, 1)
    for m, st in zip(obs.table, obs.stands):
        for c, s in zip(m, st):
            if c == JOKER:
                parts["joker_stands"][s] += 1 / jscale
    parts["stock"][0] = clip(obs.stock / D)
    placed = [[0] * NCARD for _ in range(P)]
    drawn = [0] * P
    for t in obs.history:
        for c in t.placed:
            placed[t.seat][c] += 1
        drawn[t.seat] += t.drawn
    for k in range(P):
        s = (me + k) % P
        parts["hand_sizes"][k] = clip(obs.hand_sizes[s] / D)
        parts["scores"][k] = clip(obs.scores[s] / layout.score_scale)
        parts["opened"][k] = 1.0 if obs.opened_seats and obs.opened_seats[s] else 0.0
        for c in range(NCARD):
            parts["placed"][k, c] = clip(placed[s][c] / C)
        parts["drawn"][k] = clip(drawn[s] / D)
    R = layout.recent_rows
    last = list(obs.history)[-R:]
    for i, t in enumerate(last):
        row = parts["recent"][R - len(last) + i]
        row[0] = 1.0
        row[1] = ((t.seat - me) % P) / max(P - 1, 1)
        row[2 + CODES[t.action]] = 1.0
        row[6] = clip(len(t.placed) / D)
        row[7] = clip(t.drawn / D)
        row[8] = clip(t.hand_sizes[t.seat] / D)
    parts["progress"][0] = clip(obs.hand_index / 32)
    parts["progress"][1] = clip(obs.turn / 256)
    if mask is not None:
        parts["legal"][:] = mask
    if max_play is not None:
        cards, empties = max_play
        parts["max_play"][:] = (min(cards, 1.0), min(empties, 1.0))
    return np.concatenate([parts[name].ravel() for name in layout.parts]).astype(np.float32)
