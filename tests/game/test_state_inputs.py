"""The State hands the engine its card-count rows as they are (a NumPy array read in C):
the decision is the one taken from the same rows as Python lists, on every position of
some games under several presets; a count out of range is refused, not wrapped."""
from __future__ import annotations

import pytest

from fastmach.game import Game


@pytest.mark.parametrize("preset", ["classic(match=single)", "jokers(match=single)",
                                    "italian(match=single)"])
def test_a_decision_from_the_count_array_is_the_one_from_lists(preset):
    game = Game(preset, ["expert", "beginner", "intermediate", "expert"])
    eng = game._engine
    n = 0
    for rep in range(3):
        st = game.new_initial_state(2, rep)
        while not st.is_terminal():
            rest = (st._melds, st._stands, st.opened, st._left(), st.rng_state,
                    st.failed_last)
            a = eng.decide_position(st.current_player, st._hands, *rest)
            b = eng.decide_position(st.current_player, st._hands.tolist(), *rest)
            assert a[0] == b[0] and (a[1] == b[1]).all() and a[2:] == b[2:]
            n += 1
            st.step()
    assert n > 50


def test_a_count_out_of_range_is_refused():
    game = Game("classic(match=single)")
    st = game.new_initial_state(0, 0)
    hands = st._hands.copy()
    hands[0, 5] = 256
    with pytest.raises(OverflowError):
        game._engine.decide_position(0, hands, st._melds, st._stands, st.opened, st._left(),
                                     st.rng_state, st.failed_last)
