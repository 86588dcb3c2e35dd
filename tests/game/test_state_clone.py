"""A State's clone is an independent game: it plays on as the original does, and nothing
done to it (or to the original) reaches the other."""
from __future__ import annotations

import copy

import numpy as np

from fastmach.game import Game


def _snapshot(st) -> dict:
    """Every attribute's value, compared by value (the reference: a deep copy of each)."""
    out = {}
    for k, v in st.__dict__.items():
        if k in ("game", "rules"):
            continue
        out[k] = v.tolist() if isinstance(v, np.ndarray) else copy.deepcopy(v)
    return out


def test_a_clone_taken_at_any_turn_plays_the_original_game():
    """Clones taken along a match of three hands each play out to the original's rows,
    hand results and history (the deal of the later hands included)."""
    game = Game("classic(players=3)")
    ref = game.new_initial_state(4, 2).play_out()
    st = game.new_initial_state(4, 2)
    clones = []
    while not st.is_terminal():
        if st.total_turns % 7 == 0:
            clones.append(st.clone())
        st.step()
    assert len(ref.hand_results) == 3 and len(clones) > 5
    for c in clones:
        c.play_out()
        assert c.row() == ref.row() and c.hand_rows() == ref.hand_rows()
        assert c.history == ref.history and c.scores == ref.scores


def test_playing_a_clone_leaves_the_original_unchanged():
    game = Game("jokers(players=3)")
    st = game.new_initial_state(1, 3)
    for _ in range(12):
        st.step()
    before = _snapshot(st)
    c = st.clone()
    c.play_out()                       # hands, table, stock, scores, stats, deal state
    c._hands[:] = 0
    c.opened[0] = not c.opened[0]
    c.stats["plays"] += 100
    c._able["draws"][0] += 5
    assert _snapshot(st) == before
    st.play_out()                      # and the original's turns do not reach a clone
    d = st.clone()
    st.scores[0] += 1
    assert d.scores[0] == st.scores[0] - 1


def test_copy_deepcopy_of_a_state_is_its_clone():
    st = Game("classic(match=single)").new_initial_state(0, 1)
    for _ in range(5):
        st.step()
    c = copy.deepcopy(st)
    assert _snapshot(c) == _snapshot(st) and c._hands is not st._hands
    assert c.play_out().row() == st.play_out().row()
