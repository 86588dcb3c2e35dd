# The compiled meld check (fastmach/core/_meldcheck.pyx), for the compiled check of a
# Python bot's play (fastmach/strategies/_answer.pyx).
cdef bint meld_ok(const int* cards, int n, bint ace_high, int jokers_per_meld,
                  bint ace_both_ends) noexcept nogil
