"""Fault injection: a sweep killed at random points (the driver, its workers), its chunks
truncated and corrupted between runs, still ends with the table of an uninterrupted run."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from fastmach.study import Study
from fastmach.study.plan import plan
from fastmach.study.results import read_results
from fastmach.study.driver import run_study

ROOT = Path(__file__).resolve().parents[2]

STUDY = """\
[study]
name = "faults"
seed = 4242
games = 40
chunk = 1

[grid]
rules = ["ace-low(match=single)", "ace-low(match=single,ace=low-or-high)"]
players = [2]
lineup = [["expert"], ["expert", "beginner"]]
rotate = true
"""

ROUNDS = 6  # runs that are killed; every other one also loses a worker first


def _proc_stat(pid: int) -> tuple[str, int] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return stat[0], int(stat[1])


def _workers(driver: int) -> list[int]:
    """The driver's pool workers (not its resource tracker)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        st = _proc_stat(int(d.name))
        if st is None or st[1] != driver or st[0] == "Z":
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmd:
            out.append(int(d.name))
    return out


def _count(out: Path) -> int:
    d = out / "chunks"
    return len(list(d.glob("*.parquet"))) if d.exists() else 0


def _wait_for(proc, out: Path, target: int, deadline: float) -> None:
    while _count(out) < target and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_sweep_survives_random_kills_and_damaged_chunks(tmp_path):
    rng = random.Random(20261201)
    toml = tmp_path / "faults.toml"
    toml.write_text(STUDY)
    study = Study.from_toml(toml)
    total = len(plan(study))
    reference = run_study(study, tmp_path / "ref", workers=0, progress=False)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fastmach", "sweep", str(toml), "--out", str(out),
           "--workers", "2", "-q"]
    faults = {"driver killed": 0, "worker killed": 0, "chunk truncated": 0,
              "chunk corrupted": 0, "stale temporary file": 0}
    for r in range(ROUNDS):
        proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.time() + 60
            _wait_for(proc, out, _count(out) + rng.randint(1, 6), deadline)
            if r % 2 == 1 and proc.poll() is None:
                workers = _workers(proc.pid)
                if workers:
                    os.kill(rng.choice(workers), signal.SIGKILL)
                    faults["worker killed"] += 1
                    _wait_for(proc, out, _count(out) + rng.randint(1, 4), deadline)
            time.sleep(rng.uniform(0, 0.05))
            if proc.poll() is None:
                workers = _workers(proc.pid)
                os.kill(proc.pid, signal.SIGKILL)  # the driver alone: its workers must go
                faults["driver killed"] += 1
                proc.wait()
                end = time.time() + 20
                while time.time() < end and any(_proc_stat(w) not in (None,) and
                                                 _proc_stat(w)[0] != "Z" for w in workers):
                    time.sleep(0.05)
                assert all(_proc_stat(w) is None or _proc_stat(w)[0] == "Z" for w in workers)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        chunks = sorted((out / "chunks").glob("*.parquet"))
        assert 0 < len(chunks) < total, "the run was not interrupted"
        victims = rng.sample(chunks, 2)
        data = victims[0].read_bytes()
        victims[0].write_bytes(data[:rng.randrange(len(data))])
        faults["chunk truncated"] += 1
        data = bytearray(victims[1].read_bytes())
        at = rng.randrange(4, len(data) - 8)
        data[at] ^= 0xFF
        victims[1].write_bytes(bytes(data))
        faults["chunk corrupted"] += 1
        if r % 3 == 0:
            (out / "chunks" / f".tmp999-{chunks[0].name}").write_bytes(b"half")
            faults["stale temporary file"] += 1
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    df = read_results(out)
    pd.testing.assert_frame_equal(df, reference)
    print(f"\n{sum(faults.values())} faults injected: {faults}")
    assert faults["driver killed"] == ROUNDS and faults["worker killed"] >= ROUNDS // 2 - 1


# ------------------------------------------------------------------------ more faults

SMALL = STUDY.replace("games = 40", "games = 4")


@pytest.fixture
def small_disk(tmp_path, monkeypatch):
    """``(directory, free)``: a directory on a tiny filesystem; ``free()`` makes room.

    A real 8 MiB tmpfs with 96 KiB free, when this process may mount one; elsewhere every
    atomic commit (``os.replace``) after the first few fails with ENOSPC, as a full disk
    makes the write before it fail.
    """
    import errno

    d = tmp_path / "disk"
    d.mkdir()
    mounted = (os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(d)],
        capture_output=True).returncode == 0)
    if mounted:
        filler = d / "filler"
        with open(filler, "wb") as f:
            f.write(b"\0" * (8192 - 96) * 1024)

        def free() -> None:
            filler.unlink()
    else:
        real, calls = os.replace, {"n": 0, "full": True}

        def replace(a, b, **kw):
            calls["n"] += 1
            if calls["full"] and calls["n"] > 3:
                raise OSError(errno.ENOSPC, "No space left on device", str(a))
            return real(a, b, **kw)
        monkeypatch.setattr(os, "replace", replace)

        def free() -> None:
            calls["full"] = False
    yield d, free
    if mounted:
        subprocess.run(["umount", "-l", str(d)], check=False)


def _leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.startswith(".tmp") or p.name.endswith(".tmp")]


def test_a_full_disk_stops_a_sweep_with_a_message_and_resumes_to_the_same_table(
        tmp_path, small_disk, capsys):
    from fastmach.cli import main
    disk, free = small_disk
    toml = tmp_path / "s.toml"
    toml.write_text(SMALL)
    study = Study.from_toml(toml)
    reference = run_study(study, tmp_path / "ref", workers=0, progress=False)
    out = disk / "out"
    assert main(["sweep", str(toml), "--out", str(out), "--workers", "0", "-q"]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "half-written" in err and "Traceback" not in err
    assert not _leftovers(disk)
    free()
    assert main(["sweep", str(toml), "--out", str(out), "--workers", "0", "-q"]) == 0
    pd.testing.assert_frame_equal(read_results(out), reference)


def test_a_full_disk_leaves_no_half_written_answers_play_table_or_report(
        tmp_path, small_disk, capsys):
    from fastmach.cli import main
    disk, free = small_disk
    batch = tmp_path / "b.jsonl"
    batch.write_text("".join(f'{{"id": {i}, "hand": "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"}}\n'
                             for i in range(3000)))
    assert main(["solve", "--batch", str(batch), "--out", str(disk / "a.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err
    assert not (disk / "a.jsonl").exists() and not _leftovers(disk)
    assert main(["play", "--rules", "ace-low(match=single)", "--players", "2", "--strategies",
                 "expert", "--games", "300", "--out", str(disk / "p.parquet"), "--log",
                 str(disk / "p.jsonl")]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert not (disk / "p.parquet").exists() and not _leftovers(disk)


def _dask_cluster(tmp_path):
    """A Dask scheduler and one worker as separate processes: (scheduler, worker, address)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                              "127.0.0.1", "--port", str(port), "--dashboard-address", ":0"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                               "--nthreads", "1", "--nworkers", "1", "--no-dashboard"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              cwd=tmp_path)
    return sched, worker, address


def test_a_lost_dask_scheduler_ends_the_sweep_with_exit_1_and_a_resume_is_identical(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY.replace("games = 40", "games = 12"))
    study = Study.from_toml(toml)
    reference = run_study(study, tmp_path / "ref", workers=0, progress=False)
    sched, worker, address = _dask_cluster(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fastmach", "sweep", str(toml), "--out", str(out),
           "--scheduler", address, "-q"]
    try:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        _wait_for(proc, out, 3, time.time() + 120)
        sched.kill()  # the scheduler dies mid-sweep
        sched.wait()
        _, err = proc.communicate(timeout=120)
    finally:
        for p in (sched, worker):
            if p.poll() is None:
                p.kill()
                p.wait()
    assert proc.returncode == 1, err
    assert "lost the Dask scheduler" in err and "Traceback" not in err, err
    assert 0 < _count(out) < len(plan(study))
    done = subprocess.run(cmd[:-3] + ["--workers", "0", "-q"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pd.testing.assert_frame_equal(read_results(out), reference)


class _DiesOnArrival:
    """An engine whose unpickling kills the worker process: a worker dying as it starts."""

    def __reduce__(self):
        return (os._exit, (3,))


def test_a_worker_dying_at_start_up_is_a_message_not_a_traceback(tmp_path):
    from fastmach.study.backends import WorkerStartError
    from fastmach.study.plan import SweepError
    from fastmach.study.driver import execute
    toml = tmp_path / "s.toml"
    toml.write_text(SMALL)
    study = Study.from_toml(toml)
    with pytest.raises(WorkerStartError, match="died while the pool of 2 started") as e:
        execute(study, tmp_path / "out", workers=2, engine=_DiesOnArrival(), progress=False)
    assert isinstance(e.value, SweepError)  # the CLI's exit 1
    assert _count(tmp_path / "out") == 0


def test_reports_built_while_a_sweep_runs_never_refuse_a_valid_chunk(tmp_path):
    from fastmach.report import build_report
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY.replace("games = 40", "games = 10"))
    study = Study.from_toml(toml)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fastmach", "sweep", str(toml), "--out", str(out),
           "--workers", "2", "-q"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    reports = 0
    try:
        _wait_for(proc, out, 8, time.time() + 120)
        while proc.poll() is None and reports < 6:
            build_report(out, tmp_path / f"rep{reports}")
            md = (tmp_path / f"rep{reports}" / "summary.md").read_text().splitlines()[0]
            assert "unfinished" in md and f"of {len(study.cells) * study.games} deals" in md, md
            reports += 1
    finally:
        proc.wait(timeout=300)
    assert proc.returncode == 0, proc.stderr.read().decode()
    assert reports >= 1
    build_report(out, tmp_path / "final")
    assert "unfinished" not in (tmp_path / "final" / "summary.md").read_text().splitlines()[0]


def _mapped(pid: int, name: str) -> bool:
    try:
        return name in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.fixture
def sigint_at_default():
    """SIGINT raises KeyboardInterrupt in this process and is at its default in the
    processes it starts, as in a terminal: a background job (``nohup pytest ... &``)
    starts with SIGINT ignored, and its children would inherit that."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, signal.SIG_DFL if old is None else old)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.usefixtures("sigint_at_default")
@pytest.mark.parametrize("moment", ["the package's imports", "the workers' start-up",
                                    "a Dask LocalCluster's start-up"])
def test_ctrl_c_during_start_up_exits_130_without_a_traceback(tmp_path, moment):
    toml = tmp_path / "s.toml"
    toml.write_text(SMALL)
    dask = ["--scheduler", "local"] if "Dask" in moment else []
    proc = subprocess.Popen([sys.executable, "-m", "fastmach", "sweep", str(toml), "--out",
                             str(tmp_path / "out"), "--workers", "2", *dask, "-q"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None and not (
            _mapped(proc.pid, "_multiarray_umath") if moment == "the package's imports"
            else _workers(proc.pid)):
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err, err
    assert "Warning" not in err and "never retrieved" not in err, err


@pytest.mark.usefixtures("sigint_at_default")
def test_ctrl_c_delivered_to_another_thread_waits_for_the_end_of_the_workers_start():
    # a thread started before the block (as OpenBLAS starts its workers when NumPy loads)
    # does not block SIGINT, so the kernel delivers the Ctrl-C to it; the block must still
    # run to its end (a worker's launch is never cut in half) and the interrupt come after
    import threading

    from fastmach.study.backends import _sigint_held
    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()
    reached = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with _sigint_held():
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(50):   # Python code runs: the place a KeyboardInterrupt lands
                    time.sleep(0.001)
                reached.append(True)
    finally:
        release.set()
        other.join()
    assert reached == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_full_disk_stops_a_report_with_a_message_and_leaves_no_half_written_report(
        tmp_path, small_disk, capsys):
    from fastmach.cli import main
    disk, free = small_disk
    toml = tmp_path / "s.toml"
    toml.write_text(SMALL)
    assert main(["sweep", str(toml), "--out", str(tmp_path / "res"), "--workers", "0",
                 "-q"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "res"), "--out", str(disk / "rep")]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err
    assert not _leftovers(disk) and not (disk / "rep" / "index.html").exists()
    free()
    assert main(["report", str(tmp_path / "res"), "--out", str(disk / "rep")]) == 0
    assert (disk / "rep" / "index.html").exists()


@pytest.mark.parametrize("log", [False, True])
def test_an_interrupted_play_says_interrupted_once(tmp_path, monkeypatch, capsys, log):
    import fastmach.cli as cli
    from fastmach.outputs import partial_name

    def interrupted(*args, log=None, **kwargs):
        if log is not None:
            partial_name(log).write_text("")   # (the finished games' log, kept)
        raise KeyboardInterrupt
    monkeypatch.setattr(cli.games, "run_play_columns", interrupted)
    words = ["--log", str(tmp_path / "g.jsonl")] if log else []
    assert cli.main(["play", "--games", "2", "--out", str(tmp_path / "g.parquet"),
                     *words]) == 130
    err = capsys.readouterr().err
    assert err.count(": interrupted") == 1, err   # (the test's own path says it too)
    assert ("g.jsonl.partial" in err) == log
