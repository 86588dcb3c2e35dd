from libc.stdint cimport uint8_t

# known_table (the solver's fast read of a game's table) for compiled callers that hold
# the table's card counts: fastmach.strategies._python.PyBot
cdef int note_known(tuple table, const uint8_t* counts) except -1
