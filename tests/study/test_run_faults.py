"""Bad input and failed runs end in a message and a status (2: bad input, 1: a failed run),
and nothing is misread, overwritten or lost: batch files, output paths, result directories,
bots that exit, growing studies and their logs."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.study import Study
from fastmach.study.plan import MANIFEST
from fastmach.study.driver import execute, run_study
from fastmach.study.logs import log_path
from fastmach.study.results import read_results

STUDY = """\
[study]
name = "runs"
seed = 11
games = 4
chunk = 2

[grid]
rules = ["ace-low(match=single)"]
players = [2]
lineup = [["expert"]]
"""

EXITING_BOT = """\
import sys


class Quits:
    def act(self, obs):
        sys.exit(3)
"""


@pytest.fixture
def study(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY)
    return toml, Study.from_toml(toml)


def test_a_csv_row_with_an_extra_field_is_refused_naming_the_line(tmp_path, capsys):
    batch = tmp_path / "s.csv"
    batch.write_text("hand\nAS,KS QS\n")
    assert main(["solve", "--batch", str(batch)]) == 2
    err = capsys.readouterr().err
    assert "line 2: 2 fields, the header has 1" in err and "Traceback" not in err


def test_a_jsonl_id_beyond_a_json_number_is_a_row_error_not_infinity(tmp_path, capsys):
    batch = tmp_path / "s.jsonl"
    batch.write_text('{"id": 1e400, "hand": "AS"}\n{"id": 2, "hand": "AS"}\n')
    assert main(["solve", "--batch", str(batch)]) == 1
    lines = capsys.readouterr().out.splitlines()
    answers = [json.loads(line) for line in lines]  # strict JSON: no Infinity
    assert "Infinity" not in "".join(lines)
    assert "id overflows a JSON number" in answers[0]["error"] and answers[1]["id"] == 2


@pytest.mark.parametrize("where", ["a directory as the file", "under a file"])
def test_solve_batch_out_is_probed_before_the_work(tmp_path, capsys, monkeypatch, where):
    import fastmach.solver.batch as batch_mod
    batch = tmp_path / "s.jsonl"
    batch.write_text('{"hand": "AS"}\n')
    if where == "a directory as the file":
        out = tmp_path / "a.jsonl"
        out.mkdir()
    else:
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "a.jsonl"
    monkeypatch.setattr(batch_mod, "_solve_rows", lambda *a: pytest.fail("solved first"))
    assert main(["solve", "--batch", str(batch), "--out", str(out)]) == 2
    assert "--out" in capsys.readouterr().err


def test_solve_batch_out_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    batch = tmp_path / "s.csv"
    batch.write_text("hand\nAS\n2S\n")
    out = tmp_path / "a.csv"
    out.write_text("old answers\n")

    def broken(frame_self, path, **kw):
        Path(path).write_text("hand,placed\nAS,")  # half a file, then the disk fails
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    assert main(["solve", "--batch", str(batch), "--out", str(out)]) == 1
    assert out.read_text() == "old answers\n"  # the old file, whole
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_play_refuses_a_log_that_is_the_hands_file(tmp_path, capsys):
    h = tmp_path / "h.parquet"
    assert main(["play", "--rules", "ace-low(match=single)", "--players", "2", "--strategies",
                 "expert", "--games", "2", "--out", str(tmp_path / "t.parquet"), "--hands",
                 str(h), "--log", str(h)]) == 2
    assert "is the --hands file" in capsys.readouterr().err
    assert not h.exists()


def test_a_manifest_without_chunk_records_refuses_another_studys_chunks(study, tmp_path):
    toml, st = study
    mine, other = tmp_path / "mine", tmp_path / "other"
    run_study(st, mine, workers=0, progress=False)
    run_study(st.replace(seed=12), other, workers=0, progress=False)
    for d in (mine, other):  # results written before checksums: no records
        m = json.loads((d / MANIFEST).read_text())
        del m["chunks"]
        (d / MANIFEST).write_text(json.dumps(m))
    for sub in ("chunks", "_hands"):  # another study's chunks under this manifest
        shutil.rmtree(mine / sub)
        shutil.copytree(other / sub, mine / sub)
    with pytest.raises(FastmachError, match="root seed 12"):
        read_results(mine)
    with pytest.raises(FastmachError, match="a chunk of another study"):
        execute(st, mine, workers=0, progress=False)


def test_a_directory_in_place_of_a_chunk_file_is_named_on_resume(study, tmp_path, capsys):
    toml, st = study
    out = tmp_path / "out"
    run_study(st, out, workers=0, progress=False)
    victim = sorted((out / "chunks").glob("*.parquet"))[0]
    victim.unlink()
    victim.mkdir()
    assert main(["sweep", str(toml), "--out", str(out), "--workers", "0", "-q"]) == 2
    err = capsys.readouterr().err
    assert "a directory where a chunk file belongs" in err and victim.name in err
    assert victim.is_dir()  # nothing removed


def test_raising_log_games_on_a_finished_study_writes_the_longer_logs(study, tmp_path):
    toml, st = study
    out = tmp_path / "out"
    execute(st.replace(log_games=2), out, workers=0, progress=False)
    path = log_path(st, out, 0, 0)
    closing = lambda: json.loads(path.read_text().splitlines()[-1])  # noqa: E731
    assert closing()["games"] == 2
    execute(st.replace(log_games=4), out, workers=0, progress=False)
    assert closing() == {"type": "close", "games": 4}


def test_a_bot_calling_sys_exit_is_a_failed_run_not_a_silent_exit(tmp_path, capsys,
                                                                   monkeypatch):
    (tmp_path / "quitting.py").write_text(EXITING_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["play", "--rules", "ace-low(match=single)", "--players", "2", "--strategies",
                 "quitting:Quits,expert", "--games", "2", "--out",
                 str(tmp_path / "t.parquet")]) == 1
    assert "sys.exit(3)" in capsys.readouterr().err
    assert not (tmp_path / "t.parquet").exists()
    toml = tmp_path / "q.toml"
    toml.write_text(STUDY.replace('[["expert"]]', '[["quitting:Quits", "expert"]]'))
    assert main(["sweep", str(toml), "--out", str(tmp_path / "out"), "--workers", "0", "-q",
                 "--retries", "0"]) == 1
    err = capsys.readouterr().err
    assert "sys.exit(3)" in err and "root seed 11" in err


def test_the_precision_summary_counts_every_round(tmp_path):
    from fastmach.study.precision import execute_to_precision
    toml = tmp_path / "p.toml"
    toml.write_text(STUDY.replace("games = 4", "games = 4\nmax_games = 8\nprecision = "
                                  "{ turns_per_hand = 0.0001 }"))
    st = Study.from_toml(toml)
    s = execute_to_precision(st, tmp_path / "out", workers=0, progress=False)
    assert s["rounds"] == 3 and s["played"] == 8 and s["resumed_chunks"] == 0
    assert s["games_per_s"] == pytest.approx(s["played"] / s["wall"])
    again = execute_to_precision(st, tmp_path / "out", workers=0, progress=False)
    assert again["played"] == 0 and again["resumed_chunks"] == 4


FAULTY_BOTS = """\
class Raises:
    def act(self, obs):
        raise ValueError("boom")


class NeedsArgs:
    def __init__(self, x):
        self.x = x

    def act(self, obs):
        raise AssertionError("never made")
"""


@pytest.mark.parametrize("bot,status,message", [
    ("faulty:Raises", 1, "bot 'faulty:Raises' at seat 0, hand 0, turn 1: act() raised "
                         "ValueError: boom"),
    ("faulty:NeedsArgs", 2, "bot 'faulty:NeedsArgs': missing required parameter 'x'"),
])
def test_a_failing_bot_in_play_is_named_with_its_seat_hand_and_turn(tmp_path, capsys,
                                                                     monkeypatch, bot,
                                                                     status, message):
    (tmp_path / "faulty.py").write_text(FAULTY_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["play", "--rules", "ace-low(match=single)", "--players", "2", "--strategies",
                 f"{bot},expert", "--games", "2", "--out", str(tmp_path / "t.parquet")]) == status
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_study_errors_name_python_arguments_and_the_cli_names_its_flags(study, tmp_path,
                                                                        capsys):
    toml, st = study
    with pytest.raises(FastmachError, match=r"^workers=-1: must be an integer >= 0"):
        execute(st, tmp_path / "out", workers=-1, progress=False)
    with pytest.raises(FastmachError, match=r"^scheduler='host:1': expected 'local'"):
        execute(st, tmp_path / "out", scheduler="host:1", progress=False)
    assert main(["sweep", str(toml), "--out", str(tmp_path / "o"), "--workers", "-1"]) == 2
    assert "--workers -1: must be an integer >= 0" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    with pytest.raises(FastmachError, match=r"^out='.*file' is a file"):
        execute(st, tmp_path / "file", workers=0, progress=False)
    assert main(["sweep", str(toml), "--out", str(tmp_path / "file"), "--workers", "0"]) == 2
    assert "--out '" in capsys.readouterr().err


def test_a_worker_count_past_what_the_machine_runs_is_refused_before_any_work(study, tmp_path,
                                                                           capsys):
    from fastmach.study.backends import max_local_workers
    toml, st = study
    cap = max_local_workers()
    with pytest.raises(FastmachError, match=rf"^workers={cap + 1}: more worker processes "
                                            rf"than this machine runs usefully; at most {cap}"):
        execute(st, tmp_path / "out", workers=cap + 1, progress=False)
    assert not (tmp_path / "out").exists()
    assert main(["sweep", str(toml), "--out", str(tmp_path / "o"), "--workers", "99999"]) == 2
    assert "--workers 99999: more worker processes" in capsys.readouterr().err


def test_a_pool_starts_no_more_processes_than_chunks_to_play(study, tmp_path):
    _, st = study
    summary = execute(st, tmp_path / "out", workers=64, progress=False)
    assert summary["where"] == f"{min(64, summary['chunks'])} local processes"


@pytest.mark.parametrize("forgery,message", [
    ("a closing record counting 5 games of 2", "closing record counts 5 game(s), the log "
                                               "holds 2"),
    ("cut after one hand, then closed", "closing record but the last match is not over"),
])
def test_view_refuses_the_logs_replay_refuses(tmp_path, capsys, forgery, message):
    log = tmp_path / "t.jsonl"
    assert main(["play", "--rules", "ace-low", "--players", "2", "--strategies", "expert",
                 "--games", "2", "--seed", "3", "--out", str(tmp_path / "t.parquet"), "--log",
                 str(log)]) == 0
    lines = log.read_text().splitlines()
    if forgery.startswith("a closing"):
        lines = lines[:-1] + [json.dumps({"type": "close", "games": 5})]
    else:
        end = next(i for i, x in enumerate(lines) if json.loads(x).get("type") == "end")
        lines = lines[:end + 1] + [json.dumps({"type": "close", "games": 1})]
    log.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(log)]) == 2
    assert message in capsys.readouterr().err
    assert main(["view", str(log), "--out", str(tmp_path / "v")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "v").exists() or not any((tmp_path / "v").iterdir())
