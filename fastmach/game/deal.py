"""The deck of a rule set, the seed check and the deals of a seed, shared by the engine,
the reference State and the log replay."""
from __future__ import annotations

import secrets
from dataclasses import dataclass

import numpy as np

from fastmach.core.cards import JOKER
from fastmach.errors import FastmachError
from fastmach.rules import Rules, is_integer


def deck_of(rules: Rules) -> np.ndarray:
    """Sorted card ids of the deck: each of the 52 types ``decks`` times, then jokers."""
    return np.concatenate([
        np.repeat(np.arange(JOKER, dtype=np.uint8), rules.decks),
        np.full(rules.jokers, JOKER, dtype=np.uint8),
    ])


def check_seed(root_seed) -> int:
    """``root_seed`` as an int: a non-negative integer below 2**63, else an error naming it."""
    if not is_integer(root_seed) or root_seed < 0:
        raise FastmachError(f"seed must be a non-negative integer, got {root_seed!r}")
    if root_seed >= 2**63:
        raise FastmachError(f"seed must be below 2**63, got {root_seed}")
    return int(root_seed)


#: the root seed that is drawn from the operating system (``--seed secret``)
SECRET = "secret"


def resolve_seed(root_seed) -> int:
    """A root seed: ``"secret"`` draws one from the operating system (a tournament's
    setting: no bot can guess the deals; the seed is recorded only in the result rows),
    anything else must pass :func:`check_seed`."""
    if isinstance(root_seed, str) and root_seed.strip().lower() == SECRET:
        return secrets.randbits(63)
    return check_seed(root_seed)


@dataclass(frozen=True)
class Deal:
    """One hand's deal: the dealer, the seat that plays first, each seat's cards (sorted
    card ids) and the stock (next card first)."""

    hand: int
    dealer: int
    first_player: int
    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]


def game_start(rules: Rules, root_seed: int, replicate: int):
    """The first draws of replicate ``replicate`` of ``root_seed`` (the engine's seeding,
    ``fastmach.engine``): ``(rng, first deck order, first dealer, in-game seed, first cut)``,
    the cut None unless ``first_player_by = "cut"``; ``rng`` deals the later hands."""
    rng = np.random.default_rng(np.random.SeedSequence([int(replicate), int(root_seed)]))
    perm = rng.permutation(deck_of(rules))
    dealer = int(rng.integers(rules.players))
    rng_state = int(rng.integers(0, 2**64, dtype=np.uint64))
    cut = int(rng.integers(rules.players)) if rules.first_player_by == "cut" else None
    return rng, perm, dealer, rng_state, cut


class Deals:
    """The hands of one game as ``(rules, root seed, replicate)`` deals them, in order
    (``deal(h)`` deals hand ``h``; from the start again for an earlier hand)."""

    def __init__(self, rules: Rules, root_seed: int, replicate: int):
        self.rules, self.root_seed, self.replicate = rules, int(root_seed), int(replicate)
        self._restart()

    def _restart(self) -> None:
        self._rng, self._perm, self.first_dealer, _, self.first_cut = game_start(
            self.rules, self.root_seed, self.replicate)
        self._next = 0   # the hand self._perm deals

    def deal(self, hand: int) -> Deal:
        r = self.rules
        if hand < self._next:
            self._restart()
        while self._next < hand:
            self._perm = self._rng.permutation(deck_of(r))
            self._next += 1
        P, n = r.players, r.hand_size
        dealer = (self.first_dealer + hand) % P
        first = (self.first_cut + hand) % P if self.first_cut is not None else (dealer + 1) % P
        cards = self._perm.tolist()
        seats: list[list[int]] = [[] for _ in range(P)]
        for k in range(P * n):
            seats[(dealer + 1 + k) % P].append(cards[k])
        return Deal(hand, dealer, first, tuple(tuple(sorted(s)) for s in seats),
                    tuple(cards[P * n:]))
