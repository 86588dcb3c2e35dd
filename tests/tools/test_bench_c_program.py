"""fastmach bench solver's C program column: a C program that fails is one error naming its
exit status (or signal) and the last lines of its stderr, never a traceback, and never the
temporary file of positions, removed by then."""
from __future__ import annotations

import stat

import pytest

from fastmach.errors import FastmachError
from fastmach.tools.bench import bench_solver_api


def _program(tmp_path, body: str) -> str:
    path = tmp_path / "rummy_dp"
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_c_program_that_fails_names_its_status_and_its_stderr(tmp_path):
    lines = "".join(f'echo "line {i} of $2" >&2\n' for i in range(8))
    program = _program(tmp_path, lines + "exit 3\n")
    with pytest.raises(FastmachError) as e:
        bench_solver_api(games=1, c_program=program, repeats=1)
    text = str(e.value)
    assert text.startswith(f"{program} bench POSITIONS 1")
    assert "exited with status 3; its stderr ends:" in text
    assert "line 7 of POSITIONS" in text and "line 2 of" not in text   # the last lines only
    assert "fastmach-positions-" not in text


def test_a_c_program_that_fails_silently_or_is_killed_says_so(tmp_path):
    with pytest.raises(FastmachError, match=r"exited with status 1 \(nothing on its stderr\)"):
        bench_solver_api(games=1, c_program="/bin/false", repeats=1)
    with pytest.raises(FastmachError, match=r"was killed by SIGKILL"):
        bench_solver_api(games=1, c_program=_program(tmp_path, "kill -9 $$\n"), repeats=1)
