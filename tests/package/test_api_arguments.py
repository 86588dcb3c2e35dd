"""The Python API's arguments of the wrong kind: a FastmachError naming the argument, never
a TypeError from deep inside, a silent truncation or an allocation the size of a bad
count; NumPy integers are taken wherever a Python int is."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import fastmach
from fastmach import Play
from fastmach.core import _solver
from fastmach.engine import run_play
from fastmach.errors import FastmachError
from fastmach.study.results import read_results

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("call, words", [
    (lambda: fastmach.solve_many(None, None), "tables: expected a sequence"),
    (lambda: fastmach.solve_many(["5C 6C 7C"], "8C"), "hands: expected a sequence"),
    (lambda: fastmach.solve_many(5, [[]]), "tables: expected a sequence"),
    (lambda: fastmach.read_hands(None), "out=None: expected a result directory"),
    (lambda: read_results(3), "out=3: expected a result directory"),
    (lambda: fastmach.tune(None, "out", max_games=2000), "search space: expected a file path "
                                                         "or TOML text, got NoneType"),
    (lambda: fastmach.play_games("classic(match=single)", ["expert"] * 4, 0, [0], log=7),
     "log=7: expected a file path"),
    (lambda: fastmach.run_study(str(ROOT / "simulations/balance.toml")), "study: expected a Study"),
    (lambda: fastmach.run_study(fastmach.Study.from_toml(ROOT / "simulations/balance.toml"), 5),
     "out=5: expected a result directory"),
    # (a chunk of 1.5 played a replicate twice; a threshold of NaN passed any opening)
    (lambda: run_play("classic(match=single)", "expert", 3, 1, progress=False,
                      chunk=1.5), r"chunk=1\.5: must be a positive integer"),
    (lambda: run_play("classic(match=single)", "expert", 3, 1, progress=False,
                      chunk=True), r"chunk=True: must be a positive integer"),
    (lambda: run_play("classic(match=single)", [], 2, 1, progress=False),
     "strategies: no strategy given"),
    (lambda: run_play("classic(match=single)", None, 2, 1, progress=False),
     "strategies: expected a comma-separated string or a list of strategies, got None"),
    (lambda: fastmach.build_report(None), "results_dir=None: expected a result directory"),
    (lambda: fastmach.build_report(ROOT, 5), "out_dir=5: expected a directory path"),
    (lambda: fastmach.build_report(ROOT, pairs="x"), "pairs: expected \\(variant, baseline\\)"),
    (lambda: fastmach.build_report(ROOT, progress=5), "progress: expected a function"),
    (lambda: fastmach.Study.from_dict(None), "expected the study's tables as a mapping"),
    (lambda: fastmach.Study.from_dict([]), "expected the study's tables as a mapping"),
    (lambda: fastmach.Study.from_toml(""), r"study file: empty \(expected a file path"),
    (lambda: fastmach.opening("AS 2S 3S KH KD KC", "classic", float("nan")),
     r"threshold=nan: expected a whole number of points"),
    (lambda: fastmach.opening("AS 2S 3S KH KD KC", "classic", "10"),
     r"threshold='10': expected a whole number of points"),
])
def test_an_argument_of_the_wrong_kind_is_named(call, words):
    with pytest.raises(FastmachError, match=words):
        call()


def test_tune_names_an_out_that_is_no_path(tmp_path):
    space = tmp_path / "space.toml"
    space.write_text((ROOT / "simulations/tune-example.toml").read_text())
    with pytest.raises(FastmachError, match=r"out=None: expected a directory path"):
        fastmach.tune(space, None, max_games=100_000)


@pytest.mark.parametrize("card", [7.0, 7.9, "7", None])
def test_a_play_of_card_ids_that_are_no_integers_is_refused_not_truncated(card):
    for fields in (([[card, 8, 9]], [8]), ([[7, 8, 9]], [card]), ([[7, 8, 9]], [7], [card]),
                   ([[7, 8, 9]], [7], (), [[card, 8, 9]])):
        with pytest.raises(FastmachError, match=r"Play: a card id must be an integer, got "):
            Play(*fields)


def test_a_play_takes_numpy_integers_by_their_value():
    p = Play([[np.int64(7), np.uint8(8), 9]], [np.int32(9), np.int64(7)], [np.int16(52)])
    assert p == Play([[7, 8, 9]], [7, 9], [52])
    assert all(type(c) is int for c in p.melds[0] + p.placed + p.taken)


@pytest.mark.parametrize("count", [2**62, 10**9, 256])
def test_a_huge_count_is_refused_before_the_counts_are_expanded(count):
    table = np.zeros(53, dtype=np.int64)
    table[0] = count
    t0 = time.perf_counter()
    with pytest.raises(FastmachError, match=r"more than 255 copies of AS"):
        fastmach.solve(table, "2S", "classic")
    # (expanding 10**9 copies would take seconds and gigabytes, 2**62 a ValueError)
    assert time.perf_counter() - t0 < 1.0


def test_the_state_limit_in_a_game_is_a_fastmach_error_as_in_solve():
    _solver._set_state_limit(4096)   # (a solver starts with 4,096 states)
    try:
        with pytest.raises(FastmachError, match=r"too large for the exact solver \(its state "
                                                r"limit\) in hand 0 of replicate \d+: no move "
                                                r"is guessed"):
            fastmach.play_games("jokers(match=single)", ["expert"] * 4, 0, range(5))
    finally:
        _solver._set_state_limit(0)
    assert len(fastmach.play_games("jokers(match=single)", ["expert"] * 4, 0, range(5))) == 5


def test_compare_takes_numpy_integers_for_its_counts_and_seed(tmp_path):
    from fastmach.tools.comparison import plan_study
    a = plan_study(["classic", "jokers"], np.int64(3), None, games=np.int64(40),
                   seed=np.uint32(5), chunk=20)
    b = plan_study(["classic", "jokers"], 3, None, games=40, seed=5, chunk=20)
    assert a.to_toml() == b.to_toml()
    a = plan_study(["classic", "jokers"], [np.int64(3), np.int8(4)], None, games=40, seed=5,
                   chunk=20)
    assert a.to_toml() == plan_study(["classic", "jokers"], [3, 4], None, games=40, seed=5,
                                     chunk=20).to_toml()
    with pytest.raises(FastmachError, match=r"players: expected integers 2..8, got True"):
        plan_study(["classic", "jokers"], [True], None, games=40, seed=5, chunk=20)
    with pytest.raises(FastmachError, match=r"players: expected integers 2..8, got 4.0"):
        plan_study(["classic", "jokers"], [4.0], None, games=40, seed=5, chunk=20)


def test_the_environments_take_a_numpy_max_turns_and_refuse_a_bool():
    import fastmach.env as fe
    e = fe.raw_env("classic(players=3)", max_turns=np.int64(3))
    assert e.max_turns == 3 and type(e.max_turns) is int
    s = fe.SingleAgentEnv("classic(players=3)", max_turns=np.int32(4))
    assert s.max_turns == 4 and type(s.max_turns) is int
    for make in (fe.raw_env, fe.SingleAgentEnv):
        with pytest.raises(FastmachError, match=r"max_turns must be a positive integer"):
            make("classic(players=3)", max_turns=True)


def test_rate_tune_sweep_and_replay_take_numpy_integers_and_refuse_bools(tmp_path):
    from fastmach.analysis.ratings import check_resamples
    from fastmach.game.replay_workers import replay_parallel
    from fastmach.study.driver import check_run
    from fastmach.tools.rate import plan_rate
    from fastmach.tools.tune import load_space
    from fastmach.tools.tune.run import _check_budget

    a = plan_rate("expert,beginner", "classic", np.int64(3), games=np.int64(20),
                  seed=np.uint16(4), chunk=np.int32(10), max_lineups=np.int8(4))
    b = plan_rate("expert,beginner", "classic", 3, games=20, seed=4, chunk=10, max_lineups=4)
    assert [s.to_toml() for s in a.studies] == [s.to_toml() for s in b.studies]
    assert a.players == (3,) and type(a.players[0]) is int
    for bad in ({"players": True}, {"games": True}, {"seed": 4.0}, {"players": [3.0]}):
        with pytest.raises(FastmachError, match=f"{next(iter(bad))}: expected"):
            plan_rate("expert,beginner", "classic", **{"players": 3, **bad})
    assert check_run(np.int64(0), None) == (0, None) and type(check_run(np.int8(1), None)[0]) is int
    with pytest.raises(FastmachError, match="workers=True: must be an integer"):
        check_run(True, None)
    assert check_resamples(np.int32(50)) == 50
    with pytest.raises(FastmachError, match="bootstrap: expected an integer >= 0, got False"):
        check_resamples(False)
    space = load_space(ROOT / "simulations/tune-example.toml")
    assert _check_budget(space, np.int64(100_000)) == _check_budget(space, 100_000)
    with pytest.raises(FastmachError, match="max_games: expected an integer >= 1, got True"):
        _check_budget(space, True)
    log = tmp_path / "g.jsonl"
    fastmach.play_games("classic(match=single)", ["expert"] * 4, 0, [0, 1], log=log)
    assert replay_parallel(log, workers=np.int64(2), run=map) == replay_parallel(log, workers=1)
    with pytest.raises(FastmachError, match="workers must be a positive integer, got True"):
        replay_parallel(log, workers=True)


def test_read_results_is_the_packages_verified_reader_of_game_rows(tmp_path):
    """fastmach.read_results names a chunk the manifest does not record, where
    pandas.read_parquet(DIR) would read it with the study's rows."""
    study = fastmach.Study.from_toml(
        '[study]\nname = "r"\nseed = 3\ngames = 4\nchunk = 2\n[grid]\nrules = ["classic"]\n'
        'players = [2]\nlineup = [["expert"]]\n')
    fastmach.run_study(study, tmp_path / "s", workers=0, progress=False)
    games = fastmach.read_results(tmp_path / "s")
    assert len(games) == 4 and list(games["replicate"]) == [0, 1, 2, 3]
    chunk = next((tmp_path / "s" / "chunks").glob("*.parquet"))
    (tmp_path / "s" / "chunks" / ("x" + chunk.name)).write_bytes(chunk.read_bytes())
    with pytest.raises(FastmachError, match="x" + chunk.name[:8]):
        fastmach.read_results(tmp_path / "s")


def test_replay_parallel_refuses_more_workers_than_the_machine_runs(tmp_path):
    from fastmach.core.workers import max_local_workers
    from fastmach.game.replay_workers import replay_parallel

    with pytest.raises(FastmachError, match=rf"^workers={max_local_workers() + 1}: more "
                                            "worker processes than this machine"):
        replay_parallel(tmp_path / "none.log", workers=max_local_workers() + 1, run=map)


def test_rules_of_an_unknown_parameter_or_positional_arguments_is_a_named_error():
    with pytest.raises(FastmachError, match=r"^unknown rules parameter 'nosuch'; known: "):
        fastmach.Rules(nosuch=1)
    with pytest.raises(FastmachError, match=r"^Rules takes its parameters by name"):
        fastmach.Rules("classic")
    assert fastmach.Rules(players=3, preset="jokers").players == 3


@pytest.mark.parametrize("log, words", [
    ("/sys/fastmach-test.jsonl", r"^log='/sys/fastmach-test.jsonl': cannot write there "
                                 r"\(Permission denied\)"),
    ("/proc/fastmach-test.jsonl", r"^log='/proc/fastmach-test.jsonl': cannot write there"),
])
def test_play_games_names_a_log_it_cannot_write_before_the_games(log, words):
    with pytest.raises(FastmachError, match=words):
        fastmach.play_games("classic(match=single)", ["expert"] * 4, 0, [0], log=log)


@pytest.mark.parametrize("row", [1.5, 0.9, True, "0", None])
def test_a_batch_row_that_is_no_row_number_is_refused_not_truncated(row):
    batch = fastmach.solve_many(["5C 6C 7C 8C"] * 2, ["8D 8H", "KS"])
    for read in (batch.melds, batch.solution):
        with pytest.raises(FastmachError, match=r"expected a row number 0\.\.1"):
            read(row)
    assert batch.melds(np.int64(1)) == batch.melds(1)


@pytest.mark.parametrize("seat", [-1, 4, 1.5, True, None, "0"])
def test_a_states_seat_out_of_range_or_of_another_kind_is_named(seat):
    """hand_of(-1) gave the last seat's hand and can_play(-1) False; others raised deep."""
    state = fastmach.Game("classic(match=single)", ["expert"] * 4).new_initial_state(1)
    for what in ("hand_of", "can_play", "observation"):
        with pytest.raises(FastmachError, match=rf"^{what}: seat must be 0\.\.3, got "):
            getattr(state, what)(seat)
    assert state.hand_of(np.int64(2)) == state.hands[2]


R2 = ["classic(match=single)", "classic(match=single,jokers=2)"]


@pytest.mark.parametrize("call, words", [
    (lambda: fastmach.compare(R2, players=2.0, lineups=["expert"], games=2, workers=0),
     r"players: expected an integer 2\.\.8 or a list of them, got 2\.0"),
    (lambda: fastmach.compare(R2, players=[2], lineups=5, games=2, workers=0),
     r"lineups: expected line-ups"),
    (lambda: fastmach.compare(R2, players=[2], lineups=["expert"], precision=True,
                              max_games=100, chunk=100, workers=0), r"precision: expected"),
    (lambda: fastmach.compare(R2, players=[2], lineups=["expert"], precision=1.0,
                              max_games=100, chunk=0, workers=0),
     r"chunk: expected an integer >= 1, got 0"),
    (lambda: fastmach.compare(R2, players=[2], lineups=["expert"], games=2, workers=0, out=5),
     r"out=5: expected a directory path"),
    (lambda: fastmach.rate("expert,beginner", 5, 2, games=2, workers=0),
     r"rules: expected a preset or rules string, or a list of them, got 5"),
    (lambda: fastmach.rate("expert,beginner", "classic(match=single)", 2, games=2,
                           workers=0, out=5), r"out=5: expected a directory path"),
    (lambda: fastmach.rate("expert,beginner", "classic(match=single)", 2, games=2,
                           scheduler=5), r"scheduler=5: expected 'local' or an address"),
])
def test_compare_and_rate_name_an_argument_of_the_wrong_kind(call, words):
    """Each was a TypeError or ZeroDivisionError from inside."""
    with pytest.raises(FastmachError, match=words):
        call()
