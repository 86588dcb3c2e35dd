"""The bounded intermediate search (issue 4, speed) plays exactly like the plain search.

``_probe.PlainIntermediate`` is the intermediate by the plain search of the definition
(every connected set of <= k melds solved, in the order {0}, {0,1}, ..., {1}, ...); the
bounded search must choose the same play everywhere: same rows for the same seeds, same
decisions (cards, melds, what the jokers stand for) in positions from real games.
"""
from __future__ import annotations

import numpy as np
import pytest

from fastmach.core.cards import card_points
from fastmach.engine import make_engine
from fastmach.rules import Rules
from fastmach.solver import POINT_SCALE
from fastmach.strategies import _probe
from fastmach.strategies._intermediate import Intermediate
from tests.positions import game_positions


def _engines(rules, seats):
    fast = make_engine(rules, seats)[2]
    plain = make_engine(rules, seats, classes={"intermediate": _probe.PlainIntermediate})[2]
    return fast, plain


def _skills(eng) -> list[Intermediate]:
    """The engine's intermediate skill objects (seats with the same k share one)."""
    out = []
    for s in eng.seats:
        while s is not None and not isinstance(s, Intermediate):
            s = getattr(s, "inner", None) or getattr(s, "skill", None)
        if s is not None and all(s is not t for t in out):
            out.append(s)
    return out


def _count(eng, name: str) -> int:
    return sum(getattr(s, name) for s in _skills(eng))


@pytest.mark.parametrize("rules,seats,games", [
    ("classic(match=single)", ["intermediate"] * 4, 40),
    ("classic(match=single)", ["intermediate(k=1)"] * 4, 40),
    ("classic(match=single)", ["intermediate(k=3)", "expert", "beginner", "intermediate(objective=1)"], 12),
    ("classic(ace=low-only,players=3,match=single)", ["intermediate"] * 3, 20),
    ("jokers(match=single)", ["intermediate(keep_jokers=1)", "intermediate(k=1,objective=1)",
                              "intermediate", "intermediate(error=0.2)"], 20),
    ("ace-low(jokers=2,match=single)", ["intermediate"] * 4, 15),
    ("italian(jokers=4)", ["intermediate", "intermediate(k=1)", "beginner", "intermediate(k=3)"], 8),
])
def test_same_rows_as_the_plain_search(rules, seats, games):
    fast, plain = _engines(rules, seats)
    a = fast.play_batch(11, np.arange(games))
    b = plain.play_batch(11, np.arange(games))
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    # the plain search solves every connected set, the bounded one skips most of them
    assert _count(plain, "n_bounded") == 0 and _count(fast, "n_bounded") > 0
    assert _count(fast, "n_regroups") < _count(plain, "n_regroups")


@pytest.mark.parametrize("rules", ["classic(match=single)", "jokers(match=single)"])
@pytest.mark.parametrize("strategy", ["intermediate", "intermediate(k=3,objective=1)"])
def test_same_decision_in_every_position(rules, strategy):
    r, positions = game_positions(rules, ("expert", "beginner", "intermediate(k=1)"), 4, 31)
    assert len(positions) > 100
    fast, plain = _engines(r, [strategy] * r.players)
    differs_from_beginner = 0
    beg = make_engine(r, ["beginner"] * r.players)[2]
    for st in positions:
        args = (st.current_player, st._hands, st._melds, st._stands, st.opened,
                len(st.stock), st.rng_state)
        a, b = fast.decide_position(*args, raw=True), plain.decide_position(*args, raw=True)
        assert a[0] == b[0] and (a[1] == b[1]).all() and a[2:] == b[2:], str(st)
        c = beg.decide_position(*args, raw=True)
        differs_from_beginner += int(a[1].sum()) > int(c[1].sum())
    assert differs_from_beginner > 0  # positions where regrouping pays are covered


@pytest.mark.parametrize("preset", ["classic", "classic(ace=low-only)", "classic(decks=3)"])
def test_small_mixed_search_equals_the_solver(preset):
    # the small exact search behind the bounds (a union of melds + at most 8 hand cards)
    # against the exact solver, both objectives, many random positions
    import random

    from fastmach.core import _solver
    from tests.positions import counts, rand_hand, rand_table

    r = Rules.parse(preset)
    eng = _skills(make_engine(r, ["intermediate"] * r.players)[2])[0]
    rules = dict(decks=r.decks, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld)
    pts = np.asarray(card_points(r.hand_points), dtype=np.int32) * POINT_SCALE + 1  # objective=1
    weights = (np.ones(53, dtype=np.int32), pts)
    jw = np.ones(16, dtype=np.int32)  # (no jokers here)
    rng = random.Random(5)
    placed = 0
    for _ in range(1500):
        table = rand_table(rng, rng.choice((3, 6, 9, 12, 15)), rules, 0,
                           lengths=(3, 3, 4, 5, 6, 13, 14))
        hand = rand_hand(rng, table, r.decks, rng.randint(1, 9), near_p=0.95)
        t, h = counts(table), counts(hand)
        for obj in (0, 1):
            w = weights[obj]
            total, pl, _, _ = _solver.solve_counts(t, h, r.decks, r.ace_high, r.jokers_per_meld,
                                                   w, jw, False)
            want = int((pl.astype(np.int64) * w).sum())
            got = _probe.small_mixed_value(eng, t, h, obj)
            small = len(hand) <= 8 and len(table) + len(hand) <= 24
            assert (got is not None) == small
            if small:
                assert got == want, (preset, sorted(table), sorted(hand), obj, got, want)
            placed += want > 0
    assert placed > 300  # positions where hand cards join the melds are covered


def test_bench_reports_turns_and_time_per_decision():
    from fastmach.tools.bench import format_games
    from fastmach.engine import bench, play_games

    row = bench("classic(match=single)", ["intermediate"] * 4, games=6, detail=True)
    df = play_games("classic(match=single)", ["intermediate"] * 4, 0, range(6))
    assert row["games"] == 6 and row["turns_per_game"] == df["turns"].mean()
    assert row["games_per_s"] > 0 and row["us_per_decision"] > 0
    # the time per decision times the turns is the time per game
    assert row["us_per_decision"] * row["turns_per_game"] * row["games_per_s"] == \
        pytest.approx(1e6)
    text = format_games([{"rules": "classic", "seats": "4 x intermediate", **row}])
    assert "µs/decision" in text and f"{row['turns_per_game']:.1f}" in text


def _related_reference(hand, cards, ace_high):
    """Card by card, the relation of the bounds: a hand card is related to the table cards
    when a group of >= 3 pool suits of its rank holds a table card of another suit, or a
    pool segment of >= 3 consecutive places of its suit (an ace at place 1, or also 14
    with aces high) holds a table card at another place."""
    def places(c):
        r = c % 13 + 1
        return (r, 14) if r == 1 and ace_high else (r,)

    pool = [set() for _ in range(4)]
    tab = [set() for _ in range(4)]
    for c in list(np.flatnonzero(hand[:52])) + list(cards):
        pool[c // 13].update(places(c))
    for c in cards:
        tab[c // 13].update(places(c))
    out = np.zeros(53, dtype=np.uint8)
    for c in np.flatnonzero(hand[:52]):
        r, s = c % 13 + 1, c // 13
        rel = sum(r in p for p in pool) >= 3 and any(r in tab[t] for t in range(4) if t != s)
        for b in places(c):
            lo = hi = b
            while lo - 1 in pool[s]:
                lo -= 1
            while hi + 1 in pool[s]:
                hi += 1
            rel = rel or (hi - lo >= 2 and any(lo <= p <= hi and p != b for p in tab[s]))
        out[c] = hand[c] if rel else 0
    return out


@pytest.mark.parametrize("preset", ["classic", "classic(ace=low-only)", "classic(decks=3)"])
def test_related_cards_bitwise_equal_card_by_card(preset):
    # related_weight works a suit at a time on bitmasks; the definition, card by card
    import random

    from tests.positions import counts, rand_hand, rand_table

    r = Rules.parse(preset)
    eng = _skills(make_engine(r, ["intermediate"] * r.players)[2])[0]
    rules = dict(decks=r.decks, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld)
    rng = random.Random(7)
    related = 0
    for _ in range(1500):
        table = rand_table(rng, rng.choice((3, 6, 9)), rules, 0, lengths=(3, 3, 4, 5, 13, 14))
        hand = counts(rand_hand(rng, table, r.decks, rng.randint(1, 12), near_p=0.7))
        hand[52] = 0
        for c in rng.sample(table, min(2, len(table))):   # copies of table cards too
            if c < 52 and rng.random() < 0.5:
                hand[c] = 1
        got = _probe.related_cards(eng, hand, table)
        want = _related_reference(hand, table, r.ace_high)
        assert (got == want).all(), (preset, sorted(table), np.flatnonzero(hand), got, want)
        related += int(want.sum() > 0) + int((want < hand[:53]).any())
    assert related > 1500  # both related and unrelated hand cards are covered


@pytest.mark.parametrize("ace_high", [True, False])
def test_no_meld_shortcut_agrees_with_the_solver(ace_high):
    # may_meld (the beginner's solve is skipped when it says no meld can be made of the
    # hand) against the exact solver on random hands: "no" must mean nothing is placed
    import random

    from fastmach.core import _solver
    from fastmach.strategies._base import hand_may_meld

    rng = random.Random(8 + ace_high)
    w = np.ones(53, dtype=np.int32)
    jw = np.ones(16, dtype=np.int32)
    empty = np.zeros(53, dtype=np.uint8)
    said_no = melds = 0
    for _ in range(3000):
        hand = np.zeros(53, dtype=np.uint8)
        for c in rng.sample(range(104), rng.randint(1, 14)):
            hand[c % 52] += 1
        if rng.random() < 0.3:  # near melds: a rank or a suit stretch
            r, s = rng.randrange(13), rng.randrange(4)
            for c in (s * 13 + r, s * 13 + (r + 1) % 13, ((s + 1) % 4) * 13 + r):
                hand[c] = min(2, hand[c] + 1)
        total, placed, _, _ = _solver.solve_counts(empty, hand, 2, ace_high, 1, w, jw, False)
        may = hand_may_meld(hand, ace_high)
        if not may:
            said_no += 1
            assert placed.sum() == 0, np.flatnonzero(hand)
        melds += int(placed.sum() > 0)
    assert said_no > 1000 and melds > 300


@pytest.mark.parametrize("rules", ["classic(match=single)", "ace-low(match=single)",
                                   "classic(decks=3,match=single)"])
def test_small_regroup_equals_the_solver(rules):
    # regroup without the solver (small_regroup: no meld in the hand alone, no jokers)
    # against regroup with it: the same value for every set of 1-3 melds of real
    # positions, and its new melds are valid melds of the dissolved cards + hand cards
    # (checked by fastmach.core.validate, which shares no code with the engine)
    import random
    from collections import Counter

    from fastmach.core.validate import is_valid_meld

    r, positions = game_positions(rules, ("intermediate", "beginner", "expert"), 6, 17)
    small = _skills(make_engine(r, ["intermediate"] * r.players)[2])[0]
    ref = _skills(make_engine(r, ["intermediate"] * r.players,
                              classes={"intermediate": _probe.SolverIntermediate})[2])[0]
    rng = random.Random(3)
    used = placed_any = 0
    for st in positions:
        hand = np.asarray(st._hands[st.current_player], dtype=np.uint8)
        melds = [list(m) for m in st._melds if 52 not in m]
        if hand[52] or len(melds) < 3:
            continue
        for _ in range(4):
            idx = sorted(rng.sample(range(len(melds)), rng.randint(1, 3)))
            v, new, by_small = _probe.regroup_position(small, hand, melds, idx)
            want, _, by_solver = _probe.regroup_position(ref, hand, melds, idx)
            assert not by_solver and v == want, (melds, idx, np.flatnonzero(hand))
            if not by_small:
                continue
            used += 1
            cards = Counter(c for m in new for c in m)
            dissolved = Counter(c for i in idx for c in melds[i])
            extra = cards - dissolved
            assert not dissolved - cards  # every dissolved card is in a new meld
            assert sum(extra.values()) == v  # (cards objective: one per placed card)
            assert all(hand[c] >= n for c, n in extra.items())
            assert all(is_valid_meld(m, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld)
                       for m in new), new
            placed_any += v > 0
    assert used > 300 and placed_any > 10
