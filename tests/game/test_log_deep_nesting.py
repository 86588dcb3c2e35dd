"""A log line nested too deeply for the JSON parser is refused as any line that is not
JSON: a FastmachError naming the file and the line (exit 2), not a RecursionError."""
from __future__ import annotations

import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.game.log_reader import log_records

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def deep_log(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('\n{"type": "header", "hands": ' + DEEP + "}\n")   # (on line 2)
    return path


def test_a_deeply_nested_line_is_not_json_naming_the_file_and_line(deep_log):
    with pytest.raises(FastmachError, match=r"^deep\.jsonl line 2: not JSON \(.*nested too "
                                            r"deeply\)$"):
        list(log_records(deep_log))


@pytest.mark.parametrize("command", [["replay", "-q", "--workers", "1"], ["view"]])
def test_replay_and_view_exit_2_on_a_deeply_nested_line(deep_log, tmp_path, capsys, command):
    args = [*command, str(deep_log)] + (["--out", str(tmp_path / "d.html")]
                                        if command == ["view"] else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "deep.jsonl line 2: not JSON" in err and "Traceback" not in err
    assert not (tmp_path / "d.html").exists()
