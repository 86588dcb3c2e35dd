"""The solver's memo of recent answers: a position asked again gets exactly the answer a
search gives (value, placed cards, melds and what each joker stands for), whatever was
asked in between, with or without the melds, under any rules and weights.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.engine import make_engine
from tests.positions import JOKER, NCARD, counts, rand_hand, rand_rules, rand_table


@pytest.fixture
def memo_restored():
    yield
    _solver._set_memo(1)


def _ask(solver, q, witness):
    t, h, rules, w, jw = q
    out = _solver.solve_counts(t, h, rules["decks"], 2 if rules.get("split") else int(rules["ace_high"]),
                               rules["jokers_per_meld"], w, jw, witness, solver)
    total, placed, melds, stands = out
    return (int(total), None if placed is None else placed.tolist(), melds, stands)


def _questions(rng, n):
    """A pool of positions, each also asked with other weights and other rules."""
    pool = []
    for _ in range(n):
        rules = rand_rules(rng)
        rules["split"] = rules["ace_high"] and rng.random() < 0.3
        table = rand_table(rng, rng.randint(0, 30), rules, max_jokers=rng.choice((0, 0, 1, 2)))
        hand = rand_hand(rng, table, rules["decks"], rng.randint(0, 9),
                         jokers=rng.choice((0, 0, 1)) if table.count(JOKER) < 2 else 0)
        w = np.array([rng.randint(1, 9) for _ in range(NCARD)], dtype=np.int32)
        jw = np.full(16, int(w[JOKER]), dtype=np.int32)
        t, h = counts(table), counts(hand)
        pool.append((t, h, rules, w, jw))
        w2 = w.copy()
        w2[rng.randrange(JOKER)] += 1                       # one weight differs
        pool.append((t, h, rules, w2, jw))
        jw2 = jw.copy()
        jw2[rng.randrange(16)] += 1                         # one joker weight differs
        pool.append((t, h, rules, w, jw2))
        other = dict(rules, decks=3) if rules["decks"] == 2 else dict(rules, decks=2)
        if (t + h).max() <= other["decks"]:
            pool.append((t, h, other, w, jw))               # other rules, same cards
        bad = t.copy()
        bad[rng.randrange(JOKER)] += 1                      # a table that may not partition
        if (bad + h).max() <= rules["decks"]:
            pool.append((bad, h, rules, w, jw))
    return pool


@pytest.mark.parametrize("seed", range(3))
def test_answers_asked_again_equal_a_fresh_search(seed, memo_restored):
    rng = random.Random(f"memo-{seed}")
    pool = _questions(rng, 25)
    shared = _solver.Solver()
    before = _solver._memo_stats(shared)[0]
    values = set()
    for _ in range(400):
        # mostly recent questions (hits), sometimes old ones (evicted), any witness request
        q = pool[rng.randrange(len(pool))] if rng.random() < 0.3 else \
            pool[min(len(pool) - 1, rng.randrange(8))]
        if rng.random() < 0.05:
            rng.shuffle(pool)
        witness = rng.random() < 0.7
        _solver._set_memo(1)
        got = _ask(shared, q, witness)
        _solver._set_memo(0)
        want = _ask(_solver.Solver(), q, witness)
        assert got == want
        values.add(got[0] >= 0)
    assert _solver._memo_stats(shared)[0] > before   # the memo answered some of them
    assert values == {True, False}                   # tables that partition and some that do not


def test_memo_off_plays_the_same_games_with_must_play_counts(memo_restored):
    # hand rows ask seat_can_play after every draw: the expert's own question again
    out = {}
    for on in (1, 0):
        _solver._set_memo(on)
        _, _, eng = make_engine("jokers(joker_swap=hand)", ["expert", "beginner", "expert", "patient"])
        res = eng.play_batch(9, np.arange(12), hands=True, record=True)
        out[on] = (res["log"], {k: v.tolist() for k, v in res["hand_rows"].items()})
    assert out[0] == out[1]
