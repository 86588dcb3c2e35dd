"""Card notation: text <-> card ids <-> count arrays, pretty printing, point tables.

A card id is ``suit*13 + (rank-1)`` with suits S=0, H=1, D=2, C=3 and ranks A=1 .. K=13;
the joker is ``JOKER = 52``. A card list is a list of ints in 0..52; a multiset is a numpy
uint8 count array of length ``NCARD = 53`` (index 52 counts jokers).

Text notation is rank then suit: ``AS 10H QC JK``. Parsing accepts lowercase, ``T`` for
10, unicode suits (♠♥♦♣ and the white variants ♤♡♢♧, optionally followed by a U+FE0E or
U+FE0F variation selector) and ``JK`` or ``*`` for a joker. Canonical output is ``10H``,
``AS``, ``JK``.
"""
from __future__ import annotations

import re

import numpy as np

from fastmach.errors import FastmachError

__all__ = [
    "JOKER",
    "NCARD",
    "RANK_NAMES",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "POINT_SCHEMES",
    "OPENING_POINTS",
    "parse_card",
    "parse_cards",
    "card_str",
    "format_cards",
    "pretty",
    "cards_to_counts",
    "counts_to_cards",
    "check_copies",
    "card_points",
    "rank_of",
    "suit_of",
]

JOKER = 52
NCARD = 53

#: ``RANK_NAMES[rank - 1]`` is the text of a rank (A=1 .. K=13).
RANK_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: ``SUIT_NAMES[suit]`` is the letter of a suit (S=0, H=1, D=2, C=3).
SUIT_NAMES: tuple[str, ...] = ("S", "H", "D", "C")
#: ``SUIT_SYMBOLS[suit]`` is the unicode symbol used by :func:`pretty`.
SUIT_SYMBOLS: tuple[str, ...] = ("♠", "♥", "♦", "♣")

_RANK_OF_TEXT = {name: i + 1 for i, name in enumerate(RANK_NAMES)}
_RANK_OF_TEXT["T"] = 10
_SUIT_OF_TEXT = {
    "S": 0, "H": 1, "D": 2, "C": 3,
    "♠": 0, "♥": 1, "♦": 2, "♣": 3,
    "♤": 0, "♡": 1, "♢": 2, "♧": 3,
}
_JOKER_TEXT = frozenset({"JK", "*"})
_VARIATION_SELECTORS = "\ufe0e\ufe0f"
_SEPARATORS = re.compile(r"[\s,]+")
_EXPECTED = "expected rank A,2..10,J,Q,K then suit S,H,D,C, or JK"


def rank_of(c: int) -> int:
    """Rank 1..13 of a non-joker card id."""
    return c % 13 + 1


def suit_of(c: int) -> int:
    """Suit 0..3 (S, H, D, C) of a non-joker card id."""
    return c // 13


#: tokens already read (a log spells the same 53 names over and over), bounded
_TOKEN_IDS: dict[str, int] = {}
_TOKEN_CACHE = 4096


def parse_card(token: str) -> int:
    """Card id of one text token (``"10H"``, ``"th"``, ``"A♠"``, ``"JK"``, ``"*"``)."""
    if type(token) is str:
        hit = _TOKEN_IDS.get(token)
        if hit is not None:
            return hit
    c = _parse_card(token)
    if type(token) is str and len(_TOKEN_IDS) < _TOKEN_CACHE:
        _TOKEN_IDS[token] = c
    return c


def _parse_card(token: str) -> int:
    if not isinstance(token, str):
        raise FastmachError(f"bad card {token!r} (a card token must be a string; {_EXPECTED})")
    text = token.strip().rstrip(_VARIATION_SELECTORS).upper()
    if text in _JOKER_TEXT:
        return JOKER
    if len(text) >= 2:
        rank = _RANK_OF_TEXT.get(text[:-1])
        suit = _SUIT_OF_TEXT.get(text[-1])
        if rank is not None and suit is not None:
            return suit * 13 + rank - 1
    raise FastmachError(f"bad card {token!r} ({_EXPECTED})")


def _card_id(x) -> int:
    """Validate one element of a card list: a text token or an int id 0..52."""
    if isinstance(x, str):
        return parse_card(x)
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        if 0 <= x < NCARD:
            return int(x)
        raise FastmachError(f"bad card id {int(x)} (expected 0..{NCARD - 1})")
    raise FastmachError(f"bad card {x!r} (expected a card token like '10H' or an id 0..52)")


def parse_cards(x) -> list[int]:
    """A list of card ids from text, a list/tuple of tokens and/or ids, or a count array.

    Text is split on whitespace and commas. A numpy array must be a count array of length
    53 and is expanded to a sorted list (pass a list, not an array, for card ids).
    """
    if isinstance(x, str):
        return [parse_card(t) for t in _SEPARATORS.split(x) if t]
    if isinstance(x, np.ndarray):
        return counts_to_cards(x)
    if isinstance(x, (list, tuple)):
        return [_card_id(e) for e in x]
    raise FastmachError(
        f"cannot read cards from {type(x).__name__} {x!r}: expected text like 'AS 10H JK', "
        "a list/tuple of tokens or ids, or a count array of length 53"
    )


def card_str(c: int) -> str:
    """Canonical text of one card id: ``10H``, ``AS``, ``JK``."""
    if type(c) is int and 0 <= c < NCARD:
        return _CARD_NAMES[c]
    c = _card_id(c)
    if c == JOKER:
        return "JK"
    return RANK_NAMES[c % 13] + SUIT_NAMES[c // 13]


_CARD_NAMES = tuple([RANK_NAMES[c % 13] + SUIT_NAMES[c // 13] for c in range(JOKER)] + ["JK"])


def _ordered(cards, sort: bool) -> list[int]:
    if isinstance(cards, (int, np.integer)) and not isinstance(cards, (bool, np.bool_)):
        cards = [cards]
    ids = parse_cards(cards)
    # ids are suit*13 + rank-1 with the joker at 52: numeric order = suit, rank, jokers last
    return sorted(ids) if sort else ids


def format_cards(cards, sort: bool = True) -> str:
    """Space-joined canonical text, sorted by suit then rank with jokers last.

    ``cards`` is anything :func:`parse_cards` accepts. ``sort=False`` keeps the given order.
    """
    return " ".join(card_str(c) for c in _ordered(cards, sort))


def pretty(cards, sort: bool = True) -> str:
    """Like :func:`format_cards` with unicode suits: ``A♠ 10♥ JK``. Accepts one id too."""
    out = []
    for c in _ordered(cards, sort):
        out.append("JK" if c == JOKER else RANK_NAMES[c % 13] + SUIT_SYMBOLS[c // 13])
    return " ".join(out)


def cards_to_counts(cards) -> np.ndarray:
    """uint8 count array of length 53 from anything :func:`parse_cards` accepts."""
    if isinstance(cards, np.ndarray):
        _check_count_array(cards)
        return cards.astype(np.uint8, copy=True)
    ids = parse_cards(cards)
    counts = np.bincount(np.asarray(ids, dtype=np.intp), minlength=NCARD)
    if counts.max(initial=0) > 255:
        raise FastmachError(f"more than 255 copies of {card_str(int(counts.argmax()))}")
    return counts.astype(np.uint8)


def counts_to_cards(counts) -> list[int]:
    """Sorted list of card ids from a count array of length 53."""
    arr = np.asarray(counts)
    _check_count_array(arr)
    return np.repeat(np.arange(NCARD), arr.astype(np.intp)).tolist()


def _check_count_array(arr: np.ndarray) -> None:
    """A count array's shape (53,), integer dtype, signs and at most 255 copies of a card
    (what a position can hold), or a FastmachError: checked before any count is expanded."""
    if arr.shape != (NCARD,):
        raise FastmachError(f"a count array must have shape ({NCARD},), got {arr.shape}")
    if arr.dtype.kind not in "biu":
        raise FastmachError(f"a count array must hold integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "i" and (arr < 0).any():
        bad = int(np.flatnonzero(arr < 0)[0])
        raise FastmachError(f"negative count {int(arr[bad])} for {card_str(bad)} in a count array")
    if arr.max() > 255:
        raise FastmachError(f"more than 255 copies of {card_str(int(arr.argmax()))}")


def check_copies(counts, decks: int, jokers: int) -> None:
    """Refuse a multiset holding more copies of a card than ``decks`` decks + ``jokers``.

    ``counts`` is a count array or anything :func:`parse_cards` accepts. The message names
    every offending card, e.g. ``3 copies of 8H but the deck has 2``.
    """
    c = cards_to_counts(counts).astype(np.int64)
    problems = [
        f"{int(c[i])} copies of {card_str(int(i))} but the deck has {decks}"
        for i in np.flatnonzero(c[:JOKER] > decks)
    ]
    if c[JOKER] > jokers:
        n = int(c[JOKER])
        problems.append(
            f"{n} joker{'s' if n != 1 else ''} but the rules have {jokers} (jokers={jokers})"
        )
    if problems:
        raise FastmachError("; ".join(problems))


# ---------------------------------------------------------------------------------------
# point tables

def _table(ace: int, face: int, joker: int, flat: int | None = None) -> np.ndarray:
    pts = np.zeros(NCARD, dtype=np.int32)
    for c in range(JOKER):
        r = c % 13 + 1
        if flat is not None:
            pts[c] = flat
        elif r == 1:
            pts[c] = ace
        else:
            pts[c] = r if r <= 10 else face
    pts[JOKER] = joker
    pts.flags.writeable = False
    return pts


#: Hand-point schemes (docs/rules.md `hand_points`), registry name -> read-only int32 table.
#: - ``cards``: 1 per card, a joker too (classic: 1 penalty point per card).
#: - ``face-ace1``: A 1, 2-10 face, J/Q/K 10 (ace-low). The ace-low text gives no joker
#:   value (its jokers are a variant); we chose 25, like the other traditions.
#: - ``face-ace11``: A 11, 2-10 face, J/Q/K 10, joker 25 (jokers, italian).
POINT_SCHEMES: dict[str, np.ndarray] = {
    "cards": _table(ace=1, face=1, joker=1, flat=1),
    "face-ace1": _table(ace=1, face=10, joker=25),
    "face-ace11": _table(ace=11, face=10, joker=25),
}

#: Values for the 36-point opening (ace-low variant): A 1, 2-10 face, J/Q/K 10.
#: A joker counts as the card it stands for, so its entry (index 52) is 0 and must not be
#: used: value a joker through the card it replaces. Read-only.
OPENING_POINTS: np.ndarray = _table(ace=1, face=10, joker=0)


def card_points(scheme: str) -> np.ndarray:
    """A fresh int32 array of length 53: points of each card id under ``scheme``."""
    table = POINT_SCHEMES.get(scheme) if isinstance(scheme, str) else None
    if table is None:
        raise FastmachError(
            f"unknown hand_points scheme {scheme!r}; known: {', '.join(POINT_SCHEMES)}"
        )
    return table.copy()
