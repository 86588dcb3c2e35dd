"""Progress on the long steps: ``Steps`` names a run's steps on stderr with its elapsed time
moving during a step, shows by default only on a terminal, never with -q; a bar changes
no output (``fastmach report`` with and without one: the same files byte for byte)."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.report_data import random_hand_study, write_hand_results
from fastmach.cli import main
from fastmach.engine import progress as progress_mod
from fastmach.engine.progress import Progress, Steps


def test_steps_name_each_step_and_end_at_the_total(capsys):
    with Steps(["reading", "the analysis", "the pages"], True, "report") as steps:
        steps("reading")
        steps("the analysis")
        assert steps.bar.n == 1
        steps("the pages")
    err = capsys.readouterr().err.replace("\r", "\n")
    assert "report: 1/3 steps" in err and "the analysis]" in err
    assert re.search(r"report: 3/3 steps \[00:00<00:00, .*done\]", err)


def test_a_long_step_shows_the_bar_and_moves_its_clock_without_a_call(monkeypatch, capsys):
    monkeypatch.setattr(progress_mod, "terminal", lambda: True)
    monkeypatch.setattr(progress_mod, "DELAY", 0.2)
    monkeypatch.setattr(progress_mod, "TICK", 0.05)
    with Steps(["one long step", "two"], None, "work") as steps:
        steps("one long step")
        assert steps.bar is None               # (before the delay: nothing drawn)
        deadline = time.monotonic() + 10
        while (steps.bar is None or steps.bar.format_dict["elapsed"] < 1.1) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert steps.bar is not None and steps.bar.n == 0
    err = capsys.readouterr().err.replace("\r", "\n")
    assert "work: 0/2 steps [00:01<" in err and "one long step]" in err


def test_the_default_bars_show_only_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    monkeypatch.setattr(progress_mod, "TICK", 0.01)
    with Steps(["a"], None, "x") as steps:     # (capsys: stderr is no terminal)
        steps("a")
        time.sleep(0.05)
        assert steps.bar is None
    with Progress(10, None) as p:
        p.update(10)
        assert p.bar is None
    with Steps(["a"], False, "x") as steps:
        steps("a")
        assert steps.bar is None and steps._thread is None
    assert capsys.readouterr().err == ""


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    return write_hand_results(tmp_path_factory.mktemp("bar") / "r",
                              *random_hand_study(games=6, players=(3, 4)))


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix not in (".html", ".svg")}


def test_the_report_is_the_same_with_and_without_its_bar(results, tmp_path, monkeypatch,
                                                         capsys):
    """The tables, summary.md and the PNG figures, byte for byte (index.html holds the time
    it was generated, and matplotlib writes its time and random ids into each SVG)."""
    assert main(["report", str(results), "--out", str(tmp_path / "quiet" / "rep"), "-q",
                 "--no-games"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(progress_mod, "terminal", lambda: True)
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    assert main(["report", str(results), "--out", str(tmp_path / "bar" / "rep"), "--no-games"]) == 0
    err = capsys.readouterr().err.replace("\r", "\n")
    assert "report: 7/7 steps" in err and "the figures]" in err
    quiet, bar = _files(tmp_path / "quiet" / "rep"), _files(tmp_path / "bar" / "rep")
    assert quiet and quiet == bar



def test_replay_counts_the_logs_records_as_its_workers_check_them(tmp_path, monkeypatch,
                                                                  capsys):
    from fastmach.game import replay_workers
    from fastmach.game.replay_workers import replay_parallel

    monkeypatch.setattr(replay_workers, "MIN_LINES", 1)   # (pieces of a small log)
    log = tmp_path / "g.jsonl"
    assert main(["play", "--rules", "classic(match=single)", "--games", "40", "--out",
                 str(tmp_path / "g.parquet"), "--log", str(log)]) == 0
    lines = len(log.read_text().splitlines())
    seen: list[tuple[int, int]] = []
    replay_parallel(log, workers=2, text=False, progress=lambda d, t: seen.append((d, t)))
    assert len(seen) > 1 and {t for _, t in seen} == {lines}
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == lines
    capsys.readouterr()
    assert main(["replay", "-q", "--workers", "2", str(log)]) == 0
    quiet = capsys.readouterr()
    monkeypatch.setattr(progress_mod, "terminal", lambda: True)
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    assert main(["replay", "-q", "--workers", "2", str(log)]) == 0
    shown = capsys.readouterr()
    assert shown.out == quiet.out and quiet.err == ""
    assert f"{lines}/{lines}" in shown.err.replace("\r", "\n") and "record/s" in shown.err


def test_tunes_trial_lines_give_the_games_of_the_budget_and_the_rate(tmp_path, capsys):
    from tests.tools.test_tune import PLANTED

    from fastmach.tools.tune import tune

    tune(PLANTED, tmp_path / "t", max_games=120, progress=True)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("trial ")]
    assert lines
    for line in lines:
        # (of the search's budget: the fresh-deal check's games are set aside)
        m = re.search(r"; (\d+) of (\d+) games \((\d+) games/s since the start\)$", line)
        assert m and int(m.group(1)) <= int(m.group(2)) <= 120 and int(m.group(3)) > 0, line
