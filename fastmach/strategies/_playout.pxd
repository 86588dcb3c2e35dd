from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t
from fastmach.game._turn cimport ERules, HState, Decision
from fastmach.strategies._base cimport Context, Strategy

cdef enum:
    PLAYOUT_TURNS = 400   # a playout longer than this is scored as it stands


cdef int play_out(Context ctx, const ERules* R, Strategy policy, HState* ps, int seat,
                  const Decision* first, Decision* dec, uint64_t* prng, int* points,
                  int* won, Strategy other, int other_seats) noexcept nogil


cdef int play_out_seats(Context ctx, const ERules* R, PyObject** seats, HState* ps, int seat,
                        const Decision* first, Decision* dec, uint64_t* prng, int* points,
                        int* won, int horizon) noexcept nogil
