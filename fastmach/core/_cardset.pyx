"""Bitset card multisets: the Python ``CardSet`` over the inline operations of _cardset.pxd.

A ``CardSet`` holds up to 3 copies of each of the 52 card types plus up to 255 jokers.
It is built from anything :func:`fastmach.core.cards.parse_cards` reads (``"AS 10H JK"``, a
list of tokens or ids, a uint8 count array of length 53) or from another ``CardSet``.
Compiled modules cimport ``CardSet`` and use its ``s`` struct with the ``cs_*`` functions.
"""
from time import perf_counter_ns

import numpy as np

from fastmach.core.cards import card_points, card_str, cards_to_counts, parse_cards
from fastmach.errors import FastmachError

#: True when this build counts bits with the popcnt instruction (-mpopcnt).
HW_POPCNT = bool(CS_HW_POPCNT)

_LIMIT = "a card set holds at most 3 copies of each card and 255 jokers"


cdef int _card_id(object card) except -1:
    """Card id of one token or id; fastmach.core.cards validates it and names a bad one."""
    if type(card) is int and 0 <= card < CS_NCARD:
        return card
    return parse_cards([card])[0]


cdef str _names(const uint8_t[::1] counts):
    """Canonical text of the cards with a nonzero entry in ``counts`` (for messages)."""
    cdef int c
    return " ".join([card_str(c) for c in range(CS_NCARD) if counts[c]])


cdef int _point_table(object scheme, pointtab_t* t) except -1:
    """Fill ``t`` from a scheme name (fastmach.core.cards.POINT_SCHEMES) or 53 per-card values."""
    if isinstance(scheme, str):
        pts = card_points(scheme)
    else:
        arr = np.asarray(scheme)
        if arr.shape != (CS_NCARD,) or arr.dtype.kind not in "iu":
            raise FastmachError(
                f"points needs a scheme name or 53 integer card values, got {scheme!r}")
        pts = arr.astype(np.int32)
        if (pts != arr).any():
            raise FastmachError("point values must fit in int32")
    cdef const int32_t[::1] p = np.ascontiguousarray(pts, dtype=np.int32)
    if pt_init(t, &p[0]) < 0:
        bad = next(c for c in range(CS_JOKER) if not 0 <= p[c] < (1 << CS_MAXPLANE))
        raise FastmachError(f"bad point value {p[bad]} for {card_str(bad)} (expected 0..65535)")
    return 0


cdef class CardSet:
    """A multiset of cards as layered bitsets (see fastmach/core/_cardset.pxd).

    ``CardSet("8H 8H JK")``, ``CardSet([0, 13, 52])``, ``CardSet(counts)``; ``len``,
    ``in``, ``count``, ``add``/``remove``, ``<=`` (sub-multiset), ``+``/``-`` (multiset
    sum and difference), ``points(scheme)``, iteration over card ids in order with
    repeats, ``to_counts()``/``from_counts()``, ``str`` in canonical text. Equal sets hash
    equal; do not mutate a card set while it is a dict key or set member.
    """

    def __init__(self, cards=None):
        cs_clear(&self.s)
        if cards is None:
            return
        if isinstance(cards, CardSet):
            self.s = (<CardSet>cards).s
        elif isinstance(cards, np.ndarray):
            self._set_counts(cards_to_counts(cards))
        else:
            for c in parse_cards(cards):
                self.add(c)

    cdef int _set_counts(self, const uint8_t[::1] counts) except -1:
        if cs_from_counts(&self.s, &counts[0]) < 0:
            bad = next(c for c in range(CS_JOKER) if counts[c] > CS_MAXCOPY)
            raise FastmachError(f"{counts[bad]} copies of {card_str(bad)}: {_LIMIT}")
        return 0

    @staticmethod
    def from_counts(counts) -> CardSet:
        """A card set from a count array of length 53 (index 52 counts jokers)."""
        cdef CardSet out = CardSet.__new__(CardSet)
        out._set_counts(cards_to_counts(np.asarray(counts)))
        return out

    def to_counts(self) -> np.ndarray:
        """uint8 count array of length 53 (index 52 counts jokers)."""
        out = np.empty(CS_NCARD, dtype=np.uint8)
        cdef uint8_t[::1] o = out
        cs_to_counts(&self.s, &o[0])
        return out

    def copy(self) -> CardSet:
        cdef CardSet out = CardSet.__new__(CardSet)
        out.s = self.s
        return out

    def add(self, card) -> None:
        """Add one copy of ``card`` (token or id); a 4th copy is refused."""
        cdef int c = _card_id(card)
        if cs_add(&self.s, c) < 0:
            n = cs_count_of(&self.s, c) + 1
            raise FastmachError(f"cannot add copy {n} of {card_str(c)}: {_LIMIT}")

    def remove(self, card) -> None:
        """Remove one copy of ``card``; an absent card is refused."""
        cdef int c = _card_id(card)
        if cs_remove(&self.s, c) < 0:
            raise FastmachError(f"cannot remove {card_str(c)}: it is not in the card set")

    def count(self, card) -> int:
        """Copies of ``card`` (token or id) in the set."""
        return cs_count_of(&self.s, _card_id(card))

    def __contains__(self, card) -> bool:
        return cs_count_of(&self.s, _card_id(card)) > 0

    def __len__(self) -> int:
        return cs_size(&self.s)

    def points(self, scheme) -> int:
        """Total points of the cards under a ``hand_points`` scheme name
        (:data:`fastmach.core.cards.POINT_SCHEMES`) or an array of 53 per-card values."""
        cdef pointtab_t t
        _point_table(scheme, &t)
        return cs_points(&self.s, &t)

    def cards(self) -> list:
        """Card ids in increasing order, with repeats (jokers, id 52, last)."""
        cdef list out = []
        cdef uint64_t rest = self.s.layer[0]
        cdef int i, c
        while rest:
            i = cs_ctz(rest)
            rest &= rest - 1
            c = cs_card(i)
            out.append(c)
            if (self.s.layer[1] >> i) & 1:
                out.append(c)
                if (self.s.layer[2] >> i) & 1:
                    out.append(c)
        out.extend([CS_JOKER] * self.s.jokers)
        return out

    def __iter__(self):
        return iter(self.cards())

    def issubset(self, other) -> bool:
        """Every card has at most as many copies here as in ``other``."""
        return cs_subset(&self.s, &_as_cardset(other).s)

    def issuperset(self, other) -> bool:
        return cs_subset(&_as_cardset(other).s, &self.s)

    def __le__(self, other):
        if not isinstance(other, CardSet):
            return NotImplemented
        return cs_subset(&self.s, &(<CardSet>other).s)

    def __ge__(self, other):
        if not isinstance(other, CardSet):
            return NotImplemented
        return cs_subset(&(<CardSet>other).s, &self.s)

    def __lt__(self, other):
        if not isinstance(other, CardSet):
            return NotImplemented
        return cs_subset(&self.s, &(<CardSet>other).s) and not cs_equal(&self.s, &(<CardSet>other).s)

    def __gt__(self, other):
        if not isinstance(other, CardSet):
            return NotImplemented
        return cs_subset(&(<CardSet>other).s, &self.s) and not cs_equal(&self.s, &(<CardSet>other).s)

    def __eq__(self, other):
        if not isinstance(other, CardSet):
            return NotImplemented
        return cs_equal(&self.s, &(<CardSet>other).s)

    def __ne__(self, other):
        if not isinstance(other, CardSet):
            return NotImplemented
        return not cs_equal(&self.s, &(<CardSet>other).s)

    def __hash__(self):
        return hash((self.s.layer[0], self.s.layer[1], self.s.layer[2], self.s.jokers))

    def __add__(self, other):
        """Multiset sum; refused when a card would have more than 3 copies."""
        if not isinstance(other, CardSet):
            return NotImplemented
        cdef CardSet out = self.copy()
        if cs_union_add(&out.s, &(<CardSet>other).s) < 0:
            total = self.to_counts().astype(np.intp) + other.to_counts()
            over = (total > CS_MAXCOPY).astype(np.uint8)
            over[CS_JOKER] = total[CS_JOKER] > 255
            raise FastmachError(f"cannot add the card sets: too many copies of {_names(over)}; {_LIMIT}")
        return out

    def __sub__(self, other):
        """Multiset difference; ``other`` must be a subset of this set."""
        if not isinstance(other, CardSet):
            return NotImplemented
        cdef CardSet out = self.copy()
        if cs_difference(&out.s, &(<CardSet>other).s) < 0:
            missing = (other.to_counts() > self.to_counts()).astype(np.uint8)
            raise FastmachError(f"cannot subtract: the card set lacks copies of {_names(missing)}")
        return out

    def __str__(self):
        return " ".join(card_str(c) for c in self.cards())

    def __repr__(self):
        return f"CardSet({str(self)!r})"

    def __reduce__(self):
        return (CardSet.from_counts, (self.to_counts(),))

    @property
    def layers(self) -> tuple:
        """The raw (layer0, layer1, layer2, jokers) words (bit ``suit*16 + rank``)."""
        return (self.s.layer[0], self.s.layer[1], self.s.layer[2], self.s.jokers)


cdef CardSet _as_cardset(object x):
    return x if isinstance(x, CardSet) else CardSet(x)


# ------------------------------------------------------------------------------ bench

cdef uint64_t _sink = 0


def bench_cardset(int reps=20000, int seed=0) -> dict:
    """Nanoseconds per operation (best of 7) for add, remove, subset, points and size.

    add/remove: 104 cards (two shuffled decks) into an empty set and out again;
    subset/points/size: over a pool of 256 random multisets of 0..60 cards.
    ``HW_POPCNT`` says whether this build uses the popcnt instruction.
    """
    global _sink
    rng = np.random.default_rng(seed)
    cdef int[::1] ins = rng.permutation(np.repeat(np.arange(CS_JOKER), 2)).astype(np.intc)
    cdef int[::1] outs = rng.permutation(np.repeat(np.arange(CS_JOKER), 2)).astype(np.intc)
    cdef cardset_t pool[256]
    cdef uint8_t[::1] cnt
    for k in range(256):
        counts = np.zeros(CS_NCARD, dtype=np.uint8)
        np.add.at(counts, rng.integers(0, CS_JOKER, rng.integers(0, 61)), 1)
        cnt = np.minimum(counts, CS_MAXCOPY)
        cs_from_counts(&pool[k], &cnt[0])
        if k % 2:  # odd entries are subsets of the one before
            pool[k].layer[0] &= pool[k - 1].layer[0]
            pool[k].layer[1] &= pool[k - 1].layer[1]
            pool[k].layer[2] &= pool[k - 1].layer[2]
    cdef pointtab_t pt
    _point_table("face-ace11", &pt)
    cdef cardset_t s, full
    cdef int64_t acc = 0
    cdef int r, j, i, mode, n = ins.shape[0]
    cs_clear(&full)
    for j in range(n):
        cs_add(&full, ins[j])
    best = {}
    for mode, name in enumerate(("add", "remove", "subset", "points", "size")):
        ops = reps * (n if name in ("add", "remove") else 256)
        times = []
        for _ in range(7):
            t0 = perf_counter_ns()
            with nogil:
                if mode == 0:
                    for r in range(reps):
                        cs_clear(&s)
                        for j in range(n):
                            acc += cs_add(&s, ins[j])
                        acc += <int64_t>s.layer[1]
                elif mode == 1:
                    for r in range(reps):
                        s = full
                        for j in range(n):
                            acc += cs_remove(&s, outs[j])
                        acc += <int64_t>s.layer[0]
                elif mode == 2:
                    for r in range(reps):
                        for i in range(256):
                            acc += cs_subset(&pool[i], &pool[i ^ (1 | (r & 6))])
                elif mode == 3:
                    for r in range(reps):
                        for i in range(256):
                            acc += cs_points(&pool[(i + r) & 255], &pt)
                else:
                    for r in range(reps):
                        for i in range(256):
                            acc += cs_size(&pool[(i + r) & 255])
            times.append(perf_counter_ns() - t0)
        best[name] = min(times) / ops
    _sink += <uint64_t>acc
    return best
