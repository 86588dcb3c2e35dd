from fastmach.game._turn cimport ERules

cdef int ability_rules(ERules* R, object rules) except -1
