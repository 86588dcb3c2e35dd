# Whole games of Machiavelli in C: deal, turn loop, end rules, scoring, matches.
#
# The turn loop (Engine.play_hand) touches no Python object and runs without the GIL: C
# arrays for hands, table and stock, one Solver instance, a splitmix64 PRNG per game.
# Python (fastmach/engine.py) validates rules and strategies and builds the Engine; the
# deal of each hand comes from NumPy's Generator (so it is reproducible from
# (replicate, root_seed) on any machine), drawn with the GIL between hands.
#
# Model choices (documented in fastmach/engine.py as well):
# - a turn is PLAY, DRAW, PASS or FAIL; a strategy returns PLAY, DRAW or FAIL; DRAW with an
#   empty stock becomes PASS (stock_empty = play-on) or ends the hand (ends-hand).
# - play-on: a hand is blocked when `players` consecutive turns that began with an empty
#   stock added no card to the table.
# - a FAIL draws min(failed_penalty, stock left); under ends-hand a FAIL with an empty
#   stock ends the hand (the player must draw from an empty stock).
# - joker_swap = hand: a player who has opened may take back a table joker by putting the
#   real card it stands for (in the current meld list) in its place; the expert does it
#   when the play that follows places at least as many cards as the best play without it.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t
from libc.string cimport memset, memcpy
from libc.math cimport pow

import numpy as np
cimport numpy as cnp

from fastmach._solver cimport Solver, SolverRules, Witness, NCARD, JOKER, MAX_MELDS, MAX_TABLE

cnp.import_array()

cdef enum:
    MAX_PLAYERS = 8
    MAX_DECK = 164
    N_PARAMS = 4
    MAX_TURNS = 100000   # a hand longer than this is reported as an error (see play_batch)

# actions
cdef enum:
    A_PLAY = 0
    A_DRAW = 1
    A_PASS = 2
    A_FAIL = 3

# hand ends
cdef enum:
    E_EMPTIED = 0
    E_BLOCKED = 1
    E_STOCKOUT = 2

# strategy codes: keep in sync with fastmach/strategies.py REGISTRY
cdef enum:
    S_EXPERT = 0

STRATEGY_CODES = {"expert": S_EXPERT}
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


cdef struct Strat:
    int code
    double p[N_PARAMS]


cdef struct ERules:
    int players
    int deck_size
    int hand_size
    int swap_hand
    int may_draw
    int opening
    int penalty
    int ends_hand
    int lowest
    SolverRules srules
    int32_t hpts[NCARD]
    int32_t ones[NCARD]
    int32_t ones_j[16]
    int32_t open_w[NCARD]
    int32_t open_jw[16]
    int32_t open_scale


cdef struct HState:
    uint8_t hands[MAX_PLAYERS][NCARD]
    int hand_n[MAX_PLAYERS]
    uint8_t table[NCARD]
    int table_n
    Witness wit
    uint8_t stock[MAX_DECK]
    int stock_pos
    int stock_len
    int opened[MAX_PLAYERS]


cdef struct Decision:
    int kind
    uint8_t placed[NCARD]   # hand cards put on the table (swapped-in real cards included)
    int n_placed
    int taken               # jokers taken back into the hand (joker_swap = hand)
    Witness wit             # the table's melds after a PLAY


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


# ---------------------------------------------------------------- PRNG (splitmix64)
cdef inline uint64_t next_u64(uint64_t* s) noexcept nogil:
    cdef uint64_t z
    s[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double next_uniform(uint64_t* s) noexcept nogil:
    return <double>(next_u64(s) >> 11) * (1.0 / 9007199254740992.0)


def splitmix64(uint64_t state, int n):
    """The engine's PRNG, for tests: (new state, [n uniform floats in [0, 1)])."""
    cdef uint64_t s = state
    out = [next_uniform(&s) for _ in range(n)]
    return s, out


# ---------------------------------------------------------------- witness helpers
cdef inline void wit_clear(Witness* w) noexcept nogil:
    w.n_melds = 0
    w.start[0] = 0


cdef inline void wit_copy(Witness* dst, const Witness* src) noexcept nogil:
    cdef int n = src.start[src.n_melds]
    dst.n_melds = src.n_melds
    memcpy(dst.start, src.start, (src.n_melds + 1) * sizeof(int))
    memcpy(dst.cards, src.cards, n)
    memcpy(dst.stands, src.stands, n)


cdef inline void wit_append(Witness* dst, const Witness* src) noexcept nogil:
    cdef int m, i, base = dst.start[dst.n_melds]
    cdef int n = src.start[src.n_melds]
    memcpy(dst.cards + base, src.cards, n)
    memcpy(dst.stands + base, src.stands, n)
    for m in range(src.n_melds):
        dst.start[dst.n_melds + 1 + m] = base + src.start[m + 1]
    dst.n_melds += src.n_melds


cdef void sort_melds(const Witness* w, uint8_t* out) noexcept nogil:
    """Each meld's card ids sorted ascending (insertion sort, melds are short)."""
    cdef int m, i, j, a, b
    cdef uint8_t x
    for m in range(w.n_melds):
        a = w.start[m]
        b = w.start[m + 1]
        for i in range(a, b):
            x = w.cards[i]
            j = i - 1
            while j >= a and out[j] > x:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = x


cdef inline int take_subset(const uint8_t* a, int na, const uint8_t* b, uint8_t* used,
                            int nb, int mark) noexcept nogil:
    """1 if sorted multiset a fits in the unused entries of sorted b (marks them if mark)."""
    cdef int i = 0, j = 0
    while i < na:
        while j < nb and (used[j] or b[j] < a[i]):
            j += 1
        if j == nb or b[j] != a[i]:
            return 0
        if mark:
            used[j] = 1
        i += 1
        j += 1
    return 1


cdef int count_dissolved(const Witness* old, const Witness* new) noexcept nogil:
    """Table melds that a play broke up. An old meld is kept when its cards sit, all
    together, in one new meld (extending a meld or merging two keeps them; splitting a
    meld or taking a card from it does not); matched greedily in meld order."""
    cdef uint8_t so[MAX_TABLE]
    cdef uint8_t sn[MAX_TABLE]
    cdef uint8_t used[MAX_TABLE]
    cdef int m, k, a, na, b, nb, kept = 0
    sort_melds(old, so)
    sort_melds(new, sn)
    memset(used, 0, MAX_TABLE)
    for m in range(old.n_melds):
        a = old.start[m]
        na = old.start[m + 1] - a
        for k in range(new.n_melds):
            b = new.start[k]
            nb = new.start[k + 1] - b
            if nb >= na and take_subset(so + a, na, sn + b, used + b, nb, 0):
                take_subset(so + a, na, sn + b, used + b, nb, 1)
                kept += 1
                break
    return old.n_melds - kept


cdef void _fill_witness(Witness* w, melds) except *:
    cdef int i = 0, m = 0
    w.n_melds = 0
    w.start[0] = 0
    for meld in melds:
        for c in meld:
            w.cards[i] = c
            w.stands[i] = c
            i += 1
        m += 1
        w.start[m] = i
    w.n_melds = m


def dissolved(old_melds, new_melds):
    """How many of ``old_melds`` a table rearranged into ``new_melds`` broke up (the
    fallible player's count; for tests)."""
    cdef Witness a, b
    _fill_witness(&a, old_melds)
    _fill_witness(&b, new_melds)
    return count_dissolved(&a, &b)


cdef inline int total(const uint8_t* counts) noexcept nogil:
    cdef int c, n = 0
    for c in range(NCARD):
        n += counts[c]
    return n


# ---------------------------------------------------------------- the engine
cdef class Engine:
    """Rules + one strategy per seat + a Solver; plays hands and whole matches."""

    cdef ERules R
    cdef Strat seats[MAX_PLAYERS]
    cdef Solver solver
    cdef uint8_t empty[NCARD]
    # scratch for decisions (an Engine is used by one thread at a time)
    cdef HState st
    cdef Decision dec
    cdef Decision alt
    cdef Witness tmpwit
    cdef uint8_t t2[NCARD]
    cdef uint8_t h2[NCARD]
    cdef uint8_t swapped[NCARD]
    cdef readonly int match_kind      # 0 single, 1 rotations, 2 threshold
    cdef readonly int match_value
    cdef readonly int players
    cdef uint8_t deck[MAX_DECK]
    cdef int deck_counts[NCARD]
    cdef readonly bint checked        # verify the invariants after every turn (tests)
    cdef readonly int violation       # the first broken invariant (see VIOLATIONS)
    cdef readonly int solver_rc       # a solver failure (< -1) met during the hand

    def __init__(self, dict cfg):
        """cfg (built by fastmach.engine.engine_config): plain ints and arrays."""
        cdef int i, c, v
        self.solver = Solver()
        memset(&self.R, 0, sizeof(ERules))
        memset(self.empty, 0, NCARD)
        R = &self.R
        R.players = cfg["players"]
        R.deck_size = cfg["deck_size"]
        R.hand_size = cfg["hand_size"]
        R.swap_hand = cfg["swap_hand"]
        R.may_draw = cfg["may_draw"]
        R.opening = cfg["opening"]
        R.penalty = cfg["penalty"]
        R.ends_hand = cfg["ends_hand"]
        R.lowest = cfg["lowest"]
        R.srules.decks = cfg["decks"]
        R.srules.ace_high = cfg["ace_high"]
        R.srules.jokers_per_meld = cfg["jokers_per_meld"]
        if not (2 <= R.players <= MAX_PLAYERS) or R.deck_size > MAX_DECK:
            raise ValueError("engine: players or deck size out of range")
        hp = np.asarray(cfg["hand_points"], dtype=np.int64)
        # opening objective (fastmach.solver.opening_weights): points * scale + 1 per card,
        # a joker weighted as the card it stands for (by value 1..14)
        ow = np.asarray(cfg["opening_w"], dtype=np.int64)
        ojw = np.asarray(cfg["opening_jw"], dtype=np.int64)
        R.open_scale = cfg["opening_scale"]
        for c in range(NCARD):
            R.hpts[c] = hp[c]
            R.ones[c] = 1
            R.open_w[c] = ow[c]
        for v in range(16):
            R.ones_j[v] = 1
            R.open_jw[v] = ojw[v]
        deck = np.asarray(cfg["deck"], dtype=np.uint8)
        if len(deck) != R.deck_size:
            raise ValueError("engine: deck length differs from deck_size")
        memset(self.deck_counts, 0, sizeof(self.deck_counts))
        for i in range(R.deck_size):
            self.deck[i] = deck[i]
            self.deck_counts[deck[i]] += 1
        self.checked = bool(cfg.get("check", False))
        self.violation = 0
        self.solver_rc = 0
        self.players = R.players
        self.match_kind = cfg["match_kind"]
        self.match_value = cfg["match_value"]
        seats = cfg["seats"]
        if len(seats) != R.players:
            raise ValueError("engine: one strategy per seat")
        for i, (code, params) in enumerate(seats):
            self.seats[i].code = code
            for v in range(N_PARAMS):
                self.seats[i].p[v] = params[v] if v < len(params) else 0.0

    # ------------------------------------------------------------ strategies
    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """The seat's strategy chooses PLAY (d.placed, d.taken, d.wit), DRAW or FAIL.

        A new strategy (issue 4) is one more branch here: it reads the position (st: hands,
        table counts and meld list, stock left, opened flags), its parameters S.p[0..3]
        (the declared parameters of strategies.py, in order) and the game's PRNG (rng),
        and fills d. The engine then applies d the same way for every strategy."""
        cdef Strat* S = &self.seats[seat]
        if S.code == S_EXPERT:
            self.expert(st, seat, S, rng, d)
        else:
            d.kind = A_DRAW

    cdef void expert(self, HState* st, int seat, Strat* S, uint64_t* rng, Decision* d) noexcept nogil:
        cdef ERules* R = &self.R
        cdef uint8_t* hand = st.hands[seat]
        cdef int64_t best
        cdef int n, n2, i, c, nswap, cancel, diss
        cdef double pfail
        d.kind = A_DRAW
        d.taken = 0
        d.n_placed = 0
        memset(d.placed, 0, NCARD)
        if st.hand_n[seat] == 0:
            return
        if R.opening > 0 and not st.opened[seat]:
            # opening: melds from the hand only, worth >= opening (points of the cards,
            # a joker counted as the card it stands for); the best-scoring set is played
            best = self.solver.solve(self.empty, hand, &R.srules, R.open_w, R.open_jw,
                                     d.placed, &self.tmpwit)
            if best < -1:
                self.solver_rc = <int>best
                return
            n = total(d.placed) if best >= 0 else 0
            if n > 0 and best // R.open_scale >= R.opening:
                d.kind = A_PLAY
                d.n_placed = n
                wit_copy(&d.wit, &st.wit)
                wit_append(&d.wit, &self.tmpwit)
            else:
                memset(d.placed, 0, NCARD)
            return
        best = self.solver.solve(st.table, hand, &R.srules, R.ones, R.ones_j,
                                 d.placed, &d.wit)
        if best < -1:
            self.solver_rc = <int>best
            return
        n = total(d.placed) if best >= 0 else 0
        if best < 0:
            memset(d.placed, 0, NCARD)
        if R.swap_hand and st.table[JOKER] > 0:
            # take back every table joker whose card the player holds, then play
            memcpy(self.t2, st.table, NCARD)
            memcpy(self.h2, hand, NCARD)
            memset(self.swapped, 0, NCARD)
            nswap = 0
            for i in range(st.wit.start[st.wit.n_melds]):
                c = st.wit.stands[i]
                if st.wit.cards[i] == JOKER and c < JOKER and self.h2[c] > 0:
                    self.h2[c] -= 1
                    self.h2[JOKER] += 1
                    self.t2[c] += 1
                    self.t2[JOKER] -= 1
                    self.swapped[c] += 1
                    nswap += 1
            if nswap > 0:
                memset(self.alt.placed, 0, NCARD)
                best = self.solver.solve(self.t2, self.h2, &R.srules, R.ones, R.ones_j,
                                         self.alt.placed, &self.alt.wit)
                if best < -1:
                    self.solver_rc = <int>best
                    return
                if best >= 0:
                    n2 = total(self.alt.placed)   # net cards leaving the hand
                    if n2 >= n:
                        for c in range(NCARD):
                            d.placed[c] = self.swapped[c] + self.alt.placed[c]
                        # a taken joker put straight back is an ordinary move of it
                        cancel = d.placed[JOKER] if d.placed[JOKER] < nswap else nswap
                        d.placed[JOKER] -= cancel
                        d.taken = nswap - cancel
                        wit_copy(&d.wit, &self.alt.wit)
                        n = total(d.placed)
                        d.kind = A_PLAY
                        d.n_placed = n
        if n > 0:
            d.kind = A_PLAY
            d.n_placed = n
        if d.kind == A_PLAY and S.p[0] > 0.0 and st.wit.n_melds > 0:
            diss = count_dissolved(&st.wit, &d.wit)
            if diss > 0:
                pfail = 1.0 - pow(1.0 - S.p[0], diss)
                if next_uniform(rng) < pfail:
                    d.kind = A_FAIL

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
            if cnt[c] != self.deck_counts[c]:
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

    # ------------------------------------------------------------ one hand
    cdef int play_hand(self, const uint8_t* deck, int dealer, uint64_t* rng,
                       HandResult* res) noexcept nogil:
        cdef ERules* R = &self.R
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef int P = R.players, k, c, seat, cur, kind, avail, take, noadd = 0
        cdef int empty_at_start, i, best_pts, n_best, table_before
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
        res.stock_exhausted_turn = 0 if st.stock_len == 0 else -1
        res.winner = -1
        cur = (dealer + 1) % P
        res.first_player = cur
        while True:
            if res.turns >= MAX_TURNS:
                return -1
            empty_at_start = st.stock_pos == st.stock_len
            table_before = st.table_n
            self.decide(st, cur, rng, d)
            if self.solver_rc:
                return -3
            if self.checked and d.kind == A_PLAY and d.n_placed < 1:
                self.violation = 5
                return -2
            res.turns += 1
            kind = d.kind
            avail = st.stock_len - st.stock_pos
            if kind == A_PLAY:
                for c in range(NCARD):
                    st.hands[cur][c] -= d.placed[c]
                    st.table[c] += d.placed[c]
                st.hands[cur][JOKER] += d.taken
                st.table[JOKER] -= d.taken
                st.hand_n[cur] += d.taken - d.n_placed
                st.table_n += d.n_placed - d.taken
                wit_copy(&st.wit, &d.wit)
                st.opened[cur] = 1
                res.plays += 1
                noadd = 0
                if st.table_n > res.max_table:
                    res.max_table = st.table_n
                if st.hand_n[cur] == 0:
                    res.end = E_EMPTIED
                    res.winner = cur
                    break
            elif kind == A_DRAW:
                if avail > 0:
                    st.hands[cur][st.stock[st.stock_pos]] += 1
                    st.stock_pos += 1
                    st.hand_n[cur] += 1
                    res.cards_drawn += 1
                    if avail == 1:
                        res.stock_exhausted_turn = res.turns
                elif R.ends_hand:
                    res.end = E_STOCKOUT
                    break
            else:  # A_FAIL: table and hand untouched, penalty cards drawn
                res.failed += 1
                if avail == 0 and R.ends_hand:
                    res.end = E_STOCKOUT
                    break
                take = R.penalty if R.penalty < avail else avail
                for k in range(take):
                    st.hands[cur][st.stock[st.stock_pos]] += 1
                    st.stock_pos += 1
                st.hand_n[cur] += take
                res.cards_drawn += take
                if take > 0 and take == avail:
                    res.stock_exhausted_turn = res.turns
            if self.checked:
                if kind != A_PLAY and st.table_n != table_before:
                    self.violation = 6
                    return -2
                self.violation = self.check_state(st)
                if self.violation:
                    return -2
            if kind != A_PLAY and empty_at_start:
                noadd += 1
                if noadd >= P:
                    res.end = E_BLOCKED
                    break
            cur = (cur + 1) % P
        if self.checked:
            self.violation = self.check_state(st)
            if self.violation:
                return -2
        for seat in range(P):
            res.cards_left[seat] = st.hand_n[seat]
            res.points[seat] = 0
            for c in range(NCARD):
                res.points[seat] += st.hands[seat][c] * R.hpts[c]
        if res.end != E_EMPTIED and R.lowest:
            best_pts = res.points[0]
            n_best = 0
            for seat in range(P):
                if res.points[seat] < best_pts:
                    best_pts = res.points[seat]
            for seat in range(P):
                if res.points[seat] == best_pts:
                    n_best += 1
                    res.winner = seat
            if n_best > 1:
                res.winner = -1
        return 0

    # ------------------------------------------------------------ batches
    def play_batch(self, int64_t root_seed, replicates):
        """Play one game (a hand, or a whole match) per replicate; returns a dict of
        NumPy arrays, one row per replicate (the per-seat arrays are 2-D)."""
        cdef cnp.ndarray[cnp.int64_t, ndim=1] reps = np.ascontiguousarray(replicates, dtype=np.int64)
        cdef Py_ssize_t G = reps.shape[0], g
        cdef int P = self.R.players, h, s, rc, n_hands, w, best, nb
        cdef uint64_t rng_state
        cdef HandResult res
        cdef uint8_t hand_deck[MAX_DECK]
        cdef int dealer0, dealer
        cdef long long turn_base
        cdef const uint8_t[:] pv
        sorted_deck = np.asarray(<uint8_t[:self.R.deck_size]> self.deck).copy()
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
        for g in range(G):
            rng = np.random.default_rng(np.random.SeedSequence([int(reps[g]), int(root_seed)]))
            perm = rng.permutation(sorted_deck)
            dealer0 = int(rng.integers(P))
            rng_state = int(rng.integers(0, 2**64, dtype=np.uint64))
            o_dealer[g] = dealer0
            o_sx[g] = -1
            turn_base = 0
            h = 0
            while True:
                if h > 0:
                    perm = rng.permutation(sorted_deck)
                dealer = (dealer0 + h) % P
                pv = np.ascontiguousarray(perm, dtype=np.uint8)
                for s in range(self.R.deck_size):
                    hand_deck[s] = pv[s]
                with nogil:
                    rc = self.play_hand(hand_deck, dealer, &rng_state, &res)
                if rc == -3:
                    rc = self.solver_rc
                    self.solver_rc = 0
                    raise RuntimeError(
                        f"engine: the exact solver stopped ({'state limit' if rc == -4 else rc}) "
                        f"in hand {h} of replicate {reps[g]}; no move is guessed, the game "
                        "is not counted")
                if rc == -2:
                    raise RuntimeError(
                        f"engine invariant broken in hand {h} of replicate {reps[g]}: "
                        f"{VIOLATIONS[self.violation]}")
                if rc != 0:
                    raise RuntimeError(
                        f"engine: hand {h} of replicate {reps[g]} exceeded {MAX_TURNS} turns "
                        "(fallible players with failed_penalty=0 can stall a hand)")
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
                for s in range(P):
                    cl[g, s] = res.cards_left[s]
                    hp[g, s] = res.points[s]
                    sc[g, s] += res.points[s]
                turn_base += res.turns
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
                    if best >= self.match_value:
                        break
                if h >= 100000:
                    raise RuntimeError(f"engine: match of replicate {reps[g]} did not end")
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
        return out

    # ------------------------------------------------------------ one decision (State API)
    def decide_position(self, int seat, hands, table_melds, table_stands, opened,
                        int stock_left, uint64_t rng_state):
        """The seat's strategy decision in a position given as Python data.

        hands: P x 53 counts; table_melds / table_stands: the current meld list (card ids,
        and what each stands for); opened: per-seat flags. Returns (action, placed counts,
        taken jokers, melds after, stands after, new rng state); action in ACTIONS[:4].
        """
        cdef HState* st = &self.st
        cdef Decision* d = &self.dec
        cdef int P = self.R.players, s, c, i, m
        cdef uint64_t rng = rng_state
        memset(st, 0, sizeof(HState))
        wit_clear(&st.wit)
        for s in range(P):
            for c in range(NCARD):
                st.hands[s][c] = hands[s][c]
                st.hand_n[s] += hands[s][c]
            st.opened[s] = 1 if opened[s] else 0
        i = 0
        for m, meld in enumerate(table_melds):
            for k, c in enumerate(meld):
                st.wit.cards[i] = c
                st.wit.stands[i] = table_stands[m][k]
                st.table[c] += 1
                i += 1
            st.wit.start[m + 1] = i
        st.wit.n_melds = len(table_melds)
        st.table_n = i
        st.stock_len = stock_left
        with nogil:
            self.decide(st, seat, &rng, d)
        placed = np.array(<uint8_t[:NCARD]> d.placed, dtype=np.uint8)
        melds, stands = [], []
        if d.kind == A_PLAY:
            for m in range(d.wit.n_melds):
                melds.append([d.wit.cards[i] for i in range(d.wit.start[m], d.wit.start[m + 1])])
                stands.append([d.wit.stands[i] for i in range(d.wit.start[m], d.wit.start[m + 1])])
        return ACTIONS[d.kind], placed, d.taken, melds, stands, rng
