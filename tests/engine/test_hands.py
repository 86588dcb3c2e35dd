"""Hand rows and win shares: one row per hand besides one per game, in ``play_games``,
``fastmach play --hands`` and a study's ``_hands`` store (the shared hand-row contract)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fastmach
from fastmach.cli import main
from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.game import Game
from fastmach.rules import Rules
from fastmach.study import Study
from fastmach.study.plan import HANDS
from fastmach.study.results import read_hands
from fastmach.study.driver import run_study

HAND_COLUMNS = [
    "seed", "replicate", "hand", "dealer", "first_player", "turns", "rounds", "end",
    "stock_exhausted", "stock_exhausted_turn", "cards_drawn", "plays", "failed", "max_table",
    "winner",
]
MATCHES = ["classic(players=3)", "ace-low(players=3)", "classic(players=2,match=rotations:2)"]


def seat_cols(name: str, players: int) -> list[str]:
    return [f"{name}_{i}" for i in range(players)]


@pytest.mark.parametrize("rules", MATCHES + ["jokers(players=3)", "italian(players=3)"])
def test_hand_rows_add_up_to_the_game_rows(rules):
    r = Rules.parse(rules)
    P = r.players
    games, hands = play_games(r, ["expert"] * P, 4, range(6), hands=True)
    assert list(hands.columns[:len(HAND_COLUMNS)]) == HAND_COLUMNS
    for name in ("strategy", "cards_left", "hand_points", "win_share", "score"):
        assert set(seat_cols(name, P)) <= set(hands.columns)
    assert games.equals(play_games(r, ["expert"] * P, 4, range(6)))  # hands change no game
    for i, g in games.iterrows():
        h = hands[hands["replicate"] == g["replicate"]]
        assert list(h["hand"]) == list(range(g["hands"]))
        for col in ("turns", "rounds", "cards_drawn", "plays", "failed"):
            assert h[col].sum() == g[col], col
        assert h["max_table"].max() == g["max_table"]
        assert h["dealer"].iat[0] == g["dealer"] and h["first_player"].iat[0] == g["first_player"]
        assert list(h["dealer"]) == [(g["dealer"] + k) % P for k in range(len(h))]
        last = h.iloc[-1]
        assert last["end"] == g["end"]
        for name in ("cards_left", "hand_points", "score"):
            assert list(last[seat_cols(name, P)]) == list(g[seat_cols(name, P)]), name
        # the match's first stock-out, counted from the start of the match
        before = np.concatenate([[0], np.cumsum(h["turns"])[:-1]])
        out = [b + t for b, t in zip(before, h["stock_exhausted_turn"]) if t >= 0]
        assert g["stock_exhausted_turn"] == (out[0] if out else -1)
        assert (h["stock_exhausted"] == (h["stock_exhausted_turn"] >= 0)).all()
        # every hand's shares: 1 for a sole winner, else 1/k tied or nobody
        s = h[seat_cols("win_share", P)].to_numpy()
        assert np.isclose(s.sum(axis=1), 1).sum() + np.isclose(s.sum(axis=1), 0).sum() == len(h)
        sole = h["winner"].to_numpy() >= 0
        assert (s[sole, h["winner"].to_numpy()[sole]] == 1).all()


def test_hand_rows_of_a_match_carry_the_running_score():
    games, hands = play_games("ace-low(players=3)", ["expert"] * 3, 9, range(4), hands=True)
    for _, h in hands.groupby("replicate"):
        pts = h[seat_cols("hand_points", 3)].to_numpy()
        score = h[seat_cols("score", 3)].to_numpy()
        assert (score == np.cumsum(pts, axis=0)).all()


@pytest.mark.parametrize("rules", MATCHES + ["jokers(players=2)", "ace-low(match=single)"])
def test_state_hand_rows_and_shares_match_the_engine(rules):
    game = Game(rules)
    games, hands = play_games(game.rules, ["expert"] * game.players, 6, range(5), hands=True)
    for i in range(5):
        st = game.new_initial_state(6, i).play_out()
        row = st.row()
        assert set(seat_cols("win_share", game.players)) <= set(row)
        assert row == {k: games.iloc[i][k] for k in row}
        rows = st.hand_rows()
        h = hands[hands["replicate"] == i]
        assert len(rows) == len(h)
        for r, (_, e) in zip(rows, h.iterrows()):
            assert set(r) == set(e.index)
            assert r == {k: e[k] for k in r}


def test_log_end_lines_carry_the_shares(tmp_path):
    import json

    from fastmach.game.log_reader import replay

    log = tmp_path / "g.jsonl"
    games = play_games("classic(players=3)", ["expert"] * 3, 2, range(3), log=log)
    ends = [json.loads(x) for x in log.read_text().splitlines() if '"end"' in x]
    ends = [e for e in ends if e["type"] == "end"]
    assert all("shares" in e for e in ends)
    last = [e for e in ends if e["match_over"]]
    assert [e["match_shares"] for e in last] == games[seat_cols("win_share", 3)].values.tolist()
    assert len(replay(log)) == len(ends)
    lines = log.read_text().splitlines()
    k = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == "end")
    rec = json.loads(lines[k])
    rec["shares"] = rec["shares"][1:] + rec["shares"][:1]  # credit the wrong seat
    lines[k] = json.dumps(rec)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(FastmachError, match="shares"):
        replay(tmp_path / "bad.jsonl")


# ------------------------------------------------------------------- the command line

def test_play_hands_writes_the_hand_rows(tmp_path, capsys):
    out, hf = tmp_path / "g.parquet", tmp_path / "h.parquet"
    code = main(["play", "--rules", "classic(players=3)", "--games", "4", "--seed", "3",
                 "--rotate", "--out", str(out), "--hands", str(hf)])
    assert code == 0
    games, hands = pd.read_parquet(out), pd.read_parquet(hf)
    assert len(games) == 4 and hands.groupby(["rotation", "replicate"]).size().sum() == len(hands)
    assert (hands.groupby(["rotation", "replicate"]).size().to_numpy() == games["hands"].to_numpy()).all()
    assert str(hf) in capsys.readouterr().out
    assert main(["play", "--games", "1", "--out", str(out), "--hands", str(tmp_path / "h.csv")]) == 2
    assert "--hands" in capsys.readouterr().err


# ------------------------------------------------------------------- a study

STUDY = """\
[study]
name = "hands"
seed = 77
games = 6
chunk = 3

[grid]
rules = ["ace-low(match=single)", "classic"]
players = [2, 3]
lineup = [["expert"], ["expert", "beginner"]]
rotate = true
"""


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    study = Study.from_toml(STUDY)
    out = tmp_path_factory.mktemp("study") / "out"
    games = run_study(study, out, workers=0, progress=False)
    return study, out, games


def test_study_stores_hand_rows_and_read_parquet_keeps_the_game_rows(stored):
    study, out, games = stored
    raw = pd.read_parquet(out)  # the user's one-liner still reads exactly the game rows
    assert len(raw) == study.total_games == len(games)
    assert "hand" not in raw.columns
    assert sorted(p.name for p in (out / HANDS).iterdir()) == sorted(
        p.name for p in (out / "chunks").iterdir())
    hands = read_hands(out)
    assert hands.equals(fastmach.read_hands(out))
    assert list(hands.columns[:3]) == ["seed", "replicate", "hand"]
    cell_cols = ["cell", "rules", "preset", "players", "lineup", "rotation"]
    assert list(hands.columns[3:9]) == cell_cols
    key = ["cell", "rotation", "replicate"]
    per_game = hands.groupby(key).agg(hands=("hand", "size"), turns=("turns", "sum"))
    g = games.set_index(key)
    assert (per_game["hands"] == g.loc[per_game.index, "hands"]).all()
    assert (per_game["turns"] == g.loc[per_game.index, "turns"]).all()
    assert len(per_game) == len(games)
    for col in ["ace", "stock_exhausted_turn", "win_share_0", "strategy_1", "score_2"]:
        assert col in hands.columns
    # the rows of a cell are the engine's hand rows of that cell
    c = study.cells[-1]
    sub = hands[(hands["cell"] == c.key) & (hands["rotation"] == 1)].reset_index(drop=True)
    _, direct = play_games(c.rules, c.seats(1), study.seed, range(study.games), hands=True)
    for col in direct.columns:
        assert (sub[col].to_numpy() == direct[col].to_numpy()).all(), col


def test_a_chunk_without_its_hand_file_is_played_again(stored, tmp_path):
    import shutil

    study, out, games = stored
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / ".lock").unlink(missing_ok=True)
    victim = sorted((copy / HANDS).iterdir())[0]
    victim.unlink()
    again = run_study(study, copy, workers=0, progress=False)
    s = again.attrs["summary"]
    assert s["resumed_chunks"] == s["chunks"] - 1 and victim.exists()
    pd.testing.assert_frame_equal(again, games)
    pd.testing.assert_frame_equal(read_hands(copy), read_hands(out))


@pytest.mark.parametrize("rules", ["classic", "jokers"])
def test_no_replicates_give_empty_tables_with_every_column(rules):
    games, hands = play_games(rules, ["expert"] * 4, 1, [], hands=True)
    full, full_hands = play_games(rules, ["expert"] * 4, 1, [0], hands=True)
    assert len(games) == len(hands) == 0
    assert list(games.columns) == list(full.columns)
    assert list(hands.columns) == list(full_hands.columns)
