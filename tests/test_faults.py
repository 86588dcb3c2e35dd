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
from fastmach.study.sweep import plan, read_results, run_study

ROOT = Path(__file__).resolve().parents[1]

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
