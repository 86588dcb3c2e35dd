# The placed cards of an answer read from its tie-break key, where no melds are asked for
# (included by fastmach/core/_solver.pyx, used by Solver.solve_direct).
#
# The canonical tie-break's key of a state (_key_plan) is a sum over the cards it uses: of
# each card type the hand holds, the copies used (the table's and the placed ones) as one
# digit of a mixed-radix number, radix table + hand copies + 1. Where every digit fits
# the key (_key_plan returns NCARD) the answer's key holds the copies it uses of every
# hand card type, so its placed cards are those digits less the table's copies: what the
# melds rebuilt from the answer's path would give, without rebuilding them. A caller that
# asks for no melds (wit NULL: the engine's must-play and blocked-round questions, a
# strategy whose game reads no melds) gets the same value and placed cards as one that
# asks (tests/core/test_solver_key_placed.py, on random, adversarial and game positions,
# with _set_key_placed(0), and a planted fault). Positions with a joker keep the rebuild:
# the relaxation of one joker per meld reads its answer's melds (a meld of two jokers
# sends it to the exact search).


cdef inline bint _key_placed_ok(const uint8_t* table, const uint8_t* hand,
                                const uint8_t* placed, const Witness* wit) noexcept nogil:
    """Whether this solve's placed cards may be read from its key: no melds asked for,
    placed cards asked for, no joker, melds not arranged (_ARRANGE)."""
    return wit == NULL and placed != NULL and table[JOKER] == 0 and hand[JOKER] == 0 \
        and not _ARRANGE


cdef inline bint _keyed_answer(Impl* im, skey sec) noexcept nogil:
    """The answer's key is sec (im.ans_sec); True where its placed cards are read from it
    (im.key_placed: the melds are not rebuilt, the solve returns its value at once)."""
    im.ans_sec = sec
    return im.key_placed


cdef void _placed_from_key(Impl* im, const uint8_t* table, const uint8_t* hand,
                           uint8_t* placed) noexcept nogil:
    """placed: the hand cards the answer of key im.ans_sec places (im.keyw: every digit,
    _key_plan returned NCARD)."""
    cdef int c, planted = _KEY_PLACED < 0
    cdef skey used
    for c in range(NCARD):
        placed[c] = 0
        if hand[c] > 0 and im.keyw[c] > 0:
            used = (im.ans_sec // im.keyw[c]) % <skey>(table[c] + hand[c] + 1)
            placed[c] = <uint8_t>(used - table[c])
            if planted:   # (debug: the first card type read one copy off)
                placed[c] ^= 1
                planted = 0
