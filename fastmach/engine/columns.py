"""The rows of ``play_games`` as plain columns, without pandas.

A :data:`Columns` maps each column name, in the rows' order, to a 1-D NumPy array, or to
one ``str`` for a column that holds it in every row (a seat's strategy).
``pandas.DataFrame(columns)`` is the frame ``play_games`` returns; the ``play`` command
and a sweep's workers keep their games in this form and write them from it
(:mod:`fastmach.engine.parquet`), so that they never import pandas.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from fastmach.engine._engine import ENDS
from fastmach.rules import Rules

__all__ = ["Columns", "game_columns", "hand_columns", "hand_shares", "game_shares",
           "with_rotation", "concat", "length", "column", "summary"]

#: column name -> array of the rows (or one str for every row)
Columns = dict[str, object]

def _ends(codes: np.ndarray) -> np.ndarray:
    return np.asarray(ENDS, dtype=object)[codes] if len(codes) else np.array([], dtype=object)


def hand_shares(rules: Rules, end: np.ndarray, winner: np.ndarray,
                points: np.ndarray) -> np.ndarray:
    """Win share of each seat in each hand (float array, hands x players): the batch form
    of ``fastmach.game.flow.hand_outcome`` (the tests compare the two).

    An emptied hand: 1 for the player who emptied it. A blocked or stock-out hand under
    ``blocked_winner = "lowest"``: the seats with the fewest hand points, 1/k each for k
    tied seats under ``ties = "shared"``, 0 for everyone on a tie under ``ties = "draw"``;
    under ``blocked_winner = "none"`` nobody wins (0 for all).
    """
    emptied = end == ENDS.index("emptied")
    share = _lowest_shares(points, rules.ties == "shared")
    if rules.blocked_winner != "lowest":
        share[:] = 0.0
    if emptied.any():
        share[emptied] = 0.0
        share[np.flatnonzero(emptied), winner[emptied]] = 1.0
    return share


def _lowest_shares(values: np.ndarray, shared: bool) -> np.ndarray:
    """1/k for each of the k seats with the lowest value (0 for all on a tie unless shared)."""
    values = np.asarray(values)
    if values.size == 0:
        return np.zeros(values.shape, dtype=np.float64)
    low = values == values.min(axis=1, keepdims=True)
    k = low.sum(axis=1, keepdims=True)
    share = low / k
    if not shared:
        share[k[:, 0] > 1] = 0.0
    return share.astype(np.float64)


def game_shares(rules: Rules, out: dict) -> np.ndarray:
    """Win share of each seat in each game: a single hand's shares, or the match's (the
    lowest total score wins, ties as ``rules.ties`` says)."""
    if rules.match_kind == "single":
        return hand_shares(rules, out["end"], out["winner"], out["hand_points"])
    return _lowest_shares(out["score"], rules.ties == "shared")


def hand_columns(rules: Rules, strategies, seed: int, reps: np.ndarray, h: dict) -> Columns:
    """One row per hand (the hand-row contract): ``seed``, ``replicate``, ``hand``,
    ``dealer``, ``first_player``, ``turns``, ``rounds``, ``end``, ``stock_exhausted``,
    ``stock_exhausted_turn`` (1-based turn of this hand that drew the last stock card; 0
    when the deal left no stock; -1 never), ``cards_drawn``, ``plays``, ``failed``,
    ``max_table``, ``winner``, then per seat ``strategy_i``, ``cards_left_i``,
    ``hand_points_i``, ``win_share_i``, ``score_i`` (the match score after the hand),
    ``draws_when_able_i`` and ``passes_when_able_i`` (draws, and passes on an empty stock,
    made while the seat could add a card: the exact solver's answer, whatever the seat's
    skill saw)."""
    P = rules.players
    n = len(h["game"])
    share = hand_shares(rules, h["end"], h["winner"], h["hand_points"].reshape(n, P))
    cols: Columns = {
        "seed": np.full(n, seed, dtype=np.int64),
        "replicate": reps[h["game"]] if n else np.array([], dtype=np.int64),
        "hand": h["hand"],
        "dealer": h["dealer"],
        "first_player": h["first_player"],
        "turns": h["turns"],
        "rounds": h["rounds"],
        "end": _ends(h["end"]),
        "stock_exhausted": h["stock_exhausted_turn"] >= 0,
        "stock_exhausted_turn": h["stock_exhausted_turn"],
        "cards_drawn": h["cards_drawn"],
        "plays": h["plays"],
        "failed": h["failed"],
        "max_table": h["max_table"],
        "winner": h["winner"],
    }
    for i in range(P):
        cols[f"strategy_{i}"] = str(strategies[i])
    for name, arr in (("cards_left", h["cards_left"]), ("hand_points", h["hand_points"]),
                      ("win_share", share), ("score", h["score"]),
                      ("draws_when_able", h["draws_when_able"]),
                      ("passes_when_able", h["passes_when_able"])):
        arr = arr.reshape(n, P)
        for i in range(P):
            cols[f"{name}_{i}"] = arr[:, i]
    return cols


def game_columns(rules: Rules, strategies, seed: int, reps: np.ndarray, out: dict) -> Columns:
    """One row per game (the game-row contract, see ``fastmach.engine``)."""
    P = rules.players
    share = game_shares(rules, out)
    cols: Columns = {
        "seed": np.full(len(reps), seed, dtype=np.int64),
        "replicate": reps,
        "first_player": out["first_player"],
        "winner": out["winner"],
        "end": _ends(out["end"]),
        "turns": out["turns"],
        "rounds": out["rounds"],
        "stock_exhausted": out["stock_exhausted_turn"] >= 0,
        "stock_exhausted_turn": out["stock_exhausted_turn"],
        "cards_drawn": out["cards_drawn"],
        "plays": out["plays"],
        "failed": out["failed"],
        "max_table": out["max_table"],
        "hands": out["hands"],
        "dealer": out["dealer"],
    }
    for i in range(P):
        cols[f"strategy_{i}"] = str(strategies[i])
    for i in range(P):
        cols[f"cards_left_{i}"] = out["cards_left"][:, i]
    for i in range(P):
        cols[f"hand_points_{i}"] = out["hand_points"][:, i]
    for i in range(P):
        cols[f"score_{i}"] = out["score"][:, i]
    for i in range(P):
        cols[f"win_share_{i}"] = share[:, i]
    return cols


def length(cols: Mapping[str, object]) -> int:
    """The number of rows (0 for columns that are all constants)."""
    return next((len(v) for v in cols.values() if not isinstance(v, str)), 0)  # type: ignore[arg-type]


def column(cols: Mapping[str, object], name: str, n: int | None = None) -> np.ndarray:
    """One column as an array of its ``n`` rows (a constant str repeated)."""
    v = cols[name]
    if isinstance(v, str):
        out = np.empty(length(cols) if n is None else n, dtype=object)
        out[:] = v
        return out
    return np.asarray(v)


def with_rotation(cols: Columns, rotation: int) -> Columns:
    """``cols`` with an int64 ``rotation`` column third (``DataFrame.insert(2, ...)``)."""
    names = list(cols)
    out: Columns = {k: cols[k] for k in names[:2]}
    out["rotation"] = np.full(length(cols), rotation, dtype=np.int64)
    out.update((k, cols[k]) for k in names[2:])
    return out


def concat(parts: Sequence[Mapping[str, object]]) -> Columns:
    """The rows of ``parts`` one after the other (``pandas.concat(..., ignore_index=True)``
    of their frames: every part has the same columns in the same order)."""
    names = list(parts[0])
    for p in parts[1:]:
        if list(p) != names:
            raise ValueError("concat: the parts' columns differ")
    out: Columns = {}
    for k in names:
        values = [p[k] for p in parts]
        if all(isinstance(v, str) for v in values) and len(set(values)) == 1:
            out[k] = values[0]  # the same constant in every row
        else:
            out[k] = np.concatenate([column(p, k) for p in parts])
    return out


def summary(rows: Mapping[str, object], rules: Rules, seconds: float) -> str:
    """One line: games, speed, how the (last) hands ended, how many games had one winner,
    tied winners (who share the win) or none, and each strategy's win share per seat of
    all games (tied wins split: the seats' shares add up to the games anyone won).
    ``rows``: the game rows, as :data:`Columns` or a DataFrame."""
    P = rules.players
    end = column(rows, "end") if isinstance(rows, dict) else np.asarray(rows["end"], dtype=object)
    n = len(end)

    def col(name: str) -> np.ndarray:
        return column(rows, name, n) if isinstance(rows, dict) else np.asarray(rows[name])

    def pct(rows: np.ndarray) -> str:
        """The share of the games where ``rows`` (booleans) holds."""
        return f"{100 * (int(np.count_nonzero(rows)) / n if n else 0):.1f}%"

    end_txt = ", ".join(f"{e} {pct(end == e)}"
                        for e in ("emptied", "blocked", "stock-out"))
    wins: dict[str, float] = {}
    seats_per: dict[str, int] = {}
    won = np.zeros(n)
    for i in range(P):
        names, shares = col(f"strategy_{i}"), col(f"win_share_{i}")
        won += np.asarray(shares, dtype=np.float64)
        for s, w in zip(names.tolist(), shares.tolist()):
            wins[s] = wins.get(s, 0.0) + float(w)
            seats_per[s] = seats_per.get(s, 0) + 1
    win_txt = ", ".join(f"{s} {100 * wins[s] / max(1, seats_per[s]):.1f}%" for s in wins)
    one = np.asarray(col("winner")) >= 0
    nobody = ~one & (won <= 1e-9)
    turns = float(np.mean(col("turns"))) if n else float("nan")
    ends = "ends" if rules.match_kind == "single" else "ends of each match's last hand"
    return (
        f"{n} games of {rules} in {seconds:.2f} s ({n / max(seconds, 1e-9):.0f} games/s); "
        f"{ends}: {end_txt}; winners: one {pct(one)}, tied (sharing the win) "
        f"{pct(~one & ~nobody)}, none {pct(nobody)} "
        f"of games; win share per seat, of all games (ties split): {win_txt}; mean turns "
        f"per game {turns:.1f}"
    )
