"""The bot seat's fast path against its Python reference: the compiled check of a bot's
answer (fastmach.strategies._answer) judges only answers the Python check
(fastmach.game.actions.check_action, strict) accepts, and turns them into the same
decision; the compiled observation is the Python one; a play's card tuples are made as
the Python constructor makes them. Random positions of real games under every preset,
answers random and adversarial (forged after construction, of other types, shape-shifting)."""
from __future__ import annotations

import random
from itertools import chain

import numpy as np
import pytest

import fastmach
from fastmach.core._ids import ids_of_counts, int_melds, sorted_ids
from fastmach.errors import FastmachError
from fastmach.game import Game
from fastmach.game.actions import Draw, Pass, Play
from fastmach.game.log_reader import replay
from fastmach.rules import resolve_rules
from fastmach.strategies import bots
from fastmach.strategies._answer import answer_of
from fastmach.strategies._python import melds_shown
from fastmach.strategies.examples import HoldBack, MaxPlacement

PRESETS = ["classic(match=single)", "jokers(match=single)", "ace-low(match=single)",
           "italian(match=single)", "classic(match=single,opening_points=30)",
           "jokers(match=single,joker_swap=hand,opening_points=30)"]


def positions(rules: str, games: int, seed: int = 5):
    """(seat, hands, melds, stands, opened, stock_left) before every turn of some games."""
    game = Game(rules)
    for rep in range(games):
        st = game.new_initial_state(seed, rep)
        while not st.is_terminal():
            yield (st.current_player, st._hands.tolist(), [list(m) for m in st._melds],
                   [list(m) for m in st._stands], list(st.opened), st._left())
            st.step()


def forged(play: Play, **fields) -> Play:
    """``play`` with fields replaced after construction (as a bot can)."""
    for k, v in fields.items():
        object.__setattr__(play, k, v)
    return play


class Shifting(Play):
    """A Play whose table is the given one when first read and another afterwards."""

    def __init__(self, melds, placed, other):
        object.__setattr__(self, "_other", other)
        object.__setattr__(self, "_reads", -10 ** 9)   # the constructor's reads not counted
        super().__init__(melds, placed)
        object.__setattr__(self, "_reads", 0)

    def __getattribute__(self, name):
        if name == "melds":
            n = object.__getattribute__(self, "_reads")
            object.__setattr__(self, "_reads", n + 1)
            if n > 0:
                return object.__getattribute__(self, "_other")
        return object.__getattribute__(self, name)


def answers(rules, hand: list[int], melds, rng: random.Random):
    """Answers to a position: the maximum placement, and its random and adversarial
    variants."""
    yield Draw()
    yield Pass()
    if not hand:
        return
    sol = fastmach.solve(melds, hand, rules)
    if not sol.placed:
        c = rng.choice(hand)
        yield Play(list(melds) + [[c, c, c]], [c, c, c])
        return
    good = Play(sol.melds, sol.placed)
    yield good
    ms = [list(m) for m in sol.melds]
    yield Play(ms, sol.placed, stands=sol.stands)
    yield Play(ms[1:], sol.placed)                              # a meld dropped
    yield Play(ms, sol.placed[1:])                              # a placed card not laid
    yield Play(ms + [[sol.placed[0]]], sol.placed)             # a one-card meld
    other = rng.randrange(53)
    yield Play(ms, list(sol.placed) + [other])                 # a card perhaps not held
    on_table = [c for m in melds for c in m]
    for c in rng.sample(range(52), 8):                         # a valid table, a card not held
        if hand.count(c) + on_table.count(c) >= rules.decks:
            continue
        extra = fastmach.solve(melds, hand + [c], rules)
        if extra.placed.count(c) > hand.count(c):
            yield Play(extra.melds, extra.placed)
            break
    for _ in range(3):
        m2 = [list(m) for m in ms]
        i = rng.randrange(len(m2))
        j = rng.randrange(len(m2[i]))
        m2[i][j] = rng.randrange(53)                           # a card changed
        yield Play(m2, sol.placed)
    if len(ms) > 1:                                            # a card moved between melds
        m2 = [list(m) for m in ms]
        m2[1].append(m2[0].pop())
        yield Play(m2, sol.placed)
    yield Play(ms, [], ())                                      # nothing placed
    yield Play(ms, sol.placed, taken=(52,))                    # a joker taken back
    # forged after construction: lists, NumPy ints, bools, ids out of range, huge ints
    yield forged(Play(ms, sol.placed), melds=[list(m) for m in ms])
    yield forged(Play(ms, sol.placed), melds=tuple(tuple(np.int64(c) for c in m) for m in ms))
    yield forged(Play(ms, sol.placed), placed=tuple(bool(c % 2) for c in sol.placed))
    yield forged(Play(ms, sol.placed), placed=(-1,) + tuple(sol.placed))
    yield forged(Play(ms, sol.placed), placed=(2 ** 70,) + tuple(sol.placed)[1:])
    yield forged(Play(ms, sol.placed), melds=((2 ** 70,),) + tuple(map(tuple, ms)))
    yield forged(Play(ms, sol.placed), melds=tuple(map(tuple, ms[1:])))
    yield forged(Play(ms, sol.placed), placed=tuple(sol.placed) * 2)
    yield forged(Play(ms, sol.placed), stands=((52,),))
    yield Shifting(ms, sol.placed, tuple(map(tuple, ms[1:])))


def openings_and_swaps(rules, hand: list[int], melds, stands, opened: bool):
    """Openings (new melds of hand cards, and one that changes a table meld) before the
    seat has opened; jokers taken back for the cards they stand for, or for others."""
    if not hand:
        return
    if rules.opening_points and not opened:
        op = fastmach.opening(hand, rules, 1)
        if op is not None:
            yield Play(list(melds) + list(op.melds), op.placed)
            yield Play(list(melds) + list(op.melds), op.placed,
                       stands=list(stands) + list(op.stands))
            if melds:
                yield Play(melds[1:] + [list(melds[0]) + list(op.melds[0])] +
                           list(op.melds[1:]), op.placed)
        return
    if rules.joker_swap != "hand":
        return
    for i, (m, st) in enumerate(zip(melds, stands)):
        for j, (c, x) in enumerate(zip(m, st)):
            if c == 52:
                swapped = [list(mm) for mm in melds]
                swapped[i][j] = x
                yield Play(swapped, [x], [52])
                yield Play(swapped, [x], [52], stands=[list(s) for s in stands[:i]] +
                           [swapped[i]] + [list(s) for s in stands[i + 1:]])
                yield Play(swapped, [x], [52, 52])
                yield Play(swapped, [(x + 13) % 52], [52])


def reference(rules, seat, hands, melds, stands, opened, left, action):
    """The Python check's decision (strict: the independent validator), or None."""
    seat_ = bots.BotSeat(None, "ref", seat, rules, strict=True)
    pos = {"hands": hands, "melds": melds, "stands": stands, "stock": left,
           "opened": opened, "hand": 0, "turn": 1}
    try:
        return seat_.checked(seat, action, pos)
    except FastmachError:
        return None


def as_lists(decision):
    kind, placed, taken, melds, stands = decision
    if kind != "play":
        return kind, None, 0, None, None
    return (kind, list(placed), taken, [list(map(int, m)) for m in melds],
            [list(map(int, m)) for m in stands])


@pytest.mark.parametrize("preset", PRESETS)
def test_the_compiled_check_judges_only_answers_the_validator_accepts(preset):
    rules = resolve_rules(preset)
    rng = random.Random(preset)
    judged = refused = 0
    for n, (seat, hands, melds, stands, opened, left) in enumerate(positions(preset, 4)):
        if n % 3:
            continue
        hand = [c for c in range(53) for _ in range(hands[seat][c])]
        for action in chain(answers(rules, hand, melds, rng),
                            openings_and_swaps(rules, hand, melds, stands, opened[seat])):
            fast = answer_of(rules, seat, hands, melds, stands, opened, left, action)
            ref = reference(rules, seat, hands, melds, stands, opened, left, action)
            if fast is None:
                refused += 1
                continue
            judged += 1
            assert ref is not None, (preset, action)
            assert as_lists(fast) == as_lists(ref), (preset, action)
    assert judged >= 10 and refused >= 50


def test_the_compiled_check_leaves_plays_to_the_validator_under_strict():
    rules = resolve_rules("classic")
    seat, hands, melds, stands, opened, left = next(positions("classic(match=single)", 1))
    hand = [c for c in range(53) for _ in range(hands[seat][c])]
    sol = fastmach.solve(melds, hand, rules)
    play = Play(sol.melds, sol.placed)
    assert answer_of(rules, seat, hands, melds, stands, opened, left, play) is not None
    assert answer_of(rules, seat, hands, melds, stands, opened, left, play, strict=True) is None


class Recorder:
    """Plays like ``inner`` and keeps every observation it was shown."""

    def __init__(self, inner):
        self.inner, self.seen = inner, []

    def act(self, obs):
        self.seen.append(obs)
        return self.inner.act(obs)


# (and matches of several hands: the scores change between hands)
@pytest.mark.parametrize("preset", PRESETS + ["classic(match=rotations:1)",
                                              "jokers(match=threshold:60)"])
def test_the_compiled_seat_shows_and_plays_what_the_python_seat_does(preset, monkeypatch):
    out = {}
    for fast in (True, False):
        monkeypatch.setattr(bots, "FAST_PATH", fast)
        # (MaxPlacement does not open: it would rearrange the table before opening)
        a = Recorder(HoldBack() if "opening" in preset else MaxPlacement())
        b = Recorder(HoldBack())
        df = fastmach.play_games(preset, [a, "expert", b, "expert"], 3, range(4))
        out[fast] = (df.drop(columns=[c for c in df if c.startswith("strategy")]),
                     a.seen, b.seen)
    (df1, a1, b1), (df0, a0, b0) = out[True], out[False]
    assert df1.equals(df0)
    assert len(a1) > 20 and a1 == a0 and b1 == b0
    assert [o.history for o in a1] == [o.history for o in a0]
    if "single" not in preset:
        assert len({o.scores for o in a1}) > 1


def test_a_table_shown_again_keeps_the_tuples_of_its_unchanged_melds():
    rng = random.Random(12)
    J = 52
    for _ in range(3000):
        n_old = rng.randrange(0, 12)
        old = []
        for _ in range(n_old):
            m = [rng.randrange(53) for _ in range(rng.randrange(3, 7))]
            old.append((m, [c if c != J else rng.randrange(52) for c in m]))
        if old and rng.random() < 0.5:
            old.append(rng.choice(old))                    # the same meld twice (two decks)
        new = []
        for m, st in old:
            r = rng.random()
            if r < 0.5:
                new.append((m, st))                        # unchanged
            elif r < 0.65 and J in m:
                new.append((m, [rng.randrange(52) if c == J else x
                                for c, x in zip(m, st)]))  # a joker standing for another card
            elif r < 0.8:
                c = rng.randrange(52)
                new.append((m + [c], st + [c]))            # a card added
        new += [([c, c, c], [c, c, c]) for c in rng.sample(range(53), rng.randrange(3))]
        rng.shuffle(new)
        if not new:
            continue
        old_t = tuple(tuple(m) for m, _ in old)
        old_s = tuple(tuple(st) for _, st in old)
        table, stands = melds_shown(old_t, old_s, [m for m, _ in new], [st for _, st in new])
        assert table == tuple(tuple(m) for m, _ in new)
        assert stands == tuple(tuple(st) for _, st in new)
        assert all(type(c) is int for m in table + stands for c in m)
        pairs = list(zip(old_t, old_s))
        for m, st in zip(table, stands):
            kept = [(a, b) for a, b in pairs if a is m]
            assert (kept and kept[0][1] is st) if (m, st) in pairs else not kept


class Overwriter:
    """Plays like ``inner``; keeps a copy of each observation's fields, then overwrites
    them in the observation (lists for tuples, other numbers)."""

    def __init__(self, inner, overwrite):
        self.inner, self.overwrite, self.seen = inner, overwrite, []

    def act(self, obs):
        self.seen.append(dict(vars(obs)))
        action = self.inner.act(obs)
        if self.overwrite:
            for name, value in vars(obs).items():
                if isinstance(value, tuple):
                    object.__setattr__(obs, name, [list(v) if isinstance(v, tuple) else v
                                                   for v in value])
            object.__setattr__(obs, "stock", -1)
        return action


@pytest.mark.parametrize("preset", ["classic(match=single)", "jokers(match=single)"])
def test_a_bot_that_overwrites_its_observations_is_shown_what_others_are(preset):
    out = {}
    for overwrite in (False, True):
        a, b = Overwriter(MaxPlacement(), overwrite), Overwriter(HoldBack(), overwrite)
        df = fastmach.play_games(preset, [a, "expert", b, "expert"], 6, range(4))
        out[overwrite] = df.drop(columns=[c for c in df if c.startswith("strategy")]), a.seen, b.seen
    (df0, a0, b0), (df1, a1, b1) = out[False], out[True]
    assert df0.equals(df1)
    assert len(a0) > 20 and a0 == a1 and b0 == b1


class Forger:
    """Builds the maximum placement, then replaces its table with one missing a card."""

    def act(self, obs):
        sol = fastmach.solve(obs.table, list(obs.hand), obs.rules)
        if not sol.placed:
            return fastmach.Draw()
        play = fastmach.Play(sol.melds, sol.placed)
        melds = [list(m) for m in play.melds]
        melds[0].pop()
        return forged(play, melds=tuple(map(tuple, melds)))


class Shifter:
    """Answers the maximum placement with a Play whose table loses a meld once read."""

    def act(self, obs):
        sol = fastmach.solve(obs.table, list(obs.hand), obs.rules)
        if not sol.placed:
            return fastmach.Draw()
        return Shifting(sol.melds, sol.placed, tuple(map(tuple, sol.melds[1:])))


def test_a_play_forged_after_construction_is_refused():
    with pytest.raises(FastmachError, match=r"illegal action: illegal play"):
        for rep in range(5):
            fastmach.play_games("classic(match=single)", [Forger(), "expert", "expert",
                                                          "expert"], 1, [rep])


def test_a_play_that_changes_once_read_is_applied_as_it_was_judged(tmp_path):
    log = tmp_path / "g.jsonl"
    df = fastmach.play_games("classic(match=single)", [Shifter(), "expert"] * 2, 2, range(3),
                             log=log)
    assert (df["plays"] > 0).all()
    assert len(replay(log)) == 3   # every turn passes the independent validator


def test_card_tuples_are_made_as_the_python_constructor_makes_them():
    rng = random.Random(7)
    kinds = [int, int, int, np.int64, bool, float]
    for _ in range(2000):
        melds = [[rng.choice(kinds)(rng.randrange(60)) for _ in range(rng.randrange(5))]
                 for _ in range(rng.randrange(4))]
        if rng.random() < 0.3:
            melds = tuple(tuple(m) if rng.random() < 0.5 else m for m in melds)
        ref = tuple(tuple(map(int, m)) for m in melds)
        got = int_melds(melds)
        exact = all(type(c) is int for m in melds for c in m)
        assert (got == ref and all(type(c) is int for m in got for c in m)) if exact \
            else got is None
        placed = [c for m in melds for c in m] + rng.choice([[], [300], [-1], [2 ** 70]])
        got = sorted_ids(placed)
        if all(type(c) is int and 0 <= c <= 255 for c in placed):
            assert got == tuple(sorted(placed))
        else:
            assert got is None
        if any(type(c) is float for m in melds for c in m):   # (never truncated)
            with pytest.raises(FastmachError, match="a card id must be an integer"):
                Play(melds, [c for m in melds for c in m])
        else:
            assert Play(melds, [c for m in melds for c in m]) == Play(
                ref, sorted(int(c) for m in melds for c in m))


def test_placed_ids_are_sorted_as_python_sorts_them_short_or_long():
    rng = random.Random(8)
    for n in list(range(40)) + [64, 100, 300]:   # an insertion sort to 32 ids, then counts
        for _ in range(20):
            ids = [rng.randrange(256) for _ in range(n)]
            if rng.random() < 0.5:
                ids = tuple(ids)
            got = sorted_ids(ids)
            assert got == tuple(sorted(ids)) and type(got) is tuple
            assert all(type(c) is int for c in got)
            if n:
                bad = list(ids)
                bad[rng.randrange(n)] = rng.choice([256, -1, 2 ** 64, True, 3.0, np.int64(2)])
                assert sorted_ids(bad) is None
    assert sorted_ids([5, 5, 0, 255]) == (0, 5, 5, 255)
    assert sorted_ids(iter([1])) is None and sorted_ids("12") is None


class TableKeeper:
    """Keeps the tables it was shown (the engine's tuples) and plays the maximum placement."""

    def __init__(self):
        self.tables = []

    def act(self, obs):
        self.tables.append(obs.table)
        return MaxPlacement().act(obs)


def test_solve_on_an_observed_table_answers_as_on_a_copy_of_it():
    bot = TableKeeper()
    fastmach.play_games("classic(match=single)", [bot, "expert"] * 2, 8, range(2))
    rules = resolve_rules("classic")
    rng = random.Random(3)
    tables = [t for t in bot.tables if t]
    assert len(tables) > 10
    for t in tables:
        held = [c for m in t for c in m]
        hand = [c for c in rng.sample(range(52), 12) if held.count(c) < 2][:8]
        a, b = fastmach.solve(t, hand, rules), fastmach.solve([list(m) for m in t], hand, rules)
        assert (a.placed, a.melds) == (b.placed, b.melds)
    # a table of tuples the engine did not make is checked as any other
    bad = ((0, 1, 5),)
    with pytest.raises(FastmachError, match="does not split into valid melds"):
        fastmach.solve(bad, [30], rules)


def test_a_hands_ids_are_its_counts_repeated():
    rng = np.random.default_rng(4)
    for _ in range(300):
        counts = rng.integers(0, 4, 53) * (rng.random(53) < 0.4)
        ref = np.repeat(np.arange(53), counts).tolist()
        for row in (counts.astype(np.int64), counts.astype(np.uint8), counts.tolist(),
                    np.stack([counts, counts])[1]):
            got = ids_of_counts(row)
            assert got == ref and all(type(c) is int for c in got)
    with pytest.raises(ValueError):
        ids_of_counts(np.full(53, -1, dtype=np.int64))
