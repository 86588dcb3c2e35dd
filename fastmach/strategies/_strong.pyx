# The strong player: holds its cards, draws all it can (a botched play where a failure
# draws more than one card and an opponent nears going out) and goes out in one play (see
# Strong.decide).
#
# What self-play on the engine taught it (4 players, common deals, seats rotated, one
# candidate against three experts, three HoldBack bots or three default strong players;
# 100 deals per candidate, the final confirmed at 300; fastmach/strategies/examples.py):
# - holding pays more the more of the hand is held. Keeping back J/Q/K and the jokers
#   (HoldBack) wins 38% of classic single hands against three experts; holding 8-K too
#   51%, 6-K 60%, 4-K 73%, every card 85%. Each play the others make grows the table the
#   holder will go out onto; each card a greedy player places leaves it with the cards
#   nothing fits. The rank held matters less than how many (A-7 held: 61%, 6-K: 60%).
# - every way found to stop holding early lost: playing the maximum placement when an
#   opponent holds <= 2 (or 4) cards, or when it leaves <= 2 cards (24-26% against
#   experts, from 38%); a cap on the hand (22 cards: 18% against HoldBack, 30: 23%, none:
#   27-31%); playing once the stock falls to 20 cards (13% against HoldBack); rush=1
#   (27%, no different from none). Hence the defaults: hold until the stock is empty.
# - where a player must play when able (italian) it cannot hold; playing the smallest
#   play (one card) instead of the maximum placement gained nothing (24.8%).
# - against three HoldBack bots (classic single; 60 deals, rotated, differences paired
#   by deal against the default's 27.1%) every play before the stock runs out lost
#   again: while holding, the maximum placement when it leaves <= 2 cards 6.7% (<= 4:
#   10.4%); the placement of its cards up to rank 3 (6) 25.4% (20.4%); holding stopped
#   with 3 (8) cards in the stock -1.7 [-3.3, -0.1] (-6.6). After the stock runs out
#   nothing moved it by a point: passing on until it can go out -0.4 [-1.2, +0.4],
#   keeping 10-K back +0.4 [-0.4, +1.2], keeping nothing -0.8 [-2.0, +0.3]. Why: its own
#   plays never change whether its hand and the table together split into melds (they
#   only move cards between the two); they feed the others. It wins before the stock
#   runs out (44 of its 48 wins in 160 hands); of the 103 hands that reach the empty
#   stock the bots, holding their faces, win 89, a median 6 turns after it, and it 4.
#   Four HoldBack bots leave 40% of classic hands unwon (blocked): a HoldBack seat wins
#   17.8% of them, not 25%.
# - where the stock's end ends the hand and the lowest hand wins (ace-low), holding to
#   the end loses on points: against three HoldBack bots (200 deals) holding stopped at
#   1, 2, 3, 4, 5, 6, 8, 12 cards in the stock won 24.9, 33.0, 37.4, 36.6, 33.6, 31.6,
#   30.1, 28.6% (0: 16.2%): the last round, one card per player. Hence last_round (on):
#   35.5% [33.0, 38.0] against 16.1% [14.0, 18.2] off (300 deals); against experts
#   79.0% [76.6, 81.4] against 80.5% (-1.5 [-2.8, -0.2], 300 deals).
# - what it lacks against holders is cards drawn. Against three HoldBack bots (classic
#   single, 150 deals, paired by deal) placing one low card instead of a held turn's draw
#   lost 2.5 points with the stock at <= 4 cards, 5.0 at <= 10, 8.0 always; the reverse
#   won: a held turn that botches a one-card play on purpose (the table is restored and
#   000's failed manipulation draws 3 penalty cards instead of 1) 37.3% against 27.7%
#   (+9.7 [+4.6, +14.7]). Hence botch (a fail carries a legal play, as a fallible
#   player's does): confirmed on 300 fresh deals in the README's table. Against experts
#   botching at every held turn gained under jokers (+7.0 [+3.9, +10.1], 150 deals) and
#   cost under classic (-3.2 [-7.4, +1.1]). Where a failure draws one card (ace-low,
#   italian) it is a draw and botch does nothing. It reads failed_penalty as 000 wrote
#   it: a designer who wants no reward for a botch sets the penalty to 1 (or a player
#   botch=false).
# - after the stock runs out (classic, against HoldBack, 300 deals) keeping more back
#   moved nothing worth a default: 10-K kept +0.3 [+0.0, +0.7], 9-K +0.1, 8-K 0.0, no
#   card kept -2.2 [-3.2, -1.3] (200 deals); passing instead of a play of kept cards
#   changed no game under classic and lost 15.4 points under ace-low (its last round).
#   Under italian (must play) keeping nothing to 9-K stayed within 1.1 points of J-K.
# - where to botch (classic single, 300 deals of seed 1, paired by deal against botching
#   at every held turn: 37.6% against three HoldBack bots, 82.8% against three experts,
#   83.6% for no botch): a botch pays in the race, not while the field holds long hands.
#   Botching only while every opponent holds >= 8 (11, 14, 17) cards lost 6.2 (9.1, 7.4,
#   6.2) points against HoldBack and moved the experts' field by <= 1; only while the
#   stock holds > 20 cards -4.2 against HoldBack (+5.3 against experts), only at <= 20
#   -3.3 (+1.3). Botching only while some opponent holds fewer than 5, 6, 8, 10, 12
#   cards: against HoldBack -3.8, -1.8, -0.6 [-3.9, +2.7], -1.3, +0.2; against experts
#   +5.7, +4.9, +2.9 [+0.2, +5.6], +1.8, 0.0; under jokers against experts +6.2, +6.8
#   (8) and +7.3 (10) over no botch, always +7.5. Why: a botch is three draws at once,
#   three chances at the cards that let it go out when an opponent is about to; early
#   it only grows the hand that must fit the table whole, and an all-strong table never
#   botches (nobody places a card before the stock runs out: no card fits an empty
#   table alone, 25.0% exactly either way). Hence botch on by default below 8 cards
#   (botch_below): the smallest threshold within a point of botching always against
#   HoldBack (the worst field but the all-strong table, which botching cannot move),
#   and one that loses no field (botching always costs the classic experts'). Confirmed
#   on 300 fresh deals (seed 7777): against three HoldBack bots 33.7% [31.0, 36.3],
#   +7.8 [+4.9, +10.8] over no botch (always: 37.8%); against three experts 84.9%
#   [82.9, 86.9], +1.0 [-1.8, +3.8] (always: 79.3%, -4.6 [-7.7, -1.5]); against three
#   strong(botch=false) 25.0%. Under jokers against three experts 87.7% [85.7, 89.7],
#   +8.2 [+6.0, +10.3]; against three HoldBack bots 65.0% [60.8, 69.2], +10.5 [+5.8,
#   +15.2] (100 deals). Under ace-low and italian (a one-card penalty) it never botches:
#   the games of botch=false (77.5% and 24.5% against experts, 36.0% and 24.5% against
#   HoldBack). The search's strong policy stays botch=false.
# - where the stock's end ends the hand a table of holders is the greedy play's prey
#   (ace-low single, 1,000 deals: strong(keep_from=8,place=1) gives the expert's play +27
#   points at a table of three of it): hold_table, holding only on a table of at least
#   that many cards, keeps 79.5% against three experts and gives +12.4 at 3 cards; the
#   trained ace-low player mixes holders of both kinds (docs/training.md).
from libc.stdint cimport uint8_t, uint32_t, int64_t, uint64_t
from libc.string cimport memcpy, memset

from fastmach.core._solver cimport NCARD, JOKER
from fastmach.game._turn cimport (ERules, HState, Decision, A_PLAY, A_FAIL, may_decline, set_draw,
                                  wit_copy, wit_clear)
from fastmach.strategies._base cimport Context, meld_cards
from fastmach.core._split_reject cimport split_impossible
from fastmach.strategies._joker_reject cimport joker_split_impossible
from fastmach.strategies._quick_split cimport quick_split


cdef int _QUICK = 1
cdef int _EXACT_FIRST = 1
cdef int _ALONE = 1
cdef enum:
    QUICK_BUDGET = 200   # melds the quick split may try before the solver decides


cdef long _Q_ASKED = 0, _Q_OUT = 0, _Q_QUICK = 0


def _quick_stats(bint reset=False):
    """Debug: the turns quick_out was asked since the last reset (may_go_out let it ask),
    those that went out, and those the quick split answered (before place_all)."""
    global _Q_ASKED, _Q_OUT, _Q_QUICK
    out = {"asked": _Q_ASKED, "out": _Q_OUT, "quick": _Q_QUICK}
    if reset:
        _Q_ASKED = _Q_OUT = _Q_QUICK = 0
    return out


def _set_exact_first(int on):
    """Debug: 0 asks the quick split first with jokers too (the reference: the same games,
    tests/strategies/test_quick_split.py)."""
    global _EXACT_FIRST
    _EXACT_FIRST = on


def _set_alone(int on):
    """Debug: 0 weighs a one-card play as before (every hand card solved in card order,
    the joker reject not asked): the reference, which must give the same games
    (tests/strategies/test_strong_alone.py)."""
    global _ALONE
    _ALONE = on


def _set_quick(int on):
    """Debug: 0 decides as before quick_out (the maximum placement first where the hand
    may go out): the reference, which must give the same games (tests/strategies/test_quick_split.py)."""
    global _QUICK
    _QUICK = on


cdef class Strong(Strategy):

    def __init__(self, Context ctx, Strategy expert_strategy, Skill expert, int stock_low,
                 int hand_cap, int rush, int keep, int last_round=1, int botch=1,
                 int botch_below=8, int keep_from=0, int pass_on=0, int place=0,
                 int hold_table=0, Skill points=None):
        Strategy.__init__(self, ctx)
        if place == 2 and points is None:
            raise ValueError("place=2 (most points) needs the points skill")
        self.keep_from = keep_from
        self.pass_on = pass_on
        self.place = place
        self.hold_table = hold_table
        self.points = points
        self.shapes = keep or keep_from or place
        self.xstrat = expert_strategy
        self.expert = expert
        self.stock_low = stock_low
        self.hand_cap = hand_cap
        self.rush = rush
        self.keep = keep
        self.last_round = last_round
        self.botch = botch
        self.botch_below = botch_below
        # (its own choices read cards only: the table's melds as its skills read them)
        self.melds_blind = expert_strategy.melds_blind and expert.melds_blind and \
            (points is None or points.melds_blind)

    cdef void decide(self, HState* st, int seat, uint64_t* rng, Decision* d) noexcept nogil:
        """Hold, or play keeping cards back.

        Holding (where the rules let a player who can play draw instead, or pass on an
        empty stock): a play that does not empty the hand is not made, the player draws,
        while the stock holds more than stock_low cards (where the stock's end ends the
        hand and last_round is set, more than max(stock_low, players): the last round is
        played), the hand fewer than hand_cap cards and every opponent more than rush
        cards, and the table at least hold_table cards (0: whatever it holds). A play that
        empties the hand is always made. Where botch is set, the stock
        not empty, a failure draws more than one card (failed_penalty > 1) and an opponent
        holds fewer than botch_below cards (0: whatever they hold), a held turn botches a
        play instead of drawing (the table kept, the penalty drawn): the first hand card,
        in card order, that a play of it alone places (no joker). Where pass_on is set
        and the stock is empty, a player who may pass passes on (unless its whole hand goes
        out) while every opponent holds at least pass_on cards. Otherwise (or where the
        player must play) it plays its hand without the cards it keeps back (keep: 1 the
        jokers, 2 the jokers and J/Q/K; keep_from: the jokers and every rank from
        keep_from up) as place says (0 the maximum placement, 1 the one card of the most
        points a play of it alone places, 2 the placement of the most points), or the
        whole maximum placement when that places nothing. Before opening
        (opening_points) it opens as the expert does.

        Cost: a held turn asks the solver whether hand and table split into melds (go_out)
        only where may_go_out cannot rule it out (no jokers: a hand card outside every
        meld, or a union split_impossible rejects: about 98% of the unions that do not
        split, in classic games against experts; with jokers, one per meld: a union
        joker_split_impossible rejects, about 57% of those that do not split under jokers,
        mostly the cheap solves: 1.16x the games/s of strong + 3 x expert under jokers);
        where no play can empty the hand, the
        play keeping cards back is solved first and the whole hand's maximum placement
        only when that places nothing (the same decision: a play of the kept cards is a
        play of the hand, and no play empties it). Together 0.18x -> 0.4x the games/s of
        four experts (classic, strong + 3 x expert). Where it must play and may go out,
        whether it goes out is asked first (quick_out: the quick split, else
        Solver.place_all), and where it cannot the same order follows: the maximum
        placement is solved only where that is the play (0.44x the CPU of all-strong
        jokers games; strong + 3 x expert there unchanged; the same games)."""
        cdef const ERules* R = self.R
        cdef const uint8_t* hand = st.hands[seat]
        cdef int n = st.hand_n[seat], s, opp = 1 << 30
        cdef int left = st.stock_len - st.stock_pos, low = self.stock_low
        cdef bint may_hold = may_decline(R, st)
        set_draw(d)
        if n == 0:
            return
        for s in range(R.players):
            if s != seat and st.hand_n[s] < opp:
                opp = st.hand_n[s]
        if R.opening > 0 and not st.opened[seat]:
            self.xstrat.decide(st, seat, rng, d)
            return
        if self.last_round and R.ends_hand and low < R.players:
            low = R.players   # the hand ends with the stock: its last round is played
        if may_hold and left > low and opp > self.rush and \
                (self.hand_cap == 0 or n < self.hand_cap) and st.table_n >= self.hold_table:
            if self.may_go_out(st, hand):
                self.go_out(st, hand, n, d)
            if d.kind != A_PLAY and self.botch and left > 0 and R.penalty > 1 and \
                    (self.botch_below == 0 or opp < self.botch_below):
                self.botch_one(st, hand, d)
            return
        if self.pass_on and left == 0 and R.may_pass and opp >= self.pass_on:
            # the empty stock: pass on, unless the whole hand goes out
            if self.may_go_out(st, hand):
                self.go_out(st, hand, n, d)
            return
        if _QUICK:
            # whether the whole hand goes out is asked first (what the maximum placement
            # would play); where it cannot, as below where no play can empty it
            if self.may_go_out(st, hand) and self.quick_out(st, hand, n, d) or self.ctx.rc:
                return
            if self.shapes and self.play_kept(st, hand, d) or self.ctx.rc:
                return
            self.xstrat.decide(st, seat, rng, d)
            return
        if self.shapes and not self.may_go_out(st, hand):
            # no play empties the hand: a play of the cards not kept back is the play made,
            # and the maximum placement of the whole hand is needed only where none exists
            if not self.play_kept(st, hand, d) and not self.ctx.rc:
                self.xstrat.decide(st, seat, rng, d)
            return
        self.xstrat.decide(st, seat, rng, d)
        if self.ctx.rc or d.kind != A_PLAY or d.n_placed - d.taken >= n or not self.shapes:
            return
        self.play_kept(st, hand, d)

    cdef bint play_kept(self, HState* st, const uint8_t* hand, Decision* d) noexcept nogil:
        """d becomes the play of the hand without the cards kept back (keep: 1 the jokers,
        2 the jokers and J/Q/K; keep_from: the jokers and every rank from keep_from up)
        where that places a card: its maximum placement (place 0), its one card of the
        most hand points that a play of it alone places (place 1), or its placement of
        the most hand points (place 2); False (d as it was) where it places none or the
        solver failed (ctx.rc)."""
        cdef int c
        memcpy(self.kept, hand, NCARD)
        if self.keep or self.keep_from:
            self.kept[JOKER] = 0
        if self.keep >= 2 or self.keep_from:
            for c in range(JOKER):
                if c % 13 >= 10 and self.keep >= 2 or \
                        self.keep_from and c % 13 + 1 >= self.keep_from:
                    self.kept[c] = 0
        if self.place == 1:
            return self.play_one(st, d)
        if self.place == 2:
            self.points.play(st, self.kept, self.R.ones, self.R.ones_j, &self.alt)
        else:
            self.expert.play(st, self.kept, self.R.ones, self.R.ones_j, &self.alt)
        if self.ctx.rc or self.alt.kind != A_PLAY:
            return False
        memcpy(d, &self.alt, sizeof(Decision))
        return True

    cdef bint play_one(self, HState* st, Decision* d) noexcept nogil:
        """d becomes a play of one card of self.kept alone (no joker): the card of the
        most hand points that such a play places (ties: the lower card id); False (d as
        it was) where none places or the solver failed."""
        cdef int c, best = -1, i, j, n = 0
        cdef int order[JOKER]
        memcpy(self.one, self.kept, NCARD)
        if _ALONE:
            # the hand's cards by hand points, most first (ties: the lower id): the first
            # that a play of it alone places is the card chosen
            for c in range(JOKER):
                if not self.one[c]:
                    continue
                j = n
                while j > 0 and self.R.hpts[order[j - 1]] < self.R.hpts[c]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = c
                n += 1
            for i in range(n):
                if self.card_alone(st, order[i]):
                    memcpy(d, &self.alt, sizeof(Decision))
                    return True
                if self.ctx.rc:
                    return False
            return False
        for c in range(JOKER):
            if not self.one[c] or best >= 0 and self.R.hpts[c] <= self.R.hpts[best]:
                continue
            if self.card_alone(st, c):
                best = c
                memcpy(d, &self.alt, sizeof(Decision))
            elif self.ctx.rc:
                return False
        return best >= 0

    cdef bint card_alone(self, HState* st, int c) noexcept nogil:
        """Whether a play of card c alone places it (self.alt: that play). Without a joker
        on the table a card outside every meld of table and card is skipped unsolved; with
        jokers there (one per meld) a card whose union with the table
        joker_split_impossible rejects (a play of it alone must split table and card into
        melds; not where a hand card may take a table joker back, which places it without
        that). A solver failure sets ctx.rc (False)."""
        cdef uint32_t ps[4]
        if st.table[JOKER] == 0:
            memcpy(self.pool, st.table, NCARD)
            self.pool[c] += 1
            meld_cards(self.pool, self.R.srules.ace_high, ps)
            if not (ps[c // 13] >> (c % 13 + 1)) & 1:
                return False
        elif _ALONE and self.R.srules.jokers_per_meld == 1 and not self.R.swap_hand:
            memcpy(self.pool, st.table, NCARD)
            self.pool[c] += 1
            if joker_split_impossible(self.pool, self.R.srules.ace_high):
                return False
        memset(self.kept, 0, NCARD)
        self.kept[c] = 1
        self.expert.play(st, self.kept, self.R.ones, self.R.ones_j, &self.alt)
        return not self.ctx.rc and self.alt.kind == A_PLAY

    cdef bint quick_out(self, HState* st, const uint8_t* hand, int n, Decision* d) noexcept nogil:
        """Whether the whole hand goes out, where may_go_out did not rule it out (self.pool:
        hand + table): True and d the whole hand (the melds one partition of hand and
        table), False (d untouched) where no play empties the hand, known exactly. The
        quick split (_quick_split.pyx, QUICK_BUDGET melds tried) answers first where it
        meets a partition; else Solver.place_all (the search for the splits that place
        everything only, where the maximum placement sweeps every split of a large hand
        and table: the going-out turns of a player who held its cards were most of an
        all-strong jokers game's time). With jokers in the pool place_all is asked first
        and the quick split only where the hand goes out (the same melds: 0.89x the CPU
        of the default study's jokers skill step, 0.95x of jokers strong + 3 x expert and
        of four strong). Where nobody reads the melds (Context.melds 0) place_all alone
        is asked, for no melds (the same decision). An error sets ctx.rc (True: d stays a
        draw)."""
        cdef int v
        global _Q_ASKED, _Q_OUT, _Q_QUICK
        _Q_ASKED += 1
        if not self.ctx.melds:
            # nobody reads the melds (Context.melds): whether they split is the solver's
            # answer alone, without melds (no quick split: the same decision)
            v = self.all_placed(st, hand, NULL)
            if v <= 0:
                return v < 0
            wit_clear(&d.wit)
        elif self.pool[JOKER] and _EXACT_FIRST:
            # with jokers the quick split meets few partitions (74 of 257 hands that go
            # out, 1,515 asked, in search games under jokers): whether the hand goes out
            # is asked of the solver first, the melds then found as before (the quick
            # split's where it meets a partition, else the solver's)
            v = self.all_placed(st, hand, &self.exact)
            if v <= 0:
                return v < 0
            if quick_split(self.pool, &self.R.srules, QUICK_BUDGET, &d.wit):
                _Q_QUICK += 1
            else:
                wit_copy(&d.wit, &self.exact)
        elif quick_split(self.pool, &self.R.srules, QUICK_BUDGET, &d.wit):
            _Q_QUICK += 1
        else:
            v = self.all_placed(st, hand, &d.wit)
            if v <= 0:
                return v < 0
        _Q_OUT += 1
        memcpy(d.placed, hand, NCARD)
        d.n_placed = n
        d.taken = 0
        d.kind = A_PLAY
        return True

    cdef int all_placed(self, HState* st, const uint8_t* hand, Witness* wit) noexcept nogil:
        """Solver.place_all on the table and the whole hand: 1 (wit: the melds) where they
        split into melds, 0 where not, < 0 an error (ctx.rc set)."""
        cdef int v = self.ctx.solver.place_all(st.table, hand, &self.R.srules, self.R.ones,
                                               self.R.ones_j, wit)
        if v < 0:
            self.ctx.rc = v
        return v

    cdef void go_out(self, HState* st, const uint8_t* hand, int n, Decision* d) noexcept nogil:
        """Play the whole hand when table and hand split into melds (quick_out; under
        _set_quick(0) the solver on their union as the table, no hand: a partition,
        cheaper than a maximum placement with a large hand); else d stays a draw."""
        cdef int64_t v
        cdef int c
        if _QUICK:   # (the caller's may_go_out left self.pool = hand + table)
            self.quick_out(st, hand, n, d)   # (the same decision: out where they split)
            return
        for c in range(NCARD):
            self.pool[c] = hand[c] + st.table[c]
        memset(self.none, 0, NCARD)
        v = self.ctx.solver.solve(self.pool, self.none, &self.R.srules, self.R.ones,
                                  self.R.ones_j, self.kept, &d.wit)
        if v < -1:
            self.ctx.rc = <int>v
        elif v >= 0:
            memcpy(d.placed, hand, NCARD)
            d.n_placed = n
            d.kind = A_PLAY

    cdef bint may_go_out(self, HState* st, const uint8_t* hand) noexcept nogil:
        """False when no play can empty the hand: without jokers (in the hand or on the
        table), a hand card that no meld of hand and table cards could hold (meld_cards
        of their union), or a union that splits into no melds (split_impossible); with
        jokers and one joker per meld, a union joker_split_impossible rejects (about 57%
        of the unions that do not split, jokers against experts). True otherwise (the
        solver decides)."""
        cdef uint32_t ps[4]
        cdef int c
        for c in range(NCARD):
            self.pool[c] = hand[c] + st.table[c]
        if self.pool[JOKER]:
            return self.R.srules.jokers_per_meld != 1 or \
                not joker_split_impossible(self.pool, self.R.srules.ace_high)
        meld_cards(self.pool, self.R.srules.ace_high, ps)
        for c in range(JOKER):
            if hand[c] and not (ps[c // 13] >> (c % 13 + 1)) & 1:
                return False
        return not split_impossible(self.pool, self.R.srules.ace_high)

    cdef void botch_one(self, HState* st, const uint8_t* hand, Decision* d) noexcept nogil:
        """d becomes a failure of the play of the first hand card (card order, no joker)
        that fits the table alone (its maximum placement); else d stays a draw. Without a
        joker on the table a card outside every meld of table and card is skipped unsolved."""
        cdef int c
        for c in range(JOKER):
            if not hand[c]:
                continue
            if self.card_alone(st, c):
                memcpy(d, &self.alt, sizeof(Decision))
                d.kind = A_FAIL
                return
            if self.ctx.rc:
                return
