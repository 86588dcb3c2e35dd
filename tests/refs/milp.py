"""Integer-programming reference (scipy.optimize.milp / HiGHS), after den Hertog & Hulshof
(2006), "Solving Rummikub problems by integer linear programming".

One integer variable per meld *type* counts how many copies of it are on the final table:

* group types: rank x non-empty suit set S x k jokers (3 <= |S|+k <= 4), cards all present;
* run types: suit x window lo..lo+L-1 of positions (A=1, and 14 for an ace when ace_high).
  ``y`` counts the runs on the window; ``z[p]`` (0..y) counts how many of them hold a joker
  at position p instead of its real card (joker-count formulation). A position whose card is
  absent from table and hand is a forced joker in every run on the window.
  Per run at most K jokers and at least one real card:  sum_p z[p] <= K_eff * y.
  Integer y, z with z[p] <= y and sum z <= K_eff*y always split into y runs each holding at
  most K_eff jokers: deal the joker slots round-robin, position by position (see _runs_of).

Card balance: for every card type (jokers included) copies used = table + placed,
0 <= placed <= hand. Maximise the weight of placed. Hand cards can make an invalid table
partitionable (5C 6C + 7C), so when the optimum places cards the table alone is solved too.

Which run lengths are needed. A run of length L >= 6 splits into consecutive windows of
lengths 3..5 (6=3+3, 7=3+4, 8=4+4, then add 3s); each piece is a window of the same suit
inside 1..top, so it is a run as long as it holds a real card and at most K jokers.
* jokers_per_meld = 1: the whole run holds <= 1 joker, so each piece holds <= 1 joker and
  >= 2 real cards -- valid. The 14-card A..K,A run splits e.g. 1-5, 6-10, 11-14, the last
  piece being the ace-high run J-Q-K-A. So lengths 3..5 suffice; same with no jokers.
* unlimited jokers: the claim is FALSE. {5C, JK x6} melds only as one 7-card run (one real
  card, so one meld, and groups hold <= 4); likewise 2 real cards at positions 1,2 and 12
  jokers need the full 14-card run. So with unlimited jokers every length 3..top is modelled.

HiGHS (1.13-1.16, and the one inside recent scipy) with presolve on has declared feasible
meld-partition models infeasible; presolve is off here, and ``known_valid=True`` turns an
"infeasible" answer into a ReferenceFailure instead of None.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from fastmach.errors import FastmachError
from fastmach.core.validate import ValidationError, check_partition

JOKER = 52
NCARD = 53


class ReferenceFailure(RuntimeError):
    """The MILP reference itself went wrong (solver status, or an invalid reconstruction)."""


def _counts(cards: Sequence[int], what: str) -> np.ndarray:
    counts = np.zeros(NCARD, dtype=np.int64)
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < NCARD:
            raise FastmachError(f"{what}: {c!r} is not a card id (0..52)")
        counts[int(c)] += 1
    return counts


class _Model:
    """Columns and sparse rows of the MILP, built incrementally."""

    def __init__(self) -> None:
        self.ub: list[float] = []
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.row_lb: list[float] = []
        self.row_ub: list[float] = []

    def var(self, ub: float) -> int:
        self.ub.append(ub)
        return len(self.ub) - 1

    def row(self, terms: dict[int, float], lb: float, ub: float) -> None:
        r = len(self.row_lb)
        for j, v in terms.items():
            if v:
                self.rows.append(r)
                self.cols.append(j)
                self.vals.append(v)
        self.row_lb.append(lb)
        self.row_ub.append(ub)


def solve(table: Sequence[int], hand: Sequence[int], *, decks: int, ace_high: bool,
          jokers_per_meld: int, card_w: Sequence[int] | None = None,
          known_valid: bool = False, ace_both_ends: bool = True,
          ) -> tuple[int, list[int], list[list[int]]] | None:
    """Heaviest ``placed`` ⊆ hand such that table + placed can be partitioned into melds.

    Returns ``(weight of placed, placed (sorted), melds)``, or None when the table alone
    cannot be partitioned (a ReferenceFailure instead when ``known_valid``).
    """
    if decks not in (2, 3):
        raise FastmachError(f"decks must be 2 or 3, got {decks!r}")
    if jokers_per_meld not in (0, 1):
        raise FastmachError(f"jokers_per_meld must be 1 or 0, got {jokers_per_meld!r}")
    w = np.ones(NCARD) if card_w is None else np.asarray(card_w, dtype=float)
    if w.shape != (NCARD,):
        raise FastmachError(f"card_w must hold {NCARD} weights, got shape {w.shape}")
    tcount = _counts(table, "table")
    hcount = _counts(hand, "hand")
    avail = tcount + hcount
    if (avail[:JOKER] > decks).any():
        c = int(np.argmax(avail[:JOKER] > decks))
        raise FastmachError(f"card id {c}: {avail[c]} copies, decks={decks}")
    top = 14 if ace_high else 13
    total = int(avail.sum())
    n_jok = int(avail[JOKER])

    m = _Model()
    placed_var = [m.var(float(hcount[c])) for c in range(NCARD)]
    usage: list[dict[int, float]] = [{} for _ in range(NCARD)]   # card -> {var: coef}
    groups: list[tuple[int, list[int]]] = []                      # (var, meld)
    runs: list[tuple[int, list[int], dict[int, int]]] = []        # (y, cards, {pos idx: z})

    def use(card: int, var: int, coef: float) -> None:
        usage[card][var] = usage[card].get(var, 0.0) + coef

    # groups
    k_group = 3 if jokers_per_meld == 0 else jokers_per_meld
    for q in range(13):
        present = [s * 13 + q for s in range(4) if avail[s * 13 + q]]
        for size in range(1, len(present) + 1):
            for chosen in itertools.combinations(present, size):
                for k in range(min(k_group, n_jok) + 1):
                    if not 3 <= size + k <= 4:
                        continue
                    ub = min(int(avail[c]) for c in chosen)
                    if k:
                        ub = min(ub, n_jok // k)
                    g = m.var(float(ub))
                    for c in chosen:
                        use(c, g, 1.0)
                    if k:
                        use(JOKER, g, float(k))
                    groups.append((g, sorted(chosen) + [JOKER] * k))

    # runs
    lengths = range(3, min(5, top) + 1) if (jokers_per_meld == 1 or n_jok == 0) \
        else range(3, (top if ace_both_ends else min(top, 13)) + 1)
    for suit in range(4):
        for length in lengths:
            k_run = min(length - 1, jokers_per_meld or length - 1, n_jok)
            for lo in range(1, top - length + 2):
                cards = [suit * 13 + (p - 1) % 13 for p in range(lo, lo + length)]
                real = [i for i, c in enumerate(cards) if avail[c]]
                forced = length - len(real)
                if not real or forced > k_run:
                    continue
                y = m.var(float(total // length))
                if forced:
                    use(JOKER, y, float(forced))
                zs: dict[int, int] = {}
                free = k_run - forced
                for i in real:
                    use(cards[i], y, 1.0)
                    if free:
                        z = m.var(float(total // length))
                        zs[i] = z
                        use(cards[i], z, -1.0)
                        use(JOKER, z, 1.0)
                        m.row({z: 1.0, y: -1.0}, -np.inf, 0.0)            # z <= y
                if zs:
                    m.row({**{z: 1.0 for z in zs.values()}, y: -float(free)}, -np.inf, 0.0)
                runs.append((y, cards, zs))

    # card balance: used - placed = table
    for c in range(NCARD):
        terms = dict(usage[c])
        terms[placed_var[c]] = terms.get(placed_var[c], 0.0) - 1.0
        m.row(terms, float(tcount[c]), float(tcount[c]))

    n = len(m.ub)
    cost = np.zeros(n)
    cost[placed_var] = -w
    A = coo_matrix((m.vals, (m.rows, m.cols)), shape=(len(m.row_lb), n)).tocsr()
    res = milp(cost, constraints=LinearConstraint(A, m.row_lb, m.row_ub),
               integrality=np.ones(n), bounds=Bounds(np.zeros(n), np.array(m.ub)),
               options={"presolve": False})
    if res.status == 2:
        if known_valid:
            raise ReferenceFailure("HiGHS declared infeasible a table known to be valid "
                                   f"({len(table)} cards): {res.message}")
        return None
    if res.status != 0:
        raise ReferenceFailure(f"HiGHS status {res.status}: {res.message}")
    x = np.rint(res.x).astype(np.int64)

    placed = [c for c in range(NCARD) for _ in range(int(x[placed_var[c]]))]
    melds: list[list[int]] = []
    for g, meld in groups:
        melds.extend(list(meld) for _ in range(int(x[g])))
    for y, cards, zs in runs:
        melds.extend(_runs_of(int(x[y]), cards, {i: int(x[z]) for i, z in zs.items()},
                              avail))
    try:
        check_partition(melds, list(table) + placed, decks=decks, ace_high=ace_high,
                        jokers_per_meld=jokers_per_meld, ace_both_ends=ace_both_ends)
    except ValidationError as err:
        raise ReferenceFailure(f"MILP solution does not reconstruct: {err}") from err
    if placed:
        # hand cards can rescue an invalid table (5C 6C + 7C); the table alone must pass
        if solve(table, [], decks=decks, ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                 known_valid=known_valid, ace_both_ends=ace_both_ends) is None:
            return None
    weight = int(round(sum(w[c] for c in placed)))
    return weight, placed, melds


def _runs_of(n: int, cards: list[int], jokers_at: dict[int, int],
             avail: np.ndarray) -> list[list[int]]:
    """Split n runs on one window: position i holds a joker in jokers_at[i] of them (dealt
    round-robin, so each run gets floor or ceil of the average) and in all of them when its
    card is absent (forced)."""
    if n == 0:
        return []
    runs = [[] for _ in range(n)]
    nxt = 0
    for i, card in enumerate(cards):
        if not avail[card]:
            for r in runs:
                r.append(JOKER)
            continue
        k = jokers_at.get(i, 0)
        joker_runs = {(nxt + t) % n for t in range(k)}
        nxt = (nxt + k) % n
        for j, r in enumerate(runs):
            r.append(JOKER if j in joker_runs else card)
    return runs


def partition(cards: Sequence[int], *, decks: int, ace_high: bool, jokers_per_meld: int,
              known_valid: bool = False, ace_both_ends: bool = True) -> list[list[int]] | None:
    """Melds using exactly ``cards``, or None when impossible."""
    found = solve(cards, [], decks=decks, ace_high=ace_high,
                  jokers_per_meld=jokers_per_meld, known_valid=known_valid,
                  ace_both_ends=ace_both_ends)
    return None if found is None else found[2]
