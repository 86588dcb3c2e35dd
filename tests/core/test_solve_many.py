"""solve_many and the thin fastmach.solve against the plain solve path, row by row.

The reference (``reference_solve``) is the pre-batch path spelled out: cards parsed, the
copies checked, the table solved alone to check it (``_solver.solve_counts``), then the
position solved. fastmach.solve, solve_many (count arrays and sequences, 1-3 workers,
tables as melds, trusted tables) must give the same placed cards, value and error on the
suite's reference positions (tests/positions.py), invalid and over-full rows mid-batch
included, for every rule family and both objectives. The compiled meld check is compared
with fastmach.core.validate.
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import fastmach
from fastmach import FastmachError, Rules
from fastmach.core import _batch, _solver
from fastmach.core.cards import check_copies, parse_cards
from fastmach.solver import weights
from fastmach.core.validate import check_partition, is_valid_meld
from tests.positions import (ADVERSARIAL, JOKER, NCARD, RULES_GRID, counts, game_positions,
                             listing, rand_hand, rand_meld, rand_table, rules_id, text)


def _rules(rules: dict, hand_points: str = "face-ace11") -> Rules:
    return Rules(decks=rules["decks"], jokers=4, jokers_per_meld=rules["jokers_per_meld"],
                 ace="low-or-high" if rules["ace_high"] else "low-only", hand_points=hand_points)


def reference_solve(table, hand, r: Rules, objective: str):
    """(placed ids, value) or the error message, by the plain path (no _batch code)."""
    try:
        tc = [c for m in table for c in parse_cards(list(m))] \
            if table and isinstance(table[0], (list, tuple)) else parse_cards(table)
        hc = parse_cards(hand)
        t, h = counts(tc), counts(hc)
        check_copies(t.astype(np.int64) + h, r.decks, r.jokers)
    except FastmachError as e:
        return str(e)
    w, jw = weights(r, objective)
    if _solver.solve_counts(t, np.zeros(NCARD, np.uint8), r.decks, r.ace_high,
                            r.jokers_per_meld, w, jw, False)[0] < 0:
        return "the table does not split into valid melds: " + text(tc)
    total, placed, _, _ = _solver.solve_counts(t, h, r.decks, r.ace_high, r.jokers_per_meld,
                                               w, jw, False)
    got = listing(placed)
    value = sum(int(w[c]) for c in got)
    return got, value // 256 if objective == "points" else value


def _melds_of(table: list[int], r: Rules):
    """The table as melds (a partition of it), or None when it has none."""
    w, jw = weights(r, "cards")
    total, _, melds, _ = _solver.solve_counts(counts(table), np.zeros(NCARD, np.uint8),
                                              r.decks, r.ace_high, r.jokers_per_meld, w, jw)
    return None if total < 0 else melds


def _positions(rules: dict, seed: str, n: int = 40):
    """Reference positions: random and adversarial, with invalid tables, too many copies
    and a bad card mixed in (tables and hands as card-id lists)."""
    rng = random.Random(seed)
    out = []
    kinds = sorted(ADVERSARIAL)
    for i in range(n):
        if i % 3 == 0:
            table, hand = ADVERSARIAL[kinds[(i // 3) % len(kinds)]](rng, rules)
        else:
            table = rand_table(rng, rng.randint(0, 30), rules, max_jokers=rng.choice((0, 1, 2)))
            k = Counter(table)[JOKER]
            hand = rand_hand(rng, table, rules["decks"], rng.randint(0, 9),
                             jokers=rng.choice((0, 0, 1)) if k < 2 else 0)
        if i % 7 == 3 and table:
            table = sorted(table)[1:]                     # often no longer valid melds
        if i % 11 == 5:
            hand = hand + [table[0] if table else 0] * (rules["decks"] + 1)   # too many
        out.append((list(table), list(hand)))
    return out


def _agree(batch, i, ref, sol_or_err):
    if isinstance(ref, str):
        assert batch.status[i] < 0 and batch.errors[i] == ref, (i, batch.errors[i], ref)
        assert batch.n_placed[i] == -1 and batch.value[i] == -1 and batch.placed[i].sum() == 0
        assert sol_or_err == ref
        return
    placed, value = ref
    assert batch.status[i] == 0 and batch.errors[i] is None, batch.errors[i]
    assert listing(batch.placed[i]) == placed and batch.value[i] == value
    assert batch.n_placed[i] == len(placed)
    assert sol_or_err.placed == placed and sol_or_err.points == value


def _solve_or_message(table, hand, r, objective, **kw):
    try:
        return fastmach.solve(table, hand, r, objective, **kw)
    except FastmachError as e:
        return str(e)


@pytest.mark.parametrize("objective", ["cards", "points"])
@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_solve_many_agrees_with_solve_and_the_reference(rules, objective):
    r = _rules(rules)
    pos = _positions(rules, f"many-{rules_id(rules)}-{objective}")
    refs = [reference_solve(t, h, r, objective) for t, h in pos]
    kinds = Counter(type(x).__name__ for x in refs)
    assert kinds["str"] >= 4 and kinds["tuple"] >= 25          # errors mid-batch, answers
    assert sum(1 for x in refs if not isinstance(x, str) and x[0]) >= 10
    T = np.array([counts(t) for t, _ in pos])
    H = np.array([counts(h) for _, h in pos])
    by_counts = fastmach.solve_many(T, H, r, objective)
    by_lists = fastmach.solve_many([t for t, _ in pos], [h for _, h in pos], r, objective,
                                   workers=2, keep_melds=True)
    for i, ((t, h), ref) in enumerate(zip(pos, refs)):
        sol = _solve_or_message(t, h, r, objective)
        _agree(by_counts, i, ref, sol)
        _agree(by_lists, i, ref, sol)
        if not isinstance(ref, str):
            assert by_lists.melds(i) == sol.melds == by_counts.melds(i)
            check_partition(sol.melds, t + sol.placed, **rules)


@pytest.mark.parametrize("rules", RULES_GRID, ids=rules_id)
def test_tables_given_as_melds_or_trusted_give_the_same_answers(rules):
    """A table given as valid melds skips the whole-table check; one given as melds of
    which some are not valid is checked whole (it may still split another way)."""
    r = _rules(rules)
    rng = random.Random(f"melds-{rules_id(rules)}")
    seen_invalid_meld = 0
    for _ in range(40):
        table = rand_table(rng, rng.randint(3, 40), rules, max_jokers=rng.choice((0, 2)))
        hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 8))
        melds = _melds_of(table, r)
        assert melds is not None
        if rng.random() < 0.3 and len(melds) >= 2:      # merge two melds: maybe invalid
            melds = [melds[0] + melds[1]] + melds[2:]
            seen_invalid_meld += not all(
                is_valid_meld(m, ace_high=rules["ace_high"], jokers_per_meld=rules["jokers_per_meld"])
                for m in melds)
        ref = reference_solve(table, hand, r, "cards")
        for kw in ({}, {"trusted": True}):
            sol = fastmach.solve(melds, hand, r, **kw)
            assert (sol.placed, sol.points) == ref
        b = fastmach.solve_many([melds], [hand], r)
        assert listing(b.placed[0]) == ref[0]
    assert seen_invalid_meld >= 3


def test_melds_that_are_not_valid_still_name_an_invalid_table():
    r = Rules.parse("classic")
    with pytest.raises(FastmachError, match="does not split"):
        fastmach.solve([[4, 5], [7, 8, 9]], [6], r)       # 5S 6S | 8S 9S 10S; 7S in hand
    sol = fastmach.solve([[4, 5], [6, 7, 8]], [17], r)     # 5S6S + 7S8S9S is one run
    assert sol.placed == [] and sorted(c for m in sol.melds for c in m) == [4, 5, 6, 7, 8]
    b = fastmach.solve_many([[[4, 5], [7, 8, 9]], [[4, 5, 6]]], [[6], [7]], r)
    assert b.status.tolist() == [-1, 0] and "does not split" in b.errors[0]
    assert listing(b.placed[1]) == [7]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_answers_do_not_depend_on_the_number_of_workers(workers):
    r = Rules.parse("jokers")
    rules = dict(decks=2, ace_high=True, jokers_per_meld=1)
    pos = _positions(rules, "workers", n=60)
    T = np.array([counts(t) for t, _ in pos])
    H = np.array([counts(h) for _, h in pos])
    one = fastmach.solve_many(T, H, r)
    got = fastmach.solve_many(T, H, r, workers=workers, keep_melds=True)
    for a in ("placed", "value", "status", "n_placed"):
        assert np.array_equal(getattr(one, a), getattr(got, a))
    assert one.errors == got.errors
    for i in np.flatnonzero(one.ok)[:20]:
        assert one.melds(i) == got.melds(i)


def test_game_positions_trusted_like_an_observation():
    """Tables of real games (valid by construction) as melds, trusted or checked."""
    r, states = game_positions("classic(match=single)", ["expert"], games=6, seed=14)
    states = states[::3][:80]
    assert len(states) >= 30
    melds = [[list(m) for m in st._melds] for st in states]
    hands = [st.hand_of(st.current_player) for st in states]
    b = fastmach.solve_many(melds, hands, r, workers=2)
    for i, (m, h) in enumerate(zip(melds, hands)):
        flat = [c for x in m for c in x]
        ref = reference_solve(flat, h, r, "cards")
        sol = fastmach.solve(m, h, r, trusted=True)
        _agree(b, i, ref, sol)


def test_compiled_meld_check_matches_validate():
    rng = random.Random("meld-check")
    n_valid = n_invalid = 0
    for trial in range(3000):
        ah, lim = rng.random() < 0.5, rng.choice((0, 1))
        if trial % 2:
            meld = rand_meld(rng, ah, lim, rng.random() < 0.4)
            if rng.random() < 0.5:                       # perturb it
                meld = meld[:] + [rng.randrange(53)] if rng.random() < 0.5 else meld[1:]
        else:
            meld = [rng.choice([rng.randrange(52), JOKER]) for _ in range(rng.randint(1, 6))]
        want = is_valid_meld(meld, ace_high=ah, jokers_per_meld=lim)
        assert _batch.meld_ok(meld, ah, lim) == want, (text(meld), ah, lim)
        n_valid += want
        n_invalid += not want
    assert n_valid > 500 and n_invalid > 500


def test_to_counts_and_to_frame():
    T = fastmach.to_counts(["5C 6C 7C", [3, 3], [["AS", "2S", "3S"]], np.eye(NCARD, dtype=np.uint8)[52]])
    assert T.shape == (4, fastmach.NCARD) and T.dtype == np.uint8
    assert listing(T[1]) == [3, 3] and listing(T[2]) == [0, 1, 2] and listing(T[3]) == [52]
    with pytest.raises(FastmachError, match="row 1: bad card 'ZZ'"):
        fastmach.to_counts(["AS", "ZZ"])
    b = fastmach.solve_many(["5C 6C 7C 8C", "5C 6C", ""], ["8D 8H", "7C", "ZZ"], "classic")
    df = b.to_frame()
    assert list(df.columns) == ["n_placed", "value", "status", "error", "placed"]
    assert df["placed"][0] == "8H 8D" and df["n_placed"].tolist() == [2, -1, -1]
    assert df["status"].tolist() == [0, -1, -3] and "'ZZ'" in df["error"][2]
    with pytest.raises(FastmachError, match="row 1: the table does not split"):
        b.melds(1)
    assert b.solution(0) == fastmach.solve("5C 6C 7C 8C", "8D 8H")


@pytest.mark.parametrize("call,needle", [
    (lambda: fastmach.solve_many(np.zeros((2, 52), np.uint8), np.zeros((2, 52), np.uint8)), "shape"),
    (lambda: fastmach.solve_many(np.zeros((2, 53)), np.zeros((2, 53))), "integers"),
    (lambda: fastmach.solve_many(np.zeros((2, 53), np.int16) - 1, np.zeros((2, 53), np.int16)), "0..255"),
    (lambda: fastmach.solve_many(np.zeros((2, 53), np.uint8), np.zeros((3, 53), np.uint8)), "2 tables but 3 hands"),
    (lambda: fastmach.solve_many(np.zeros((2, 53), np.uint8), ["AS", "2S"]), "both"),
    (lambda: fastmach.solve_many([""], ["AS"], workers=0), "workers"),
    (lambda: fastmach.solve_many([""], ["AS"], objective="fun"), "objective"),
    (lambda: fastmach.solve_many([""], ["AS"], rules="clasic"), "clasic"),
])
def test_bad_batch_arguments_raise_naming_the_problem(call, needle):
    with pytest.raises(FastmachError, match=needle):
        call()


def test_every_input_form_of_solve_gives_the_same_answer():
    """Text, ids (list, tuple, numpy ints), count arrays, melds: one answer (the fast forms
    and the parsed ones), and the same errors."""
    r = Rules.parse("classic")
    table, hand = "5C 6C 7C 8C 10S JS QS", "8D 8H KS 2D"
    ref = fastmach.solve(table, hand, r)
    t, h = parse_cards(table), parse_cards(hand)
    forms = [(t, h), (tuple(t), tuple(h)), ([np.int64(c) for c in t], h),
             (counts(t), counts(h)), (counts(t).astype(np.int32), h),
             ([t[:4], t[4:]], h), ([tuple(t[:4]), tuple(t[4:])], counts(h)), (table, h)]
    for tt, hh in forms:
        sol = fastmach.solve(tt, hh, "classic")
        assert (sol.placed, sol.points) == (ref.placed, ref.points), (tt, hh)
        assert sorted(map(sorted, sol.melds)) == sorted(map(sorted, ref.melds))
    for tt in (counts([4, 5]), [4, 5], [[4, 5]], "5S 6S"):
        with pytest.raises(FastmachError, match="does not split into valid melds: 5S 6S"):
            fastmach.solve(tt, counts([6]), r)
    with pytest.raises(FastmachError, match="3 copies of 5S"):
        fastmach.solve(counts([4, 5, 6]), [4, 4], r)


def test_bench_reports_api_batch_and_c_program_side_by_side(tmp_path):
    """The solver bench puts the API, solve_many (1, 2 workers) and a C program in one
    table; a C program whose total disagrees is flagged (a stand-in program here)."""
    from fastmach.tools.bench import bench_solver_api, format_solver_api

    fake = tmp_path / "rummy_dp"
    fake.write_text("#!/bin/sh\ntest \"$1\" = bench && test -s \"$2\" && "
                    "echo 'positions=1 reps=1 checksum(sum of optima)=-5 cpu=0.010s'\n")
    fake.chmod(0o755)
    res = bench_solver_api(games=2, c_program=str(fake), repeats=1)
    assert res["c_checksum"] == -5 and res["checksum"] >= 0
    assert set(res["us"]) == {"c", "many1_cpu", "many1_wall", "many2_cpu", "many2_wall", "solve_cpu",
                              "trusted_cpu"}
    text = format_solver_api(res)
    for needle in ("C dynamic program", "solve_many, 1 worker", "solve_many, 2 workers",
                   "fastmach.solve per call", "2 workers vs 1", "DIFFER", "solve/compiled"):
        assert needle in text


def test_a_thread_count_past_what_the_machine_runs_is_refused_as_a_sweeps_workers(tmp_path,
                                                                                  capsys):
    from fastmach.cli import main
    from fastmach.core.workers import max_local_workers

    cap = max_local_workers()
    with pytest.raises(FastmachError, match=rf"^workers={cap + 1}: more threads than this "
                                            rf"machine runs usefully; at most {cap}"):
        fastmach.solve_many([""], ["AS"], workers=cap + 1)
    assert fastmach.solve_many([""], ["AS"], workers=np.int64(cap)).n_placed.tolist() == [0]
    f = tmp_path / "pos.jsonl"
    f.write_text('{"hand": ["8C"]}\n')
    assert main(["solve", "--batch", str(f), "--workers", "100000"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--workers 100000: more threads than this machine" in err
