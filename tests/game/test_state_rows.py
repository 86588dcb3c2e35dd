"""The reference State's compiled helpers against the Python they replace: hand rows summed,
laid and dealt (fastmach.game._rows) as NumPy and a plain loop do it, and "can the seat
play" (fastmach.game._ability, the engine's test) as fastmach.game.ability.play_exists
answers it, on random positions of real games and random hands; a draw is accepted
without the Python check only where the Python check accepts it."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.errors import FastmachError
from fastmach.game import Draw, Game
from fastmach.game._ability import Ability
from fastmach.game._rows import deal, lay, sizes
from fastmach.game.ability import play_exists
from fastmach.rules import resolve_rules

PRESETS = ["classic(match=single)", "jokers(match=single,joker_swap=hand)",
           "classic(match=single,opening_points=30)", "italian(match=single,jokers=4)"]


def test_rows_are_summed_laid_and_dealt_as_numpy_and_a_loop_do():
    rng = np.random.default_rng(2)
    for _ in range(300):
        P = int(rng.integers(2, 7))
        hands = rng.integers(0, 3, (P, 53)).astype(np.int64)
        assert sizes(hands) == tuple(hands.sum(axis=1).tolist())
        row = hands[int(rng.integers(P))]
        held = np.repeat(np.arange(53), row).tolist()
        placed = tuple(sorted(rng.choice(held, int(rng.integers(0, len(held) + 1)),
                                         replace=False).tolist())) if held else ()
        ref = row.copy()
        for c in placed:
            ref[c] -= 1
        ref[52] += 1
        assert lay(row, placed, 1) == int(ref.sum()) and row.tolist() == ref.tolist()
        deck = rng.permutation(np.repeat(np.arange(53), 2)).tolist()
        n, first = int(rng.integers(0, 106 // P + 1)), int(rng.integers(P))
        counts, ids = deal(deck, P, n, first)
        want = np.zeros((P, 53), dtype=np.int64)
        for k in range(P * n):
            want[(first + k) % P][deck[k]] += 1
        assert counts.tolist() == want.tolist() and counts.dtype == np.int64
        assert ids == tuple(tuple(np.repeat(np.arange(53), w).tolist()) for w in want)


def test_a_card_not_in_the_row_is_not_laid_and_the_row_is_left_as_it_was():
    row = np.zeros(53, dtype=np.int64)
    row[[3, 7]] = 1
    with pytest.raises(ValueError, match="card 7"):
        lay(row, (3, 7, 7), 0)
    assert row.tolist() == [1 if c in (3, 7) else 0 for c in range(53)]
    with pytest.raises(ValueError):
        lay(row, (53,), 0)
    with pytest.raises(ValueError):
        deal(list(range(10)), 4, 3, 0)   # 12 cards asked of 10


@pytest.mark.parametrize("preset", PRESETS)
def test_can_play_is_the_python_question_answered(preset):
    rules = resolve_rules(preset)
    ability = Ability(rules)
    game = Game(preset)
    rng = random.Random(preset)
    yes = no = 0
    for rep in range(3):
        st = game.new_initial_state(9, rep)
        while not st.is_terminal():
            for seat in range(rules.players):
                ref = play_exists(rules, st.hand_of(seat), st._melds, st._stands,
                                  st.opened[seat])
                assert st.can_play(seat) == ref, (preset, seat)
                yes, no = yes + ref, no + (not ref)
            # a random hand on the same table (cards the table leaves free)
            on_table = [c for m in st._melds for c in m]
            free = [c for c in range(53) for _ in range(
                (rules.decks if c < 52 else rules.jokers) - on_table.count(c))]
            hand = rng.sample(free, min(len(free), rng.randrange(1, 12)))
            row = np.bincount(hand, minlength=53).astype(np.int64)
            for opened in (False, True):
                ref = play_exists(rules, hand, st._melds, st._stands, opened)
                assert ability.can_play(row, st._melds, st._stands, opened) == ref
            st.step()
    assert yes > 20 and no > 20


def test_a_draw_skips_the_python_check_only_where_drawing_is_free():
    # may_draw_when_able = false: a seat that can play must play (the Python check asks)
    st = Game("classic(match=single,may_draw_when_able=false)").new_initial_state(0, 0)
    assert st.can_play(st.current_player)
    with pytest.raises(FastmachError, match="must play"):
        st.apply_action(Draw())
    # an empty stock under play-on: a draw is the Python check's error
    st = Game("classic(match=single)").new_initial_state(0, 0)
    st.set_position([[0, 1, 2], [3], [4], [5]], stock=())
    with pytest.raises(FastmachError, match="stock is empty"):
        st.apply_action(Draw())


def test_can_play_refuses_a_hand_that_is_not_53_card_counts_of_0_to_255():
    from fastmach.env._probe import Probe

    rules = resolve_rules("classic")
    ability, probe = Ability(rules), Probe(rules)
    probe.load((), ())
    short, negative = np.zeros(52, dtype=np.int64), np.zeros(53, dtype=np.int64)
    negative[5] = -1
    for ask in (lambda h: ability.can_play(h, (), (), True), lambda h: probe.can_play(h, True)):
        with pytest.raises(ValueError, match="53 card counts"):
            ask(short)
        with pytest.raises(ValueError, match="out of 0..255"):
            ask(negative)
        assert ask(np.zeros(53, dtype=np.int64)) is False
