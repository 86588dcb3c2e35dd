"""``fastmach play`` starts without BLAS worker threads, without tqdm for a short run and
without the bot isolation (subprocess), and the environment and the progress bar behave as before."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastmach
from fastmach.cli.start import _BLAS_THREADS as BLAS_THREADS, _command_word as command_word
from fastmach.engine import progress as progress_mod
from fastmach.engine.progress import Progress

ROOT = Path(fastmach.__file__).resolve().parent.parent


@pytest.mark.parametrize("argv, script, word", [
    (["python", "-m", "fastmach", "play", "--games", "3"], "-m", "play"),
    (["python", "-m", "fastmach", "sweep", "s.toml"], "-m", "sweep"),
    (["python", "-m", "fastmach", "--version"], "-m", ""),
    (["python", "-m", "fastmach"], "-m", ""),
    (["python", "-m", "pytest", "play"], "-m", None),
    (["/usr/bin/python3", "/venv/bin/fastmach", "play"], "/venv/bin/fastmach", "play"),
    (["python", "script.py", "play"], "script.py", None),
    (["python", "-c", "pass"], "-c", None),
])
def test_the_command_word_is_the_word_after_the_command(argv, script, word):
    assert command_word(argv, script) == word


def _probe(args: list[str], env: dict[str, str]) -> dict:
    """``fastmach ARGS`` in a fresh interpreter (``sys.orig_argv`` as the command sets it,
    before the package loads): the BLAS variables after it, whether tqdm loaded, the exit
    code, the threads once the command's module had loaded."""
    code = ("import sys, os, json\n"
            f"sys.orig_argv = [sys.executable, '-m', 'fastmach'] + {args!r}\n"
            "from fastmach.cli import main\n"
            "threads = len(os.listdir('/proc/self/task')) if os.path.isdir('/proc/self/task') "
            "else -1\n"
            f"rc = main({args!r}) if {args[:1]!r} == ['play'] else 0\n"
            f"env = {{k: os.environ.get(k) for k in {BLAS_THREADS!r}}}\n"
            "print(json.dumps({'env': env, 'tqdm': 'tqdm' in sys.modules, 'rc': rc, "
            "'threads': threads, 'isolation': 'fastmach.strategies.isolation' in sys.modules}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, env=env).stdout.strip().splitlines()
    return json.loads(out[-1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def test_a_short_play_loads_no_tqdm_and_leaves_the_environment_as_it_was(tmp_path):
    got = _probe(["play", "--games", "2", "--out", str(tmp_path / "g.parquet")], _env())
    assert (got["env"], got["tqdm"], got["rc"]) == ({k: None for k in BLAS_THREADS}, False, 0)
    assert not got["isolation"]   # bots in their own process (subprocess): loaded on use


def test_the_play_command_keeps_a_thread_count_the_user_set(tmp_path):
    got = _probe(["play", "--games", "2", "--out", str(tmp_path / "g.parquet")],
                 _env(OPENBLAS_NUM_THREADS="2"))
    assert got["env"]["OPENBLAS_NUM_THREADS"] == "2"


@pytest.mark.skipif(not Path("/proc/self/task").exists() or (os.cpu_count() or 1) < 2,
                    reason="needs /proc and two cores (OpenBLAS starts no worker on one)")
def test_play_loads_numpy_with_one_blas_thread_and_other_commands_as_before(tmp_path):
    env = _env()
    assert _probe(["play", "--games", "1", "--out", str(tmp_path / "g.parquet")],
                  env)["threads"] == 1
    assert _probe(["sweep"], env)["threads"] > 1   # the reference: OpenBLAS's own default


def test_progress_shows_at_once_when_asked(capsys):
    with Progress(10, True) as p:
        p.update(4)
        assert p.bar is not None and p.bar.n == 4
        p.update(6)
    assert "10/10" in capsys.readouterr().err


def test_progress_never_shows_when_disabled(monkeypatch):
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    with Progress(10, False) as p:
        p.update(10)
        assert p.bar is None and p.done == 10


def test_a_late_progress_bar_counts_its_time_and_rate_from_the_start_of_the_run(
        monkeypatch, capsys):
    # (play --games 50 under jokers: 41 s with no bar, then "50/50 [00:00<00:00,
    # 1013116.91game/s]": the bar was made at the end and counted from there)
    clock = [100.0]
    monkeypatch.setattr(progress_mod.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(progress_mod, "terminal", lambda: True)   # (the default bar's)
    with Progress(50, None) as p:
        clock[0] += 40.0
        p.update(50)
        assert p.bar is not None and p.bar.n == 50
        assert 40 <= p.bar.format_dict["elapsed"] < 45
    err = capsys.readouterr().err.replace("\r", "\n")
    assert "50/50 [00:40<00:00,  1.25game/s]" in err
    assert "0/50" not in err.replace("50/50", "")   # no bar at 0 drawn at the end


def test_the_default_progress_shows_past_the_delay_with_the_games_done(monkeypatch, capsys):
    clock = [100.0]
    monkeypatch.setattr(progress_mod.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(progress_mod, "terminal", lambda: True)
    with Progress(10, None) as p:
        p.update(3)
        assert p.bar is None          # before the delay: nothing drawn, tqdm not needed
        clock[0] += progress_mod.DELAY
        p.update(2)
        assert p.bar is not None and p.bar.n == 5 and p.bar.total == 10
        p.update(5)
    assert "10/10" in capsys.readouterr().err


def _gc_probe(args: list[str], before: str = "") -> list:
    """``fastmach ARGS`` in a fresh interpreter: whether the collector ran once
    ``fastmach.cli`` had loaded, after ``main`` returned, and its exit code."""
    code = ("import sys, gc, json\n"
            f"{before}\n"
            f"sys.orig_argv = [sys.executable, '-m', 'fastmach'] + {args!r}\n"
            "from fastmach.cli import main\n"
            "loaded = gc.isenabled()\n"
            f"rc = main({args!r})\n"
            "print(json.dumps([loaded, gc.isenabled(), rc, "
            "'fastmach.game.state' in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, env=_env()).stdout.strip().splitlines()
    return json.loads(out[-1])


def test_play_loads_its_modules_without_the_collector_and_turns_it_back_on(tmp_path):
    play = ["play", "--games", "2", "--out", str(tmp_path / "g.parquet")]
    # off while the modules load, on for the games and after; the reference State unloaded
    assert _gc_probe(play) == [False, True, 0, False]
    # a run that stops before its games (bad input: status 2) turns it back on too
    assert _gc_probe(["play", "--games", "2", "--out", str(tmp_path / "g.csv")]) == [
        False, True, 2, False]
    # another command, and a caller that turned it off itself, are left as they were
    assert _gc_probe(["rules", "classic"])[:3] == [True, True, 0]
    assert _gc_probe(play, before="gc.disable()")[:3] == [False, False, 0]


def test_play_ends_its_process_after_the_exit_hooks_and_the_flushed_output(tmp_path):
    # the command as a process: stdout a pipe (buffered), an exit hook of the caller's
    out = tmp_path / "g.parquet"
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('hook ran', flush=True))\n"
            f"sys.argv = ['fastmach', 'play', '--rules', 'classic(match=single)', '--games', "
            f"'5', '--out', {str(out)!r}, '--log', {str(tmp_path / 'g.jsonl.gz')!r}]\n"
            "from fastmach.cli import console\n"
            "console()\n"
            "print('not reached')\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=_env())
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and run.stderr == ""
    assert lines[0].startswith("5 games of classic(match=single)") and lines[1:] == ["hook ran"]
    # the same rows as the library writes in a process that goes on
    from fastmach.engine import run_play_columns
    from fastmach.engine.parquet import write_parquet

    write_parquet(run_play_columns("classic(match=single)", "expert", 5, 0), tmp_path / "r.parquet")
    assert out.read_bytes() == (tmp_path / "r.parquet").read_bytes()
    # the log whole, its gzip stream closed: the same bytes as a log written in-process
    import gzip

    run_play_columns("classic(match=single)", "expert", 5, 0, log=tmp_path / "r.jsonl.gz")
    with gzip.open(tmp_path / "g.jsonl.gz") as a, gzip.open(tmp_path / "r.jsonl.gz") as b:
        assert a.read() == b.read()


def test_only_a_play_without_python_bots_leaves_at_once(tmp_path):
    import threading

    from fastmach.cli import main, start

    base = ["play", "--rules", "classic(match=single)", "--games", "2"]
    assert main(base + ["--out", str(tmp_path / "a.parquet")]) == 0
    assert start._LEAVE_AT_ONCE
    bots = "expert,fastmach.strategies.examples:MaxPlacement"
    assert main(base + ["--strategies", bots, "--out", str(tmp_path / "b.parquet")]) == 0
    assert not start._LEAVE_AT_ONCE   # (a bot's module may hold files: the usual teardown)
    assert main(["rules", "classic"]) == 0 and not start._LEAVE_AT_ONCE
    # a thread still running: exit_now returns, the usual exit joins it
    start.leave_at_once(True)
    done = threading.Event()
    t = threading.Thread(target=done.wait)
    t.start()
    try:
        start.exit_now(3)   # (would end this test's process if it did not return)
    finally:
        done.set()
        t.join()
        start.leave_at_once(False)
