"""The step-by-step State API: invariants after every turn, same games as the engine,
and the end rules of each tradition (docs/rules.md "A turn", "The end of a hand", "Scoring and matches")."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from fastmach.core import validate
from fastmach.core.cards import JOKER, NCARD, parse_cards
from fastmach.engine import deck_of, play_games
from fastmach.errors import FastmachError
from fastmach.game import Draw, Fail, Game, Pass, Play, meld_points, meld_stands
from fastmach.rules import Rules

# every preset, and every value of each parameter at least once (single hands unless the
# parameter is the match); the hand counts are kept small where the solver is slow
VARIANTS = [
    "classic(match=single)",
    "jokers",
    "ace-low(match=single)",
    "italian",
    "classic(players=2,match=single)",
    "classic(players=3,match=single)",
    "classic(players=5,match=single)",
    "classic(players=7,match=single)",
    "ace-low(players=3,scoring=winner-takes,match=single)",
    "ace-low(players=3,match=rotations:1,ties=draw)",
    "jokers(players=3,may_pass_when_able=true,ties=shared)",
    "classic(players=3,first_player_by=cut,match=rotations:1)",
    "ace-low(players=7,match=single)",
    "jokers(players=5,decks=3,hand_size=15,jokers=2)",
    "italian(jokers=2)",
    "italian(jokers=4,hand_size=9)",
    "ace-low(jokers=2,match=single)",
    "ace-low(jokers=4,opening_points=36,match=single)",
    "classic(opening_points=36,match=single)",
    "classic(hand_size=7,match=single)",
    "classic(ace=low-only,hand_points=face-ace11,match=single)",
    "jokers(may_draw_when_able=false,stock_empty=ends-hand)",
    "classic(players=7,stock_empty=ends-hand,blocked_winner=lowest,match=single)",
    "classic(players=6,match=rotations:1,hand_points=face-ace1)",
    "ace-low(players=3,match=threshold:60)",
]
FALLIBLE = [
    ("classic(players=7,match=single)", "expert(error=0.3)"),
    ("classic(players=6,failed_penalty=0,match=single)", "expert(error=0.5)"),
    ("ace-low(players=7,failed_penalty=3,match=single)", "expert(error=0.4)"),
    ("italian(players=7,jokers=2,hand_size=11)", "expert(error=0.1)"),
]


def _deck_counts(rules: Rules) -> np.ndarray:
    return np.bincount(deck_of(rules), minlength=NCARD)


def _counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(list(cards), dtype=np.intp), minlength=NCARD)


def play_checked(game: Game, seed: int, rep: int, max_turns: int = 20000):
    """Play a game with the seats' strategies, checking the invariants after every turn."""
    state = game.new_initial_state(seed, rep)
    r = game.rules
    deck = _deck_counts(r)
    turns = 0
    while not state.is_terminal():
        seat = state.current_player
        hand_before = _counts(state.hand_of(seat))
        table_before = Counter(tuple(m) for m in state.table)
        stock_before = state.stock
        hand_idx = state.hand_index
        rec = state.apply_action(state.strategy_action())
        turns += 1
        assert turns < max_turns, "the game does not terminate"
        if state.hand_index == hand_idx:
            # all cards accounted for: hands + table + stock == the deck
            flat = [c for m in state.table for c in m]
            total = sum(_counts(h) for h in state.hands) + _counts(flat) + _counts(state.stock)
            assert (total == deck).all()
            validate.check_partition(state.table, flat, decks=r.decks, ace_high=r.ace_high,
                                     jokers_per_meld=r.jokers_per_meld)
            # a turn ends the seat's turn: the next seat plays
            assert state.current_player == (seat + 1) % r.players
            hand_after = _counts(state.hand_of(seat))
        else:
            hand_after = None
        if rec.action == "play":
            assert len(rec.placed) >= 1  # a play adds at least one hand card
            assert rec.drawn == ()
            if hand_after is not None:
                exp = hand_before - _counts(rec.placed) + _counts(rec.taken)
                assert (hand_after == exp).all()
        else:
            # draw / pass / fail: the table is untouched, drawn cards are the stock's next
            assert Counter(tuple(m) for m in rec.table) == table_before
            assert list(rec.drawn) == stock_before[:len(rec.drawn)]
            if rec.action == "draw":
                assert len(rec.drawn) == (1 if stock_before else 0)
            if rec.action == "pass":
                assert not stock_before and r.stock_empty == "play-on"
            if rec.action == "fail":
                assert len(rec.drawn) == min(r.failed_penalty, len(stock_before))
            if hand_after is not None:
                assert (hand_after == hand_before + _counts(rec.drawn)).all()
    return state


def same_as_engine(state, games, hands, i: int) -> None:
    """The State's game row (win shares included) and hand rows equal the engine's."""
    assert state.row() == {k: games.iloc[i][k] for k in state.row()}
    h = hands[hands["replicate"] == state.replicate]
    rows = state.hand_rows()
    assert len(rows) == len(h)
    for row, (_, e) in zip(rows, h.iterrows()):
        assert row == {k: e[k] for k in e.index}


@pytest.mark.parametrize("rules", VARIANTS)
def test_invariants_and_same_game_as_engine(rules):
    game = Game(rules)
    reps = range(3)
    df, hands = play_games(game.rules, ["expert"] * game.players, 11, reps, hands=True)
    for i, r in enumerate(reps):
        state = play_checked(game, 11, r)
        same_as_engine(state, df, hands, i)


@pytest.mark.parametrize("rules,strategy", FALLIBLE)
def test_fallible_players_invariants_and_same_game(rules, strategy):
    game = Game(rules, [strategy] * Rules.parse(rules).players)
    df, hands = play_games(game.rules, [strategy] * game.players, 5, range(4), hands=True)
    for r in range(4):
        state = play_checked(game, 5, r)
        same_as_engine(state, df, hands, r)
    assert df["failed"].sum() > 0


def test_same_game_many_seeds_classic():
    game = Game("classic(match=single)")
    df = play_games(game.rules, ["expert"] * 4, 2024, range(40))
    for r in range(40):
        st = game.new_initial_state(2024, r).play_out()
        assert st.row() == {k: df.iloc[r][k] for k in st.row()}


def test_deal_follows_the_documented_procedure():
    game = Game("classic(players=3,match=single)")
    st = game.new_initial_state(99, 4)
    rng = np.random.default_rng(np.random.SeedSequence([4, 99]))
    deck = np.repeat(np.arange(52), 2)
    perm = rng.permutation(deck)
    dealer = int(rng.integers(3))
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    assert st.first_dealer == dealer and st.first_player == (dealer + 1) % 3
    assert st.rng_state == seed
    for k in range(39):  # one at a time, starting left of the dealer
        assert perm[k] in st.hand_of((dealer + 1 + k) % 3)
    assert sorted(st.hand_of((dealer + 1) % 3)) == sorted(perm[0:39:3].tolist())
    assert st.stock == perm[39:].tolist()


def test_clone_is_independent():
    game = Game("classic(match=single)")
    st = game.new_initial_state(1, 1)
    for _ in range(6):
        st.step()
    c = st.clone()
    c.play_out()
    assert not st.is_terminal() and c.is_terminal()
    st.play_out()
    assert st.row() == c.row() and st.history == c.history


def test_a_clone_deals_the_next_hands_of_a_match_as_the_original_does():
    st = Game("classic(players=3)").new_initial_state(2, 5)  # a match of three hands
    for _ in range(9):
        st.step()
    c = st.clone()
    c._hands[0][:] = 0  # the clone's hands are its own
    assert st.hand_of(0) and not c.hand_of(0)
    c = st.clone()
    st.play_out()
    c.play_out()
    assert len(st.hand_results) == 3 and st.hand_results == c.hand_results
    assert st.row() == c.row()


# ----------------------------------------------------------------- a turn
def _state(rules, hands, table=(), stock=(), seat=0, opened=None):
    game = Game(rules)
    return game.new_initial_state(0, 0).set_position(
        hands, table, stock, current_player=seat, opened=opened)


def test_a_play_must_add_a_hand_card_and_keep_every_table_card():
    st = _state("classic(players=2,match=single)", ["5H 9C", "2C 3C"], ["6H 7H 8H"], "KD")
    assert st.is_legal(Play([[17, 18, 19, 20]], [17]))           # 5H onto 6H 7H 8H
    assert not st.is_legal(Play([[18, 19, 20]], []))              # nothing added
    assert not st.is_legal(Play([[17, 18, 19]], [17]))            # 8H left the table
    assert not st.is_legal(Play([[17, 18, 19, 20], [34]], [17]))  # a card not in the hand
    assert not st.is_legal(Play([[17, 18, 19, 20, 47]], [17, 47]))  # invalid meld


def test_a_draw_ends_the_turn():
    st = _state("classic(players=2,match=single)", ["5S 9C", "2C 3C"], [], "KD QD")
    rec = st.apply_action(Draw())
    assert rec.drawn == (parse_cards("KD")[0],) and st.current_player == 1
    assert 38 in st.hand_of(0) and st.stock == parse_cards("QD")


def test_may_draw_when_able_false_forces_the_play():
    st = _state("italian(players=2)", ["5H 9C", "2C 3C"], ["6H 7H 8H"], "KD")
    assert not st.is_legal(Draw())
    assert isinstance(st.strategy_action(), Play)
    st2 = _state("classic(players=2,match=single)", ["5H 9C", "2C 3C"], ["6H 7H 8H"], "KD")
    assert st2.is_legal(Draw())


def test_opening_rule_hand_only_melds_worth_the_threshold():
    rules = "ace-low(players=2,opening_points=36,match=single)"
    # hand: 9H KS KD KC 2S 3S 4S; table 6H 7H 8H; seat 0 has not opened
    st = _state(rules, ["9H KS KD KC 2S 3S 4S", "2C 3C"], ["6H 7H 8H"], "KD",
                opened=[False, True])
    assert not st.is_legal(Play([[18, 19, 20, 21]], [21]))  # 9H onto the table: not yet
    assert not st.is_legal(Play([[18, 19, 20], [12, 38, 51]], [12, 38, 51]))  # kings: 30
    assert st.is_legal(Play([[18, 19, 20], [12, 38, 51], [1, 2, 3]], [12, 38, 51, 1, 2, 3]))
    a = st.strategy_action()
    assert isinstance(a, Play) and st.is_legal(a)
    new = Counter(tuple(sorted(m)) for m in a.melds) - Counter(tuple(sorted(m)) for m in st.table)
    assert sum(meld_points(m, False) for m in new.elements()) >= 36
    assert 21 not in a.placed  # hand-only melds: 9H stays in the hand
    st.apply_action(a)
    assert st.opened[0]


def test_opening_below_threshold_is_refused():
    rules = "ace-low(players=2,opening_points=36,match=single)"
    st = _state(rules, ["KS KD KC 2S", "2C 3C"], [], "KD", opened=[False, True])
    play = Play([[12, 38, 51]], [12, 38, 51])
    with pytest.raises(FastmachError, match="opening"):
        st.check(play)
    assert isinstance(st.strategy_action(), Draw)  # the expert cannot open: draws


def test_failed_manipulation_restores_and_draws_the_penalty():
    st = _state("classic(players=2,match=single)", ["5H 9C", "2C 3C"], ["6H 7H 8H"], "KD QD JD 10D")
    rec = st.apply_action(Fail())
    assert rec.action == "fail" and len(rec.drawn) == 3
    assert st.table == [[18, 19, 20]] and len(st.hand_of(0)) == 5
    # play-on: only the penalty cards still available are taken
    st = _state("classic(players=2,match=single)", ["5H 9C", "2C 3C"], ["6H 7H 8H"], "KD")
    assert len(st.apply_action(Fail()).drawn) == 1


def test_joker_swap_hand_takes_the_joker_back():
    st = _state("ace-low(players=2,jokers=2,match=single)", ["8C", "2C 3C"], ["8H 8D 8S JK"], "4D")
    a = st.strategy_action()
    assert a.taken == (JOKER,) and a.placed == (parse_cards("8C")[0],)
    st.apply_action(a)
    assert st.hand_of(0) == [JOKER]
    # joker_swap=table: the same card cannot be played and table cards never return
    st = _state("ace-low(players=2,jokers=2,joker_swap=table,match=single)", ["8C", "2C 3C"],
                ["8H 8D 8S JK"], "4D")
    assert isinstance(st.strategy_action(), Draw)
    assert not st.is_legal(Play([[7, 20, 33, 46]], [46], taken=[JOKER]))


# ----------------------------------------------------------------- end of a hand
def test_emptying_the_hand_wins_at_once():
    st = _state("classic(players=3,match=single)", ["5H", "2C 3C", "9S"], ["6H 7H 8H"], "KD")
    st.step()
    assert st.is_terminal() and st.winner() == 0
    assert st.hand_results[0].end == "emptied"
    assert st.scores == [0, 2, 1]  # 1 penalty point per card


def test_classic_empty_stock_round_without_addition_blocks_nobody_wins():
    st = _state("classic(players=3,match=single)", ["5S 9C", "2C", "KD QS JH"], ["6H 7H 8H"], "")
    for seat in range(3):
        assert isinstance(st.strategy_action(), Pass)
        st.step()
    assert st.is_terminal()
    hr = st.hand_results[0]
    assert hr.end == "blocked" and hr.winner == -1 and hr.points == (2, 1, 3)


def test_jokers_blocked_hand_lowest_points_win_and_tie_is_a_draw():
    st = _state("jokers(players=3)", ["5S 9C", "KC", "KD 3S"], ["6H 7H 8H"], "")
    st.play_out()
    hr = st.hand_results[0]
    assert hr.end == "blocked" and hr.points == (14, 10, 13) and st.winner() == 1
    st = _state("jokers(players=2)", ["KS", "10C"], ["6H 7H 8H"], "")
    st.play_out()
    assert st.hand_results[0].points == (10, 10) and st.winner() == -1


def test_play_on_a_play_restarts_the_round_without_addition():
    # stock empty: seat 0 cannot play (passes), seat 1 lays 8S off, then two passes block
    st = _state("classic(players=2,match=single)", ["5D", "8S 2C"], ["9S 10S JS"], "")
    st.play_out()
    assert [h.action for h in st.history] == ["pass", "play", "pass", "pass"]
    assert st.hand_results[0].end == "blocked" and st.winner() == -1


@pytest.mark.parametrize("scheme,expected", [
    ("cards", 3),
    ("face-ace1", 1 + 10 + 25),
    ("face-ace11", 11 + 10 + 25),
])
def test_hand_point_schemes(scheme, expected):
    # seat 1 empties its hand; seat 0 counts AS KD JK under the scheme
    st = _state(f"jokers(players=2,hand_points={scheme})", ["AS KD JK", "9H"], ["6H 7H 8H"],
                "2C", seat=1)
    st.play_out()
    hr = st.hand_results[0]
    assert hr.end == "emptied" and hr.winner == 1 and hr.points == (expected, 0)
    assert st.scores == [expected, 0] and st.returns() == [-expected, 0]


# ----------------------------------------------------------------- matches
def test_rotations_match_rotates_the_dealer_and_sums_the_scores():
    game = Game("classic(players=3,match=rotations:2)")
    st = game.new_initial_state(3, 0).play_out()
    assert len(st.hand_results) == 6
    assert [h.dealer for h in st.hand_results] == [(st.first_dealer + h) % 3 for h in range(6)]
    assert [h.first_player for h in st.hand_results] == [(h.dealer + 1) % 3 for h in st.hand_results]
    totals = [sum(h.points[s] for h in st.hand_results) for s in range(3)]
    assert st.scores == totals
    best = min(totals)
    assert st.winner() == (totals.index(best) if totals.count(best) == 1 else -1)


def test_threshold_match_stops_when_a_total_reaches_it():
    game = Game("ace-low(players=3,match=threshold:60)")
    for rep in range(3):
        st = game.new_initial_state(8, rep).play_out()
        running = np.cumsum([h.points for h in st.hand_results], axis=0)
        assert running[-1].max() >= 60
        assert all(row.max() < 60 for row in running[:-1])


def test_meld_helpers():
    assert meld_points(parse_cards("QH KH AH"), True) == 21
    assert meld_points(parse_cards("JK 2H 3H"), True) == 9  # JK as 4H (4) beats AH (1)
    assert meld_points(parse_cards("8S 8H JK"), False) == 24
    assert meld_stands(parse_cards("5H JK 7H"), True) == parse_cards("5H 6H 7H")
    assert meld_stands(parse_cards("8S 8H JK"), True) == parse_cards("8S 8H 8D")


def test_bad_actions_and_positions_are_refused():
    game = Game("classic(match=single)")
    st = game.new_initial_state(0, 0)
    with pytest.raises(FastmachError, match="pass"):
        st.check(Pass())
    with pytest.raises(FastmachError):
        st.set_position([[], [], []], [], "")
    with pytest.raises(FastmachError):
        st.set_position(["AS"] * 4, ["AS 2S"], "")
