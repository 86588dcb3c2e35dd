# The other seats' turns of an environment's game, played in C on the reference State
# (fastmach.game.State): the position is read once into the engine's C state (HState,
# fastmach/game/_turn.pxd), each seat's compiled strategy decides (Strategy.decide) and the
# engine's one game flow applies the decision (apply_turn, blocked_end), and the State is
# written back with the very records its own step would have appended (TurnRecord,
# PublicTurn), counters and random state. The end of a hand is the State's own
# (State._end_hand: scores, the hand's result, the next deal), called from here. The
# learner's own draw or play (checked by the caller) is applied the same way, and the
# expert's play for its mask is decided on the position the turns left (Turns.expert).
#
# Only compiled strategies play here (a seat played by a Python bot is the State's own
# step: fastmach.env.table decides). A strategy's failed play is recorded as the State
# records it (its botched attempt is not kept in the records). tests/env/test_env_turns.py
# compares the States this leaves with those of State.step, turn by turn, on random seeds
# and every preset.
from libc.stdint cimport uint8_t, int64_t, uint64_t
from libc.string cimport memset, memcpy

from fastmach.core._fields cimport new_record, put
from fastmach.core._solver cimport NCARD, JOKER, wit_split_wraps
from fastmach.game._turn cimport (ERules, HState, Decision, Flow, A_PLAY, A_DRAW, A_PASS,
                                  A_FAIL, MAX_DECK, MAX_PLAYERS, T_ASK, wit_clear, apply_turn,
                                  blocked_end, any_seat_can_play)
from fastmach.game._position cimport load_deal, load_table, load_play, play_tuple
from fastmach.strategies._base cimport Context, Strategy
from fastmach.strategies._reject cimport NoPlay, seat_can_play_remembered

from fastmach.engine._engine import solver_stopped
from fastmach.game.history import PublicTurn
from fastmach.game.state import TurnRecord

cdef tuple _ACTIONS = ("play", "draw", "pass", "fail")
cdef tuple _ENDS = ("emptied", "blocked", "stock-out")
cdef tuple _NO_CARDS = ()


cdef class Turns:
    """Plays the turns of the seats a State's Game gives compiled strategies (``engine``:
    the Game's engine, ``Game._engine``)."""

    cdef Context ctx
    cdef const ERules* R
    cdef list strategies
    cdef HState st
    cdef Decision dec
    cdef int players
    cdef readonly bint usable     # every seat is a compiled strategy (no Python bot)
    cdef NoPlay seen[MAX_PLAYERS]  # each seat's last position known without a play
    cdef uint8_t empty[NCARD]
    cdef HState scratch
    cdef object synced            # the State self.st holds now (None: none) ...
    cdef long long synced_turns   # ... at this many turns of the match, its hands and
    cdef object synced_hands      # table the objects written (set_position replaces them)
    cdef object synced_melds

    def __init__(self, engine):
        self.strategies = list(engine.seats)
        self.players = len(self.strategies)
        self.usable = bool(engine.gil_free) and 0 < self.players <= MAX_PLAYERS
        memset(self.seen, 0, sizeof(self.seen))
        self.synced = None
        memset(self.empty, 0, NCARD)
        if self.usable:
            self.ctx = (<Strategy?>self.strategies[0]).ctx
            self.R = &self.ctx.R

    cdef void load(self, state) except *:
        """The State's current hand into self.st."""
        cdef HState* st = &self.st
        cdef int P = self.players, s
        memset(st, 0, sizeof(HState))
        wit_clear(&st.wit)
        load_deal(st, state, P)
        opened, failed = state.opened, state.failed_last
        for s in range(P):
            st.opened[s] = 1 if opened[s] else 0
            st.failed_last[s] = 1 if failed[s] else 0
        load_table(st, state._melds, state._stands)

    cdef int can_play(self, int seat) noexcept nogil:
        """seat_can_play, without the solver where the quick reject knows there is no play
        (the engine's own shortcut, fastmach.strategies._reject: the same answer)."""
        return seat_can_play_remembered(self.ctx.solver, self.R, &self.st, seat,
                                        &self.seen[seat], &self.empty[0])

    cdef tuple table(self):
        """The table's melds and what each card stands for, as tuples of tuples."""
        cdef HState* st = &self.st
        cdef int m, i
        melds, stands = [], []
        for m in range(st.wit.n_melds):
            melds.append(tuple([st.wit.cards[i] for i in range(st.wit.start[m], st.wit.start[m + 1])]))
            stands.append(tuple([st.wit.stands[i] for i in range(st.wit.start[m], st.wit.start[m + 1])]))
        return tuple(melds), tuple(stands)

    cdef void store(self, state) except *:
        """self.st's hands, stock position, flags and turn back into the State."""
        cdef HState* st = &self.st
        cdef int P = self.players, s, c
        cdef int64_t[:, ::1] hv = state._hands
        for s in range(P):
            for c in range(NCARD):
                hv[s, c] = st.hands[s][c]
        state._stock_pos = st.stock_pos
        state.turn = st.turn
        opened, failed = state.opened, state.failed_last
        for s in range(P):
            opened[s] = st.opened[s] != 0
            failed[s] = st.failed_last[s] != 0

    cdef void given(self, tuple first) except *:
        """self.dec from a checked action of the seat to play: ``(A_DRAW,)`` or
        ``(A_PLAY, placed card ids, jokers taken, melds after, their stands)``."""
        cdef Decision* d = &self.dec
        if first[0] == A_PLAY:
            load_play(d, first[1], first[2], first[3], first[4])
            return
        memset(d.placed, 0, NCARD)
        d.kind = first[0]
        d.n_placed = 0
        d.taken = 0
        d.touched = 0
        wit_clear(&d.wit)

    def play(self, state, int learner, long long limit=-1, tuple first=None,
             bint more=False):
        """Play the State's turns until seat ``learner``'s turn, the end of the match or
        (``limit`` >= 0) ``state.total_turns >= limit``; returns the turns played.
        ``first``: the current seat's own action instead (checked by the caller, see
        ``given``): that turn alone is played, or with ``more`` the others' after it
        unless it ended the hand (the limit is not asked before it)."""
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef const ERules* R = self.R
        cdef int P = self.players, cur, end, s, c, k, stock_before, was_open, able, n_hand
        cdef int plays, failed, drawn_n, max_table, hand_max, i
        cdef long long total, played = 0
        cdef uint64_t rng
        cdef Flow f
        cdef Strategy strategy
        cdef bint own = first is not None
        if not self.usable:
            raise ValueError("Turns: a seat is not a compiled strategy")
        while True:
            if state._terminal or (not own and (state.current_player == learner or (
                    limit >= 0 and state.total_turns >= limit))):
                return played
            self.load(state)
            cur = state.current_player
            total = state.total_turns
            rng = state.rng_state
            memset(&f, 0, sizeof(Flow))
            f.noadd = state._noadd
            playable = state._playable
            f.playable = -1 if playable is None else (1 if playable else 0)
            history, public = state.history, state._public
            stats, hand_stats = state.stats, state.hand_stats
            able_draws, able_passes = state._able["draws"], state._able["passes"]
            melds, stands = self.table()
            plays = failed = drawn_n = 0
            max_table = stats["max_table"]
            hand_max = hand_stats["max_table"]
            exhausted = state.hand_exhausted_turn
            end = -1
            while True:
                if first is not None:
                    self.given(first)
                else:
                    strategy = <Strategy>self.strategies[cur]
                    strategy.decide(st, cur, &rng, d)
                if self.ctx.rc:
                    self._finish(state, cur, total, rng, &f, melds, stands, plays, failed,
                                 drawn_n, max_table, hand_max, exhausted)
                    rc, err = self.ctx.take_error()
                    raise solver_stopped(rc, f"deciding seat {cur}'s turn")
                stock_before = st.stock_pos
                was_open = st.opened[cur]
                if d.kind == A_DRAW and stock_before == st.stock_len and not R.ends_hand:
                    d.kind = A_PASS   # (the State's Pass on an empty play-on stock)
                if d.kind == A_DRAW or d.kind == A_PASS:   # a turn without a play while able?
                    able = self.can_play(cur)
                    if able < -1:
                        self._finish(state, cur, total, rng, &f, melds, stands, plays, failed,
                                     drawn_n, max_table, hand_max, exhausted)
                        raise RuntimeError(f"can_play: the exact solver stopped (code {able})")
                    if able:
                        if d.kind == A_PASS:
                            able_passes[cur] += 1
                        else:
                            able_draws[cur] += 1
                end = apply_turn(R, st, cur, d, &f)
                st.failed_last[cur] = d.kind == A_FAIL
                if end == T_ASK:   # a full round added no card: can any seat play? (exact)
                    f.playable = any_seat_can_play(self.ctx.solver, R, st)
                    if f.playable < -1:
                        self._finish(state, cur, total, rng, &f, melds, stands, plays, failed,
                                     drawn_n, max_table, hand_max, exhausted)
                        raise RuntimeError(f"can_play: the exact solver stopped (code {f.playable})")
                    end = blocked_end(R, &f)
                total += 1
                played += 1
                # the records State.apply_action appends
                if d.kind == A_PLAY:
                    plays += 1
                    melds, stands = self.table()
                    if st.table_n > max_table:
                        max_table = st.table_n
                    if st.table_n > hand_max:
                        hand_max = st.table_n
                    placed = []
                    for c in range(NCARD):
                        for k in range(d.placed[c]):
                            placed.append(c)
                    placed = tuple(placed)
                    taken = (JOKER,) * d.taken if d.taken else _NO_CARDS
                    drawn = _NO_CARDS
                else:
                    if d.kind == A_FAIL:
                        failed += 1
                    placed = taken = _NO_CARDS
                    drawn = tuple([st.stock[i] for i in range(stock_before, st.stock_pos)])
                    drawn_n += st.stock_pos - stock_before
                    if st.stock_pos > stock_before and st.stock_pos >= st.stock_len:
                        exhausted = st.turn
                        if state.stock_exhausted_turn < 0:
                            state.stock_exhausted_turn = total
                action = _ACTIONS[d.kind]
                rec = new_record(TurnRecord)
                put(rec, "hand", st.hand_no)
                put(rec, "turn", st.turn)
                put(rec, "seat", cur)
                put(rec, "action", action)
                put(rec, "placed", placed)
                put(rec, "drawn", drawn)
                put(rec, "taken", taken)
                put(rec, "table", melds)
                history.append(rec)
                sizes = tuple([st.hand_n[s] for s in range(P)])
                t = new_record(PublicTurn)
                put(t, "turn", st.turn)
                put(t, "seat", cur)
                put(t, "action", action)
                put(t, "placed", placed)
                put(t, "taken", taken)
                put(t, "drawn", len(drawn))
                put(t, "hand_sizes", sizes)
                put(t, "opened", d.kind == A_PLAY and not was_open)
                public.append(t)
                if end >= 0:
                    break
                cur = (cur + 1) % P
                if first is not None:
                    first = None   # (the given turn is played)
                    if not more:
                        break
                if cur == learner or (limit >= 0 and total >= limit):
                    break
            self._finish(state, cur, total, rng, &f, melds, stands,
                         plays, failed, drawn_n, max_table, hand_max, exhausted)
            if end >= 0:
                state.current_player = cur
                self.synced = None
                state._end_hand(_ENDS[end], cur)
            if own and (not more or played == 1):
                return played
            own = False

    def expert(self, state, engine):
        """The play ``engine``'s strategy (an expert) finds for the seat to play in
        ``state`` from that seat's hand alone (the other hands empty, no stock card seen,
        random state 0): ``(placed card ids, jokers taken, melds, stands)``, None for no
        play, or NotImplemented where this object does not hold the State's position (it
        last wrote another State, or the State moved or was set since). fastmach.env.moves._expert
        asks the same of ``decide_position``."""
        cdef HState* st = &self.scratch
        cdef Decision* d = &self.dec
        cdef int P = self.players, seat, s, m, i
        cdef uint64_t rng = 0
        cdef Strategy strategy
        cdef Context ctx
        if state is not self.synced or state.total_turns != self.synced_turns \
                or state._hands is not self.synced_hands \
                or state._melds is not self.synced_melds or state._terminal:
            return NotImplemented
        seat = state.current_player
        strategy = <Strategy?>engine.seats[seat]
        ctx = strategy.ctx
        memcpy(st, &self.st, sizeof(HState))
        for s in range(P):
            if s != seat:
                memset(st.hands[s], 0, NCARD)
                st.hand_n[s] = 0
        st.stock_len = self.st.stock_len - self.st.stock_pos
        st.stock_pos = 0
        memset(st.stock, 0, MAX_DECK)
        st.deal_key = 0
        strategy.decide(st, seat, &rng, d)
        if ctx.rc:
            rc, err = ctx.take_error()
            raise solver_stopped(rc, f"deciding seat {seat}'s turn")
        if d.kind != A_PLAY:
            return None
        if ctx.R.srules.ace_high == 2:
            wit_split_wraps(&d.wit)
        return play_tuple(d)

    cdef void _finish(self, state, int cur, long long total, uint64_t rng, Flow* f,
                      melds, stands, int plays, int failed, int drawn_n, int max_table,
                      int hand_max, int exhausted) except *:
        """Write the position and the counters back into the State."""
        self.store(state)
        state.current_player = cur
        state.total_turns = total
        state.rng_state = rng
        state._noadd = f.noadd
        state._playable = None if f.playable < 0 else f.playable == 1
        state._melds = list(melds)
        state._stands = list(stands)
        state._issued = None
        state.hand_exhausted_turn = exhausted
        stats, hand_stats = state.stats, state.hand_stats
        if plays:
            stats["plays"] += plays
            hand_stats["plays"] += plays
        if failed:
            stats["failed"] += failed
            hand_stats["failed"] += failed
        if drawn_n:
            stats["cards_drawn"] += drawn_n
            hand_stats["cards_drawn"] += drawn_n
        if max_table > stats["max_table"]:
            stats["max_table"] = max_table
        if hand_max > hand_stats["max_table"]:
            hand_stats["max_table"] = hand_max
        self.synced, self.synced_turns = state, total
        self.synced_hands, self.synced_melds = state._hands, state._melds
