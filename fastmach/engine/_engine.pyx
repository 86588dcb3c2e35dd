# Whole games of Machiavelli in C: deal, turn loop, end of hand, scoring, matches.
#
# The turn loop (Engine.play_hand) touches no Python object and runs without the GIL
# (unless a Python bot sits at the table): C arrays for hands, table and stock, one
# strategy object per seat (fastmach.strategies: compiled classes behind one interface,
# Strategy.decide), a splitmix64 PRNG per game. A turn's effect and the end of a hand are
# the shared game flow (fastmach.game._turn.apply_turn, hand_end), the same code the lookahead
# playouts run. Python (fastmach/engine/__init__.py) validates rules and strategies and
# builds the Engine; the deal of each hand comes from NumPy's Generator (so it is
# reproducible from (replicate, root_seed) on any machine): its PCG64 seeded per game,
# its permutation and integers drawn in C (fastmach/game/_seeding.pxd: numpy's algorithms,
# the same numbers), with the GIL between hands.
from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy

import numpy as np
cimport numpy as cnp
cimport cython

from fastmach.core._fields cimport new_record, put
from fastmach.core._solver cimport NCARD, JOKER, wit_split_wraps
from fastmach.game._turn cimport (ERules, HState, Decision, Flow, A_PLAY, A_DRAW, A_PASS, A_FAIL,
                                  E_EMPTIED, MAX_PLAYERS, MAX_DECK, MAX_TURNS, RC_PYTHON, T_ASK,
                                  wit_clear, flow_start, apply_turn, blocked_end, hand_end,
                                  next_uniform, any_seat_can_play, BLOCK_ROUNDS,
                                  play_fault)
from fastmach.game._position cimport load_table
from fastmach.strategies._base cimport Context, Strategy
from fastmach.strategies._reject cimport NoPlay, seat_can_play_remembered
from fastmach.strategies._tactics import dissolved   # noqa: F401 (tests)
from fastmach.strategies._base import hand_may_meld   # noqa: F401 (tests)
from fastmach.game._seeding import seed_deal
from fastmach.game._seeding cimport (bitgen_of, draw_shuffle, draw_below, draw_uint64,
                                     bitgen_t)

cnp.import_array()

from fastmach.game.history import PublicTurn
from fastmach.core.cards import card_str
from fastmach.errors import FastmachError
from fastmach.rules import MAX_MATCH_HANDS

cdef tuple _INTS = tuple(range(256))

SOLVER_ERRORS = {-4: "state limit", -6: "a set of table melds did not partition"}


def solver_stopped(rc, where):
    """The error of a solve the engine could not finish (no move is guessed): the state
    limit is a FastmachError, as ``solve`` raises it (the rules allow positions past the
    exact solver); anything else a RuntimeError (an internal fault)."""
    if rc == -4:
        return FastmachError(
            f"a position too large for the exact solver (its state limit) {where}: "
            "no move is guessed, the game is not counted")
    return RuntimeError(f"engine: the exact solver stopped ({SOLVER_ERRORS.get(rc, rc)}) {where}")


ACTIONS = ("play", "draw", "pass", "fail")
VIOLATIONS = (
    "none",
    "cards not conserved (hands + table + stock != deck)",
    "a hand's card count is wrong",
    "the meld list does not hold exactly the table cards",
    "a meld has fewer than 3 cards",
    "a play added no hand card",
    "a draw or pass changed the table",
)
ENDS = ("emptied", "blocked", "stock-out")
BLOCKED_AFTER_ROUNDS = BLOCK_ROUNDS   # (fastmach.rules.BLOCK_ROUNDS; a test keeps them equal)
# play_batch(hands=True): the per-hand arrays, in this order (the last three per seat)
HAND_FIELDS = ("game", "hand", "dealer", "first_player", "end", "winner", "turns", "rounds",
               "stock_exhausted_turn", "cards_drawn", "plays", "failed", "max_table",
               "cards_left", "hand_points", "score", "draws_when_able", "passes_when_able")
HAND_SEAT_FIELDS = ("cards_left", "hand_points", "score", "draws_when_able", "passes_when_able")


cdef struct HandResult:
    int end
    int winner
    int first_player
    int turns
    int stock_exhausted_turn   # 1-based turn that drew the last stock card, 0 = no stock, -1
    int cards_drawn
    int plays
    int failed
    int max_table
    int cards_left[MAX_PLAYERS]
    int points[MAX_PLAYERS]
    int won[MAX_PLAYERS]    # the seat won the hand (alone, or sharing a tie)
    int draws_able[MAX_PLAYERS]    # draws made while the seat could add a card (exact)
    int passes_able[MAX_PLAYERS]   # passes (empty stock, play-on) made while it could



def splitmix64(uint64_t state, int n):
    """The engine's PRNG, for tests: (new state, [n uniform floats in [0, 1)])."""
    cdef uint64_t s = state
    out = [next_uniform(&s) for _ in range(n)]
    return s, out

@cython.final
cdef class Engine:
    """Rules + one strategy per seat; plays hands and whole matches."""

    cdef Context ctx
    cdef const ERules* R
    cdef list strategies              # one Strategy per seat (keeps them alive) ...
    cdef PyObject* seat[MAX_PLAYERS]  # ... and the same, for the nogil turn loop
    cdef bint guarded[MAX_PLAYERS]    # a seat whose plays pass play_fault (a Python bot)
    cdef readonly bint gil_free       # no Python bot: the turn loop releases the GIL
    cdef HState st
    cdef Decision dec
    cdef object deck                  # the sorted deck (uint8 array)
    cdef readonly int match_kind      # 0 single, 1 rotations, 2 threshold
    cdef readonly int first_cut       # first_player_by = cut (else left of the dealer)
    cdef readonly int match_value
    cdef readonly int match_end       # threshold: the lowest total that ends the match
    cdef readonly int players
    cdef readonly bint checked        # verify the invariants after every turn (tests)
    cdef bint counting                # play_batch(hands=True): count draws/passes when able
    cdef NoPlay counted[MAX_PLAYERS]  # ... each seat's last position counted without a play
    cdef bint recording               # play_batch(record=True): keep every hand's actions
    cdef list record                  # ... the hands of the current game
    cdef dict hand_rec                # ... the current hand (record_deal, _turn, _end)
    cdef readonly int violation       # the first broken invariant (see VIOLATIONS)
    cdef readonly list observers      # Python bot seats that see the public history ...
    cdef bint observing               # ... (any: each turn is recorded for them)
    cdef list public                  # the current hand's public turns (fastmach.game.history)
    cdef readonly bint melds_unread   # no seat reads the table's melds: a batch nobody
                                      # watches asks for none

    def __init__(self, dict cfg, Context ctx, strategies):
        """cfg (fastmach.engine.engine_config), the Context the strategies share, and one
        compiled Strategy per seat (fastmach.strategies.build_seats)."""
        self.ctx = ctx
        self.R = &ctx.R
        self.players = self.R.players
        self.strategies = list(strategies)
        if len(self.strategies) != self.players:
            raise ValueError("engine: one strategy per seat")
        self.gil_free = True
        for i, s in enumerate(self.strategies):
            if not isinstance(s, Strategy) or (<Strategy>s).ctx is not ctx:
                raise ValueError("engine: seat strategies must share the engine's Context")
            self.seat[i] = <PyObject*>s
            self.guarded[i] = not getattr(s, "gil_free", True)
            if self.guarded[i]:
                self.gil_free = False
        # a seat whose callback takes a public log (fastmach.strategies.bots.BotSeat)
        self.observers = [s.callback for s in self.strategies
                          if hasattr(getattr(s, "callback", None), "public_log")]
        self.observing = len(self.observers) > 0
        self.public = []
        self.deck = np.asarray(cfg["deck"], dtype=np.uint8).copy()
        self.checked = bool(cfg.get("check", False))
        self.melds_unread = all((<Strategy>s).melds_blind for s in self.strategies)
        self.violation = 0
        self.match_kind = cfg["match_kind"]
        self.first_cut = cfg["first_cut"]
        self.match_value = cfg["match_value"]
        self.match_end = cfg["match_end"]

    @property
    def seats(self):
        """The compiled strategy of each seat."""
        return list(self.strategies)

    # ------------------------------------------------------------ invariants (checked mode)
    cdef int check_state(self, HState* st) noexcept nogil:
        cdef int cnt[NCARD]
        cdef int wcnt[NCARD]
        cdef int s, c, k, n, m
        memset(cnt, 0, sizeof(cnt))
        memset(wcnt, 0, sizeof(wcnt))
        for s in range(self.R.players):
            n = 0
            for c in range(NCARD):
                cnt[c] += st.hands[s][c]
                n += st.hands[s][c]
            if n != st.hand_n[s]:
                return 2
        n = 0
        for c in range(NCARD):
            cnt[c] += st.table[c]
            n += st.table[c]
        if n != st.table_n or st.wit.start[st.wit.n_melds] != n:
            return 3
        for k in range(st.stock_pos, st.stock_len):
            cnt[st.stock[k]] += 1
        for c in range(NCARD):
            if cnt[c] != self.R.deck_counts[c]:
                return 1
        for k in range(n):
            wcnt[st.wit.cards[k]] += 1
        for c in range(NCARD):
            if wcnt[c] != st.table[c]:
                return 3
        for m in range(st.wit.n_melds):
            if st.wit.start[m + 1] - st.wit.start[m] < 3:
                return 4
        return 0

    cdef bint refuse_play(self, const HState* st, int cur, const Decision* d) noexcept nogil:
        """Whether seat cur's PLAY fails play_fault (then Context.rc / error hold the
        FastmachError naming the seat's bot, as its own check would have)."""
        cdef int fault = play_fault(st, cur, d)
        if fault < 0:
            return False
        with gil:
            self.ctx.error = self.refusal(st, cur, d, fault)
        self.ctx.rc = RC_PYTHON
        return True

    cdef object refusal(self, const HState* st, int cur, const Decision* d, int fault):
        cb = getattr(self.strategies[cur], "callback", None)
        where = (cb._where(cur, st.hand_no, st.turn + 1) if hasattr(cb, "_where")
                 else f"seat {cur}, hand {st.hand_no}, turn {st.turn + 1}")
        what = (f"placed {card_str(fault)} x{d.placed[fault]} but seat {cur} holds "
                f"{st.hands[cur][fault]}" if fault < NCARD else
                "the play's placed cards, jokers taken and melds do not add up to the "
                "table's cards and the seat's")
        return FastmachError(f"{where}: illegal action: {what}")

    # ------------------------------------------------------------ one hand
    cdef int play_hand(self, const uint8_t* deck, int dealer, int first, int hand_no,
                       const int* scores, uint64_t* rng, HandResult* res) noexcept nogil:
        """Deal `deck` starting left of `dealer` and play the hand, `first` playing first:
        0, or -1 (too long), -2 (an invariant broke, checked mode), -3 (a strategy stopped:
        Context.rc). Counting (hands=True): a draw or pass made while the seat could add a
        card (the exact solver) counts in res.draws_able / passes_able."""
        cdef const ERules* R = self.R
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef int P = R.players, k, seat, cur, end, table_before, stock_before, able, was_open
        cdef int can[MAX_PLAYERS]   # seat_can_play while the position stands still (-1 unknown)
        cdef uint8_t empty[NCARD]
        cdef Flow f
        memset(empty, 0, NCARD)
        memset(self.counted, 0, sizeof(self.counted))
        memset(st, 0, sizeof(HState))
        memset(res, 0, sizeof(HandResult))
        wit_clear(&st.wit)
        for k in range(P * R.hand_size):
            seat = (dealer + 1 + k) % P
            st.hands[seat][deck[k]] += 1
            st.hand_n[seat] += 1
        st.stock_len = R.deck_size - P * R.hand_size
        for k in range(st.stock_len):
            st.stock[k] = deck[P * R.hand_size + k]
        st.hand_no = hand_no
        st.deal_key = rng[0]
        for seat in range(P):
            st.scores[seat] = scores[seat]
        flow_start(st, &f)
        for seat in range(P):
            can[seat] = -1
        cur = first
        res.first_player = cur
        if self.recording:
            with gil:
                self.record_deal(dealer, cur)
        if self.observing:
            with gil:
                self.public = []
                for cb in self.observers:
                    cb.public_log = self.public
        while True:
            if f.turns >= MAX_TURNS:
                return -1
            table_before = st.table_n
            stock_before = st.stock_pos
            was_open = st.opened[cur]
            (<Strategy>self.seat[cur]).decide(st, cur, rng, d)
            if self.ctx.rc:
                return -3
            if self.checked and d.kind == A_PLAY and d.n_placed < 1:
                self.violation = 5
                return -2
            if self.counting and (d.kind == A_DRAW or d.kind == A_PASS):
                if can[cur] < 0:
                    can[cur] = self.can_play(st, cur, empty)
                able = can[cur]
                if able < -1:
                    self.ctx.rc = able
                    return -3
                if able:
                    if st.stock_pos == st.stock_len and not R.ends_hand:
                        res.passes_able[cur] += 1
                    else:
                        res.draws_able[cur] += 1
            if self.guarded[cur] and d.kind == A_PLAY and self.refuse_play(st, cur, d):
                return -3
            end = apply_turn(R, st, cur, d, &f)
            if d.kind == A_PLAY:
                for seat in range(P):   # the table changed: every seat's answer may too
                    can[seat] = -1
            elif st.stock_pos != stock_before:
                can[cur] = -1           # its hand changed
            if end == T_ASK:   # a full round added no card: can any seat play? (exact)
                f.playable = any_seat_can_play(self.ctx.solver, R, st)
                if f.playable < -1:
                    self.ctx.rc = f.playable
                    return -3
                end = blocked_end(R, &f)
            if self.recording:
                with gil:
                    self.record_turn(cur, d, stock_before)
            if self.observing:
                with gil:
                    self.public_turn(cur, d, stock_before, was_open)
            if self.checked:
                if d.kind != A_PLAY and st.table_n != table_before:
                    self.violation = 6
                    return -2
                self.violation = self.check_state(st)
                if self.violation:
                    return -2
            if end >= 0:
                break
            cur = (cur + 1) % P
        res.end = end
        res.turns = f.turns
        res.stock_exhausted_turn = f.stock_exhausted_turn
        res.cards_drawn = f.cards_drawn
        res.plays = f.plays
        res.failed = f.failed
        res.max_table = f.max_table
        for seat in range(P):
            res.cards_left[seat] = st.hand_n[seat]
        res.winner = hand_end(R, st, end, cur, res.points, res.won)
        if self.recording:
            with gil:
                self.record_end(res)
        return 0

    cdef int can_play(self, HState* st, int seat, const uint8_t* empty) noexcept nogil:
        """seat_can_play, without the solver where the quick reject knows there is no play
        (fastmach.strategies._reject: the table, or the empty table of an opening, and the
        seat's hand; the same answer)."""
        return seat_can_play_remembered(self.ctx.solver, self.R, st, seat,
                                        &self.counted[seat], empty)

    # ------------------------------------------------------------ recording (--log)
    cdef void record_deal(self, int dealer, int first) except *:
        cdef HState* st = &self.st
        cdef int s
        self.hand_rec = {
            "dealer": dealer, "first_player": first,
            "hands": [[c for c in range(NCARD) for _ in range(st.hands[s][c])]
                      for s in range(self.players)],
            "stock": [st.stock[k] for k in range(st.stock_pos, st.stock_len)],
            "turns": [],
        }
        self.record.append(self.hand_rec)

    cdef void record_turn(self, int seat, const Decision* d, int stock_before) except *:
        """The turn as applied: play, draw (a draw from an empty stock under ends-hand
        draws nothing and ends the hand), pass (a draw from an empty stock, play-on) or
        fail; the cards drawn; the whole table after it."""
        cdef HState* st = &self.st
        cdef int m, i
        if d.kind == A_PLAY:
            action = "play"
        elif d.kind == A_FAIL:
            action = "fail"
        elif stock_before == st.stock_len and not self.R.ends_hand:
            action = "pass"
        else:
            action = "draw"
        self.hand_rec["turns"].append({
            "seat": seat, "action": action,
            "placed": [c for c in range(NCARD) for _ in range(d.placed[c])] if d.kind == A_PLAY else [],
            "drawn": [st.stock[k] for k in range(stock_before, st.stock_pos)],
            "taken": [JOKER] * d.taken if d.kind == A_PLAY else [],
            "table": [[st.wit.cards[i] for i in range(st.wit.start[m], st.wit.start[m + 1])]
                      for m in range(st.wit.n_melds)],
        })

    cdef void public_turn(self, int seat, const Decision* d, int stock_before,
                          int was_open) except *:
        """The turn as every seat saw it (fastmach.game.history.PublicTurn), made once for
        every bot seat, as the reference State keeps it."""
        cdef HState* st = &self.st
        cdef int s, c, k, n = 0
        placed = ()
        if d.kind == A_PLAY:
            action = "play"
            placed = PyTuple_New(d.n_placed)
            for c in range(NCARD):
                for k in range(d.placed[c]):
                    if n < d.n_placed:
                        Py_INCREF(_INTS[c])
                        PyTuple_SET_ITEM(placed, n, _INTS[c])
                        n += 1
            if n < d.n_placed:
                placed = tuple([c for c in range(NCARD) for k in range(d.placed[c])])
        elif d.kind == A_FAIL:
            action = "fail"
        elif stock_before == st.stock_len and not self.R.ends_hand:
            action = "pass"
        else:
            action = "draw"
        sizes = PyTuple_New(self.players)
        for s in range(self.players):
            x = st.hand_n[s]
            Py_INCREF(x)
            PyTuple_SET_ITEM(sizes, s, x)
        # PublicTurn(...) without the frozen dataclass's __init__ (fastmach.core._fields)
        t = new_record(PublicTurn)
        put(t, "turn", st.turn)
        put(t, "seat", seat)
        put(t, "action", action)
        put(t, "placed", placed)
        put(t, "taken", (JOKER,) * d.taken if d.kind == A_PLAY and d.taken else ())
        put(t, "drawn", st.stock_pos - stock_before)
        put(t, "hand_sizes", sizes)
        put(t, "opened", d.kind == A_PLAY and not was_open)
        self.public.append(t)

    cdef void record_end(self, HandResult* res) except *:
        cdef int s, k = 0
        for s in range(self.players):
            k += res.won[s]
        self.hand_rec.update(
            end=ENDS[res.end], winner=res.winner,
            points=[res.points[s] for s in range(self.players)],
            cards_left=[res.cards_left[s] for s in range(self.players)],
            shares=[<double>res.won[s] / k if k else 0.0 for s in range(self.players)])

    # ------------------------------------------------------------ batches
    def play_batch(self, int64_t root_seed, replicates, bint hands=False, bint record=False):
        """Play one game (a hand, or a whole match) per replicate: see _play_batch.

        Where nobody reads the table's melds (melds_unread, and no record, observer, check
        or Python bot), the seats' plays carry none (Context.melds: the solver is asked for
        none); the games are the same (tests/engine/test_melds_unread.py)."""
        self.ctx.melds = not (self.melds_unread and not record and not self.observing
                              and not self.checked and self.gil_free and not self.ctx.shared)
        try:
            return self._play_batch(root_seed, replicates, hands, record)
        finally:
            self.ctx.melds = True

    def _play_batch(self, int64_t root_seed, replicates, bint hands, bint record):
        """Play one game (a hand, or a whole match) per replicate; returns a dict of
        NumPy arrays, one row per replicate (the per-seat arrays are 2-D).

        hands: also ``out["hand_rows"]``, a dict of arrays with one row per hand played
        (HAND_FIELDS): ``game`` (row index of its game), ``hand``, ``dealer``,
        ``first_player``, ``end``, ``winner``, ``turns``, ``rounds``,
        ``stock_exhausted_turn`` (within the hand), ``cards_drawn``, ``plays``, ``failed``,
        ``max_table`` and the 2-D ``cards_left``, ``hand_points``, ``score`` (the match
        score after the hand). record: also ``out["log"]``, per game the list of its
        hands as played (deal, every turn's action, end), for ``--log``."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] reps = np.ascontiguousarray(replicates, dtype=np.int64)
        cdef Py_ssize_t G = reps.shape[0], g
        cdef int P = self.R.players, h, s, rc, n_hands, w, best, nb, lost
        cdef uint64_t rng_state
        cdef HandResult res
        cdef uint8_t hand_deck[MAX_DECK]
        cdef int dealer0, dealer, first0, first
        cdef long long turn_base
        cdef int scores_before[MAX_PLAYERS]
        cdef const uint8_t[::1] sorted_deck = self.deck
        cdef int n_deck = <int>sorted_deck.shape[0]
        cdef bitgen_t* bg
        out = {
            name: np.zeros(G, dtype=np.int64) for name in (
                "first_player", "winner", "end", "turns", "rounds", "stock_exhausted_turn",
                "cards_drawn", "plays", "failed", "max_table", "hands", "dealer",
            )
        }
        cards_left = np.zeros((G, P), dtype=np.int64)
        hand_points = np.zeros((G, P), dtype=np.int64)
        score = np.zeros((G, P), dtype=np.int64)
        cdef long long[:, :] cl = cards_left, hp = hand_points, sc = score
        cdef long long[:] o_first = out["first_player"], o_winner = out["winner"]
        cdef long long[:] o_end = out["end"], o_turns = out["turns"], o_rounds = out["rounds"]
        cdef long long[:] o_sx = out["stock_exhausted_turn"], o_drawn = out["cards_drawn"]
        cdef long long[:] o_plays = out["plays"], o_failed = out["failed"]
        cdef long long[:] o_max = out["max_table"], o_hands = out["hands"], o_dealer = out["dealer"]
        games_log = []
        hrows = {name: [] for name in HAND_FIELDS} if hands else None
        self.recording = record   # (reset by the next batch; decide_position never records)
        self.counting = hands
        # one generator for the batch, put in each game's state: default_rng(SeedSequence(
        # [replicate, root_seed])) without building them (fastmach.game._seeding)
        # (the draws in C on its PCG64: rng.permutation(deck), rng.integers(P), ..., the
        # same numbers, _seeding.pxd)
        gen = np.random.Generator(np.random.PCG64())
        bg = bitgen_of(gen)
        if n_deck > MAX_DECK or n_deck < self.R.deck_size:
            raise ValueError(f"engine: a deck of {n_deck} cards for {self.R.deck_size}")
        for g in range(G):
            self.record = []
            if record:
                games_log.append(self.record)
            seed_deal(gen, int(reps[g]), int(root_seed))
            memcpy(hand_deck, &sorted_deck[0], n_deck)
            draw_shuffle(bg, hand_deck, n_deck)
            dealer0 = <int>draw_below(bg, <uint32_t>P)
            rng_state = draw_uint64(bg)
            # first_player_by = cut (003): the highest cut starts, then play moves clockwise
            # hand by hand; a uniform seat (the cut's distribution, ties re-cut)
            first0 = <int>draw_below(bg, <uint32_t>P) if self.first_cut else -1
            o_dealer[g] = dealer0
            o_sx[g] = -1
            turn_base = 0
            h = 0
            while True:
                if h > 0:
                    memcpy(hand_deck, &sorted_deck[0], n_deck)
                    draw_shuffle(bg, hand_deck, n_deck)
                dealer = (dealer0 + h) % P
                first = (first0 + h) % P if self.first_cut else (dealer + 1) % P
                for s in range(P):
                    scores_before[s] = sc[g, s]
                if self.gil_free and not record and not self.ctx.shared:
                    with nogil:
                        rc = self.play_hand(hand_deck, dealer, first, h, scores_before, &rng_state, &res)
                else:   # a Python bot sits at the table: its seat takes the GIL anyway
                    rc = self.play_hand(hand_deck, dealer, first, h, scores_before, &rng_state, &res)
                if rc == -3:
                    rc, err = self.ctx.take_error()
                    if rc == RC_PYTHON:
                        raise err
                    raise solver_stopped(rc, f"in hand {h} of replicate {reps[g]}")
                if rc == -2:
                    raise RuntimeError(
                        f"engine invariant broken in hand {h} of replicate {reps[g]}: "
                        f"{VIOLATIONS[self.violation]}")
                if rc != 0:
                    raise RuntimeError(
                        f"engine: hand {h} of replicate {reps[g]} exceeded {MAX_TURNS} turns "
                        "(a strategy that never ends a hand?)")
                if h == 0:
                    o_first[g] = res.first_player
                o_end[g] = res.end
                if res.stock_exhausted_turn >= 0 and o_sx[g] < 0:
                    o_sx[g] = turn_base + res.stock_exhausted_turn
                o_turns[g] += res.turns
                o_rounds[g] += (res.turns + P - 1) // P
                o_drawn[g] += res.cards_drawn
                o_plays[g] += res.plays
                o_failed[g] += res.failed
                if res.max_table > o_max[g]:
                    o_max[g] = res.max_table
                # scoring: a hand's winners pay nothing (003: "chaque autre joueur compte");
                # winner-takes: they score the sum of the others' points instead
                lost = 0
                for s in range(P):
                    cl[g, s] = res.cards_left[s]
                    hp[g, s] = res.points[s]
                    if not res.won[s]:
                        lost += res.points[s]
                        if not self.R.winner_takes:
                            sc[g, s] += res.points[s]
                if self.R.winner_takes:   # k tied winners split the sum (rounded down)
                    nb = 0
                    for s in range(P):
                        nb += res.won[s]
                    for s in range(P):
                        if res.won[s]:
                            sc[g, s] += lost // nb
                turn_base += res.turns
                if record:
                    self.hand_rec["scores"] = [sc[g, s] for s in range(P)]
                if hands:
                    for name, v in zip(HAND_FIELDS, (
                            g, h, dealer, res.first_player, res.end, res.winner, res.turns,
                            (res.turns + P - 1) // P, res.stock_exhausted_turn,
                            res.cards_drawn, res.plays, res.failed, res.max_table,
                            [res.cards_left[s] for s in range(P)],
                            [res.points[s] for s in range(P)],
                            [sc[g, s] for s in range(P)],
                            [res.draws_able[s] for s in range(P)],
                            [res.passes_able[s] for s in range(P)])):
                        hrows[name].append(v)
                h += 1
                if self.match_kind == 0:
                    o_winner[g] = res.winner
                    break
                if self.match_kind == 1 and h >= self.match_value * P:
                    break
                if self.match_kind == 2:
                    best = 0
                    for s in range(P):
                        if sc[g, s] > best:
                            best = sc[g, s]
                    if best >= self.match_end:   # (rules.match_end_total)
                        break
                if h >= MAX_MATCH_HANDS:
                    raise FastmachError(
                        f"match of replicate {reps[g]} did not end within {MAX_MATCH_HANDS:,} "
                        f"hands (match={'threshold' if self.match_kind == 2 else 'rotations'}:"
                        f"{self.match_value}): a total the scores reach too slowly; lower it")
            o_hands[g] = h
            if self.match_kind != 0:
                best = sc[g, 0]
                for s in range(P):
                    if sc[g, s] < best:
                        best = sc[g, s]
                nb = 0
                w = -1
                for s in range(P):
                    if sc[g, s] == best:
                        nb += 1
                        w = s
                o_winner[g] = w if nb == 1 else -1
        out["cards_left"] = cards_left
        out["hand_points"] = hand_points
        out["score"] = score
        if hands:
            out["hand_rows"] = {name: np.array(v, dtype=np.int64) for name, v in hrows.items()}
            for name in HAND_SEAT_FIELDS:
                out["hand_rows"][name] = out["hand_rows"][name].reshape(-1, P)
        if record:
            out["log"] = games_log
        return out

    # ------------------------------------------------------------ one decision (State API)
    def decide_position(self, int seat, hands, table_melds, table_stands, opened,
                        int stock_left, uint64_t rng_state, failed_last=None, raw=False,
                        int turn=0, int hand_no=0, scores=None, stock=None,
                        uint64_t deal_key=0):
        """The seat's strategy decision in a position given as Python data.

        hands: P x 53 counts; table_melds / table_stands: the current meld list (card ids,
        and what each stands for); opened: per-seat flags. Returns (action, placed counts,
        taken jokers, melds after, stands after (a fail: those of the play it botched), new
        rng state); action in ACTIONS[:4].
        failed_last: per-seat flags, the seat's previous turn was a failure. raw: the skill
        level's play alone, without patience or error (the must-play check). stock: the
        stock's cards, next first (read only by a player that sees hidden cards).
        deal_key: the game's PRNG state when the hand was dealt (a mixed player's member).
        """
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef int P = self.R.players, s, c, i, m
        cdef uint64_t rng = rng_state
        cdef const int64_t[:, ::1] hv
        # (the C arrays below are read by seat without bounds checks: check the seats first)
        if not 0 <= seat < P:
            raise FastmachError(f"the current player {seat} is not a seat 0..{P - 1}")
        for name, v in (("opened", opened), ("failed_last", failed_last), ("scores", scores)):
            if v is not None and len(v) != P:
                raise FastmachError(f"{name}: {len(v)} value(s) for {P} seats")
        if len(hands) != P:
            raise FastmachError(f"hands: {len(hands)} hand(s) for {P} seats")
        memset(st, 0, sizeof(HState))
        wit_clear(&st.wit)
        if (type(hands) is np.ndarray and hands.dtype == np.int64 and hands.ndim == 2
                and hands.shape[0] >= P and hands.shape[1] == NCARD
                and hands.flags.c_contiguous):   # the State's rows: read in C
            hv = hands
            for s in range(P):
                for c in range(NCARD):
                    if hv[s, c] < 0 or hv[s, c] > 255:
                        raise OverflowError("decide_position: a card count out of 0..255")
                    st.hands[s][c] = <uint8_t>hv[s, c]
                    st.hand_n[s] += hv[s, c]
        else:
            for s in range(P):
                for c in range(NCARD):
                    st.hands[s][c] = hands[s][c]
                    st.hand_n[s] += hands[s][c]
        for s in range(P):
            st.opened[s] = 1 if opened[s] else 0
            st.failed_last[s] = 1 if failed_last is not None and failed_last[s] else 0
        load_table(st, table_melds, table_stands)
        st.stock_len = stock_left
        if stock is not None:
            if len(stock) != stock_left:
                raise ValueError("decide_position: stock must hold stock_left cards")
            for i in range(stock_left):
                st.stock[i] = stock[i]
        st.turn = turn
        st.hand_no = hand_no
        st.deal_key = deal_key
        for s in range(P):
            st.scores[s] = scores[s] if scores is not None else 0
        cdef Strategy strategy = self.strategies[seat].unwrapped() if raw else self.strategies[seat]
        if self.gil_free and not self.ctx.shared:
            with nogil:
                strategy.decide(st, seat, &rng, d)
        else:
            strategy.decide(st, seat, &rng, d)
        if self.ctx.rc:
            rc, err = self.ctx.take_error()
            if rc == RC_PYTHON:
                raise err
            raise solver_stopped(rc, f"deciding seat {seat}'s turn")
        if self.guarded[seat] and d.kind == A_PLAY and self.refuse_play(st, seat, d):
            raise self.ctx.take_error()[1]
        if (d.kind == A_PLAY or d.kind == A_FAIL) and self.R.srules.ace_high == 2:
            wit_split_wraps(&d.wit)   # as apply_turn lays it
        placed = np.array(<uint8_t[:NCARD]> d.placed, dtype=np.uint8)
        melds, stands = [], []
        if d.kind == A_PLAY or d.kind == A_FAIL:   # a fail: the play it botched
            for m in range(d.wit.n_melds):
                melds.append([d.wit.cards[i] for i in range(d.wit.start[m], d.wit.start[m + 1])])
                stands.append([d.wit.stands[i] for i in range(d.wit.start[m], d.wit.start[m + 1])])
        return ACTIONS[d.kind], placed, d.taken, melds, stands, rng
