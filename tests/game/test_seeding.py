"""The deal's generator seeded in C (fastmach.game._seeding) against numpy's own
``default_rng(SeedSequence([replicate, root_seed]))``: the same PCG64 state, the same
draws, on random seeds and on the ends of each 32-bit word."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.game._seeding import pcg64_state, seed_deal

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
