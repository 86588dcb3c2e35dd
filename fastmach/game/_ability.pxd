from libc.stdint cimport int64_t
from fastmach.game._turn cimport ERules, HState

cdef int ability_rules(ERules* R, object rules) except -1
cdef int load_hand(HState* st, const int64_t[::1] hand) except -1
