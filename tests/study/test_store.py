"""The study store: chunk sizes and checksums verified on resume and by ``report``, foreign
chunks refused, lazy planning with size limits, workers that die with their driver."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest

from fastmach.cli import main
from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.report import load_results
from fastmach.study.store import JOURNAL
from fastmach.study import Study
from fastmach.study.plan import MANIFEST, MAX_CHUNKS, iter_plan, parse_chunk_name, plan
from fastmach.study.results import Store, read_results
from fastmach.study.driver import execute, run_study

ROOT = Path(__file__).resolve().parents[2]

STUDY = """\
[study]
name = "tiny"
seed = 7
games = 4
chunk = 2

[grid]
rules = ["ace-low(match=single)", "ace-low(match=single,ace=low-or-high)"]
players = [2]
lineup = [["expert"], ["expert", "beginner"]]
rotate = true
"""


@pytest.fixture(scope="module")
def study() -> Study:
    return Study.from_toml(STUDY)


@pytest.fixture(scope="module")
def reference(study, tmp_path_factory) -> pd.DataFrame:
    return run_study(study, tmp_path_factory.mktemp("ref") / "out", workers=0, progress=False)


@pytest.fixture
def done(study, tmp_path) -> Path:
    """A finished result directory of the study."""
    out = tmp_path / "out"
    run_study(study, out, workers=0, progress=False)
    return out


def _chunks(out: Path) -> list[Path]:
    return sorted((out / "chunks").glob("*.parquet"))


def _corrupt_data_page(path: Path) -> None:
    """Flip bytes inside the first column chunk; the footer (metadata) stays intact."""
    import pyarrow.parquet as pq
    before = pq.read_metadata(path).num_rows
    data = bytearray(path.read_bytes())
    for i in range(8, 24):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    assert pq.read_metadata(path).num_rows == before  # the footer still says "whole"


# ----------------------------------------------------------------------------- records

def test_manifest_records_size_and_checksum_of_every_chunk(study, done):
    manifest = json.loads((done / MANIFEST).read_text())
    assert not (done / JOURNAL).exists()  # folded into the manifest at the end of the run
    files = _chunks(done)
    assert sorted(manifest["chunks"]) == [p.name for p in files] and len(files) == len(plan(study))
    import hashlib
    for p in files:
        rec = manifest["chunks"][p.name][f"chunks/{p.name}"]
        assert rec == {"size": p.stat().st_size,
                       "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}


def test_a_chunk_with_a_corrupted_data_page_is_replayed_on_resume(study, reference, done):
    victim = _chunks(done)[3]
    _corrupt_data_page(victim)
    df = run_study(study, done, workers=0, progress=False)
    s = df.attrs["summary"]
    assert s["played"] == 2 and s["resumed_chunks"] == len(plan(study)) - 1
    pd.testing.assert_frame_equal(df, reference)


def test_a_truncated_or_unrecorded_chunk_is_replayed_on_resume(study, reference, done):
    a, b = _chunks(done)[:2]
    a.write_bytes(a.read_bytes()[:-100])
    manifest = json.loads((done / MANIFEST).read_text())
    del manifest["chunks"][b.name]  # written, but the driver died before its record
    (done / MANIFEST).write_text(json.dumps(manifest))
    df = run_study(study, done, workers=0, progress=False)
    assert df.attrs["summary"]["played"] == 4
    pd.testing.assert_frame_equal(df, reference)


def test_records_of_a_killed_run_come_from_the_journal(study, reference, tmp_path):
    out = tmp_path / "out"

    class Stop:
        calls = 0

        def __call__(self, *a, **k):
            Stop.calls += 1
            if Stop.calls == 4:
                raise KeyboardInterrupt
            return play_games(*a, **k)
    with pytest.raises(KeyboardInterrupt):
        execute(study, out, workers=0, engine=Stop(), progress=False)
    # a killed driver never folds the journal: simulate by restoring it
    manifest = json.loads((out / MANIFEST).read_text())
    lines = [json.dumps({"chunk": k, "files": v}) for k, v in manifest.pop("chunks").items()]
    (out / MANIFEST).write_text(json.dumps(manifest))
    (out / JOURNAL).write_text("\n".join(lines) + "\n" + '{"chunk": "torn')
    df = run_study(study, out, workers=0, progress=False)
    assert df.attrs["summary"]["resumed_chunks"] == 3
    pd.testing.assert_frame_equal(df, reference)


def test_every_file_of_a_chunk_is_recorded_and_verified(study, tmp_path):
    """A chunk may own several files (game rows and hand rows): all or it is not done."""
    out = tmp_path / "out"
    store = Store(out, study, "test")
    c = plan(study)[0]
    name = parse_chunk_name(study, f"{study.cells[0].hash}-0-2-0.parquet")
    assert name == c and parse_chunk_name(study, f"{study.cells[0].hash}-1-3-0.parquet") is None
    from fastmach.study.worker import make_spec, play_chunk
    games, hands = play_chunk(make_spec(study, c))
    fname = f"{study.cells[0].hash}-0-2-0.parquet"
    store.put_files(c, {f"chunks/{fname}": games, f"_hands/{fname}": hands})
    store.close(False)
    assert Store(out, study, "t").done(c)  # reopened (closed again by the next one)
    (out / "_hands" / fname).write_bytes(hands[:-1] + b"!")
    store = Store(out, study, "test")
    assert not store.done(c) and not (out / "chunks" / fname).exists()
    store.close(False)


# ----------------------------------------------------------------------------- report

def test_report_names_a_corrupted_chunk(done, tmp_path):
    victim = _chunks(done)[2]
    _corrupt_data_page(victim)
    with pytest.raises(FastmachError, match=victim.name):
        load_results(done)
    assert main(["report", str(done), "--out", str(tmp_path / "rep")]) == 2


def test_report_refuses_a_foreign_chunk_unless_told_to_ignore_it(study, done, tmp_path):
    other = tmp_path / "other"
    run_study(Study.from_toml(STUDY.replace('"tiny"', '"other"').replace(
        "lineup = [[\"expert\"], [\"expert\", \"beginner\"]]", "lineup = [[\"beginner\"]]")),
        other, workers=0, progress=False)
    intruder = _chunks(other)[0]
    shutil.copy(intruder, done / "chunks" / intruder.name)
    with pytest.raises(FastmachError, match=f"{intruder.name}: not a chunk of study 'tiny'"):
        load_results(done)
    with pytest.warns(UserWarning, match="1 file"):
        df, _, _ = load_results(done, ignore_foreign=True)
    assert len(df) == study.total_games and df["cell"].nunique() == len(study.cells)
    with pytest.raises(FastmachError, match="not a chunk"):
        read_results(done)


def test_report_refuses_another_studys_chunks_under_this_manifest(study, done, tmp_path):
    """Same study text but another seed: same chunk names, other games."""
    other = tmp_path / "other"
    run_study(Study.from_toml(STUDY.replace("seed = 7", "seed = 8")), other, workers=0,
              progress=False)
    shutil.copy(done / MANIFEST, other / MANIFEST)
    with pytest.raises(FastmachError, match=r"(chunks|_hands)/\S+\.parquet: (\d+ bytes|checksum)"):
        load_results(other)


def test_read_errors_name_the_file_without_checksums(tmp_path):
    from tests.report_data import random_study, write_results
    d = write_results(tmp_path / "r", random_study(games=2, players=(2,)))
    bad = d / "chunk-00001.parquet"
    bad.write_bytes(bad.read_bytes()[:200])
    with pytest.raises(FastmachError, match="chunk-00001.parquet: unreadable parquet"):
        load_results(d)


def test_list_shaped_or_non_utf8_manifest_is_an_error(study, done, tmp_path):
    (done / MANIFEST).write_text("[1, 2]")
    with pytest.raises(FastmachError, match="not a JSON object"):
        run_study(study, done, workers=0, progress=False)
    with pytest.raises(FastmachError, match="not a JSON object"):
        read_results(done)
    (done / MANIFEST).write_bytes(b'{"name": "\xff"}')
    with pytest.raises(FastmachError, match="manifest"):
        run_study(study, done, workers=0, progress=False)
    with pytest.raises(FastmachError, match="UTF-8"):
        load_results(done)


# ----------------------------------------------------------------------------- paths

def test_sweep_and_report_out_under_a_file_exit_2(done, tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY)
    (tmp_path / "f").write_text("x")
    assert main(["sweep", str(toml), "--out", str(tmp_path / "f"), "--workers", "0", "-q"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["sweep", str(toml), "--out", str(tmp_path / "f" / "d"), "-q"]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err
    assert main(["report", str(done), "--out", str(tmp_path / "f")]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["report", str(toml)]) == 2
    assert "is a file; give the directory" in capsys.readouterr().err


def test_report_out_is_checked_before_the_analysis(done, tmp_path, monkeypatch, capsys):
    import fastmach.report.build as report
    monkeypatch.setattr(report, "analyse", lambda *a: pytest.fail("analysed first"))
    out = tmp_path / ("x" * 300)
    assert main(["report", str(done), "--out", str(out)]) == 2
    assert "cannot" in capsys.readouterr().err


def test_negative_retries_are_refused(tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY)
    assert main(["sweep", str(toml), "--out", str(tmp_path / "o"), "--retries", "-1"]) == 2
    assert "--retries" in capsys.readouterr().err and not (tmp_path / "o").exists()


# ----------------------------------------------------------------------------- size

def test_planning_memory_does_not_grow_with_the_number_of_games(tmp_path):
    big = Study.from_toml(STUDY.replace("games = 4", "games = 20000000").replace(
        "chunk = 2", "chunk = 400").replace('"ace-low(match=single,ace=low-or-high)"', ""))
    chunks = sum(1 for _ in iter_plan(big))
    assert chunks == 20000000 // 400 * 3 and chunks <= MAX_CHUNKS

    class StopAtOnce:
        def __call__(self, *a, **k):
            raise KeyboardInterrupt
    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            execute(big, tmp_path / "big", workers=0, engine=StopAtOnce(), progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak  # a list of every chunk would take tens of MB


@pytest.mark.parametrize("edit, needle", [
    (("games = 4", "games = 100000000000000"), "beyond"),
    (("games = 4", "games = 1000000000"), "raise \\[study\\] chunk"),
    (("chunk = 2", "chunk = 1000000"), "chunk=1000000"),
])
def test_absurd_sizes_are_refused_before_planning(tmp_path, capsys, edit, needle):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY.replace(*edit))
    tracemalloc.start()
    try:
        code = main(["sweep", str(toml), "--out", str(tmp_path / "o"), "-q"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and peak < 4 * 2**20
    import re
    assert re.search(needle, capsys.readouterr().err)


# ----------------------------------------------------------------------------- orphans

def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_when_the_driver_is_killed(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY.replace("games = 4", "games = 400").replace("chunk = 2", "chunk = 1"))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "fastmach", "sweep", str(toml), "--out",
                             str(out), "--workers", "2", "-q"], cwd=ROOT,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    kids: list[int] = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline and len(list((out / "chunks").glob("*.parquet"))
                                             if (out / "chunks").exists() else []) < 2:
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        kids = _children(proc.pid)
        assert len(kids) >= 2  # the workers (and the resource tracker)
        os.kill(proc.pid, signal.SIGKILL)  # the driver alone
        proc.wait()
        deadline = time.time() + 20
        while time.time() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.1)
        assert not [k for k in kids if _alive(k)]
    finally:
        for k in kids:
            if _alive(k):
                os.kill(k, signal.SIGKILL)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_results_of_an_older_fastmach_are_adopted_on_resume(study, reference, done):
    """A manifest without chunk records: chunks that read whole are kept and recorded."""
    manifest = json.loads((done / MANIFEST).read_text())
    del manifest["chunks"]
    (done / MANIFEST).write_text(json.dumps(manifest))
    victim = _chunks(done)[1]
    victim.write_bytes(victim.read_bytes()[:300])
    df = run_study(study, done, workers=0, progress=False)
    assert df.attrs["summary"]["played"] == 2
    pd.testing.assert_frame_equal(df, reference)
    assert len(json.loads((done / MANIFEST).read_text())["chunks"]) == len(plan(study))


def test_a_report_of_results_without_chunk_records_refuses_files_not_the_studys(
        done, tmp_path, capsys):
    """Without checksums a report refuses what no study's chunk holds: a `fastmach play`
    file dropped among the chunks (rows without a cell: it crashed the report), left out
    with --ignore-foreign, and rows of another root seed."""
    manifest = json.loads((done / MANIFEST).read_text())
    del manifest["chunks"]
    (done / MANIFEST).write_text(json.dumps(manifest))
    load_results(done)
    stray = done / "chunks" / "extra.parquet"
    play_games("ace-low(match=single,players=2)", ["expert"] * 2, 7, range(2)).to_parquet(stray)
    with pytest.raises(FastmachError, match=r"extra\.parquet: not a chunk of study 'tiny'"):
        load_results(done)
    assert main(["report", str(done), "--out", str(tmp_path / "r")]) == 2
    assert "Traceback" not in capsys.readouterr().err
    with pytest.warns(UserWarning, match="extra.parquet is not a chunk of this study"):
        games = load_results(done, ignore_foreign=True)[0]
    stray.unlink()
    pd.testing.assert_frame_equal(games, load_results(done)[0])
    chunk = _chunks(done)[0]
    pd.read_parquet(chunk).assign(seed=8).to_parquet(chunk)
    with pytest.raises(FastmachError, match=r"rows of root seed 8, not study 'tiny''s 7"):
        load_results(done)


def test_what_a_sweep_killed_before_its_manifest_leaves_does_not_block_the_resume(
        study, reference, tmp_path):
    out = tmp_path / "out"
    (out / "chunks").mkdir(parents=True)
    (out / "_hands").mkdir()
    for name in (".lock", f".{MANIFEST}.123.tmp", ".fastmach.probe-123"):
        (out / name).write_bytes(b"")
    pd.testing.assert_frame_equal(run_study(study, out, workers=0, progress=False), reference)


def test_a_directory_with_other_files_and_no_manifest_is_still_refused(study, tmp_path):
    out = tmp_path / "out"
    (out / "chunks").mkdir(parents=True)
    (out / "chunks" / "mine.txt").write_text("not a chunk")
    with pytest.raises(FastmachError, match="is not empty and holds no"):
        run_study(study, out, workers=0, progress=False)


@pytest.mark.parametrize("key,value,kind", [("runs", "x", "a list"), ("chunks", [1], "an object"),
                                            ("study", 3, "text")])
def test_a_manifest_field_of_the_wrong_type_is_named(study, done, tmp_path, key, value, kind):
    import json
    m = json.loads((done / MANIFEST).read_text())
    m[key] = value
    (done / MANIFEST).write_text(json.dumps(m))
    with pytest.raises(FastmachError, match=rf"unreadable manifest \(its '{key}' is not {kind}\)"):
        run_study(study, done, workers=0, progress=False)


def test_the_cli_says_a_library_warning_as_one_line(done, capsys):
    from fastmach.cli import main
    stray = done / "chunks" / "chunk-99999.parquet"
    stray.write_bytes(next((done / "chunks").glob("*.parquet")).read_bytes())
    assert main(["report", str(done), "--out", str(done.parent / "rep"), "--ignore-foreign",
                 "--no-games"]) == 0
    err = capsys.readouterr().err
    assert "fastmach: warning: " in err and "not of this study left out" in err
    assert "UserWarning" not in err and "warnings.warn" not in err
