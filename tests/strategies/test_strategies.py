"""The strategy suite (issue 4): skill levels, tactics, fallible players, the opening rule;
every strategy under every preset, the same game in the engine and the State API."""
from __future__ import annotations

import argparse
from functools import lru_cache

import numpy as np
import pytest

from fastmach.core.cards import JOKER, NCARD, card_points, parse_cards
from fastmach.engine import make_engine, play_games
from fastmach.errors import FastmachError
from fastmach.game import Game
from tests.positions import game_positions
from fastmach.rules import PRESETS, Rules
from fastmach.strategies import (PATIENCE_STOCK, REGISTRY, Context, build_seats, describe,
                                 parse_strategy)
from fastmach.cli import add_strategies as register_cli
from fastmach.strategies._base import Skill, Strategy as CompiledStrategy
from fastmach.strategies._intermediate import Intermediate
from fastmach.strategies._tactics import Fallible, KeepJokers, Opening, Patience, PointsObjective, Skilled
from tests.game.test_game import play_checked

SKILLS = ["beginner", "intermediate(k=1)", "intermediate", "expert"]
NEW = ["beginner", "intermediate", "intermediate(k=1)", "patient",
       "beginner(error=0.3)", "intermediate(error=0.2)", "expert(objective=1,keep_jokers=1)",
       "beginner(min_cards=4,objective=1)", "intermediate(k=1,keep_jokers=1)"]


# ----------------------------------------------------------------- registry
def test_registry_classes_and_canonical_strings():
    for name, kind in REGISTRY.items():
        assert issubclass(kind.cls, (Skill, CompiledStrategy))
        assert set(kind.skill_params) <= {p.name for p in kind.params}
        assert str(parse_strategy(name)) == name  # defaults print as the bare name
    s = parse_strategy("intermediate( k=1, error=0.1 )")
    assert str(s) == "intermediate(k=1,error=0.1)"
    assert (s.params["error"], s.params["k"]) == (0.1, 1)
    assert str(parse_strategy("patient(min_cards=3)")) == "patient"
    assert str(parse_strategy("patient(min_cards=5)")) == "patient(min_cards=5)"
    assert parse_strategy("patient").params["min_cards"] == 3
    assert str(parse_strategy("beginner(keep_jokers=1,objective=1)")) == \
        "beginner(objective=1,keep_jokers=1)"
    for bad, msg in [("intermediate(k=0)", "'k'=0 outside"), ("beginner(k=1)", "no parameter 'k'"),
                     ("expert(objective=2)", "'objective'=2 outside"),
                     ("patient(min_cards=x)", "'min_cards' must be an integer")]:
        with pytest.raises(FastmachError, match=msg):
            parse_strategy(bad)


def test_seats_are_a_skill_wrapped_by_the_tactics_they_set():
    from fastmach.engine import engine_config

    r = Rules.preset("classic")
    ctx = Context(engine_config(r))
    seats = [parse_strategy(s) for s in ("intermediate(k=1,error=0.1)", "intermediate(k=1)",
                                         "patient(objective=1,keep_jokers=1)", "expert")]
    a, b, c, d = build_seats(seats, ctx, r)
    assert isinstance(a, Fallible) and a.p == 0.1 and isinstance(a.inner, Opening)
    assert isinstance(a.inner.inner, Skilled) and isinstance(a.inner.inner.skill, Intermediate)
    assert a.inner.inner.skill.k == 1
    assert b.inner.skill is a.inner.inner.skill  # one skill object (and cache) per skill
    assert a.unwrapped() is a.inner and b.unwrapped() is b
    assert isinstance(c, Patience) and c.min_cards == 3
    kj = c.inner.inner.skill
    assert isinstance(kj, KeepJokers) and isinstance(kj.inner, PointsObjective)
    assert isinstance(d, Opening) and type(d.inner.skill).__name__ == "Expert"


def test_cli_lists_every_strategy_with_parameters(capsys):
    parser = argparse.ArgumentParser()
    register_cli(parser.add_subparsers())
    args = parser.parse_args(["strategies"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    for name, kind in REGISTRY.items():
        assert f"{name}: " in out
        for p in kind.params:
            assert f"    {p.name} (" in out
    assert len(list(describe())) == len(out.splitlines())


# ----------------------------------------------------------------- every preset, checked
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_strategy_under_every_preset_keeps_the_invariants(preset):
    r = Rules.parse(preset)
    if r.match_kind != "single":
        r = r.replace(match="single")
    searchers = {"lookahead": "lookahead(playouts=2)", "search": "search(budget=2)",
                 "clairvoyant": "clairvoyant"}
    for name in REGISTRY:
        if name in searchers:  # playouts are whole hands: one seat, a small budget
            seats, games = [searchers[name]] + ["expert"] * (r.players - 1), 3
        else:
            seats, games = [name] * r.players, 12
        df = play_games(r, seats, 7, range(games), check=True)
        assert len(df) == games and (df["turns"] > 0).all()
    # a mixed table too, the fallible versions included
    seats = [f"{n}(error=0.2)" for n in REGISTRY if n not in searchers]
    seats = [seats[i % len(seats)] for i in range(r.players)]
    df = play_games(r, seats, 8, range(12), check=True)
    assert len(df) == 12


# ----------------------------------------------------------------- engine == State API
@pytest.mark.parametrize("rules,strategy", [
    ("classic(match=single)", "beginner"),
    ("classic(match=single)", "intermediate"),
    ("classic(players=3,match=single)", "intermediate(k=1)"),
    ("classic(match=single)", "patient"),
    ("jokers", "intermediate(keep_jokers=1)"),
    ("jokers", "beginner(objective=1)"),
    ("italian(jokers=2)", "beginner"),                      # must play when able (skill's view)
    ("jokers(may_draw_when_able=false)", "patient(keep_jokers=1)"),
    ("ace-low(jokers=4,opening_points=36,match=single)", "intermediate"),
    ("ace-low(jokers=2,match=single)", "beginner(error=0.3)"),  # joker_swap = hand
    ("classic(players=6,failed_penalty=0,match=single)", "intermediate(k=1,error=0.5)"),
    ("classic(players=7,match=single)", "beginner(error=0.3)"),
    ("classic(players=3,match=single)", "lookahead(playouts=2)"),
    ("ace-low(jokers=2,opening_points=36,match=single)", "lookahead(playouts=2)"),
])
def test_same_game_in_engine_and_state_api(rules, strategy):
    r = Rules.parse(rules)
    lineup = [strategy, "expert", "beginner"] * 3
    seats = lineup[:r.players]
    game = Game(r, seats)
    df = play_games(game.rules, seats, 13, range(3))
    for rep in range(3):
        state = play_checked(game, 13, rep)  # every play checked by the independent validator
        assert state.row() == {k: df.iloc[rep][k] for k in state.row()}


def test_failed_penalty_zero_never_fails_twice_in_a_row():
    game = Game("classic(players=6,failed_penalty=0,match=single)", ["intermediate(error=1)"] * 6)
    fails = 0
    for rep in range(3):
        state = game.new_initial_state(3, rep).play_out()
        last = {}
        for rec in state.history:
            if rec.action == "fail":
                fails += 1
                assert last.get(rec.seat) != "fail"
            last[rec.seat] = rec.action
    assert fails > 0


# ----------------------------------------------------------------- skill ordering
def _engine_for(rules: Rules, strategy: str):
    return make_engine(rules, [strategy] * rules.players)[2]


def _net(eng, state) -> int:
    kind, placed, taken, *_ = eng.decide_position(
        state.current_player, state._hands, state._melds, state._stands, state.opened,
        len(state.stock), state.rng_state)
    return int(placed.sum()) - taken if kind == "play" else 0


MIXED = ("expert", "intermediate(k=1)", "beginner", "intermediate")


@lru_cache(maxsize=None)
def _positions(rules: str, games: int, seed: int, lineup: tuple = MIXED):
    """Positions (states before a decision) from games of a mixed table."""
    return game_positions(rules, lineup, games, seed)


@pytest.mark.parametrize("rules", ["classic(match=single)", "jokers", "italian(jokers=4)",
                                   "ace-low(ace=low-only,match=single)"])
def test_higher_skill_never_places_fewer_cards(rules):
    r, positions = _positions(rules, 12, 21)
    engines = [_engine_for(r, s) for s in SKILLS]
    assert len(positions) > 100
    strict = [0] * 3
    for st in positions:
        n = [_net(e, st) for e in engines]
        assert n[0] <= n[1] <= n[2] <= n[3], (str(st), n)
        strict = [a + (n[i] < n[i + 1]) for i, a in enumerate(strict)]
    # every step of skill matters somewhere in real games
    assert strict[0] > 0 and strict[2] > 0


def test_beginner_lays_off_but_never_rearranges():
    g = Game("classic(match=single)", ["beginner"] * 4)
    st = g.new_initial_state(0, 0)
    st.set_position(
        ["3H 8H 7S 7D 9C 9C KS QS", "KC", "KC", "KH"],
        table=["4H 5H 6H 7H", "7C 7H 7S", "10C JC QC", "AD 2D 3D"], stock="5C 5C", current_player=0)
    a = st.strategy_action()
    # lay-offs: 3H at the bottom and 8H at the top of the heart run, 7D to the group of
    # three, 9C below 10C (the second 9C fits nowhere); no meld is broken
    assert sorted(a.placed) == sorted(parse_cards("3H 8H 7D 9C"))
    assert sorted(map(sorted, a.melds)) == sorted(map(sorted, [
        parse_cards("3H 4H 5H 6H 7H 8H"), parse_cards("7C 7H 7S 7D"),
        parse_cards("9C 10C JC QC"), parse_cards("AD 2D 3D")]))
    assert len(st.expert_action().placed) >= len(a.placed)
    st.apply_action(a)


def test_intermediate_dissolves_at_most_k_melds():
    # the whole hand goes down only by dissolving the heart run into 2H-4H, 5H 5S 5D and
    # 6H-8H; the spade run is left as it is
    g = Game("classic(match=single)", ["intermediate(k=1)"] * 4)
    st = g.new_initial_state(0, 0)
    st.set_position(["5S 5D 2H 8H", "KC", "KC", "KH"],
                    table=["9S 10S JS", "3H 4H 5H 6H 7H"], stock="5C",
                    current_player=0)
    beg = _engine_for(g.rules, "beginner")
    assert _net(beg, st) == 2  # lay-offs 2H, 8H only
    a = st.strategy_action()
    assert sorted(a.placed) == sorted(parse_cards("5S 5D 2H 8H"))  # the whole hand
    assert sorted(parse_cards("9S 10S JS")) in [sorted(m) for m in a.melds]  # left intact
    st.apply_action(a)
    assert st.is_terminal() and st.winner() == 0


# ----------------------------------------------------------------- tactics
def _stock(n: int) -> list[int]:
    cards = parse_cards("6H 6H 8S 8S 9S 9S 10S 10S JH JH QH QH KS KS AC AC 4C 4C 5C 5C")
    return cards[:n]


def test_patient_rules():
    from fastmach.game import Draw, Play
    g = Game("classic(match=single)", ["patient(min_cards=4)"] * 4)
    st = g.new_initial_state(0, 0)
    hand = "7S 7D 7C KD 2C"  # the best play places 3 cards (the group of sevens)
    st.set_position([hand, "KC", "KC", "KH"], table=["3H 4H 5H"], stock=_stock(PATIENCE_STOCK), current_player=0)
    assert isinstance(st.strategy_action(), Draw)            # stock large: wait
    st.set_position([hand, "KC", "KC", "KH"], table=["3H 4H 5H"], stock=_stock(PATIENCE_STOCK - 1),
                    current_player=0)
    assert isinstance(st.strategy_action(), Play)            # stock small: play
    st.set_position(["7S 7D 7C", "KC", "KC", "KH"], table=["3H 4H 5H"], stock=_stock(20), current_player=0)
    assert isinstance(st.strategy_action(), Play)            # the play empties the hand
    g2 = Game("classic(match=single,may_draw_when_able=false)", ["patient(min_cards=4)"] * 4)
    st2 = g2.new_initial_state(0, 0)
    st2.set_position([hand, "KC", "KC", "KH"], table=["3H 4H 5H"], stock=_stock(20), current_player=0)
    assert isinstance(st2.strategy_action(), Play)           # must play when able


def test_points_objective_trades_cards_for_points():
    r, positions = _positions("jokers(hand_points=face-ace11)", 3, 5)
    cards = _engine_for(r, "expert")
    points = _engine_for(r, "expert(objective=1)")
    pts = card_points("face-ace11")
    differ = 0
    for st in positions:
        res = []
        for eng in (cards, points):
            kind, placed, taken, *_ = eng.decide_position(
                st.current_player, st._hands, st._melds, st._stands, st.opened,
                len(st.stock), st.rng_state)
            placed = placed if kind == "play" else np.zeros(NCARD, dtype=np.uint8)
            res.append((int(placed.sum()) - taken, int((placed * pts).sum()) - 25 * taken))
        (nc, pc), (np_, pp) = res
        assert nc >= np_ and pp >= pc
        differ += (nc, pc) != (np_, pp)
    assert differ > 0


def test_keep_jokers_plays_a_joker_only_to_empty_the_hand():
    keep_s = "intermediate(keep_jokers=1)"
    r, positions = _positions("jokers", 6, 9, (keep_s, "expert(keep_jokers=1)"))
    keep = _engine_for(r, keep_s)
    seen_holding = 0
    for st in positions:
        seat = st.current_player
        if st._hands[seat][JOKER] == 0:
            continue
        seen_holding += 1
        kind, placed, taken, *_ = keep.decide_position(
            seat, st._hands, st._melds, st._stands, st.opened, len(st.stock), st.rng_state)
        if kind == "play" and placed[JOKER] > 0:
            assert int(placed.sum()) - taken == int(st._hands[seat].sum())
    assert seen_holding > 0


def test_opening_rule_for_every_strategy():
    # before opening only hand-only melds worth >= 36; State.check enforces the rule and
    # the strategies' plays must pass it
    rules = "ace-low(opening_points=36,match=single)"
    for name in REGISTRY:
        game = Game(rules, [name, "beginner", "intermediate(k=1)", "expert"])
        for rep in range(2):
            state = play_checked(game, 17, rep)
            first = {}
            for rec in state.history:
                if rec.action == "play" and rec.seat not in first:
                    first[rec.seat] = rec
            assert first  # somebody opened


# ----------------------------------------------------------------- the shares a study needs
def test_with_beginners_the_stock_runs_out_in_classic_games():
    # (an expert at the table empties a hand first: 4 experts never run the stock out)
    df = play_games("classic(match=single)", ["beginner", "intermediate(k=1)"] * 2, 1, range(300))
    share = df["stock_exhausted"].mean()
    assert share > 0.1, share
    assert (df.loc[df["stock_exhausted"], "end"] == "blocked").mean() > 0.5
    experts = play_games("classic(match=single)", ["expert"] * 4, 1, range(300))
    assert share > experts["stock_exhausted"].mean()


@pytest.mark.parametrize("strategy", ["beginner(error=0.3)", "intermediate(k=2,error=0.1)",
                                      "intermediate(k=1,error=0.2)", "patient(error=0.2)"])
def test_fallible_rows_show_failures_and_penalty_draws(strategy):
    seats = [strategy, "expert", strategy, "beginner"]
    df = play_games("classic(match=single)", seats, 2, range(60))
    ok = play_games("classic(match=single)",
                    [s.split("(")[0] if "error" in s else s for s in seats], 2, range(60))
    assert df["failed"].sum() > 0 and ok["failed"].sum() == 0
    assert df["cards_drawn"].sum() > ok["cards_drawn"].sum()


def test_skill_order_shows_in_win_rates():
    # a small sample, rotated seats: the expert wins more often than the beginner
    from fastmach.engine import run_play
    df = run_play("classic(match=single)", "expert,beginner", 150, 4, rotate=True,
                  progress=False)
    wins = {"expert": 0, "beginner": 0}
    for i in range(4):
        for s, w in zip(df[f"strategy_{i}"], df["winner"] == i):
            wins[s] += int(w)
    assert wins["expert"] > 2 * wins["beginner"]


def test_lookahead_plays_one_of_its_candidates_or_waits():
    # where the expert plays, lookahead plays the expert's move, the most-points placement
    # (some of it) or draws; where the expert draws (or the play empties the hand) it does
    # the same; the playouts use the game's PRNG
    r, positions = _positions("classic(match=single)", 2, 4)
    look = _engine_for(r, "lookahead(playouts=4)")
    exp = _engine_for(r, "expert")
    pts = _engine_for(r, "expert(objective=1)")
    kinds = {"max": 0, "points": 0, "draw": 0}
    for st in positions[:80]:
        args = (st.current_player, st._hands, st._melds, st._stands, st.opened,
                len(st.stock), 12345)
        a, b, c = look.decide_position(*args), exp.decide_position(*args), pts.decide_position(*args)
        if b[0] != "play" or int(b[1].sum()) == int(st._hands[st.current_player].sum()):
            assert a[0] == b[0] and a[5] == 12345  # nothing to evaluate: no PRNG draw
            continue
        assert a[5] != 12345  # one PRNG draw per round of playouts
        if a[0] == "play" and (a[1] == b[1]).all() and a[3] == b[3]:
            kinds["max"] += 1
        elif a[0] == "play":
            assert (a[1] == c[1]).all() and a[3] == c[3]
            assert a[1].sum() <= b[1].sum()   # some of the maximum placement, not more
            kinds["points"] += 1
        else:
            assert a[0] == "draw"
            kinds["draw"] += 1
        assert look.decide_position(*args)[0] == a[0]  # reproducible
    # it does wait sometimes, and plays the maximum placement most of the time
    assert kinds["draw"] > 0 and kinds["max"] > kinds["draw"], kinds


def test_bench_lookahead_reports_cost_per_decision_by_budget():
    from fastmach.tools.bench import bench_lookahead, format_lookahead
    rows = bench_lookahead(budgets=(1, 2), positions=5)
    assert [r["playouts"] for r in rows] == [1, 2]
    for r in rows:
        assert r["positions"] == 5 and 0 < r["weighed"] <= 5 and r["ms_per_decision"] > 0
    # the same positions are weighed whatever the budget (candidates do not depend on it)
    assert rows[0]["weighed"] == rows[1]["weighed"]
    assert "ms/decision" in format_lookahead(rows)


def test_a_compiled_strategy_registered_by_one_line_plays_everywhere(monkeypatch):
    # the seam: a Skill subclass (here the intermediate's plain reference search) becomes a
    # strategy with one registry entry, and every tactic wraps it
    from fastmach.strategies import K, TACTICS, StrategyKind
    from fastmach.strategies import _probe

    monkeypatch.setitem(REGISTRY, "plain", StrategyKind(
        "plain", _probe.PlainIntermediate, (K,) + TACTICS, "the plain search", ("k",)))
    rules = "classic(match=single)"
    for name in ("{}", "{}(k=1,error=0.2,objective=1)"):
        a = play_games(rules, [name.format("plain")] * 4, 3, range(6))
        b = play_games(rules, [name.format("intermediate")] * 4, 3, range(6))
        assert (a["strategy_0"] == name.format("plain")).all()
        cols = [c for c in a.columns if not c.startswith("strategy_")]
        assert a[cols].equals(b[cols])
