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


def state(rules, hands, table=(), stock=(), seat=0):
    return Game(rules).new_initial_state(0, 0).set_position(hands, table, stock,
                                                           current_player=seat)


# ------------------------------------------- clause 2: ace-low ends when the stock runs out
def test_clause2_ace_low_hand_ends_with_the_turn_that_draws_the_last_card_003():
    """003: "Si la pioche s'épuise avant que quiconque ne termine, le joueur ayant le moins
    de points en main remporte la donne": nobody plays after the stock ran out."""
    st = state("ace-low(players=3,match=single)", ["5S 9C", "AC", "KD 3S"], ["6H 7H 8H"], "2D")
    st.step()  # seat 0 draws the last card: the hand is over at once
    assert st.is_terminal() and len(st.history) == 1
    hr = st.hand_results[0]
    assert hr.end == "stock-out" and hr.points == (16, 1, 13) and hr.winner == 1


def test_clause2_a_failed_manipulation_that_empties_the_stock_ends_the_hand_003():
    from fastmach.game import Fail

    st = state("ace-low(players=2,match=single)", ["9H 9S", "AC 2D"],
               ["5H 6H 7H 8H", "9C 9D 9S"], "KD")
    st.apply_action(Fail())  # the penalty card is the stock's last
    assert st.is_terminal() and st.hand_results[0].end == "stock-out"


def test_clause2_play_on_rules_keep_playing_after_the_last_card():
    st = state("classic(players=3,match=single)", ["5S 9C", "AC", "KD 3S"], ["6H 7H 8H"], "2D")
    st.step()
    assert not st.is_terminal()


def test_clause2_ace_low_beginners_no_turn_after_the_turn_that_drew_the_last_card(tmp_path):
    """The issue's check: ace-low(match=single), four beginners (most hands run out)."""
    games, hands = play_games("ace-low(match=single)", ["beginner"] * 4, 3, range(200),
                              hands=True)
    out = hands["stock_exhausted_turn"] > 0
    assert out.mean() > 0.9
    assert (hands.loc[out, "turns"] == hands.loc[out, "stock_exhausted_turn"]).all()
    assert (hands.loc[out, "end"] == "stock-out").all()
    assert (hands.loc[~out, "end"] == "emptied").all()
    play_games("ace-low(match=single)", ["beginner"] * 4, 3, range(3), log=tmp_path / "l.jsonl")
