"""`fastmach solve --batch FILE.csv`: a header that names a column twice is refused naming
the column (pandas would read the second as ``NAME.1`` and leave its positions unsolved)."""
from __future__ import annotations

import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.solver.batch import solve_file


@pytest.mark.parametrize("text, named", [
    ("hand,hand\nAS,2S\n", "'hand'"),
    ("\ufeffhand,hand\nAS,2S\n", "'hand'"),                    # (a BOM pandas drops)
    ("\nhand,table,hand,table\nAS,,2S,\n", "'hand', 'table'"),  # (after a blank line)
])
def test_a_header_naming_a_column_twice_is_refused_naming_it(tmp_path, text, named):
    f = tmp_path / "pos.csv"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(FastmachError, match=rf"pos\.csv'.*: the header names column\(s\) "
                                            rf"{named} more than once"):
        solve_file(str(f), None)


def test_the_command_exits_2_and_answers_nothing(tmp_path, capsys):
    f = tmp_path / "pos.csv"
    f.write_text("hand,hand\nAS,2S\n")
    assert main(["solve", "--batch", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "'hand' more than once" in err


def test_a_header_after_a_blank_line_is_read_as_pandas_reads_it(tmp_path, capsys):
    f = tmp_path / "pos.csv"
    f.write_text("\nhand\n8C\n")
    assert main(["solve", "--batch", str(f)]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("hand,placed")


def test_unnamed_columns_are_not_repeated_names(tmp_path, capsys):
    f = tmp_path / "pos.csv"
    f.write_text("hand,,\n8C,,\n")
    assert main(["solve", "--batch", str(f)]) == 0
