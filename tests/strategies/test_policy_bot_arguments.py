"""A PolicyBot's policy and a LinearPolicy's weights are checked when they are built: a
FastmachError naming what is wrong, not a game that fails turns later."""
from __future__ import annotations

import numpy as np
import pytest

from fastmach.env.moves import DRAW, N_ACTIONS
from fastmach.env.policy import LinearPolicy, PolicyBot
from fastmach.errors import FastmachError


@pytest.mark.parametrize("policy", [None, 5, b"agent.npz", [1, 2]])
def test_a_policy_that_is_no_function_or_spec_is_refused_when_built(policy):
    with pytest.raises(FastmachError, match=r"PolicyBot: policy must be a function .*; got "
                       + type(policy).__name__):
        PolicyBot(policy)


def test_a_policy_file_may_be_given_as_a_path(tmp_path):
    path = tmp_path / "p.npz"
    LinearPolicy(np.zeros((N_ACTIONS, 3)), np.zeros(N_ACTIONS)).save(str(path))
    bot = PolicyBot(path)   # type: ignore[arg-type]
    assert isinstance(bot.policy, LinearPolicy) and bot.spec == str(path)
    assert PolicyBot.of(lambda v, m: DRAW).policy(None, None) == DRAW


@pytest.mark.parametrize("W,b,name", [
    ("x", "y", "W"),
    (np.zeros((N_ACTIONS, 3)), ["a"] * N_ACTIONS, "b"),
    ([[1.0, 2.0], [3.0]], np.zeros(N_ACTIONS), "W"),
    (object(), np.zeros(N_ACTIONS), "W"),
])
def test_linear_weights_that_are_not_numbers_are_refused_naming_the_argument(W, b, name):
    with pytest.raises(FastmachError, match=f"a linear policy's {name} must be an array of "
                       "numbers"):
        LinearPolicy(W, b)
