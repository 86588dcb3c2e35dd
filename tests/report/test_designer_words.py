"""The designer's page says what a designer would otherwise misread: a change that never comes
into play, which kind of table is the stronger, where the favoured seat moves, averages
against medians, fair shares, deals needed and where the study plays beyond a rule's words."""
from __future__ import annotations

import math

import pandas as pd

from fastmach.report import designer as d


def _hands(rules: str, lineup: str, turns: list[int], winners: list[int],
           players: int = 4, **extra) -> pd.DataFrame:
    n = len(turns)
    return pd.DataFrame({"rules": rules, "players": players, "lineup": lineup,
                         "replicate": range(n), "rotation": 0, "hand": 0, "turns": turns,
                         "winner": winners, "end": "out", **{k: [v] * n for k, v in
                                                             extra.items()}})


def test_a_change_that_never_comes_into_play_is_said_in_plain_words():
    base = [40, 52, 33, 61]
    hands = pd.concat([
        _hands("classic", "strong", base, [0, 1, 2, 3], failed=0),
        _hands("classic(failed_penalty=1)", "strong", base, [0, 1, 2, 3], failed=0),
        _hands("classic", "expert", base, [0, 1, 2, 3], failed=0),
        _hands("classic(failed_penalty=1)", "expert", base, [0, 1, 2, 3], failed=0),
        # same turns, one winner differs: not the same games
        _hands("classic(jokers=2)", "strong", base, [0, 1, 2, 0], failed=0),
        _hands("classic(jokers=2)", "expert", [20, 26, 17, 30], [0, 1, 2, 3], failed=0),
    ], ignore_index=True)
    ks = d.kinds(["strong", "expert"])
    groups = d.same_games(hands, ["strong", "expert"])
    assert groups == {(4, "strong"): [["classic", "classic(failed_penalty=1)"]],
                      (4, "expert"): [["classic", "classic(failed_penalty=1)"]]}
    pairs = [("classic(failed_penalty=1)", "classic"), ("classic(jokers=2)", "classic")]
    words, at = d._same_words(hands, groups, pairs, ks, [4])
    assert words == ["Classic with a 1-card penalty for a failed move plays exactly the same "
                     "games as classic, deal for deal, with good play and greedy play: nobody "
                     "ever fails a move, so the penalty never applies."]
    assert at == {("classic(failed_penalty=1)", "classic", 4, "strong"),
                  ("classic(failed_penalty=1)", "classic", 4, "expert")}
    # where the penalty does apply now and then, only the generic words
    used = hands.copy()
    used.loc[used["rules"] == "classic(failed_penalty=1)", "failed"] = 1
    assert "never comes into play for these players" in d._same_words(
        used, groups, pairs, ks, [4])[0][0]


def test_two_rule_sets_with_the_same_games_play_alike_and_a_sentence_says_so_per_kind():
    t = [30, 44, 51]
    hands = pd.concat([_hands(r, "expert", t, [0, 1, 2], players=3)
                       for r in ("italian", "italian(may_draw_when_able=true)",
                                 "jokers(jokers=0)")], ignore_index=True)
    hands["draws_when_able_0"] = 0
    ks = d.kinds(["strong", "expert"])
    pairs = [("italian(may_draw_when_able=true)", "italian"), ("jokers(jokers=0)", "jokers")]
    words, at = d._same_words(hands, d.same_games(hands, ["expert"]), pairs, ks, [3])
    assert words[0].startswith("Italian with drawing allowed when able to play plays exactly "
                               "the same games as italian, deal for deal, with greedy play: "
                               "nobody draws while able to play")
    assert words[1] == ("Italian, italian with drawing allowed when able to play and jokers "
                        "with no jokers play alike: the same games, deal for deal, with "
                        "greedy play.")
    # the rule-change sentence says it for the kind of table where the games are the same
    e = pd.DataFrame([
        {"variant": "italian(may_draw_when_able=true)", "baseline": "italian", "players": 3,
         "lineup": lu, "metric": "turns_per_hand", "diff": dd, "baseline_value": 40.0,
         "variant_value": 40.0 + dd, "lo_adjusted": lo, "hi_adjusted": hi, "named": nm}
        for lu, dd, lo, hi, nm in (("strong", 20.0, 10.0, 30.0, 1),
                                   ("expert", 0.0, -1.0, 1.0, 0))])
    (eff,) = d._effects(e, ks, at, 60)
    assert "with greedy play the same games, deal for deal." in eff.text
    assert "on average 40 -> 60 turns" in eff.text


def test_the_kinds_of_table_say_which_is_the_stronger():
    good, greedy = d.kinds(["expert,beginner", "expert", "strong"])
    assert good.heading == "Good play (trained players)" and good.tag == "good"
    assert greedy.heading.startswith("Greedy play (experts") and greedy.tag == "greedy"
    assert "expert" not in greedy.tag and greedy.lineup == "expert"  # the strategy's name
    assert good.label == "Good play (trained)" and greedy.label == "Greedy play (experts)"


def _cell(seat: str, named: tuple[int, ...]) -> d.Cell:
    return d.Cell("", None, "", "", seat, bool(named), math.nan, named)


def test_a_favoured_seat_that_moves_is_said_by_seat():
    cells = {("classic", 4, "strong"): _cell("seat 4 wins 37% (fair 24%)", (3, 4)),
             ("classic(jokers=2)", 4, "strong"): _cell("seat 2 wins 67% (fair 25%)", (2,)),
             ("classic(ace=low-only)", 4, "strong"): _cell("seat 4 wins 37%", (3, 4)),
             ("classic", 4, "expert"): _cell("none found", ()),
             ("classic(jokers=2)", 4, "expert"): _cell("none found", ())}
    ks = d.kinds(["strong", "expert"])
    moves = d._seat_moves(cells, [("classic(jokers=2)", "classic"),
                                  ("classic(ace=low-only)", "classic")], ks, [4])
    assert moves == {4: ["with good play, classic: seat 4 wins 37% (fair 24%); classic with "
                         "2 jokers: seat 2 wins 67% (fair 25%)"]}


def test_numbers_a_designer_reads_without_help():
    assert d._times(2.0, 60) == "about 120 deals per rule set"
    assert d._times(22.3, 60) == "about 1400 deals per rule set"
    assert d._fair(0.25, 4) == "fair 25%"
    assert d._fair(0.24, 4) == "fair here 24%"  # the page says why, once per table
    ceiling = pd.DataFrame({"rules": ["jokers"], "players": [4], "strategy": ["strong"],
                            "win_share": [0.825], "deals": [10]})
    hands = pd.DataFrame({"rules": ["jokers"], "players": [4], "lineup": ["expert"]})
    assert d._skill(hands, ceiling)[("jokers", 4)] == "1 strong vs 3 experts: 82% (10 deals)"


def test_effects_that_depend_on_the_player_count_are_named():
    def eff(v, p, size, found, metric="turns_per_hand"):
        return d.Effect(v, v.split("(")[0], p, metric, "", size, found)

    effects = [eff("classic(jokers=2)", 2, 0.15, True), eff("classic(jokers=2)", 5, 0.5, True),
               eff("ace-low(opening_points=36)", 5, 0.8, True, "stock_out_per_hand"),
               eff("ace-low(opening_points=36)", 4, 0.0, False, "stock_out_per_hand"),
               eff("italian(jokers=2)", 2, 0.4, True), eff("italian(jokers=2)", 5, 0.5, True)]
    said = d._by_count(effects, [2, 5])
    assert said == ["ace-low with a 36-point opening: how often the stock runs out at 5 "
                    "players only",
                    "classic with 2 jokers: hand length about 15% at 2 players but 50% at 5"]


def test_a_rule_set_played_beyond_its_words_says_so():
    games = pd.DataFrame({"rules": ["jokers"] * 2 + ["ace-low"] * 2
                          + ["ace-low(decks=3,hand_size=15)"] * 2,
                          "players": [4, 5, 4, 5, 4, 5], "decks": [2, 2, 2, 2, 3, 3],
                          "hand_size": [13, 13, 13, 13, 15, 15]})
    assert d._played_note("jokers", games) == "also played at 5 players"
    assert d._played_note("ace-low", games) == "2 decks and 13 cards at 5 players"
    assert d._played_note("ace-low(decks=3,hand_size=15)", games) == \
        "3 decks and 15 cards at 4 players"
