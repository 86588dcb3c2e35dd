"""Rules record: every rule parameter (docs/rules.md), presets, validation, canonical strings."""
import dataclasses
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastmach.core.cards import card_points
from fastmach.errors import FastmachError
from fastmach.rules import PARAMETERS, PRESETS, Rules, format_value, parse_value, resolve_rules

ALL_PARAMETERS = (
    "players", "decks", "jokers", "jokers_per_meld", "joker_swap", "hand_size",
    "first_player_by", "ace", "ace_both_ends", "may_draw_when_able", "may_pass_when_able",
    "opening_points", "failed_penalty", "stock_empty", "blocked_when", "blocked_winner", "ties",
    "scoring", "hand_points", "match", "threshold_reached",
)


def test_every_rule_is_a_parameter():
    assert PARAMETERS == ALL_PARAMETERS
    assert [f.name for f in dataclasses.fields(Rules)] == [*ALL_PARAMETERS, "preset"]


def test_all_four_traditions_are_presets():
    assert set(PRESETS) == {"classic", "jokers", "ace-low", "italian"}
    for name, values in PRESETS.items():
        assert tuple(values) == ALL_PARAMETERS, name
        assert Rules.preset(name).params() == values
        assert Rules.preset(name).preset == name
        assert values["players"] == 4


def test_presets_match_traditions():
    c = Rules.preset("classic")  # 104 cards, no jokers, restore + draw 3, 1 point per card
    assert (c.decks, c.jokers, c.deck_size, c.hand_size) == (2, 0, 104, 13)
    assert (c.ace, c.failed_penalty, c.hand_points) == ("low-or-high", 3, "cards")
    assert (c.stock_empty, c.blocked_winner, c.match) == ("play-on", "none", "rotations:1")
    assert c.blocked_when == "round"   # 000: « un tour de table sans ajout termine la donne »
    assert c.may_draw_when_able and c.opening_points == 0

    j = Rules.preset("jokers")  # 108 cards, one joker per meld, race, lowest points wins
    assert (j.deck_size, j.jokers, j.jokers_per_meld, j.joker_swap) == (108, 4, 1, "table")
    assert (j.blocked_winner, j.hand_points, j.match) == ("lowest", "face-ace11", "single")
    assert j.stock_empty == "play-on" and j.may_draw_when_able and j.failed_penalty == 3
    assert j.blocked_when == "nobody-can-play"   # 001: « personne ne peut jouer »

    a = Rules.preset("ace-low")  # ace low only, restore + draw 1, face points, to 100
    assert (a.ace, a.ace_high, a.failed_penalty, a.hand_points) == (
        "low-only", False, 1, "face-ace1")
    assert (a.stock_empty, a.blocked_winner, a.match) == ("ends-hand", "lowest", "threshold:100")
    assert (a.jokers, a.joker_swap, a.deck_size) == (0, "hand", 104)

    i = Rules.preset("italian")  # draw only when unable, jolly unlimited, A11/figures10/jolly25
    assert (i.may_draw_when_able, i.jokers, i.jokers_per_meld) == (False, 0, 0)
    assert (i.ace_high, i.stock_empty, i.hand_points) == (True, "play-on", "face-ace11")
    assert (i.blocked_winner, i.failed_penalty, i.match) == ("lowest", 1, "single")


def test_default_rules_are_classic():
    assert Rules() == Rules.preset("classic")
    assert Rules().params() == PRESETS["classic"]
    assert str(Rules()) == "classic"


def test_rules_are_frozen_and_hashable():
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 3
    assert hash(r) == hash(Rules.preset("classic"))
    assert len({r, Rules.preset("classic"), Rules.preset("jokers")}) == 2
    assert pickle.loads(pickle.dumps(Rules.preset("italian", players=3))) == Rules.preset(
        "italian", players=3)


@pytest.mark.parametrize("players", [1, 9, 0, -2])
def test_players_from_2_to_8(players):
    with pytest.raises(FastmachError, match=r"^rules parameter 'players' must be an integer "
                       rf"2\.\.8, got {players}$"):
        Rules(players=players)


def test_players_edges_are_allowed():
    assert Rules(players=2).players == 2
    assert Rules(players=8, hand_size=12).stock_size == 8
    assert Rules(players=7).stock_size == 13  # 8 x 13 = 104 leaves no stock: refused


@pytest.mark.parametrize(
    "field,value,allowed",
    [
        ("decks", 1, "2 or 3"),
        ("decks", 4, "2 or 3"),
        ("jokers", 5, r"an integer 0\.\.4"),
        ("jokers", -1, r"an integer 0\.\.4"),
        ("jokers_per_meld", 2, r"1 or 'unlimited' \(0\)"),
        ("jokers_per_meld", "two", r"1 or 'unlimited' \(0\)"),
        ("joker_swap", "discard", "one of 'table', 'hand'"),
        ("hand_size", 0, r"an integer >= 1"),
        ("ace", "high", "one of 'low-or-high', 'low-only'"),
        ("may_draw_when_able", 1, "true or false"),
        ("may_draw_when_able", "true", "true or false"),
        ("opening_points", -1, r"an integer 0\.\.1000"),
        ("failed_penalty", -3, r"an integer 0\.\.1000"),
        # (past what the core's counters hold: an OverflowError traceback in the game)
        ("opening_points", 10 ** 20, r"an integer 0\.\.1000"),
        ("failed_penalty", 3_000_000_000, r"an integer 0\.\.1000"),
        ("stock_empty", "reshuffle", "one of 'play-on', 'ends-hand'"),
        ("blocked_winner", "highest", "one of 'none', 'lowest'"),
        ("hand_points", "face", "one of 'cards', 'face-ace1', 'face-ace11'"),
        ("match", "rotations:0", "'single', 'rotations:N' or 'threshold:T'"),
        ("match", "threshold", "'single', 'rotations:N' or 'threshold:T'"),
        ("match", "best-of:3", "'single', 'rotations:N' or 'threshold:T'"),
        ("match", 100, "'single', 'rotations:N' or 'threshold:T'"),
        ("match", "rotations:100001", "'single', 'rotations:N' or 'threshold:T'"),
        ("match", "rotations:4294967297", "'single', 'rotations:N' or 'threshold:T'"),
        ("match", "threshold:100001", "'single', 'rotations:N' or 'threshold:T'"),
        ("match", "threshold:\u0663", "'single', 'rotations:N' or 'threshold:T'"),
        ("players", 3.0, r"an integer 2\.\.8"),
        ("players", True, r"an integer 2\.\.8"),
        ("hand_size", "13", r"an integer >= 1"),
    ],
)
def test_bad_value_names_the_field_and_allowed_values(field, value, allowed):
    with pytest.raises(FastmachError, match=rf"^rules parameter '{field}' must be {allowed}"):
        Rules(**{field: value})


def test_deck_must_hold_all_hands():
    with pytest.raises(FastmachError) as e:
        Rules(players=8, hand_size=14)
    msg = str(e.value)
    assert "players=8" in msg and "hand_size=14" in msg and "112" in msg and "104" in msg
    # the three-deck variant: 15 cards each for 5-6 players
    assert Rules.preset("ace-low", decks=3, players=6, hand_size=15).stock_size == 156 - 90
    # jokers count in the deck
    assert Rules(players=8, hand_size=13, jokers=4).stock_size == 4
    with pytest.raises(FastmachError, match="deck holds 108"):
        Rules(players=6, hand_size=19, jokers=4)


def test_a_match_longer_than_the_engine_plays_is_refused():
    # rotations:N plays N x players hands; the engine stops a match past MAX_MATCH_HANDS
    from fastmach.rules import MAX_MATCH_HANDS, MAX_THRESHOLD
    assert Rules(match=f"rotations:{MAX_MATCH_HANDS // 4}", players=4).match_value == 25_000
    with pytest.raises(FastmachError, match=r"plays 25,000 x 5 players = 125,000 hands"):
        Rules(match=f"rotations:{MAX_MATCH_HANDS // 4}", players=5)
    assert Rules(match=f"threshold:{MAX_THRESHOLD}").match_value == MAX_THRESHOLD
    with pytest.raises(FastmachError, match=r"at most 100,000 hands"):
        Rules.parse("classic(match=rotations:999999999)")


def test_jokers_per_meld_validated_even_without_jokers():
    assert Rules(jokers=0, jokers_per_meld=0).jokers_per_meld == 0
    with pytest.raises(FastmachError, match="'jokers_per_meld'"):
        Rules(jokers=0, jokers_per_meld=3)


def test_jokers_per_meld_unlimited_is_zero():
    assert Rules(jokers_per_meld="unlimited").jokers_per_meld == 0
    assert Rules.parse("classic(jokers_per_meld=unlimited)").jokers_per_meld == 0
    assert str(Rules.preset("classic", jokers_per_meld=0)) == "classic(jokers_per_meld=unlimited)"
    assert str(Rules.preset("italian", jokers_per_meld=1)) == "italian(jokers_per_meld=1)"


def test_numpy_scalars_are_normalised():
    r = Rules(players=np.int64(3), may_draw_when_able=np.bool_(False))
    assert type(r.players) is int and type(r.may_draw_when_able) is bool
    assert r == Rules(players=3, may_draw_when_able=False)


def test_unknown_preset_is_named():
    with pytest.raises(FastmachError, match=r"^unknown rules preset 'poker'; known: classic, "
                       "jokers, ace-low, italian$"):
        Rules.preset("poker")
    with pytest.raises(FastmachError, match="unknown rules preset 'poker'"):
        Rules(preset="poker")
    with pytest.raises(FastmachError,
                       match=r"unknown rules preset 'poker' in 'poker\(players=3\)'"):
        Rules.parse("poker(players=3)")


def test_canonical_string_lists_only_differences_in_field_order():
    r = Rules.preset("classic", ace="low-only", jokers=2)
    assert str(r) == "classic(jokers=2,ace=low-only)"
    assert Rules.preset("classic", jokers=2, ace="low-only").canonical() == (
        "classic(jokers=2,ace=low-only)")
    assert str(Rules.preset("italian", may_draw_when_able=True)) == (
        "italian(may_draw_when_able=true)")
    assert str(Rules.preset("classic", may_draw_when_able=False)) == (
        "classic(may_draw_when_able=false)")
    assert str(Rules.preset("jokers", players=3, match="rotations:2")) == (
        "jokers(players=3,match=rotations:2)")
    for name in PRESETS:
        assert str(Rules.preset(name)) == name


def test_canonical_string_uses_the_preset_built_from():
    r = Rules.preset("jokers", jokers=0)
    assert r.preset == "jokers"
    assert str(r) == "jokers(jokers=0)"
    # same values spelled from classic
    same = Rules.preset("classic", ace_both_ends=False, may_pass_when_able=False,
                        blocked_when="nobody-can-play", blocked_winner="lowest", ties="draw",
                        hand_points="face-ace11", match="single")
    assert same.params() == r.params()
    assert str(same) == ("classic(ace_both_ends=false,may_pass_when_able=false,"
                         "blocked_when=nobody-can-play,blocked_winner=lowest,ties=draw,"
                         "hand_points=face-ace11,match=single)")
    assert same != r  # the preset is part of the record


def test_parse_is_whitespace_and_case_tolerant():
    r = Rules.parse(
        "  Classic ( Players = 3 ,\n jokers=2, ace = LOW-ONLY, match = rotations : 02 ) ")
    assert r == Rules.preset("classic", players=3, jokers=2, ace="low-only", match="rotations:2")
    assert Rules.parse("classic()") == Rules()
    assert Rules.parse("classic(players=3)").players == 3
    assert Rules.parse("ace-low(may_draw_when_able=FALSE)").may_draw_when_able is False


def test_parse_unknown_parameter_lists_known():
    with pytest.raises(FastmachError) as e:
        Rules.parse("classic(jokerz=2)")
    assert str(e.value) == (
        "unknown rules parameter 'jokerz' in 'classic(jokerz=2)'; known: "
        + ", ".join(ALL_PARAMETERS)
    )


def test_parse_refuses_preset_as_a_parameter():
    with pytest.raises(FastmachError, match="'preset' is not a rules parameter"):
        Rules.parse("classic(preset=jokers)")


def test_parse_duplicate_parameter_is_named():
    with pytest.raises(FastmachError, match=r"^duplicate rules parameter 'jokers' in "):
        Rules.parse("classic(jokers=2, jokers=4)")


@pytest.mark.parametrize(
    "text,field,value",
    [
        ("classic(players=nine)", "players", "nine"),
        ("classic(players=9)", "players", "9"),
        ("classic(decks=2.5)", "decks", "2.5"),
        ("classic(jokers_per_meld=many)", "jokers_per_meld", "many"),
        ("classic(may_draw_when_able=yes)", "may_draw_when_able", "yes"),
        ("classic(ace=high)", "ace", "high"),
        ("classic(match=rotations:-1)", "match", "rotations:-1"),
        ("classic(match=)", "match", ""),
        ("classic(hand_size=)", "hand_size", ""),
    ],
)
def test_parse_bad_value_names_value_and_parameter(text, field, value):
    with pytest.raises(FastmachError) as e:
        Rules.parse(text)
    msg = str(e.value)
    assert msg.startswith(f"bad value {value!r} for rules parameter '{field}': expected ")
    assert msg.endswith(f"(in {text!r})")


@pytest.mark.parametrize("text", ["classic(players)", "classic(players=3,,jokers=2)",
                                  "classic(=3)"])
def test_parse_item_without_name_value(text):
    with pytest.raises(FastmachError, match=r"^bad rules parameter .* expected name=value"):
        Rules.parse(text)


@pytest.mark.parametrize("text", ["", "classic(players=3", "classic players=3", "(players=3)"])
def test_parse_malformed_string(text):
    with pytest.raises(FastmachError, match="bad rules string"):
        Rules.parse(text)


def test_parse_cross_field_error_keeps_context():
    with pytest.raises(FastmachError, match=r"deals 120 cards .* \(in 'classic\(players=8,"
                       r"hand_size=15\)'\)$"):
        Rules.parse("classic(players=8,hand_size=15)")


def test_preset_overrides_and_replace_are_revalidated():
    r = Rules.preset("jokers", players=3)
    assert r.players == 3 and r.jokers == 4 and r.preset == "jokers"
    assert r.replace(players=2) == Rules.preset("jokers", players=2)
    assert r.replace(preset="classic").preset == "classic"
    with pytest.raises(FastmachError, match="'players'"):
        r.replace(players=9)
    with pytest.raises(FastmachError, match=r"unknown rules parameter 'jokerz'; known: players"):
        r.replace(jokerz=2)
    with pytest.raises(FastmachError, match=r"unknown rules parameter 'jokerz'; known: players"):
        Rules.preset("classic", jokerz=2)


def test_derived_properties():
    r = Rules.preset("ace-low", jokers=2)
    assert (r.deck_size, r.stock_size, r.ace_high) == (106, 54, False)
    assert (r.match_kind, r.match_value) == ("threshold", 100)
    c = Rules.preset("classic", match="rotations:3")
    assert (c.match_kind, c.match_value, c.ace_high) == ("rotations", 3, True)
    s = Rules.preset("jokers")
    assert (s.match_kind, s.match_value) == ("single", 0)


def test_points_table_follows_hand_points():
    for name in PRESETS:
        r = Rules.preset(name)
        assert np.array_equal(r.points_table(), card_points(r.hand_points))
    assert int(Rules.preset("jokers").points_table()[0]) == 11
    assert int(Rules.preset("ace-low").points_table()[0]) == 1
    assert int(Rules.preset("classic").points_table()[12]) == 1


def test_resolve_rules_accepts_rules_or_text():
    r = Rules.preset("italian", players=3)
    assert resolve_rules(r) is r
    assert resolve_rules("italian(players=3)") == r
    with pytest.raises(FastmachError, match="expected Rules or a rules string"):
        resolve_rules(3)


def test_parse_value_and_format_value_are_inverse():
    assert parse_value("jokers_per_meld", "unlimited") == 0
    assert parse_value("may_draw_when_able", "true") is True
    assert format_value("may_draw_when_able", False) == "false"
    assert format_value("jokers_per_meld", 0) == "unlimited"
    with pytest.raises(FastmachError, match="unknown rules parameter 'x'"):
        parse_value("x", "1")


# -- round trip over the whole parameter space ------------------------------------------

def _value(name):
    if name == "players":
        return st.integers(2, 8)
    if name == "decks":
        return st.sampled_from([2, 3])
    if name == "jokers":
        return st.integers(0, 4)
    if name == "jokers_per_meld":
        return st.sampled_from([0, 1])
    if name == "hand_size":
        return st.integers(1, 19)
    if name in ("opening_points", "failed_penalty"):
        return st.integers(0, 60)
    if name in ("ace_both_ends", "may_draw_when_able", "may_pass_when_able"):
        return st.booleans()
    if name == "match":
        return st.one_of(st.just("single"),
                         st.builds("rotations:{}".format, st.integers(1, 20)),
                         st.builds("threshold:{}".format, st.integers(1, 500)))
    choices = {
        "joker_swap": ["table", "hand"],
        "ace": ["low-or-high", "low-only"],
        "stock_empty": ["play-on", "ends-hand"],
        "blocked_when": ["round", "nobody-can-play"],
        "blocked_winner": ["none", "lowest"],
        "ties": ["shared", "draw"],
        "threshold_reached": ["reach", "exceed"],
        "scoring": ["penalties"],
        "first_player_by": ["left-of-dealer", "cut"],
        "hand_points": ["cards", "face-ace1", "face-ace11"],
    }
    return st.sampled_from(choices[name])


@st.composite
def any_rules(draw):
    name = draw(st.sampled_from(sorted(PRESETS)))
    keys = draw(st.lists(st.sampled_from(ALL_PARAMETERS), unique=True, max_size=8))
    overrides = {k: draw(_value(k)) for k in keys}
    values = {**PRESETS[name], **overrides}
    if values["players"] * values["hand_size"] >= 52 * values["decks"] + values["jokers"]:
        overrides["hand_size"] = (52 * values["decks"] + values["jokers"] - 1) // values["players"]
    return Rules.preset(name, **overrides)


@given(any_rules())
def test_canonical_string_round_trips(r):
    text = str(r)
    assert Rules.parse(text) == r
    assert str(Rules.parse(text)) == text
    assert text == r.preset or text.startswith(r.preset + "(")
    assert " " not in text


@given(any_rules())
def test_canonical_string_names_exactly_the_differences(r):
    base = PRESETS[r.preset]
    text = str(r)
    body = text[:-1].split("(")[1] if "(" in text else ""
    listed = [kv.split("=")[0] for kv in body.split(",")] if body else []
    assert listed == [k for k in ALL_PARAMETERS if getattr(r, k) != base[k]]


@given(any_rules(), st.sampled_from(sorted(PRESETS)))
def test_replace_preset_keeps_parameters(r, other):
    moved = r.replace(preset=other)
    assert moved.params() == r.params()
    assert Rules.parse(str(moved)) == moved


def _other_values(p):
    """Valid values of a TABLE entry other than its default, read from the entry alone."""
    if p.type is bool:
        return [not p.default]
    if p.type is int:
        lo, hi = p.allowed
        top = hi if hi is not None else lo + 3
        return [v for v in (lo, top) if v != p.default]
    if p.check is not None:  # match
        return ["single", "threshold:50"]
    return [v for v in p.allowed if v != p.default]


def test_the_table_drives_fields_defaults_validation_and_strings():
    from fastmach.rules import TABLE

    assert tuple(p.name for p in TABLE) == PARAMETERS
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    for p in TABLE:
        assert fields[p.name].default == p.default == PRESETS["classic"][p.name], p.name
        assert fields[p.name].type in (p.type, p.type.__name__), p.name
        for v in _other_values(p):
            if p.name == "scoring":  # winner-takes needs a single hand
                r = Rules.preset("classic", scoring=v, match="single")
            elif p.name in ("players", "hand_size"):  # the deal must leave a stock
                r = Rules.preset("classic", **{p.name: v, "decks": 3})
            else:
                r = Rules.preset("classic", **{p.name: v})
            assert getattr(r, p.name) == v
            assert f"{p.name}={format_value(p.name, v)}" in str(r), (p.name, v)
            assert Rules.parse(str(r)) == r
        if p.type is int and p.allowed[1] is not None:
            with pytest.raises(FastmachError, match=rf"^rules parameter '{p.name}' must be "):
                Rules(**{p.name: p.allowed[1] + 1})
        if p.type is str and p.check is None:
            with pytest.raises(FastmachError, match="must be one of " + ", ".join(
                    repr(v) for v in p.allowed)):
                Rules(**{p.name: "no-such-value"})


def test_engine_config_reads_every_parameter():
    """Each parameter changed alone changes what the compiled core is given."""
    from fastmach.engine import engine_config
    from fastmach.rules import TABLE

    def flat(cfg):
        return repr({k: (v.tolist() if isinstance(v, np.ndarray) else v)
                     for k, v in cfg.items()})

    base = flat(engine_config(Rules.preset("classic", match="single")))
    for p in TABLE:
        v = _other_values(p)[0]
        extra = {"decks": 3} if p.name in ("players", "hand_size") else {}
        if p.name == "match":
            v = "threshold:50"
        match = "threshold:50" if p.name == "threshold_reached" else "single"  # (read there)
        r = Rules.preset("classic", **{"match": match, **extra, p.name: v})
        if extra or match != "single":
            base_p = flat(engine_config(Rules.preset("classic", match=match, **extra)))
        else:
            base_p = base
        assert flat(engine_config(r)) != base_p, p.name
