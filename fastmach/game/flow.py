"""The turn flow's rules in Python, written once: what a turn without a play takes from
the stock, when a turn ends the hand, when a hand is blocked, and who wins a hand.

The reference ``State`` (fastmach.game) plays by these functions and the log replay
(fastmach.game.log_reader) checks a log's turns and ends by them; the compiled engine's turn
(``fastmach/game/_turn.pxd``) is the same model in C, and the tests compare the two
(the engine's batch shares, ``fastmach.engine.hand_shares``, against ``hand_outcome``).
The clauses are in docs/rules.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from fastmach.rules import BLOCK_ROUNDS, Rules

__all__ = ["NON_PLAYS", "passes", "declining_rule", "cards_to_draw", "turn_end", "counts_toward_block", "blocked_now", "may_be_blocked",
           "must_know_who_can_play",
           "Outcome", "hand_outcome", "lowest_shares", "PASS_ONLY_ON_EMPTY_STOCK",
           "DRAW_ON_EMPTY_STOCK"]

#: the turns that add no card to the table
NON_PLAYS = ("draw", "pass", "fail")

PASS_ONLY_ON_EMPTY_STOCK = "pass: only with an empty stock under stock_empty=play-on"
DRAW_ON_EMPTY_STOCK = "draw: the stock is empty (stock_empty=play-on: pass)"


def passes(rules: Rules, stock_left: int) -> bool:
    """Whether a turn without a play is a pass: the stock is empty under ``stock_empty =
    "play-on"`` (there is no card to draw); otherwise it is a draw."""
    return stock_left == 0 and rules.stock_empty == "play-on"


def declining_rule(rules: Rules, stock_left: int) -> str:
    """The rule parameter that says whether a seat able to play may take that turn
    instead: ``may_pass_when_able`` for a pass, ``may_draw_when_able`` for a draw."""
    return "may_pass_when_able" if passes(rules, stock_left) else "may_draw_when_able"


def cards_to_draw(rules: Rules, kind: str, stock_left: int) -> int:
    """How many stock cards a ``kind`` turn takes with ``stock_left`` cards in the stock:
    a draw one, a pass none, a failed play ``failed_penalty`` (fewer when the stock holds
    fewer; none from an empty stock)."""
    if kind == "draw":
        return min(1, stock_left)
    if kind == "fail":
        return min(rules.failed_penalty, stock_left)
    return 0


def turn_end(rules: Rules, kind: str, *, stock_at_start: int, stock_after: int,
             hand_left: int) -> str | None:
    """The end a turn gives the hand (``emptied``, ``stock-out``) or None.

    A play that empties the hand ends it (emptied). Under ``stock_empty = "ends-hand"``
    (003) the turn that draws the stock's last card ends the hand, and so does a draw or
    a failed play from an already empty stock."""
    if kind == "play":
        return "emptied" if hand_left == 0 else None
    if rules.stock_empty == "ends-hand" and kind != "pass":
        if stock_at_start == 0 or stock_after == 0:
            return "stock-out"
    return None


def counts_toward_block(kind: str, end: str | None, stock_at_start: int) -> bool:
    """Whether a turn counts toward a blocked hand: it added no card, did not end the
    hand, and began on an empty stock."""
    return end is None and kind != "play" and stock_at_start == 0


def blocked_now(rules: Rules, no_add: int, nobody_can_play: bool | None) -> bool:
    """Whether the hand is blocked after ``no_add`` turns in a row that count toward a
    block: a full round of them under ``blocked_when = "round"`` (000); under
    ``"nobody-can-play"`` a full round when no seat can play (``nobody_can_play``; None:
    not known, as in a log, where a full round *may* end blocked), or ``BLOCK_ROUNDS``
    rounds whatever the seats can do."""
    players = rules.players
    if no_add >= players * BLOCK_ROUNDS:
        return True
    if rules.blocked_when == "round":
        return no_add >= players
    return no_add >= players and bool(nobody_can_play)


def may_be_blocked(rules: Rules, no_add: int) -> bool:
    """Whether a hand may have ended blocked after ``no_add`` such turns (a full round)."""
    return no_add >= rules.players


def must_know_who_can_play(rules: Rules, no_add: int) -> bool:
    """Whether ``blocked_now`` needs to know if some seat can play: a full round under
    ``blocked_when = "nobody-can-play"`` (the exact solver is asked then only)."""
    return rules.blocked_when != "round" and may_be_blocked(rules, no_add)


@dataclass(frozen=True)
class Outcome:
    """A hand's result: ``winner`` (-1: none or a tie), each seat's win ``shares``, and
    what each seat scores for the hand (``scored``)."""

    winner: int
    shares: tuple[float, ...]
    scored: tuple[int, ...]


def lowest_shares(values: Sequence[int], shared: bool) -> list[float]:
    """1/k for each of the k seats with the lowest value; 0 for all on a tie unless
    ``shared``."""
    best = min(values)
    k = list(values).count(best)
    if k > 1 and not shared:
        return [0.0] * len(values)
    return [1.0 / k if v == best else 0.0 for v in values]


def hand_outcome(rules: Rules, end: str, last_seat: int, points: Sequence[int]) -> Outcome:
    """Who wins a hand that ended with ``end`` on ``last_seat``'s turn, the seats holding
    ``points`` hand points.

    An emptied hand: its player wins alone. A blocked or stock-out hand under
    ``blocked_winner = "lowest"``: the fewest points win (k tied seats 1/k each under
    ``ties = "shared"``, nobody under ``ties = "draw"``); under ``"none"`` nobody wins.
    Scoring: the winners pay nothing and the others their points (``penalties``; 003:
    "chaque autre joueur compte les cartes encore en main"), or the winners score the
    others' points (``winner-takes``, 003's single deal; k tied winners split the sum,
    rounded down)."""
    P = len(points)
    pts = [int(p) for p in points]
    if end == "emptied":
        winner = last_seat
        shares = [1.0 if s == last_seat else 0.0 for s in range(P)]
    elif rules.blocked_winner == "lowest":
        best = min(pts)
        winner = pts.index(best) if pts.count(best) == 1 else -1
        shares = lowest_shares(pts, rules.ties == "shared")
    else:
        winner = -1
        shares = [0.0] * P
    if rules.scoring == "winner-takes":
        lost = sum(p for p, x in zip(pts, shares) if x == 0)
        k = sum(1 for x in shares if x > 0)
        scored = [lost // k if x > 0 else 0 for x in shares]
    else:
        scored = [p if x == 0 else 0 for p, x in zip(pts, shares)]
    return Outcome(winner, tuple(shares), tuple(scored))
