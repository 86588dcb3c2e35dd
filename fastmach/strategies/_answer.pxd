# The compiled check of a Python bot's answer (fastmach/strategies/_answer.pyx).
from fastmach.core._solver cimport Witness
from fastmach.game._turn cimport HState, Decision
from fastmach.game._playcheck cimport PlayRules, PlayIn


cdef class AnswerCheck:
    cdef bint plays          # plays are checked here (not under strict: the validator's)
    cdef bint decline_stock, decline_empty, pass_empty
    cdef bint ace_high
    cdef PlayRules rules     # what a play is judged by (fastmach/game/_playcheck.pyx)
    cdef PlayIn p            # the play read
    cdef object meld_stands
    cdef int answer(self, const HState* st, int seat, object action, Decision* d) except -1
    cdef int _play(self, const HState* st, int seat, object action, Decision* d) except -1
    cdef int _read(self, meld, Witness* w, int at) except -1
