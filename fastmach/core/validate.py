"""Independent validator for melds, partitions and plays.

Self-contained on purpose: it shares no code with the solver or with ``fastmach.core.cards``
(its own card-id arithmetic, its own meld rules), so a bug there cannot hide here.

Card ids: ``c = suit*13 + (rank-1)``, suits S H D C = 0..3, ranks A=1 .. K=13; joker = 52.
A meld is a list of card ids in any order; it is valid when SOME assignment of its jokers
makes it a group or a run. ``ace_both_ends=False`` (ace low or high, never both): no run
holds an ace at each end (A 2 ... K A, the only 14-card runs).
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from operator import eq
from typing import Iterable, Sequence

from fastmach.errors import FastmachError

JOKER = 52
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = ("S", "H", "D", "C")


class ValidationError(FastmachError):
    """A meld, partition or play breaks the rules; the message names the meld or card."""


def card_name(c: int) -> str:
    """``10H``-style name of a card id (``JK`` for the joker)."""
    if c == JOKER:
        return "JK"
    return _RANKS[c % 13] + _SUITS[c // 13]


def meld_text(meld: Iterable[int]) -> str:
    return "[" + " ".join(card_name(c) for c in meld) + "]"


def _check_ids(cards: Iterable[int], what: str) -> list[int]:
    out = []
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= JOKER:
            raise ValidationError(f"{what}: {c!r} is not a card id (0..52)")
        out.append(int(c))
    return out


def _check_rules(decks: int | None, ace_high: bool, jokers_per_meld: int) -> None:
    if decks is not None and decks not in (2, 3):
        raise FastmachError(f"decks must be 2 or 3, got {decks!r}")
    if not isinstance(ace_high, bool):
        raise FastmachError(f"ace_high must be a bool, got {ace_high!r}")
    if jokers_per_meld not in (0, 1):
        raise FastmachError(f"jokers_per_meld must be 1 or 0 (unlimited), got {jokers_per_meld!r}")


def meld_problem(meld: Sequence[int], *, ace_high: bool, jokers_per_meld: int,
                 ace_both_ends: bool = True) -> str | None:
    """Why ``meld`` is not a valid group or run, or None when it is valid."""
    _check_rules(None, ace_high, jokers_per_meld)
    cards = _check_ids(meld, "meld " + str(list(meld)))
    n = len(cards)
    real = [c for c in cards if c != JOKER]
    jokers = n - len(real)
    if n < 3:
        return f"{n} cards (a meld needs at least 3)"
    if not real:
        return "jokers only (a meld needs a real card)"
    if jokers_per_meld and jokers > jokers_per_meld:
        return f"{jokers} jokers (at most {jokers_per_meld} per meld)"
    if _is_group(real, n) or _is_run(real, n, ace_high):
        if n == 14 and not ace_both_ends:
            return "a run with an ace at each end (ace_both_ends=false: an ace is low or high, never both)"
        return None
    return "neither a group nor a run"


def _is_group(real: list[int], n: int) -> bool:
    # 3 or 4 cards, real cards one rank and all different suits; jokers take missing suits
    ranks = {c % 13 for c in real}
    suits = [c // 13 for c in real]
    return 3 <= n <= 4 and len(ranks) == 1 and len(set(suits)) == len(suits)


def _is_run(real: list[int], n: int, ace_high: bool) -> bool:
    # Positions 1..13 (A=1), plus 14 for an ace when ace_high. Valid iff some window of n
    # consecutive positions holds every real card at a distinct position of its own;
    # jokers fill the rest of the window.
    if len({c // 13 for c in real}) != 1:
        return False
    top = 14 if ace_high else 13
    ranks = [c % 13 + 1 for c in real]
    others = [r for r in ranks if r != 1]
    aces = len(ranks) - len(others)
    if len(set(others)) != len(others):
        return False
    for lo in range(1, top - n + 2):
        hi = lo + n - 1
        if not all(lo <= r <= hi for r in others):
            continue
        ace_slots = (lo <= 1) + (ace_high and hi >= 14)
        if aces <= ace_slots:
            return True
    return False


def meld_kind(meld: Sequence[int], *, ace_high: bool, jokers_per_meld: int,
              ace_both_ends: bool = True) -> str | None:
    """``"group"``, ``"run"`` or None (invalid). A meld that could be either is a group."""
    if meld_problem(meld, ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                    ace_both_ends=ace_both_ends) is not None:
        return None
    real = [c for c in meld if c != JOKER]
    return "group" if _is_group(real, len(meld)) else "run"


def is_valid_meld(meld: Sequence[int], *, ace_high: bool, jokers_per_meld: int,
                  ace_both_ends: bool = True) -> bool:
    return meld_problem(meld, ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                        ace_both_ends=ace_both_ends) is None


_INT = frozenset({int})


class MeldMemo:
    """The verdict of :func:`meld_problem` on each meld met so far, under one rules
    setting: ``problem(meld)`` judges a meld the first time and remembers it (keyed by its
    card tuple; a meld with anything but plain int ids is judged every time)."""

    def __init__(self, *, ace_high: bool, jokers_per_meld: int, ace_both_ends: bool = True):
        _check_rules(None, ace_high, jokers_per_meld)
        self.rules = (ace_high, jokers_per_meld, ace_both_ends)
        self._seen: dict[tuple, str | None] = {}

    def check_rules(self, ace_high: bool, jokers_per_meld: int, ace_both_ends: bool) -> None:
        if (ace_high, jokers_per_meld, ace_both_ends) != self.rules:
            raise FastmachError(f"a MeldMemo of rules {self.rules} used under "
                                f"{(ace_high, jokers_per_meld, ace_both_ends)}")

    def problem(self, meld: Sequence[int]) -> str | None:
        key = tuple(meld)
        plain = _INT.issuperset(map(type, key))  # (True, 2, 3) == (1, 2, 3): never looked up
        if plain and key in self._seen:
            return self._seen[key]
        ace_high, jokers, both = self.rules
        why = meld_problem(list(key), ace_high=ace_high, jokers_per_meld=jokers,
                           ace_both_ends=both)
        if plain:
            self._seen[key] = why
        return why

    def partition_ok(self, melds: Sequence[Sequence[int]], expected: list, decks: int) -> bool:
        """True only when ``check_partition`` passes: plain card ids, at most ``decks``
        copies of a card, valid melds (``problem``) holding exactly ``expected``. False:
        ask ``check_partition`` itself (it finds and names the fault)."""
        if not _INT.issuperset(map(type, expected)):
            return False
        want = sorted(expected)
        if want and not 0 <= want[0] <= want[-1] <= JOKER:
            return False
        real = want[:bisect_left(want, JOKER)]
        if any(map(eq, real, real[decks:])):  # decks + 1 copies of a card
            return False
        used = [c for m in melds for c in m]
        if not _INT.issuperset(map(type, used)) or sorted(used) != want:
            return False
        seen = self._seen
        for meld in melds:
            key = tuple(meld)
            why = seen[key] if key in seen else self.problem(key)
            if why is not None:
                return False
        return True


def _check_copies(counts: Counter, decks: int, what: str) -> None:
    for c, k in sorted(counts.items()):
        if c != JOKER and k > decks:
            raise ValidationError(f"{what}: {k} copies of {card_name(c)} but decks={decks}")


def check_partition(
    melds: Sequence[Sequence[int]],
    expected_cards: Iterable[int],
    *,
    decks: int,
    ace_high: bool,
    jokers_per_meld: int,
    ace_both_ends: bool = True,
    memo: MeldMemo | None = None,
) -> None:
    """Raise ValidationError unless ``melds`` are valid and use exactly ``expected_cards``.

    ``memo``: verdicts of melds already judged under these rules (a replay meets the same
    table melds turn after turn): each meld is judged once, by :func:`meld_problem`, and a
    partition found good by ``MeldMemo.partition_ok`` is not checked again here."""
    _check_rules(decks, ace_high, jokers_per_meld)
    if memo is not None:
        memo.check_rules(ace_high, jokers_per_meld, ace_both_ends)
        expected_cards = list(expected_cards)
        if memo.partition_ok(melds, expected_cards, decks):
            return
    # (every check below, in this order, names what is wrong)
    expected = Counter(_check_ids(expected_cards, "expected cards"))
    used: Counter = Counter()
    for i, meld in enumerate(melds):
        why = meld_problem(list(meld), ace_high=ace_high, jokers_per_meld=jokers_per_meld,
                           ace_both_ends=ace_both_ends)
        if why is not None:
            raise ValidationError(f"meld {i} {meld_text(meld)} is invalid: {why}")
        used.update(meld)
    _check_copies(expected, decks, "expected cards")
    for c in sorted(set(expected) | set(used)):
        if used[c] < expected[c]:
            raise ValidationError(
                f"card {card_name(c)} missing from the melds "
                f"({used[c]} used, {expected[c]} expected)")
        if used[c] > expected[c]:
            raise ValidationError(
                f"extra card {card_name(c)} in the melds ({used[c]} used, {expected[c]} expected)")


def check_play(
    table_before: Iterable[int],
    melds_after: Sequence[Sequence[int]],
    hand_before: Iterable[int],
    placed: Iterable[int],
    *,
    decks: int,
    ace_high: bool,
    jokers_per_meld: int,
    allow_empty: bool = False,
    ace_both_ends: bool = True,
) -> None:
    """Raise ValidationError unless the play is legal.

    ``melds_after`` must be valid melds holding exactly the table cards plus ``placed``;
    ``placed`` must come from the hand; table and hand together may hold at most ``decks``
    copies of a card. A play adds at least one card unless ``allow_empty``.
    """
    _check_rules(decks, ace_high, jokers_per_meld)
    table = _check_ids(table_before, "table")
    hand = Counter(_check_ids(hand_before, "hand"))
    put = _check_ids(placed, "placed")
    _check_copies(Counter(table) + hand, decks, "table and hand")
    if not put and not allow_empty:
        raise ValidationError("a play must add at least one hand card (placed is empty)")
    for c, k in sorted(Counter(put).items()):
        if k > hand[c]:
            raise ValidationError(
                f"placed card {card_name(c)} {k} time(s) but the hand holds {hand[c]}")
    check_partition(melds_after, table + put, decks=decks, ace_high=ace_high,
                    jokers_per_meld=jokers_per_meld, ace_both_ends=ace_both_ends)
