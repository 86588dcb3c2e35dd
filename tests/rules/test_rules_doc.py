"""The rules live in the repo (clause 8): docs/rules.md documents every parameter and value
with its source clause, and ``fastmach rules PRESET`` prints a preset with it."""
from __future__ import annotations

from pathlib import Path

import pytest

from fastmach.cli import main
from fastmach.rules import PARAMETERS, PRESETS, TABLE, Rules, format_value
from fastmach.rules.doc import PARAMS, SOURCES, describe, markdown

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules.md"


def test_clause8_every_parameter_is_documented_for_every_preset():
    assert list(PARAMS) == list(PARAMETERS) == [p.name for p in TABLE]
    for name, p in PARAMS.items():
        assert p.summary and set(p.sources) == set(PRESETS), name
        for preset, (original, note) in p.sources.items():
            assert note, (name, preset)  # a translation, or the choice where it is silent
        if p.type is str and p.check is None:
            assert set(p.values) == set(p.allowed), name
    assert set(SOURCES) == set(PRESETS)


def test_clause8_docs_rules_md_holds_the_generated_parameter_reference():
    text = DOC.read_text(encoding="utf-8")
    assert markdown() in text  # regenerate with: python -m fastmach rules --markdown
    for name in PARAMETERS:
        assert f"### `{name}`" in text
    for phrase in ("14 cards", "jokers only", "100,000 turns", "stands for",
                   "Ties of a blocked or stock-out hand"):
        assert phrase in text, phrase


def test_clause8_readme_and_docstrings_point_to_docs_rules_md():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/rules.md" in readme and "RULES.md" not in readme
    for path in (ROOT / "fastmach").glob("*.py"):
        assert "RULES.md" not in path.read_text(encoding="utf-8"), path.name
    import fastmach.rules

    assert "docs/rules.md" in fastmach.rules.__doc__ and "docs/rules.md" in Rules.__doc__


@pytest.mark.parametrize("preset", list(PRESETS))
def test_clause8_rules_command_prints_each_parameter_with_its_source(preset, capsys):
    assert main(["rules", preset]) == 0
    out = capsys.readouterr().out
    assert out == describe(preset)
    rules = Rules.preset(preset)
    key = SOURCES[preset][0]
    for name in PARAMETERS:
        assert f"\n{name} = {format_value(name, getattr(rules, name))}\n" in out
    lines = out.splitlines()
    assert sum(x.startswith(f"    {key}: \"") or x.startswith(f"    {key} is silent")
               for x in lines) == len(PARAMETERS)  # one clause or choice per parameter
    assert "docs/rules.md" in out.splitlines()[0]


def test_clause8_rules_command_refuses_an_unknown_preset(capsys):
    assert main(["rules", "poker"]) == 2
    assert "unknown rules preset 'poker'" in capsys.readouterr().err
    assert main(["rules"]) == 2
    assert "give a preset" in capsys.readouterr().err


def test_rules_command_prints_a_rules_string_as_its_preset_with_the_changed_values(capsys):
    assert main(["rules", "classic(jokers=2, players=6)"]) == 0
    out = capsys.readouterr().out
    assert out == describe("classic(jokers=2,players=6)") == describe(
        Rules.parse("classic(players=6,jokers=2)"))
    lines = out.splitlines()
    assert lines[0].startswith("classic(players=6,jokers=2): classic with players, jokers "
                               "changed; classic's source 000")
    assert "players=6 is outside the 2-5 players" in lines[1]
    assert "\njokers = 2 (changed; classic: 0)\n" in out
    assert "\nplayers = 6 (changed; classic: 4)\n" in out
    assert "\ndecks = 2\n" in out   # unchanged values as the preset prints them
    # the clauses are the preset's, one per parameter; a string equal to a preset is it
    assert sum(x.startswith("    000") for x in lines) == len(PARAMETERS)
    assert describe("Classic(players=4) ") == describe("classic")
    assert main(["rules", "classic(jokerz=2)"]) == 2
    assert "unknown rules parameter 'jokerz'" in capsys.readouterr().err
