"""Synthetic per-game result tables for the stats and report tests.

The tables have the columns of a study's tidy result store (see fastmach.study.results) but are
drawn from simple known models, so that tests do not need the engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from fastmach.rules import PRESETS

#: the rule columns the synthetic rows carry, with each preset's own values
_RULE_COLUMNS = ("decks", "jokers", "jokers_per_meld", "joker_swap", "hand_size", "ace",
                 "may_draw_when_able", "opening_points", "failed_penalty", "stock_empty",
                 "blocked_winner", "hand_points", "match")
PRESET_PARAMS = {name: {k: params[k] for k in _RULE_COLUMNS} for name, params in PRESETS.items()}

MAX_SEATS = 8


def row_template(cell: str, rules: str, preset: str, players: int, lineup: list[str],
                 rotation: int = 0) -> dict:
    """The descriptive columns of one game (everything but the outcome)."""
    params = dict(PRESET_PARAMS[preset])
    if "(" in rules:
        for item in rules[rules.index("(") + 1:-1].split(","):
            k, v = item.split("=")
            params[k] = int(v) if v.isdigit() else v
    row = {"cell": cell, "rules": rules, "preset": preset, "players": players,
           "lineup": ",".join(lineup), "rotation": rotation, **params}
    for i in range(MAX_SEATS):
        row[f"strategy_{i}"] = lineup[(i + rotation) % len(lineup)] if i < players else None
    return row


def game_rows(rows: list[dict], *, winner, first_player, end, turns, stock_exhausted,
              replicate, seed: int = 7) -> pd.DataFrame:
    """Build a full table from descriptive rows and outcome columns (lists/arrays)."""
    df = pd.DataFrame(rows)
    n = len(df)
    df["seed"] = seed
    df["replicate"] = np.asarray(replicate, dtype=np.int64)
    df["first_player"] = np.asarray(first_player, dtype=np.int64)
    df["winner"] = np.asarray(winner, dtype=np.int64)
    df["end"] = list(end)
    df["turns"] = np.asarray(turns, dtype=np.int64)
    df["rounds"] = (df["turns"] + df["players"] - 1) // df["players"]
    df["stock_exhausted"] = np.asarray(stock_exhausted, dtype=bool)
    df["stock_exhausted_turn"] = np.where(df["stock_exhausted"], df["turns"] // 2, -1)
    df["cards_drawn"] = df["turns"] // 2
    df["plays"] = df["turns"] - df["cards_drawn"]
    df["failed"] = 0
    df["max_table"] = 40
    for i in range(MAX_SEATS):
        inside = i < df["players"]
        won = df["winner"] == i
        df[f"cards_left_{i}"] = np.where(inside, np.where(won, 0, 5), np.nan)
        df[f"hand_points_{i}"] = np.where(inside, np.where(won, 0, 5 + i), np.nan)
        df[f"score_{i}"] = np.where(inside, np.where(won, 20, -(5 + i)), np.nan)
    assert len(df) == n
    return df


def random_study(games: int = 60, seed: int = 1,
                 presets=("classic", "jokers"), players=(2, 3, 4),
                 variants=("classic(ace=low-only)", "classic(failed_penalty=1)"),
                 lineups=(("expert",), ("expert", "beginner"))) -> pd.DataFrame:
    """A random but plausible study: seat and skill effects, common replicates."""
    rng = np.random.default_rng(seed)
    rules_list = list(presets) + list(variants)
    rows, winner, first, end, turns, stock, rep = [], [], [], [], [], [], []
    for rules in rules_list:
        preset = rules.split("(")[0]
        for p in players:
            for lineup in lineups:
                rotations = range(len(lineup)) if len(lineup) > 1 else [0]
                for rot in rotations:
                    cell = f"{rules}|players={p}|lineup={','.join(lineup)}|rotate=true"
                    for r in range(games):
                        drng = np.random.default_rng([r, rot, p, seed])  # the "deal"
                        base_len = int(drng.integers(20, 60)) + 8 * p
                        extra = 6 if "low-only" in rules else 0
                        t = base_len + extra + int(rng.integers(0, 4))
                        ex = bool(drng.random() < 0.1 * p + (0.1 if extra else 0))
                        fp = int(drng.integers(0, p))
                        weights = np.array([1.6 if k == 0 else 1.0 for k in range(p)])
                        for k in range(p):
                            seat = (fp + k) % p
                            strat = lineup[(seat + rot) % len(lineup)]
                            if strat == "expert":
                                weights[k] *= 2.0
                        if ex and rng.random() < 0.3:
                            w, e = -1, "blocked"
                        else:
                            k = int(rng.choice(p, p=weights / weights.sum()))
                            w, e = (fp + k) % p, "emptied"
                        rows.append(row_template(cell, rules, preset, p, list(lineup), rot))
                        winner.append(w), first.append(fp), end.append(e)
                        turns.append(t), stock.append(ex), rep.append(r)
    return game_rows(rows, winner=winner, first_player=first, end=end, turns=turns,
                     stock_exhausted=stock, replicate=rep, seed=seed)


STUDY_TOML = """[study]
name = "synthetic"
seed = 1
games = 60

[grid]
rules = ["classic", "jokers", "classic(ace=low-only)", "classic(failed_penalty=1)"]
players = [2, 3, 4]
lineup = [["expert"], ["expert", "beginner"]]
rotate = true
"""


def write_results(directory: Path, df: pd.DataFrame, name: str = "synthetic",
                  manifest: bool = True, chunks: int = 2) -> Path:
    """Write ``df`` as parquet chunks plus ``_study.json`` the way a sweep does."""
    directory.mkdir(parents=True, exist_ok=True)
    df = df.reset_index(drop=True)
    for c in df.columns:  # typed nulls, as the sweep writes them, so chunks share a schema
        if c.startswith("strategy_"):
            df[c] = df[c].astype("string")
    for i, part in enumerate(np.array_split(np.arange(len(df)), chunks)):
        df.iloc[part].to_parquet(directory / f"chunk-{i:05d}.parquet", index=False)
    if manifest:
        (directory / "_study.json").write_text(json.dumps({
            "study": STUDY_TOML, "name": name, "seed": 1, "fastmach_version": "0.1.0",
            "started": "2026-11-30T01:00:00+00:00", "finished": "2026-11-30T01:02:05+00:00",
            "command": "fastmach sweep simulations/synthetic.toml --out results/synthetic",
        }))
    return directory


# ----------------------------------------------------------------- hand rows (the contract)

HAND_OUTCOMES = ("dealer", "first_player", "turns", "rounds", "end", "stock_exhausted",
                 "stock_exhausted_turn", "cards_drawn", "plays", "failed", "max_table",
                 "winner")


def hands_per_match(rules: str, players: int, drng) -> int:
    """classic: one hand per player; ace-low: a match of 2-5 hands; else a single hand."""
    preset = rules.split("(")[0]
    if preset == "classic":
        return players
    if preset == "ace-low":
        return int(drng.integers(2, 6))
    return 1


def random_hand_study(games: int = 40, seed: int = 1,
                      presets=("classic", "jokers"), players=(3, 4),
                      variants=("classic(ace=low-only)",),
                      lineups=(("expert",), ("expert", "beginner"))
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Game rows and hand rows of the shared contract, drawn from a clustered model.

    Replicate r is the same "deal" (length, stock propensity, first player, number of
    hands) in every cell with the same player count; ``ace=low-only`` adds 6 turns per
    hand; the first seat and experts win more often. A hand ends stock-out (40% of the
    hands whose stock ran out), blocked (about 3% of the others) or emptied, so "ended
    blocked" and "nobody emptied" differ; stock-out hands under ``blocked_winner=lowest``
    rules are shared by two seats (win share 1/2 each), others have one winner.
    """
    rng = np.random.default_rng(seed)
    hand_rows, game_rows_ = [], []
    for rules in list(presets) + list(variants):
        preset = rules.split("(")[0]
        shares_ties = PRESET_PARAMS[preset]["blocked_winner"] != "none"
        for p in players:
            for lineup in lineups:
                rotations = range(len(lineup)) if len(lineup) > 1 else [0]
                for rot in rotations:
                    cell = f"{rules}|players={p}|lineup={','.join(lineup)}|rotate=true"
                    base = row_template(cell, rules, preset, p, list(lineup), rot)
                    strat = [base[f"strategy_{i}"] for i in range(p)]
                    for r in range(games):
                        drng = np.random.default_rng([r, p, seed])  # the deal
                        n_hands = hands_per_match(rules, p, drng)
                        score = np.zeros(p)
                        deal_len = int(drng.integers(15, 50))
                        for h in range(n_hands):
                            hrng = np.random.default_rng([r, p, h, seed])
                            turns = deal_len + int(hrng.integers(0, 20)) + 4 * p \
                                + (6 if "low-only" in rules else 0) + int(rng.integers(0, 4))
                            first = (int(hrng.integers(0, p)) + h) % p
                            stock = bool(hrng.random() < 0.05 * p)
                            weights = np.array([1.5 if (s - first) % p == 0 else 1.0
                                                for s in range(p)])
                            weights *= np.array([2.0 if strat[s] == "expert" else 1.0
                                                 for s in range(p)])
                            share = np.zeros(p)
                            if stock and rng.random() < 0.4:
                                end = "stock-out"
                                if shares_ties:
                                    a, b = rng.choice(p, 2, replace=False)
                                    share[[a, b]] = 0.5
                            else:
                                end = "blocked" if rng.random() < 0.03 else "emptied"
                                share[int(rng.choice(p, p=weights / weights.sum()))] = 1.0
                            winner = int(np.argmax(share)) if share.max() == 1.0 else -1
                            cards = np.where(share == 1.0, 0, rng.integers(1, 10, p))
                            points = cards * 3
                            score = score - points
                            row = dict(base) | {
                                "seed": seed, "replicate": r, "hand": h,
                                "dealer": (first - 1) % p, "first_player": first,
                                "turns": turns, "rounds": (turns + p - 1) // p, "end": end,
                                "stock_exhausted": stock,
                                "stock_exhausted_turn": turns - 2 if stock else -1,
                                "cards_drawn": turns // 2, "plays": turns - turns // 2,
                                "failed": 0, "max_table": 40, "winner": winner}
                            for i in range(MAX_SEATS):
                                inside = i < p
                                row[f"cards_left_{i}"] = cards[i] if inside else np.nan
                                row[f"hand_points_{i}"] = points[i] if inside else np.nan
                                row[f"win_share_{i}"] = share[i] if inside else np.nan
                                row[f"score_{i}"] = score[i] if inside else np.nan
                            hand_rows.append(row)
                        last = dict(hand_rows[-1])
                        last.pop("hand")
                        last["turns"] = sum(x["turns"] for x in hand_rows[-n_hands:])
                        best = np.flatnonzero(score == score.max())
                        for i in range(p):
                            last[f"win_share_{i}"] = 1.0 / len(best) if i in best else 0.0
                        last["winner"] = int(best[0]) if len(best) == 1 else -1
                        game_rows_.append(last)
    return pd.DataFrame(game_rows_), pd.DataFrame(hand_rows)


def write_hand_results(directory: Path, games: pd.DataFrame, hands: pd.DataFrame,
                       **kw) -> Path:
    """Write game chunks, ``_study.json`` and ``_hands/`` chunks the way a sweep does."""
    write_results(directory, games, **kw)
    (directory / "_hands").mkdir(exist_ok=True)
    h = hands.reset_index(drop=True)
    for c in h.columns:
        if c.startswith("strategy_"):
            h[c] = h[c].astype("string")
    for i, part in enumerate(np.array_split(np.arange(len(h)), 2)):
        h.iloc[part].to_parquet(directory / "_hands" / f"chunk-{i:05d}.parquet", index=False)
    return directory
