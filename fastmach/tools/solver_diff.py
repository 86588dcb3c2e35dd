"""Compare the compiled solver's answers between two checkouts, position by position.

A developer's check for a solver change (no command: run it with each checkout on
``PYTHONPATH``)::

    python -c "from fastmach.tools.solver_diff import dump; dump('/tmp/a.pkl')"
    python -c "from fastmach.tools.solver_diff import compare; compare('/tmp/a.pkl', '/tmp/b.pkl')"

``dump`` solves the positions of 4-player expert games (those of ``bench solver``) under
the jokers, classic and italian rules and stores every answer (value, placed counts,
melds, stands); ``compare`` counts the positions whose value differs and those whose
answer differs at all (the partition returned). Each position is
solved by a fresh Solver with the memo off, so no answer depends on the one before.
"""
from __future__ import annotations

import pickle

import numpy as np

from fastmach.core import _solver
from fastmach.rules import resolve_rules
from fastmach.solver import weights
from fastmach.tools.bench import game_positions

PRESETS = ("jokers", "classic", "italian")

Answer = tuple | str  # (value, placed bytes or None, melds, stands), or an error's repr


def solve_all(rules_name: str, tables: np.ndarray, hands: np.ndarray) -> list[Answer]:
    """Every position's answer under the named rules (card weights, witness on)."""
    rules = resolve_rules(rules_name)
    w, jw = weights(rules, "cards")
    _solver._set_memo(0)
    out: list[Answer] = []
    for t, h in zip(tables, hands):
        try:
            r = _solver.solve_counts(t, h, rules.decks, rules.ace_code, rules.jokers_per_meld,
                                     w, jw, True, _solver.Solver())
            out.append((int(r[0]), None if r[1] is None else r[1].tobytes(), r[2], r[3]))
        except Exception as e:  # noqa: BLE001 - an error is an answer to compare too
            out.append(repr(e))
    return out


def dump(path: str, games: int = 120, seed: int = 1) -> None:
    """Solve the positions of ``games`` expert games per preset; pickle them and the answers."""
    res = {}
    for name in PRESETS:
        tables, hands = game_positions(name, games=games, seed=seed)
        res[name] = (tables, hands, solve_all(name, tables, hands))
    with open(path, "wb") as f:
        pickle.dump(res, f)


def compare(a_path: str, b_path: str) -> bool:
    """Print the differences per preset; True when every answer is the same."""
    with open(a_path, "rb") as f:
        a = pickle.load(f)
    with open(b_path, "rb") as f:
        b = pickle.load(f)
    same = True
    for name in a:
        ta, ha, ra = a[name]
        tb, hb, rb = b[name]
        if not (np.array_equal(ta, tb) and np.array_equal(ha, hb)):
            print(f"{name}: not the same positions")
            same = False
            continue
        values = sum(isinstance(x, str) != isinstance(y, str)
                     or (not isinstance(x, str) and x[0] != y[0]) for x, y in zip(ra, rb))
        answers = sum(x != y for x, y in zip(ra, rb))
        print(f"{name}: {len(ra)} positions, {values} values differ, {answers} answers differ")
        same = same and answers == 0
    return same
