"""The turn flow's rules written once (fastmach.game.flow): the reference State and the log
replay play by them, and the engine's batch shares and logged shares agree with them."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from fastmach.engine import _engine, hand_shares, play_games
from fastmach.game import flow
from fastmach.game.log_reader import replay
from fastmach.rules import BLOCK_ROUNDS, Rules


def _rules(**kw) -> Rules:
    return Rules.parse("classic(match=single)").replace(**kw)


RULE_SETS = [dict(blocked_winner=b, ties=t, scoring=s)
             for b, t, s in itertools.product(("none", "lowest"), ("shared", "draw"),
                                              ("penalties", "winner-takes"))]


@pytest.mark.parametrize("kw", RULE_SETS, ids=lambda kw: ",".join(kw.values()))
def test_the_engines_batch_shares_are_the_flows_hand_outcome(kw):
    r = _rules(**kw)
    rng = np.random.default_rng(7)
    n, P = 400, 4
    points = rng.integers(0, 6, size=(n, P))  # small values: many ties
    end = rng.integers(0, len(_engine.ENDS), size=n)
    winner = rng.integers(0, P, size=n)
    emptied = end == _engine.ENDS.index("emptied")
    points[emptied, winner[emptied]] = 0
    batch = hand_shares(r, end, winner, points)
    for i in range(n):
        o = flow.hand_outcome(r, _engine.ENDS[end[i]], int(winner[i]), points[i].tolist())
        assert batch[i].tolist() == pytest.approx(list(o.shares)), (kw, i)
        if _engine.ENDS[end[i]] == "emptied":
            assert o.winner == winner[i]


def test_a_tie_for_the_fewest_points_is_shared_or_won_by_nobody():
    shared = flow.hand_outcome(_rules(blocked_winner="lowest", ties="shared"), "blocked", 0,
                               [3, 3, 9, 12])
    assert shared.winner == -1 and shared.shares == (0.5, 0.5, 0.0, 0.0)
    assert shared.scored == (0, 0, 9, 12)
    draw = flow.hand_outcome(_rules(blocked_winner="lowest", ties="draw"), "blocked", 0,
                             [3, 3, 9, 12])
    assert draw.shares == (0.0,) * 4 and draw.scored == (3, 3, 9, 12)


def test_winner_takes_splits_the_others_points_rounded_down():
    o = flow.hand_outcome(_rules(blocked_winner="lowest", ties="shared",
                                 scoring="winner-takes"), "stock-out", 2, [2, 2, 9, 6])
    assert o.scored == (7, 7, 0, 0)   # (9 + 6) // 2
    emptied = flow.hand_outcome(_rules(scoring="winner-takes"), "emptied", 1, [5, 0, 4, 1])
    assert emptied.winner == 1 and emptied.scored == (0, 10, 0, 0)


def test_the_turn_that_draws_the_last_card_ends_the_hand_only_under_ends_hand():
    ends = _rules(stock_empty="ends-hand")
    on = _rules(stock_empty="play-on")
    assert flow.turn_end(ends, "draw", stock_at_start=1, stock_after=0, hand_left=5) == "stock-out"
    assert flow.turn_end(on, "draw", stock_at_start=1, stock_after=0, hand_left=5) is None
    assert flow.turn_end(ends, "fail", stock_at_start=0, stock_after=0, hand_left=5) == "stock-out"
    assert flow.turn_end(ends, "draw", stock_at_start=4, stock_after=3, hand_left=5) is None
    assert flow.turn_end(on, "play", stock_at_start=4, stock_after=4, hand_left=0) == "emptied"


def test_a_failed_play_draws_the_penalty_or_what_the_stock_holds():
    r = _rules(failed_penalty=3)
    assert flow.cards_to_draw(r, "fail", 10) == 3
    assert flow.cards_to_draw(r, "fail", 2) == 2
    assert flow.cards_to_draw(r, "draw", 0) == 0
    assert flow.cards_to_draw(r, "pass", 5) == 0


def test_a_hand_is_blocked_after_a_round_only_when_nobody_can_play_under_001():
    r = Rules.parse("jokers")
    assert not flow.blocked_now(r, 3, True)
    assert flow.blocked_now(r, 4, True)
    assert not flow.blocked_now(r, 4, False)
    assert not flow.blocked_now(r, 4, None)   # a log: a round may end blocked, need not
    assert flow.blocked_now(r, 4 * BLOCK_ROUNDS, False)
    assert flow.must_know_who_can_play(r, 4) and not flow.must_know_who_can_play(r, 3)


def test_a_round_without_additions_ends_the_hand_whatever_the_seats_could_play_under_000():
    r = Rules.parse("classic(players=3)")
    assert not flow.blocked_now(r, 2, False)
    for can in (True, False, None):
        assert flow.blocked_now(r, 3, not can if can is not None else None)
    assert not flow.must_know_who_can_play(r, 3)   # (no solver asked)


@pytest.mark.parametrize("rules", ["classic(players=3, blocked_winner=lowest, ties=draw)",
                                   "ace-low(match=single)", "italian(players=2)"])
def test_the_logged_shares_of_the_compiled_turn_are_the_flows(tmp_path, rules):
    log = tmp_path / "g.jsonl"
    r = Rules.parse(rules)
    play_games(r, ["expert"] * r.players, 5, range(30), log=log)
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    ends = [x for x in rows if x.get("type") == "end"]
    assert ends
    for e, h in zip(ends, replay(log, text=False)):
        last = e["winner"] if e["end"] == "emptied" else 0
        assert e["shares"] == pytest.approx(list(flow.hand_outcome(r, e["end"], last,
                                                                   e["points"]).shares))
        assert h.winner == e["winner"]
