"""`fastmach solve --batch`: a JSONL line nested too deeply for the JSON parser is a
malformed line (its row's error, exit 1), not a RecursionError; the other lines are solved."""
from __future__ import annotations

import json

from fastmach.cli import main

DEEP = "[" * 100_000 + "]" * 100_000


def test_a_deeply_nested_line_is_malformed_json_and_the_others_are_solved(tmp_path, capsys):
    f = tmp_path / "pos.jsonl"
    f.write_text('{"hand": ["8C"]}\n' + DEEP + '\n{"hand": ' + DEEP + "}\n")
    assert main(["solve", "--batch", str(f)]) == 1
    out, err = capsys.readouterr()
    rows = [json.loads(x) for x in out.splitlines()]
    assert "placed" in rows[0]
    for no, row in ((2, rows[1]), (3, rows[2])):
        assert row["error"].startswith(f"line {no}: malformed JSON (")
        assert "nested too deeply" in row["error"]
    assert "3 position(s), 1 solved, 2 failed" in err and "Traceback" not in err
