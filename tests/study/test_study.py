"""Study definitions: TOML -> validated grid of cells; every refusal names the line or key.

No game is played here (see test_sweep.py for execution).
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest

from fastmach.errors import FastmachError
from fastmach.rules import PARAMETERS, Rules
from fastmach.study import Study, rotations_of, seating, split_lineup

GOOD = """\
[study]
name = "ace-rule"
seed = 20261129
games = 2000          # per cell

[grid]
rules = ["classic", "classic(ace=low-only)"]
players = [2, 3, 4, 5]
lineup = [["expert"], ["expert", "expert(error=0.2)"]]
rotate = true
failed_penalty = [1, 3]
"""


def study_text(grid_extra: str = "", study_extra: str = "", *, rules='["classic"]',
               lineup='[["expert"]]', players="[2]") -> str:
    return (f'[study]\nname = "t"\nseed = 1\ngames = 10\n{study_extra}\n'
            f'[grid]\nrules = {rules}\nplayers = {players}\nlineup = {lineup}\n{grid_extra}')


def refused(text: str) -> str:
    with pytest.raises(FastmachError) as e:
        Study.from_toml(text)
    return str(e.value)


# ----------------------------------------------------------------------------- the grid

def test_cells_are_the_cartesian_product_in_canonical_order():
    s = Study.from_toml(GOOD)
    assert len(s.cells) == 2 * 4 * 2 * 2
    expected = list(itertools.product(
        ["classic", "classic(ace=low-only)"], [2, 3, 4, 5],
        [("expert",), ("expert", "expert(error=0.2)")], [1, 3]))
    got = [(str(c.rules.replace(players=4, failed_penalty=3)), c.players, c.lineup,
            c.rules.failed_penalty) for c in s.cells]
    assert got == expected
    assert [c.index for c in s.cells] == list(range(len(s.cells)))


def test_axis_applies_on_top_of_each_rules_entry():
    s = Study.from_toml(study_text("failed_penalty = [1, 3]\n",
                                   rules='["classic", "ace-low"]'))
    rules = [c.rules for c in s.cells]
    assert rules == [Rules.parse("classic").replace(players=2, failed_penalty=1),
                     Rules.parse("classic").replace(players=2, failed_penalty=3),
                     Rules.parse("ace-low").replace(players=2, failed_penalty=1),
                     Rules.parse("ace-low").replace(players=2, failed_penalty=3)]


def test_cell_string_is_canonical_rules_without_players():
    s = Study.from_toml(study_text("rotate = true\nace = [\"low-only\"]\n",
                                   rules='["classic( failed_penalty = 1 )"]', players="[3]",
                                   lineup='[["expert", "expert( error = 0.25 )"]]'))
    (c,) = s.cells
    assert c.key == ("classic(ace=low-only,failed_penalty=1)|players=3"
                     "|lineup=expert,expert(error=0.25)|rotate=true")
    assert c.rules_text == "classic(ace=low-only,failed_penalty=1)"
    assert c.preset == "classic" and c.players == 3
    cols = c.columns()
    assert cols["cell"] == c.key and cols["lineup"] == "expert,expert(error=0.25)"
    assert all(p in cols for p in PARAMETERS)  # every Rules parameter is a column
    assert cols["ace"] == "low-only" and cols["failed_penalty"] == 1
    assert split_lineup(cols["lineup"]) == list(c.lineup)
    assert len(c.hash) == 12 and c.hash != Study.from_toml(study_text()).cells[0].hash


def test_players_default_to_each_rules_entry():
    s = Study.from_toml('[study]\nname="t"\nseed=1\ngames=1\n[grid]\n'
                        'rules=["classic(players=3)", "jokers"]\nlineup=[["expert"]]\n')
    assert [c.players for c in s.cells] == [3, 4]
    assert [c.rules_text for c in s.cells] == ["classic", "jokers"]


def test_canonical_toml_round_trips_and_games_override():
    s = Study.from_toml(GOOD)
    assert Study.from_toml(s.to_toml()) == s
    assert s.chunk == 200 and s.games == 2000
    t = Study.from_toml(GOOD, games=7)
    assert t.games == 7 and t.cells == s.cells and t.to_toml() != s.to_toml()


def test_from_toml_reads_a_path(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(GOOD)
    assert Study.from_toml(p) == Study.from_toml(str(p)) == Study.from_toml(GOOD)


def test_python_constructor_validates_like_toml():
    s = Study(name="nb", seed=3, games=5, rules=["jokers"], players=[2, 3],
              lineup=[["expert"]], axes={"ace": ["low-only", "low-or-high"]})
    assert len(s.cells) == 4 and s.axes == (("ace", ("low-only", "low-or-high")),)
    with pytest.raises(FastmachError, match=r"\[grid\] players"):
        Study(name="nb", seed=3, games=5, players=[1])
    with pytest.raises(FastmachError, match=r"\[grid\] jokerz"):
        Study(name="nb", seed=3, games=5, axes={"jokerz": [2]})
    assert s.replace(games=9).games == 9


# ----------------------------------------------------------------------------- rotation

@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("lineup", [["a"], ["a", "b"], ["a", "b", "c"], ["a", "a", "b"],
                                    ["a", "b", "c", "d", "e"]])
def test_rotation_seats_every_strategy_in_every_seat_equally_often(players, lineup):
    if len(lineup) > players:
        return
    rots = rotations_of(lineup, players, True)
    base = seating(lineup, players)
    share = Counter(base)
    for seat in range(players):
        sat = Counter(seating(lineup, players, k)[seat] for k in rots)
        # each strategy sits in each seat in proportion to its share of the seats
        assert {s: n * players for s, n in sat.items()} == {s: n * len(rots)
                                                           for s, n in share.items()}
    seatings = [tuple(seating(lineup, players, k)) for k in rots]
    assert len(set(seatings)) == len(seatings)  # no seating is played twice
    assert rotations_of(lineup, players, False) == (0,)


def test_rotation_period_examples():
    assert rotations_of(["expert"], 4, True) == (0,)
    assert rotations_of(["a", "b"], 4, True) == (0, 1)
    assert rotations_of(["a", "b"], 3, True) == (0, 1, 2)
    assert seating(["a", "b"], 3, 1) == ["b", "a", "a"]
    s = Study.from_toml(GOOD)
    assert s.total_games == sum(2000 * len(c.rotations) for c in s.cells)


# ----------------------------------------------------------------------------- refusals

def test_unknown_grid_key_names_line_and_key():
    msg = refused(study_text("rotate = true\nfailed_penalti = [1]\n"))
    assert "line 11" in msg and "failed_penalti" in msg and "failed_penalty" in msg


def test_unknown_study_key_names_line_and_key():
    msg = refused(study_text(study_extra="workers = 4"))
    assert "line 5" in msg and "[study] workers" in msg


def test_unknown_table_is_refused():
    msg = refused(study_text() + "\n[grids]\nplayers = [2]\n")
    assert "[grids]" in msg and "line 11" in msg


def test_players_outside_2_to_8_is_refused():  # players outside 2..8
    msg = refused(study_text(players="[2, 9]"))
    assert "line 8" in msg and "players" in msg and "9" in msg


def test_more_cards_dealt_than_the_deck_holds_is_refused():  # docs/rules.md "The deal"
    msg = refused(study_text("hand_size = [12, 14]\n", players="[8]"))
    assert "line" in msg and "hand_size=14" in msg and "deck holds 104" in msg


def test_bad_parameter_value_names_the_parameter():
    msg = refused(study_text("ace = [\"high\"]\n"))
    assert "line 10" in msg and "[grid] ace" in msg and "'ace'" in msg


def test_unknown_preset_and_strategy_are_refused():
    assert "line 7" in refused(study_text(rules='["clasic"]'))
    msg = refused(study_text(lineup='[["expert", "novice"]]'))
    assert "line 9" in msg and "novice" in msg


def test_empty_grid_is_refused():
    assert "line 7" in refused(study_text(rules="[]"))
    assert "[grid] lineup" in refused(study_text(lineup="[]"))
    assert "[grid] players" in refused(study_text(players="[]"))
    assert "[grid] failed_penalty" in refused(study_text("failed_penalty = []\n"))
    assert "missing" in refused('[study]\nname="t"\nseed=1\ngames=1\n')


def test_bad_toml_names_the_line():
    msg = refused('[study]\nname = "t"\nseed = 1\ngames = \n[grid]\n')
    assert "bad TOML" in msg and "line 4" in msg


def test_flat_lineup_and_oversized_lineup_are_refused():
    assert "list of line-ups" in refused(study_text(lineup='["expert", "expert"]'))
    msg = refused(study_text(lineup='[["expert", "expert", "expert"]]'))
    assert "more strategies than players=2" in msg


def test_duplicate_cells_are_refused():
    msg = refused(study_text("failed_penalty = [1]\n",
                             rules='["classic", "classic(failed_penalty=1)"]'))
    assert "same cell" in msg


def test_study_scalars_are_checked():
    assert "[study] games" in refused(study_text().replace("games = 10", "games = 0"))
    assert "[study] seed" in refused(study_text().replace("seed = 1", "seed = -1"))
    assert "[study] name" in refused(study_text().replace('"t"', '"a b"'))
    assert "[study] chunk" in refused(study_text(study_extra="chunk = 0"))
    assert "[grid] rotate" in refused(study_text('rotate = "yes"\n'))


def test_errors_name_the_file(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(study_text(players="[1]"))
    with pytest.raises(FastmachError, match=r"bad\.toml line 8: \[grid\] players"):
        Study.from_toml(p)
    with pytest.raises(FastmachError, match="cannot read study file"):
        Study.from_toml(tmp_path / "missing.toml")


def test_study_is_frozen():
    s = Study.from_toml(GOOD)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.games = 3  # type: ignore[misc]
