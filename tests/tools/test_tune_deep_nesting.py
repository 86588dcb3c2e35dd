"""fastmach tune: a search space or a candidate's store manifest nested too deeply for its
parser is refused as malformed TOML or JSON (naming the file), never a RecursionError."""
from __future__ import annotations

import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.tools.tune import load_space
from fastmach.tools.tune import search as search_mod

SPACE = """
[tune]
name = "tiny"
seed = 7
rules = "classic(hand_size=5)"
players = [2]
deals = 4

[space]
failed_penalty = "1..3"

[targets]
hands_per_game = "4 +- 0.5"
"""


def test_a_deeply_nested_space_is_bad_toml_naming_the_file(tmp_path, capsys):
    toml = tmp_path / "deep.toml"
    toml.write_text("[tune]\nname = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(FastmachError, match=r"deep\.toml: bad TOML: .*nested too deeply$"):
        load_space(toml)
    assert main(["tune", str(toml), "--out", str(tmp_path / "t"), "--max-games", "10"]) == 2
    err = capsys.readouterr().err
    assert "deep.toml: bad TOML" in err and "Traceback" not in err


def test_a_candidate_store_with_a_deeply_nested_manifest_is_refused_naming_it(tmp_path):
    space = load_space(SPACE)
    rules = space.study(space.rules, 4).rules[0]
    store = tmp_path / search_mod._hash(rules)
    store.mkdir()
    (store / "_study.json").write_text("[" * 100_000 + "]" * 100_000)
    evaluator = search_mod.Evaluator(space, tmp_path, chunk=4)
    assert evaluator.stored(rules) == 0
    with pytest.raises(FastmachError, match=r"_study\.json: unreadable manifest \(.*nested "
                                            r"too deeply"):
        evaluator(rules, 4)
