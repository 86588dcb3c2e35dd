"""``fastmach.solve`` answers a position given as card ids (its compiled entry,
``fastmach.core._batch.solve_known``) exactly as it answers the same position given as
text (parsed in Python, then solved from count arrays), and fails with the same message."""
from __future__ import annotations

import random

import numpy as np
import pytest

import fastmach
from fastmach.solver import exact as solver
from fastmach.core import _batch
from fastmach.core.cards import JOKER, card_str
from fastmach.errors import FastmachError
from fastmach.rules import resolve_rules
from fastmach.solver import Solution, known_table, solve
from fastmach.strategies.examples import MaxPlacement


class TableKeeper:
    """Keeps the tables and hands it was shown and plays the maximum placement."""

    def __init__(self):
        self.seen = []

    def act(self, obs):
        self.seen.append((obs.table, obs.hand))
        return MaxPlacement().act(obs)


@pytest.fixture(scope="module")
def positions():
    bot = TableKeeper()
    fastmach.play_games("classic(match=single)", [bot, "expert"] * 2, 5, range(6))
    return bot.seen


def _text(melds):
    return [[card_str(c) for c in m] for m in melds]


def _answer(table, hand, rules, objective="cards", **kw):
    """(type, fields) of solve's answer, or the message it fails with."""
    try:
        sol = solve(table, hand, rules, objective, **kw)
    except FastmachError as e:
        return "error", str(e)
    return type(sol), (sol.placed, sol.melds, sol.stands, sol.points,
                       [type(c) for c in sol.placed])


def _cases(positions, rng):
    """Game positions, and the same tables with hands and melds changed at random:
    cards dropped or added, melds split or merged, a third copy, jokers, bad ids."""
    for table, hand in positions:
        yield table, list(hand)
        melds = [list(m) for m in table]
        h = list(hand) + [rng.randrange(52) for _ in range(rng.randrange(4))]
        kind = rng.randrange(6)
        if kind == 0 and melds:
            m = rng.choice(melds)
            m.pop(rng.randrange(len(m)))        # a meld with a card short
        elif kind == 1 and len(melds) > 1:
            a = melds.pop()
            melds[-1] = melds[-1] + a           # two melds as one
        elif kind == 2:
            h.append(JOKER)                     # a joker (classic has none)
        elif kind == 3 and melds:
            h += [melds[0][0]] * 2              # a third copy
        elif kind == 4:
            rng.shuffle(h)
        yield melds, h
        yield tuple(tuple(m) for m in melds), tuple(h)


@pytest.mark.parametrize("objective", ["cards", "points"])
def test_a_position_as_card_ids_is_answered_as_its_text(positions, objective):
    rng = random.Random(11)
    rules = resolve_rules("classic")
    n = 0
    for table, hand in _cases(positions, rng):
        fast = _answer(table, hand, rules, objective)
        assert fast == _answer(_text(table), [card_str(c) for c in hand], rules, objective)
        assert fast == _answer(table, hand, "classic", objective)   # a rules string
        assert fast == _answer(table, hand, resolve_rules("classic"), objective)  # new
        n += fast[0] is Solution
    assert n > 50


def test_a_known_table_is_answered_as_a_checked_one(positions):
    rules = resolve_rules("classic")
    for table, hand in positions[:40]:
        t = tuple(tuple(m) for m in table)
        known_table(t)
        assert _answer(t, list(hand), rules) == _answer([list(m) for m in t], list(hand),
                                                        rules)
        assert _answer(t, list(hand), rules) == _answer(t, list(hand), rules, trusted=True)
        # the compiled entry answered (the Rules object was seen before)
        assert _batch.is_known_table(t) and not _batch.is_known_table(tuple(list(t)))
        assert type(_batch.solve_known(t, list(hand), rules, "cards", False, solver._BY_OBJECT,
                                       Solution)) is Solution
    # only a tuple of tuples of card ids is noted (anything else could change, or is not
    # a table)
    for odd in (((0, 1, 2), [3, 4, 5]), ((0, 1, True),), ((0, 1, 99),), ((0, 1, -1),),
                ((0, 1, 2 ** 70),), ((0, 1, np.int64(2)),)):
        known_table(odd)
        assert not _batch.is_known_table(odd)


def test_the_tables_noted_last_stay_known_and_the_oldest_is_forgotten():
    # 65 tables: AS 2S 3S and a run of hearts (from each start, of each length)
    tables = [((0, 1, 2), tuple(range(13 + a, 13 + a + n)))
              for a in range(10) for n in range(3, 14 - a)]
    assert len(tables) == 65
    for t in tables[:64]:
        known_table(t)
        known_table(tables[0])   # noting a table again keeps it where it was
    assert all(_batch.is_known_table(t) for t in tables[:64])
    known_table(tables[64])
    assert not _batch.is_known_table(tables[0])
    assert all(_batch.is_known_table(t) for t in tables[1:])
    rules = resolve_rules("classic")
    for t in tables[-3:]:   # each answered from its own counts
        assert _answer(t, [3], rules) == _answer([list(m) for m in t], [3], rules)


class KnownTableChecker:
    """Plays the maximum placement; on each turn keeps whether the table it was shown is
    noted as known (the compiled seat counts it from the meld list it made the tuples
    of) and its answer there next to the answer on a fresh copy of the table (counted
    from the tuples, every meld checked)."""

    def __init__(self):
        self.known, self.answers = [], []

    def act(self, obs):
        self.known.append(_batch.is_known_table(obs.table) or not obs.table)
        fresh = [list(m) for m in obs.table]
        self.answers.append((_answer(obs.table, obs.hand, obs.rules),
                             _answer(fresh, list(obs.hand), obs.rules)))
        return MaxPlacement().act(obs)


@pytest.mark.parametrize("preset", ["classic(match=single)", "jokers(match=single)"])
def test_the_table_a_bot_is_shown_is_known_with_the_counts_of_its_melds(preset):
    bot = KnownTableChecker()
    fastmach.play_games(preset, [bot, "expert"] * 2, 3, range(4))
    assert len(bot.known) > 20 and all(bot.known)
    assert sum(1 for a, _ in bot.answers if a[1][0]) > 5   # plays among them
    for on_known, on_fresh in bot.answers:
        assert on_known == on_fresh


@pytest.mark.parametrize("hand, match", [
    ([53], "card"), ([-1], "card"), ([JOKER], "joker"), ([0, 0, 0], "copies of AS"),
    ([True], "bad card True"), ([np.int64(3)], None), ([2 ** 70], "bad card id"),
])
def test_odd_hands_are_answered_or_refused_as_their_parse(hand, match):
    rules = resolve_rules("classic")
    table = [[0, 1, 2], [13, 14, 15]]
    got = _answer(table, hand, rules)
    ref = _answer(_text(table), [card_str(c) if type(c) is int and 0 <= c <= 52 else c
                                 for c in hand], rules)
    assert got == ref
    assert got[0] is Solution if match is None else (got[0] == "error" and match in got[1])


def test_an_invalid_table_is_refused_on_every_form():
    rules = resolve_rules("classic")
    bad = [[0, 1, 5]]
    msgs = {_answer(t, [30], rules) for t in (bad, tuple(map(tuple, bad)), _text(bad))}
    assert len(msgs) == 1
    kind, msg = msgs.pop()
    assert kind == "error" and "does not split into valid melds" in msg


def test_an_unknown_objective_is_refused_before_and_after_a_solve():
    rules = resolve_rules("classic")
    solve([[0, 1, 2]], [3], rules)
    with pytest.raises(FastmachError, match="unknown objective"):
        solve([[0, 1, 2]], [3], rules, "speed")


def test_changing_an_answer_changes_no_later_answer():
    rules = resolve_rules("classic")
    table, hand = ((0, 1, 2), (13, 14, 15)), [3, 16, 30]
    first = solve(table, hand, rules)
    ref = (list(first.placed), [list(m) for m in first.melds],
           [list(m) for m in first.stands])
    first.placed.append(99)
    first.melds[0][0] = 40
    first.melds.append([1, 2, 3])
    first.stands.clear()
    again = solve(table, hand, rules)   # the same position: the solver's memo answers
    assert (again.placed, again.melds, again.stands) == ref
    assert again.melds is not first.melds and again.melds[0] is not first.melds[0]


def test_a_solution_shows_its_cards_and_keeps_its_card_ids():
    from fastmach.core.cards import parse_cards
    by_text = fastmach.solve("5C 6C 7C 8C", "8D 8H JK", "jokers")
    by_ids = fastmach.solve([parse_cards("5C 6C 7C 8C")], parse_cards("8D 8H JK"),
                            resolve_rules("jokers"))
    for sol in (by_text, by_ids):
        assert repr(sol) == ("Solution(placed='8H 8D JK', melds=['8H 8D 8C', "
                             "'5C 6C 7C JK(8C)'], points=3)")
        assert str(sol).splitlines() == ["placed 3: 8H 8D JK", "  8H 8D 8C", "  5C 6C 7C JK(8C)"]
        assert all(isinstance(c, int) for c in sol.placed) and sol.n_placed == 3
        assert sorted(sol.placed) == sorted(parse_cards("8D 8H JK"))
    assert by_text == by_ids   # (the dataclass's equality, over the ids)
    assert repr(fastmach.solve("", "8D")) == "Solution(placed='', melds=[], points=0)"
