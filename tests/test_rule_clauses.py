"""Each rule text played as written: one test (or a few) per clause of issue 12, named after
the clause and the source text it defends (the texts are in docs/rules.md)."""
from __future__ import annotations

import numpy as np
import pytest

from fastmach.engine import play_games
from fastmach.game import Game
from fastmach.rules import Rules


def shares(df, players: int) -> np.ndarray:
    return df[[f"win_share_{i}" for i in range(players)]].to_numpy()


# ---------------------------------------------------------------- clause 1: shared ties
def test_clause1_classic_ties_are_shared_000():
    """000: "plus petit total gagnant, égalités partagées"."""
    games = play_games("classic", ["expert"] * 4, 12, range(300))
    s = shares(games, 4)
    assert np.allclose(s.sum(axis=1), 1.0)  # every match is won, ties shared
    tied = games["winner"] < 0
    assert tied.sum() > 20  # ties happen (about one match in six)
    scores = games[[f"score_{i}" for i in range(4)]].to_numpy()
    for row, sc in zip(s[tied.to_numpy()], scores[tied.to_numpy()]):
        low = sc == sc.min()
        assert low.sum() > 1 and np.allclose(row, low / low.sum())
    sole = ~tied.to_numpy()
    assert (s[sole, games["winner"].to_numpy()[sole]] == 1).all()
    mean = s.mean(axis=0)
    assert np.allclose(mean, 0.25, atol=0.05), mean  # about 25% each (SE 2.5 points)
    assert abs(mean.sum() - 1) < 1e-12


def test_clause1_jokers_equal_points_is_a_draw_001():
    """001: "En cas d'égalité de points, c'est match nul": nobody wins, shares 0."""
    game = Game("jokers(players=2)")
    st = game.new_initial_state(0, 0).set_position(["KS", "10C"], ["6H 7H 8H"], "")
    st.play_out()
    assert st.winner() == -1 and st.win_shares() == [0.0, 0.0]
    st = game.new_initial_state(0, 0).set_position(["KS", "9C"], ["6H 7H 8H"], "")
    st.play_out()
    assert st.winner() == 1 and st.win_shares() == [0.0, 1.0]


def test_clause1_classic_blocked_hand_has_no_winner_000():
    """000: "Tous comptent leurs restes, sans gagnant de main vide"."""
    st = Game("classic(players=3,match=single)").new_initial_state(0, 0).set_position(
        ["5S 9C", "2C", "KD QS JH"], ["6H 7H 8H"], "")
    st.play_out()
    assert st.hand_results[0].end == "blocked" and st.win_shares() == [0.0, 0.0, 0.0]


def test_clause1_ties_parameter_shares_or_draws_a_lowest_tie():
    for ties, expect in (("shared", [0.5, 0.5, 0.0]), ("draw", [0.0, 0.0, 0.0])):
        st = Game(f"jokers(players=3,ties={ties})").new_initial_state(0, 0).set_position(
            ["KS", "10C", "QD 2S"], ["6H 7H 8H"], "")
        st.play_out()
        assert st.winner() == -1 and st.win_shares() == expect
    assert Rules.preset("classic").ties == "shared" and Rules.preset("jokers").ties == "draw"
