# The game's state in C, shared by the strategies and the engine: the position a seat
# decides on (HState), a decision (Decision), the rules as plain ints (ERules), the PRNG,
# meld-list helpers, and the one game flow: apply_turn (a decision's effect on the
# position) and hand_end (points and winner), used by whole games (fastmach.engine) and by
# lookahead playouts (fastmach.strategies._lookahead) alike.
#
# Model choices (documented in fastmach/engine/__init__.py as well):
# - a turn is PLAY, DRAW, PASS or FAIL; a strategy returns PLAY, DRAW or FAIL; DRAW with an
#   empty stock becomes PASS (stock_empty = play-on) or ends the hand (ends-hand).
# - play-on: after `players` consecutive turns that began with an empty stock and added no
#   card (a full round), the hand is blocked: at once under blocked_when = round (000);
#   under nobody-can-play when no seat can add a card (the exact solver: a fact of the
#   position, not of the players' skill); else play goes on, and the hand is blocked
#   anyway after BLOCK_ROUNDS such rounds (only players who cannot see their plays, or
#   keep botching them, remain). apply_turn returns T_ASK at the first such round: the
#   caller asks any_seat_can_play, sets Flow.playable, and calls blocked_end.
# - ace low or high, never both (srules.ace_high = 2): a play's 14-card run is laid as
#   two runs (_solver.wit_split_wraps), whoever made it.
# - a FAIL draws min(failed_penalty, stock left); under ends-hand a FAIL with an empty
#   stock ends the hand (the player must draw from an empty stock).
from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy, memmove, memcmp

from fastmach.core._solver cimport (Solver, SolverRules, Witness, NCARD, JOKER, MAX_MELDS,
                                    MAX_TABLE, wit_split_wraps)

cdef enum:
    MAX_PLAYERS = 8
    MAX_DECK = 164
    PATIENCE_STOCK = 10  # a patient player waits while the stock holds at least this many
    MAX_TURNS = 100000   # a hand longer than this is reported as an error (see play_batch)
    BLOCK_ROUNDS = 10    # full rounds without an added card after which a hand is blocked
                         # even though a seat could play (see blocked_end)
    T_ASK = -2           # apply_turn: a full round added no card; ask who can play

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

# Context.rc: a strategy stopped the hand (the solver's codes are < -1)
cdef enum:
    RC_PYTHON = -100     # a Python bot raised or returned an illegal action


cdef struct ERules:
    int players
    int deck_size
    int hand_size
    int swap_hand
    int may_draw
    int may_pass            # with an empty stock, a player able to play may pass
    int opening
    int penalty
    int ends_hand
    int block_round         # blocked_when = round: a full round without an added card
                            # ends the hand (else only when no seat can play)
    int lowest
    int ties_shared         # tied lowest hands share the win (else nobody wins)
    int winner_takes        # scoring: a hand's winners score the others' points (else penalties)
    SolverRules srules
    int32_t hpts[NCARD]
    int32_t ones[NCARD]
    int32_t ones_j[16]
    int32_t open_w[NCARD]
    int32_t open_jw[16]
    int32_t open_scale
    int32_t pw[NCARD]       # objective=points: hand points * point scale + 1 (ties to more cards)
    int32_t pw_j[16]
    int deck_counts[NCARD]  # copies of each card in the deck


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
    int failed_last[MAX_PLAYERS]   # the seat's previous turn was a FAIL
    int hand_no                    # the hand's index in the match
    int turn                       # turns played in this hand
    int scores[MAX_PLAYERS]        # match scores before this hand
    uint64_t deal_key              # the game's PRNG state when this hand was dealt (mixed
                                   # players draw their member of the hand from it)


cdef struct Decision:
    int kind
    uint8_t placed[NCARD]   # hand cards put on the table (swapped-in real cards included)
    int n_placed
    int taken               # jokers taken back into the hand (joker_swap = hand)
    int touched             # intact table melds laid off onto (beginner, intermediate)
    Witness wit             # the table's melds after a PLAY


cdef struct Flow:
    # a hand's counters beyond the position (apply_turn keeps them)
    int noadd                  # turns in a row, begun with an empty stock, adding no card
    int turns
    int stock_exhausted_turn   # 1-based turn that drew the last stock card, 0 = no stock, -1
    int cards_drawn
    int plays
    int failed
    int max_table
    int playable               # -1 unknown, 0 no seat can add a card, 1 one can (exact)


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


cdef inline void wit_push(Witness* dst, const Witness* src, int m) noexcept nogil:
    """Append meld m of src to dst."""
    cdef int a = src.start[m], n = src.start[m + 1] - src.start[m]
    cdef int base = dst.start[dst.n_melds]
    memcpy(dst.cards + base, src.cards + a, n)
    memcpy(dst.stands + base, src.stands + a, n)
    dst.n_melds += 1
    dst.start[dst.n_melds] = base + n


cdef inline void wit_insert(Witness* w, int m, int pos, int card, int stand) noexcept nogil:
    """Insert a card (standing for `stand`) at index pos, inside meld m."""
    cdef int i, n = w.start[w.n_melds]
    memmove(w.cards + pos + 1, w.cards + pos, n - pos)
    memmove(w.stands + pos + 1, w.stands + pos, n - pos)
    w.cards[pos] = card
    w.stands[pos] = stand
    for i in range(m + 1, w.n_melds + 1):
        w.start[i] += 1


cdef inline int64_t placed_weight(const uint8_t* placed, const int32_t* w,
                                  const int32_t* jw) noexcept nogil:
    """Objective value of placed hand cards (the jokers' weight does not depend on the
    value they stand for in the strategies' objectives)."""
    cdef int c
    cdef int64_t v = <int64_t>placed[JOKER] * jw[1]
    for c in range(JOKER):
        v += <int64_t>placed[c] * w[c]
    return v


cdef inline bint may_decline(const ERules* R, const HState* st) noexcept nogil:
    """Whether a seat able to play may take a turn without a play instead: a draw while the
    stock holds cards (may_draw_when_able), a pass on an empty play-on stock
    (may_pass_when_able). The one test of it in C (Python: fastmach.game.flow.declining_rule)."""
    if st.stock_pos < st.stock_len or R.ends_hand:
        return R.may_draw
    return R.may_pass


cdef inline void set_draw(Decision* d) noexcept nogil:
    """A fresh decision: draw, nothing placed or taken."""
    d.kind = A_DRAW
    d.taken = 0
    d.n_placed = 0
    d.touched = 0
    memset(d.placed, 0, NCARD)


cdef inline bint same_play(const Decision* a, const Decision* b) noexcept nogil:
    return a.taken == b.taken and memcmp(a.placed, b.placed, NCARD) == 0


cdef inline int total(const uint8_t* counts) noexcept nogil:
    cdef int c, n = 0
    for c in range(NCARD):
        n += counts[c]
    return n


# ---------------------------------------------------------------- the game flow
cdef inline void flow_start(const HState* st, Flow* f) noexcept nogil:
    memset(f, 0, sizeof(Flow))
    f.stock_exhausted_turn = 0 if st.stock_len == st.stock_pos else -1
    f.playable = -1


cdef inline int play_fault(const HState* st, int cur, const Decision* d) noexcept nogil:
    """The final guard of a PLAY from outside the compiled strategies (a Python bot), before
    apply_turn subtracts it: -1 when seat cur holds every card d places, d.n_placed counts
    them, the jokers it takes back are on the table and d.wit holds the table's cards plus
    the placed less the taken, in melds of 3 cards or more; else the first card placed
    beyond the hand's count, or NCARD for another mismatch."""
    cdef int c, i, m, n = 0, end
    cdef int left[NCARD]
    for c in range(NCARD):
        if d.placed[c] > st.hands[cur][c]:
            return c
        n += d.placed[c]
        left[c] = st.table[c] + d.placed[c]
    if n != d.n_placed or d.taken < 0 or d.taken > st.table[JOKER]:
        return NCARD
    left[JOKER] -= d.taken
    if d.wit.n_melds < 0 or d.wit.n_melds > MAX_MELDS:
        return NCARD
    if d.wit.start[0] != 0 or d.wit.start[d.wit.n_melds] > MAX_TABLE:
        return NCARD
    for m in range(d.wit.n_melds):
        if d.wit.start[m + 1] - d.wit.start[m] < 3:
            return NCARD
    end = d.wit.start[d.wit.n_melds]
    for i in range(end):
        c = d.wit.cards[i]
        if c >= NCARD or left[c] == 0:
            return NCARD
        left[c] -= 1
    for c in range(NCARD):
        if left[c]:
            return NCARD
    return -1


cdef inline int apply_turn(const ERules* R, HState* st, int cur, const Decision* d,
                           Flow* f) noexcept nogil:
    """Apply seat cur's decision d to the position: returns the hand's end (E_*), or -1
    while it goes on, T_ASK after a full round without an added card. PLAY moves d.placed to the table (the meld list becomes d.wit),
    DRAW draws one card (an empty stock: a pass, or the end under ends-hand), FAIL draws
    the penalty (an empty stock ends the hand under ends-hand)."""
    cdef int c, k, take, avail = st.stock_len - st.stock_pos
    cdef int empty_at_start = avail == 0
    f.turns += 1
    st.turn += 1
    if d.kind == A_PLAY:
        for c in range(NCARD):
            st.hands[cur][c] -= d.placed[c]
            st.table[c] += d.placed[c]
        st.hands[cur][JOKER] += d.taken
        st.table[JOKER] -= d.taken
        st.hand_n[cur] += d.taken - d.n_placed
        st.table_n += d.n_placed - d.taken
        wit_copy(&st.wit, &d.wit)
        if R.srules.ace_high == 2:
            wit_split_wraps(&st.wit)
        st.opened[cur] = 1
        f.plays += 1
        f.noadd = 0
        f.playable = -1
        if st.table_n > f.max_table:
            f.max_table = st.table_n
        if st.hand_n[cur] == 0:
            return E_EMPTIED
    elif d.kind == A_FAIL:   # table and hand untouched, penalty cards drawn
        f.failed += 1
        if avail == 0 and R.ends_hand:
            return E_STOCKOUT
        take = R.penalty if R.penalty < avail else avail
        for k in range(take):
            st.hands[cur][st.stock[st.stock_pos]] += 1
            st.stock_pos += 1
        st.hand_n[cur] += take
        f.cards_drawn += take
        if take > 0 and take == avail:
            f.stock_exhausted_turn = f.turns
            if R.ends_hand:
                return E_STOCKOUT
    else:   # A_DRAW, A_PASS
        if avail > 0:
            st.hands[cur][st.stock[st.stock_pos]] += 1
            st.stock_pos += 1
            st.hand_n[cur] += 1
            f.cards_drawn += 1
            if avail == 1:
                f.stock_exhausted_turn = f.turns
                if R.ends_hand:   # 003: the hand ends with the turn that emptied the stock
                    return E_STOCKOUT
        elif R.ends_hand:
            return E_STOCKOUT
    st.failed_last[cur] = d.kind == A_FAIL
    if d.kind != A_PLAY and empty_at_start:
        f.noadd += 1
        if f.noadd >= R.players:
            if R.block_round:
                return E_BLOCKED   # 000: « un tour de table sans ajout termine la donne »
            if f.playable < 0:
                return T_ASK
            return blocked_end(R, f)
    return -1


cdef inline int blocked_end(const ERules* R, const Flow* f) noexcept nogil:
    """After a full round without an added card (empty stock): E_BLOCKED when no seat can
    add a card (f.playable = 0) or after BLOCK_ROUNDS such rounds, else -1 (play goes on:
    a player who misses a play is making an error)."""
    if f.playable == 0 or f.noadd >= R.players * BLOCK_ROUNDS:
        return E_BLOCKED
    return -1


cdef inline int seat_can_play(Solver solver, const ERules* R, const HState* st,
                              int seat) noexcept nogil:
    """Whether the seat can add a card to the table, as a fact of the position (the exact
    solver; the opening rule and joker swaps included): 1, 0, or a solver error (< -1)."""
    cdef uint8_t empty[NCARD]
    cdef uint8_t placed[NCARD]
    cdef int64_t v
    cdef int i
    if st.hand_n[seat] == 0:
        return 0
    memset(placed, 0, NCARD)
    if R.opening and not st.opened[seat]:
        memset(empty, 0, NCARD)
        v = solver.solve(empty, st.hands[seat], &R.srules, R.open_w, R.open_jw, placed, NULL)
        if v < -1:
            return <int>v
        return 1 if v >= 0 and total(placed) > 0 and v // R.open_scale >= R.opening else 0
    if R.swap_hand:
        for i in range(st.wit.start[st.wit.n_melds]):
            if st.wit.cards[i] == JOKER and st.hands[seat][st.wit.stands[i]] > 0:
                return 1
    v = solver.solve(st.table, st.hands[seat], &R.srules, R.ones, R.ones_j, placed, NULL)
    if v < -1:
        return <int>v
    return 1 if v >= 0 and total(placed) > 0 else 0


cdef inline int any_seat_can_play(Solver solver, const ERules* R, const HState* st) noexcept nogil:
    """1 if some seat can add a card (seat_can_play), 0 if none, or a solver error."""
    cdef int s, k
    for s in range(R.players):
        k = seat_can_play(solver, R, st, s)
        if k != 0:
            return k
    return 0


cdef inline int hand_end(const ERules* R, const HState* st, int end, int cur,
                         int* points, int* won) noexcept nogil:
    """Each seat's hand points (into points), who won the hand (won: alone, or sharing a
    tie) and the hand's sole winner: the seat that emptied its hand, else under
    blocked_winner = lowest the sole lowest, else -1. Tied lowest hands win together under
    ties = shared, else nobody wins."""
    cdef int seat, c, best, n_best = 0, winner = -1
    for seat in range(R.players):
        points[seat] = 0
        won[seat] = 0
        for c in range(NCARD):
            points[seat] += st.hands[seat][c] * R.hpts[c]
    if end == E_EMPTIED:
        won[cur] = 1
        return cur
    if R.lowest:
        best = points[0]
        for seat in range(R.players):
            if points[seat] < best:
                best = points[seat]
        for seat in range(R.players):
            if points[seat] == best:
                n_best += 1
                winner = seat
        if n_best > 1:
            winner = -1
        if n_best == 1 or R.ties_shared:
            for seat in range(R.players):
                won[seat] = points[seat] == best
    return winner
