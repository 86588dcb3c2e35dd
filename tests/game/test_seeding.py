"""The deal's generator seeded in C (fastmach.game._seeding) against numpy's own
``default_rng(SeedSequence([replicate, root_seed]))``: the same PCG64 state, the same
draws, on random seeds and on the ends of each 32-bit word."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.game._seeding import deal_draws, draws_below, pcg64_state, seed_deal

EDGES = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**62, 2**63 - 1, 2**64 - 1, 2**64,
         2**127]


def _cases():
    rnd = random.Random(26)
    out = [(r, s) for r in EDGES for s in EDGES]
    out += [(rnd.randrange(2**rnd.randint(1, 64)), rnd.randrange(2**rnd.randint(1, 63)))
            for _ in range(400)]
    return out


def _numpy(replicate: int, root_seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([replicate, root_seed]))


def test_the_state_is_numpys_for_random_and_edge_seeds():
    for r, s in _cases():
        ref = _numpy(r, s).bit_generator.state["state"]
        assert pcg64_state(r, s) == (ref["state"], ref["inc"]), (r, s)


def test_a_reused_generator_draws_what_a_fresh_one_draws():
    gen = np.random.Generator(np.random.PCG64())
    deck = np.repeat(np.arange(52, dtype=np.uint8), 2)
    for r, s in _cases()[::7]:
        ref = _numpy(r, s)
        seed_deal(gen, r, s)
        gen.random()   # a draw between: the next seeding starts from scratch anyway
        ref.random()
        assert np.array_equal(gen.permutation(deck), ref.permutation(deck))
        assert int(gen.integers(4)) == int(ref.integers(4))
        assert int(gen.integers(0, 2**64, dtype=np.uint64)) == \
            int(ref.integers(0, 2**64, dtype=np.uint64))
        assert gen.bit_generator.state == ref.bit_generator.state


def test_negative_seeds_are_refused_as_numpy_refuses_them():
    with pytest.raises(ValueError):
        pcg64_state(-1, 0)
    with pytest.raises(ValueError):
        np.random.SeedSequence([-1, 0])


def _numpy_deal(r: int, s: int, deck: np.ndarray, players: int, hands: int, cut: bool):
    """The deal's draws in the engine's order by numpy's own Generator (the reference)."""
    rng = _numpy(r, s)
    decks = [rng.permutation(deck)]
    dealer = int(rng.integers(players))
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    first = int(rng.integers(players)) if cut else -1
    decks += [rng.permutation(deck) for _ in range(hands - 1)]
    return decks, dealer, seed, first


@pytest.mark.parametrize("decks, jokers", [(1, 0), (2, 0), (2, 4), (3, 8)])
def test_the_deals_drawn_in_c_are_numpys_permutation_and_integers(decks, jokers):
    deck = np.concatenate([np.repeat(np.arange(52, dtype=np.uint8), decks),
                           np.full(jokers, 52, dtype=np.uint8)])
    rnd = random.Random(decks * 10 + jokers)
    for k, (r, s) in enumerate(_cases()[::5]):
        players, hands, cut = rnd.randint(1, 8), rnd.randint(1, 3), k % 2 == 1
        got = deal_draws(r, s, deck, players, hands, cut)
        ref = _numpy_deal(r, s, deck, players, hands, cut)
        assert len(got[0]) == hands
        for a, b in zip(got[0], ref[0]):
            assert np.array_equal(a, b), (r, s)
        assert got[1:] == ref[1:], (r, s)


def test_short_decks_and_wide_bounds_draw_as_numpy_does():
    for n in (0, 1, 2, 3):   # (a deck of one card or none: no draw for its shuffle)
        deck = np.arange(n, dtype=np.uint8)
        got, ref = deal_draws(5, 7, deck, 3), _numpy_deal(5, 7, deck, 3, 1, False)
        assert np.array_equal(got[0][0], ref[0][0]) and got[1:] == ref[1:]
    # bounds where Lemire's method often rejects a draw (and 1, where it draws nothing)
    for n in (1, 2**31 + 1, 3 * 2**30 + 7, 2**32 - 1):
        rng = _numpy(11, n)
        assert draws_below(11, n, n, 200) == [int(rng.integers(n)) for _ in range(200)], n
    with pytest.raises(ValueError):
        draws_below(0, 0, 0, 1)
