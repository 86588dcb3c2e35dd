"""Running studies: backends agree, interrupted runs resume exactly, failures are reported.

Every test plays real games with ``fastmach.engine.play_games`` (small counts of fast
single-hand cells). Failures are injected by thin picklable wrappers around the real
engine (no fake engine): one raises KeyboardInterrupt, one kills its worker process, one
keeps raising for one chunk. A subprocess run is killed with SIGKILL to stand for a
crashed machine.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.study import Study, seating, split_lineup
from fastmach.study.store import load_records
from fastmach.study.plan import MANIFEST, SweepError, plan
from fastmach.study.results import Store, read_results
from fastmach.study.bench import bench_driver, format_bench
from fastmach.study.driver import run_study
from fastmach.cli import add_sweep as register_cli, main

ROOT = Path(__file__).resolve().parents[2]

STUDY = """\
[study]
name = "small"
seed = 20261129
games = 12
chunk = 4

[grid]
rules = ["ace-low(match=single)", "ace-low(match=single,ace=low-or-high)"]
players = [2]
lineup = [["expert"], ["expert", "expert(error=0.2)"]]
rotate = true
"""


@pytest.fixture(scope="module")
def study() -> Study:
    return Study.from_toml(STUDY)


@pytest.fixture(scope="module")
def reference(study, tmp_path_factory) -> pd.DataFrame:
    """The uninterrupted in-process run every other run must reproduce exactly."""
    return run_study(study, tmp_path_factory.mktemp("ref") / "out", workers=0,
                     progress=False)


# ----------------------------------------------------------------------------- engines

class InterruptAfter:
    """The real engine, but Ctrl-C arrives during call number ``n`` (in-process runs)."""

    def __init__(self, n: int):
        self.n, self.calls = n, 0

    def __call__(self, *args, **kw):
        self.calls += 1
        if self.calls == self.n:
            raise KeyboardInterrupt
        return play_games(*args, **kw)


class KillWorkerOnce:
    """The real engine, but the first worker to play replicates ``start..`` dies (os._exit)."""

    def __init__(self, start: int, marker: str):
        self.start, self.marker = start, marker

    def __call__(self, rules, seats, seed, replicates, **kw):
        if int(replicates[0]) == self.start and not os.path.exists(self.marker):
            Path(self.marker).write_text("killed")
            os._exit(13)
        return play_games(rules, seats, seed, replicates, **kw)


class AlwaysFails:
    """The real engine, but the chunk of one cell x seating x replicates ``start..`` raises."""

    def __init__(self, start: int, rules: str, seats: list[str]):
        self.start, self.rules, self.seats = start, rules, seats

    def __call__(self, rules, seats, seed, replicates, **kw):
        if (int(replicates[0]) == self.start and list(seats) == self.seats
                and str(rules) == self.rules):
            raise ValueError("injected engine failure")
        return play_games(rules, seats, seed, replicates, **kw)


def no_duplicate_or_missing(df: pd.DataFrame, study: Study) -> None:
    assert len(df) == study.total_games
    assert not df.duplicated(["cell", "replicate", "rotation"]).any()
    for c in study.cells:
        g = df[df["cell"] == c.key]
        assert sorted(set(g["rotation"])) == list(c.rotations)
        for _, r in g.groupby("rotation"):
            assert sorted(r["replicate"]) == list(range(study.games))


# ----------------------------------------------------------------------------- backends

def test_one_worker_two_workers_and_dask_give_identical_tables(study, reference, tmp_path):
    no_duplicate_or_missing(reference, study)
    one = run_study(study, tmp_path / "one", workers=1, progress=False)
    two = run_study(study, tmp_path / "two", workers=2, progress=False)
    dask = run_study(study, tmp_path / "dask", workers=2, scheduler="local", progress=False)
    for other in (one, two, dask):
        pd.testing.assert_frame_equal(other, reference)
    assert dask.attrs["summary"]["where"].startswith("a Dask LocalCluster of 2")
    assert two.attrs["summary"]["where"] == "2 local processes"


def test_read_parquet_of_the_directory_reads_the_whole_table(study, reference, tmp_path):
    out = tmp_path / "out"
    df = run_study(study, out, workers=0, progress=False)
    raw = pd.read_parquet(out)  # the user's one-liner, no help from fastmach
    assert len(raw) == study.total_games
    key = ["cell", "replicate", "rotation"]
    pd.testing.assert_frame_equal(
        raw.sort_values(key).reset_index(drop=True), df.sort_values(key).reset_index(drop=True))
    files = sorted(p.name for p in out.rglob("*") if p.is_file())
    # the manifest, two files per chunk (games, and hands under _hands that read_parquet
    # skips), and the hidden lock that read_parquet skips too
    assert MANIFEST in files and ".lock" in files and len(files) == 2 * len(plan(study)) + 2
    assert len(list((out / "_hands").iterdir())) == len(plan(study))
    assert [f for f in files if f.startswith(".")] == [".lock"]


def test_in_memory_run_equals_stored_run(study, reference):
    df = run_study(study, workers=0, progress=False)  # out=None: temporary directory
    pd.testing.assert_frame_equal(df, reference)
    assert df.attrs["summary"]["out"] is None


def test_rows_carry_cell_parameters_seed_and_replicate(study, reference):
    df = reference
    for c in study.cells:
        g = df[df["cell"] == c.key]
        for k, v in c.columns().items():
            assert (g[k] == v).all(), k
    assert (df["seed"] == study.seed).all()
    assert {"first_player", "winner", "end", "turns", "score_0", "score_1"} <= set(df.columns)
    assert list(df.columns[:6]) == ["cell", "rules", "preset", "players", "lineup", "rotation"]


def test_rotation_seats_the_cycled_lineup(study, reference):
    for c in study.cells:
        g = reference[reference["cell"] == c.key]
        for rot, r in g.groupby("rotation"):
            seats = seating(split_lineup(r["lineup"].iat[0]), c.players, int(rot))
            for i, s in enumerate(seats):
                assert (r[f"strategy_{i}"] == s).all()


def test_common_random_numbers_same_replicate_same_deal(study, reference):
    # the dealer and first player are drawn from the deal's stream: equal in every cell
    # and every rotation for the same replicate
    deal = reference.groupby("replicate")[["first_player", "dealer"]].nunique()
    assert (deal == 1).all().all()
    assert reference["first_player"].nunique() > 1  # the deals do differ between replicates
    # and the engine itself is a pure function of (rules, seats, root seed, replicate)
    c = study.cells[3]
    g = reference[(reference["cell"] == c.key) & (reference["rotation"] == 1)]
    again = play_games(c.rules, c.seats(1), study.seed, [5, 2])
    assert list(again["turns"]) == list(g.set_index("replicate").loc[[5, 2], "turns"])


def test_mixed_player_counts_pad_seat_columns(tmp_path):
    s = Study(name="mixed", seed=3, games=3, chunk=2, rules=["ace-low(match=single)"],
              players=[2, 3], lineup=[["expert"]])
    df = run_study(s, tmp_path / "m", workers=0, progress=False)
    raw = pd.read_parquet(tmp_path / "m")
    assert len(raw) == 6 and "strategy_2" in raw.columns
    two = df[df["players"] == 2]
    assert two["strategy_2"].isna().all() and two["score_2"].isna().all()
    assert (df.loc[df["players"] == 3, "strategy_2"] == "expert").all()


# ----------------------------------------------------------------------------- resume

def test_interrupted_run_resumes_to_the_same_table(study, reference, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_study(study, out, workers=0, engine=InterruptAfter(5), progress=False)
    saved = list((out / "chunks").glob("*.parquet"))
    assert len(saved) == 4  # the chunks finished before Ctrl-C are on disk
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["finished"] is None
    df = run_study(study, out, workers=0, progress=False)
    s = df.attrs["summary"]
    assert s["resumed_chunks"] == 4 and s["played"] == study.total_games - 16
    pd.testing.assert_frame_equal(df, reference)
    no_duplicate_or_missing(df, study)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["finished"] and len(manifest["runs"]) == 2
    again = run_study(study, out, workers=0, progress=False)  # nothing left to play
    assert again.attrs["summary"]["played"] == 0
    pd.testing.assert_frame_equal(again, reference)


def test_killed_driver_process_resumes_to_the_same_table(reference, tmp_path):
    """SIGKILL the whole `python -m fastmach sweep` process group halfway, then resume.

    The study is the module's with twice the deals in one-game chunks: its first 12
    replicates must equal the reference (chunking changes no game).
    """
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY.replace("games = 12", "games = 24").replace("chunk = 4", "chunk = 1"))
    study = Study.from_toml(toml)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fastmach", "sweep", str(toml), "--out", str(out),
           "--workers", "2", "-q"]
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    total = len(plan(study))
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            n = len(list((out / "chunks").glob("*.parquet"))) if (out / "chunks").exists() else 0
            if n >= total // 3:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # driver and its workers: a crashed machine
        proc.wait()
    files = {p.name for p in (out / "chunks").glob("*.parquet")}
    assert 0 < len(files) < total
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["finished"] is None
    # a chunk is resumed when its files and its record were both written before the kill
    # (a file whose record had not reached the journal is played again)
    recorded = files & set(load_records(out, manifest) or {})
    rc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert rc.returncode == 0, rc.stderr
    assert "games in 4 cells" in rc.stdout
    assert f"{len(recorded)} of {total} chunks resumed" in rc.stdout
    df = read_results(out)
    no_duplicate_or_missing(df, study)
    first = df[df["replicate"] < 12].reset_index(drop=True)
    pd.testing.assert_frame_equal(first, reference)


# ----------------------------------------------------------------------------- failures

def test_killed_worker_is_retried(study, reference, tmp_path):
    engine = KillWorkerOnce(start=4, marker=str(tmp_path / "killed"))
    df = run_study(study, tmp_path / "out", workers=2, engine=engine, progress=False)
    assert (tmp_path / "killed").exists()  # a worker did die
    pd.testing.assert_frame_equal(df, reference)


def test_persistent_failure_names_cell_and_seed_and_keeps_other_chunks(study, reference,
                                                                        tmp_path):
    out = tmp_path / "out"
    bad = study.cells[1]  # expert vs expert(error=0.2), rotation 1
    engine = AlwaysFails(start=8, rules=str(bad.rules), seats=bad.seats(1))
    with pytest.raises(SweepError) as e:
        run_study(study, out, workers=2, engine=engine, retries=1, progress=False)
    msg = str(e.value)
    assert f"cell {bad.key!r}" in msg and f"root seed {study.seed}" in msg
    assert "replicates 8..11, rotation 1" in msg and "injected engine failure" in msg
    assert "after 2 attempts" in msg and msg.count("  cell ") == 1
    assert len(list((out / "chunks").glob("*.parquet"))) == len(plan(study)) - 1
    df = run_study(study, out, workers=0, progress=False)  # rerun plays the missing chunk
    assert df.attrs["summary"]["played"] == 4
    pd.testing.assert_frame_equal(df, reference)


def test_inline_failure_is_retried_then_reported(study, tmp_path):
    engine = AlwaysFails(start=0, rules=str(study.cells[0].rules),
                         seats=study.cells[0].seats(0))
    with pytest.raises(SweepError, match=r"replicates 0\.\.3, rotation 0"):
        run_study(study, tmp_path / "o", workers=0, engine=engine, retries=0, progress=False)


# ----------------------------------------------------------------------------- the store

def test_a_different_study_in_the_same_directory_is_refused(study, tmp_path):
    out = tmp_path / "out"
    small = study.replace(games=1, chunk=1)
    run_study(small, out, workers=0, progress=False)
    with pytest.raises(FastmachError, match=r"(?s)holds a different study.*\+games = 2"):
        run_study(study.replace(games=2, chunk=1), out, workers=0, progress=False)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(FastmachError, match="not a fastmach study directory"):
        run_study(small, other, workers=0, progress=False)


def test_a_sweep_killed_while_writing_its_first_manifest_resumes(study, tmp_path):
    # what a SIGKILL in the manifest's first atomic write leaves: the lock, the empty chunk
    # directories and the manifest's temporary file, nothing that is not the sweep's own
    from fastmach.outputs import temporary_name

    out = tmp_path / "out"
    small = study.replace(games=1, chunk=1)
    (out / "chunks").mkdir(parents=True)
    (out / ".lock").touch()
    temporary_name(out / "_study.json").write_bytes(b'{"name": "half a manif')
    df = run_study(small, out, workers=0, progress=False)
    assert len(df) == small.total_games


def test_foreign_and_stale_files_in_the_chunk_directory(study, tmp_path):
    out = tmp_path / "out"
    small = study.replace(games=1, chunk=1)
    run_study(small, out, workers=0, progress=False)
    (out / "chunks" / ".abc.parquet.123.tmp").write_bytes(b"half a file")
    victim = sorted((out / "chunks").glob("*.parquet"))[0]
    victim.write_bytes(b"truncated")  # not a parquet file any more: replayed
    df = run_study(small, out, workers=0, progress=False)
    assert df.attrs["summary"]["played"] == 1 and len(df) == small.total_games
    assert not list((out / "chunks").glob(".*"))
    (out / "chunks" / "intruder.parquet").write_bytes(b"x")
    with pytest.raises(FastmachError, match="intruder.parquet: not a chunk"):
        run_study(small, out, workers=0, progress=False)


def test_one_sweep_at_a_time_per_directory(study, tmp_path):
    small = study.replace(games=1, chunk=1)
    first = Store(tmp_path / "out", small, "first")
    with pytest.raises(FastmachError, match="another sweep is writing"):
        run_study(small, tmp_path / "out", workers=0, progress=False)
    first.close(finished=False)
    df = run_study(small, tmp_path / "out", workers=0, progress=False)
    assert len(df) == small.total_games


# ----------------------------------------------------------------------------- CLI, bench

def test_cli_sweep_runs_and_overrides_games(tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY)
    parser = argparse.ArgumentParser(prog="fastmach")
    register_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sweep", str(toml), "--out", str(tmp_path / "o"),
                              "--games", "2", "--workers", "0", "-q"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "12 games in 4 cells" in out and str(tmp_path / "o") in out
    assert len(pd.read_parquet(tmp_path / "o")) == 12
    manifest = json.loads((tmp_path / "o" / MANIFEST).read_text())
    assert "games = 2\n" in manifest["study"] and manifest["name"] == "small"
    assert manifest["seed"] == 20261129 and manifest["fastmach_version"]
    assert manifest["started"] and manifest["finished"]
    assert manifest["command"] == shlex.join(sys.argv)  # the command line that ran it


def test_bad_study_file_fails_before_any_game(tmp_path, capsys):
    toml = tmp_path / "bad.toml"
    toml.write_text(STUDY.replace("players = [2]", "players = [2, 9]"))
    assert main(["sweep", str(toml), "--out", str(tmp_path / "o"), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "bad.toml line 9: [grid] players" in err
    assert not (tmp_path / "o").exists()


def test_bad_scheduler_address_is_refused_before_any_game(study, tmp_path):
    with pytest.raises(FastmachError, match="scheduler='host:8786'"):
        run_study(study, tmp_path / "o", scheduler="host:8786", progress=False)
    assert not (tmp_path / "o").exists()


def test_bench_driver_reports_overhead_and_scaling():
    b = bench_driver(rules="ace-low(match=single)", players=2, games=8, chunk=4,
                     workers=(1, 2))
    for k in ("raw_games_per_s", "inline_games_per_s", "inline_overhead",
              "workers_1_games_per_s", "workers_2_games_per_s", "speedup_2"):
        assert np.isfinite(b[k]), k
    assert b["raw_games_per_s"] > 0 and "games/s" in format_bench(b)
