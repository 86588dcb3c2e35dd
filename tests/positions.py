"""Position generators and solver adapters shared by the solver tests.

A position is (table, hand) as lists of card ids plus a rules dict
``dict(decks=, ace_high=, jokers_per_meld=)``. Tables are unions of random valid melds, so
they are known to be valid; adversarial generators aim at the places exact solvers get
wrong (long runs, full duplicates, aces at both ends, three decks, many jokers).
Everything is driven by a ``random.Random`` so each test is reproducible.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Sequence

import numpy as np

from fastmach.core import _solver
from fastmach.core.validate import check_partition, is_valid_meld

JOKER = 52
NCARD = 53
SUITS = "SHDC"


def C(text: str) -> int:
    """Test-local card notation ("10H", "AS", "JK"), independent of fastmach.core.cards."""
    if text == "JK":
        return JOKER
    rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text[:-1]) or int(text[:-1])
    return SUITS.index(text[-1]) * 13 + rank - 1


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def name(c: int) -> str:
    return "JK" if c == JOKER else RANKS[c % 13] + SUITS[c // 13]


def text(cs: Sequence[int]) -> str:
    return " ".join(name(c) for c in sorted(cs))


def where(pos: Sequence) -> str:
    """A position of count arrays ``(table, hand, *rules)`` as text, for a failure message."""
    return (f"table {text(np.repeat(np.arange(NCARD), pos[0]))} "
            f"hand {text(np.repeat(np.arange(NCARD), pos[1]))} {tuple(pos[2:5])}")


def counts(cs: Sequence[int]) -> np.ndarray:
    out = np.zeros(NCARD, dtype=np.uint8)
    for c in cs:
        out[c] += 1
    return out


def listing(cnt) -> list[int]:
    return [c for c in range(NCARD) for _ in range(int(cnt[c]))]


# ------------------------------------------------------------------------ rules grids

# the solver's rules grid: two or three decks, aces high or low, one joker per meld or any
RULES_GRID = [dict(decks=d, ace_high=ah, jokers_per_meld=lim)
              for d in (2, 3) for ah in (True, False) for lim in (1, 0)]


def rules_id(r: dict) -> str:
    """A test id for a rules dict of the grid, e.g. d2-high-j1."""
    return f"d{r['decks']}-{'high' if r['ace_high'] else 'low'}-{'j1' if r['jokers_per_meld'] else 'jinf'}"


# ------------------------------------------------------------------------ the fast solver

def fast(table: Sequence[int], hand: Sequence[int], rules: dict,
         card_w: Sequence[int] | None = None) -> tuple[int, list[int], list[list[int]],
                                                       list[list[int]]]:
    """Low-level solve; returns (weight of the placed cards, placed, melds, stands).

    Jokers weigh ``card_w[52]`` whatever they stand for (as in the references). The
    solver's total covers every card of the final table, so the table's weight is taken
    off. Raises AssertionError when the solver says the table + hand cannot be melded.
    """
    w = np.ones(NCARD, dtype=np.int32) if card_w is None else np.asarray(card_w, np.int32)
    jw = np.full(16, int(w[JOKER]), dtype=np.int32)
    t, h = counts(table), counts(hand)
    total, placed, melds, stands = _solver.solve_counts(
        t, h, rules["decks"], rules["ace_high"], rules["jokers_per_meld"],
        np.ascontiguousarray(w), jw, True)
    assert total >= 0, f"solver found no partition: table {text(table)} hand {text(hand)}"
    return int(total) - int((w.astype(np.int64) * t).sum()), listing(placed), melds, stands


def check_fast(table, hand, rules, result, card_w=None) -> None:
    """Everything a fast result must satisfy on its own (no reference needed)."""
    weight, placed, melds, stands = result
    w = [1] * NCARD if card_w is None else list(card_w)
    assert weight == sum(w[c] for c in placed), "total does not match the placed cards"
    hc = Counter(hand)
    assert not Counter(placed) - hc, f"placed {text(placed)} not in hand {text(hand)}"
    check_partition(melds, list(table) + placed, **rules)
    check_stands(melds, stands, rules)


def check_canonical(table: Sequence[int], hand: Sequence[int], rules: dict, w,
                    value: int, placed_counts) -> None:
    """A solver answer (its value, the table's weight included, and the placed counts) is
    the brute force's value and canonical placement (tests/refs/brute.py)."""
    from tests.refs import brute

    can = brute.canonical(table, hand, card_w=[int(x) for x in w], **rules)
    table_w = sum(int(w[c]) for c in table)   # (the solver's value holds the table's)
    assert can is not None and value - table_w == can[0], (text(table), text(hand))
    placed = [c for c in range(NCARD) for _ in range(placed_counts[c])]
    assert placed == can[1], (text(table), text(hand), text(placed), text(can[1]))


def check_stands(melds, stands, rules) -> None:
    """Each meld with its jokers replaced by the cards they stand for is a valid meld."""
    assert len(stands) == len(melds)
    for m, st in zip(melds, stands):
        assert len(st) == len(m)
        for c, s in zip(m, st):
            assert (0 <= s < JOKER) if c == JOKER else s == c, (m, st)
        assert is_valid_meld(list(st), ace_high=rules["ace_high"], jokers_per_meld=1), \
            f"stands {text(st)} of meld {text(m)}"


def mirrored_by_rule(t: np.ndarray, h: np.ndarray, w, ace_high) -> bool:
    """Whether the solver sweeps the position (counts) mirrored, by its rule written again
    from the documentation (fastmach/core/_direction.pxi): with jokers, the cards' mean rank
    (aces aside) under 7.25; without, the hand's mean rank by weight above the middle."""
    if t[JOKER] + h[JOKER] > 0:
        ranks = [(c % 13 + 1, int(t[c]) + int(h[c])) for c in range(52) if c % 13]
        n = sum(k for _, k in ranks)
        return n > 0 and sum(r * k for r, k in ranks) / n < 7.25
    num = sum(int(h[c]) * int(w[c]) * (c % 13 + 1) for c in range(52) if c % 13)
    den = sum(int(h[c]) * int(w[c]) for c in range(52) if c % 13)
    return den > 0 and num / den > (7.5 if ace_high else 7.0)


# ------------------------------------------------------------------------ random positions

def rand_meld(rng: random.Random, ace_high: bool, lim: int, jokers: bool,
              lengths: Sequence[int] = (3, 3, 4, 4, 5, 6, 7, 9, 13, 14)) -> list[int]:
    """A random valid meld: group or run (any length up to ``lengths``), maybe jokers."""
    top = 14 if ace_high else 13
    if rng.random() < 0.45:
        q = rng.randrange(13)
        meld = [s * 13 + q for s in rng.sample(range(4), rng.choice((3, 4)))]
    else:
        s = rng.randrange(4)
        n = min(rng.choice(lengths), top)
        lo = rng.randint(1, top - n + 1)
        meld = [s * 13 + (p - 1) % 13 for p in range(lo, lo + n)]
    if jokers and rng.random() < 0.5:
        k = rng.randint(1, lim or max(1, len(meld) - 1))
        for i in rng.sample(range(len(meld)), k):
            meld[i] = JOKER
    assert is_valid_meld(meld, ace_high=ace_high, jokers_per_meld=lim), meld
    return meld


def rand_table(rng: random.Random, target: int, rules: dict, max_jokers: int,
               lengths: Sequence[int] = (3, 3, 4, 4, 5, 6, 7, 9, 13, 14)) -> list[int]:
    """A valid table of about ``target`` cards: a union of random valid melds."""
    decks, ah, lim = rules["decks"], rules["ace_high"], rules["jokers_per_meld"]
    got: Counter = Counter()
    for _ in range(400):
        n = sum(got.values())
        if n >= target:
            break
        meld = rand_meld(rng, ah, lim, max_jokers > 0, lengths)
        new = got + Counter(meld)
        if n + len(meld) > target + 2 or new[JOKER] > max_jokers \
                or any(new[x] > decks for x in range(52)):
            continue
        got = new
    return sorted(got.elements())


def rand_hand(rng: random.Random, table: Sequence[int], decks: int, size: int,
              jokers: int = 0, near_p: float = 0.75) -> list[int]:
    """``size`` real cards still available (mostly near the table's cards) + ``jokers``."""
    left = Counter({x: decks for x in range(52)}) - Counter(table)
    pool = sorted(left.elements())
    real = [t for t in table if t != JOKER]
    near = [x for x in pool if any((x // 13 == t // 13 and abs(x % 13 - t % 13) <= 2)
                                   or x % 13 == t % 13 for t in real)]
    src = near if near and rng.random() < near_p else pool
    return rng.sample(src, min(size, len(src))) + [JOKER] * jokers


def rand_rules(rng: random.Random) -> dict:
    return dict(decks=rng.choice((2, 2, 3)), ace_high=rng.random() < 0.6,
                jokers_per_meld=rng.choice((0, 1)))


def rand_weights(rng: random.Random) -> list[int]:
    return [rng.randint(1, 9) for _ in range(NCARD)]


def weights_in_turn(rng: random.Random, i: int, lowest: int = 0) -> np.ndarray:
    """The card weights of a test's i-th position, in turn: every card one, each card's
    points (ace 1, faces 10), random weights from ``lowest`` to 9."""
    if i % 3 == 0:
        return np.ones(NCARD, dtype=np.int32)
    if i % 3 == 1:
        return np.array([min(10, c % 13 + 1) for c in range(NCARD)], dtype=np.int32)
    return np.array([rng.randint(lowest, 9) for _ in range(NCARD)], dtype=np.int32)


# ------------------------------------------------------------------------ adversarial

def adv_long_runs(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """A long run (9..14 cards) that can give up middle cards to groups or split."""
    top = 14 if rules["ace_high"] else 13
    s = rng.randrange(4)
    n = rng.randint(9, top)
    lo = rng.randint(1, top - n + 1)
    table = [s * 13 + (p - 1) % 13 for p in range(lo, lo + n)]
    hand = []
    for _ in range(rng.randint(2, 6)):
        p = rng.randint(lo, lo + n - 1)
        if rng.random() < 0.6:      # same rank, other suit: a group would steal the card
            hand.append(rng.choice([t for t in range(4) if t != s]) * 13 + (p - 1) % 13)
        else:                       # a second copy in the same suit: a split
            hand.append(s * 13 + (p - 1) % 13)
    return table, _fit(hand, table, rules["decks"])


def adv_duplicates(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Full duplicates: the same run or group ``decks`` times, hand extends some copies."""
    ah = rules["ace_high"]
    meld = rand_meld(rng, ah, 1, False, (3, 3, 4))
    copies = rng.randint(2, rules["decks"])
    table = meld * copies
    hand = rand_hand(rng, table, rules["decks"], rng.randint(2, 6), near_p=1.0)
    return sorted(table), hand


def adv_aces(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Aces at both ends: low runs, high runs and groups of aces competing for the aces."""
    ah = rules["ace_high"]
    s = rng.randrange(4)
    parts = [[s * 13 + 0, s * 13 + 1, s * 13 + 2]]
    if ah:
        parts.append([s * 13 + 11, s * 13 + 12, s * 13 + 0])
    if rng.random() < 0.5:
        parts.append([t * 13 for t in rng.sample(range(4), 3)])
    table = [c for p in parts for c in p]
    if Counter(table)[s * 13] > rules["decks"]:
        table = [c for p in parts[:2] for c in p]
    pool = [s * 13 + r for r in (0, 0, 1, 2, 3, 9, 10, 11, 12)] * 2 + \
        [t * 13 + r for t in range(4) for r in (0, 0, 1, 2, 10, 11, 12)]
    hand = rng.sample(pool, rng.randint(1, 6))
    return sorted(table), _fit(hand, table, rules["decks"])


def adv_jokers(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """Jokers on the table and in hand; unlimited rules get joker-heavy melds."""
    lim = rules["jokers_per_meld"]
    table = rand_table(rng, rng.randint(3, 10), rules, max_jokers=3 if lim == 0 else 2,
                       lengths=(3, 4, 5, 6))
    k = Counter(table)[JOKER]
    hand = rand_hand(rng, table, rules["decks"], rng.randint(1, 4),
                     jokers=rng.randint(0, 3 - min(k, 3)))
    return table, hand


def adv_full_suit(rng: random.Random, rules: dict) -> tuple[list[int], list[int]]:
    """The 13- or 14-card run of one suit, with extra aces/kings and group cards around."""
    s = rng.randrange(4)
    table = [s * 13 + r for r in range(13)]
    if rules["ace_high"] and rng.random() < 0.5:
        table.append(s * 13)
    extra = [s * 13 + rng.choice((0, 1, 11, 12)) for _ in range(2)] + \
            [rng.randrange(4) * 13 + rng.randrange(13) for _ in range(rng.randint(0, 3))]
    return table, _fit(extra, table, rules["decks"])


ADVERSARIAL = {
    "long_runs": adv_long_runs,
    "duplicates": adv_duplicates,
    "aces": adv_aces,
    "jokers": adv_jokers,
    "full_suit": adv_full_suit,
}


def _fit(hand: list[int], table: Sequence[int], decks: int) -> list[int]:
    """Drop hand cards that would exceed ``decks`` copies with the table."""
    have = Counter(table)
    out = []
    for c in hand:
        if c == JOKER or have[c] < decks:
            have[c] += 1
            out.append(c)
    return sorted(out)


def whole_answers(rules, tables, hands, *, check: bool = False,
                  count: str = "states") -> tuple[list, int]:
    """(value, placed bytes, melds, stands) of every position under both objectives (the
    solver's switches as the caller set them), and the states all their searches made
    (``count="searches"``: the searches; ``count="each"``: each answer also holds the
    states of each of its searches); ``check``: every partition through the independent
    validator."""
    from fastmach.solver import weights

    out, states = [], 0
    for objective in ("cards", "points"):
        w, jw = weights(rules, objective)
        for t, h in zip(tables, hands):
            val, placed, melds, stands = _solver.solve_counts(
                t, h, rules.decks, rules.ace_code, rules.jokers_per_meld, w, jw, True)
            made = _solver._sweep_stats()
            states += len(made) if count == "searches" else sum(s[0] for s in made)
            if val >= 0 and check:
                check_partition(melds, listing(t) + listing(placed), decks=rules.decks,
                                ace_high=rules.ace_high,
                                jokers_per_meld=rules.jokers_per_meld)
            answer = (int(val), None if placed is None else placed.tobytes(), melds, stands)
            if count == "each":
                answer += ([s[0] for s in made],)
            out.append(answer)
    return out, states


# ------------------------------------------------------------------------ game positions

def game_positions(rules: str, lineup: Sequence[str], games: int, seed: int):
    """Positions (states before a decision, on a table, by a player who has opened) from
    whole games of ``lineup`` cycled over the seats: (Rules, [State])."""
    from fastmach.game import Game
    from fastmach.rules import Rules

    r = Rules.parse(rules)
    game = Game(r, (list(lineup) * r.players)[:r.players])
    out = []
    for rep in range(games):
        st = game.new_initial_state(seed, rep)
        while not st.is_terminal():
            if st.table and st.opened[st.current_player]:
                out.append(st.clone())
            st.step()
    return r, out


def plain_position(rng: random.Random, rules: dict, table_cards: tuple[int, int] = (0, 45),
                   hand_cards: tuple[int, int] = (1, 16),
                   adv_share: float = 0.4) -> tuple[np.ndarray, np.ndarray]:
    """Table and hand counts without jokers: with probability ``adv_share`` an adversarial
    position (its jokers left out), else a random table and hand of those sizes."""
    if rng.random() < adv_share:
        adv = rng.choice((adv_aces, adv_full_suit, adv_long_runs, adv_duplicates))
        table, hand = adv(rng, rules)
        table = [c for c in table if c != JOKER]
        hand = [c for c in hand if c != JOKER]
    else:
        table = rand_table(rng, rng.randint(*table_cards), rules, max_jokers=0)
        hand = rand_hand(rng, table, rules["decks"], rng.randint(*hand_cards), jokers=0)
    return counts(table), counts(hand)
