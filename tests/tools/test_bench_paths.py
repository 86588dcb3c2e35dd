"""fastmach bench solver's table of search paths: each position is named by the searches
the solver ran on it, and the table adds up."""
import numpy as np
import pytest

from fastmach.core import _solver
from fastmach.core.cards import NCARD
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench_paths import PATHS, bench_paths, format_paths, search_path


def _counts(*cards):
    a = np.zeros(NCARD, dtype=np.uint8)
    for s, r in cards:
        a[s * 13 + r - 1] += 1
    return a


def _path_of(table, hand, rules="classic"):
    r = resolve_rules(rules)
    w, jw = weights(r, "cards")
    _solver._set_memo(0)
    try:
        _solver.solve_counts(table, hand, r.decks, r.ace_code, r.jokers_per_meld, w, jw)
        return search_path(_solver._sweep_stats())
    finally:
        _solver._set_memo(1)


def test_search_path_names_each_sequence_of_sweeps():
    # (states, bound, aces high, best value, relaxed)
    assert search_path([]) == "aces low"
    assert search_path([(10, -1, 0, 5, 0)]) == "aces low"
    assert search_path([(10, -1, 1, 5, 0)]) == "aces high only"
    assert search_path([(10, -1, 0, -1, 0), (20, -1, 1, 5, 0)]) == "low failed, high"
    assert search_path([(10, -1, 0, 5, 0), (20, 5, 1, -1, 0)]) == "high confirms low"
    assert search_path([(10, -1, 0, 5, 0), (20, 5, 1, 6, 0)]) == "high beats low"
    # the relaxation (relaxed = 1) confirmed by aces high, then the exact search beaten
    assert search_path([(10, -1, 0, 5, 1), (20, 5, 1, -1, 1),
                        (30, -1, 0, 5, 0), (40, 5, 1, 6, 0)]) == "high beats low"


def test_a_run_with_no_queen_king_ace_is_solved_with_aces_low_only():
    assert _path_of(_counts((0, 3), (0, 4), (0, 5)), _counts((1, 9))) == "aces low"


def test_a_table_queen_king_ace_needs_the_search_with_aces_high():
    path = _path_of(_counts((0, 12), (0, 13), (0, 1)), _counts((2, 5)))
    assert path in ("aces high only", "low failed, high")


def test_a_hand_queen_king_ace_beats_the_aces_low_answer():
    # (low cards too: a hand heavy in high ranks is solved mirrored, Q-K-A as A-2-3)
    hand = _counts((0, 12), (0, 13), (0, 1), (1, 2), (1, 3), (1, 4))
    assert _path_of(_counts(), hand) == "high beats low"


def test_an_ace_low_run_as_good_as_the_high_one_is_confirmed():
    hand = _counts((0, 1), (0, 2), (0, 3), (0, 12), (0, 13))
    assert _path_of(_counts(), hand) == "high confirms low"


def test_the_table_counts_every_position_once_and_every_nanosecond():
    rows = bench_paths(games=2, rules_names=("classic",))
    assert {r["path"] for r in rows} <= set(PATHS)
    from fastmach.tools.bench import game_positions
    tables, _ = game_positions("classic", games=2, seed=1)
    assert sum(r["positions"] for r in rows) == len(tables)
    assert sum(r["time_share"] for r in rows) == pytest.approx(1.0)
    assert all(0.0 <= r["plays"] <= 1.0 for r in rows)
    text = format_paths(rows)
    assert all(r["path"] in text for r in rows)


def test_the_sweep_of_the_returned_partition_is_told_from_the_proofs():
    from fastmach.tools.bench_paths import answer_sweep, proof_states
    assert answer_sweep([]) is None
    assert answer_sweep([(10, -1, 0, 5, 0)]) == 0
    # a confirmation: the aces-low sweep's partition is returned, the high one a proof
    confirm = [(10, -1, 0, 5, 0), (20, 5, 1, -1, 0)]
    assert answer_sweep(confirm) == 0 and proof_states(confirm) == 20
    # aces high beats aces low: the low sweep is the proof
    beats = [(10, -1, 0, 5, 0), (20, 5, 1, 6, 0)]
    assert answer_sweep(beats) == 1 and proof_states(beats) == 10
    # the deepening: rounds that fell short (best at or below the bound) are proofs
    deep = [(5, 40, 0, -1, 0), (8, 36, 0, 30, 0), (12, 20, 0, 33, 0)]
    assert answer_sweep(deep) == 2 and proof_states(deep) == 13
    # no partition at all: every state was a proof
    none = [(10, -1, 0, -1, 0), (20, -1, 1, -1, 0)]
    assert answer_sweep(none) is None and proof_states(none) == 30
    # a relaxation not kept, then the exact search: only the last pass can return one
    relaxed = [(10, -1, 0, 5, 1), (20, 5, 1, 7, 1), (30, -1, 0, 5, 0), (40, 5, 1, -1, 0)]
    assert answer_sweep(relaxed) == 2 and proof_states(relaxed) == 70


def test_a_confirmed_aces_low_answer_counts_the_high_search_as_proof():
    hand = _counts((0, 1), (0, 2), (0, 3), (0, 12), (0, 13))
    r = resolve_rules("classic")
    w, jw = weights(r, "cards")
    _solver._set_memo(0)
    try:
        _solver.solve_counts(_counts(), hand, r.decks, r.ace_code, r.jokers_per_meld, w, jw)
        st = _solver._sweep_stats()
    finally:
        _solver._set_memo(1)
    from fastmach.tools.bench_paths import proof_states
    assert search_path(st) == "high confirms low"
    assert proof_states(st) == sum(s[0] for s in st if s[2])   # the aces-high sweep's


def test_the_proof_share_is_a_share_of_each_paths_states():
    rows = bench_paths(games=2, rules_names=("classic",))
    for r in rows:
        assert 0.0 <= r["proof_share"] <= 1.0
        if r["path"] == "aces low":
            assert r["proof_share"] < 0.5
        if r["path"] == "high confirms low":
            assert r["proof_share"] > 0.0
    assert "proofs" in format_paths(rows)
