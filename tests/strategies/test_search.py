"""The search level (``search``) and the ceiling (``clairvoyant``): legal plays under
every preset, a fair player's decisions independent of the cards it cannot see (and the
clairvoyant's not), reproducible games for a seed, the registry's fair flag."""
from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from fastmach.core.cards import NCARD
from fastmach.engine import make_engine, play_games, run_play
from fastmach.game.log_reader import replay
from fastmach.rules import PRESETS, Rules
from fastmach.strategies import REGISTRY, describe, fair_names
from tests.positions import game_positions

SEARCH = "search(budget=2)"
CLAIRVOYANT = "clairvoyant"
# every fair player at a small budget (the name alone where it has no budget)
FAIR = {"lookahead": "lookahead(playouts=2)", "search": SEARCH,
        "patient": "patient", "expert": "expert"}


def _single(preset: str) -> Rules:
    r = Rules.parse(preset)
    return r if r.match_kind == "single" else r.replace(match="single")


# ----------------------------------------------------------------- legal everywhere
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("strategy", [SEARCH, "search(budget=2,policy=holding)", CLAIRVOYANT])
def test_search_and_clairvoyant_play_legally_under_every_preset(preset, strategy, tmp_path):
    r = _single(preset)
    seats = [strategy, "expert", "beginner", "expert"][:r.players]
    df = play_games(r, seats, 3, range(2), check=True)   # the engine's invariants, every turn
    assert len(df) == 2 and (df["turns"] > 0).all()
    log = tmp_path / "games.jsonl"
    run_play(r, seats, 1, 5, rotate=True, log=log, progress=False)
    hands = replay(log)   # every logged turn re-checked by the independent validator
    assert len(hands) >= len(seats)


def test_search_under_an_opening_rule_and_joker_swap_is_legal():
    r = Rules.parse("ace-low(jokers=2,opening_points=36,match=single)")
    df = play_games(r, [SEARCH, "expert", CLAIRVOYANT, "expert"], 4, range(3), check=True)
    assert len(df) == 3


# ----------------------------------------------------------------- what a seat sees
def _permuted(st, seat: int, rng: random.Random):
    """The position's hands and stock with the cards `seat` cannot see dealt again (every
    other hand keeps its size, the stock its length)."""
    hands = [np.array(h, dtype=np.int64) for h in st._hands]
    pool = [c for s, h in enumerate(hands) if s != seat for c in range(NCARD)
            for _ in range(int(h[c]))] + list(st.stock)
    rng.shuffle(pool)
    k = 0
    out = []
    for s, h in enumerate(hands):
        if s == seat:
            out.append(h.copy())
            continue
        n = int(h.sum())
        nh = np.zeros(NCARD, dtype=np.int64)
        for c in pool[k:k + n]:
            nh[c] += 1
        k += n
        out.append(nh)
    return out, pool[k:]


def _decide(eng, st, hands, stock):
    seat = st.current_player
    kind, placed, taken, melds, stands, rng = eng.decide_position(
        seat, hands, st._melds, st._stands, st.opened, len(stock), st.rng_state,
        st.failed_last, stock=stock)
    return kind, placed.tolist(), taken, melds, stands, rng


def _hidden_positions(preset: str, games: int, seed: int):
    r, positions = game_positions(preset, ("expert", "beginner"), games, seed)
    return r, [st for st in positions if st.stock][:40]


@pytest.mark.parametrize("preset", ["classic(match=single)", "jokers"])
def test_fair_players_decide_alike_whatever_the_hidden_cards(preset):
    r, positions = _hidden_positions(preset, 3, 4)
    names = fair_names()
    assert "clairvoyant" not in names and "search" in names
    rng = random.Random(9)
    for name in names:
        eng = make_engine(r, [FAIR.get(name, name)] * r.players)[2]
        for st in positions[:8 if name in ("search", "lookahead") else 40]:
            base = _decide(eng, st, st._hands, list(st.stock))
            for _ in range(2):
                hands, stock = _permuted(st, st.current_player, rng)
                assert _decide(eng, st, hands, stock) == base, (name, str(st))


@pytest.mark.parametrize("preset,strategy", [
    ("classic(match=single)", "search(budget=2,policy=expert)"),
    ("jokers", "search(budget=2,policy=holding)"),
    ("ace-low(match=single)", "search(budget=3)"),
])
def test_the_search_on_every_policy_decides_alike_whatever_the_hidden_cards(preset, strategy):
    r, positions = _hidden_positions(preset, 3, 5)
    eng = make_engine(r, [strategy] * r.players)[2]
    rng = random.Random(11)
    for st in positions[:8]:
        base = _decide(eng, st, st._hands, list(st.stock))
        hands, stock = _permuted(st, st.current_player, rng)
        assert _decide(eng, st, hands, stock) == base, (strategy, str(st))


def test_the_clairvoyant_decides_on_the_hidden_cards():
    # the same positions: somewhere, dealing the hidden cards again changes its play
    r, positions = _hidden_positions("jokers", 3, 4)
    eng = make_engine(r, [CLAIRVOYANT] * r.players)[2]
    rng = random.Random(9)
    changed = 0
    for st in positions:
        base = _decide(eng, st, st._hands, list(st.stock))
        hands, stock = _permuted(st, st.current_player, rng)
        changed += _decide(eng, st, hands, stock)[:2] != base[:2]
        if changed:
            break
    assert changed


@pytest.mark.parametrize("preset, policy, other", [
    ("italian", "expert", "strong"),                  # a player must play when able
    ("classic(match=single)", "strong", "expert"),   # a player may draw instead
])
def test_the_clairvoyants_auto_policy_is_strong_only_where_a_player_may_hold(
        preset, policy, other):
    r, positions = _hidden_positions(preset, 3, 4)
    engines = {name: make_engine(r, [name] * r.players)[2] for name in
               ("clairvoyant", f"clairvoyant(policy={policy})", f"clairvoyant(policy={other})")}
    differs = 0
    for st in positions:
        seen = {name: _decide(e, st, st._hands, list(st.stock))[:2]
                for name, e in engines.items()}
        assert seen["clairvoyant"] == seen[f"clairvoyant(policy={policy})"]
        differs += seen["clairvoyant"] != seen[f"clairvoyant(policy={other})"]
    assert differs   # the other policy plays otherwise somewhere: the test can fail


# ----------------------------------------------------------------- the opponent model
def _round_before(st, placer: int, drawer: int):
    """The hands and stock of st one round earlier: `placer` held two more cards (it
    placed them since), `drawer` one fewer (it drew it since); every other hand the same."""
    hands = [np.array(h, dtype=np.int64) for h in st._hands]
    stock = list(st.stock)
    give = [c for c in range(NCARD) for _ in range(int(hands[drawer][c]))][0]
    hands[drawer][give] -= 1
    for c in stock[:2]:
        hands[placer][c] += 1
    return hands, [give] + stock[2:]


def _at(eng, st, hands, stock, turn, hand_no=0):
    kind, placed, taken, melds, stands, rng = eng.decide_position(
        st.current_player, hands, st._melds, st._stands, st.opened, len(stock), st.rng_state,
        st.failed_last, turn=turn, hand_no=hand_no, stock=stock)
    return kind, placed.tolist(), taken, melds, stands, rng


def _opponent_position():
    r, positions = _hidden_positions("classic(match=single)", 3, 4)
    st = next(p for p in positions if len(p.stock) >= 4)
    seat = st.current_player
    return r, st, seat, (seat + 1) % 4, (seat + 2) % 4


@pytest.mark.parametrize("model", ["policy", "expert", "observed"])
def test_the_playouts_play_as_experts_the_opponents_the_public_hand_sizes_show(model):
    # observed: the seat whose hand shrank over the last round while the stock lasted (it
    # placed cards without going out) is played as the expert, one that drew is not;
    # remembered through the hand, forgotten in a new hand or out of turn order
    r, st, seat, placer, drawer = _opponent_position()
    eng = make_engine(r, [f"search(budget=2,opponents={model})"] * 4)[2]
    search = eng.seats[seat]
    others = sorted(s for s in range(4) if s != seat)
    expect = {"policy": [], "expert": others, "observed": [placer]}[model]
    before, stock = _round_before(st, placer, drawer)
    _at(eng, st, before, stock, turn=20)
    assert search.expert_seats() == ([] if model != "expert" else others)
    _at(eng, st, st._hands, list(st.stock), turn=24)
    assert search.expert_seats() == expect
    _at(eng, st, st._hands, list(st.stock), turn=28)   # nothing shrank: still remembered
    assert search.expert_seats() == expect
    _at(eng, st, st._hands, list(st.stock), turn=32, hand_no=1)   # a new hand
    assert search.expert_seats() == ([] if model != "expert" else others)
    _at(eng, st, before, stock, turn=20)
    _at(eng, st, st._hands, list(st.stock), turn=25)   # not one round later
    assert search.expert_seats() == ([] if model != "expert" else others)


def test_an_opponent_placing_cards_on_an_empty_stock_is_not_taken_for_an_expert():
    r, st, seat, placer, drawer = _opponent_position()
    eng = make_engine(r, ["search(budget=2,opponents=observed)"] * 4)[2]
    before, stock = _round_before(st, placer, drawer)
    _at(eng, st, before, stock, turn=20)
    _at(eng, st, st._hands, [], turn=24)
    assert eng.seats[seat].expert_seats() == []


@pytest.mark.parametrize("model", ["expert", "observed"])
def test_the_search_on_each_opponent_model_decides_alike_whatever_the_hidden_cards(model):
    # the decision after a public history (an opponent placed cards over the last round)
    # is the same however the cards the seat cannot see are dealt, then and now
    r, positions = _hidden_positions("classic(match=single)", 3, 4)
    eng = make_engine(r, [f"search(budget=2,opponents={model})"] * 4)[2]
    rng = random.Random(13)
    tried = 0
    for st in [p for p in positions if len(p.stock) >= 4][:6]:
        seat = st.current_player
        placer, drawer = (seat + 1) % 4, (seat + 3) % 4
        base = None
        for k in range(3):
            hands, stock = (st._hands, list(st.stock)) if k == 0 else _permuted(st, seat, rng)
            before, early = _round_before(_Hidden(hands, stock), placer, drawer)
            _at(eng, st, before, early, turn=20)
            got = _at(eng, st, hands, stock, turn=24)
            assert eng.seats[seat].expert_seats() == (
                [placer] if model == "observed" else sorted(set(range(4)) - {seat}))
            if base is None:
                base = got
            assert got == base, (model, str(st))
        tried += 1
    assert tried >= 3


class _Hidden:
    """The hands and stock of a position, as _round_before reads them."""

    def __init__(self, hands, stock):
        self._hands = hands
        self.stock = stock


def _drawer_positions(n: int):
    """Positions of classic single hands with the stock lasting, each with the hands and
    stock of one round earlier where the seat after next held one card fewer (it drew it
    since) and the next seat two more (it placed them since)."""
    r, positions = _hidden_positions("classic(match=single)", 3, 4)
    out = []
    for st in [p for p in positions if len(p.stock) >= 4][:n]:
        seat = st.current_player
        placer, drawer = (seat + 1) % 4, (seat + 2) % 4
        out.append((st, seat, placer, drawer, _round_before(st, placer, drawer)))
    return r, out


def _draws_from(eng, st, seat: int, hand, drawn: int, hands, stock_left: int) -> bool:
    """Whether the engine's seat draws from `hand` less the card `drawn` on st's table."""
    h = [np.array(x, dtype=np.int64) for x in hands]
    h[seat] = np.array(hand, dtype=np.int64)
    h[seat][drawn] -= 1
    kind = eng.decide_position(seat, h, st._melds, st._stands, st.opened, stock_left + 1,
                               7, st.failed_last)[0]
    return kind != "play"


@pytest.mark.parametrize("model,judge", [("expert", "expert"), ("policy", "strong")])
def test_history_deals_give_an_opponent_that_drew_a_hand_its_model_draws_from(model, judge):
    # the opponent whose hand grew by one card over the last round (the stock lasting)
    # drew: every deal of its hand, less the card taken as its draw, leaves its playout
    # model (the expert, or the strong policy) no play on the table, unless the deal is
    # counted a miss; the seat that placed cards is dealt at random
    r, cases = _drawer_positions(12)
    eng = make_engine(r, [f"search(budget=2,opponents={model},deals=history)"] * 4)[2]
    ref = make_engine(r, [judge] * 4)[2]
    checked = 0
    for st, seat, placer, drawer, (before, early) in cases:
        search = eng.seats[seat]
        _at(eng, st, before, early, turn=20)
        misses = search.misses
        if _at(eng, st, st._hands, list(st.stock), turn=24)[5] == st.rng_state:
            continue   # nothing weighed: no deal sampled
        hands, drawn, drew = search.last_deal()
        assert drew == [drawer]
        assert drawn[drawer] >= 0 and hands[drawer][drawn[drawer]] > 0
        assert all(d == -1 for s, d in enumerate(drawn) if s != drawer)
        assert hands[seat].tolist() == st._hands[seat].tolist()
        assert [int(h.sum()) for h in hands] == [int(h.sum()) for h in st._hands]
        hidden = sum(st._hands[s] for s in range(4) if s != seat) + np.bincount(
            st.stock, minlength=NCARD)
        assert (sum(hands[s] for s in range(4) if s != seat) <= hidden).all()
        if search.misses == misses:
            assert _draws_from(ref, st, drawer, hands[drawer], drawn[drawer], hands,
                               len(st.stock)), str(st)
            checked += 1
    assert checked >= 3


def test_uniform_deals_give_an_opponent_that_drew_hands_it_could_play_from():
    # the control of the test above: without the history rule the expert model is dealt,
    # somewhere, a hand it would play from (so the rule changes the deals)
    r, cases = _drawer_positions(12)
    eng = make_engine(r, ["search(budget=2,opponents=expert,deals=uniform)"] * 4)[2]
    ref = make_engine(r, ["expert"] * 4)[2]
    plays = 0
    for st, seat, placer, drawer, (before, early) in cases:
        _at(eng, st, before, early, turn=20)
        if _at(eng, st, st._hands, list(st.stock), turn=24)[5] == st.rng_state:
            continue
        hands, drawn, drew = eng.seats[seat].last_deal()
        assert drew == [drawer] and drawn == [-1] * 4
        card = int(np.flatnonzero(hands[drawer])[0])
        plays += not _draws_from(ref, st, drawer, hands[drawer], card, hands, len(st.stock))
    assert plays > 0


# ----------------------------------------------------------------- the search itself
def test_search_never_places_more_than_the_maximum_and_empties_when_it_can():
    r, positions = game_positions("classic(match=single)", ("expert", "beginner"), 3, 6)
    look = make_engine(r, [SEARCH] * r.players)[2]
    exp = make_engine(r, ["expert"] * r.players)[2]
    weighed = 0
    for st in positions[:60]:
        a = _decide(look, st, st._hands, list(st.stock))
        b = _decide(exp, st, st._hands, list(st.stock))
        hand_n = int(np.sum(st._hands[st.current_player]))
        if b[0] != "play" or sum(b[1]) - b[2] == hand_n:
            assert a[:3] == b[:3] and a[5] == st.rng_state   # nothing to weigh, no PRNG draw
            continue
        weighed += 1
        assert a[5] != st.rng_state
        if a[0] == "play":
            assert sum(a[1]) - a[2] <= sum(b[1]) - b[2]
            assert all(x <= h for x, h in zip(a[1], st._hands[st.current_player]))
    assert weighed > 10


# the seat that plays as a policy plays: the search's default policy is the default strong
# player (it botches where that pays), its strong policy never botches on purpose
POLICY_SEAT = {"botching": "strong(trained=false)", "strong": "strong(botch=false)", "expert": "expert",
               "trained": "strong"}


@pytest.mark.parametrize("policy", ["botching", "strong", "expert"])
def test_search_leaves_the_policys_play_only_on_evidence(policy):
    # one sampled deal gives no standard error: budget 1 plays the policy's play
    # everywhere (the same cards; the solver may arrange the table another way), without
    # a playout (no PRNG draw); a large budget departs from it somewhere (the adjusted
    # rule rarely departs at small budgets)
    r, positions = game_positions("classic(match=single)", ("expert", "beginner"), 3, 6)
    one = make_engine(r, [f"search(budget=1,policy={policy})"] * r.players)[2]
    many = make_engine(r, [f"search(budget=48,policy={policy})"] * r.players)[2]
    base = make_engine(r, [POLICY_SEAT[policy]] * r.players)[2]
    departed = 0
    for st in positions[:60]:
        b = _decide(base, st, st._hands, list(st.stock))
        a = _decide(one, st, st._hands, list(st.stock))
        assert a[:3] == b[:3] and a[5] == b[5] == st.rng_state
        if not departed:   # one departure shows it; the rest would only cost time
            departed += _decide(many, st, st._hands, list(st.stock))[:3] != b[:3]
    assert departed > 0


def _adjusted_departure(w: np.ndarray, alive: np.ndarray | None = None) -> int:
    """Test-local reference of the departure rule on one decision's playouts (rounds x
    candidates of win shares, candidate 0 the policy's play): among the candidates in
    the race (``alive``, every one by default) the highest mean paired difference from
    candidate 0, where it exceeds z standard errors of the sample variance averaged over
    those candidates (at least 0.05), z the normal's 1 - 0.05 / m quantile for m =
    candidates - 1 (one-sided, Bonferroni; the dropped counted), m capped at 10."""
    from scipy.stats import norm
    b, n = w.shape
    alive = np.ones(n, bool) if alive is None else alive
    ks = [k for k in range(1, n) if alive[k]]
    if not ks:
        return 0
    d = w[:, ks] - w[:, [0]]
    m = d.mean(axis=0)
    v = max(float(np.mean(np.clip(d.var(axis=0, ddof=1), 0, None))), 0.05)
    z = round(float(norm.ppf(1 - 0.05 / min(n - 1, 10))), 3)   # the rule's table
    k = int(np.argmax(m))
    return ks[k] if m[k] > z * math.sqrt(v / b) + 1e-12 else 0


def _raced(w: np.ndarray) -> tuple[np.ndarray, int]:
    """Test-local reference of the race on the flat rounds' playouts: the candidates still
    in it at the end, and the rounds played. After b // 4 and after b // 2 rounds (where
    that is 2 or more; after the first of 2 rounds) a candidate whose paired win
    differences from the policy's play sum to 0 or less over the rounds so far leaves it
    (the policy's play stays); the race stops where none is left."""
    b, n = w.shape
    alive = np.ones(n, bool)
    for i in sorted({b // 4, b // 2}):
        if i < 2 and not (b == 2 and i == 1):
            continue
        d = (w[:i, 1:] - w[:i, [0]]).sum(axis=0)
        alive[1:] &= d > 1e-12
        if not alive[1:].any():
            return alive, i
    return alive, b


@pytest.fixture
def flat_rounds():
    """Switches the search's race off (every candidate played out in every round, the
    reference) for the test; on again after it."""
    from fastmach.strategies import _search
    default = _search._set_race(0)
    _search._set_race(default)
    yield lambda on: _search._set_race(default if on else 0)
    _search._set_race(default)


def test_search_departs_by_the_adjusted_rule_on_its_own_playouts(flat_rounds):
    # every weighed decision, flat rounds: the candidate played is the reference rule's
    # on the playouts it recorded, and the policy's play (the same cards) exactly when
    # that is 0
    flat_rounds(False)
    r, positions = game_positions("classic(match=single)", ("strong", "expert"), 3, 8)
    eng = make_engine(r, ["search(budget=16,policy=botching)"] * r.players)[2]
    base = make_engine(r, [POLICY_SEAT["botching"]] * r.players)[2]
    weighed = departed = 0
    for st in positions[:50]:
        a = _decide(eng, st, st._hands, list(st.stock))
        if a[5] == st.rng_state:
            continue
        w, cards, points, chosen = eng.seats[st.current_player].last_playouts()
        assert w.shape[0] == 16 and w.shape[1] >= 2
        assert ((w >= 0) & (w <= 1)).all() and (cards >= 0).all() and (points >= 0).all()
        weighed += 1
        assert chosen == _adjusted_departure(w)
        b = _decide(base, st, st._hands, list(st.stock))
        assert (a[:3] == b[:3]) == (chosen == 0)
        departed += chosen > 0
    assert weighed >= 10 and 0 < departed < weighed


@pytest.mark.parametrize("policy, budget", [("botching", 8), ("trained", 8), ("trained", 2)])
def test_the_race_plays_out_what_the_flat_rounds_play_and_departs_by_the_reference(
        policy, budget, flat_rounds):
    # the same positions decided by two engines in turn, one on flat rounds, one racing:
    # every playout the race runs is the flat rounds' (the same deals and PRNG), it drops
    # exactly the candidates the reference race drops, stops when none is left, and
    # departs by the reference rule over the candidates left
    r, positions = game_positions("classic(match=single)", ("strong", "expert"), 3, 8)
    name = f"search(budget={budget},policy={policy})"
    flat = make_engine(r, [name] * r.players)[2]
    race = make_engine(r, [name] * r.players)[2]
    weighed = dropped = stopped = 0
    for st in positions[:60]:
        flat_rounds(False)
        a = _decide(flat, st, st._hands, list(st.stock))
        flat_rounds(True)
        b = _decide(race, st, st._hands, list(st.stock))
        if a[5] == st.rng_state:
            assert b == a   # nothing weighed: the same play, no PRNG draw
            continue
        weighed += 1
        w, *_ = flat.seats[st.current_player].last_playouts()
        v, *_, chosen = race.seats[st.current_player].last_playouts()
        alive, rounds = _raced(w)
        played = v >= 0
        assert len(v) == rounds and (v[played] == w[:rounds][played]).all()
        assert played[0].all()
        if not alive[1:].any():   # nothing left in the race: it stops there
            assert rounds < budget and chosen == 0
            stopped += 1
        else:
            assert (played[-1] == alive).all()   # the candidates left play to the end
            assert chosen == _adjusted_departure(w, alive)
        dropped += int((~alive).sum())
        if chosen == 0:   # the policy's play, as the flat rounds' where they do not depart
            assert b[:3] == race_policy(r, policy, st)
    assert weighed >= 10 and dropped > 0 and stopped > 0


@pytest.mark.parametrize("name", ["search(budget=4,policy=botching)",
                                  "search(budget=4,policy=strong,opponents=expert)",
                                  "search(budget=4,policy=expert,deals=uniform)"])
def test_per_seat_playouts_play_what_the_one_policy_playouts_play(name, flat_rounds):
    # a policy that is no mixture: the playouts by a strategy per seat (the policy, the
    # expert for the opponents the model plays as experts) are the reference path's
    # (fastmach.strategies._playout.play_out) on the flat rounds: the same playouts, the
    # same decisions, the same PRNG
    from fastmach.strategies import _search
    flat_rounds(False)
    r, positions = game_positions("classic(match=single)", ("strong", "expert"), 3, 9)
    new = make_engine(r, [name] * r.players)[2]
    old = make_engine(r, [name] * r.players)[2]
    weighed = 0
    try:
        for st in positions[:40]:
            a = _decide(new, st, st._hands, list(st.stock))
            _search._set_seats(0)
            b = _decide(old, st, st._hands, list(st.stock))
            _search._set_seats(1)
            assert a == b, str(st)
            if a[5] != st.rng_state:
                weighed += 1
                wa = new.seats[st.current_player].last_playouts()
                wb = old.seats[st.current_player].last_playouts()
                assert all((x == y).all() for x, y in zip(wa[:3], wb[:3])) and wa[3] == wb[3]
    finally:
        _search._set_seats(1)
    assert weighed >= 5


def race_policy(r, policy: str, st):
    """The play of the search's policy at st (candidate 0)."""
    eng = make_engine(r, [POLICY_SEAT[policy]] * r.players)[2]
    return _decide(eng, st, st._hands, list(st.stock))[:3]


def test_the_trained_policys_playouts_draw_the_opponents_members_by_the_weights():
    # the search's own member is the one its hand's deal key gives (its own coin); each
    # opponent's is drawn at random by the mixture's weights from the game's PRNG in every
    # round (the opponents' coins are not read from the deal key)
    from fastmach.strategies.trained import policy_for
    r, positions = game_positions("classic(match=single)", ("strong", "expert"), 3, 8)
    weights = policy_for(str(r), 4).weights
    eng = make_engine(r, ["search(budget=2,policy=trained)"] * r.players)[2]
    ref = make_engine(r, ["strong"] * r.players)[2].seats[0]
    seen: list[int] = []
    other = 0
    rng = 1 << 40   # a PRNG state per deal key: the rounds' draws differ
    for key in range(40):
        for st in positions[:20]:
            seat = st.current_player
            out = eng.decide_position(seat, st._hands, st._melds, st._stands, st.opened,
                                      len(st.stock), rng + key, stock=st.stock,
                                      deal_key=key)
            if out[5] == rng + key:
                continue
            models = eng.seats[seat].last_models()
            assert models[seat] == ref.member_of(key, seat)
            seen += [m for s, m in enumerate(models) if s != seat and m != -2]
            other += sum(m != ref.member_of(key, s) for s, m in enumerate(models)
                         if s != seat and m != -2)
            break
    share = np.mean(np.array(seen) == 1)
    assert len(seen) >= 60 and abs(share - weights[1] / sum(weights)) < 0.15
    assert other > 0   # not the members the deal key gives the opponents


def _last_round_position(strategy: str):
    """ace-low: one card left in the stock (the strong player's last round: it plays,
    keeping its kings back), three kings and 2-3-4 of clubs in hand with a 9 that fits
    nowhere, eight cards in every other hand. Placing the kings leaves 9 points, keeping
    them 39: the lowest hand wins when the stock's end ends the hand."""
    from fastmach.core.cards import parse_cards
    from fastmach.game import Game
    rules = "ace-low(match=single)"
    eng = make_engine(rules, [strategy] * 4)[2]
    st = Game(rules, ["expert"] * 4).new_initial_state(0, 0)
    others = [["5S", "8C", "QD", "2H"] * 2, ["6D", "10S", "JC", "3H"] * 2,
              ["7S", "9C", "AH", "4D"] * 2]
    st.set_position([["KS", "KH", "KD", "2C", "3C", "4C", "9D"]] + others,
                    [["5H", "6H", "7H"]], current_player=0)
    kind, placed, *_, rng = eng.decide_position(0, st._hands, st._melds, st._stands,
                                                st.opened, 1, 7)
    kings = parse_cards(["KS", "KH", "KD"])
    return kind, sorted(np.repeat(np.arange(NCARD), placed).tolist()), kings, rng


@pytest.mark.parametrize("budget", [4, 8])
def test_search_places_what_the_policy_keeps_back_where_that_clearly_wins(budget):
    kind, placed, kings, rng = _last_round_position("strong(trained=false)")
    assert kind == "play" and not set(kings) & set(placed)   # the strong player keeps them
    kind, placed, kings, rng = _last_round_position(f"search(budget={budget})")
    assert kind == "play" and set(kings) <= set(placed) and rng != 7


@pytest.mark.parametrize("search, policy", [("search(budget=1)", "strong"),
                                            ("search(budget=1,policy=botching)",
                                             "strong(trained=false)")])
def test_search_with_budget_one_plays_the_policy_on_a_clear_position(search, policy):
    # the default policy is the trained player of the rules (strong), botching the
    # hand-tuned strong player
    expect = _last_round_position(policy)
    kind, placed, kings, rng = _last_round_position(search)
    assert (kind, placed) == expect[:2] and rng == 7   # no playout, no PRNG draw


SEARCH_STUDY = """\
[study]
name = "search-workers"
seed = 5
games = 4
chunk = 1

[grid]
rules = ["classic(match=single)"]
players = [4]
lineup = [["search(budget=2)", "strong", "strong", "strong"],
          ["search(budget=2,opponents=policy)", "expert", "expert", "strong"]]
"""


def test_search_games_are_the_same_on_one_and_two_workers(tmp_path):
    from fastmach.study import Study
    from fastmach.study.driver import run_study
    study = Study.from_toml(SEARCH_STUDY)
    one = run_study(study, tmp_path / "one", workers=1, progress=False)
    two = run_study(study, tmp_path / "two", workers=2, progress=False)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 8
    assert set(one["strategy_0"]) == {"search(budget=2)", "search(budget=2,opponents=0)"}


def test_search_and_clairvoyant_games_are_reproducible_for_a_seed():
    seats = [SEARCH, "expert", CLAIRVOYANT, "search(budget=2,policy=holding)"]
    a = play_games("classic(match=single)", seats, 11, range(3))
    b = play_games("classic(match=single)", seats, 11, range(3))
    assert a.equals(b)
    c = play_games("classic(match=single)", seats, 12, range(3))
    assert not a.equals(c)


def _holding_engine(rules: str):
    from fastmach.engine import _engine, engine_config
    from fastmach.strategies import Context
    from fastmach.strategies._expert import Expert
    from fastmach.strategies._search import Holding
    from fastmach.strategies._tactics import Opening, Skilled
    r = Rules.parse(rules)
    cfg = engine_config(r, False)
    ctx = Context(cfg)
    seat = Opening(ctx, Skilled(ctx, Holding(ctx, Expert(ctx))))
    return _engine.Engine(cfg, ctx, [seat] * r.players)


def _play(eng, hands, table, stock_left=5):
    from fastmach.game import Game
    st = Game("jokers", ["expert"] * 4).new_initial_state(0, 0)
    st.set_position(hands, table, current_player=0)
    kind, placed, *_ = eng.decide_position(0, st._hands, st._melds, st._stands, st.opened,
                                           stock_left, 7)
    return kind, sorted(np.repeat(np.arange(NCARD), placed).tolist())


def test_holding_policy_keeps_jokers_and_faces_until_the_play_empties_the_hand():
    from fastmach.core.cards import parse_cards
    eng = _holding_engine("jokers")
    others = [["2C"], ["3C"], ["4D"]]
    # 5-6-7 goes down, the face run and the joker wait
    kind, placed = _play(eng, [["JH", "QH", "KH", "5S", "6S", "7S", "JK", "9D"]] + others, [])
    assert kind == "play" and placed == sorted(parse_cards(["5S", "6S", "7S"]))
    # the whole hand goes out: the faces and the joker with it
    kind, placed = _play(eng, [["JH", "QH", "KH", "5S", "6S", "7S", "JK"]] + others, [])
    assert kind == "play" and len(placed) == 7
    # only faces to play: it draws
    kind, placed = _play(eng, [["JH", "QH", "KH", "9D"]] + others, [])
    assert kind == "draw"


# ----------------------------------------------------------------- the registry
def test_clairvoyant_is_marked_unfair_and_listed_so():
    assert REGISTRY["clairvoyant"].fair is False
    assert all(REGISTRY[n].fair for n in fair_names())
    lines = [x for x in describe() if x.startswith("clairvoyant: ")]
    assert len(lines) == 1 and "not fair" in lines[0]
    assert "not fair" not in next(x for x in describe() if x.startswith("search: "))


def test_parameters_of_the_search_parse_with_their_words():
    from fastmach.strategies import parse_strategy
    s = parse_strategy("search(budget=16,policy=holding)")
    assert s.params == {"budget": 16, "policy": 1, "opponents": 2, "deals": 1}
    assert str(s) == "search(budget=16,policy=1)"
    # the search plays on the trained strong player, the clairvoyant on auto (strong
    # without its botch where the rules let a player draw when able, the expert where
    # they do not)
    assert str(parse_strategy("search(policy=trained)")) == "search"
    assert str(parse_strategy("search(policy=botching)")) == "search(policy=4)"
    assert str(parse_strategy("search(policy=strong)")) == "search(policy=2)"
    assert str(parse_strategy("search(policy=expert)")) == "search(policy=0)"
    assert str(parse_strategy("clairvoyant(policy=auto)")) == "clairvoyant"
    assert str(parse_strategy("clairvoyant(policy=strong)")) == "clairvoyant(policy=2)"
    assert str(parse_strategy("clairvoyant(policy=expert)")) == "clairvoyant(policy=0)"
    # the search's playouts play the opponents as observed, its deals follow the public
    # history; the clairvoyant's opponents are modelled as observed too (it sees the
    # cards, so it has no deals to choose)
    assert str(parse_strategy("search(opponents=observed,deals=history)")) == "search"
    assert str(parse_strategy("search(opponents=policy)")) == "search(opponents=0)"
    assert str(parse_strategy("search(deals=uniform)")) == "search(deals=0)"
    assert str(parse_strategy("clairvoyant(opponents=observed)")) == "clairvoyant"
    assert str(parse_strategy("clairvoyant(opponents=policy)")) == "clairvoyant(opponents=0)"
    with pytest.raises(Exception, match="deals"):
        parse_strategy("clairvoyant(deals=history)")
    assert str(parse_strategy("clairvoyant(policy=expert,opponents=expert)")) == \
        "clairvoyant(policy=0,opponents=1)"


def test_bench_reports_search_and_clairvoyant_decisions_per_second():
    from fastmach.tools.bench import bench_search, format_search
    rows = bench_search(budgets=(2, 4), positions=5)
    assert [r["strategy"] for r in rows] == ["expert", "search(budget=2)",
                                             "search(budget=4)", "clairvoyant"]
    for r in rows:
        assert r["positions"] == 5 and 0 < r["weighed"] <= 5 and r["decisions_per_s"] > 0
    assert rows[0]["weighed"] == 5   # the reference decides every position
    # the same positions are weighed whatever the budget (candidates do not depend on it)
    assert rows[1]["weighed"] == rows[2]["weighed"]
    assert "decisions/s" in format_search(rows)


# ----------------------------------------------------------------- measuring switches
@pytest.fixture
def search_switches():
    from fastmach.strategies import _search
    before = (_search._set_sources(0x7ff), _search._set_depart_scale(1.0),
              _search._set_peek(0), _search._set_history_tries(12))
    _search._departures(reset=True)
    _search._history_counts(reset=True)
    yield _search
    _search._set_sources(before[0])
    _search._set_depart_scale(before[1])
    _search._set_peek(before[2])
    _search._set_history_tries(before[3])


def test_the_search_offered_only_the_policys_play_plays_the_trained_players_games(
        search_switches):
    # the policy's play alone (no other source): nothing is weighed and the search's games
    # are those of the trained strong in its seat; every source offered: it weighs, and
    # its departures are counted by the source of the play chosen
    rules = "italian"
    strong = play_games(rules, ["strong"] * 4, 5, range(6))
    search_switches._set_sources(0)
    alone = play_games(rules, ["search(budget=4)"] + ["strong"] * 3, 5, range(6))
    assert search_switches._departures()[0] == 0
    pd.testing.assert_frame_equal(alone.drop(columns=["strategy_0"]),
                                  strong.drop(columns=["strategy_0"]))
    search_switches._set_sources(0x7ff)
    search_switches._set_depart_scale(1e9)   # no mean clears the test: never departs
    held = play_games(rules, ["search(budget=4)"] + ["strong"] * 3, 5, range(6))
    weighed, departs = search_switches._departures(reset=True)
    assert weighed > 0 and sum(departs) == 0 and departs[0] == 0
    pd.testing.assert_frame_equal(held.drop(columns=["strategy_0"]),
                                  strong.drop(columns=["strategy_0"]))
    search_switches._set_depart_scale(0.0)   # the best mean above 0 departs
    play_games(rules, ["search(budget=4)"] + ["strong"] * 3, 5, range(6))
    weighed, departs = search_switches._departures()
    assert weighed > 0 and sum(departs) > 0 and departs[0] == 0


def test_peeking_deals_the_opponents_true_hands_and_a_shuffled_stock(search_switches):
    # the unfair measuring switch: the sampled deal keeps every hand, the stock's cards
    # dealt again in another order
    r, positions = _hidden_positions("jokers", 3, 4)
    eng = make_engine(r, ["search(budget=2,deals=uniform)"] * r.players)[2]
    search_switches._set_peek(1)
    seen = moved = 0
    for st in positions:
        if _decide(eng, st, st._hands, list(st.stock))[5] == st.rng_state:
            continue   # nothing weighed: no deal sampled
        hands = eng.seats[st.current_player].last_deal()[0]
        assert [h.tolist() for h in hands] == [np.asarray(h).tolist() for h in st._hands]
        seen += 1
        if seen >= 3:
            break
    assert seen >= 3
    search_switches._set_peek(0)
    for st in positions:
        if _decide(eng, st, st._hands, list(st.stock))[5] == st.rng_state:
            continue
        hands = eng.seats[st.current_player].last_deal()[0]
        moved += [h.tolist() for h in hands] != [np.asarray(h).tolist() for h in st._hands]
    assert moved > 0


def test_the_clairvoyant_on_the_trained_policy_plays_the_trained_mixture():
    from fastmach.strategies._mixed import Mixed
    r = Rules.parse("classic(match=single)")
    eng = make_engine(r, ["clairvoyant(policy=trained)", "clairvoyant", "search", "expert"])[2]
    assert isinstance(eng.seats[0].policy, Mixed) and eng.seats[0].policy.n == 2
    assert not isinstance(eng.seats[1].policy, Mixed)   # auto: strong(botch=false) here
    assert isinstance(eng.seats[2].policy, Mixed)
