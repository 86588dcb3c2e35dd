"""Actions and their legality, shared by the reference ``State`` (fastmach.game) and the
Python bots in the compiled engine (fastmach.strategies.bots).

``Play(melds, placed, taken)`` (the whole table after the play, the hand cards added, the
jokers taken back into the hand under ``joker_swap = "hand"``), ``Draw()``, ``Pass()``
(empty stock, play-on), ``Fail()`` (a botched play: a manipulation or a new meld tried
without success, 000 "Cette annulation pénalise aussi une nouvelle combinaison tentée sans
succès"; the table is restored and ``failed_penalty`` cards are drawn). ``check_action``
says why an action is illegal in a position; it uses the independent validator
``fastmach.core.validate``, never the solver (only "does a play exist", needed when
``may_draw_when_able`` is false and for a ``Fail`` without its attempt, is the caller's).
"""
from __future__ import annotations

from collections import Counter
from itertools import chain
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from fastmach.core import validate
from fastmach.core._ids import play_init, rng_init
from fastmach.core._meldcheck import partition_ok
from fastmach.core.cards import JOKER, NCARD, OPENING_POINTS, card_str
from fastmach.errors import FastmachError
from fastmach.game import flow
from fastmach.rules import Rules

__all__ = ["Play", "Draw", "Pass", "Fail", "Action", "check_action", "rearranges",
           "meld_points", "meld_stands"]

Meld = tuple[int, ...]
#: A hand's card counts by card id: the 53 counts, or a mapping (a log's Counter)
Counts = Sequence[int] | Mapping[int, int]


@dataclass(frozen=True, init=False)
class Play:
    """Add ``placed`` hand cards; ``melds`` is the whole table after the play.

    ``Play(melds, placed, taken=(), stands=None, rng_after=None)`` keeps tuples of ints
    (``placed`` sorted); exact ints are taken as they are, other integers (NumPy's) by their
    value, and a card id that is no integer (``7.0``, ``"7"``) is a FastmachError, never
    truncated (the constructor is compiled: fastmach.core._ids.play_init)."""

    melds: tuple[Meld, ...]
    placed: tuple[int, ...]
    taken: tuple[int, ...] = ()
    # what each meld card stands for (a joker: the card it replaces); None -> derived
    stands: tuple[Meld, ...] | None = field(default=None, compare=False, repr=False)
    rng_after: int | None = field(default=None, compare=False, repr=False)

    __init__ = play_init

    @property
    def melds_after(self) -> tuple[Meld, ...]:
        """The whole table after the play (alias of ``melds``)."""
        return self.melds


@dataclass(frozen=True, init=False)
class Draw:
    """Draw one card from the stock (ends the turn); with an empty stock under
    ``stock_empty = "ends-hand"`` this ends the hand."""

    rng_after: int | None = field(default=None, compare=False, repr=False)

    __init__ = rng_init


@dataclass(frozen=True, init=False)
class Pass:
    """Pass instead of drawing from an empty stock (``stock_empty = "play-on"``)."""

    rng_after: int | None = field(default=None, compare=False, repr=False)

    __init__ = rng_init


@dataclass(frozen=True)
class Fail:
    """A botched play (a manipulation, or a new meld of hand cards): table restored,
    ``failed_penalty`` cards drawn.

    A consequence, not a free action: legal only where a play is legal. ``attempt``: the
    play that was botched (a strategy's fail carries it); without it, some legal play must
    exist (the caller's ``play_exists``, the exact solver)."""

    attempt: Play | None = field(default=None, compare=False, repr=False)
    rng_after: int | None = field(default=None, compare=False, repr=False)


Action = Play | Draw | Pass | Fail


def check_action(rules: Rules, action: Action, *, seat: int, hand: Counts,
                 melds: Sequence[Sequence[int]], stands: Sequence[Sequence[int]] | None,
                 opened: bool, stock_left: int, play_exists: Callable[[], bool],
                 draw_passes: bool = False, strict: bool = True,
                 memo: validate.MeldMemo | None = None) -> None:
    """Raise FastmachError naming the rule ``action`` breaks in this position.

    ``hand``: the seat's 53 card counts; ``melds``/``stands``: the table's meld list and
    what each card stands for (None: unknown, as in a log); ``play_exists``: whether the
    seat can add a card (asked only when ``may_draw_when_able`` or ``may_pass_when_able``
    is false, and for a Fail without its attempt). ``draw_passes``: a Draw from an empty stock under play-on is
    the pass the engine makes of it (bots) rather than an error. ``strict``: a play's
    table is checked by the independent validator (``fastmach.core.validate``) always;
    otherwise by the compiled check (``fastmach.core._meldcheck``) first, the validator
    only to name what is wrong (the bots' fast path). ``memo``: the validator's verdicts
    of melds already judged (``validate.MeldMemo``; a replay's table melds repeat)."""
    r = rules
    if isinstance(action, Play):
        _check_play(r, action, seat, hand, melds, stands, opened, strict, memo)
    elif isinstance(action, (Draw, Pass)):
        passing = flow.passes(r, stock_left)
        if isinstance(action, Pass) and not passing:
            raise FastmachError(flow.PASS_ONLY_ON_EMPTY_STOCK)
        if isinstance(action, Draw) and passing and not draw_passes:
            raise FastmachError(flow.DRAW_ON_EMPTY_STOCK)
        name = flow.declining_rule(r, stock_left)
        if not getattr(r, name) and play_exists():
            raise FastmachError(f"seat {seat} can play and {name} is false: must play")
    elif isinstance(action, Fail):
        if not any(hand[c] for c in range(NCARD)):
            raise FastmachError("fail: the hand is empty")
        if action.attempt is not None:
            _check_play(r, action.attempt, seat, hand, melds, stands, opened, strict, memo)
        elif not play_exists():
            raise FastmachError(
                f"fail: seat {seat} has no legal play, so there is no play to botch")
    else:
        raise FastmachError(f"unknown action {action!r}")


def rearranges(melds, new_melds) -> bool:
    """Whether a table of ``new_melds`` changed at least one meld of ``melds``."""
    before = Counter(tuple(sorted(m)) for m in melds)
    return bool(before - Counter(tuple(sorted(m)) for m in new_melds))


def _check_play(r: Rules, a: Play, seat: int, hand: Counts, melds, stands,
                opened: bool, strict: bool = True,
                memo: validate.MeldMemo | None = None) -> None:
    if not a.placed:
        raise FastmachError("a play must add at least one hand card")
    for c, k in Counter(a.placed).items():
        if not 0 <= c < NCARD or hand[c] < k:
            raise FastmachError(f"placed {card_str(c)} x{k} but seat {seat} holds {int(hand[c]) if 0 <= c < NCARD else 0}")
    flat = list(chain.from_iterable(melds))
    opening_turn = r.opening_points > 0 and not opened
    if a.taken:
        table = Counter(flat)
        if r.joker_swap != "hand":
            raise FastmachError("taken: table cards never return to a hand (joker_swap=table)")
        if opening_turn:
            raise FastmachError("taken: a joker swap needs an opened player")
        if any(c != JOKER for c in a.taken):
            raise FastmachError("taken: only jokers may return to a hand")
        if stands is None:  # readings unknown (a log): any table joker may be taken back
            swappable = table[JOKER]
        else:
            stood = Counter(s for m, st in zip(melds, stands)
                            for c, s in zip(m, st) if c == JOKER)
            swappable = sum(min(k, Counter(a.placed)[c]) for c, k in stood.items())
        if len(a.taken) > min(table[JOKER], swappable):
            raise FastmachError(
                f"taken {len(a.taken)} joker(s) but only {swappable} can be replaced by "
                "the real card each stands for")
    # the table before, the placed cards, less the jokers taken back (all jokers, no more
    # than the table holds: checked above)
    cards = flat + list(a.placed)
    for _ in a.taken:
        cards.remove(JOKER)
    if a.stands is not None:
        _check_stands(r, a, a.stands, strict)
    bad = _partition_error(r, a.melds, cards, strict, memo)
    if bad is not None:
        raise FastmachError(f"illegal play: {bad}")
    if opening_turn:
        before = Counter(tuple(sorted(m)) for m in melds)
        after = Counter(tuple(sorted(m)) for m in a.melds)   # (as melds, not their order)
        if before - after:
            raise FastmachError("opening: the table may not be rearranged before opening")
        new = list((after - before).elements())
        pts = sum(meld_points(m, r.ace_high) for m in new)
        if pts < r.opening_points:
            raise FastmachError(
                f"opening: the new melds are worth {pts} points, below opening_points="
                f"{r.opening_points}")


def _partition_error(r: Rules, melds, cards: list[int], strict: bool, memo=None) -> str | None:
    """None when ``melds`` are valid melds of exactly ``cards``, else the independent
    validator's words. ``strict``: the validator decides; otherwise the compiled check
    first, the validator only when it refuses (to name what is wrong, and as the
    authority)."""
    if not strict and partition_ok(melds, cards, r.decks, r.ace_high, r.jokers_per_meld,
                                   r.ace_both_ends):
        return None
    try:
        validate.check_partition(melds, cards, decks=r.decks, ace_high=r.ace_high,
                                 jokers_per_meld=r.jokers_per_meld,
                                 ace_both_ends=r.ace_both_ends, memo=memo)
    except validate.ValidationError as e:
        return str(e)
    return None


def _check_stands(r: Rules, a: Play, stands: tuple[Meld, ...], strict: bool) -> None:
    """A play's readings (``stands``) are readings of its melds: one per card, each natural
    card standing for itself, and each meld with jokers a valid meld when every joker is
    replaced by the card it stands for (the engine keeps the readings for later swaps)."""
    def text(m) -> str:
        return " ".join(card_str(c) if 0 <= c < NCARD else str(c) for c in m)

    if stands == a.melds and not any(JOKER in m for m in a.melds):
        return   # no joker: every card stands for itself, as each does here
    if len(stands) != len(a.melds):
        raise FastmachError(f"stands: {len(stands)} readings for {len(a.melds)} melds")
    for m, st in zip(a.melds, stands):
        if len(st) != len(m):
            raise FastmachError(f"stands: the meld {text(m)} has {len(m)} cards and "
                                f"{len(st)} readings")
        for c, x in zip(m, st):
            if c != JOKER and x != c:
                raise FastmachError(f"stands: {card_str(c) if 0 <= c < NCARD else c} in "
                                    f"{text(m)} must stand for itself")
            if c == JOKER and not 0 <= x < JOKER:
                raise FastmachError(f"stands: a joker in {text(m)} stands for {x}, not a card")
        if JOKER in m and _partition_error(r, [st], list(st), strict) is not None:
            raise FastmachError(f"stands: {text(m)} read as {text(st)} is not a meld")


# ------------------------------------------------------------------ meld values
def _pos_rank(p: int) -> int:
    return 1 if p == 14 else p


def _run_windows(meld: Sequence[int], ace_high: bool):
    """Valid run windows (lo, hi) of a meld with jokers (positions 1..13, 14 = high ace)."""
    real = [c for c in meld if c != JOKER]
    n = len(meld)
    if not real or len({c // 13 for c in real}) != 1:
        return
    ranks = [c % 13 + 1 for c in real]
    others = [x for x in ranks if x != 1]
    aces = len(ranks) - len(others)
    if len(set(others)) != len(others):
        return
    top = 14 if ace_high else 13
    for lo in range(1, top - n + 2):
        hi = lo + n - 1
        if all(lo <= x <= hi for x in others) and aces <= (lo <= 1) + (ace_high and hi >= 14):
            yield lo, hi


def meld_points(meld: Sequence[int], ace_high: bool) -> int:
    """Opening value of a meld (A 1, J/Q/K 10): a joker counts as the card it stands for;
    when a meld can be read several ways, the best reading counts."""
    real = [c for c in meld if c != JOKER]
    best = -1
    if real and len({c % 13 for c in real}) == 1 and len({c // 13 for c in real}) == len(real) \
            and 3 <= len(meld) <= 4:
        best = len(meld) * int(OPENING_POINTS[real[0] % 13])
    for lo, hi in _run_windows(meld, ace_high):
        best = max(best, sum(int(OPENING_POINTS[_pos_rank(p) - 1]) for p in range(lo, hi + 1)))
    return max(best, 0)


def meld_stands(meld: Sequence[int], ace_high: bool) -> list[int]:
    """A reading of the meld: each card itself, each joker the card it stands for (group:
    a missing suit; run: the first free position of the lowest window)."""
    real = [c for c in meld if c != JOKER]
    out = list(meld)
    if len(real) == len(meld) or not real:
        return out
    if len({c % 13 for c in real}) == 1 and len({c // 13 for c in real}) == len(real):
        missing = [s for s in range(4) if s not in {c // 13 for c in real}]
        rank = real[0] % 13
        k = 0
        for i, c in enumerate(meld):
            if c == JOKER:
                out[i] = missing[k % len(missing)] * 13 + rank
                k += 1
        return out
    for lo, hi in _run_windows(meld, ace_high):
        suit = real[0] // 13
        taken = set()
        for c in real:
            p = c % 13 + 1
            if p == 1 and (lo > 1 or 1 in taken):
                p = 14
            taken.add(p)
        free = [p for p in range(lo, hi + 1) if p not in taken]
        k = 0
        for i, c in enumerate(meld):
            if c == JOKER:
                out[i] = suit * 13 + _pos_rank(free[k]) - 1
                k += 1
        return out
    return out
