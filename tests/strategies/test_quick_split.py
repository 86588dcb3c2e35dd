"""Going out without the maximum placement: the quick split (a depth-first search for one
partition of hand and table, _quick_split.pyx) and Solver.place_all (whether every card
can be placed), and the strong player that asks them first. Every partition either gives
is checked by the independent validator; place_all must agree with the maximum placement
on every position; the strong player's games must be the same games (every row) with and
without them.
"""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from fastmach.core import _solver
from fastmach.core.validate import check_partition
from fastmach.engine import play_games
from fastmach.rules import Rules, resolve_rules
from fastmach.solver import weights
from fastmach.strategies import _strong
from fastmach.strategies._quick_split import quick_split_counts
from fastmach.tools.bench import game_positions
from tests.positions import (JOKER, NCARD, check_stands, counts, listing, rand_hand, rand_table,
                             where)

ACES = (0, 1, 2)   # the solver's ace codes: low only, low or high (both ends), never both
ONES = np.ones(NCARD, dtype=np.int32)
ONES_J = np.ones(16, dtype=np.int32)


def _rules(ace: int, lim: int, decks: int = 2) -> dict:
    return dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)


def _union(rng, size, ace, lim, decks=2, jokers=3):
    lengths = (3, 3, 4, 4, 5, 6, 7, 9, 13) + ((14,) if ace == 1 else ())
    return counts(rand_table(rng, size, _rules(ace, lim, decks), jokers, lengths))


def _check(melds, cnt, decks, ace, lim):
    check_partition(melds, listing(cnt), decks=decks, ace_high=ace > 0, jokers_per_meld=lim,
                    ace_both_ends=ace == 1)


@pytest.mark.parametrize("ace", ACES)
@pytest.mark.parametrize("lim", [1, 0])
@pytest.mark.parametrize("first", [0, 4])   # 4: on the mirrored deal only, mapped back
def test_every_quick_split_is_a_partition_of_exactly_its_cards(ace, lim, first):
    rng = random.Random(f"quick-split-{ace}-{lim}")
    found = 0
    for k in range(150):
        decks = 3 if k % 5 == 0 else 2
        cnt = _union(rng, rng.randint(6, 70), ace, lim, decks, jokers=rng.randint(0, 4))
        got = quick_split_counts(cnt, decks, ace, lim, 2000, first)
        if got is not None:
            melds, stands = got
            _check(melds, cnt, decks, ace, lim)
            # what each entry stands for makes the meld (a real card: itself), runs ascending
            check_stands(melds, stands, _rules(ace, lim))
            for st in stands:
                ranks = [x % 13 for x in st]
                if len(set(ranks)) > 1:
                    assert all((b - a) % 13 == 1 for a, b in zip(ranks, ranks[1:])), st
            found += 1
    assert found >= 100


def test_the_quick_split_finds_a_split_of_small_unions():
    """Unions of a few random melds (always a partition): nearly all found in 2,000 melds."""
    rng = random.Random("quick-split-small")
    found = sum(quick_split_counts(_union(rng, rng.randint(6, 18), 2, 1), 2, 2, 1, 2000)
                is not None for _ in range(300))
    assert found >= 285


def test_the_quick_split_answers_nothing_where_no_partition_exists():
    """Random multisets: where the exact search (place_all on an empty hand) says the cards
    do not split, the quick split finds nothing; where it finds a partition, they split."""
    rng = random.Random("quick-split-none")
    none = 0
    for _ in range(300):
        ace, lim = rng.choice(ACES), rng.choice((1, 0))
        cnt = np.zeros(NCARD, dtype=np.uint8)
        for c in rng.sample(range(52), rng.randint(3, 16)) * rng.choice((1, 2)):
            cnt[c] += 1
        cnt[JOKER] = rng.randint(0, 2)
        exact = _solver.place_all_counts(cnt, np.zeros(NCARD, np.uint8), 2, ace, lim,
                                         ONES, ONES_J)
        got = quick_split_counts(cnt, 2, ace, lim, 2000)
        if exact is None:
            none += 1
            assert got is None, where((cnt,))
        if got is not None:
            assert exact is not None
    assert none >= 100


@pytest.mark.parametrize("preset,games", [("classic", 4), ("jokers", 8), ("ace-low", 2)])
def test_place_all_agrees_with_the_maximum_placement_on_expert_positions(preset, games):
    rules = resolve_rules(preset)
    tables, hands = game_positions(rules, games=games, seed=23)
    w, jw = weights(rules, "cards")
    yes = 0
    for t, h in zip(tables, hands):
        _, placed, _, _ = _solver.solve_counts(t, h, rules.decks, rules.ace_code,
                                               rules.jokers_per_meld, w, jw)
        full = placed is not None and bool((placed == h).all())
        melds = _solver.place_all_counts(t, h, rules.decks, rules.ace_code,
                                         rules.jokers_per_meld, w, jw)
        assert (melds is not None) == full, where((t, h))
        if melds is not None:
            yes += 1
            _check(melds, t + h, rules.decks, rules.ace_code, rules.jokers_per_meld)
    assert yes > 0


@pytest.mark.parametrize("ace", ACES)
def test_place_all_agrees_with_the_maximum_placement_on_random_positions(ace):
    rng = random.Random(f"place-all-{ace}")
    yes = 0
    for k in range(120):
        lim = 1 if k % 3 else 0
        table = rand_table(rng, rng.randint(0, 50), _rules(ace, lim), rng.randint(0, 3),
                           (3, 3, 4, 4, 5, 6, 7, 9, 13))
        if k % 2:   # a hand that often goes out: the cards of more melds
            extra = _union(rng, rng.randint(3, 14), ace, lim, jokers=1) + counts(table)
            if extra[:52].max() > 2:
                continue
            t, h = counts(table), extra - counts(table)
        else:
            hand = rand_hand(rng, table, 2, rng.randint(1, 12), jokers=rng.randint(0, 1))
            t, h = counts(table), counts(hand)
        _, placed, _, _ = _solver.solve_counts(t, h, 2, ace, lim, ONES, ONES_J)
        full = placed is not None and bool((placed == h).all())
        melds = _solver.place_all_counts(t, h, 2, ace, lim, ONES, ONES_J)
        assert (melds is not None) == full, where((t, h))
        if melds is not None:
            yes += 1
            _check(melds, t + h, 2, ace, lim)
    assert yes >= 20


@pytest.fixture
def quick_reference():
    yield
    _strong._set_quick(1)


@pytest.mark.parametrize("rules,lineup", [
    ("jokers(match=single)", ["strong"] * 4),
    ("jokers", ["strong", "expert", "strong", "expert"]),
    ("classic(match=single)", ["strong"] * 4),
    ("ace-low(match=single)", ["strong(keep=jokers)"] * 3),
    ("italian", ["strong", "strong", "expert"]),
])
def test_strong_goes_out_first_with_the_same_games(quick_reference, rules, lineup):
    """The quick split and place_all decide whether the hand goes out before the maximum
    placement; the games (every game row and hand row) are those of the maximum
    placement first (_set_quick(0)), and the quick path was taken."""
    r = Rules.parse(rules).replace(players=len(lineup))
    rows = {}
    for q in (0, 1):
        _strong._set_quick(q)
        _strong._quick_stats(reset=True)
        rows[q] = play_games(r, lineup, 41, range(12), hands=True, check=True)
        stats = _strong._quick_stats()
    pd.testing.assert_frame_equal(rows[0][0], rows[1][0])   # game rows
    pd.testing.assert_frame_equal(rows[0][1], rows[1][1])   # hand rows
    assert stats["asked"] > 0 and stats["out"] > 0


@pytest.fixture
def exact_first_reference():
    yield
    _strong._set_exact_first(1)


@pytest.mark.parametrize("rules,lineup", [
    ("jokers(match=single)", ["strong"] * 4),
    ("jokers", ["strong", "expert", "strong", "expert"]),
    ("italian(jokers=2)", ["strong", "strong", "expert"]),
])
def test_with_jokers_the_solver_asked_first_gives_the_same_plays_and_melds(
        exact_first_reference, rules, lineup, tmp_path):
    """With jokers, whether the hand goes out is asked of place_all before the quick split
    (which meets few partitions there); every play and every meld of every turn (the game
    logs, byte for byte) is that of the quick split asked first (_set_exact_first(0))."""
    r = Rules.parse(rules).replace(players=len(lineup))
    logs = {}
    for on in (0, 1):
        _strong._set_exact_first(on)
        _strong._quick_stats(reset=True)
        logs[on] = tmp_path / f"log{on}.jsonl"
        play_games(r, lineup, 43, range(12), log=logs[on], check=True)
        stats = _strong._quick_stats()
        assert stats["out"] > 0
    assert stats["quick"] > 0   # (hands the quick split took out after the solver's yes)
    assert logs[0].read_bytes() == logs[1].read_bytes()
