"""Bitset card multisets (fastmach.core._cardset) against a plain collections.Counter model."""
import pickle
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmach.core._cardset import HW_POPCNT, CardSet, bench_cardset
from fastmach.core.cards import JOKER, NCARD, OPENING_POINTS, POINT_SCHEMES, format_cards
from fastmach.errors import FastmachError

SETTINGS = settings(derandomize=True, max_examples=300, deadline=None)

# a multiset model: Counter of card ids, at most 3 copies of each card, a few jokers
models = st.builds(
    lambda cards, jokers: Counter({**cards, **({JOKER: jokers} if jokers else {})}),
    st.dictionaries(st.integers(0, JOKER - 1), st.integers(1, 3), max_size=52),
    st.integers(0, 6),
)
card_ids = st.integers(0, JOKER)


def build(model: Counter) -> CardSet:
    return CardSet(list(model.elements()))


def counts(model: Counter) -> np.ndarray:
    out = np.zeros(NCARD, dtype=np.uint8)
    for c, n in model.items():
        out[c] = n
    return out


def check_layers(cs: CardSet) -> None:
    """Layer k holds the cards with more than k copies: nested, only card bits."""
    l0, l1, l2, _ = cs.layers
    assert l1 & ~l0 == 0 and l2 & ~l1 == 0
    assert l0 & ~0x3FFE3FFE3FFE3FFE == 0


@SETTINGS
@given(models)
def test_queries_match_the_model(model):
    cs = build(model)
    check_layers(cs)
    assert len(cs) == sum(model.values())
    assert list(cs) == sorted(model.elements())
    assert all(cs.count(c) == model[c] for c in range(NCARD))
    assert all((c in cs) == (model[c] > 0) for c in range(NCARD))
    assert np.array_equal(cs.to_counts(), counts(model))
    assert str(cs) == format_cards(sorted(model.elements()))


@SETTINGS
@given(models)
def test_every_constructor_agrees(model):
    cs = build(model)
    same = [CardSet(str(cs)), CardSet(counts(model)), CardSet.from_counts(counts(model)),
            CardSet.from_counts(counts(model).tolist()), CardSet(cs), cs.copy(),
            pickle.loads(pickle.dumps(cs)), CardSet(list(reversed(list(model.elements()))))]
    for other in same:
        assert other == cs and not (other != cs) and hash(other) == hash(cs)


@SETTINGS
@given(models, st.lists(st.tuples(st.booleans(), card_ids), max_size=80))
def test_add_and_remove_follow_the_model(model, ops):
    cs = build(model)
    for is_add, c in ops:
        if is_add:
            if c != JOKER and model[c] == 3:
                with pytest.raises(FastmachError):
                    cs.add(c)
            else:
                cs.add(c)
                model[c] += 1
        else:
            if model[c] == 0:
                with pytest.raises(FastmachError):
                    cs.remove(c)
            else:
                cs.remove(c)
                model[c] -= 1
        check_layers(cs)
        assert cs.count(c) == model[c] and len(cs) == sum(model.values())
    assert np.array_equal(cs.to_counts(), counts(model))


@SETTINGS
@given(models, models)
def test_subset_follows_the_model(ma, mb):
    a, b = build(ma), build(mb)
    sub = all(ma[c] <= mb[c] for c in range(NCARD))
    sup = all(ma[c] >= mb[c] for c in range(NCARD))
    assert a.issubset(b) == (a <= b) == sub
    assert a.issuperset(b) == (a >= b) == sup
    assert (a < b) == (sub and ma != mb) and (a > b) == (sup and ma != mb)
    assert a.issubset(list(mb.elements())) == sub  # any card input for the named methods


@SETTINGS
@given(models, models)
def test_sum_follows_the_model(ma, mb):
    a, b = build(ma), build(mb)
    total = ma + mb
    if any(total[c] > 3 for c in range(JOKER)):
        with pytest.raises(FastmachError):
            a + b
    else:
        s = a + b
        check_layers(s)
        assert np.array_equal(s.to_counts(), counts(total))
    assert a == build(ma) and b == build(mb)  # operands unchanged


@SETTINGS
@given(models, st.data())
def test_difference_follows_the_model(ma, data):
    # a sub-multiset of ma (drawn copy by copy) and an arbitrary other multiset
    sub = Counter({c: data.draw(st.integers(0, n)) for c, n in ma.items()})
    a = build(ma)
    d = a - build(sub)
    check_layers(d)
    assert np.array_equal(d.to_counts(), counts(ma - sub))
    assert d + build(sub) == a
    other = data.draw(models)
    if all(other[c] <= ma[c] for c in range(NCARD)):
        assert np.array_equal((a - build(other)).to_counts(), counts(ma - other))
    else:
        with pytest.raises(FastmachError):
            a - build(other)


@SETTINGS
@given(models)
def test_points_match_direct_sums_for_every_scheme(model):
    cs = build(model)
    for name, table in POINT_SCHEMES.items():
        assert cs.points(name) == sum(int(table[c]) * n for c, n in model.items()), name
    assert cs.points(OPENING_POINTS) == sum(int(OPENING_POINTS[c]) * n for c, n in model.items())
    assert cs.points("cards") == len(cs)


@SETTINGS
@given(models, st.lists(st.integers(0, 65535), min_size=NCARD, max_size=NCARD))
def test_points_of_any_per_card_table(model, values):
    table = np.array(values, dtype=np.int64)
    assert build(model).points(table) == sum(int(table[c]) * n for c, n in model.items())


def test_bit_layout_is_suit_lanes_with_rank_bits():
    for c in range(JOKER):
        suit, rank = divmod(c, 13)
        assert CardSet([c]).layers == (1 << (suit * 16 + rank + 1), 0, 0, 0)
    deck = CardSet(list(range(JOKER)) * 3)
    assert deck.layers[0] == deck.layers[1] == deck.layers[2] == 0x3FFE3FFE3FFE3FFE
    sevens = CardSet("7S 7H 7D 7C")
    assert sevens.layers[0] == 0x0001000100010001 << 7
    assert CardSet("5C 6C 7C").layers[0] == 0b111 << (3 * 16 + 5)
    assert CardSet("JK JK").layers == (0, 0, 0, 2)


def test_text_notation_in_and_out():
    cs = CardSet("th A♠ 10H * jk 3c")
    assert str(cs) == "AS 10H 10H 3C JK JK"
    assert repr(cs) == "CardSet('AS 10H 10H 3C JK JK')"
    assert len(CardSet()) == 0 and str(CardSet("")) == "" and list(CardSet()) == []


def test_a_fourth_copy_is_refused_and_named():
    cs = CardSet("8H 8H 8H")
    with pytest.raises(FastmachError, match="copy 4 of 8H"):
        cs.add("8H")
    assert cs.count("8H") == 3
    with pytest.raises(FastmachError, match="4 copies of 8H"):
        CardSet(np.eye(1, NCARD, 20, dtype=np.uint8)[0] * 4)
    with pytest.raises(FastmachError, match="copy 4 of QS"):
        CardSet("QS QS QS QS")
    with pytest.raises(FastmachError, match="copy 256 of JK"):
        CardSet(["JK"] * 256)


def test_bad_cards_are_named():
    cs = CardSet("AS")
    with pytest.raises(FastmachError, match="'ZZ'"):
        cs.add("ZZ")
    with pytest.raises(FastmachError, match="53"):
        cs.count(53)
    with pytest.raises(FastmachError, match="-1"):
        -1 in cs
    with pytest.raises(FastmachError, match="True"):
        cs.add(True)
    with pytest.raises(FastmachError, match="'11X'"):
        CardSet("AS 11X")
    with pytest.raises(FastmachError, match="cannot remove KD"):
        cs.remove("KD")
    with pytest.raises(FastmachError, match="shape"):
        CardSet(np.zeros(52, dtype=np.uint8))


def test_sum_and_difference_errors_name_the_cards():
    with pytest.raises(FastmachError, match="too many copies of 8H KC$|too many copies of 8H KC;"):
        CardSet("8H 8H KC KC AS") + CardSet("8H 8H KC KC")
    with pytest.raises(FastmachError, match="lacks copies of 2D JK"):
        CardSet("AS 2D") - CardSet("AS 2D 2D JK")


def test_points_errors_name_the_scheme_or_card():
    cs = CardSet("AS")
    with pytest.raises(FastmachError, match="'nope'"):
        cs.points("nope")
    bad = np.ones(NCARD, dtype=np.int32)
    bad[14] = -3
    with pytest.raises(FastmachError, match="-3 for 2H"):
        cs.points(bad)
    with pytest.raises(FastmachError, match="53 integer"):
        cs.points([1, 2, 3])


def test_comparisons_with_other_types():
    cs = CardSet("AS")
    assert cs != "AS" and not (cs == [0])
    with pytest.raises(TypeError):
        cs <= "AS"
    with pytest.raises(TypeError):
        cs + "AS"
    assert {CardSet("AS 2S"): 1}[CardSet([1, 0])] == 1


def test_copy_is_independent():
    a = CardSet("AS")
    b = a.copy()
    b.add("AS")
    assert a.count("AS") == 1 and b.count("AS") == 2


def test_bench_reports_every_operation():
    res = bench_cardset(reps=20)
    assert set(res) == {"add", "remove", "subset", "points", "size"}
    assert all(np.isfinite(v) and v > 0 for v in res.values())
    assert isinstance(HW_POPCNT, bool)
