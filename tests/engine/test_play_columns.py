"""The play rows as columns (no pandas) and their parquet writer, against pandas itself:
the same frames, the same summary line, the same file bytes."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from fastmach.engine import play_columns, play_games, run_play, run_play_columns, summary
from fastmach.engine.columns import concat, with_rotation
from fastmach.engine import parquet as parquet_mod
from fastmach.engine.parquet import write_parquet, write_table, write_with_pyarrow
from fastmach.rules import resolve_rules

RULES = "classic(match=single)"
PANDAS = pd.__version__


def _reference_play(rules, lineups, games, seed, chunk):
    """``run_play`` as it was written on DataFrames: each chunk's frames, the rotation
    inserted third, concatenated."""
    frames, hand_frames = [], []
    for k, lineup in enumerate(lineups):
        for lo in range(0, games, chunk):
            df, hf = play_games(rules, lineup, seed, np.arange(lo, min(games, lo + chunk)),
                                hands=True)
            df.insert(2, "rotation", k)
            hf.insert(2, "rotation", k)
            frames.append(df)
            hand_frames.append(hf)
    return pd.concat(frames, ignore_index=True), pd.concat(hand_frames, ignore_index=True)


def test_play_rows_as_columns_are_the_frames_of_the_games():
    df, hf = run_play(RULES, "expert,beginner", 7, 3, rotate=True, chunk=3, hands=True,
                      progress=False)
    lineups = [["expert", "beginner"] * 2, ["beginner", "expert"] * 2]
    ref, ref_h = _reference_play(RULES, lineups, 7, 3, 3)
    pd.testing.assert_frame_equal(df, ref)
    pd.testing.assert_frame_equal(hf, ref_h)
    assert list(df["rotation"]) == [0] * 7 + [1] * 7


def test_the_summary_line_reads_columns_as_it_reads_the_frame():
    cols = run_play_columns("classic(match=rotations:1)", "expert,beginner", 6, 2, rotate=True,
                            progress=False)
    rules = resolve_rules("classic(match=rotations:1)")
    assert summary(cols, rules, 1.5) == summary(pd.DataFrame(cols), rules, 1.5)
    assert "expert" in summary(cols, rules, 1.5) and "beginner" in summary(cols, rules, 1.5)


def test_concat_keeps_a_shared_constant_and_spells_out_differing_ones():
    a = {"x": np.arange(2), "s": "expert"}
    b = {"x": np.arange(3), "s": "expert"}
    c = {"x": np.arange(1), "s": "beginner"}
    assert concat([a, b])["s"] == "expert"
    mixed = concat([a, c])
    assert mixed["s"].tolist() == ["expert", "expert", "beginner"]
    assert list(with_rotation(a, 4)) == ["x", "s", "rotation"]
    with pytest.raises(ValueError, match="columns differ"):
        concat([a, {"s": "expert", "x": np.arange(1)}])


def _pandas_bytes(cols, path):
    pd.DataFrame(dict(cols)).to_parquet(path, index=False)
    return path.read_bytes()


def test_the_pandas_free_writer_writes_the_bytes_pandas_writes(tmp_path):
    games, hands = run_play_columns(RULES, "expert,beginner", 9, 5, rotate=True, chunk=4,
                                    hands=True, progress=False)
    for name, cols in (("games", games), ("hands", hands)):
        ours = tmp_path / f"{name}.parquet"
        assert write_with_pyarrow(cols, ours, PANDAS)
        assert ours.read_bytes() == _pandas_bytes(cols, tmp_path / f"{name}-pd.parquet"), name


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1000])
def test_the_pandas_free_writer_matches_pandas_on_every_column_type(tmp_path, n):
    rng = np.random.default_rng(n)
    grid = rng.integers(-5, 5, size=(n, 3))
    cols = {
        "i64": rng.integers(-2**62, 2**62, size=n),
        "i32": rng.integers(-9, 9, size=n).astype(np.int32),
        "u8": rng.integers(0, 255, size=n).astype(np.uint8),
        "f32": rng.standard_normal(n).astype(np.float32),
        "f64": np.where(rng.random(n) < 0.2, np.nan, rng.standard_normal(n)),
        "flag": rng.random(n) < 0.5,  # booleans: packed bits, any length
        "strided": grid[:, 1],  # a column of a 2-D array: not contiguous
        "word": np.array(rng.choice(["emptied", "blocked", "stock-out", "é ü 漢", ""], n),
                         dtype=object),
        "seat": "expert(error=0.1)",  # one string for every row
    }
    ours = tmp_path / "ours.parquet"
    assert write_with_pyarrow(cols, ours, PANDAS)
    assert ours.read_bytes() == _pandas_bytes(cols, tmp_path / "pd.parquet")
    back = pd.read_parquet(ours)
    assert back["word"].tolist() == cols["word"].tolist()
    assert back["flag"].tolist() == cols["flag"].tolist()


def test_the_compiled_writer_writes_the_bytes_of_pyarrows_write_table(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"x": np.arange(2000) % 7, "f": np.linspace(0, 1, 2000),
                      "b": np.arange(2000) % 3 == 0, "s": ["ab", "é"] * 1000},
                     metadata={b"note": b"one"})
    assert write_table(table, tmp_path / "ours.parquet")
    pq.write_table(table, str(tmp_path / "ref.parquet"), compression="snappy")
    assert (tmp_path / "ours.parquet").read_bytes() == (tmp_path / "ref.parquet").read_bytes()


def test_a_writer_that_takes_other_settings_leaves_the_file_to_write_table(tmp_path,
                                                                          monkeypatch):
    import pyarrow as pa

    monkeypatch.setitem(parquet_mod._WRITER_SETTINGS, "no_such_setting", 1)
    assert not write_table(pa.table({"x": [1, 2]}), tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()
    cols = {"x": np.arange(5), "s": np.array(["a"] * 5, dtype=object)}
    assert write_with_pyarrow(cols, tmp_path / "y.parquet", PANDAS)   # (by write_table)
    assert (tmp_path / "y.parquet").read_bytes() == _pandas_bytes(cols, tmp_path / "z.parquet")


@pytest.mark.parametrize("cols", [
    {"end": np.array([], dtype=object), "x": np.array([], dtype=np.int64)},  # empty
    {"mixed": np.array(["a", 1], dtype=object)},
    {"when": np.array(["2026-01-01"], dtype="datetime64[D]")},
], ids=["empty", "mixed-objects", "datetime"])
def test_columns_the_writer_does_not_know_are_left_to_pandas(tmp_path, cols):
    assert not write_with_pyarrow(cols, tmp_path / "x.parquet", PANDAS)
    assert not (tmp_path / "x.parquet").exists()
    if "mixed" in cols:
        return  # pandas cannot write it either
    write_parquet(cols, tmp_path / "y.parquet")
    assert (tmp_path / "y.parquet").read_bytes() == _pandas_bytes(cols, tmp_path / "z.parquet")


def test_another_pandas_major_version_is_left_to_pandas(tmp_path):
    assert not write_with_pyarrow({"x": np.arange(3)}, tmp_path / "x.parquet", "2.2.3")


def test_a_chunk_table_from_columns_is_the_table_from_frames():
    """The sweep's worker writes the same chunk from the engine's columns as from its
    DataFrames (every study's chunk files stay byte for byte what they were)."""
    from fastmach.study import Study
    from fastmach.study.plan import plan
    from fastmach.study.worker import _parquet_bytes, make_spec, tidy_table

    study = Study(name="t", seed=3, games=4, rules=("classic", "jokers"), players=(3, 4),
                  lineup=(("expert", "beginner"),), chunk=2)
    for c in plan(study):
        spec = make_spec(study, c)
        reps = np.arange(spec.start, spec.stop)
        cols, hcols = play_columns(spec.rules, list(spec.seats), spec.seed, reps, hands=True)
        frame, hframe = play_games(spec.rules, list(spec.seats), spec.seed, reps, hands=True)
        for ours, theirs, hands in ((cols, frame, False), (hcols, hframe, True)):
            a, b = tidy_table(ours, spec, hands=hands), tidy_table(theirs, spec, hands=hands)
            assert a.equals(b) and a.schema == b.schema
            assert _parquet_bytes(a) == _parquet_bytes(b)



def test_the_pandas_version_read_from_its_distribution_is_the_installed_one():
    # read from the dist-info's METADATA beside the package (no importlib.metadata): the
    # version pandas itself reports, the one the parquet metadata must carry
    from importlib import metadata

    from fastmach.engine.parquet import _pandas_version
    assert _pandas_version() == metadata.version("pandas") == pd.__version__


def test_a_match_that_does_not_end_within_the_hand_limit_is_a_clear_error(monkeypatch):
    from fastmach.engine import _engine
    from fastmach.errors import FastmachError
    monkeypatch.setattr(_engine, "MAX_MATCH_HANDS", 3)   # (a threshold no 3 hands reach)
    with pytest.raises(FastmachError, match=r"did not end within 3 hands "
                                            r"\(match=threshold:100000\)"):
        play_columns(resolve_rules("ace-low(match=threshold:100000)"), ["expert"] * 4, 1, [0])


@pytest.mark.parametrize("log,message", [
    (True, "log=True: expected a file path"), (2, "log=2: expected a file path"),
    ("/", "is a directory"), ("/nonexistent-dir-of-fastmach/x.jsonl", "does not exist"),
])
def test_a_log_that_is_no_file_path_is_refused_before_any_game(log, message):
    from fastmach.errors import FastmachError
    with pytest.raises(FastmachError, match=message):
        play_games("classic(match=single)", ["expert"] * 4, 0, [0], log=log)


def test_the_summary_line_counts_tied_winners_apart_from_games_nobody_won():
    # four 2-player games: seat 0 wins, a tie shared, nobody wins (blocked), seat 1 wins
    cols = {"end": np.array(["emptied", "blocked", "blocked", "emptied"], dtype=object),
            "winner": np.array([0, -1, -1, 1]), "turns": np.array([10, 20, 30, 40]),
            "strategy_0": "expert", "strategy_1": "beginner",
            "win_share_0": np.array([1.0, 0.5, 0.0, 0.0]),
            "win_share_1": np.array([0.0, 0.5, 0.0, 1.0])}
    line = summary(cols, resolve_rules("classic(players=2,match=single)"), 1.0)
    assert "winners: one 50.0%, tied (sharing the win) 25.0%, none 25.0% of games" in line
    # the seats' shares of all games add up to the games someone won (100% - none)
    assert "win share per seat, of all games (ties split): expert 37.5%, beginner 37.5%" in line
    assert "ends: emptied 50.0%, blocked 50.0%" in line and "mean turns per game 25.0" in line
    assert "no winner" not in line


def test_play_batches_shrink_to_about_a_second_when_the_games_are_slow():
    from fastmach.engine.play import _batches
    got = []
    for k, reps, closes in _batches(2, 60, 500, seconds=0.05):
        got.append((k, reps.tolist(), closes))
        time.sleep(0.01 * len(reps))   # 100 games/s at most: batches of 5 at most
    assert [r for k, reps, _ in got for r in reps] == list(range(60)) * 2
    assert [k for k, reps, _ in got for _ in reps] == [0] * 60 + [1] * 60
    assert got[0][1] == [0, 1, 2, 3] and all(len(reps) <= 5 for _, reps, _ in got[1:])
    assert {c for *_, c in got} == {None}


def test_play_batches_grow_to_the_chunk_and_close_a_log_every_50_games():
    from fastmach.engine.play import _batches
    sizes = [len(reps) for _, reps, _ in _batches(1, 3000, 500, seconds=1e9)]
    assert sizes == [4, 16, 64, 256, 500, 500, 500, 500, 500, 160]
    logged = list(_batches(2, 120, 500, 50, seconds=1e9))
    ends = [(k, int(reps[-1]) + 1, c) for k, reps, c in logged]
    # a closing record at each multiple of 50 and at the end, counting the games since
    # the last one; no batch crosses a multiple of 50; none between
    assert [e for e in ends if e[2]] == [(k, hi, hi - lo) for k in (0, 1) for lo, hi in
                                         ((0, 50), (50, 100), (100, 120))]
    assert all(c == 0 for _, hi, c in ends if hi % 50 and hi != 120)
    assert [len(reps) for _, reps, _ in logged][:5] == [4, 16, 30, 50, 20]


@pytest.mark.parametrize("batch_seconds", [1e-9, 1e9])
def test_play_rows_and_log_are_the_same_whatever_the_batches(tmp_path, monkeypatch,
                                                            batch_seconds):
    import fastmach.engine.play as engine_mod
    ref, ref_h = run_play_columns(RULES, "expert,beginner", 9, 5, rotate=True, chunk=9,
                                  hands=True, progress=False, log=tmp_path / "ref.jsonl")
    monkeypatch.setattr(engine_mod, "BATCH_SECONDS", batch_seconds)   # 1 game a batch, or 4, 16
    got, got_h = run_play_columns(RULES, "expert,beginner", 9, 5, rotate=True, chunk=9,
                                  hands=True, progress=False, log=tmp_path / "got.jsonl")
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(ref))
    pd.testing.assert_frame_equal(pd.DataFrame(got_h), pd.DataFrame(ref_h))
    assert (tmp_path / "got.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
