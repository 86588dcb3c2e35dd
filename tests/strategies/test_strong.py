"""The strong player: holding and keeping back (checked against a Python reference on the
exact solver), legal plays under every preset (logged games replayed), and decisions that
do not depend on the cards its seat cannot see."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastmach.core.cards import JOKER, NCARD
from fastmach.engine import make_engine, play_games
from fastmach.game.log_reader import replay, replay_states
from fastmach.rules import PRESETS, Rules
from fastmach.solver import solve
from fastmach.strategies import parse_strategy
from tests.positions import cards, game_positions, listing

HOLDBACK = "fastmach.strategies.examples:HoldBack"


def _engine(rules: Rules, strategy: str):
    return make_engine(rules, [strategy] * rules.players)[2]


def _decide(eng, st, hands=None, rng=12345):
    return eng.decide_position(st.current_player, hands if hands is not None else st._hands,
                               st._melds, st._stands, st.opened, len(st.stock), rng)


def _reference(st, rules: Rules, p: dict) -> tuple[str, int, str]:
    """strong's decision by its docstring, on the Python solver: (kind, cards placed,
    why: nothing to play, out, held, botched, kept back)."""
    seat = st.current_player
    hand = listing(st._hands[seat])
    n = len(hand)
    left = len(st.stock)
    opp = min(int(h.sum()) for s, h in enumerate(st._hands) if s != seat)
    may_hold = (rules.may_draw_when_able if left else
                rules.may_pass_when_able or rules.stock_empty != "play-on")
    full = solve(st._melds, hand, rules, trusted=True) if hand else None
    if full is None or not full.placed:
        return "draw", 0, "nothing"
    if len(full.placed) == n:
        return "play", n, "out"
    low = p["stock_low"]
    if p["last_round"] and rules.stock_empty == "ends-hand":
        low = max(low, rules.players)   # the last round is played
    holds = may_hold and left > low and opp > p["rush"] and \
        (p["hand_cap"] == 0 or n < p["hand_cap"])
    if holds and sum(len(m) for m in st._melds) >= p["hold_table"]:
        if p["botch"] and left and rules.failed_penalty > 1 and \
                (p["botch_below"] == 0 or opp < p["botch_below"]) and any(
                solve(st._melds, [c], rules, trusted=True).placed
                for c in sorted(set(hand)) if c != JOKER):
            return "fail", 0, "botched"   # a play of one card botched: the penalty drawn
        return "draw", 0, "held"
    kind, placed, why = _reference_play(st, rules, p, hand, full)
    return kind, placed, "thin" if holds else why   # thin: held but for the table


def _reference_play(st, rules: Rules, p: dict, hand: list[int], full) -> tuple[str, int, str]:
    """strong's decision where it does not hold: passing on, or its play keeping cards
    back."""
    left = len(st.stock)
    seat = st.current_player
    opp = min(int(h.sum()) for s, h in enumerate(st._hands) if s != seat)
    if p["pass_on"] and not left and rules.may_pass_when_able and opp >= p["pass_on"]:
        return "draw", 0, "passed"   # the empty stock: passes on (it does not go out)
    if not (p["keep"] or p["keep_from"] or p["place"]):
        return "play", len(full.placed), "kept"
    held_back = bool(p["keep"] or p["keep_from"])
    kept = [c for c in hand if not (held_back and c == JOKER) and not (
        c != JOKER and (p["keep"] >= 2 and c % 13 >= 10
                        or p["keep_from"] and c % 13 + 1 >= p["keep_from"]))]
    if p["place"] == 1:   # the one card of the most points that a play of it alone places
        alone = [c for c in sorted(set(kept)) if c != JOKER
                 and solve(st._melds, [c], rules, trusted=True).placed]
        return ("play", 1, "one") if alone else ("play", len(full.placed), "kept")
    objective = "points" if p["place"] == 2 else "cards"
    part = solve(st._melds, kept, rules, objective=objective, trusted=True) if kept else None
    return "play", len(part.placed) if part is not None and part.placed else len(full.placed), "kept"


@pytest.mark.parametrize("rules,strategy", [
    ("classic(match=single)", "strong(trained=false)"),
    ("classic(match=single)", "strong(stock_low=30,keep=jokers)"),
    ("classic(match=single)", "strong(botch=false)"),
    ("classic(match=single)", "strong(botch_below=0)"),
    ("jokers", "strong(trained=false)"),
    ("jokers", "strong(botch_below=0)"),
    ("jokers", "strong(botch=false)"),
    ("jokers", "strong(rush=3,hand_cap=18,keep=none)"),
    ("italian(jokers=2)", "strong(trained=false)"),
    ("ace-low(match=single)", "strong(stock_low=20)"),
    ("ace-low(match=single)", "strong(trained=false)"),
    ("ace-low(match=single)", "strong(last_round=false)"),
    ("classic(match=single)", "strong(pass_on=1)"),
    ("classic(match=single)", "strong(pass_on=6,keep_from=8)"),
    ("jokers", "strong(keep_from=6,trained=false)"),
    ("jokers", "strong(keep=none,place=points)"),
    ("ace-low(match=single)", "strong(place=one)"),
    ("ace-low(match=single)", "strong(keep_from=4,place=one,rush=4)"),
    ("italian", "strong(keep_from=10,place=points)"),
    ("ace-low(match=single)", "strong(keep_from=8,place=one,hold_table=12)"),
    ("classic(match=single)", "strong(hold_table=20)"),
])
def test_strong_holds_until_it_can_go_out_then_keeps_cards_back(rules, strategy):
    r, positions = game_positions(rules, [strategy, "expert", HOLDBACK, "expert"], 8, 5)
    eng = _engine(r, strategy)
    p = parse_strategy(strategy).params
    why = {"nothing": 0, "out": 0, "held": 0, "botched": 0, "kept": 0, "passed": 0, "one": 0,
           "thin": 0}
    for st in positions[::2][:150]:
        kind, placed, taken, melds, _, rng = _decide(eng, st)
        net = int(placed.sum()) - taken if kind == "play" else 0
        *ref, tag = _reference(st, r, p)
        assert (kind, net) == tuple(ref)
        assert rng == 12345  # no chance in its decisions
        why[tag] += 1
    # it held a play it could have made (or, where it must play, kept cards back); where
    # a failure draws more than one card it botched a play instead of drawing
    held = "botched" if p["botch"] and r.failed_penalty > 1 else "held"
    assert why[held if r.may_draw_when_able else "kept"] > 0, why
    if r.failed_penalty <= 1 or not p["botch"]:
        assert why["botched"] == 0
    # hold_table: a turn it would have held on a table of fewer cards was played
    assert (why["thin"] > 0) == bool(p["hold_table"]), why


def test_strong_plays_the_last_round_where_the_stock_ends_the_hand():
    # ace-low: the hand ends with the stock's last card and the lowest hand wins, so
    # holding stops once the stock holds at most one card per player
    r, positions = game_positions("ace-low(match=single)", ["strong(trained=false)", "expert"], 12, 4)
    late = [st for st in positions if 0 < len(st.stock) <= r.players]
    eng, off = _engine(r, "strong(trained=false)"), _engine(r, "strong(last_round=false)")
    played = 0
    for st in late:
        full = solve(st._melds, listing(st._hands[st.current_player]), r, trusted=True)
        if not full.placed or len(full.placed) == int(st._hands[st.current_player].sum()):
            continue
        a, b = _decide(eng, st), _decide(off, st)
        assert a[0] == "play" and b[0] == "draw"
        played += 1
    assert played >= 3


def test_strong_must_play_where_drawing_when_able_is_forbidden():
    # italian: a player able to play must; strong plays (keeping cards back when it can)
    r, positions = game_positions("italian", ["strong(trained=false)", "expert"], 3, 8)
    eng, expert = _engine(r, "strong(trained=false)"), _engine(r, "expert")
    played = 0
    for st in positions[::2][:150]:
        a, b = _decide(eng, st), _decide(expert, st)
        assert (a[0] == "play") == (b[0] == "play")
        assert a[1].sum() <= b[1].sum()
        played += a[0] == "play"
    assert played > 10


# ----------------------------------------------------------------- legal under every preset
PRESET_RULES = [p if Rules.parse(p).match_kind == "single" else f"{p}(match=single)"
                for p in PRESETS] + [
    "classic(jokers=2,opening_points=30,match=single)",
    "jokers(may_draw_when_able=false)",
    "ace-low(jokers=2,opening_points=36,match=single)",   # joker_swap = hand
    "italian(jokers=4)",
    "classic(players=3,stock_empty=ends-hand,blocked_winner=lowest,match=single)",
    "ace-low",                                             # a match of hands to 100
]


@pytest.mark.parametrize("rules", PRESET_RULES)
def test_strong_plays_are_legal_under_every_preset(rules, tmp_path):
    log = tmp_path / "games.jsonl"
    r = Rules.parse(rules)
    lineups = [["strong(trained=false)"] + ["expert"] * (r.players - 1),
               ["strong(trained=false)"] * r.players,
               ["strong(stock_low=15,rush=2,hand_cap=20,keep=jokers)", HOLDBACK] * 4,
               ["strong(pass_on=3,keep_from=6,place=one)", "strong(place=points,hold_table=6)"] * 4,
               ["strong"] * r.players]   # the trained player, where one is shipped
    games = 0
    for i, seats in enumerate(lineups):
        df = play_games(r, seats[:r.players], 31 + i, range(4), check=True, log=log)
        games += len(df)
        assert (df["turns"] > 0).all()
    hands = replay(log)                  # every turn re-checked without the solver
    assert len(hands) >= games
    states = replay_states(log)          # and replayed through the State API's checks
    assert len(states) == games and all(s.is_terminal() for s in states)


# ----------------------------------------------------------------- only what its seat sees
@pytest.mark.parametrize("rules,strategy", [
    ("classic(match=single)", "strong(trained=false)"),
    ("jokers", "strong(stock_low=20,rush=2)"),
    ("italian(jokers=2)", "strong(trained=false)"),
    ("ace-low(jokers=2,opening_points=36,match=single)", "strong(hand_cap=16)"),
    ("ace-low(match=single)", "strong(trained=false)"),
    ("classic(match=single)", "strong(pass_on=1,keep_from=6,place=one)"),
    ("ace-low(match=single)", "strong(hold_table=8,keep_from=8,place=one)"),
    ("jokers", "strong"),                  # the trained player
])
def test_strong_decisions_do_not_depend_on_cards_it_cannot_see(rules, strategy):
    r, positions = game_positions(rules, [strategy, "expert"], 6, 9)
    eng = _engine(r, strategy)
    rnd = random.Random(3)
    deck = Rules.parse(rules)
    changed = 0
    for st in positions[::4][:80]:
        seat = st.current_player
        # redeal every card the seat cannot see (the other hands and the stock) at random,
        # keeping every hand size
        seen = st._hands[seat].astype(int) + np.bincount(
            [c for m in st._melds for c in m], minlength=NCARD)
        unseen = [c for c in range(NCARD) for _ in range(_copies(deck, c) - int(seen[c]))]
        rnd.shuffle(unseen)
        hands = [h.copy() for h in st._hands]
        k = 0
        for s in range(r.players):
            if s == seat:
                continue
            size = int(hands[s].sum())
            hands[s] = np.bincount(unseen[k:k + size], minlength=NCARD).astype(np.uint8)
            k += size
        changed += any((a != b).any() for a, b in zip(hands, st._hands))
        a, b = _decide(eng, st), _decide(eng, st, hands)
        assert a[0] == b[0] and (a[1] == b[1]).all() and a[2] == b[2] and a[3] == b[3]
    assert changed >= 10


def _copies(r: Rules, c: int) -> int:
    return r.jokers if c == JOKER else r.decks


# ----------------------------------------------------------------- botching where it pays
def _race_position(short: int) -> tuple[np.ndarray, list[list[int]]]:
    """classic: 5H 6H 7H on the table; the seat holds 8H (a play of it alone) with four
    cards nothing holds (it cannot go out); its shortest opponent holds ``short`` cards,
    the others 12."""
    melds = [cards("5H 6H 7H")]
    mine = cards("8H KS 2C 9D 4S")
    pool = [c for c in range(JOKER) for _ in range(2)]
    for c in mine + melds[0]:
        pool.remove(c)
    hands = np.zeros((4, NCARD), dtype=np.int64)
    for c in mine:
        hands[0, c] += 1
    k = 0
    for s, size in ((1, 12), (2, short), (3, 12)):
        for c in pool[k:k + size]:
            hands[s, c] += 1
        k += size
    return hands, melds


@pytest.mark.parametrize("strategy,rules,fails_at", [
    ("strong(trained=false)", "classic(match=single)", {7}),              # an opponent below 8 cards
    ("strong(botch_below=0)", "classic(match=single)", {7, 8, 12}),   # whatever they hold
    ("strong(botch_below=13)", "classic(match=single)", {7, 8, 12}),
    ("strong(botch=false)", "classic(match=single)", set()),
    ("strong(trained=false)", "classic(match=single,failed_penalty=1)", set()),     # a botch is a draw
])
def test_strong_botches_a_held_turn_only_while_an_opponent_nears_going_out(
        strategy, rules, fails_at):
    # 000: a failed manipulation draws 3 penalty cards instead of the normal draw, so a
    # holder that cannot go out botches the one-card play 8H where it pays: while an
    # opponent holds fewer than botch_below cards (8 by default)
    r = Rules.parse(rules)
    eng = _engine(r, strategy)
    for short in (7, 8, 12):
        hands, melds = _race_position(short)
        kind, placed, taken, after, _, _ = eng.decide_position(
            0, hands, melds, melds, [True] * 4, 30, 12345)
        if short in fails_at:
            assert kind == "fail" and listing(placed) == cards("8H") and taken == 0
            assert after == [cards("5H 6H 7H 8H")]   # the play it botched
        else:
            assert kind == "draw", (short, kind)
        # and a botch needs a stock to draw from
        assert eng.decide_position(0, hands, melds, melds, [True] * 4, 0, 12345)[0] != "fail"
