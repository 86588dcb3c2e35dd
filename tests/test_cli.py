"""The `fastmach solve` command: readable and JSON output, JSONL batches, exit status 2."""
from __future__ import annotations

import json

import pytest

from fastmach.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_the_melds_of_the_worked_example(capsys):
    code, out, err = run(capsys, "solve", "--rules", "classic", "--table", "5C 6C 7C 8C",
                         "--hand", "8D 8H")
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "placed 2: 8H 8D"
    assert "5C 6C 7C" in out and "8C" in out


def test_solve_json_lists_placed_cards_and_melds(capsys):
    code, out, _ = run(capsys, "solve", "--table", "6C 7C 8C", "--hand", "8D 8H", "--json")
    assert code == 0
    res = json.loads(out)
    assert res == {"placed": [], "melds": [["6C", "7C", "8C"]]}


@pytest.mark.parametrize("argv,needle", [
    (["--table", "5C 6C 7C", "--hand", "8D ZZ"], "'ZZ'"),
    (["--table", "5C 6C 7C", "--hand", "5C 5C"], "3 copies of 5C"),
    (["--table", "6C 7C", "--hand", "8C"], "does not split into valid melds"),
    (["--rules", "clasic", "--hand", "8C"], "unknown rules preset 'clasic'"),
    (["--rules", "classic(jokerz=2)", "--hand", "8C"], "'jokerz'"),
    (["--hand", "JK"], "joker"),
])
def test_bad_input_exits_2_with_a_message_naming_it(capsys, argv, needle):
    code, out, err = run(capsys, "solve", *argv)
    assert code == 2 and out == ""
    assert err.startswith("fastmach: error:") and needle in err


def test_batch_answers_every_line_and_reports_bad_ones(capsys, tmp_path):
    lines = [
        {"id": "a", "rules": "classic", "table": ["5C", "6C", "7C", "8C"], "hand": ["8D", "8H"]},
        "this is not json",
        {"id": "c", "rules": "jokers", "table": [], "hand": ["QS", "KS", "JK"], "objective": "points"},
        {"id": "d", "rules": "nope", "hand": ["8C"]},
        {"id": "e", "hand": ["8C"], "colour": "red"},
    ]
    f = tmp_path / "pos.jsonl"
    f.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    code, out, err = run(capsys, "solve", "--batch", str(f))
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and len(rows) == 5  # some lines failed: exit status 1
    assert rows[0]["id"] == "a" and sorted(rows[0]["placed"]) == ["8D", "8H"]
    assert "error" in rows[1] and "line 2" in rows[1]["error"] and "JSON" in rows[1]["error"]
    assert rows[2]["id"] == "c" and sorted(rows[2]["placed"]) == ["JK", "KS", "QS"]
    assert rows[3]["id"] == "d" and "unknown rules preset 'nope'" in rows[3]["error"]
    assert "colour" in rows[4]["error"]
    assert "3 of 5 position(s) had errors" in err


def test_missing_batch_file_exits_2(capsys, tmp_path):
    code, _, err = run(capsys, "solve", "--batch", str(tmp_path / "absent.jsonl"))
    assert code == 2 and "absent.jsonl" in err


def test_unknown_command_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["frobnicate"])
    assert e.value.code == 2
