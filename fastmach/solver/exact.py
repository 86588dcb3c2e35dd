"""The exact partition solver's Python face: Solution, solve, partition, opening (the search itself is in ``_solver.pyx``).

``solve`` answers the question asked on every turn: which hand cards can join the table so
that all of it splits into valid melds, and how. ``partition`` splits a given set of cards;
``opening`` finds the best melds made of hand cards only (the opening-points rule).

Of several answers of the best value the solver returns the canonical one: the placed hand
cards, as copies per card by rank (2 .. K, then the aces; suits S H D C within a rank;
jokers last), lexicographically greatest (docs/solver.md); the arrangement of those cards
into melds follows the search.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

import fastmach.core._batch as _batch
import fastmach.core._solver as _solver
from fastmach.core.cards import (JOKER, NCARD, OPENING_POINTS, card_points, card_str, cards_to_counts,
                                 check_copies, format_cards, parse_cards)
from fastmach.errors import FastmachError
from fastmach.rules import Rules, is_integer, resolve_rules

#: weight multiplier making points the first criterion and cards the tie-break
POINT_SCALE = 256

OBJECTIVES = ("cards", "points")


@dataclass(frozen=True)
class Solution:
    """A solved position: the hand cards placed and the melds of the final table."""

    placed: list[int]
    melds: list[list[int]]
    stands: list[list[int]]  # per meld card: itself, or the card a joker stands for
    points: int  # points of the placed cards under the objective's scale (cards: count)

    @property
    def n_placed(self) -> int:
        return len(self.placed)

    def to_json(self) -> dict:
        return {
            "placed": [card_str(c) for c in self.placed],
            "melds": [[card_str(c) for c in m] for m in self.melds],
        }

    def __str__(self) -> str:
        lines = [f"placed {len(self.placed)}: " + format_cards(self.placed, sort=False)]
        for m, st in zip(self.melds, self.stands):
            lines.append("  " + " ".join(_show(c, s) for c, s in zip(m, st)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        """The cards as text (a joker as JK(the card it stands for)); the fields keep
        the card ids."""
        melds = ", ".join(repr(" ".join(_show(c, s) for c, s in zip(m, st)))
                          for m, st in zip(self.melds, self.stands))
        return (f"Solution(placed={format_cards(self.placed, sort=False)!r}, "
                f"melds=[{melds}], points={self.points})")

    def _repr_html_(self) -> str | None:
        """Jupyter: the table's cards before, the melds after, placed cards marked (by the
        viewer's ``solution_html``, named in ``fastmach.core.providers`` by the package:
        the solver does not import the viewer, a layer above it); None (plain repr) when unset."""
        from fastmach.core.providers import html_of

        return html_of("solution_html", self)


def _show(c: int, stands: int) -> str:
    return f"JK({card_str(stands)})" if c == JOKER else card_str(c)


def _flatten_table(table) -> list[int]:
    """A table given as text, a flat card list, a count array, or a list of melds."""
    if isinstance(table, (list, tuple)) and table and all(
        isinstance(m, (list, tuple)) for m in table
    ):
        return [c for m in table for c in parse_cards(list(m))]
    return parse_cards(table) if table is not None else []


def weights(rules: Rules, objective: str) -> tuple[np.ndarray, np.ndarray]:
    if objective == "cards":
        w = np.ones(NCARD, dtype=np.int32)
    elif objective == "points":
        w = card_points(rules.hand_points).astype(np.int32) * POINT_SCALE + 1
    else:
        raise FastmachError(f"unknown objective {objective!r}; expected one of {OBJECTIVES}")
    jw = np.full(16, int(w[JOKER]), dtype=np.int32)
    return np.ascontiguousarray(w), jw


def _counts(cards: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(cards_to_counts(cards), dtype=np.uint8)


def _check_position(t: np.ndarray, h: np.ndarray, rules: Rules) -> None:
    check_copies(t.astype(np.int64) + h, rules.decks, rules.jokers)


def _run(t, h, rules: Rules, w, jw, witness=True, what: str | None = None):
    try:
        return _solver.solve_counts(
            t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw, witness
        )
    except _solver.SolverLimitError as e:
        text = str(e) if what is None else f"{str(e).split(' (')[0]} ({what})"
        raise FastmachError(f"position too large for the exact solver: {text}") from e


# ---------------------------------------------------------------- compiled records
# A Rules object and an objective become one compiled record, made once and reused (the
# rules were validated when the Rules was built); rules strings are parsed once.
_RULES_BY_TEXT: dict[str, Rules] = {}
_RECORDS: dict[tuple[int, str], tuple[Rules, _batch.Record]] = {}
_CACHE_MAX = 512


def _resolve(rules: Rules | str) -> Rules:
    if type(rules) is str:
        r = _RULES_BY_TEXT.get(rules)
        if r is None:
            if len(_RULES_BY_TEXT) >= _CACHE_MAX:
                _RULES_BY_TEXT.clear()
            r = _RULES_BY_TEXT[rules] = resolve_rules(rules)
        return r
    return resolve_rules(rules)


def _record(rules: Rules | str, objective: str) -> tuple[Rules, _batch.Record]:
    """(Rules, compiled record) for these rules and objective, cached by identity."""
    last = _BY_OBJECT.get(id(rules))
    if last is not None and last[0] is rules and last[1] is objective:
        return last[2]   # the same Rules object and objective as before
    r = _resolve(rules)
    if type(objective) is not str:
        raise FastmachError(f"unknown objective {objective!r}; expected one of {OBJECTIVES}")
    hit = _RECORDS.get((id(r), objective))
    if hit is None or hit[0] is not r:
        w, jw = weights(r, objective)
        rec = _batch.Record(r.decks, r.ace_code, r.jokers_per_meld, r.jokers, w, jw,
                            POINT_SCALE if objective == "points" else 1)
        if len(_RECORDS) >= _CACHE_MAX:
            _RECORDS.clear()
        # the Rules is kept: its id stays its own
        hit = _RECORDS[(id(r), objective)] = (r, rec)
    if r is rules:
        if len(_BY_OBJECT) >= _CACHE_MAX:
            _BY_OBJECT.clear()
        _BY_OBJECT[id(rules)] = (rules, objective, hit)
    return hit


#: id(Rules) -> (the Rules, the objective last asked with, its record): the Rules is kept,
#: so its id stays its own
_BY_OBJECT: dict[int, tuple] = {}


# ---------------------------------------------------------------- failed positions
_MAX_STATES = 1 << 23  # the solver's state limit (MAX_STATES in _solver.pyx)

# status codes of a position (SolveBatch.status; solve raises with the same messages)
SOLVED, INVALID_TABLE, TOO_MANY_COPIES = 0, -1, -2
BAD_CARDS, STATE_LIMIT, INTERNAL_ERROR = -3, -4, -5
STATUS = {
    SOLVED: "solved",
    INVALID_TABLE: "invalid table",
    TOO_MANY_COPIES: "too many copies",
    BAD_CARDS: "bad cards",
    STATE_LIMIT: "state limit",
    INTERNAL_ERROR: "internal error",
}


def _status_message(status: int, t: np.ndarray, h: np.ndarray, rules: Rules) -> str:
    """The FastmachError message of a position that failed with this status."""
    if status == INVALID_TABLE:
        return "the table does not split into valid melds: " + " ".join(
            card_str(c) for c in range(NCARD) for _ in range(int(t[c])))
    if status == TOO_MANY_COPIES:
        try:
            _check_position(t, h, rules)
        except FastmachError as e:
            return str(e)
    if status == STATE_LIMIT:
        return ("position too large for the exact solver: the position needs more than "
                f"{_MAX_STATES} solver states ({int(t.sum())} table cards, "
                f"{int(h.sum())} hand cards)")
    return f"solver internal error {status} (please report this position)"


def _solve_full(table, hand, rules: Rules | str, objective: str, trusted: bool,
                sol) -> Solution:
    """solve's answer where its compiled entry (``_batch.solve_known``, whose answer
    ``sol`` is: None, or a failed position's status) did not give it."""
    r, rec = _record(rules, objective)
    if sol is None:   # not answered there (else: its failed status)
        if not trusted and _batch.is_known_table(table):
            trusted = True   # a game's table, as a bot's observation holds it
        out = _batch.solve_position(table, hand, rec, trusted)
        if out is not None and out[0] == SOLVED:
            return Solution(out[1], out[2], out[3], out[4])
    # text, arrays, or a failed position: parse with the full checks and messages
    t, h = _counts(_flatten_table(table)), _counts(parse_cards(hand))
    known = trusted or _all_valid_melds(table, r)
    out = _batch.solve_counts_one(t, h, rec, known)
    if out[0] != SOLVED:
        raise FastmachError(_status_message(out[0], t, h, r))
    return Solution(out[1], out[2], out[3], out[4])


#: The maximum set of hand cards that can join the table, with a partition (the
#: docstring says how to call it): compiled (``_batch.solve``), its answer from
#: ``_batch.solve_known`` when the position is in its fast form, else ``_solve_full``.
solve: Callable[..., Solution] = _batch.solve
_batch.set_solve_path(_solve_full, _BY_OBJECT, Solution)


#: Note a game's table (a tuple of tuples of exact ints: the engine's, shown in an
#: observation) as valid for ``solve``, which then reads it from its counts.
known_table = _batch.known_table


def _all_valid_melds(table, rules: Rules) -> bool:
    """Whether the table is given as melds and every one of them is valid on its own."""
    if not (isinstance(table, (list, tuple)) and table
            and all(isinstance(m, (list, tuple)) for m in table)):
        return False
    return all(_batch.meld_ok(parse_cards(list(m)), rules.ace_code, rules.jokers_per_meld)
               for m in table)


def partition(cards, rules: Rules | str = "classic") -> list[list[int]] | None:
    """A partition of exactly these cards into valid melds, or None if there is none."""
    rules = resolve_rules(rules)
    t = _counts(parse_cards(cards))
    h = np.zeros(NCARD, dtype=np.uint8)
    _check_position(t, h, rules)
    w, jw = weights(rules, "cards")
    total, _, melds, _ = _run(t, h, rules, w, jw, what=f"partition of {int(t.sum())} cards")
    return None if total < 0 else melds


def opening(hand, rules: Rules | str = "classic", threshold: int | None = None) -> Solution | None:
    """The melds of hand cards only with the most opening points (A 1, J/Q/K 10).

    A joker counts as the card it stands for; ties go to more cards. Returns None when the
    best is below ``threshold`` (default: ``rules.opening_points``) or nothing can be laid.
    """
    rules = resolve_rules(rules)
    if threshold is not None and not is_integer(threshold):   # (NaN passed any threshold)
        raise FastmachError(f"threshold={threshold!r}: expected a whole number of points, "
                            f"or None for the rules' opening_points")
    threshold = rules.opening_points if threshold is None else int(threshold)
    h = _counts(parse_cards(hand))
    t = np.zeros(NCARD, dtype=np.uint8)
    _check_position(t, h, rules)
    w, jw = opening_weights()
    total, placed, melds, stands = _run(t, h, rules, w, jw)
    placed_cards = [c for c in range(NCARD) for _ in range(int(placed[c]))]
    points = int(total) // POINT_SCALE
    if not placed_cards or points < threshold:
        return None
    return Solution(placed_cards, melds, stands, points)


def opening_weights() -> tuple[np.ndarray, np.ndarray]:
    """Card and joker-by-value weights for the opening objective (points, then cards)."""
    w = np.asarray(OPENING_POINTS, dtype=np.int32) * POINT_SCALE + 1
    w[JOKER] = 0
    jw = np.zeros(16, dtype=np.int32)
    for v in range(1, 15):
        rank = 1 if v == 14 else v
        jw[v] = int(OPENING_POINTS[rank - 1]) * POINT_SCALE + 1
    return np.ascontiguousarray(w, dtype=np.int32), jw
