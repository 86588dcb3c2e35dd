"""The solver's fast paths for positions with jokers, against their slow forms and the
brute-force reference.

* move lists: a suit step walks its choices once per suit pattern and replays the list
  for every state of that pattern; walking them again for every state must give the same
  answer (value, placed cards, melds, what each joker stands for);
* the lists are kept from sweep to sweep of one problem (deepening, aces low then high):
  made anew for every suit step, every layer of the last sweep and every answer must be
  the same, and a key that forgets whether aces are high is caught;
* the walks are kept for every problem the solver meets (by what a walk reads, not by the
  problem): on a solver that has met positions of every rules grid point, every layer and
  answer must be those of walks made per problem, also when they are forgotten every few
  walks, and a key that forgets the cards two values on is caught;
* the relaxation's bound: when the relaxation of one joker per meld falls back to the
  exact search, its value bounds that search (sweeps that cannot reach it are skipped);
  without the bound the answer is the same, and a bound one too low is caught.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from tests.positions import JOKER, NCARD, adv_jokers, counts, rand_hand, rand_table, text
from tests.refs import brute

# ace codes of the solver: 0 low only, 1 low or high (a run may hold both), 2 never both
ACES = (0, 1, 2)


def _answer(table, hand, decks, ace, lim, w):
    jw = np.full(16, int(w[JOKER]), dtype=np.int32)
    total, placed, melds, stands = _solver.solve_counts(counts(table), counts(hand), decks, ace,
                                                        lim, w, jw, True)
    return int(total), None if placed is None else placed.tolist(), melds, stands


def _brute(table, hand, decks, ace, lim, w):
    ref = brute.solve(table, hand, decks=decks, ace_high=ace > 0, jokers_per_meld=lim,
                      card_w=w.tolist(), ace_both_ends=ace != 2)
    return None if ref is None else ref[0] + int((w.astype(np.int64) * counts(table)).sum())


def weights(rng):
    w = [rng.randint(1, 9) for _ in range(NCARD)] if rng.random() < 0.5 else [1] * NCARD
    return np.array(w, dtype=np.int32)


def _joker_position(rng, size=(6, 30), hand=(2, 9)):
    decks, ace, lim = rng.choice((2, 2, 3)), rng.choice(ACES), rng.choice((1, 1, 0))
    rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)
    if rng.random() < 0.3:
        table, held = adv_jokers(rng, rules)
    else:
        table = rand_table(rng, rng.randint(*size), rules, max_jokers=rng.choice((1, 2, 3)))
        k = table.count(JOKER)
        held = rand_hand(rng, table, decks, rng.randint(*hand),
                         jokers=rng.randint(0, min(2, 4 - k)))
    return table, held, decks, ace, lim, weights(rng)


@pytest.fixture
def switches():
    yield
    _solver._set_move_lists(1)
    _solver._set_shared_moves(1)
    _solver._set_relax_bound(1)


def test_move_lists_give_the_answers_of_walking_every_state(switches):
    rng = random.Random("move-lists")
    for _ in range(250):
        pos = _joker_position(rng)
        _solver._set_move_lists(0)
        walked = _answer(*pos)
        _solver._set_move_lists(1)
        assert _answer(*pos) == walked, f"table {text(pos[0])} hand {text(pos[1])} {pos[2:5]}"


def _layers(pos):
    answer = _answer(*pos)
    sizes = _solver._layer_sizes()
    return answer, [_solver._layer_keys(i) for i in range(len(sizes))]


def _kept_positions(rng, n):
    """Joker positions with several sweeps: aces high, and large hands or four jokers
    (iterative deepening)."""
    out = []
    for k in range(n):
        decks, lim = rng.choice((2, 2, 3)), rng.choice((1, 1, 0))
        ace = rng.choice((1, 2)) if k % 4 else 0
        rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=lim)
        if k % 3 == 0:
            table, held = adv_jokers(rng, rules)
        else:
            table = rand_table(rng, rng.randint(6, 40), rules, max_jokers=rng.choice((1, 2, 3, 4)))
            held = rand_hand(rng, table, decks, rng.randint(4, 14),
                             jokers=rng.randint(0, max(0, min(2, 4 - table.count(JOKER)))))
        out.append((table, held, decks, ace, lim, weights(rng)))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_move_lists_kept_across_sweeps_give_the_layers_of_lists_made_anew(switches, seed):
    rng = random.Random(f"move-lists-kept-{seed}")
    _solver._set_memo(0)
    try:
        for pos in _kept_positions(rng, 60):
            _solver._set_move_lists(2)
            anew = _layers(pos)
            _solver._set_move_lists(1)
            kept = _layers(pos)
            where = f"table {text(pos[0])} hand {text(pos[1])} {pos[2:5]}"
            assert kept[0] == anew[0], where
            assert kept[1] == anew[1], where
    finally:
        _solver._set_memo(1)


def _caught(positions, right, wrong) -> int:
    """The positions whose answer or layers a wrong setting (`wrong()`) changes from the
    right one's (`right()`), or makes a partition that cannot be rebuilt."""
    caught = 0
    for pos in positions:
        right()
        reference = _layers(pos)
        wrong()
        try:
            caught += _layers(pos) != reference
        except RuntimeError:   # (a partition the wrong lists cannot rebuild)
            caught += 1
    return caught


def test_move_lists_kept_under_a_wrong_key_are_caught(switches):
    """Lists kept without the aces-high bit of their key (the aces-low sweep's lists
    replayed at values 1 and 12-14 of the aces-high sweep) change some answer or layer,
    or make a partition that cannot be rebuilt."""
    rng = random.Random("move-lists-wrong-key")
    _solver._set_memo(0)
    try:
        caught = _caught(_kept_positions(rng, 80), lambda: _solver._set_move_lists(2),
                         lambda: _solver._set_move_lists(-1))
    finally:
        _solver._set_memo(1)
    assert caught > 0


@pytest.mark.parametrize("cap", [1 << 13, 7])
def test_walks_kept_for_every_problem_give_the_layers_of_walks_per_problem(switches, cap):
    """Positions of mixed rules one after another on one solver (the walks of one kept for
    the next), against walks made per problem; cap 7: forgotten every seven walks."""
    rng = random.Random(f"shared-moves-{cap}")
    _solver._set_memo(0)
    try:
        positions = _kept_positions(rng, 90)
        for pos in positions:
            _solver._set_shared_moves(0)
            alone = _layers(pos)
            _solver._set_shared_moves(1, cap)
            shared = _layers(pos)
            where = f"table {text(pos[0])} hand {text(pos[1])} {pos[2:5]}"
            assert shared[0] == alone[0], where
            assert shared[1] == alone[1], where
        kept, _ = _solver._shared_moves_stats()
        assert 0 < kept <= cap
    finally:
        _solver._set_memo(1)


def test_walks_kept_under_a_wrong_key_are_caught(switches):
    """Walks kept without whether a run of length 1 may stay open (the cards two values on)
    change some answer or layer, or make a partition that cannot be rebuilt; the switch set
    again, none of them is read (the same positions then solve as with walks per problem)."""
    rng = random.Random("shared-moves-wrong-key")
    _solver._set_memo(0)
    positions = _kept_positions(rng, 80)
    try:
        caught = _caught(positions, lambda: _solver._set_shared_moves(0),
                         lambda: _solver._set_shared_moves(-1))
        _solver._set_shared_moves(1)
        for pos in positions:
            shared = _layers(pos)
            _solver._set_shared_moves(0)
            assert shared == _layers(pos)
            _solver._set_shared_moves(1)
    finally:
        _solver._set_memo(1)
    assert caught > 0


def test_move_lists_match_brute_force_on_small_joker_positions():
    rng = random.Random("move-lists-brute")
    checked = 0
    for _ in range(60):
        pos = _joker_position(rng, size=(3, 14), hand=(1, 5))
        ref = _brute(*pos)
        if ref is None:
            continue
        assert _answer(*pos)[0] == ref, f"table {text(pos[0])} hand {text(pos[1])} {pos[2:5]}"
        checked += 1
    assert checked >= 40


def _fallback_positions(seed, n, size=(6, 24), hand=(2, 7)):
    """Positions (one joker per meld) whose relaxation falls back to the exact search."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        decks, ace = rng.choice((2, 3)), rng.choice(ACES)
        rules = dict(decks=decks, ace_high=ace > 0, jokers_per_meld=1)
        table = rand_table(rng, rng.randint(*size), rules, max_jokers=rng.choice((1, 2, 3)))
        k = table.count(JOKER)
        held = rand_hand(rng, table, decks, rng.randint(*hand),
                         jokers=rng.choice((0, 1, 2)) if k < 3 else 0)
        pos = (table, held, decks, ace, 1, weights(rng))
        before = _solver._relax_fallbacks()
        _answer(*pos)
        if _solver._relax_fallbacks() > before:
            out.append(pos)
    return out


def test_relaxation_bound_keeps_the_exact_searchs_answer(switches):
    for pos in _fallback_positions("relax-bound", 60):
        _solver._set_relax_bound(0)
        unbounded = _answer(*pos)
        _solver._set_relax_bound(1)
        assert _answer(*pos) == unbounded, f"table {text(pos[0])} hand {text(pos[1])} {pos[2:5]}"


def test_relaxation_bound_matches_brute_force_where_the_relaxation_falls_back():
    for pos in _fallback_positions("relax-bound-brute", 15, size=(6, 14), hand=(2, 5)):
        assert _answer(*pos)[0] == _brute(*pos), f"table {text(pos[0])} hand {text(pos[1])} {pos[2:5]}"


def test_a_relaxation_bound_one_too_low_is_seen(switches):
    # the mutant: the exact search is told that nothing weighs more than the relaxation's
    # value minus one. Since the canonical tie-break the bound mostly skips searches (and,
    # when the aces-low value reaches it, has the aces-high search compare keys only): the
    # mutant changes the searches run, or the answer, on some of these positions
    seen = 0
    for pos in _fallback_positions("relax-bound", 60):
        _solver._set_relax_bound(1)
        right = _answer(*pos)
        sweeps = _solver._sweep_stats()
        _solver._set_relax_bound(-1)
        seen += _answer(*pos) != right or _solver._sweep_stats() != sweeps
    assert seen > 0
