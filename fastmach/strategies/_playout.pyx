# A position played to the hand's end: the playout step of every player that weighs its
# candidates by playing them out (lookahead, search).
from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t
from libc.string cimport memset

from fastmach.game._turn cimport (ERules, HState, Decision, Flow, T_ASK, MAX_PLAYERS, apply_turn,
                                  blocked_end, any_seat_can_play, hand_end)
from fastmach.strategies._base cimport Context, Strategy


cdef int play_out(Context ctx, const ERules* R, Strategy policy, HState* ps, int seat,
                  const Decision* first, Decision* dec, uint64_t* prng, int* points,
                  int* won, Strategy other, int other_seats) noexcept nogil:
    """Play ps to the hand's end through the game's own turn flow (apply_turn, hand_end):
    `first` for `seat`, then `policy` for every seat in turn (`other` for the seats of
    bit mask `other_seats`; its decisions in `dec`, drawing on prng), at most
    PLAYOUT_TURNS turns (a longer playout is scored as it stands): play_out_seats with
    those seats. Fills points and won as hand_end does and returns its winner; -1 with
    ctx.rc set on a solver error."""
    cdef PyObject* seats[MAX_PLAYERS]
    cdef int s
    for s in range(R.players):
        seats[s] = <PyObject*>other if other_seats >> s & 1 else <PyObject*>policy
    return play_out_seats(ctx, R, seats, ps, seat, first, dec, prng, points, won, 0)


cdef int play_out_seats(Context ctx, const ERules* R, PyObject** seats, HState* ps, int seat,
                        const Decision* first, Decision* dec, uint64_t* prng, int* points,
                        int* won, int horizon) noexcept nogil:
    """play_out with a strategy per seat: `first` for `seat`, then seats[s] (a compiled
    Strategy, kept alive by the caller) for every seat s in turn; at most `horizon` turns
    where it is positive (a hand not ended by then is scored as it stands, as a hand
    longer than PLAYOUT_TURNS is)."""
    cdef int cur = seat, end = -1
    cdef int limit = horizon if 0 < horizon < PLAYOUT_TURNS else PLAYOUT_TURNS
    cdef Flow f
    memset(&f, 0, sizeof(Flow))
    f.playable = -1
    while f.turns < limit:
        if f.turns == 0:
            end = apply_turn(R, ps, cur, first, &f)
        else:
            (<Strategy>seats[cur]).decide(ps, cur, prng, dec)
            if ctx.rc:
                return -1
            end = apply_turn(R, ps, cur, dec, &f)
        if end == T_ASK:   # a full round added no card: blocked only if nobody can play
            f.playable = any_seat_can_play(ctx.solver, R, ps)
            if f.playable < -1:
                ctx.rc = f.playable
                return -1
            end = blocked_end(R, &f)
        if end >= 0:
            break
        cur = (cur + 1) % R.players
    return hand_end(R, ps, end, cur, points, won)
