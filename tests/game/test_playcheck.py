"""The compiled check of a whole play (fastmach.game._playcheck) against the Python check
(fastmach.game.actions.check_action, strict: the independent validator): it accepts only
plays the Python check accepts, and it accepts the engine's own plays (the reference
State's fast path). Random positions of real games under rules with jokers taken back and
an opening rule; answers the engine's, the solver's and forged ones."""
from __future__ import annotations

import random

import numpy as np
import pytest

import fastmach
from fastmach.core.cards import JOKER
from fastmach.errors import FastmachError
from fastmach.game import Game
from fastmach.game._playcheck import PlayCheck
from fastmach.game.actions import Play, check_action
from fastmach.rules import resolve_rules

PRESETS = ["classic(match=single)", "jokers(match=single,joker_swap=hand)",
           "classic(match=single,opening_points=30)", "ace-low(match=single)",
           "italian(match=single,jokers=4)",
           "jokers(match=single,opening_points=30,joker_swap=hand)"]


def positions(preset: str, games: int, seed: int = 11):
    """(state, the engine's decision) before every turn of some games."""
    game = Game(preset)
    for rep in range(games):
        st = game.new_initial_state(seed, rep)
        while not st.is_terminal():
            action = st.strategy_action()
            yield st, action
            st.apply_action(action)


def python_accepts(st, action) -> bool:
    seat = st.current_player
    try:
        check_action(st.rules, action, seat=seat, hand=st._hands[seat], melds=st._melds,
                     stands=st._stands, opened=st.opened[seat], stock_left=len(st.stock),
                     play_exists=lambda: True, strict=True)
    except FastmachError:
        return False
    return True


def forged(play: Play, **fields) -> Play:
    for k, v in fields.items():
        object.__setattr__(play, k, v)
    return play


class Shifting(Play):
    """A Play subclass (its fields could change once read): never judged here."""


def variants(st, own, rng: random.Random):
    """Plays in the position: the engine's own and its forgeries, the solver's, openings,
    jokers taken back."""
    seat = st.current_player
    r = st.rules
    hand = st.hand_of(seat)
    melds = [list(m) for m in st._melds]
    if isinstance(own, Play):
        ms = [list(m) for m in own.melds]
        yield own
        yield Play(ms, own.placed, own.taken)                       # readings derived
        yield Play(ms[1:], own.placed, own.taken, stands=own.stands[1:])   # a meld dropped
        yield Play(ms, own.placed[1:], own.taken, stands=own.stands)      # a card not laid
        yield Play(ms, tuple(own.placed) + (rng.randrange(53),), own.taken,
                   stands=own.stands)                                   # a card perhaps not held
        yield Play(ms, own.placed, tuple(own.taken) + (JOKER,), stands=own.stands)  # a joker more
        if own.taken:
            yield Play(ms, own.placed, stands=own.stands)               # the joker left out
        for _ in range(2):
            m2 = [list(m) for m in ms]
            i = rng.randrange(len(m2))
            j = rng.randrange(len(m2[i]))
            m2[i][j] = rng.randrange(53)                                # a card changed
            yield Play(m2, own.placed, own.taken)
        if len(ms) > 1:
            m2 = [list(m) for m in ms]
            m2[1].append(m2[0].pop())                                   # a card moved
            yield Play(m2, own.placed, own.taken)
            yield Play([ms[0] + ms[1]] + ms[2:], own.placed, own.taken)  # two melds merged
        st2 = [list(s) for s in own.stands]
        for i, m in enumerate(ms):
            for j, c in enumerate(m):
                if c == JOKER:
                    st2[i][j] = rng.randrange(52)                       # a joker read otherwise
                    yield Play(ms, own.placed, own.taken, stands=st2)
                    st3 = [list(s) for s in own.stands]
                    st3[i][j] = JOKER                                   # a joker read as a joker
                    yield Play(ms, own.placed, own.taken, stands=st3)
                    break
        st4 = [list(s) for s in own.stands]
        i = rng.randrange(len(ms))
        if any(c != JOKER for c in ms[i]):
            j = next(j for j, c in enumerate(ms[i]) if c != JOKER)
            st4[i][j] = (st4[i][j] + 1) % 52                            # a card read otherwise
            yield Play(ms, own.placed, own.taken, stands=st4)
        yield Play(ms, (), own.taken, stands=own.stands)                 # nothing placed
        yield forged(Play(ms, own.placed), melds=[list(m) for m in ms])
        yield forged(Play(ms, own.placed), melds=tuple(tuple(np.int64(c) for c in m)
                                                       for m in ms))
        yield forged(Play(ms, own.placed), placed=(-1,) + tuple(own.placed))
        yield forged(Play(ms, own.placed), placed=(2 ** 70,) + tuple(own.placed)[1:])
        yield forged(Play(ms, own.placed), stands=((52,),))
        yield forged(Play(ms, own.placed), taken=(3,))
        yield Shifting(ms, own.placed, own.taken, stands=own.stands)
    if not hand:
        return
    if r.opening_points and not st.opened[seat]:
        op = fastmach.opening(hand, r, 1)
        if op is not None:
            yield Play(melds + [list(m) for m in op.melds], op.placed)      # value as it is
            yield Play(melds + [list(m) for m in op.melds[1:]], op.placed)  # a meld less
            if melds:   # a table meld changed by the opening
                grown = [list(m) for m in melds]
                yield Play(grown[1:] + [grown[0] + list(op.melds[0])] +
                           [list(m) for m in op.melds[1:]], op.placed)
        return
    sol = fastmach.solve(melds, hand, r)
    if sol.placed:
        yield Play(sol.melds, sol.placed)
        yield Play(sol.melds, sol.placed, stands=sol.stands)
    if r.joker_swap == "hand":   # jokers taken back for the cards they stand for
        for i, (m, s) in enumerate(zip(st._melds, st._stands)):
            for j, (c, x) in enumerate(zip(m, s)):
                if c == JOKER:
                    swapped = [list(mm) for mm in melds]
                    swapped[i][j] = x
                    yield Play(swapped, [x], [JOKER])        # the card held or not
                    yield Play(swapped, [x], [JOKER, JOKER])  # one joker too many
                    other = (x + 13) % 52
                    yield Play(swapped, [other], [JOKER])    # not the card it stands for


@pytest.mark.parametrize("preset", PRESETS)
def test_the_compiled_check_accepts_only_plays_the_validator_accepts(preset):
    rng = random.Random(preset)
    check = PlayCheck(resolve_rules(preset))
    accepted = refused = own_plays = 0
    for n, (st, own) in enumerate(positions(preset, 5)):
        seat = st.current_player
        if isinstance(own, Play):   # the engine's own plays take the fast path
            own_plays += 1
            assert python_accepts(st, own), (preset, own)
            assert check.accepts(st._hands[seat], st._melds, st._stands, st.opened[seat],
                                 own), (preset, own)
        if n % 2:
            continue
        for play in variants(st, own, rng):
            fast = check.accepts(st._hands[seat], st._melds, st._stands, st.opened[seat],
                                 play)
            if fast:
                accepted += 1
                assert python_accepts(st, play), (preset, play)
            else:
                refused += 1
    assert own_plays >= 20 and accepted >= 40 and refused >= 200


def test_the_compiled_check_takes_a_joker_back_only_for_the_card_it_stands_for():
    rules = resolve_rules("jokers(joker_swap=hand)")
    check = PlayCheck(rules)
    # 5S JK 7S on the table, the joker read as 6S (ids: spades 0..12, rank-1)
    table, stands = [[4, JOKER, 6]], [[4, 5, 6]]
    hand = np.zeros(53, dtype=np.int64)
    hand[5] = hand[18] = 1                                       # 6S, 6H
    ok = Play([[4, 5, 6]], [5], [JOKER])
    assert check.accepts(hand, table, stands, True, ok)
    assert not check.accepts(hand, table, stands, True, Play([[4, 5, 6]], [5], [JOKER, JOKER]))
    assert not check.accepts(hand, table, [[4, 7, 6]], True, ok)   # read otherwise
    before_opening = PlayCheck(resolve_rules("jokers(joker_swap=hand,opening_points=30)"))
    assert before_opening.accepts(hand, table, stands, True, ok)
    assert not before_opening.accepts(hand, table, stands, False, ok)
    assert not PlayCheck(resolve_rules("jokers")).accepts(hand, table, stands, True, ok)


def test_the_compiled_check_holds_an_opening_to_its_value_and_the_table_as_it_was():
    rules = resolve_rules("classic(opening_points=30)")
    check = PlayCheck(rules)
    hand = np.zeros(53, dtype=np.int64)
    for c in (9, 10, 11, 12, 0, 13, 26):                       # 10S JS QS KS, AS AH AD
        hand[c] = 1
    table, stands = [[1, 2, 3]], [[1, 2, 3]]                     # 2S 3S 4S
    assert check.accepts(hand, table, stands, False, Play([[1, 2, 3], [9, 10, 11, 12]],
                                                          [9, 10, 11, 12]))   # 40 points
    assert not check.accepts(hand, table, stands, False,
                             Play([[1, 2, 3], [0, 13, 26]], [0, 13, 26]))     # 3 points
    assert not check.accepts(hand, table, stands, False,     # the table's run grown
                             Play([[0, 1, 2, 3], [9, 10, 11, 12]], [0, 9, 10, 11, 12]))
    assert check.accepts(hand, table, stands, True,
                         Play([[0, 1, 2, 3], [9, 10, 11, 12]], [0, 9, 10, 11, 12]))


def test_a_state_refuses_a_forged_play_the_full_check_refuses():
    st = Game("classic(match=single)").new_initial_state(3, 0)
    while True:
        own = st.strategy_action()
        if isinstance(own, Play) and len(own.melds) > 1:
            break
        st.apply_action(own)
    bad = forged(Play(own.melds, own.placed), melds=tuple(own.melds[1:]))
    with pytest.raises(FastmachError, match="illegal play"):
        st.apply_action(bad)
    with pytest.raises(FastmachError, match="illegal play"):
        st.apply_action(forged(Play(own.melds, own.placed),
                               melds=[list(m) for m in own.melds[1:]]))
    before = st.clone()
    listed = forged(Play(own.melds, own.placed), melds=[list(m) for m in own.melds])
    rec = st.apply_action(listed)          # legal, judged by the Python check
    listed.melds[0].append(99)             # the State keeps its own copy
    assert before.apply_action(own).placed == rec.placed
    assert st.table == before.table and st.table_stands == before.table_stands
