from libc.stdint cimport uint8_t, uint64_t
from fastmach.game._turn cimport ERules, HState


cdef void deal_hidden(const ERules* R, HState* ps, int seat, uint8_t* unknown,
                      uint64_t* prng) noexcept nogil
