"""fastmach tune on bad input: a range too long to list is refused before anything is built,
and a damaged trials.journal is refused by name before any game, never replayed."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.tools.tune import tune
from fastmach.tools.tune.space import MAX_RANGE

# 2 players, one rung of 2 deals, one finalist on 2 fresh deals: a whole tune in a second
TINY = """
[tune]
name = "tiny"
seed = 1
rules = "classic(match=single)"
players = [2]
lineup = [["expert"]]
deals = 2
eta = 2
rungs = 1
fresh_deals = 2
finalists = 1
[space]
hand_size = "{range}"
[targets]
turns_per_hand = "40 +- 3"
"""


def _space(tmp_path, hand_size: str = "9..10") -> str:
    path = tmp_path / "space.toml"
    path.write_text(TINY.format(range=hand_size), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("hand_size", ["1..99999999999999999999", f"1..{MAX_RANGE + 1}"])
def test_a_range_too_long_to_list_exits_2_naming_it_before_any_game(tmp_path, capsys,
                                                                    hand_size):
    out = tmp_path / "out"
    assert main(["tune", _space(tmp_path, hand_size), "--out", str(out), "--max-games", "40",
                 "-q"]) == 2
    err = capsys.readouterr().err
    assert f"[space] hand_size: range '{hand_size}' holds" in err
    assert f"at most {MAX_RANGE}" in err and "Traceback" not in err
    assert not out.exists()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished tiny tune: its space file and directory (copied by each test)."""
    root = tmp_path_factory.mktemp("tune")
    space = _space(root)
    tune(space, root / "done", max_games=60)
    return space, root / "done"


def _journal_lines(out) -> list[dict]:
    return [json.loads(line) for line in (out / "trials.journal").read_text().splitlines()]


def _write_lines(out, records: list[dict]) -> None:
    (out / "trials.journal").write_text("".join(json.dumps(r) + "\n" for r in records))


def _set_params(value: float):
    def damage(out):
        records = _journal_lines(out)
        for r in records:
            if "param_value_internal" in r:
                r["param_value_internal"] = value
        _write_lines(out, records)
    return damage


def _append(text: str):
    def damage(out):
        with open(out / "trials.journal", "a", encoding="utf-8") as fh:
            fh.write(text)
    return damage


def _cut(out):
    data = (out / "trials.journal").read_bytes()
    (out / "trials.journal").write_bytes(data[:len(data) // 2])


def _other_rules(out):
    records = _journal_lines(out)
    for r in records:
        if "rules" in r.get("user_attr", {}):
            r["user_attr"]["rules"] = "classic(hand_size=5,match=single)"
    _write_lines(out, records)


def _other_rung(out):
    records = _journal_lines(out)
    for r in records:
        if "step" in r:
            r["step"] = 7
    _write_lines(out, records)


@pytest.mark.parametrize("damage, words", [
    (_append("garbage\n"), "is not JSON"),
    (_append("[" * 100_000 + "\n"), "is not JSON"),
    (_cut, "is cut short"),
    (_append('{"op_code": 99}\n'), "op_code 99"),
    (_append('{"op_code": 5}\n'), "Optuna cannot replay it"),
    (_set_params(1e9), "hand_size = 1000000000, outside the space's 9..10"),
    (_other_rules, "names the rules 'classic(hand_size=5,match=single)'"),
    (_other_rung, "reports at [7] deals"),
], ids=["garbage", "deep", "cut", "op_code", "replay", "param", "rules", "rung"])
def test_a_damaged_journal_exits_2_naming_it_before_any_game(finished, tmp_path, capsys,
                                                             damage, words):
    space, done = finished
    out = tmp_path / "t"
    shutil.copytree(done, out)
    shutil.rmtree(out / "search")   # (a game played would show as a store here)
    answer = (out / "answer.txt").read_text()
    damage(out)
    assert main(["tune", space, "--out", str(out), "--max-games", "60", "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'trials.journal'}: " in err and words in err
    assert "delete it to start the search over" in err and "Traceback" not in err
    assert not (out / "search").exists()
    assert (out / "answer.txt").read_text() == answer


def test_a_damaged_journal_deleted_as_told_starts_the_search_over_with_the_same_answer(
        finished, tmp_path):
    space, done = finished
    out = tmp_path / "t"
    shutil.copytree(done, out)
    _set_params(1e9)(out)
    with pytest.raises(FastmachError, match="delete it to start the search over"):
        tune(space, out, max_games=60)
    (out / "trials.journal").unlink()
    tune(space, out, max_games=60)
    assert pd.read_csv(out / "candidates.csv").equals(pd.read_csv(done / "candidates.csv"))
