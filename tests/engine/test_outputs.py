"""Outputs checked before the first game, written whole or not at all; logs that say when
they are incomplete (``fastmach.outputs``, ``play``, ``replay``)."""
from __future__ import annotations

import gzip
import os
import json

import pytest

import fastmach.engine.play as engine_mod
import fastmach.game.log_writer as log_mod
from fastmach.cli import main
from fastmach.engine import play_games, run_play
from fastmach.errors import FastmachError
from fastmach.game.log_reader import replay
from fastmach.outputs import atomic_path, open_text, partial_name, probe_dir, probe_file


@pytest.fixture
def no_games(monkeypatch):
    """Any game played fails the test: the path checks must come first."""
    def refuse(*a, **k):
        raise AssertionError("a game was played before the output path was checked")
    monkeypatch.setattr(engine_mod, "play_columns", refuse)  # play_games plays through it


def _play(tmp_path, *extra):
    return main(["play", "--players", "2", "--games", "3", "--seed", "5", *extra])


def test_play_out_under_a_file_exits_2_before_any_game(tmp_path, capsys, no_games):
    (tmp_path / "afile").write_text("x")
    assert _play(tmp_path, "--out", str(tmp_path / "afile" / "g.parquet")) == 2
    assert "is a file, not a directory" in capsys.readouterr().err


def test_play_out_that_cannot_be_written_exits_2_before_any_game(tmp_path, capsys, no_games):
    # a name longer than the file system takes: the directory exists, the file cannot
    out = tmp_path / ("x" * 300 + ".parquet")
    assert _play(tmp_path, "--out", str(out)) == 2
    assert "--out" in capsys.readouterr().err


def test_play_log_that_is_a_directory_exits_2_before_any_game(tmp_path, capsys, no_games):
    assert _play(tmp_path, "--out", str(tmp_path / "g.parquet"), "--log", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "--log" in err and "is a directory" in err


def test_probe_leaves_nothing_behind_and_creates_the_directory(tmp_path):
    probe_file(tmp_path / "a" / "b" / "g.parquet")
    probe_dir(tmp_path / "c")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "c"]
    (tmp_path / "f").write_text("x")
    with pytest.raises(FastmachError, match="is a file; expected a directory"):
        probe_dir(tmp_path / "f", "--out")


def test_atomic_path_keeps_the_old_file_when_interrupted(tmp_path):
    out = tmp_path / "x.txt"
    out.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(out) as tmp:
            tmp.write_text("new, half")
            raise KeyboardInterrupt
    assert out.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]
    with atomic_path(out) as tmp:
        tmp.write_text("new")
    assert out.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]


def test_interrupted_play_log_leaves_only_a_partial_file_that_replay_rejects(
        tmp_path, monkeypatch, capsys):
    out, log = tmp_path / "g.parquet", tmp_path / "g.jsonl"
    real = log_mod._engine_lines
    calls = {"n": 0}

    def interrupt_third(*args):  # Ctrl-C while the third game's log is being written
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(log_mod, "_engine_lines", interrupt_third)
    assert main(["play", "--players", "2", "--games", "5", "--seed", "5", "--out", str(out),
                 "--log", str(log)]) == 130
    assert "incomplete" in capsys.readouterr().err
    assert not out.exists() and not log.exists()
    partial = partial_name(log)
    assert sorted(p.name for p in tmp_path.iterdir()) == [partial.name]
    with pytest.raises(FastmachError, match="no closing record"):
        replay(partial)


def test_interrupted_play_keeps_the_previous_complete_outputs(tmp_path, monkeypatch):
    out, log = tmp_path / "g.parquet", tmp_path / "g.jsonl"
    argv = ["play", "--players", "2", "--games", "2", "--seed", "5", "--out", str(out),
            "--log", str(log)]
    assert main(argv) == 0
    before = (out.read_bytes(), log.read_bytes())

    def interrupt(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(engine_mod, "play_columns", interrupt)
    assert main(argv[:-4] + ["--seed", "6", "--out", str(out), "--log", str(log)]) == 130
    assert (out.read_bytes(), log.read_bytes()) == before


def _records(path):
    with open_text(path) as f:
        return [json.loads(x) for x in f.read().splitlines()]


def _write(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_replay_rejects_a_log_without_its_closing_record(tmp_path):
    log = tmp_path / "g.jsonl"
    play_games("classic(players=2,match=single)", ["expert"] * 2, 3, range(2), log=log)
    recs = _records(log)
    assert recs[-1] == {"type": "close", "games": 2}
    assert len(replay(log)) == 2
    with pytest.raises(FastmachError, match="no closing record"):
        replay(_write(tmp_path / "cut.jsonl", recs[:-1]))
    # a whole game dropped before the closing record: the count says so
    first_end = next(i for i, r in enumerate(recs) if r["type"] == "end")
    with pytest.raises(FastmachError, match="counts 2 game"):
        replay(_write(tmp_path / "short.jsonl", recs[:first_end + 1] + recs[-1:]))


def test_replay_rejects_a_match_cut_after_its_first_hand(tmp_path):
    log = tmp_path / "m.jsonl"
    play_games("classic(players=2,match=rotations:1)", ["expert"] * 2, 3, range(1), log=log)
    recs = _records(log)
    ends = [i for i, r in enumerate(recs) if r["type"] == "end"]
    assert len(ends) == 2 and recs[ends[0]]["match_over"] is False
    cut = recs[:ends[0] + 1] + [{"type": "close", "games": 1}]
    with pytest.raises(FastmachError, match="match is not over"):
        replay(_write(tmp_path / "cut.jsonl", cut))
    # nor may a new game start while the match is not over
    second = recs[:ends[0] + 1] + recs + [{"type": "close", "games": 2}]
    with pytest.raises(FastmachError, match="previous match is not over"):
        replay(_write(tmp_path / "two.jsonl", second))


def test_gz_logs_are_written_and_read_transparently(tmp_path):
    plain, packed = tmp_path / "g.jsonl", tmp_path / "g.jsonl.gz"
    for path in (plain, packed):
        assert main(["play", "--players", "2", "--games", "4", "--seed", "8", "--out",
                     str(tmp_path / f"{path.name}.parquet"), "--log", str(path)]) == 0
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert packed.stat().st_size * 4 < plain.stat().st_size
    assert [h.text for h in replay(packed)] == [h.text for h in replay(plain)]
    assert main(["replay", "-q", str(packed)]) == 0


def test_replay_of_non_utf8_or_damaged_gzip_is_an_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"type": "header", "rules": "cl\xe9ssic"}\n')
    with pytest.raises(FastmachError, match="not UTF-8"):
        replay(bad)
    gz = tmp_path / "bad.jsonl.gz"
    gz.write_bytes(gzip.compress(b'{"type": "close", "games": 0}\n' * 50)[:-12])
    with pytest.raises(FastmachError, match="bad.jsonl.gz"):
        replay(gz)


def test_play_refuses_more_strategies_than_players(tmp_path, capsys, no_games):
    assert _play(tmp_path, "--strategies", "expert,beginner,patient",
                 "--out", str(tmp_path / "g.parquet")) == 2
    assert "patient" in capsys.readouterr().err


def test_progress_shows_after_two_seconds_whatever_the_number_of_games(monkeypatch):
    from fastmach.engine import progress

    seen = {}

    class Bar(progress.Progress):
        def __init__(self, total, shown, unit="game"):
            seen.update(total=total, progress=shown)
            super().__init__(total, shown, unit)
    monkeypatch.setattr(engine_mod, "Progress", Bar)
    run_play("classic(players=2)", "expert", 2, 1)
    assert seen == {"total": 2, "progress": None} and progress.DELAY == 2
    run_play("classic(players=2)", "expert", 2, 1, progress=False)
    assert seen["progress"] is False


def test_an_output_that_is_an_input_by_any_name_is_refused(tmp_path):
    from fastmach.outputs import refuse_inputs, same_file

    src = tmp_path / "p.jsonl"
    src.write_text("x\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "hard.jsonl").hardlink_to(src)
    (tmp_path / "sym.jsonl").symlink_to(src)
    for name in ("p.jsonl", "d/../p.jsonl", "hard.jsonl", "sym.jsonl"):
        assert same_file(tmp_path / name, src)
        with pytest.raises(FastmachError, match=r"out='.*' is the log '.*p.jsonl': writing "
                                                r"it would destroy it"):
            refuse_inputs(tmp_path / name, "out=", [("the log", src)])
    assert not same_file(tmp_path / "other.jsonl", src)
    refuse_inputs(tmp_path / "other.jsonl", "out=", [("the log", src), ("x", None)])
    refuse_inputs("-", "out=", [("the log", "-")])
    # an output directory replaced whole: neither inside an input nor holding one
    with pytest.raises(FastmachError, match="holds the results directory"):
        refuse_inputs(tmp_path, "out=", [("the results directory", tmp_path / "d")],
                      directory=True)
    with pytest.raises(FastmachError, match="is inside the results directory"):
        refuse_inputs(tmp_path / "d" / "r", "out=", [("the results directory", tmp_path / "d")],
                      directory=True)


def _clash_links(tmp_path, src):
    """``src`` under other names: itself, through .., a hard link and a symbolic link."""
    (tmp_path / "sub").mkdir(exist_ok=True)
    hard, sym = tmp_path / f"hard-{src.name}", tmp_path / f"sym-{src.name}"
    hard.hardlink_to(src)
    sym.symlink_to(src)
    return [src, tmp_path / "sub" / ".." / src.name, hard, sym]


@pytest.mark.parametrize("ext", ["jsonl", "csv"])
def test_solve_batch_out_over_its_positions_exits_2_and_keeps_them(tmp_path, capsys, ext):
    src = tmp_path / f"p.{ext}"
    src.write_text('{"hand": "8D 8H", "table": "8S 8C"}\n' if ext == "jsonl"
                   else 'hand,table\n8D 8H,8S 8C\n')
    before = src.read_bytes()
    for out in _clash_links(tmp_path, src):
        assert main(["solve", "--batch", str(src), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--out {str(out)!r} is the positions file" in err and "Traceback" not in err
        assert src.read_bytes() == before


def test_view_out_over_its_log_exits_2_and_keeps_it(tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    play_games("classic(players=2,match=single)", ["expert"] * 2, 1, range(1), log=log)
    before = log.read_bytes()
    for out in _clash_links(tmp_path, log):
        assert main(["view", str(log), "--out", str(out)]) == 2
        assert main(["view", str(log), "--game", "0", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--out {str(out)!r} is the log" in err and "Traceback" not in err
        assert log.read_bytes() == before
    # a game page named as the log (index x.html: its pages x-game0.html)
    page = tmp_path / "x-game0.html"
    page.write_bytes(before)
    assert main(["view", str(page), "--out", str(tmp_path / "x.html")]) == 2
    assert "its game page" in capsys.readouterr().err and page.read_bytes() == before


@pytest.mark.parametrize("name", ["mybot.py", "g.txt", "g.parquet", ".jsonl"])
def test_play_log_under_another_kind_of_name_exits_2_and_keeps_the_file(tmp_path, capsys,
                                                                          name, no_games):
    """A log is written only under a log's name (.jsonl, .jsonl.gz): never over a bot's
    source, a table or any other file named on the command line by mistake."""
    target = tmp_path / name
    target.write_text("class B:\n    pass\n")
    before = target.read_bytes()
    out = tmp_path / "games.parquet"
    assert _play(tmp_path, "--out", str(out), "--log", str(target)) == 2
    err = capsys.readouterr().err
    assert f"--log {str(target)!r}: expected a .jsonl or .jsonl.gz file" in err
    assert "Traceback" not in err
    assert target.read_bytes() == before and not out.exists()


def test_play_games_log_under_another_kind_of_name_is_refused_and_kept(tmp_path):
    target = tmp_path / "mybot.py"
    target.write_text("class B:\n    pass\n")
    with pytest.raises(FastmachError, match=r"^log=.*: expected a \.jsonl or \.jsonl\.gz file"):
        play_games("classic(players=2,match=single)", ["expert"] * 2, 1, range(1), log=target)
    assert target.read_text() == "class B:\n    pass\n"


def test_view_out_under_another_kind_of_name_exits_2_and_keeps_the_file(tmp_path, capsys):
    """A page is written only under an .html name: never over another log, a table."""
    log, other = tmp_path / "g.jsonl", tmp_path / "other.jsonl"
    play_games("classic(players=2,match=single)", ["expert"] * 2, 1, range(1), log=log)
    other.write_bytes(log.read_bytes())
    before = other.read_bytes()
    assert main(["view", str(log), "--out", str(other)]) == 2
    assert main(["view", str(log), "--game", "0", "--out", str(other)]) == 2
    err = capsys.readouterr().err
    assert f"--out {str(other)!r}: expected a .html file" in err and "Traceback" not in err
    assert other.read_bytes() == before
    table = tmp_path / "x.parquet"
    assert main(["view", "--hand", "AS", "--out", str(table)]) == 2
    assert "expected a .html file" in capsys.readouterr().err and not table.exists()


def test_sweep_and_tune_out_over_their_definition_exit_2(tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text("[study]\n")
    for command in ("sweep", "tune"):
        extra = ["--max-games", "10"] if command == "tune" else []
        assert main([command, str(toml), "--out", str(tmp_path / "sub" / ".." / "s.toml"),
                     *extra]) == 2
        err = capsys.readouterr().err
        assert "is the s" in err and "file" in err and toml.read_text() == "[study]\n"


def test_rate_and_compare_out_in_a_study_result_directory_exit_2_and_leave_it(tmp_path,
                                                                              capsys):
    """Their files in a sweep's directory would be foreign chunks its report refuses."""
    toml = tmp_path / "s.toml"
    toml.write_text('[study]\nname = "s"\nseed = 1\ngames = 2\n[grid]\n'
                    'rules = ["classic(match=single)"]\nplayers = [2]\nlineup = [["expert"]]\n')
    done = tmp_path / "done"
    assert main(["sweep", str(toml), "--out", str(done), "--workers", "0", "-q"]) == 0
    before = sorted(p.relative_to(done) for p in done.rglob("*"))
    for command in (["rate", "--strategies", "expert,beginner", "--players", "2"],
                    ["compare", "classic(match=single)", "jokers", "--players", "2"]):
        assert main([*command, "--games", "2", "--workers", "0", "-q",
                     "--out", str(done)]) == 2
        err = capsys.readouterr().err
        assert "holds a study's results (_study.json)" in err and "Traceback" not in err
        assert sorted(p.relative_to(done) for p in done.rglob("*")) == before


def test_play_refuses_an_output_that_is_another_output_by_any_name(tmp_path, capsys, no_games):
    out = tmp_path / "t.parquet"
    out.write_bytes(b"old rows")
    for log in _clash_links(tmp_path, out):
        assert main(["play", "--games", "1", "--out", str(out), "--log", str(log)]) == 2
        assert "is the --out file" in capsys.readouterr().err
    assert out.read_bytes() == b"old rows"


def _dead_pid() -> int:
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_killed_play_logs_temporary_is_removed_by_the_rerun(tmp_path):
    # kill -9 leaves play --log's hidden temporary beside the log: the next run writing the
    # same log removes it (its process is gone), not another target's nor a running one's
    import os
    import signal
    import subprocess
    import sys
    import time

    log, out = tmp_path / "g.jsonl", tmp_path / "g.parquet"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "fastmach", "play", "--players", "2",
                             "--games", "100000", "--out", str(out), "--log", str(log)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    left = tmp_path / f".tmp{proc.pid}-g.jsonl"
    try:
        deadline = time.monotonic() + 120
        while not (left.exists() and left.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert left.exists()
    others = [tmp_path / f".tmp{os.getppid()}-g.jsonl", tmp_path / f".tmp{proc.pid}-h.jsonl"]
    for p in others:
        p.write_text("x")
    assert main(["play", "--players", "2", "--games", "2", "--out", str(out),
                 "--log", str(log)]) == 0
    assert not left.exists() and all(p.exists() for p in others)
    replay(log)


def test_a_killed_reports_directory_is_removed_by_the_rerun(tmp_path):
    from fastmach.outputs import atomic_dir, clear_stale

    dead = _dead_pid()
    stale = [tmp_path / f".tmp{dead}-abcd_123-rep", tmp_path / f".tmp{dead}-old-x1y2z3w4-rep"]
    for d in stale:
        d.mkdir()
    (stale[1] / "rep").mkdir()
    kept = [tmp_path / f".tmp{dead}-abcd_123-rep2", tmp_path / f".tmp{os.getpid()}-abcd_123-rep",
            tmp_path / f".tmp{dead}-rep"]   # another target's, a running one's, a file's
    for d in kept:
        d.mkdir()
    with atomic_dir(tmp_path / "rep", frozenset({"index.html"})) as stage:
        (stage / "index.html").write_text("new")
    assert not any(d.exists() for d in stale) and all(d.exists() for d in kept)
    assert (tmp_path / "rep" / "index.html").read_text() == "new"
    f = tmp_path / f".tmp{dead}-a.csv"
    f.write_text("x")
    assert clear_stale(tmp_path / "b.csv") == [] and f.exists()
    assert clear_stale(tmp_path / "a.csv") == [f] and not f.exists()


def test_a_gzip_text_file_is_the_same_bytes_whatever_its_name_and_time(tmp_path):
    import time
    paths = [tmp_path / "a.jsonl.gz", tmp_path / ".tmp123-b.jsonl.gz"]
    for i, p in enumerate(paths):
        if i:
            time.sleep(1.1)   # (another second in gzip's header time, were it written)
        with open_text(p, "w") as f:
            f.write('{"turn": 1}\n')
        with open_text(p, "a") as f:
            f.write('{"turn": 2}\n')
    assert paths[0].read_bytes() == paths[1].read_bytes()
    with open_text(paths[1]) as f:
        assert f.read() == '{"turn": 1}\n{"turn": 2}\n'
