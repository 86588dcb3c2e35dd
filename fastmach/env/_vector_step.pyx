# N single-agent games held in C for their whole episodes (fastmach.env.fast: the Python
# side; fastmach.env.vector's engine="compiled"). Each game's position is the engine's C
# state (HState, fastmach/game/_turn.pxd): the other seats' compiled strategies decide and
# the engine's one game flow applies their turns (as fastmach.env._turns does, without the
# State's records), the learner's action is applied the same way, and the learner's action
# mask and observation row are written straight into the caller's NumPy arrays. The
# learner's plays are built here as fastmach.env.moves builds them (the expert's decision;
# the Python solve's solver, rules record and weights for the others). No Python State,
# Observation or Moves is built in a step, except for the mask under joker swaps
# (joker_swap = "hand" with a joker on the table: the Python builders on a light
# Observation of the C position) and where a C builder finds no play (the Python builder
# then answers, or names the fault). The end of a hand (scores, the next deal) is the
# reference State's, on the match's ledger (fastmach.env.fast: a callback, once a hand).
#
# tests/env/test_env_vector.py compares observations, masks, rewards and ends with the
# reference path (SingleAgentEnv games stepped in Python) over many steps and rule sets.
from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint64_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport calloc, free

from fastmach.core._solver cimport Solver, Witness, NCARD, JOKER
from fastmach.game._turn cimport (ERules, HState, Decision, Flow, A_PLAY, A_DRAW, A_PASS, A_FAIL,
                                  MAX_PLAYERS, T_ASK, wit_clear, wit_copy, wit_append, apply_turn, blocked_end,
                                  any_seat_can_play, seat_can_play)
from fastmach.game._ability cimport ability_rules
from fastmach.game._position cimport load_deal, load_play, play_tuple
from fastmach.strategies._base cimport Context, Strategy
from fastmach.strategies._reject cimport none_can_join
from fastmach.core._meldcheck cimport meld_ok

from fastmach.core import _batch
from fastmach.engine._engine import solver_stopped

DEF NACT = 9
DEF RING = 16       # the recent turns kept (2 * MAX_PLAYERS)
DEF MAXM = 64
DEF MAXL = 64
DEF RECENT_COLS = 9
# macro-actions (fastmach.env.moves)
DEF DRAW = 0
DEF MAX_CARDS = 1
DEF MAX_POINTS = 2
DEF KEEP_JOKERS = 3
DEF KEEP_FACES = 4
DEF KEEP_BOTH = 5
DEF ONE_CARD = 6
DEF OWN_MELDS = 7
DEF BOTCH = 8
# the parts' starts in ``off`` (fastmach.env.encoding.Layout.offsets)
DEF O_HAND = 0
DEF O_TABLE = 1
DEF O_JSTANDS = 2
DEF O_MELDS = 3
DEF O_STOCK = 4
DEF O_SIZES = 5
DEF O_SCORES = 6
DEF O_OPENED = 7
DEF O_PLACED = 8
DEF O_DRAWN = 9
DEF O_RECENT = 10
DEF O_PROGRESS = 11
DEF O_LEGAL = 12
DEF O_MAXPLAY = 13

cdef tuple _ENDS = ("emptied", "blocked", "stock-out")


cdef struct G:
    HState st
    Flow flow               # the hand's flow counters (noadd, playable: the State's)
    uint64_t rng            # the strategies' PRNG (State.rng_state)
    int cur                 # the seat to play
    long long total         # turns of the match
    int terminal
    int seat                # the learner's seat
    int placed[MAX_PLAYERS][NCARD]   # this hand's cards placed by each seat ...
    int drawn[MAX_PLAYERS]           # ... and drawn
    int n_pub                        # this hand's turns
    int r_seat[RING]                 # the last turns: seat, kind, placed, drawn, size after
    int r_kind[RING]
    int r_placed[RING]
    int r_drawn[RING]
    int r_size[RING]
    int8_t mask[NACT]                # the learner's mask (valid while mask_ok)
    int mask_ok
    int can                          # the expert's play exists
    Decision best                    # ... that play
    int8_t joins[NCARD]              # card c alone joins this table (-1 unknown)


cdef inline float _clip(double x) noexcept nogil:
    return <float>(1.0 if x > 1.0 else x)


cdef class Games:
    """``n`` games in C; the Python side (fastmach.env.fast.CompiledGames) deals, ends
    hands and builds the plays the C side does not."""

    cdef G* g
    cdef readonly int n
    cdef int players
    cdef ERules R                 # the game flow's rules (the strategies')
    cdef Solver solver            # ... their solver (who can play after a blocked round)
    cdef Context ctx
    cdef ERules AR                # the ability test's rules (the reference State's)
    cdef Solver asolver
    cdef HState scratch
    cdef list seats               # per game: the Strategy of every seat (the learner's unused)
    cdef list experts             # per game: the expert deciding the learner's max_cards
    cdef object owner             # the Python glue (hand ends, plays built in Python)
    cdef int64_t off[14]
    cdef double scale[7]
    cdef int recent_rows, max_melds, may_draw, may_pass, play_on, opening, swap_hand
    cdef uint8_t face[NCARD]
    cdef uint8_t neighbours[NCARD][NCARD]
    cdef int limit
    cdef bint m_ace_high, m_both_ends   # the meld check's rules (fastmach.core._meldcheck)
    cdef int32_t w_cards[NCARD]         # the Python solve's weights (fastmach.solver.exact
    cdef int32_t jw_cards[16]           # .weights): objective cards ...
    cdef int32_t w_points[NCARD]        # ... and points
    cdef int32_t jw_points[16]
    cdef int by_points[NCARD]           # card ids by hand points, most first (then by id)
    cdef int32_t w_open[NCARD]          # the opening's weights (exact.opening_weights) ...
    cdef int32_t jw_open[16]
    cdef int point_scale                # ... and scale
    cdef int open_points                # the rules' opening points
    cdef HState bare                    # an empty table
    cdef int m_jokers
    cdef readonly bint warn_illegal
    cdef readonly long long illegal_count
    cdef int raise_illegal

    def __cinit__(self, int n, *args):
        self.g = <G*>calloc(n, sizeof(G))
        if self.g == NULL:
            raise MemoryError()
        self.n = n

    def __dealloc__(self):
        free(self.g)

    def __init__(self, int n, engine, rules, owner, const int64_t[::1] off,
                 const double[::1] scale, int recent_rows, int max_melds,
                 const int64_t[:, ::1] neighbours, max_turns, bint raise_illegal,
                 const int32_t[::1] w_cards, const int32_t[::1] jw_cards,
                 const int32_t[::1] w_points, const int32_t[::1] jw_points,
                 const int64_t[::1] by_points, const int32_t[::1] w_open,
                 const int32_t[::1] jw_open, int point_scale):
        cdef int c, t
        for c in range(NCARD):
            self.w_open[c] = w_open[c]
        for c in range(16):
            self.jw_open[c] = jw_open[c]
        self.point_scale = point_scale
        self.open_points = rules.opening_points
        memset(&self.bare, 0, sizeof(HState))
        for c in range(NCARD):
            self.by_points[c] = by_points[c]
        for c in range(NCARD):
            self.w_cards[c] = w_cards[c]
            self.w_points[c] = w_points[c]
        for c in range(16):
            self.jw_cards[c] = jw_cards[c]
            self.jw_points[c] = jw_points[c]
        cdef Strategy s0 = <Strategy?>engine.seats[0]
        self.ctx = s0.ctx
        self.R = s0.ctx.R
        self.solver = s0.ctx.solver
        self.players = rules.players
        ability_rules(&self.AR, rules)
        self.asolver = _batch.python_solver()
        self.owner = owner
        self.seats = [None] * n
        self.experts = [None] * n
        for c in range(14):
            self.off[c] = off[c]
        for c in range(7):
            self.scale[c] = scale[c]
        self.recent_rows, self.max_melds = recent_rows, max_melds
        self.may_draw = rules.may_draw_when_able
        self.may_pass = rules.may_pass_when_able
        self.play_on = rules.stock_empty == "play-on"
        self.opening = rules.opening_points > 0
        self.swap_hand = rules.joker_swap == "hand"
        for c in range(NCARD):
            self.face[c] = c < 52 and c % 13 >= 10
            for t in range(NCARD):
                self.neighbours[c][t] = neighbours[c, t] != 0
        self.limit = -1 if max_turns is None else <int>max_turns
        self.m_ace_high = rules.ace_high
        self.m_both_ends = rules.ace_both_ends
        self.m_jokers = rules.jokers_per_meld
        self.raise_illegal = raise_illegal
        self.illegal_count = 0

    # ------------------------------------------------------------------ loading
    def load(self, int i, state, int seat, seats, expert):
        """Game i's position from the match's ledger (a fresh hand: its deal), the learner at
        ``seat``; ``seats``: the Strategy of every seat, ``expert``: the learner's."""
        cdef G* g = &self.g[i]
        cdef HState* st = &g.st
        self.seats[i] = list(seats)
        self.experts[i] = expert
        memset(g, 0, sizeof(G))
        wit_clear(&st.wit)
        g.seat = seat
        load_deal(st, state, self.players)
        g.rng = state.rng_state
        g.cur = state.current_player
        g.total = state.total_turns
        g.flow.playable = -1
        g.terminal = state._terminal
        memset(g.joins, -1, NCARD)

    def store(self, int i, state):
        """Game i's hands, turn, seat to play and PRNG into the match's ledger (before its
        end of hand)."""
        cdef G* g = &self.g[i]
        cdef int s, c
        cdef int64_t[:, ::1] hv = state._hands
        for s in range(self.players):
            for c in range(NCARD):
                hv[s, c] = g.st.hands[s][c]
        state._stock_pos = g.st.stock_pos
        state.turn = g.st.turn
        state.current_player = g.cur
        state.total_turns = g.total
        state.rng_state = g.rng

    def scores_from(self, int i, state):
        """After a match's last hand: its scores and hand index (what the final
        observation shows)."""
        cdef G* g = &self.g[i]
        cdef int s
        for s in range(self.players):
            g.st.scores[s] = state.scores[s]
        g.st.hand_no = state.hand_index
        g.terminal = 1

    def position(self, int i):
        """Game i's learner view for the Python builders: (hand ids, melds, stands, stock
        left, hand sizes, scores, opened flags, hand index, turn, failed_last, counts)."""
        cdef G* g = &self.g[i]
        cdef HState* st = &g.st
        cdef int P = self.players, s, c, k, m
        hand = []
        for c in range(NCARD):
            for k in range(st.hands[g.seat][c]):
                hand.append(c)
        melds, stands = [], []
        for m in range(st.wit.n_melds):
            melds.append(tuple([st.wit.cards[k] for k in range(st.wit.start[m], st.wit.start[m + 1])]))
            stands.append(tuple([st.wit.stands[k] for k in range(st.wit.start[m], st.wit.start[m + 1])]))
        return (tuple(hand), tuple(melds), tuple(stands), st.stock_len - st.stock_pos,
                tuple([st.hand_n[s] for s in range(P)]), tuple([st.scores[s] for s in range(P)]),
                tuple([st.opened[s] != 0 for s in range(P)]), st.hand_no, st.turn + 1,
                [st.failed_last[s] != 0 for s in range(P)],
                [st.hands[g.seat][c] for c in range(NCARD)])

    def expert_play(self, int i):
        """The learner's max_cards play as Turns.expert gives it (placed, taken, melds,
        stands), None without one (the mask computed first)."""
        cdef G* g = &self.g[i]
        self.mask_of(i)
        if not g.can:
            return None
        return play_tuple(&g.best)

    def terminal(self, int i):
        return bool(self.g[i].terminal)

    def current(self, int i):
        return self.g[i].cur

    # ------------------------------------------------------------------ turns
    cdef int record(self, G* g, int cur, const Decision* d, int stock_before) noexcept:
        """This hand's public tallies and recent turns after seat cur's turn d."""
        cdef HState* st = &g.st
        cdef int c, k = g.n_pub % RING, dn = st.stock_pos - stock_before
        if d.kind == A_PLAY:
            for c in range(NCARD):
                g.placed[cur][c] += d.placed[c]
            dn = 0
            memset(g.joins, -1, NCARD)   # (a new table)
        g.drawn[cur] += dn
        g.r_seat[k] = cur
        g.r_kind[k] = d.kind
        g.r_placed[k] = d.n_placed if d.kind == A_PLAY else 0
        g.r_drawn[k] = dn
        g.r_size[k] = st.hand_n[cur]
        g.n_pub += 1
        return 0

    cdef int turn(self, int i, G* g, Decision* d) except -3:
        """Apply d for the seat to play (the game flow of fastmach.env._turns): the hand's
        end (0..2), or -1."""
        cdef HState* st = &g.st
        cdef int cur = g.cur, end, stock_before = st.stock_pos
        if d.kind == A_DRAW and stock_before == st.stock_len and not self.R.ends_hand:
            d.kind = A_PASS
        cdef Flow* f = &g.flow
        end = apply_turn(&self.R, st, cur, d, f)
        st.failed_last[cur] = d.kind == A_FAIL
        if end == T_ASK:
            f.playable = any_seat_can_play(self.solver, &self.R, st)
            if f.playable < -1:
                raise RuntimeError(f"can_play: the exact solver stopped (code {f.playable})")
            end = blocked_end(&self.R, f)
        g.total += 1
        self.record(g, cur, d, stock_before)
        g.mask_ok = 0
        if end < 0:
            g.cur = (cur + 1) % self.players
        return end

    cdef double others(self, int i, G* g, bint limited) except? -1e300:
        """Play the other seats until the learner's turn, the end, or (``limited``) the
        turn limit; the learner's reward from the hands that end."""
        cdef double reward = 0.0
        cdef int end
        cdef Decision d
        cdef Strategy strategy
        cdef list seats = <list>self.seats[i]
        while not g.terminal and g.cur != g.seat and not (
                limited and self.limit >= 0 and g.total >= self.limit):
            strategy = <Strategy>seats[g.cur]
            strategy.decide(&g.st, g.cur, &g.rng, &d)
            if strategy.ctx.rc:
                rc, err = strategy.ctx.take_error()
                raise solver_stopped(rc, f"deciding seat {g.cur}'s turn")
            end = self.turn(i, g, &d)
            if end >= 0:
                reward += self.owner.hand_over(i, _ENDS[end])
        return reward

    def play_others(self, int i, bint limited=False):
        """The other seats' turns of game i (reset), as ``others``."""
        return self.others(i, &self.g[i], limited)

    # ------------------------------------------------------------------ the mask
    cdef int holding_can(self, G* g, const uint8_t* hand, bint opened, bint bare) except -2:
        """The ability test of fastmach.env._probe (Probe.ask) on this table."""
        cdef HState* st = &self.scratch
        cdef int c, k
        memset(st, 0, sizeof(HState))
        wit_clear(&st.wit)
        if not bare:
            memcpy(st.table, g.st.table, NCARD)
            st.table_n = g.st.table_n
            st.wit = g.st.wit
        memcpy(st.hands[0], hand, NCARD)
        for c in range(NCARD):
            st.hand_n[0] += hand[c]
        st.opened[0] = opened
        cdef const uint8_t* table = &st.table[0]
        if self.AR.opening and not opened:
            memset(st.table, 0, NCARD)   # (the bare table: a state with no melds loaded)
            st.table_n = 0
            wit_clear(&st.wit)
            table = &st.table[0]
        if none_can_join(table, st.hands[0], st.hands[0], self.AR.srules.ace_high):
            return 0
        k = seat_can_play(self.asolver, &self.AR, st, 0)
        if k < -1:
            raise RuntimeError(f"can_play: the exact solver stopped (code {k})")
        return k == 1

    cdef int sub_can(self, G* g, int kind) except -2:
        """Whether the holding of macro-action ``kind`` (its cards held back) can play."""
        cdef uint8_t h[NCARD]
        cdef int c, any_ = 0
        cdef const uint8_t* hand = g.st.hands[g.seat]
        for c in range(NCARD):
            h[c] = hand[c]
            if (kind == KEEP_JOKERS or kind == KEEP_BOTH) and c == JOKER:
                h[c] = 0
            if (kind == KEEP_FACES or kind == KEEP_BOTH) and self.face[c]:
                h[c] = 0
            any_ |= h[c]
        if not any_:
            return 0
        if g.st.opened[g.seat]:   # (an opened seat holding a card that joins alone can play)
            for c in range(NCARD):
                if h[c] and g.joins[c] < 0 and self.lays_off(g, c):
                    g.joins[c] = 1
                if h[c] and g.joins[c] == 1:
                    return 1
        return self.holding_can(g, h, g.st.opened[g.seat], 0)

    cdef int lays_off(self, G* g, int card) noexcept:
        """Whether ``card`` added to one table meld makes a valid meld (the meld check):
        then it joins the table (a sufficient test, without the solver)."""
        cdef HState* st = &g.st
        cdef int buf[MAXL + 1]
        cdef int m, k, a, n
        for m in range(st.wit.n_melds):
            a = st.wit.start[m]
            n = st.wit.start[m + 1] - a
            if n >= MAXL:
                continue
            for k in range(n):
                buf[k] = st.wit.cards[a + k]
            buf[n] = card
            if meld_ok(buf, n + 1, self.m_ace_high, self.m_jokers, self.m_both_ends):
                return 1
        return 0

    cdef int joins_table(self, G* g, int card) except -2:
        """Whether ``card`` alone joins the table (Probe.joins), remembered per table
        (a card that lays off onto a meld joins without the solver's question)."""
        cdef uint8_t h[NCARD]
        if g.joins[card] < 0:
            if self.lays_off(g, card):
                g.joins[card] = 1
            else:
                memset(h, 0, NCARD)
                h[card] = 1
                g.joins[card] = self.holding_can(g, h, 1, 0)
        return g.joins[card]

    cdef int expert(self, int i, G* g) except -1:
        """The expert's play from the learner's hand alone (Turns.expert) into g.best."""
        cdef HState* st = &self.scratch
        cdef Decision* d = &g.best
        cdef int s, seat = g.seat
        cdef uint64_t rng = 0
        cdef Strategy strategy = <Strategy>self.experts[i]
        memcpy(st, &g.st, sizeof(HState))
        for s in range(self.players):
            if s != seat:
                memset(st.hands[s], 0, NCARD)
                st.hand_n[s] = 0
        st.stock_len = g.st.stock_len - g.st.stock_pos
        st.stock_pos = 0
        memset(st.stock, 0, sizeof(st.stock))
        st.deal_key = 0
        strategy.decide(st, seat, &rng, d)
        if strategy.ctx.rc:
            rc, err = strategy.ctx.take_error()
            raise solver_stopped(rc, f"deciding seat {seat}'s turn")
        g.can = d.kind == A_PLAY
        return 0

    cdef int mask_of(self, int i) except -1:
        """The learner's mask (fastmach.env.moves.Moves._compute_mask) into g.mask."""
        cdef G* g = &self.g[i]
        cdef HState* st = &g.st
        cdef int8_t* m = g.mask
        cdef const uint8_t* hand = st.hands[g.seat]
        cdef int c, t, jokers, faces, swaps, closed, can, no_joker = 0, no_face = 0, both
        cdef int laid, passing, allowed, present_joker
        if g.mask_ok:
            return 0
        memset(m, 0, NACT)
        g.mask_ok = 1
        if g.terminal or g.cur != g.seat:
            g.can = 0
            return 0
        jokers = hand[JOKER] > 0
        faces = 0
        for c in range(NCARD):
            if hand[c] and self.face[c]:
                faces = 1
        swaps = 0
        closed = self.opening and not st.opened[g.seat]
        if self.swap_hand and st.opened[g.seat]:
            for c in range(st.wit.start[st.wit.n_melds]):
                if st.wit.cards[c] == JOKER:
                    swaps = 1
        g.can = 0
        if st.hand_n[g.seat]:
            self.expert(i, g)
        can = g.can
        laid = can and g.best.taken == 0
        if laid:
            no_joker = g.best.placed[JOKER] == 0
            no_face = 1
            for c in range(NCARD):
                if g.best.placed[c] and self.face[c]:
                    no_face = 0
        both = can and not swaps and (jokers or faces) and (
            (no_joker and no_face) or self.sub_can(g, KEEP_BOTH))
        passing = st.stock_pos == st.stock_len and self.play_on
        allowed = self.may_pass if passing else self.may_draw
        m[DRAW] = allowed or not can
        if not can:
            return 0
        m[MAX_CARDS] = m[BOTCH] = 1
        if swaps:
            built = self.owner.built(i, (MAX_POINTS, KEEP_JOKERS, KEEP_FACES, KEEP_BOTH))
            for c in range(4):
                m[MAX_POINTS + c] = built[c]
        else:
            m[MAX_POINTS] = 1
            m[KEEP_BOTH] = both if (jokers or faces) else can
            m[KEEP_JOKERS] = both or not jokers or (
                (no_joker or self.sub_can(g, KEEP_JOKERS)) if faces else both)
            m[KEEP_FACES] = both or not faces or (
                (no_face or self.sub_can(g, KEEP_FACES)) if jokers else both)
        if closed:
            m[OWN_MELDS] = 1
            return 0
        m[OWN_MELDS] = self.holding_can(g, hand, 1, 1)
        if swaps:
            m[ONE_CARD] = self.owner.built(i, (ONE_CARD,))[0]
        elif st.wit.n_melds:
            m[ONE_CARD] = self.one_joins(g, hand)
        return 0

    cdef int one_joins(self, G* g, const uint8_t* hand) except -2:
        """Whether some hand card alone joins the table (the mask's one_card; the cards
        with no neighbour on a table without jokers cannot). The cheap answers first: the
        expert's play of one card, a card known to join or laid off onto a meld; then the
        solver's question, card by card."""
        cdef HState* st = &g.st
        cdef int c, t, n = 0
        cdef int cand[NCARD]
        cdef bint present_joker = st.table[JOKER] > 0
        if g.can and g.best.n_placed == 1 and g.best.taken == 0:
            return 1   # (the expert's play is one card joining the table)
        for c in range(NCARD):
            if not hand[c]:
                continue
            if not present_joker:
                for t in range(NCARD):
                    if st.table[t] and self.neighbours[c][t]:
                        break
                else:
                    continue
            if g.joins[c] == 1:
                return 1
            if g.joins[c] < 0:
                if self.lays_off(g, c):
                    g.joins[c] = 1
                    return 1
                cand[n] = c
                n += 1
        for t in range(n):
            if self.joins_table(g, cand[t]):
                return 1
        return 0

    # ------------------------------------------------------------------ the row
    cdef void fill(self, G* g, float* out, Py_ssize_t size) noexcept:
        """The learner's observation (fastmach.env._encode.fill) from the C position."""
        cdef HState* st = &g.st
        cdef const int64_t* off = self.off
        cdef int P = self.players, me = g.seat, k, s, c, i, j, n, nm, a, b, tmp, better
        cdef int R = self.recent_rows, q, start
        cdef double ic = self.scale[0], idk = self.scale[1], ij = self.scale[2]
        cdef double isc = self.scale[3], iseat = self.scale[4], ihand = self.scale[5]
        cdef double iturn = self.scale[6]
        cdef int cards[MAXM][MAXL]
        cdef int lens[MAXM]
        cdef int order[MAXM]
        cdef bint mover = not g.terminal and g.cur == g.seat
        memset(out, 0, size * sizeof(float))
        for c in range(NCARD):
            for k in range(st.hands[me][c]):
                out[off[O_HAND] + c] += <float>ic
        nm = st.wit.n_melds
        for i in range(nm):
            n = st.wit.start[i + 1] - st.wit.start[i]
            lens[i] = n
            for j in range(n):
                c = st.wit.cards[st.wit.start[i] + j]
                k = j
                while k > 0 and cards[i][k - 1] > c:
                    cards[i][k] = cards[i][k - 1]
                    k -= 1
                cards[i][k] = c
            order[i] = i
        for i in range(1, nm):
            tmp = order[i]
            k = i
            while k > 0:
                a = order[k - 1]
                better = 0
                j = 0
                while True:
                    if j == lens[tmp] or j == lens[a]:
                        better = lens[tmp] < lens[a]
                        break
                    if cards[tmp][j] != cards[a][j]:
                        better = cards[tmp][j] < cards[a][j]
                        break
                    j += 1
                if not better:
                    break
                order[k] = a
                k -= 1
            order[k] = tmp
        for i in range(nm):
            a = order[i]
            for j in range(lens[a]):
                c = cards[a][j]
                out[off[O_MELDS] + i * NCARD + c] += <float>ic
                out[off[O_TABLE] + c] += <float>ic
        for i in range(st.wit.start[nm]):
            if st.wit.cards[i] == JOKER:
                out[off[O_JSTANDS] + st.wit.stands[i]] += <float>ij
        out[off[O_STOCK]] = _clip((st.stock_len - st.stock_pos) * idk)
        for k in range(P):
            s = (me + k) % P
            out[off[O_SIZES] + k] = _clip(st.hand_n[s] * idk)
            out[off[O_SCORES] + k] = _clip(st.scores[s] * isc)
            out[off[O_OPENED] + k] = 1.0 if st.opened[s] else 0.0
            for c in range(NCARD):
                if g.placed[s][c]:
                    out[off[O_PLACED] + k * NCARD + c] = _clip(g.placed[s][c] * ic)
            out[off[O_DRAWN] + k] = _clip(g.drawn[s] * idk)
        n = g.n_pub
        start = n - R if n > R else 0
        j = R - (n - start)
        for i in range(start, n):
            q = i % RING
            s = g.r_seat[q]
            k = off[O_RECENT] + j * RECENT_COLS
            out[k] = 1.0
            out[k + 1] = <float>(((s - me) % P + P) % P * iseat)
            out[k + 2 + g.r_kind[q]] = 1.0
            out[k + 6] = _clip(g.r_placed[q] * idk)
            out[k + 7] = _clip(g.r_drawn[q] * idk)
            out[k + 8] = _clip(g.r_size[q] * idk)
            j += 1
        out[off[O_PROGRESS]] = _clip(st.hand_no * ihand)
        out[off[O_PROGRESS] + 1] = _clip((st.turn + 1) * iturn)
        if mover:
            for k in range(NACT):
                out[off[O_LEGAL] + k] = 1.0 if g.mask[k] else 0.0
            if g.mask[MAX_CARDS] and g.can and st.hand_n[me]:
                a = st.hand_n[me]
                b = a - g.best.n_placed + g.best.taken
                out[off[O_MAXPLAY]] = _clip(g.best.n_placed / <double>a)
                out[off[O_MAXPLAY] + 1] = _clip(1.0 if b == 0 else 0.0)

    def row(self, int i, float[:, ::1] obs, int r, uint8_t[:, ::1] masks):
        """Game i's observation into ``obs[r]`` and its mask into ``masks[r]``."""
        cdef G* g = &self.g[i]
        cdef int k
        self.mask_of(i)
        if obs.shape[1] != self.off[O_MAXPLAY] + 2:
            raise ValueError("row: obs rows are not of the layout's size")
        self.fill(g, &obs[r, 0], obs.shape[1])
        for k in range(NACT):
            masks[r, k] = 1 if (g.mask[k] and not g.terminal and g.cur == g.seat) else 0

    # ------------------------------------------------------------------ the step
    cdef int learner(self, int i, G* g, long action, double* reward) except -1:
        """Apply the learner's ``action`` (its illegal flag returned), then the others'
        turns (limited); its reward into ``reward``."""
        cdef Decision d
        cdef int end, k, illegal = 0
        cdef double r = 0.0
        self.mask_of(i)
        if action < 0 or action >= NACT or not g.mask[action]:
            if self.raise_illegal:
                self.owner.refuse(i, action, [k for k in range(NACT) if g.mask[k]])
            illegal = 1
            self.illegal_count += 1
            if g.mask[DRAW]:
                action = DRAW
            else:
                for k in range(NACT):
                    if g.mask[k]:
                        action = k
                        break
        if action == DRAW:
            d.kind = A_DRAW
            d.n_placed = d.taken = d.touched = 0
            memset(d.placed, 0, NCARD)
        elif action == BOTCH:
            d.kind = A_FAIL
            d.n_placed = d.taken = d.touched = 0
            memset(d.placed, 0, NCARD)
        elif action == MAX_CARDS:
            memcpy(&d, &g.best, sizeof(Decision))
        elif not (((MAX_POINTS <= action <= KEEP_BOTH) and self.solved(g, action, &d))
                  or (action == ONE_CARD and self.one_card(g, &d))
                  or (action == OWN_MELDS and self.own_melds(g, &d))):
            self.given(&d, self.owner.build(i, action))
        end = self.turn(i, g, &d)
        if end >= 0:
            r += self.owner.hand_over(i, _ENDS[end])
        r += self.others(i, g, True)
        reward[0] = r
        return illegal

    cdef int solved(self, G* g, long action, Decision* d) except -1:
        """The play of a holding action as fastmach.env.moves._solved builds it (the
        Python solve: its solver, rules record and weights, on the table's counts; a
        closed seat's opening: melds_of) into d: 1, or 0 where the Python builder is to
        answer (nothing placed, a solver error)."""
        cdef HState* st = &g.st
        cdef const uint8_t* hand = st.hands[g.seat]
        cdef uint8_t h[NCARD]
        cdef int c
        cdef int64_t total
        for c in range(NCARD):
            h[c] = hand[c]
            if (action == KEEP_JOKERS or action == KEEP_BOTH) and c == JOKER:
                h[c] = 0
            if (action == KEEP_FACES or action == KEEP_BOTH) and self.face[c]:
                h[c] = 0
        if self.opening and not st.opened[g.seat]:
            return self.melds_of(g, h, self.open_points, d)
        memset(d.placed, 0, NCARD)
        if action == MAX_POINTS:
            total = self.asolver.solve(st.table, h, &self.AR.srules, self.w_points,
                                       self.jw_points, d.placed, &d.wit)
        else:
            total = self.asolver.solve(st.table, h, &self.AR.srules, self.w_cards,
                                       self.jw_cards, d.placed, &d.wit)
        if total < 0:
            return 0
        d.kind = A_PLAY
        d.n_placed = 0
        d.taken = 0
        d.touched = 0
        for c in range(NCARD):
            d.n_placed += d.placed[c]
        return d.n_placed > 0

    cdef int own_melds(self, G* g, Decision* d) except -1:
        """The own_melds play (fastmach.env.moves._opening from the whole hand: the
        opening, or any melds of an opened seat) into d: 1, or 0 (the Python builder)."""
        cdef bint closed = self.opening and not g.st.opened[g.seat]
        return self.melds_of(g, g.st.hands[g.seat], self.open_points if closed else 1, d)

    cdef int melds_of(self, G* g, const uint8_t* h, int threshold, Decision* d) except -1:
        """New melds of the holding ``h`` alone worth ``threshold`` opening points,
        appended to the table (fastmach.env.moves._opening: the Python solve's opening)
        into d: 1, or 0 where the Python builder is to answer."""
        cdef Witness tmp
        cdef int64_t total
        cdef int c
        memset(d.placed, 0, NCARD)
        total = self.asolver.solve(self.bare.table, h, &self.AR.srules, self.w_open,
                                   self.jw_open, d.placed, &tmp)
        if total < 0:
            return 0
        d.n_placed = 0
        for c in range(NCARD):
            d.n_placed += d.placed[c]
        if d.n_placed == 0 or total // self.point_scale < threshold:
            return 0
        d.kind = A_PLAY
        d.taken = 0
        d.touched = 0
        wit_copy(&d.wit, &g.st.wit)
        wit_append(&d.wit, &tmp)
        return 1

    cdef int one_card(self, G* g, Decision* d) except -1:
        """The one_card play as fastmach.env.moves._one_card builds it (the hand's cards by
        points, the first the Python solve places alone) into d: 1, or 0 where the Python
        builder is to answer (a solver error, no such card)."""
        cdef HState* st = &g.st
        cdef const uint8_t* hand = st.hands[g.seat]
        cdef uint8_t h[NCARD]
        cdef int k, c
        cdef int64_t total
        if (self.opening and not st.opened[g.seat]) or not st.wit.n_melds:
            return 0
        memset(h, 0, NCARD)
        for k in range(NCARD):
            c = self.by_points[k]
            if not hand[c]:
                continue
            h[c] = 1
            memset(d.placed, 0, NCARD)
            total = self.asolver.solve(st.table, h, &self.AR.srules, self.w_cards,
                                       self.jw_cards, d.placed, &d.wit)
            h[c] = 0
            if total < 0:
                return 0
            if d.placed[c]:
                d.kind = A_PLAY
                d.n_placed = 1
                d.taken = 0
                d.touched = 0
                return 1
        return 0

    cdef void given(self, Decision* d, tuple first) except *:
        """d from a play built in Python: (placed ids, jokers taken, melds, stands)."""
        load_play(d, first[0], first[1], first[2], first[3])

    def step(self, const int64_t[::1] actions, float[:, ::1] obs, uint8_t[:, ::1] masks,
             double[::1] rewards, uint8_t[::1] term, uint8_t[::1] trunc,
             uint8_t[::1] illegal, uint8_t[::1] ended, float[:, ::1] final):
        """One action per game; the arrays filled (an ended game's last row into
        ``final``, the game dealt again by the owner's ``restart``)."""
        cdef int i, k
        cdef G* g
        cdef double r
        cdef Py_ssize_t size = obs.shape[1]
        if actions.shape[0] != self.n or obs.shape[0] != self.n:
            raise ValueError("step: arrays of another length than the games'")
        if size != self.off[O_MAXPLAY] + 2:
            raise ValueError("step: obs rows are not of the layout's size")
        for i in range(self.n):
            g = &self.g[i]
            if g.terminal:
                raise ValueError(f"step: game {i} is over (call reset)")
            illegal[i] = self.learner(i, g, actions[i], &r)
            rewards[i] = r
            term[i] = g.terminal
            trunc[i] = not g.terminal and self.limit >= 0 and g.total >= self.limit
            ended[i] = term[i] or trunc[i]
            if ended[i]:
                g.mask_ok = 0
                self.mask_of(i)
                self.fill(g, &final[i, 0], size)
                self.owner.restart(i)
                g = &self.g[i]
            self.mask_of(i)
            self.fill(g, &obs[i, 0], size)
            for k in range(NACT):
                masks[i, k] = 1 if (g.mask[k] and not g.terminal and g.cur == g.seat) else 0
