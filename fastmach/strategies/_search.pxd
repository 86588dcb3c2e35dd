from cpython.ref cimport PyObject
from libc.stdint cimport uint8_t, int32_t, uint64_t
from fastmach.core._solver cimport NCARD, Witness
from fastmach.game._turn cimport HState, Decision, MAX_DECK, MAX_PLAYERS
from fastmach.strategies._base cimport Strategy, Skill
from fastmach.strategies._mixed cimport Mixed

cdef enum:
    OPP_POLICY = 0      # every opponent played by the policy in the playouts
    OPP_EXPERT = 1      # every opponent played by the expert
    OPP_OBSERVED = 2    # the expert for the opponents seen placing cards early, else the policy

cdef enum:
    DEALS_UNIFORM = 0   # the hidden cards dealt at random
    DEALS_HISTORY = 1   # ... an opponent that drew last turn dealt a hand its model draws from

cdef enum:
    HISTORY_TRIES = 12  # deals of one opponent's hand tried before the last one is kept

cdef enum:
    SRC_POLICY = 0      # the candidates' sources: the policy's play
    SRC_MAX = 1         # ... the maximum placement
    SRC_VARIANT = 2     # ... a holding variant (2 + its index, 0..6)
    SRC_POINTS = 9      # ... the most points
    SRC_DRAW = 10       # ... a draw
    N_SRC = 11

cdef enum:
    MAX_CANDS = 11      # the policy's play, the maximum placement, 8 variants, a draw
    MAX_REC = 64        # rounds of playouts kept for last_playouts


cdef class Holding(Skill):
    """Jokers and J/Q/K held back until a play that empties the hand (a playout policy)."""
    cdef readonly Skill inner
    cdef uint8_t hk[NCARD]
    cdef Decision full


cdef class Search(Strategy):
    """The best of its candidates (holding variants) by playouts of sampled deals."""
    cdef readonly int budget         # sampled deals per decision
    cdef readonly bint clairvoyant   # play out the true position (sees every hand, the stock)
    cdef readonly Strategy policy    # every seat's play in the playouts
    cdef Skill expert                # the candidates' solver
    cdef Strategy xstrat             # the expert, for the opponents played as experts
    cdef readonly int opponents      # the opponent model: OPP_POLICY, OPP_EXPERT, OPP_OBSERVED
    cdef int as_expert               # bit mask: the seats the playouts play as xstrat
    cdef Mixed mix                   # the policy where it is a mixture (else None)
    cdef bint mixed                  # ... whether it is
    cdef PyObject* seat_pol[MAX_PLAYERS]   # a round's playout strategy of every seat
    cdef int member_of[MAX_PLAYERS]  # ... its member of the mixture (-1 the policy, -2 the expert)
    cdef int placed[MAX_PLAYERS]     # seen placing cards (not going out) while the stock lasted
    cdef int seen_n[MAX_PLAYERS]     # the hand sizes at the seat's previous decision
    cdef int seen_turn, seen_hand, seen_seat   # ... its turn, hand and seat (-1: none)
    cdef int seen_stock              # ... and the stock's cards left
    cdef readonly int deals          # DEALS_UNIFORM or DEALS_HISTORY
    cdef int drew[MAX_PLAYERS]       # drew one card on its last turn (the stock lasting)
    cdef int drawn[MAX_PLAYERS]      # the last deal: the card taken as its draw (-1: none)
    cdef readonly long long tries, misses   # hands dealt to drawers, and deals left inconsistent
    cdef readonly long long n_playouts, n_turns   # playouts run and the turns they played
    cdef HState chk                  # a drawer's position before its draw (the check)
    cdef Decision cdec               # its model's decision there
    cdef HState deal                 # the position of one round of playouts
    cdef HState ps                   # a playout's position
    cdef Decision pdec               # its decisions
    cdef Decision full               # the maximum placement
    cdef Decision cand[MAX_CANDS]
    cdef int src[MAX_CANDS]          # each candidate's source (SRC_*)
    cdef double value[MAX_CANDS]     # sums of the playout values (k > 0: minus the policy's)
    cdef double win[MAX_CANDS]       # sums of the win shares (k > 0: minus the policy's)
    cdef double sq[MAX_CANDS]        # sums of the squared paired win differences
    cdef int cards_left              # the seat's cards at the end of the last playout
    cdef int points_left             # ... and their hand points
    cdef int rec_rounds, rec_cands, rec_best   # the last weighed decision's playouts (last_playouts)
    cdef double rec_win[MAX_REC][MAX_CANDS]
    cdef int rec_cards[MAX_REC][MAX_CANDS]
    cdef int rec_points[MAX_REC][MAX_CANDS]
    cdef uint8_t unknown[MAX_DECK]
    cdef uint8_t hk[NCARD]
    cdef uint8_t empty[NCARD]
    cdef Witness tmpwit
    cdef void observe(self, HState* st, int seat) noexcept nogil
    cdef int candidates(self, HState* st, int seat, uint64_t* rng) noexcept nogil
    cdef void restricted(self, HState* st, int seat, const uint8_t* hand, const int32_t* w,
                         const int32_t* jw, Decision* d) noexcept nogil
    cdef void models(self, HState* st, int seat, uint64_t* prng) noexcept nogil
    cdef void sample(self, HState* st, int seat, uint64_t* prng) noexcept nogil
    cdef void redeal_drawers(self, int seat, uint64_t* prng) noexcept nogil
    cdef bint draws_there(self, int s, uint64_t* prng) noexcept nogil
    cdef double playout(self, int seat, Decision* cand, uint64_t* prng) noexcept nogil
