"""``replay``: re-check the JSON-lines game logs (written by the engine, see
``fastmach.game.log_writer``) without the solver.

The format (header, turn and end records) is described in ``fastmach.game.log_writer``.

``replay`` checks every turn without the engine or the solver, by the rules the reference
``State`` plays by (a play by ``fastmach.game.actions``, which checks melds with
``fastmach.core.validate``; draws, passes, failed plays, the hand's end and its winner by
``fastmach.game.flow``): that each header's deal (hands, stock, dealer, first player) is
the one its rules, seed and replicate deal (``check_deal``, by the engine's seeding), the
seat order, that placed cards come from the hand, that the table after a play is exactly the table before plus
the placed cards (minus taken jokers) in valid melds, the opening rule, that drawn cards
are the next stock cards, passes only on an empty stock, the end of the hand (emptied
hand, blocked round, stock-out), the points and the winner. It cannot judge whether a
player who drew could have played (that needs the solver); ``may_draw_when_able`` is not
re-checked. Likewise a blocked end: after a full round of turns, begun with an empty
stock, that added no card the hand may end blocked (when no seat could play, which only
the solver knows) or go on, and it must end after ``BLOCK_ROUNDS`` such rounds.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence


from fastmach.game.actions import Draw, Fail, Pass, Play, check_action
from fastmach.core import validate
from fastmach.core.cards import JOKER, card_points, card_str, parse_card
from fastmach.errors import FastmachError
from fastmach.game import Game, flow
from fastmach.game.deal import Deal, Deals
from fastmach.outputs import read_lines
from fastmach.rules import Rules

__all__ = ["log_records", "parse_log_line", "game_lines", "replay", "replay_states",
           "to_action", "check_deal", "ReplayedHand", "BadLog", "HandChecker", "LogChecker"]


def _txt(cards: Iterable[int]) -> list[str]:
    return [card_str(c) for c in cards]


#: canonical card names -> ids (the engine writes these; anything else goes to parse_card)
_IDS = {card_str(c): c for c in range(JOKER + 1)}
_id_of = _IDS.__getitem__


def _ids(v: list) -> list[int]:
    """Card ids of a JSON list of card tokens; parse_card reads (or names) the others."""
    try:
        return list(map(_id_of, v))
    except (KeyError, TypeError):
        return [parse_card(c) for c in v]


# ---------------------------------------------------------------------------------------
# replay

@dataclass
class ReplayedHand:
    """One re-checked hand of a log, with its readable text."""

    rules: str
    seed: int | None       # (None: the header gives none)
    replicate: int | None
    hand: int
    end: str
    winner: int
    turns: int
    points: list[int]
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class BadLog(Exception):
    """What is wrong with a log record (the reader turns it into a FastmachError naming the
    line)."""


def _cards(rec: dict, key: str) -> list[int]:
    v = rec.get(key)
    if not isinstance(v, list):
        raise BadLog(f"field {key!r} must be a list of cards")
    try:
        return _ids(v)
    except FastmachError as e:
        raise BadLog(f"field {key!r}: {e}") from None


def _melds(rec: dict, seen: "_Seen | None" = None) -> list[list[int]]:
    v = rec.get("table")
    if not isinstance(v, list) or not all(isinstance(m, list) for m in v):
        raise BadLog("field 'table' must be a list of melds (lists of cards)")
    try:
        if seen is None:
            return [_ids(m) for m in v]
        return [seen.meld_ids(m) for m in v]
    except FastmachError as e:
        raise BadLog(f"field 'table': {e}") from None


class _Seen:
    """What a replay has read and judged already, shared by its hands (the same few
    hundred melds fill the tables of a whole log): each meld's card ids by its logged
    text, the validator's verdicts under each rules setting (``validate.MeldMemo``), each
    meld's printed text. Emptied when it grows past ``LIMIT`` melds."""

    LIMIT = 100_000

    def __init__(self) -> None:
        self._ids: dict[tuple, tuple[int, ...]] = {}
        self._memos: dict[tuple, validate.MeldMemo] = {}
        self._text: dict[tuple, str] = {}
        self._rules: dict[str, Rules] = {}
        self._deals: Deals | None = None
        self._deals_key: tuple | None = None

    def rules(self, text) -> Rules:
        """``Rules.parse`` of a header's rules string (once per string)."""
        if not isinstance(text, str):
            return Rules.parse(text)
        r = self._rules.get(text)
        if r is None:
            r = self._rules[text] = Rules.parse(text)
        return r

    def deals(self, r: Rules, seed: int, replicate: int) -> Deals:
        """The deals of a game (the last game's, kept for its later hands)."""
        key = (r, seed, replicate)
        if self._deals is None or self._deals_key != key:
            self._deals, self._deals_key = Deals(r, seed, replicate), key
        return self._deals

    def meld_ids(self, meld: list) -> list[int]:
        key = tuple(meld)   # a key only ever stored from a list of card tokens (strings)
        if not all(type(c) is str for c in key):
            return _ids(meld)   # (not a key: parse_card names the token that is no card)
        ids = self._ids.get(key)
        if ids is None:
            ids = tuple(_ids(meld))
            if len(self._ids) >= self.LIMIT:
                self._ids.clear()
                self._text.clear()
            self._ids[key] = ids
        return list(ids)

    def memo(self, r: Rules) -> validate.MeldMemo:
        key = (r.ace_high, r.jokers_per_meld, r.ace_both_ends)
        memo = self._memos.get(key)
        if memo is None or len(memo._seen) >= self.LIMIT:
            memo = self._memos[key] = validate.MeldMemo(
                ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld,
                ace_both_ends=r.ace_both_ends)
        return memo

    def table_text(self, melds: list[list[int]]) -> str:
        """``_show_table`` of the table, each meld's text made once."""
        out = []
        for m in melds:
            key = tuple(m)
            text = self._text.get(key)
            if text is None:
                text = self._text[key] = "[" + " ".join(_txt(m)) + "]"
            out.append(text)
        return " ".join(out) or "(empty)"


def _int(rec: dict, key: str) -> int:
    v = rec.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadLog(f"field {key!r} must be an integer, got {v!r}")
    return v


def _show_table(melds) -> str:
    return " ".join("[" + " ".join(_txt(m)) + "]" for m in melds) or "(empty)"


def _close(got, want: list[float]) -> bool:
    """``got`` is a list of numbers, each within numpy's ``allclose`` of ``want``'s."""
    return (isinstance(got, list) and len(got) == len(want)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                    and abs(x - y) <= 1e-8 + 1e-5 * abs(y) for x, y in zip(got, want)))


def _differ(what: str, got: list[int], want: Sequence[int]) -> str:
    """Where a logged card list (hand or stock) leaves the dealt one."""
    if len(got) != len(want):
        return f"{what} holds {len(got)} cards, the seed deals it {len(want)}"
    i = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
    return f"{what} has {card_str(got[i])} where the seed deals {card_str(want[i])}"


def check_deal(header: dict, rules: Rules, deals: Callable[[Rules, int, int], Deals] = Deals
               ) -> tuple[list[list[int]], list[int], Deal]:
    """The one check of a header's deal (replay, view and ``replay_states``): its seed,
    replicate and hand are integers >= 0 and its hands (each seat's cards, in any order),
    stock (in order), dealer and first player are what ``(rules, seed, replicate)`` deals
    for that hand (``fastmach.game.deal.Deals``, the engine's seeding). Returns the logged
    hands, the stock and the deal; raises BadLog naming the first difference. ``deals``:
    ``(rules, seed, replicate) -> Deals`` (a replay keeps a game's for its later hands)."""
    nums = {}
    for key in ("seed", "replicate", "hand"):
        v = header.get(key, 0 if key == "hand" else None)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise BadLog(f"header: {key!r} must be an integer >= 0, got {json.dumps(v)}"
                       + (" (the deal is checked against the seed's)" if key not in header
                          else ""))
        nums[key] = v
    P = rules.players
    hands = header.get("hands")
    if not isinstance(hands, list) or len(hands) != P:
        raise BadLog(f"header: 'hands' must list {P} hands (players={P})")
    dealt = [_cards({f"hands[{i}]": h}, f"hands[{i}]") for i, h in enumerate(hands)]
    stock = _cards(header, "stock")
    seed, replicate, hand = nums["seed"], nums["replicate"], nums["hand"]
    if seed >= 2**63:
        raise BadLog(f"header: 'seed' must be below 2**63, got {seed}")
    deal = deals(rules, seed, replicate).deal(hand)
    wrong = [_differ(f"seat {s}'s hand", sorted(h), deal.hands[s])
             for s, h in enumerate(dealt) if sorted(h) != list(deal.hands[s])]
    if stock != list(deal.stock):
        wrong.append(_differ("the stock", stock, deal.stock))
    if "dealer" in header and not (type(header["dealer"]) is int
                                   and header["dealer"] == deal.dealer):
        wrong.append(f"dealer {json.dumps(header['dealer'])}, the seed's is seat {deal.dealer}")
    first = header.get("first_player")
    if not (type(first) is int and first == deal.first_player):
        wrong.append(f"first_player {json.dumps(header.get('first_player'))}, the seed's is "
                     f"seat {deal.first_player}")
    if wrong:
        raise BadLog(f"header: not the deal of seed {seed} replicate {replicate} hand {hand} "
                   f"under {rules}: " + "; ".join(wrong))
    return dealt, stock, deal


class HandChecker:
    """Re-checks one hand from its header, turn by turn."""

    def __init__(self, header: dict, seen: _Seen | None = None, text: bool = True):
        self.seen = seen = seen if seen is not None else _Seen()
        try:
            self.rules = seen.rules(header.get("rules"))
        except FastmachError as e:
            raise BadLog(f"header: {e}") from None
        r = self.rules
        P = r.players
        self.P = P
        dealt, self.stock, deal = check_deal(header, r, seen.deals)
        self.hands = [Counter(h) for h in dealt]
        names = header.get("strategies")
        if "strategies" in header and not (isinstance(names, list) and len(names) == P
                                           and all(isinstance(x, str) for x in names)):
            raise BadLog(f"header: 'strategies' must list {P} strategy names (players={P})")
        self.first = self.cur = deal.first_player
        self.table: list[list[int]] = []
        self.opened = [False] * P
        self.noadd = 0
        self.turns = 0
        self.ended: str | None = None  # the end the next line must announce
        self.winner: int = -1   # the hand's, once its end record is read
        self.shares: list[float] = []
        self.pts = card_points(r.hand_points)
        # the validator's verdicts on melds (shared by the hands of a replay); the last
        # turn's table as logged
        self.memo = seen.memo(r)
        self._raw_table: list | None = []
        self.text = text   # the readable lines (``lines``) are written
        self.lines: list[str] = []
        if text:
            self.lines.append(
                f"== {r} seed {header.get('seed')} replicate {header.get('replicate')} "
                f"hand {header.get('hand', 0)}: dealer {header.get('dealer', '?')}, "
                f"seat {self.first} starts, stock {len(self.stock)}")
            for s in range(P):
                self.lines.append(f"   seat {s}: " + " ".join(_txt(sorted(dealt[s]))))

    def turn(self, rec: dict) -> None:
        r = self.rules
        if self.ended is not None:
            raise BadLog(f"turn after the hand ended ({self.ended}); expected the end record")
        seat = _int(rec, "seat")
        if seat != self.cur:
            raise BadLog(f"seat {seat} plays but it is seat {self.cur}'s turn")
        action = rec.get("action")
        placed, drawn = _cards(rec, "placed"), _cards(rec, "drawn")
        taken = _cards(rec, "taken") if "taken" in rec else []
        raw = rec.get("table")
        same = raw == self._raw_table  # as logged last turn (read and checked then)
        table = self.table if same else _melds(rec, self.seen)
        hand = self.hands[seat]
        empty_at_start = not self.stock
        self.turns += 1
        if "turn" in rec and (isinstance(rec["turn"], bool) or rec["turn"] != self.turns):
            raise BadLog(f"turn {json.dumps(rec['turn'])} but it is turn {self.turns} of the hand")
        desc = ""
        if action == "play":
            if drawn:
                raise BadLog("a play draws no card")
            # the play rules of fastmach.game.actions (validate only; the log holds no joker
            # readings, so any table joker may be the one taken back)
            try:
                check_action(r, Play(table, placed, taken), seat=seat, hand=hand,
                             melds=self.table, stands=None, opened=self.opened[seat],
                             stock_left=len(self.stock), play_exists=lambda: False,
                             memo=self.memo)
            except FastmachError as e:
                raise BadLog(str(e)) from None
            for c in placed:
                hand[c] -= 1
            hand[JOKER] += len(taken)
            self.table = table
            self._raw_table = raw
            self.opened[seat] = True
            self.noadd = 0
            if self.text:
                desc = f"plays {' '.join(_txt(sorted(placed)))}"
                if taken:
                    desc += f", takes back {len(taken)} joker(s)"
                desc += f" -> {self.seen.table_text(table)}"
            self.ended = flow.turn_end(r, "play", stock_at_start=len(self.stock),
                                       stock_after=len(self.stock),
                                       hand_left=sum(hand.values()))
        elif action in flow.NON_PLAYS:
            if placed or taken:
                raise BadLog(f"a {action} places no card")
            if not same and table != self.table:
                raise BadLog(f"a {action} must leave the table unchanged")
            if action == "pass" and not flow.passes(r, len(self.stock)):
                raise BadLog(flow.PASS_ONLY_ON_EMPTY_STOCK)
            if action == "draw" and flow.passes(r, len(self.stock)):
                raise BadLog(flow.DRAW_ON_EMPTY_STOCK)
            want = self.stock[:flow.cards_to_draw(r, action, len(self.stock))]
            if drawn != want:
                raise BadLog(f"drawn {' '.join(_txt(drawn)) or 'nothing'} but the stock gives "
                           f"{' '.join(_txt(want)) or 'nothing'}")
            self.stock = self.stock[len(drawn):]
            for c in drawn:
                hand[c] += 1
            self.ended = flow.turn_end(r, action, stock_at_start=0 if empty_at_start else 1,
                                       stock_after=len(self.stock), hand_left=1)
            desc = {"draw": "draws", "pass": "passes", "fail": "fails a manipulation, draws"}[action]
            if drawn:
                desc += " " + " ".join(_txt(drawn))
                if self.ended == "stock-out":  # the turn that empties the stock ends the hand
                    desc += ", the last card: the hand ends"
            elif action == "draw":
                desc += " from the empty stock: the hand ends"
            if flow.counts_toward_block(action, self.ended, 0 if empty_at_start else 1):
                self.noadd += 1
                if flow.blocked_now(r, self.noadd, None):
                    self.ended = "blocked"   # (from P turns on, it may end blocked: see end)
        else:
            raise BadLog(f"unknown action {action!r} (play, draw, pass or fail)")
        if self.text:
            self.lines.append(f"   {self.turns:4d} seat {seat} {desc}")
        self.cur = (seat + 1) % self.P

    def end(self, rec: dict) -> tuple[str, int, list[int]]:
        r = self.rules
        end = rec.get("end")
        if self.ended is None and end == "blocked" and flow.may_be_blocked(r, self.noadd):
            self.ended = "blocked"   # a full round added no card: nobody could play
        if self.ended is None:
            raise BadLog(f"end record '{end}' but the hand is not over")
        if end != self.ended:
            raise BadLog(f"end is {end!r} but the turns say {self.ended!r}")
        points = [sum(int(self.pts[c]) * k for c, k in h.items()) for h in self.hands]
        if rec.get("points") != points:
            raise BadLog(f"points {rec.get('points')} but the hands left give {points}")
        left = [sum(h.values()) for h in self.hands]
        if "cards_left" in rec and rec["cards_left"] != left:
            raise BadLog(f"cards_left {rec['cards_left']} but the hands hold {left}")
        outcome = flow.hand_outcome(r, end, (self.cur - 1) % self.P, points)
        winner = outcome.winner
        if rec.get("winner") != winner:
            raise BadLog(f"winner {rec.get('winner')} but the rules give {winner}")
        shares = list(outcome.shares)
        if "shares" in rec and not _close(rec["shares"], shares):
            raise BadLog(f"shares {rec['shares']} but the rules give {shares}")
        self.scored = list(outcome.scored)
        self.winner, self.shares = winner, shares
        if self.text:
            self.lines.append(f"   end: {end}, winner {winner if winner >= 0 else 'none'}, points {points}")
        return end, winner, points


def parse_log_line(name: str, no: int, line: str) -> dict:
    """The record of line ``no`` of log ``name``: a JSON object, or FastmachError."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as e:
        raise FastmachError(f"{name} line {no}: not JSON ({e.msg})") from None
    except RecursionError:  # (the parser's stack: not a record either)
        raise FastmachError(f"{name} line {no}: not JSON (arrays or objects nested too "
                            f"deeply)") from None
    if not isinstance(rec, dict):
        raise FastmachError(f"{name} line {no}: expected a JSON object")
    return rec


def log_records(path: str | Path) -> Iterator[tuple[int, dict]]:
    """``(line number, record)`` of every non-blank line of a log (plain or gzip), read line
    by line (``fastmach.outputs.read_lines``: a line beyond ``MAX_LINE`` bytes is refused);
    a line that is not a JSON object is a FastmachError naming the file and the line."""
    path = Path(path)
    for no, _, line in read_lines(path, "log"):
        if line.strip():
            yield no, parse_log_line(path.name, no, line)


def game_lines(path: str | Path, seed: int, replicate: int) -> list[str] | None:
    """The lines of one game of a log (its hands' headers, turns and end records, as
    written), every line read as a record; None when the log does not hold the game or a
    line is not a record (a damaged log)."""
    path = Path(path)
    out: list[str] | None = None
    for no, _, line in read_lines(path, "log"):
        if not line.strip():
            continue
        try:
            rec = parse_log_line(path.name, no, line)
        except FastmachError:
            return None
        kind = rec.get("type")
        first = kind == "header" and rec.get("hand", 0) == 0
        if out is not None:
            if kind == "close" or first:
                return out
            out.append(line)
        elif first and rec.get("seed") == seed and rec.get("replicate") == replicate:
            out = [line]
    return None


#: the messages of a new game's header that the previous records make wrong
HEADER_IN_HAND = "header before the previous hand's end record"
MATCH_NOT_OVER = ("a new game starts but the previous match is not over "
                  "(its last end record has match_over false)")


def close_count_message(claimed, games: int) -> str:
    return (f"closing record counts {claimed!r} game(s), the log holds {games} since the "
            f"previous one")


def truncated_message(name: str) -> str:
    return f"{name}: the last game has no end record (truncated log?)"


def short_message(name: str, no: int, of: int, games: int) -> str:
    return (f"{name} line {no}: the closing record says the log holds {of} game(s), it "
            f"holds {games}: a log cut after a batch of games?")


def unclosed_message(name: str) -> str:
    return (f"{name}: no closing record after the last game: the log is incomplete (an "
            f"interrupted run?)")


def _next_hand(header: dict, last: dict) -> None:
    """A later hand's header follows the last hand's: the next hand, the same rules, seed
    and replicate (its game's). Raises BadLog."""
    if header.get("hand") != last.get("hand", 0) + 1:
        raise BadLog(f"hand {json.dumps(header.get('hand'))} follows hand {last.get('hand', 0)}")
    for key in ("rules", "seed", "replicate"):
        if header.get(key) != last.get(key):
            raise BadLog(f"header: {key} {json.dumps(header.get(key))} but its game's first "
                       f"hand has {json.dumps(last.get(key))}")


class LogChecker:
    """The records of a log in order: games, hands and closing records (``record``), then
    the end of the log (``finish``); each finished hand is appended to ``hands`` with the
    line of its end record (``ends``).

    ``open_count``: the first closing record's game count is not checked but kept in
    ``pending`` as (line, its count, games seen before it): a piece of a log that starts
    at a game (``fastmach.game.replay_workers``) cannot know the games before it."""

    def __init__(self, *, open_count: bool = False, text: bool = True):
        self.hands: list[ReplayedHand] = []
        self.ends: list[int] = []
        self.checker: HandChecker | None = None
        self.head: dict = {}
        self.scores: list[int] | None = None
        self.games = 0  # games since the last closing record
        self.match_over = True  # the last end record closed its match
        self.closed = False  # the last record is a closing record
        self.seen_close = not open_count
        self.pending: tuple | None = None
        self.seen = _Seen()
        self.text = text
        self.all_games = 0  # games in the log (this piece of it)
        self.last_of: tuple[int, int] | None = None  # the last closing record's (line, of)

    def record(self, no: int, rec: dict) -> ReplayedHand | None:
        """Check one record; the hand it ends, if it is an end record. Raises BadLog."""
        kind = rec.get("type")
        self.closed = False
        checker = self.checker
        if kind == "header":
            if checker is not None:
                raise BadLog(HEADER_IN_HAND)
            first = rec.get("hand", 0) == 0
            if first and not self.match_over:
                raise BadLog(MATCH_NOT_OVER)
            if not first and self.match_over:
                raise BadLog(f"hand {rec.get('hand')} of a match that is over")
            if not first:
                _next_hand(rec, self.head)
            self.games += first
            self.all_games += first
            self.checker = HandChecker(rec, self.seen, self.text)
            if rec.get("hand", 0) == 0:
                self.scores = [0] * self.checker.P
            self.head = rec
        elif kind == "turn":
            if checker is None:
                raise BadLog("turn before any header")
            checker.turn(rec)
        elif kind == "end":
            if checker is None:
                raise BadLog("end before any header")
            end, winner, points = checker.end(rec)
            scores = self.scores
            if scores is not None and len(scores) == len(points):
                self.scores = scores = [a + b for a, b in zip(scores, checker.scored)]
                if "scores" in rec and rec["scores"] != scores:
                    raise BadLog(f"scores {rec['scores']} but the hands give {scores}")
            self.match_end(rec, checker, scores)
            head = self.head
            done = ReplayedHand(str(checker.rules), head.get("seed"), head.get("replicate"),
                                head.get("hand", 0), end, winner, checker.turns, points,
                                checker.lines)
            self.hands.append(done)
            self.ends.append(no)
            self.checker = None
            self.match_over = rec.get("match_over") is True
            return done
        elif kind == "close":
            if checker is not None:
                raise BadLog("closing record inside a hand (no end record)")
            if not self.match_over:
                raise BadLog("closing record but the last match is not over (its last "
                           "end record has match_over false)")
            if not self.seen_close:
                self.pending = (no, rec.get("games"), self.games)
                self.seen_close = True
            elif rec.get("games") != self.games:
                raise BadLog(close_count_message(rec.get("games"), self.games))
            self.games, self.closed = 0, True
            of = rec.get("of")
            if of is not None:
                if isinstance(of, bool) or not isinstance(of, int) or of < 1:
                    raise BadLog(f"closing record's 'of' must be a positive integer, got "
                               f"{json.dumps(of)}")
                self.last_of = (no, of)
        else:
            raise BadLog(f"unknown record type {kind!r} (header, turn, end or close)")
        return None

    def match_end(self, rec: dict, checker: HandChecker, scores: list[int] | None) -> None:
        """The end record's match fields against the rules: whether the match is over
        after this hand (rotations:N: its N x players hands played; threshold:T: a total
        reached T, or passed it under threshold_reached = "exceed"; a single hand: always), and then its winner and shares (a single
        hand's own; a match's: the lowest total, ties shared or nobody's as ``ties``
        says). Raises BadLog."""
        r = checker.rules
        kind, hand = r.match_kind, self.head.get("hand", 0)
        if kind == "single":
            over = True
        elif kind == "rotations":
            over = isinstance(hand, int) and hand + 1 >= r.match_value * r.players
        else:
            over = scores is not None and max([0, *scores]) >= r.match_end_total
        said = rec.get("match_over")
        if said is not over:
            raise BadLog(f"match_over {json.dumps(said)} but under match={r.match} the match "
                       f"{'is over' if over else 'goes on'} after hand {hand}")
        if not over:
            return
        if kind == "single":
            winner, shares = checker.winner, list(checker.shares)
        else:
            totals = scores or [0] * r.players
            low = min(totals)
            k = totals.count(low)
            winner = totals.index(low) if k == 1 else -1
            shares = [(1.0 / k if k == 1 or r.ties == "shared" else 0.0) if t == low else 0.0
                      for t in totals]
        if rec.get("match_winner") != winner:
            raise BadLog(f"match_winner {json.dumps(rec.get('match_winner'))} but the rules "
                       f"give {winner}")
        ms = rec.get("match_shares")
        if not isinstance(ms, list) or not _close(ms, shares):
            raise BadLog(f"match_shares {json.dumps(ms)} but the rules give {shares}")

    def finish(self, name: str) -> None:
        """The end of the log: its last game ended and closed, or FastmachError."""
        if self.checker is not None:
            raise FastmachError(truncated_message(name))
        if not self.closed:
            raise FastmachError(unclosed_message(name))
        if self.last_of is not None and self.last_of[1] != self.all_games:
            raise FastmachError(short_message(name, *self.last_of, self.all_games))


def replay(path: str | Path, *, out=None, text: bool = True) -> list[ReplayedHand]:
    """Re-check every game of a JSONL log; returns the hands (``.text`` is readable).

    ``out``: a file to print the readable games to. ``text=False``: no readable text (the
    hands' ``lines`` are empty; a quiet replay). A bad log raises FastmachError naming the
    line. (One process; ``fastmach.game.replay_workers`` checks a log on several.)
    """
    path = Path(path)
    log = LogChecker(text=text or out is not None)
    for no, rec in log_records(path):
        try:
            done = log.record(no, rec)
        except BadLog as e:
            raise FastmachError(f"{path.name} line {no}: {e}") from None
        if done is not None and out is not None:
            print(done.text, file=out)
    log.finish(path.name)
    return log.hands


def to_action(rec: dict):
    """The ``fastmach.game`` action of a turn record."""
    kind = rec.get("action")
    if kind == "play":
        return Play(_melds(rec), _cards(rec, "placed"), _cards(rec, "taken") if "taken" in rec else ())
    if kind in ("draw", "pass", "fail"):
        return {"draw": Draw, "pass": Pass, "fail": Fail}[kind]()
    raise BadLog(f"unknown action {kind!r} (play, draw, pass or fail)")


def replay_states(path: str | Path) -> list:
    """Rebuild every game of a log from its seed and action list with the State API.

    Each game (header with ``hand`` 0, then its hands) is dealt again from (rules, seed,
    replicate); each header must hold its deal (``check_deal``), each logged action is applied
    (and checked) and must draw the logged cards. Returns the final ``State`` of each game.
    """
    path = Path(path)
    states: list = []
    state = None
    seen = _Seen()
    last: dict = {}   # the last hand's header
    for no, rec in log_records(path):
        try:
            kind = rec.get("type")
            if kind == "header":
                if rec.get("hand", 0) == 0:
                    game = Game(rec["rules"], rec.get("strategies"), strict=True)
                    state = game.new_initial_state(_int(rec, "seed"), _int(rec, "replicate"))
                    states.append(state)
                elif state is None or state.is_terminal():
                    raise BadLog("header of a hand the game does not have")
                else:
                    _next_hand(rec, last)
                check_deal(rec, state.rules, seen.deals)
                last = rec
            elif kind == "turn":
                if state is None:
                    raise BadLog("turn before any header")
                done = state.apply_action(to_action(rec))
                if list(done.drawn) != _cards(rec, "drawn"):
                    raise BadLog("the action draws other cards than the log lists")
            elif kind not in ("end", "close"):
                raise BadLog(f"unknown record type {kind!r}")
        except (BadLog, FastmachError, KeyError) as e:
            raise FastmachError(f"{path.name} line {no}: {e}") from None
    return states
