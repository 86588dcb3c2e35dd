# Debug switches and probes of the exact solver (included by _solver.pyx).
#
# The _set_* functions turn one shortcut of the search off, or plant a deliberate
# fault in it, so the tests can compare each shortcut with its reference and show
# that a fault is caught; the probes read the record of the last solve (states by
# sweep and layer, the bitmap of keys) or run one sweep by itself.


def _set_prune_from(int all_from, int group_from, int suit_from=32):
    """Debug: the dominance pass's scope by layer size (default 4096, 4096, 32). It
    changes which of equal answers is returned, never the value
    (tests/core/test_solver_prune_scope.py)."""
    global _ALL_FROM, _GROUP_FROM, _SUIT_FROM
    _SUIT_FROM = suit_from
    _ALL_FROM = all_from
    _GROUP_FROM = group_from


def _set_state_limit(int states):
    """Debug: refuse to grow a solver past ``states`` states (0: the real MAX_STATES), so
    the tests meet the state limit on small positions (a solver starts with 4,096)."""
    global _STATE_LIMIT
    _STATE_LIMIT = states if states > 0 else MAX_STATES


def _set_pattern_filter(int mode):
    """Debug: how the dominance pass filters its lookups (_pattern_filter.pxi): 1 by the
    suit patterns and the keys the layer holds (and candidate patterns), 0 not at all
    (every key the rules name is looked up), 2 as 1 without the candidate patterns, -1
    by a deliberately wrong filter (the tests must catch it), -2 by the patterns and a
    deliberately wrong bitmap of keys (one that holds no key), -3 by deliberately wrong
    candidates (none with a 3+ run holding a joker)."""
    global _PAT_FILTER, _KEY_FILTER, _CANDS
    _PAT_FILTER = 1 if mode in (-2, -3, 2) else mode
    _KEY_FILTER = 0 if mode == -2 else 1
    _CANDS = 0 if mode == 2 else (-1 if mode == -3 else 1)


def _set_plain_moves(int mode):
    """Debug: how a suit step without jokers makes its moves: 1 from the lists by case
    (_plain_moves.pxi), 0 walking the choices for every state, -1 from deliberately wrong
    lists (two moves out of order: the tests must catch it)."""
    global _PLAIN_MOVES
    if mode != _PLAIN_MOVES and (mode == -1 or _PLAIN_MOVES == -1):
        _pm_init(mode == -1)
    _PLAIN_MOVES = mode


def _set_plain_rebuild(int mode):
    """Debug: how the melds of a solve without jokers are rebuilt: 1 by the walk of each
    suit's open runs (_plain_rebuild.pxi), 0 by the searches of _rebuild_decs, -1 with a
    planted wrong choice of the runs that go on (the tests must catch it)."""
    global _PLAIN_REBUILD
    _PLAIN_REBUILD = mode


def _set_joker_need(int mode):
    """Debug: 1 (the default) makes the searches with jokers drop the states whose open
    runs need more jokers than are left (_joker_need.pxi: the same answers, melds included,
    with the fixed scope of the dominance pass, _set_fixed_scope), 0 keeps them, -1 drops
    those one joker short too (deliberately wrong: the tests must catch it)."""
    global _JOKER_NEED
    _JOKER_NEED = mode


def _set_shared_moves(int mode, int cap=SHARED_KEYS):
    """Debug: 1 keeps the walks of the suit steps' choices for every problem the solver
    meets (_suit_moves.pxi), 0 walks them for each problem (the reference), -1 keeps them
    under a key that forgets the cards two values on (the tests must catch it); cap: the
    walks kept before all are forgotten (at most SHARED_KEYS). Every solver forgets the walks
    it kept under the setting before."""
    global _SHARED_MOVES, _SHARED_CAP, _SHARED_GEN
    _SHARED_MOVES = mode
    _SHARED_GEN += 1   # (what a wrong key kept is forgotten)
    _SHARED_CAP = max(1, min(cap, SHARED_KEYS))


def _shared_moves_stats(Solver solver=None):
    """Debug: the walks a solver keeps for every problem, and their moves (_suit_moves.pxi)."""
    if solver is None:
        solver = _default_solver
    cdef MoveCache* mc = <MoveCache*> (<Impl*> solver._impl).moves
    return mc.n_skeys, mc.n_protos


def _set_need_kept(int mode):
    """Debug: 1 keeps each state's jokers' need with it and each move's in its list
    (_joker_need.pxi), 0 makes them again at every step (the reference), -1 reads them
    one too many (the tests must catch it)."""
    global _NEED_KEPT
    _NEED_KEPT = mode


def _set_high_only(int mode, int min_states=2048):
    """Debug: 1 (the default) makes a solve asked for no melds search the partitions with
    every ace high before the search with aces high, which it bounds (_high_only.pxi),
    where the last sweep with aces low made min_states states at least; 0 does not; -1
    with a planted fault (its value one too high: the tests must catch it)."""
    global _HIGH_ONLY, _HIGH_ONLY_MIN
    _HIGH_ONLY = mode
    _HIGH_ONLY_MIN = min_states


def _set_left_out(int mode, int factor=4, int exact=8):
    """Debug: 1 (the default) makes a solve asked for no melds take its answer with aces
    high from the sets of hand cards a better partition could leave out (_left_out.pxi)
    where their checks cost no more than `factor` times the aces-low search's states and
    at most `exact` of them are asked of place_all; 0 does not; -1 with a planted fault
    (the first set split_impossible does not reject taken as splitting, unasked: the
    tests must catch it)."""
    global _LEFT_OUT, _LEFT_FACTOR, _LEFT_EXACT
    _LEFT_OUT = mode
    _LEFT_FACTOR = factor
    _LEFT_EXACT = min(max(exact, 0), LEFT_EXACT_CAP)


def _left_out_stats(bint reset=False):
    """Debug: (answers made from the left-out sets, place_all questions asked) since the
    last reset."""
    out = (_LEFT_STATS[0], _LEFT_STATS[1])
    if reset:
        _LEFT_STATS[0] = 0
        _LEFT_STATS[1] = 0
    return out


def _set_key_placed(int mode):
    """Debug: 1 (the default) reads a solve's placed cards from its answer's tie-break key
    where no melds are asked for (_key_placed.pxi), 0 rebuilds the melds as when they
    are, -1 reads them wrongly (one more copy of the first card type: the tests must
    catch it)."""
    global _KEY_PLACED
    _KEY_PLACED = mode


def _set_low_reject(int mode):
    """Debug: 1 skips the aces-low search where a table ace, 2, queen or king has no place
    with aces low (_low_reject.pxi), 0 always searches, -1 rejects whenever the table holds
    an ace or a king (deliberately wrong: the tests must catch it)."""
    global _LOW_REJECT
    _LOW_REJECT = mode


def _set_high_reject(int mode, int check_states=100, int min_states=2048):
    """Debug: 1 skips the search with aces high where split_impossible proves it cannot
    beat the aces-low answer (_high_reject.pxi), 0 always searches, -1 takes every tie on
    the value as lost, whatever the keys (deliberately wrong: the tests must catch it);
    check_states: a check's cost in sweep states, min_states: the fewest states of the
    last aces-low sweep for which the proof is tried (its budget; 0 and 0: none)."""
    global _HIGH_REJECT, _HIGH_CHECK, _HIGH_MIN
    _HIGH_REJECT = mode
    _HIGH_CHECK = check_states
    _HIGH_MIN = min_states


def _high_reject_stats(bint reset=False):
    """Debug: (proofs tried, proofs made) by _high_reject.pxi since the last reset (this
    process, every solver; a statistic, not thread-safe)."""
    out = (_HIGH_STATS[0], _HIGH_STATS[1])
    if reset:
        _HIGH_STATS[0] = _HIGH_STATS[1] = 0
    return out


cdef void _debug_load(Impl* im, const uint8_t* table, const uint8_t* hand) noexcept nogil:
    """Debug: an empty Impl holding (table, hand) as must / avail counts and jokers."""
    cdef int s, v
    memset(im, 0, sizeof(Impl))
    for s in range(4):
        for v in range(1, 14):
            im.must[s][v] = table[s * 13 + v - 1]
            im.avail[s][v] = table[s * 13 + v - 1] + hand[s * 13 + v - 1]
    im.jt = table[JOKER]
    im.jtot = table[JOKER] + hand[JOKER]


def _low_rejected(cnp.ndarray[cnp.uint8_t, ndim=1] table not None,
                  cnp.ndarray[cnp.uint8_t, ndim=1] hand not None) -> bool:
    """Debug: whether _low_ends_stranded rejects (table, hand) as given (no _drop_useless)."""
    cdef Impl im
    _debug_load(&im, &table[0], &hand[0])
    return bool(_low_ends_stranded(&im))


def _set_plain_drop(int on):
    """Debug: 0 drops the useless hand cards of a position without jokers by the general
    walk of _drop_useless (no bitmasks, _plain_drop.pxi)."""
    global _PLAIN_DROP
    _PLAIN_DROP = on


def _useful_counts(cnp.ndarray[cnp.uint8_t, ndim=1] table not None,
                   cnp.ndarray[cnp.uint8_t, ndim=1] hand not None, int ace_high):
    """Debug: the counts of each card (suit, value 1..13) that _drop_useless keeps."""
    cdef Impl im
    cdef int s, v
    _debug_load(&im, &table[0], &hand[0])
    im.ace_high = ace_high
    im.limited = 1
    _drop_useless(&im)
    return [[im.avail[s][v] for v in range(1, 14)] for s in range(4)]


def _set_plain_prune(int on):
    """Debug: 0 makes the dominance pass of a layer without jokers in one suit the general
    one (no one-suit pass, _plain_prune.pxi)."""
    global _PLAIN_PRUNE
    _PLAIN_PRUNE = on


def _set_plain_groups(int on):
    """Debug: 0 makes the group step of a sweep without jokers the general one (no table
    of _group_ok, _plain_groups.pxi)."""
    global _PLAIN_GROUPS
    _PLAIN_GROUPS = on


def _set_copy_steps(int on):
    """Debug: 0 runs every suit and group step in full (no copied layers, _copy_step)."""
    global _COPY_STEPS
    _COPY_STEPS = on


def _set_move_lists(int on):
    """Debug: 0 walks the choices of a suit step for every state (no lists by pattern),
    2 makes the lists of every suit step anew (none kept from sweep to sweep), 1 keeps
    them for the sweeps of one problem (_suit_moves.pxi), -1 keeps them under a
    deliberately wrong key (without the aces-high bit: the tests must catch it)."""
    global _MOVE_LISTS
    _MOVE_LISTS = on


def _set_relax_bound(int mode):
    """Debug: whether a fallen-back relaxation's value bounds the exact search: 1 (yes),
    0 (no), -1 (a deliberately wrong bound, one less: the tests must catch it)."""
    global _RELAX_BOUND
    _RELAX_BOUND = mode


def _set_memo(int on):
    """Debug: 0 turns off the memo of recent answers (every solve searches)."""
    global _MEMO
    _MEMO = on


def _memo_stats(Solver solver=None):
    """Debug: (hits, misses) of the solver's memo of recent answers."""
    if solver is None:
        solver = _default_solver
    cdef SolveMemo* m = <SolveMemo*> solver._memo
    return m.hits, m.misses


def _relax_fallbacks():
    """Debug: how many relaxed solves fell back to the exact search (this process)."""
    return _FALLBACKS[0]


def _set_relax(int on):
    """Debug: 0 turns off the unlimited-jokers relaxation of one-joker-per-meld solves."""
    global _RELAX
    _RELAX = on


def _sweep_stats(Solver solver=None):
    """Debug: the number of states made by each sweep of the last solve."""
    if solver is None:
        solver = _default_solver
    cdef Impl* im = <Impl*> solver._impl
    return [(im.stats[i], im.stats_lb[i], im.stats_high[i], im.stats_best[i], im.stats_merged[i])
            for i in range(min(im.n_sweeps, 8))]


def _key_bitmap_words(Solver solver=None):
    """Debug: the words (64 bits) of the dominance pass's bitmap of keys: (the least, in
    use by the last pass, allocated so far). A large layer's pass takes more
    (_kbits_fit), never changing which states it drops."""
    if solver is None:
        solver = _default_solver
    cdef Impl* im = <Impl*> solver._impl
    return KBITS, im.kwords, im.kalloc


def _layer_sizes(Solver solver=None):
    """Debug: the number of states in each layer of the last solve."""
    if solver is None:
        solver = _default_solver
    cdef Impl* im = <Impl*> solver._impl
    return [im.layer_start[i + 1] - im.layer_start[i] for i in range(im.n_layers + 1)]


def _layer_keys(int layer, Solver solver=None):
    """Debug: (k1, k2, val) of the states of one layer of the last solve."""
    if solver is None:
        solver = _default_solver
    cdef Impl* im = <Impl*> solver._impl
    cdef int i
    return [(im.nodes[i].k1, im.nodes[i].k2, im.nodes[i].val)
            for i in range(im.layer_start[layer], im.layer_start[layer + 1])]


def _one_sweep(cnp.ndarray[cnp.uint8_t, ndim=1] table not None,
               cnp.ndarray[cnp.uint8_t, ndim=1] hand not None,
               int ace_high, int jokers_per_meld, int merged,
               cnp.ndarray[cnp.int32_t, ndim=1] card_w not None,
               cnp.ndarray[cnp.int32_t, ndim=1] joker_w not None, long lb):
    """Debug: one sweep (aces low only, or high) with the given bound: (best value, states)."""
    cdef Solver solver = _default_solver
    cdef Impl* im = <Impl*> solver._impl
    cdef int s, v, c, best
    memset(im.must, 0, sizeof(im.must))
    memset(im.avail, 0, sizeof(im.avail))
    memset(im.w, 0, sizeof(im.w))
    memset(im.jw, 0, sizeof(im.jw))
    im.moves_valid = 0
    im.ace_high = ace_high
    im.V = 14 if ace_high else 13
    im.limited = 1 if jokers_per_meld == 1 else 0
    im.merged = merged
    for s in range(4):
        for v in range(1, 14):
            c = s * 13 + v - 1
            im.must[s][v] = table[c]
            im.avail[s][v] = table[c] + hand[c]
            im.w[s][v] = card_w[c]
        im.w[s][14] = card_w[s * 13]
        if ace_high:
            im.avail[s][14] = im.avail[s][1]
    for v in range(1, 15):
        im.jw[v] = joker_w[v]
    im.jt = table[JOKER]
    im.jtot = table[JOKER] + hand[JOKER]
    _drop_useless(im)
    _set_rest(im)
    im.ub = -1
    im.lb = lb
    im.melds_free = 0   # (the dominance pass as where melds are asked for)
    best = _sweep(im)
    return (im.nodes[best].val if best >= 0 else best), im.n_nodes


def _set_arrange(int on):
    """Debug: 0 returns the melds as the search's path rebuilds them, not the canonical
    arrangement of their cards (_arrange.pxi): to measure its cost and to compare."""
    global _ARRANGE
    _ARRANGE = on


def _arrange_counts(cnp.ndarray[cnp.uint8_t, ndim=1] used not None, int ace_high,
                    int jokers_per_meld, cnp.ndarray[cnp.int32_t, ndim=1] card_w not None,
                    cnp.ndarray[cnp.int32_t, ndim=1] joker_w not None, long val,
                    Solver solver=None):
    """Debug: the canonical arrangement (_arrange.pxi) of the cards `used` (53 counts)
    whose weight is `val` (their cards' card_w and their jokers' joker_w by the value each
    stands for): (melds, stands, (nodes, repairs, exact tests)), or None when they have
    none (the exact test finds no partition of that weight)."""
    cdef Witness wit
    cdef SolverRules rules
    cdef int i, m, n = 0, r
    if solver is None:
        solver = _default_solver
    cdef Arrange* a = <Arrange*> (<Impl*> solver._impl).arr
    if used.shape[0] != NCARD or card_w.shape[0] != NCARD or joker_w.shape[0] < 16:
        raise ValueError("used and card_w must have length 53, joker_w 16")
    if int(used.sum()) > MAX_TABLE:
        raise ValueError(f"more than {MAX_TABLE} cards")
    rules.decks = 3
    rules.ace_high = ace_high
    rules.jokers_per_meld = jokers_per_meld
    wit.n_melds = 1
    wit.start[0] = 0
    for i in range(NCARD):
        for m in range(used[i]):
            wit.cards[n] = <uint8_t>i
            wit.stands[n] = <uint8_t>i
            n += 1
    wit.start[1] = n
    with nogil:
        r = arrange_witness(a, solver._impl, &wit, val, &rules, <int32_t*> card_w.data,
                            <int32_t*> joker_w.data, 0)
    if r == -1:
        raise MemoryError()
    if r < 0:
        return None
    melds = []
    stands = []
    for m in range(wit.n_melds):
        melds.append([wit.cards[i] for i in range(wit.start[m], wit.start[m + 1])])
        stands.append([wit.stands[i] for i in range(wit.start[m], wit.start[m + 1])])
    return melds, stands, (a.nodes, a.repairs, a.oracles)



def _arr_stats(Solver solver=None):
    """Debug: (nodes, repairs, exact tests) of the last canonical arrangement."""
    if solver is None:
        solver = _default_solver
    cdef Arrange* a = <Arrange*> (<Impl*> solver._impl).arr
    return a.nodes, a.repairs, a.oracles



def _set_fixed_scope(int on):
    """Debug: 1 (the default) runs the dominance pass of the searches with jokers after
    every suit step on that suit, whatever the layer's size, and none after the group
    steps, so that a pruning that drops only states reaching no partition (the jokers a
    state needs, _joker_need.pxi) leaves every answer as it was, melds included; 0 by the
    layer's size as without jokers (_set_prune_from)."""
    global _FIXED_SCOPE
    _FIXED_SCOPE = on


def _set_free_scope(int on):
    """Debug: 0 runs the dominance pass of a search with jokers that asks for no melds as
    one that asks for them (_scope_fixed): the reference of the tests; 1 (the default) by
    the layer's size."""
    global _FREE_SCOPE
    _FREE_SCOPE = on


def _set_group_supply(int mode):
    """Debug: 1 (the default) makes a suit step of the searches with jokers drop the
    states whose groups the suits still to come at that value cannot make, their table
    cards and their open runs counted (_group_supply.pxi; with the jokers' need test on:
    the same answers, melds included), and with aces high those whose table aces left for
    14 find neither a run ending with them nor a group of aces; 2 the first test only, 0
    neither (the groups checked against every card to come, as without them), -1 drops
    the states one joker short too (deliberately wrong: the tests must catch it)."""
    global _GROUP_SUPPLY
    _GROUP_SUPPLY = mode



def _set_relax_key(int mode):
    """Debug: 1 (the default) skips the search with aces high of the exact search after a
    relaxation that fell back when its aces-low answer reaches the relaxation's value and
    tie-break key (_relax_key.pxi: the same answers, melds included), 0 runs it, -1 skips
    it whenever the relaxation's answer is known (deliberately wrong: the tests must catch
    it)."""
    global _RELAX_KEY
    _RELAX_KEY = mode


def _set_relax_low(int mode):
    """Debug: 1 (the default) makes the exact search after a relaxation that fell back
    skip its aces-low search when the relaxation's found no partition, and run its search
    with aces high first when the relaxation's aces-low partition holds no meld of two
    jokers (_relax_low.pxi: the same answers, melds included); 0 neither; -1 bounds that
    search by the value alone, dropping a partition of that value with a higher tie-break
    key (deliberately wrong: the tests must catch it)."""
    global _RELAX_LOW
    _RELAX_LOW = mode


def _relax_low_hits():
    """Debug: (aces-low searches skipped, searches with aces high run first) by
    _relax_low.pxi since the module was loaded."""
    return int(_RLOW_HITS[0]), int(_RLOW_HITS[1])


def _set_direction(int mode):
    """Debug: the direction of every solve: 0 as Solver._solve_dir chooses it, 1 the
    position as it is, 2 mirrored (_direction.pxi)."""
    global _DIRECTION
    _DIRECTION = mode


def _set_dense_first(int mode):
    """Debug: 1 (the default) solves a position with jokers in the direction its cards
    choose, 0 in the one its hand's ranks choose, as a position without jokers
    (_direction.pxi)."""
    global _DENSE_FIRST
    _DENSE_FIRST = mode


def _set_deepen_stop(int mode):
    """Debug: 1 (the default) ends a deepening at a sweep that found nothing and dropped
    nothing by its bound (no partition at all: _deepening), 0 goes on to the unbounded
    sweep, -1 with a planted fault (it ends at any sweep that found nothing: the tests
    must catch it)."""
    global _DEEPEN_STOP
    _DEEPEN_STOP = mode
