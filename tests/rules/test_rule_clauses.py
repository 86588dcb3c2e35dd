"""Each rule text played as written: one test (or a few) per clause of issue 12, named after
the clause and the source text it defends (the texts are in docs/rules.md)."""
from __future__ import annotations

import numpy as np
import pytest

from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.game import Fail, Game, Pass, Play
from fastmach.rules import BLOCK_ROUNDS, Rules, source_warning


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


# ------------------------------------------------- clause 3: the ace-low winner pays nothing
def test_clause3_ace_low_stock_out_winner_pays_nothing_003():
    """003: "Chaque autre joueur compte les cartes encore en main"."""
    st = state("ace-low(players=3,match=single)", ["5S 9C", "AC", "KD 3S"], ["6H 7H 8H"], "2D")
    st.step()
    assert st.hand_results[0].points == (16, 1, 13) and st.scores == [16, 0, 13]


def test_clause3_ace_low_beginners_winner_scores_zero():
    """The issue's check: ace-low(match=single), four beginners: the winner's score is 0."""
    games, hands = play_games("ace-low(match=single)", ["beginner"] * 4, 3, range(200),
                              hands=True)
    won = games["winner"] >= 0
    assert won.mean() > 0.9
    score = games[[f"score_{i}" for i in range(4)]].to_numpy()
    pts = games[[f"hand_points_{i}" for i in range(4)]].to_numpy()
    w = games["winner"].to_numpy()
    assert (score[won, w[won]] == 0).all() and (pts[won, w[won]] > 0).any()
    losers = shares(games, 4) == 0
    assert (score[losers] == pts[losers]).all()


def test_clause3_ace_low_match_totals_charge_only_the_losers():
    games, hands = play_games("ace-low(players=3)", ["beginner"] * 3, 1, range(20), hands=True)
    for _, h in hands.groupby("replicate"):
        pts = h[[f"hand_points_{i}" for i in range(3)]].to_numpy()
        won = h[[f"win_share_{i}" for i in range(3)]].to_numpy() > 0
        assert (h[[f"score_{i}" for i in range(3)]].to_numpy()
                == np.cumsum(np.where(won, 0, pts), axis=0)).all()


def test_clause3_single_deal_winner_takes_the_others_points_003():
    """003: "le vainqueur marquant la somme de tous les points de pénalité de ses
    adversaires" (scoring=winner-takes, a single deal)."""
    st = state("ace-low(players=3,match=single,scoring=winner-takes)",
               ["5S 9C", "AC", "KD 3S"], ["6H 7H 8H"], "2D")
    st.step()
    assert st.scores == [0, 16 + 13, 0]
    games = play_games("ace-low(match=single,scoring=winner-takes)", ["beginner"] * 4, 3,
                       range(50))
    pts = games[[f"hand_points_{i}" for i in range(4)]].to_numpy()
    for row, p, s in zip(games.itertuples(), pts, shares(games, 4)):
        if row.winner >= 0:
            assert getattr(row, f"score_{row.winner}") == p[s == 0].sum()
    with pytest.raises(FastmachError, match="match=single"):
        Rules.parse("ace-low(scoring=winner-takes)")


# ---------------------------------------- clause 4: a blocked hand needs that nobody can play
def test_clause4_jokers_pass_only_when_unable_to_play_001():
    """001: "personne ne peut jouer pendant un tour complet": on an empty stock a player
    who can play may not pass (may_pass_when_able=false)."""
    st = state("jokers(players=2)", ["9H 2C", "KS"], ["6H 7H 8H"], "")
    assert not st.is_legal(Pass())
    assert Pass() not in st.legal_actions()
    with pytest.raises(FastmachError, match="may_pass_when_able is false"):
        st.check(Pass())
    st = state("jokers(players=2)", ["2C", "KS"], ["6H 7H 8H"], "")
    assert st.is_legal(Pass())  # nothing to play: the pass that can block the hand


def test_clause4_classic_keeps_the_voluntary_pass_000():
    """000: "piocher passe" and "un tour de table sans ajout termine la donne"."""
    st = state("classic(players=2,match=single)", ["9H 2C", "KS"], ["6H 7H 8H"], "")
    assert st.is_legal(Pass()) and Pass() in st.legal_actions()


def test_clause4_a_round_without_additions_ends_the_hand_though_a_seat_could_play_000():
    """000: "un tour de table sans ajout termine la donne" sets no condition: a full round
    of passes on the empty stock ends the hand (blocked, nobody wins) even where seat 0
    could add its 8s; under blocked_when=nobody-can-play (001's reading) play goes on."""
    hands, table = ["8D 8H 2S", "KH 4D 9C", "QD 3S 5H", "JC 2D 6S"], ["5C 6C 7C 8C"]
    st = state("classic(match=single)", hands, table, "")
    assert st.can_play(0)
    for _ in range(3):
        st.apply_action(Pass())
        assert not st.is_terminal()
    st.apply_action(Pass())
    assert st.is_terminal() and st.hand_results[0].end == "blocked"
    assert st.hand_results[0].winner == -1 and st.hand_results[0].turns == 4
    st = state("classic(match=single,blocked_when=nobody-can-play)", hands, table, "")
    passes = 0
    while not st.is_terminal():
        st.apply_action(Pass())
        passes += 1
    assert passes == 4 * BLOCK_ROUNDS   # (a seat could play: blocked only at the bound)


def _rounds_without_additions(log) -> tuple[int, int]:
    """(hands, times a hand went on after a full round of non-plays begun on the empty
    stock, the turns that take no card) of a play --log file."""
    import json
    hands = went_on = 0
    noadd = players = 0
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        if rec["type"] == "header":
            hands += 1
            noadd, players = 0, len(rec["strategies"])
        elif rec["type"] == "turn":
            if noadd == players:   # a turn after the round that ends the hand under 000
                went_on += 1
            noadd = 0 if rec["action"] == "play" else noadd + (not rec["drawn"])
    return hands, went_on


def test_clause4_engine_state_and_replay_end_a_hand_at_its_first_round_without_additions(
        tmp_path):
    """000 in whole games of players who pass while able (beginners do not see every play):
    no hand goes on after a full round of passes, and replay refuses one that does."""
    import json

    from fastmach.game.log_reader import replay
    log = tmp_path / "g.jsonl"
    seats = ["beginner", "intermediate(error=0.3)", "expert(error=0.3)"]
    games = play_games("classic(players=3,match=single)", seats, 5, range(60), log=log)
    hands, went_on = _rounds_without_additions(log)
    assert hands == 60 and went_on == 0
    assert (games["end"] == "blocked").sum() > 5   # (the rule is met in these games)
    assert len(replay(log, text=False)) == 60
    game = Game("classic(players=3,match=single)", seats)
    for rep in range(20):   # the reference State plays the same games
        st = game.new_initial_state(5, rep)
        st.play_out()
        assert st.hand_results[0].end == games["end"][rep]
    # a log whose hand goes on after the round that ended it is refused
    lines = log.read_text().splitlines()
    recs = [json.loads(x) for x in lines]
    i = next(k for k, r in enumerate(recs) if r["type"] == "end" and r["end"] == "blocked")
    first = next(k for k in range(i, -1, -1) if recs[k]["type"] == "header")
    forged = recs[first:i] + [dict(recs[i - 1], turn=recs[i - 1]["turn"] + 1,
                                   seat=(recs[i - 1]["seat"] + 1) % 3)] + recs[i:i + 1]
    bad = tmp_path / "forged.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in forged) + "\n")
    with pytest.raises(FastmachError, match=r"turn after the hand ended \(blocked\)"):
        replay(bad, text=False)


def test_clause4_keep_jokers_player_must_play_its_joker_on_an_empty_stock():
    """The engine's side: a keep_jokers player whose only play uses a joker plays it on an
    empty stock under jokers (it may not pass), and keeps it under may_pass_when_able."""
    seats = ["expert(keep_jokers=1)", "expert"]
    for rules, kind in (("jokers(players=2)", Play), ("jokers(players=2,may_pass_when_able=true)", Pass)):
        game = Game(rules, seats)
        st = game.new_initial_state(0, 0).set_position(["JK 2C", "KS 5D"], ["6H 7H 8H"], "")
        assert isinstance(st.strategy_action(), kind), rules


# ------------------------------------------------------- clause 5: Fail is a consequence
def test_clause5_fail_is_legal_wherever_a_play_is_legal_000():
    """000: "Cette annulation pénalise aussi une nouvelle combinaison tentée sans succès"."""
    # a card that joins a table meld: a manipulation exists, so it can be botched
    st = state("italian(players=2)", ["9H 2C", "KS"], ["6H 7H 8H"], "")
    assert st.is_legal(Fail()) and Fail() in st.legal_actions()
    # a hand-only meld: a new meld tried without success is penalised too
    st = state("italian(players=2)", ["2C 3C 4C", "KS"], ["6H 7H 8H"], "")
    assert st.is_legal(Fail()) and Fail() in st.legal_actions()
    with pytest.raises(FastmachError, match="no legal play, so there is no play to botch"):
        state("italian(players=2)", ["2C", "KS"], ["6H 7H 8H"], "KD").check(Fail())
    # no play at all, no meld on an empty table, or no opening: nothing to botch
    assert not state("italian(players=2)", ["2C", "KS"], ["6H 7H 8H"], "KD").is_legal(Fail())
    assert not state("italian(players=2)", ["2C 3C", "KS"], [], "KD").is_legal(Fail())
    st = Game("classic(players=2,opening_points=30,match=single)").new_initial_state(0, 0)
    st.set_position(["9H 2C", "KS"], ["6H 7H 8H"], "KD", opened=[False, True])
    assert not st.is_legal(Fail())


def test_clause5_a_pair_that_joins_the_table_is_a_manipulation_000():
    """000's worked example: 8D 8H and 5C 6C 7C 8C (neither eight joins alone)."""
    st = state("classic(players=2,match=single)", ["8D 8H", "KS"], ["5C 6C 7C 8C"], "2D")
    assert st.can_rearrange() and st.is_legal(Fail())


def test_clause5_a_fallible_strategy_fails_only_a_legal_play():
    game = Game("italian(players=3,jokers=2)", ["expert(error=0.5)"] * 3)
    fails = 0
    for rep in range(4):
        st = game.new_initial_state(1, rep)
        while not st.is_terminal():
            a = st.strategy_action()
            if isinstance(a, Fail):
                fails += 1
                assert a.attempt is not None and st.is_legal(a.attempt)
            st.apply_action(a)  # checked: the fail is legal
    assert fails > 0


# ---------------------------------------------------------------- clause 6: the deal fits
def test_clause6_a_deal_that_leaves_no_stock_is_refused():
    with pytest.raises(FastmachError, match=r"players=8 x hand_size=13 .* \(decks=2"):
        Rules.parse("classic(players=8)")
    with pytest.raises(FastmachError, match="players=5 x hand_size=21"):
        Rules.parse("jokers(players=5,hand_size=21,jokers=0)")
    assert Rules.parse("classic(players=7)").stock_size == 13


@pytest.mark.parametrize("rules,inside", [
    ("classic(players=5)", True), ("classic(players=6)", False),
    ("jokers(players=4)", True), ("jokers(players=5)", False),
    ("ace-low(players=4)", True), ("ace-low(players=5,decks=3,hand_size=15)", True),
    ("ace-low(players=6,decks=3,hand_size=15)", True), ("ace-low(players=5)", False),
    ("ace-low(players=6)", False), ("ace-low(players=7)", False),
    ("italian(players=8,hand_size=12)", True),
])
def test_clause6_each_preset_documents_its_source_player_range(rules, inside):
    assert (source_warning(Rules.parse(rules)) is None) == inside


def test_clause6_cli_warns_on_stderr_outside_the_source_range(tmp_path, capsys):
    from fastmach.cli import main

    out = tmp_path / "g.parquet"
    assert main(["play", "--rules", "jokers", "--players", "5", "--games", "1",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "2-4 players of the jokers source" in err
    assert main(["play", "--rules", "jokers", "--players", "3", "--games", "1",
                 "--out", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["play", "--rules", "classic(players=8)", "--games", "1", "--out", str(out)]) == 2
    assert "hand_size=13" in capsys.readouterr().err


# --------------------------------------------- clause 7: 003's cut, italian's optional jolly
def test_clause7_ace_low_first_player_is_whoever_cuts_highest_003():
    """003: "Le premier joueur est désigné en coupant le jeu, la carte la plus haute
    entamant la partie" (first_player_by=cut): not tied to the dealer."""
    games, hands = play_games("ace-low(players=4)", ["expert"] * 4, 5, range(300), hands=True)
    left = (games["dealer"] + 1) % 4
    assert 0.1 < (games["first_player"] == left).mean() < 0.4  # a cut, not the dealer's left
    assert np.allclose(np.bincount(games["first_player"], minlength=4) / 300, 0.25, atol=0.07)
    for _, h in hands.groupby("replicate"):  # later hands: the next seat clockwise
        assert list(h["first_player"]) == [(h["first_player"].iat[0] + k) % 4 for k in range(len(h))]
    classic = play_games("classic(players=4)", ["expert"] * 4, 5, range(50))
    assert (classic["first_player"] == (classic["dealer"] + 1) % 4).all()


def test_clause7_italian_jolly_is_optional_and_the_default_study_plays_it_004():
    """004: "A piacere dei partecipanti possono essere usati anche i Jolly" and "Il Jolly può
    assumere il valore e il seme che il suo proprietario desidera"."""
    from pathlib import Path

    from fastmach.study import Study

    assert Rules.preset("italian").jokers == 0 and Rules.preset("italian").jokers_per_meld == 0
    study = Study.from_toml(Path(__file__).resolve().parents[2] / "simulations/balance.toml")
    jolly = [c for c in study.cells if c.preset == "italian" and c.rules.jokers > 0]
    assert jolly and all(c.rules.jokers_per_meld == 0 for c in jolly)


def test_clause6_sweep_warns_once_per_rule_set_outside_the_source_range(tmp_path, capsys):
    from fastmach.cli import main

    toml = tmp_path / "s.toml"
    toml.write_text('[study]\nname = "w"\nseed = 1\ngames = 1\nchunk = 1\n\n[grid]\n'
                    'rules = ["jokers", "classic(match=single)"]\nplayers = [3, 5]\n'
                    'lineup = [["expert"], ["expert", "beginner"]]\n')
    assert main(["sweep", str(toml), "--out", str(tmp_path / "o"), "--workers", "0", "-q"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "jokers(players=5)" in err
