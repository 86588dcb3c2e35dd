"""The reference game: ``Game`` -> ``State`` -> actions -> records (OpenSpiel style).

The game flow here is written in Python on its own (deal, turn order, matches; what a turn
takes from the stock, when it ends the hand and who wins are ``fastmach.game.flow``, by
which the log replay checks logs too), following the same model as the compiled engine
(see ``fastmach.engine``); only
a strategy's *decision* comes from the engine (``State.strategy_action``), so a game
played step by step with the seats' strategies is the engine's game for the same seed,
and the tests compare the two. Legality checks (``State.check``) use the independent
validator ``fastmach.core.validate`` (``Game(strict=True)``: always; otherwise after the
compiled check of a whole play, ``fastmach.game._playcheck``, which says yes only where the
validator does), never the solver; only "does a play exist" (needed when
``may_draw_when_able`` is false) asks the solver.

Actions: ``Play(melds, placed, taken)`` (the whole table after the play, the hand cards
added, the jokers taken back into the hand under ``joker_swap = "hand"``), ``Draw()``,
``Pass()`` (empty stock, play-on; a player able to play may pass only under
``may_pass_when_able``), ``Fail()`` (a botched play, a manipulation or a new meld: the
table is restored and ``failed_penalty`` cards are drawn; legal only where a play is
legal). A full round without an added card on an empty stock blocks the hand only when no
seat can play (the exact solver), or after ``BLOCK_ROUNDS`` such rounds. The rules are in docs/rules.md. ``apply_action`` returns a frozen
``TurnRecord`` and appends it to ``state.history``. ``returns()`` gives each seat minus
its penalty score (higher is better).
"""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from fastmach.core import validate
from fastmach.core.providers import html_of, provider
from fastmach.core._ids import ids_of_counts
from fastmach.core.cards import JOKER, NCARD, card_points, card_str, check_copies, parse_cards
from fastmach.errors import FastmachError
from fastmach.game.deal import check_seed, deck_of, game_start
from fastmach.game.history import PublicTurn
from fastmach.game.observation import Observation
from fastmach.rules import Rules, is_integer, resolve_rules
from fastmach.game import flow
from fastmach.game._ability import Ability
from fastmach.game._playcheck import PlayCheck
from fastmach.game._rows import deal, lay, sizes
from fastmach.solver import solve
from fastmach.game.actions import (Action, Draw, Fail, Pass, Play, check_action, meld_points,
                              meld_stands, rearranges)

__all__ = ["Game", "State", "Play", "Draw", "Pass", "Fail", "TurnRecord", "HandResult",
           "meld_points", "meld_stands"]

Meld = tuple[int, ...]
_CARD_IDS = np.arange(NCARD)




@dataclass(frozen=True)
class TurnRecord:
    """What one turn did; ``table`` is the whole table after it."""

    hand: int
    turn: int
    seat: int
    action: str  # play | draw | pass | fail
    placed: tuple[int, ...]
    drawn: tuple[int, ...]
    taken: tuple[int, ...]
    table: tuple[Meld, ...]


@dataclass(frozen=True)
class HandResult:
    """The end of one hand."""

    hand: int
    dealer: int
    first_player: int
    end: str  # emptied | blocked | stock-out
    winner: int
    turns: int
    cards_left: tuple[int, ...]
    points: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]  # the dealt hands
    stock: tuple[int, ...]  # the stock after the deal, next card first
    shares: tuple[float, ...] = ()  # each seat's win share of the hand
    scores: tuple[int, ...] = ()  # each seat's match score after the hand
    stats: tuple[tuple[str, int], ...] = ()  # per hand: stock_exhausted_turn, cards_drawn, ...
    # per seat: draws, and passes, made while the seat could add a card (the exact solver)
    draws_when_able: tuple[int, ...] = ()
    passes_when_able: tuple[int, ...] = ()


def _snapshot(action):
    """A new action of ``action``'s kind from one reading of its fields (a Play through
    its constructor: tuples of ints), without its random state; anything else as it is
    (the check names it)."""
    try:
        if isinstance(action, Play):
            melds, placed, taken, stands = action.melds, action.placed, action.taken, action.stands
            return Play(melds, placed, taken, stands=stands)
        if isinstance(action, Fail):
            attempt = action.attempt
            return Fail(_snapshot(attempt) if attempt is not None else None)
        if isinstance(action, Draw):
            return Draw()
        if isinstance(action, Pass):
            return Pass()
    except FastmachError:
        raise
    except Exception as e:   # (a field that is no list of cards, or raises when read)
        raise FastmachError(f"the action {type(action).__name__} cannot be read: "
                            f"{type(e).__name__}: {e}") from None
    return action


def _record(cls, **fields):
    """``cls(**fields)`` for a frozen dataclass without its ``__init__`` (most of the cost
    of a turn's records): every field given, already of its type."""
    rec = _new(cls)
    rec.__dict__.update(fields)
    return rec


_new = object.__new__




class Game:
    """Rules and one strategy per seat; ``new_initial_state`` deals a replicate."""

    def __init__(self, rules: Rules | str, seats: Sequence[Any] | None = None, *,
                 strict: bool = False):
        """``seats``: a strategy per seat (default experts), whose decisions ``step`` plays.
        ``strict``: every play's table is checked by the independent validator
        (``fastmach.core.validate``; replay does this); otherwise by the compiled check
        first, the validator naming what is wrong (the same answers, faster)."""
        self.strict = bool(strict)
        self.rules = resolve_rules(rules)
        if seats is None:   # (a comma list, as --strategies, is split by the engine's parse)
            seats = ["expert"] * self.rules.players
        # ``(rules, seats) -> (Rules, [Strategy], compiled engine)``: the engine's make_engine,
        # named by the package (the State is below the engine and the strategies: it asks the
        # engine for the seats' decisions, it does not import them)
        engine_factory = provider("engine_factory")
        # the engines solve with the Python solve's solver: a position a seat's strategy
        # solved is then in its memo when the State asks whether the seat could play
        self.rules, self.seats, self._engine = engine_factory(self.rules, seats,
                                                              shared_solver=True)
        self._expert = None
        self.play_check = PlayCheck(self.rules)  # the compiled check of a play (not strict)
        self.ability = Ability(self.rules)  # can a seat play (the engine's test, compiled)
        self.deck = deck_of(self.rules)
        self.hand_points = card_points(self.rules.hand_points)

    @property
    def players(self) -> int:
        return self.rules.players

    def expert_engine(self):
        if self._expert is None:
            self._expert = provider("engine_factory")(self.rules, ["expert"] * self.players,
                                                      shared_solver=True)[2]
        return self._expert

    def new_initial_state(self, root_seed: int = 0, replicate: int = 0) -> "State":
        return State(self, root_seed, replicate)

    def __repr__(self) -> str:
        return f"Game({str(self.rules)!r}, {[str(s) for s in self.seats]!r})"


#: State attributes a clone shares (immutable, or replaced and never changed: the stock
#: list, the deal generator's state) and those that are lists of immutable values
_SHARED = frozenset({"game", "rules", "_dealt", "_stock", "_deal_state"})
_LISTS = frozenset({"history", "hand_results", "_public", "scores", "opened", "failed_last"})
_IMMUTABLE = frozenset({int, bool, float, str, tuple})


class State:
    """A game (a hand, or a whole match) in progress."""

    def __init__(self, game: Game, root_seed: int, replicate: int):
        self.game = game
        self.rules = game.rules
        self.root_seed = check_seed(root_seed)
        if not is_integer(replicate) or replicate < 0:
            raise FastmachError(f"replicate must be a non-negative integer, got {replicate!r}")
        self.replicate = int(replicate)
        P = self.rules.players
        # first_player_by = cut: the seat that cuts highest starts the first hand (a uniform
        # seat), the next seat clockwise the next hand (drawn as the engine does)
        rng, perm, self.first_dealer, self.rng_state, self.first_cut = game_start(
            self.rules, self.root_seed, self.replicate)
        # the deal's generator, kept as its state (a snapshot, replaced, never changed: a
        # clone shares it) and made again for the next hand's deal
        self._deal_state = rng.bit_generator.state
        self.scores = [0] * P
        self.history: list[TurnRecord] = []
        self.hand_results: list[HandResult] = []
        self.hand_index = 0
        self.total_turns = 0
        self.stock_exhausted_turn = -1  # counted from the start of the match
        self.stats: Counter[str] = Counter()  # plays, failed, cards_drawn, max_table (match)
        self._terminal = False
        self._deal(perm)

    # -------------------------------------------------------------- dealing
    def _deal(self, perm: np.ndarray) -> None:
        P, n = self.rules.players, self.rules.hand_size
        self.dealer = (self.first_dealer + self.hand_index) % P
        self.deal_key = self.rng_state  # the game's PRNG when the hand is dealt (mixed players)
        cards = perm.tolist()
        # a row of card counts per seat (an int64 array), and the hands as dealt
        self._hands, dealt = deal(cards, P, n, (self.dealer + 1) % P)
        self._stock = cards[P * n:]
        self._stock_pos = 0
        self._melds: list[list[int]] = []
        self._stands: list[list[int]] = []
        self.opened = [False] * P
        self.failed_last = [False] * P  # the seat's previous turn (this hand) was a Fail
        self._public: list[PublicTurn] = []  # this hand's turns as every seat saw them
        self.first_player = ((self.first_cut + self.hand_index) % P if self.first_cut is not None
                             else (self.dealer + 1) % P)
        self.current_player = self.first_player
        self.turn = 0  # turns played in this hand
        self._noadd = 0
        self._playable: bool | None = None  # after a round without additions: can a seat play
        self._able = {"draws": [0] * P, "passes": [0] * P}
        self.hand_stats: Counter[str] = Counter()  # plays, failed, cards_drawn, max_table (hand)
        self.hand_exhausted_turn = -1 if self._stock else 0
        self._dealt = (dealt, tuple(self._stock))
        if not self._stock and self.stock_exhausted_turn < 0:
            self.stock_exhausted_turn = self.total_turns

    def set_position(self, hands, table=(), stock=(), *, current_player: int | None = None,
                     opened: Sequence[bool] | None = None, stands=None) -> "State":
        """Replace the current hand's position (tests, debugging, puzzles): hands and stock
        as card lists (text or ids), table as melds. The table must be valid melds; the
        public history of the hand so far is kept."""
        r = self.rules
        P = r.players
        if len(hands) != P:
            raise FastmachError(f"set_position: {len(hands)} hands for {P} players")
        hs = [np.bincount(parse_cards(h), minlength=NCARD).astype(np.int64) for h in hands]
        melds = [parse_cards(list(m) if not isinstance(m, str) else m) for m in table]
        st = parse_cards(list(stock) if not isinstance(stock, str) else stock)
        allc = np.bincount([c for m in melds for c in m] + st, minlength=NCARD) + sum(hs)
        check_copies(allc, r.decks, r.jokers)
        try:
            validate.check_partition(melds, [c for m in melds for c in m], decks=r.decks,
                                     ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld,
                                     ace_both_ends=r.ace_both_ends)
        except validate.ValidationError as e:
            raise FastmachError(f"set_position: {e}") from None
        self._hands = np.array(hs, dtype=np.int64)
        self._melds = melds
        self._stands = ([list(s) for s in stands] if stands is not None
                        else [meld_stands(m, r.ace_high) for m in melds])
        self._stock, self._stock_pos = st, 0
        if current_player is not None and (
                isinstance(current_player, bool)
                or not isinstance(current_player, (int, np.integer))
                or not 0 <= current_player < P):
            raise FastmachError(f"set_position: current_player {current_player!r} is not a "
                                f"seat 0..{P - 1}")
        if opened is not None and len(opened) != P:
            raise FastmachError(f"set_position: {len(opened)} opened flag(s) for {P} players")
        if current_player is not None:
            self.current_player = int(current_player)
        self.opened = [bool(x) for x in opened] if opened is not None else [True] * P
        self.failed_last = [False] * P
        self._noadd = 0
        self._playable = None
        return self

    # -------------------------------------------------------------- views
    def _left(self) -> int:
        """Cards left in the stock."""
        return len(self._stock) - self._stock_pos

    def _sizes(self) -> tuple[int, ...]:
        """Each seat's number of cards."""
        return sizes(self._hands)

    def _seat(self, seat: Any, what: str) -> int:
        """``seat`` as a seat number 0..players-1, else a FastmachError naming ``what``
        (-1 read the last seat's hand)."""
        P = self.rules.players
        if not is_integer(seat) or not 0 <= seat < P:
            raise FastmachError(f"{what}: seat must be 0..{P - 1}, got {seat!r}")
        return int(seat)

    def hand_of(self, seat: int) -> list[int]:
        """``seat``'s hand, sorted card ids."""
        return ids_of_counts(self._hands[self._seat(seat, "hand_of")])

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's hand, sorted card ids."""
        return [self.hand_of(s) for s in range(self.rules.players)]

    @property
    def table(self) -> list[list[int]]:
        """The table's melds (card ids)."""
        return [list(m) for m in self._melds]

    @property
    def table_stands(self) -> list[list[int]]:
        """What each table card stands for (itself, or the card a joker replaces)."""
        return [list(m) for m in self._stands]

    @property
    def stock(self) -> list[int]:
        """The stock, next card first."""
        return self._stock[self._stock_pos:]

    @property
    def dealt(self) -> tuple:
        """(hands as dealt, stock after the deal) of the current hand."""
        return self._dealt

    @property
    def public_history(self) -> tuple[PublicTurn, ...]:
        """This hand's turns as every seat saw them (fastmach.game.history; no drawn card)."""
        return tuple(self._public)

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (the ``Observation`` a Python bot is given): its
        hand, the table, the public history, sizes, scores; no other hand, no stock card.
        The seat's own immutable copy (tuples, its own Rules): nothing done to it reaches
        the game."""
        seat = self._seat(seat, "observation")
        return Observation(
            seat=seat, hand=tuple(self.hand_of(seat)),
            table=tuple(tuple(m) for m in self._melds),
            stands=tuple(tuple(m) for m in self._stands),
            stock=self._left(), hand_sizes=self._sizes(),
            scores=tuple(self.scores), opened=self.opened[seat], rules=copy.copy(self.rules),
            hand_index=self.hand_index, turn=self.turn + 1, opened_seats=tuple(self.opened),
            history=tuple(self._public))

    def table_counts(self) -> np.ndarray:
        t = np.zeros(NCARD, dtype=np.int64)
        for m in self._melds:
            for c in m:
                t[c] += 1
        return t

    def is_terminal(self) -> bool:
        return self._terminal

    def returns(self) -> list[int]:
        """Minus each seat's penalty score (higher is better; final once terminal)."""
        return [-s for s in self.scores]

    def winner(self) -> int:
        """The match winner (single hand: the hand's winner); -1 none / tie / not over."""
        if not self._terminal:
            return -1
        if self.rules.match_kind == "single":
            return self.hand_results[-1].winner
        best = min(self.scores)
        return self.scores.index(best) if self.scores.count(best) == 1 else -1

    def win_shares(self) -> list[float]:
        """Each seat's share of the win: 1 for a sole winner, 1/k for each of k tied
        winners under ``ties = "shared"``, 0 for all when nobody wins (or not over)."""
        P = self.rules.players
        if not self._terminal:
            return [0.0] * P
        if self.rules.match_kind == "single":
            return list(self.hand_results[-1].shares)
        return flow.lowest_shares(self.scores, self.rules.ties == "shared")

    def clone(self) -> "State":
        """An independent copy (what it changes never reaches this state)."""
        new = object.__new__(State)
        d = new.__dict__
        for k, v in self.__dict__.items():
            if k in _SHARED or v is None or type(v) in _IMMUTABLE:
                d[k] = v
            elif k in _LISTS:
                d[k] = list(v)
            elif k == "_hands":
                d[k] = v.copy()
            elif k in ("_melds", "_stands"):   # (a tuple meld is immutable: shared)
                d[k] = [m if type(m) is tuple else list(m) for m in v]
            elif type(v) is Counter:
                d[k] = Counter(v)
            elif k == "_able":
                d[k] = {a: list(x) for a, x in v.items()}
            else:
                d[k] = copy.deepcopy(v)
        return new

    def __deepcopy__(self, memo):
        return self.clone()

    __copy__ = clone   # (a shallow copy would share the hands, table and history)

    def _headline(self) -> str:
        """The position's line: rules, hand, turn, who plays (or the end), stock, scores."""
        who = "over" if self._terminal else f"seat {self.current_player} to play"
        return (f"{self.rules}: hand {self.hand_index}, turn {self.turn}, {who}, "
                f"stock {self._left()}, scores {self.scores}")

    def __str__(self) -> str:
        """The position as cards: each seat's hand, the table's melds (a joker as JK(the
        card it stands for))."""
        lines = [self._headline()]
        for s in range(self.rules.players):
            lines.append(f"  seat {s}: " + " ".join(card_str(c) for c in self.hand_of(s)))
        for m, st in zip(self._melds, self._stands):
            lines.append("  table: " + " ".join(
                f"JK({card_str(x)})" if c == JOKER else card_str(c) for c, x in zip(m, st)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<State {self}>"

    def _repr_pretty_(self, p, cycle: bool) -> None:
        """IPython's text: the cards (``__str__``)."""
        p.text(str(self))

    def _repr_html_(self) -> str | None:
        """Jupyter: the table's melds and every hand as cards (by the viewer's
        ``state_html``, named in ``fastmach.core.providers`` by the package: the game does
        not import the viewer, a layer above it); None (the text) when unset."""
        return html_of("state_html", self)

    # -------------------------------------------------------------- legality
    def _play_exists(self) -> bool:
        """Whether the current player can add a card (opening rule included).

        ``may_draw_when_able = false`` binds a player to the plays their skill level can
        see: for a seat whose strategy declares ``limited_search`` (beginner, intermediate)
        the question goes to that skill's search (without patience or error); for every
        other seat to the exact solver."""
        seat = self.current_player
        if getattr(self.game.seats[seat], "limited_search", False):
            kind = self.game._engine.decide_position(
                seat, self._hands, self._melds, self._stands, self.opened,
                self._left(), self.rng_state, self.failed_last, raw=True,
                deal_key=self.deal_key)[0]
            return kind == "play"
        return self.can_play(seat)

    def can_play(self, seat: int) -> bool:
        """Whether ``seat`` can add a card, as a fact of the position (the exact solver;
        the opening rule and joker swaps included: fastmach.game.ability's question, asked
        in C by the engine's own test, fastmach.game._ability)."""
        seat = self._seat(seat, "can_play")
        return self.game.ability.can_play(self._hands[seat], self._melds, self._stands,
                                          self.opened[seat])

    def legal_actions(self) -> list[Action]:
        """Draw/Pass/Fail as allowed, plus one Play: the maximum placement (the set of
        plays is exponential; any other play is checked by ``is_legal``)."""
        if self._terminal:
            return []
        r = self.rules
        out: list[Action] = []
        exp = self._decide(self.game.expert_engine())
        if isinstance(exp, Play):
            out.append(exp)
        passing = flow.passes(r, self._left())
        if getattr(r, flow.declining_rule(r, self._left())) or not out:
            out.append(Pass() if passing else Draw())
        if out and isinstance(out[0], Play):
            out.append(Fail())
        return out

    def is_legal(self, action: Action) -> bool:
        try:
            self.check(action)
        except FastmachError:
            return False
        return True

    def check(self, action: Action) -> None:
        """Raise FastmachError saying why ``action`` is illegal now."""
        self._check(action)

    def _check(self, action: Action) -> bool:
        """``check``; True when the compiled check (fastmach.game._playcheck: not under
        strict) accepted a Play, whose fields are then tuples of tuples of exact ints."""
        if self._terminal:
            raise FastmachError("the game is over")
        seat = self.current_player
        t = type(action)
        if t is Play:
            if not self.game.strict and self.game.play_check.accepts(
                    self._hands[seat], self._melds, self._stands, self.opened[seat], action):
                return True   # the compiled check says yes only where check_action does
        elif t is Draw:   # a draw from a stock that holds a card, where drawing is free
            if self._stock_pos < len(self._stock) and self.rules.may_draw_when_able:
                return False
        check_action(self.rules, action, seat=seat, hand=self._hands[seat], melds=self._melds,
                     stands=self._stands, opened=self.opened[seat], stock_left=self._left(),
                     strict=self.game.strict,
                     play_exists=(lambda: self.can_play(seat)) if isinstance(action, Fail)
                     else self._play_exists)
        return False

    def _rearranges(self, melds) -> bool:
        """Whether a table of ``melds`` changed at least one current table meld."""
        return rearranges(self._melds, melds)

    def can_rearrange(self) -> bool:
        """Whether the current player has a legal play that rearranges table melds. Looked
        for in this order: the maximum
        placement's melds, one hand card joining the table, two hand cards joining it
        (one or two cards cannot form a meld alone, so such a play changes a table meld);
        a play that needs three or more hand cards for its first change of the table and
        that the maximum placement does not show is not found."""
        seat = self.current_player
        hand = self.hand_of(seat)
        r = self.rules
        if not hand or not self._melds or (r.opening_points > 0 and not self.opened[seat]):
            return False
        sol = solve(self._melds, hand, r)
        if sol.n_placed and self._rearranges(sol.melds):
            return True
        kinds = sorted(set(hand))
        if any(solve(self._melds, [c], r).n_placed for c in kinds):
            return True
        return any(solve(self._melds, [a, b], r).n_placed == 2
                   for i, a in enumerate(kinds) for b in kinds[i:]
                   if a != b or hand.count(a) > 1)

    # -------------------------------------------------------------- strategies
    def _decide(self, engine) -> Action:
        """The decision of the current seat's strategy under ``engine``, remembered with
        the random state it leaves (apply_action takes that state only with this very
        action: the random state of an action built elsewhere is not the game's)."""
        action, rng = self._decide_raw(engine)
        self._issued: tuple[Action, int] | None = (action, rng)
        return action

    def _decide_raw(self, engine) -> tuple[Action, int]:
        for seat in engine.observers:  # Python bots see this hand's public history
            seat.public_log = self._public
        stock = self._stock[self._stock_pos:]
        kind, placed, taken, melds, stands, rng = engine.decide_position(
            self.current_player, self._hands, self._melds, self._stands,
            self.opened, len(stock), self.rng_state, self.failed_last,
            turn=self.turn, hand_no=self.hand_index, scores=self.scores, stock=stock,
            deal_key=self.deal_key)
        if kind == "play":   # Play(...) without its constructor: the engine's exact ints
            return _record(Play, melds=tuple(map(tuple, melds)),
                           placed=tuple(ids_of_counts(placed)), taken=(JOKER,) * taken,
                           stands=tuple(map(tuple, stands)), rng_after=rng), rng
        if kind == "fail":  # the botched play: the same skill's decision without error
            _, placed, taken, melds, stands, _ = engine.decide_position(
                self.current_player, self._hands, self._melds, self._stands,
                self.opened, self._left(), self.rng_state, self.failed_last, raw=True,
                deal_key=self.deal_key)
            cards = np.repeat(_CARD_IDS, placed).tolist()
            attempt = Play(melds, cards, (JOKER,) * taken, stands=stands)
            return Fail(attempt, rng_after=rng), rng
        if flow.passes(self.rules, self._left()):
            return _record(Pass, rng_after=rng), rng
        return _record(Draw, rng_after=rng), rng

    def strategy_action(self) -> Action:
        """The current seat's strategy decision (the engine's code path)."""
        if self._terminal:
            raise FastmachError("the game is over")
        return self._decide(self.game._engine)

    def expert_action(self) -> Action:
        """What the ``expert`` strategy would do now."""
        if self._terminal:
            raise FastmachError("the game is over")
        return self._decide(self.game.expert_engine())

    def step(self) -> TurnRecord:
        """Apply the current seat's strategy decision."""
        if self._terminal:
            raise FastmachError("the game is over")
        return self.apply_action(self._decide(self.game._engine))

    # -------------------------------------------------------------- applying
    def apply_action(self, action: Action) -> TurnRecord:
        """Check and apply ``action``; returns (and appends to history) its record.

        An action this state's strategies decided (``step``, ``strategy_action``) is
        applied as it is, with the random state its decision left; any other is first
        read once into a new action of its kind (the one checked is the one applied, and
        nothing the caller keeps is shared with the game), and leaves the random state
        as it was."""
        issued, self._issued = getattr(self, "_issued", None), None
        if issued is not None and issued[0] is action:
            rng = issued[1]
        else:
            action, rng = _snapshot(action), None
        exact = self._check(action)
        r = self.rules
        P = r.players
        seat = self.current_player
        if rng is not None:
            self.rng_state = rng
        left = len(self._stock) - self._stock_pos
        was_open = self.opened[seat]
        self.turn += 1
        self.total_turns += 1
        stats, hand_stats = self.stats, self.hand_stats
        drawn: tuple[int, ...]
        if isinstance(action, Play):
            kind, drawn = "play", ()
            placed, taken, melds = action.placed, action.taken, action.melds
            hand_left = lay(self._hands[seat], tuple(placed), len(taken))
            if exact:   # tuples of exact ints: kept as they are (shared with the record)
                self._melds = list(melds)
            else:
                self._melds = [list(m) for m in melds]
            if action.stands is None:
                self._stands = [meld_stands(m, r.ace_high) for m in melds]
            else:
                self._stands = list(action.stands) if exact else [list(s) for s in action.stands]
            self.opened[seat] = True
            stats["plays"] += 1
            hand_stats["plays"] += 1
            self._noadd = 0
            self._playable = None
            n = sum(map(len, self._melds))
            if n > stats["max_table"]:
                stats["max_table"] = n
            if n > hand_stats["max_table"]:
                hand_stats["max_table"] = n
            end = flow.turn_end(r, kind, stock_at_start=left, stock_after=left,
                                hand_left=hand_left)
            table = melds
        else:
            kind = ("fail" if isinstance(action, Fail) else
                    "pass" if isinstance(action, Pass) else "draw")
            placed = taken = ()
            if kind == "fail":
                stats["failed"] += 1
                hand_stats["failed"] += 1
            elif self.can_play(seat):  # a draw or pass while a play existed (counted)
                self._able["passes" if flow.passes(r, left) else "draws"][seat] += 1
            drawn = tuple(self._draw(flow.cards_to_draw(r, kind, left)))
            end = flow.turn_end(r, kind, stock_at_start=0 if left == 0 else 1,
                                stock_after=len(self._stock) - self._stock_pos, hand_left=1)
            table = tuple(map(tuple, self._melds))
        self.failed_last[seat] = kind == "fail"
        if flow.counts_toward_block(kind, end, 0 if left == 0 else 1):
            self._noadd += 1
            if flow.must_know_who_can_play(r, self._noadd) and self._playable is None:
                self._playable = any(self.can_play(s) for s in range(P))  # (a full round)
            if flow.blocked_now(r, self._noadd, not self._playable):
                end = "blocked"
        rec = _record(TurnRecord, hand=self.hand_index, turn=self.turn, seat=seat, action=kind,
                      placed=placed, drawn=drawn, taken=taken, table=table)
        self.history.append(rec)
        self._public.append(_record(
            PublicTurn, turn=self.turn, seat=seat, action=kind, placed=placed, taken=taken,
            drawn=len(drawn), hand_sizes=sizes(self._hands),
            opened=kind == "play" and not was_open))
        if end is not None:
            self._end_hand(end, seat)
        else:
            self.current_player = (seat + 1) % P
        return rec

    def _draw(self, k: int) -> list[int]:
        take = self._stock[self._stock_pos:self._stock_pos + k]
        self._stock_pos += len(take)
        hand = self._hands[self.current_player]
        for c in take:
            hand[c] += 1
        self.stats["cards_drawn"] += len(take)
        self.hand_stats["cards_drawn"] += len(take)
        if take and self._stock_pos >= len(self._stock):
            self.hand_exhausted_turn = self.turn
            if self.stock_exhausted_turn < 0:
                self.stock_exhausted_turn = self.total_turns
        return take

    def _end_hand(self, end: str, seat: int) -> None:
        r = self.rules
        P = r.players
        pts = (self._hands * self.game.hand_points).sum(axis=1).tolist()
        outcome = flow.hand_outcome(r, end, seat, pts)
        winner, shares = outcome.winner, outcome.shares
        for s, x in enumerate(outcome.scored):
            self.scores[s] += x
        stats = (("stock_exhausted_turn", self.hand_exhausted_turn),
                 ("cards_drawn", self.hand_stats["cards_drawn"]),
                 ("plays", self.hand_stats["plays"]), ("failed", self.hand_stats["failed"]),
                 ("max_table", self.hand_stats["max_table"]))
        self.hand_results.append(HandResult(
            self.hand_index, self.dealer, self.first_player, end, winner, self.turn,
            self._sizes(), tuple(pts), *self._dealt,
            shares=tuple(shares), scores=tuple(self.scores), stats=stats,
            draws_when_able=tuple(self._able["draws"]),
            passes_when_able=tuple(self._able["passes"])))
        self.hand_index += 1
        kind, value = r.match_kind, r.match_value
        over = (kind == "single" or (kind == "rotations" and self.hand_index >= value * P)
                or (kind == "threshold" and max(self.scores) >= r.match_end_total))
        if over:
            self._terminal = True
        else:
            self._deal(self._next_permutation())

    def _next_permutation(self) -> np.ndarray:
        """The next hand's deck order, from the deal generator's state."""
        bits = np.random.PCG64()
        bits.state = self._deal_state  # type: ignore[assignment]
        perm = np.random.Generator(bits).permutation(self.game.deck)
        self._deal_state = bits.state
        return perm

    def play_out(self) -> "State":
        """Step with the seats' strategies until the game is over; returns self."""
        while not self._terminal:
            self.step()
        return self

    def row(self) -> dict:
        """The engine's row for this (finished) game, for comparisons."""
        P = self.rules.players
        last = self.hand_results[-1]
        out = {
            "seed": self.root_seed, "replicate": self.replicate,
            "first_player": self.hand_results[0].first_player, "winner": self.winner(),
            "end": last.end, "turns": self.total_turns,
            "rounds": sum((h.turns + P - 1) // P for h in self.hand_results),
            "stock_exhausted": self.stock_exhausted_turn >= 0,
            "stock_exhausted_turn": self.stock_exhausted_turn,
            "cards_drawn": self.stats["cards_drawn"], "plays": self.stats["plays"],
            "failed": self.stats["failed"], "max_table": self.stats["max_table"],
            "hands": len(self.hand_results), "dealer": self.first_dealer,
        }
        for i in range(P):
            out[f"strategy_{i}"] = str(self.game.seats[i])
        for i in range(P):
            out[f"cards_left_{i}"] = last.cards_left[i]
        for i in range(P):
            out[f"hand_points_{i}"] = last.points[i]
        for i in range(P):
            out[f"score_{i}"] = self.scores[i]
        for i, x in enumerate(self.win_shares()):
            out[f"win_share_{i}"] = x
        return out

    def hand_rows(self) -> list[dict]:
        """The engine's hand rows for the hands played so far, for comparisons."""
        P = self.rules.players
        rows = []
        for h in self.hand_results:
            st = dict(h.stats)
            row = {
                "seed": self.root_seed, "replicate": self.replicate, "hand": h.hand,
                "dealer": h.dealer, "first_player": h.first_player, "turns": h.turns,
                "rounds": (h.turns + P - 1) // P, "end": h.end,
                "stock_exhausted": st["stock_exhausted_turn"] >= 0, **st, "winner": h.winner,
            }
            for name, vals in (("strategy", [str(s) for s in self.game.seats]),
                               ("cards_left", h.cards_left), ("hand_points", h.points),
                               ("win_share", h.shares), ("score", h.scores),
                               ("draws_when_able", h.draws_when_able),
                               ("passes_when_able", h.passes_when_able)):
                for i in range(P):
                    row[f"{name}_{i}"] = vals[i]
            rows.append(row)
        return rows

