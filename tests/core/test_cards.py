"""Card notation (docs/rules.md "Cards", "Melds": text notation, copies, points)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastmach.core.cards import (
    JOKER,
    NCARD,
    OPENING_POINTS,
    RANK_NAMES,
    SUIT_NAMES,
    card_points,
    card_str,
    cards_to_counts,
    check_copies,
    counts_to_cards,
    format_cards,
    parse_card,
    parse_cards,
    pretty,
)
from fastmach.errors import FastmachError

card_ids = st.integers(0, NCARD - 1)


def test_card_ids_are_suit_times_13_plus_rank_minus_1():
    assert parse_card("AS") == 0
    assert parse_card("KS") == 12
    assert parse_card("AH") == 13
    assert parse_card("10H") == 22
    assert parse_card("AD") == 26
    assert parse_card("KC") == 51
    assert parse_card("JK") == JOKER == 52
    assert NCARD == 53
    assert RANK_NAMES == ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    assert SUIT_NAMES == ("S", "H", "D", "C")


@pytest.mark.parametrize(
    "token",
    ["10H", "10h", "TH", "th", "10♥", "10♡", "10♥\ufe0f", "10♥\ufe0e", "T♡\ufe0f", " 10H "],
)
def test_notation_accepts_lowercase_t_and_unicode_suits(token):
    assert parse_card(token) == 22


@pytest.mark.parametrize(
    "token,suit", [("♠", 0), ("♤", 0), ("♥", 1), ("♡", 1), ("♦", 2), ("♢", 2), ("♣", 3), ("♧", 3)]
)
def test_every_unicode_suit_and_white_variant(token, suit):
    assert parse_card("Q" + token) == suit * 13 + 11


@pytest.mark.parametrize("token", ["JK", "jk", "Jk", "*"])
def test_joker_written_jk_or_star(token):
    assert parse_card(token) == JOKER


@pytest.mark.parametrize(
    "token", ["ZZ", "", "1H", "11S", "AX", "A", "H", "10", "JKK", "0S", "AS2", "♥10", "*S"]
)
def test_bad_card_message_quotes_the_token(token):
    with pytest.raises(FastmachError) as e:
        parse_card(token)
    assert str(e.value) == (
        f"bad card {token!r} (expected rank A,2..10,J,Q,K then suit S,H,D,C, or JK)"
    )


def test_bad_card_zz_exact_message():
    with pytest.raises(FastmachError, match=r"^bad card 'ZZ' \(expected rank A,2\.\.10,J,Q,K "
                       r"then suit S,H,D,C, or JK\)$"):
        parse_card("ZZ")


def test_parse_card_refuses_non_text():
    with pytest.raises(FastmachError, match="bad card 5"):
        parse_card(5)


def test_fastmach_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_card("ZZ")


def test_parse_cards_splits_on_whitespace_and_commas():
    assert parse_cards("AS 10H,QC ,  JK\n*\t2d") == [0, 22, 50, 52, 52, 27]
    assert parse_cards("") == []
    assert parse_cards(" , ") == []


def test_parse_cards_mixed_list_of_tokens_and_ids():
    assert parse_cards(["AS", 22, np.int64(52), "kc"]) == [0, 22, 52, 51]
    assert parse_cards(("2S", 1)) == [1, 1]
    assert parse_cards([]) == []


def test_parse_cards_names_bad_token_inside_text():
    with pytest.raises(FastmachError, match=r"bad card 'QX'"):
        parse_cards("AS QX 2S")


@pytest.mark.parametrize("bad", [53, -1, 100])
def test_card_ids_must_be_0_to_52(bad):
    with pytest.raises(FastmachError, match=rf"^bad card id {bad} \(expected 0\.\.52\)$"):
        parse_cards([0, bad])


@pytest.mark.parametrize("bad", [True, 1.0, None, b"AS"])
def test_card_list_elements_must_be_tokens_or_ids(bad):
    with pytest.raises(FastmachError, match="bad card"):
        parse_cards([bad])


@pytest.mark.parametrize("bad", [{0, 1}, 7, None, {"AS": 1}])
def test_parse_cards_refuses_other_containers(bad):
    with pytest.raises(FastmachError, match="cannot read cards from"):
        parse_cards(bad)


def test_count_array_expands_to_sorted_list():
    counts = np.zeros(NCARD, dtype=np.uint8)
    counts[[22, 0, 52]] = [2, 1, 3]
    assert parse_cards(counts) == [0, 22, 22, 52, 52, 52]
    assert counts_to_cards(counts) == [0, 22, 22, 52, 52, 52]


def test_numpy_array_must_be_a_count_array():
    with pytest.raises(FastmachError, match=r"shape \(53,\), got \(3,\)"):
        parse_cards(np.array([0, 1, 2]))
    with pytest.raises(FastmachError, match="must hold integers, got dtype float64"):
        counts_to_cards(np.zeros(NCARD))
    neg = np.zeros(NCARD, dtype=np.int8)
    neg[22] = -1
    with pytest.raises(FastmachError, match="negative count -1 for 10H"):
        counts_to_cards(neg)


def test_canonical_text():
    assert card_str(22) == "10H"
    assert card_str(0) == "AS"
    assert card_str(JOKER) == "JK"
    assert card_str(50) == "QC"
    with pytest.raises(FastmachError, match="bad card id 53"):
        card_str(53)


def test_format_sorts_by_suit_then_rank_jokers_last():
    assert format_cards("JK KS 2C 10H AS AH") == "AS KS AH 10H 2C JK"
    assert format_cards("JK KS 2C", sort=False) == "JK KS 2C"
    assert format_cards([]) == ""
    assert format_cards(22) == "10H"


def test_pretty_uses_unicode_suits():
    assert pretty("10h as qd kc jk") == "A♠ 10♥ Q♦ K♣ JK"
    assert pretty(22) == "10♥"
    assert pretty("jk 2s", sort=False) == "JK 2♠"


@given(st.lists(card_ids, max_size=60))
def test_text_round_trip(ids):
    assert parse_cards(format_cards(ids, sort=False)) == ids
    assert parse_cards(pretty(ids, sort=False)) == ids
    assert parse_cards(format_cards(ids)) == sorted(ids)
    assert [parse_card(card_str(c)) for c in ids] == ids


@given(st.lists(card_ids, max_size=60))
def test_counts_round_trip(ids):
    counts = cards_to_counts(ids)
    assert counts.dtype == np.uint8 and counts.shape == (NCARD,)
    assert int(counts.sum()) == len(ids)
    assert counts_to_cards(counts) == sorted(ids)
    assert np.array_equal(cards_to_counts(counts), counts)
    assert np.array_equal(cards_to_counts(format_cards(ids)), counts)


def test_counts_do_not_overflow_uint8():
    big = np.zeros(NCARD, dtype=np.int64)
    big[22] = 256
    with pytest.raises(FastmachError, match="more than 255 copies of 10H"):
        cards_to_counts(big)
    with pytest.raises(FastmachError, match="more than 255 copies of AS"):
        cards_to_counts([0] * 256)


def test_cards_to_counts_copies_a_count_array():
    counts = cards_to_counts("AS AS")
    again = cards_to_counts(counts)
    again[0] = 0
    assert counts[0] == 2


def test_at_most_decks_copies_of_each_card():
    check_copies("8H 8H 8D", decks=2, jokers=0)
    with pytest.raises(FastmachError, match=r"^3 copies of 8H but the deck has 2$"):
        check_copies("8H 8H 8H", decks=2, jokers=0)
    check_copies("8H 8H 8H", decks=3, jokers=0)


def test_check_copies_names_every_offending_card():
    with pytest.raises(FastmachError) as e:
        check_copies(cards_to_counts("AS AS AS KC KC KC 2D"), decks=2, jokers=4)
    assert str(e.value) == "3 copies of AS but the deck has 2; 3 copies of KC but the deck has 2"


def test_no_more_jokers_than_the_rules_have():
    check_copies("JK JK", decks=2, jokers=2)
    with pytest.raises(FastmachError, match=r"^3 jokers but the rules have 2 \(jokers=2\)$"):
        check_copies("JK JK JK", decks=2, jokers=2)
    with pytest.raises(FastmachError, match=r"^1 joker but the rules have 0"):
        check_copies("*", decks=2, jokers=0)


def test_hand_points_cards_one_per_card():
    pts = card_points("cards")
    assert pts.dtype == np.int32 and pts.shape == (NCARD,)
    assert (pts == 1).all()


def test_hand_points_face_ace1():
    pts = card_points("face-ace1")
    assert pts.dtype == np.int32
    for c in range(52):
        rank = c % 13 + 1
        assert pts[c] == (1 if rank == 1 else rank if rank <= 10 else 10)
    assert pts[JOKER] == 25  # our choice: the ace-low text gives no joker value
    assert int(card_points("face-ace1")[parse_card("KD")]) == 10


def test_hand_points_face_ace11():
    pts = card_points("face-ace11")
    assert [int(pts[parse_card(t)]) for t in "AS 2H 9D 10C JS QH KD JK".split()] == [
        11, 2, 9, 10, 10, 10, 10, 25,
    ]
    assert int(pts.sum()) == 4 * (11 + sum(range(2, 11)) + 30) + 25


def test_card_points_returns_a_fresh_array():
    a = card_points("face-ace11")
    a[0] = 99
    assert card_points("face-ace11")[0] == 11


def test_unknown_points_scheme_is_named():
    with pytest.raises(FastmachError, match=r"unknown hand_points scheme 'face'; known: cards, "
                       r"face-ace1, face-ace11"):
        card_points("face")


def test_opening_points_ace1_face_figures10():
    assert OPENING_POINTS.dtype == np.int32 and OPENING_POINTS.shape == (NCARD,)
    hand = parse_cards("AS 2S 3S JH QH KH")
    assert int(OPENING_POINTS[hand].sum()) == 1 + 2 + 3 + 30
    assert OPENING_POINTS[JOKER] == 0  # a joker counts as the card it stands for
    assert not OPENING_POINTS.flags.writeable
