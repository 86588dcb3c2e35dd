"""A study's precision: sweeps grow chunk by chunk, identical to a fixed-size run."""

import pandas as pd
import pytest

from fastmach.errors import FastmachError
from fastmach.study.precision import execute_to_precision, half_widths
from fastmach.study import Study
from fastmach.study.driver import execute
from fastmach.study.results import read_hands, read_results

BASE = """[study]
name = "prec"
seed = 3
games = 10
chunk = 10
{extra}

[grid]
rules = ["jokers", "classic"]
players = [3]
lineup = [["expert"]]
"""


def study(extra: str) -> Study:
    return Study.from_toml(BASE.format(extra=extra))


def run(s: Study, out):
    return execute_to_precision(s, out, workers=0, progress=False, command="test")


def test_grown_run_equals_a_fixed_size_run(tmp_path, capsys):
    s = study("precision = { turns_per_hand = 5.0 }\nmax_games = 60")
    summary = run(s, tmp_path / "grown")
    n = summary["precision_games"]
    assert 10 < n <= 60 and n % 10 == 0
    widths = half_widths(read_hands(tmp_path / "grown"))
    assert (widths["turns_per_hand"] <= 5.0).all()
    # one chunk fewer was not enough: growth stopped at the first size that reached it
    fixed = s.replace(games=n - 10, precision=(), max_games=None)
    execute(fixed, tmp_path / "smaller", workers=0, progress=False, command="test")
    w = half_widths(read_hands(tmp_path / "smaller"))
    assert (w["turns_per_hand"] > 5.0).any()
    fixed = s.replace(games=n, precision=(), max_games=None)
    execute(fixed, tmp_path / "fixed", workers=0, progress=False, command="test")
    for read in (read_results, read_hands):
        pd.testing.assert_frame_equal(read(tmp_path / "grown"), read(tmp_path / "fixed"))
    assert "precision reached" in capsys.readouterr().err


def test_cells_that_miss_the_precision_are_named(tmp_path, capsys):
    s = study("precision = { turns_per_hand = 0.01, win_share = 0.5 }\nmax_games = 20")
    summary = run(s, tmp_path / "r")
    assert summary["precision_games"] == 20
    missed = summary["precision_missed"]
    assert set(missed) == {"jokers|players=3|lineup=expert|rotate=false",
                           "classic|players=3|lineup=expert|rotate=false"}
    err = capsys.readouterr().err
    assert "not reached by max_games = 20 in 2 of 2 cells" in err
    assert "jokers|players=3|lineup=expert|rotate=false: turns_per_hand +-" in err


@pytest.mark.parametrize("extra, message", [
    ("precision = { turns_per_hand = 1.0 }", "max_games"),
    ("precision = { length = 1.0 }\nmax_games = 20", "unknown figure 'length'"),
    ("precision = { win_share = -0.1 }\nmax_games = 20", "positive half-width"),
    ("precision = 0.5\nmax_games = 20", "expected a table"),
    ("precision = { win_share = 0.1 }\nmax_games = 25", "multiple of chunk"),
    ("precision = { win_share = 0.1 }\nmax_games = 5", "integer >= games"),
])
def test_bad_precision_is_refused_naming_the_key(extra, message):
    with pytest.raises(FastmachError, match=message):
        study(extra)


def test_precision_round_trips_through_the_manifest_text():
    s = study("precision = { win_share = 0.03, turns_per_hand = 1.5 }\nmax_games = 40")
    again = Study.from_toml(s.to_toml())
    assert again == s and dict(again.precision) == {"turns_per_hand": 1.5, "win_share": 0.03}


def test_a_result_directory_grows_but_does_not_shrink_or_change(tmp_path):
    s = study("precision = { turns_per_hand = 1.0 }\nmax_games = 40")
    execute(s, tmp_path / "r", workers=0, progress=False, command="test")
    execute(s.replace(games=20), tmp_path / "r", workers=0, progress=False, command="test")
    assert len(read_results(tmp_path / "r")) == 40
    with pytest.raises(FastmachError, match="different study"):
        execute(s.replace(games=10), tmp_path / "r", workers=0, progress=False,
                command="test")
    with pytest.raises(FastmachError, match="different study"):
        execute(s.replace(games=30, seed=4), tmp_path / "r", workers=0, progress=False,
                command="test")
    plain = study("")  # without a precision, a study's size is part of its identity
    execute(plain, tmp_path / "p", workers=0, progress=False, command="test")
    with pytest.raises(FastmachError, match="different study"):
        execute(plain.replace(games=20), tmp_path / "p", workers=0, progress=False,
                command="test")


def test_every_round_runs_on_one_pool_and_equals_the_inline_run(tmp_path, monkeypatch):
    from fastmach.study import backends

    started = []
    init = backends._Processes.__init__

    def counting(self, *a, **kw):
        started.append(1)
        init(self, *a, **kw)

    monkeypatch.setattr(backends._Processes, "__init__", counting)
    s = study("precision = { turns_per_hand = 5.0 }\nmax_games = 60")
    pooled = execute_to_precision(s, tmp_path / "pool", workers=2, progress=False,
                                  command="test")
    inline = run(s, tmp_path / "inline")
    assert pooled["rounds"] > 1 and len(started) == 1
    assert pooled["precision_games"] == inline["precision_games"]
    pd.testing.assert_frame_equal(read_results(tmp_path / "pool"),
                                  read_results(tmp_path / "inline"))


def test_half_widths_are_the_scorecard_and_seat_table_intervals(tmp_path):
    from fastmach.analysis import stats
    s = study("").replace(games=30)
    execute(s, tmp_path / "r", workers=0, progress=False, command="test")
    games, hands = read_results(tmp_path / "r"), read_hands(tmp_path / "r")
    got = half_widths(hands)
    card = stats.scorecard(games, hands).set_index("cell")
    seats = stats.seat_table(hands)
    q = seats["deals"].map(lambda d: stats.t_quantile(0.975, d - 1))
    seat_hw = (q * seats["se"]).groupby(seats["cell"]).max()
    assert list(got.index) == sorted(card.index)
    for cell in card.index:
        assert got.loc[cell, "deals"] == card.loc[cell, "deals"] == 30
        assert got.loc[cell, "turns_per_hand"] == pytest.approx(
            (card.loc[cell, "turns_per_hand_hi"] - card.loc[cell, "turns_per_hand_lo"]) / 2,
            rel=1e-12)
        assert got.loc[cell, "win_share"] == pytest.approx(seat_hw[cell], rel=1e-12)


def test_a_growing_study_reads_each_chunk_once_and_still_refuses_an_altered_one(tmp_path):
    from fastmach.study.store import ReadCache
    s = study("precision = { turns_per_hand = 0.01 }\nmax_games = 30").replace(games=20)
    execute(s, tmp_path / "r", workers=0, progress=False, command="test")
    cache = ReadCache()
    first = read_hands(tmp_path / "r", cache=cache)
    assert len(cache.tables) == 4  # 2 cells x 2 chunks of hand rows
    kept = dict(cache.tables)
    pd.testing.assert_frame_equal(read_hands(tmp_path / "r", cache=cache), first)
    assert all(cache.tables[k] is kept[k] for k in kept)  # nothing read again
    grown = s.replace(games=30)
    execute(grown, tmp_path / "r", workers=0, progress=False, command="test")
    pd.testing.assert_frame_equal(read_hands(tmp_path / "r", grown, cache=cache),
                                  read_hands(tmp_path / "r", grown))
    assert len(cache.tables) == 6
    victim = sorted((tmp_path / "r" / "_hands").glob("*.parquet"))[0]
    victim.write_bytes(victim.read_bytes() + b"x")  # a size change is seen without hashing
    with pytest.raises(FastmachError, match="altered"):
        read_hands(tmp_path / "r", grown, cache=cache)
