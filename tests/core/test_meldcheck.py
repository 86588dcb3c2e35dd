"""The compiled table check (fastmach.core._meldcheck.partition_ok) says yes exactly where
the independent validator (fastmach.core.validate.check_partition) accepts: on random
tables, on near-valid ones (a valid meld with one card changed), and on the edge cases of
the meld rules (aces at both ends, 14-card runs, joker limits, copies beyond the decks)."""
from __future__ import annotations

import random

import pytest

import fastmach
from fastmach.core import validate
from fastmach.core._meldcheck import partition_ok

JOKER = 52
RULESETS = [dict(decks=d, ace_high=ah, jokers_per_meld=j, ace_both_ends=both)
            for d in (2, 3) for ah in (True, False) for j in (0, 1) for both in (True, False)]


def slow_ok(melds, cards, **r) -> bool:
    try:
        validate.check_partition(melds, cards, **r)
    except validate.ValidationError:
        return False
    return True


def card(suit: int, rank: int) -> int:
    return suit * 13 + (rank - 1) % 13  # rank 14 is the ace


def valid_meld(rng: random.Random) -> list[int]:
    if rng.random() < 0.4:
        rank = rng.randint(1, 13)
        suits = rng.sample(range(4), rng.choice((3, 4)))
        return [card(s, rank) for s in suits]
    n = rng.randint(3, 14)
    lo = rng.randint(1, 15 - n)
    suit = rng.randrange(4)
    return [card(suit, r) for r in range(lo, lo + n)]


def mutate(meld: list[int], rng: random.Random) -> list[int]:
    m = list(meld)
    what = rng.randrange(6)
    if what == 0 and m:
        m[rng.randrange(len(m))] = JOKER
    elif what == 1:
        m.append(JOKER)
    elif what == 2 and m:
        m[rng.randrange(len(m))] = rng.randrange(53)
    elif what == 3 and m:
        m.pop(rng.randrange(len(m)))
    elif what == 4 and m:
        i = rng.randrange(len(m))
        m[i] = (m[i] + 13) % 52 if m[i] != JOKER else m[i]
    else:
        m.append(card(m[0] // 13 if m and m[0] != JOKER else 0, 1))
    rng.shuffle(m)
    return m


def table(rng: random.Random) -> tuple[list[list[int]], list[int]]:
    melds = [valid_meld(rng) for _ in range(rng.randint(0, 5))]
    if melds and rng.random() < 0.7:
        i = rng.randrange(len(melds))
        melds[i] = mutate(melds[i], rng)
    cards = [c for m in melds for c in m]
    if rng.random() < 0.2 and cards:
        cards[rng.randrange(len(cards))] = rng.randrange(53)  # one card not what the melds hold
    if rng.random() < 0.1:
        cards.append(rng.randrange(53))
    rng.shuffle(cards)
    return melds, cards


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_check_agrees_with_the_validator_on_random_near_valid_tables(seed):
    rng = random.Random(seed)
    agree = {True: 0, False: 0}
    for _ in range(2500):
        melds, cards = table(rng)
        r = rng.choice(RULESETS)
        want = slow_ok(melds, cards, **r)
        assert partition_ok(melds, cards, r["decks"], r["ace_high"], r["jokers_per_meld"],
                            r["ace_both_ends"]) == want, (melds, cards, r)
        agree[want] += 1
    assert min(agree.values()) > 300  # both answers are exercised


EDGES = [
    [card(0, r) for r in range(1, 15)],                 # A..K A: both ends
    [card(0, r) for r in range(2, 15)] + [JOKER],         # 2..A + joker (14)
    [card(1, 12), card(1, 13), card(1, 1)],               # Q K A
    [card(1, 1), card(1, 2), card(1, 3)],                 # A 2 3
    [card(1, 13), card(1, 1), card(1, 2)],                # K A 2 (never)
    [card(2, 1), card(2, 1), JOKER],                      # two aces + joker
    [card(2, 1), JOKER, JOKER],                           # ace + two jokers
    [JOKER, JOKER, JOKER],
    [card(0, 5), card(1, 5), card(2, 5), card(3, 5), JOKER],  # five-card group
    [card(0, 5), card(1, 5), JOKER, JOKER],
    [card(0, 5), card(0, 5), card(1, 5)],                 # same suit twice in a group
    [card(3, 7), card(3, 8)],                             # too short
    [card(3, 7), JOKER, card(3, 9), JOKER, card(3, 11)],
    [card(0, 1)] * 3,
]


@pytest.mark.parametrize("meld", EDGES, ids=[validate.meld_text(m) for m in EDGES])
@pytest.mark.parametrize("r", RULESETS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()))
def test_the_compiled_check_agrees_on_the_edge_cases_of_the_meld_rules(meld, r):
    assert partition_ok([meld], list(meld), r["decks"], r["ace_high"], r["jokers_per_meld"],
                        r["ace_both_ends"]) == slow_ok([meld], list(meld), **r)


def test_copies_beyond_the_decks_and_malformed_input_are_a_no():
    run = [card(0, r) for r in range(3, 6)]
    assert partition_ok([run, run], run + run, 2, True, 1)
    assert not partition_ok([run, run, run], run * 3, 2, True, 1)
    assert partition_ok([run, run, run], run * 3, 3, True, 1)
    assert not partition_ok([run], run + [JOKER], 2, True, 1)     # a card not placed
    assert not partition_ok([[True, 3, 4]], [1, 3, 4], 2, True, 1)  # not a card id
    assert not partition_ok([[3, 4, 99]], [3, 4, 99], 2, True, 1)
    assert not partition_ok([[3, 4, 5.0]], [3, 4, 5], 2, True, 1)
    assert not partition_ok([None], [], 2, True, 1)


class BadRun:
    """Answers a table whose new meld is one card short of a run."""

    def act(self, obs):
        sol = fastmach.solve(obs.table, obs.hand, obs.rules)
        if not sol.placed:
            return fastmach.Draw()
        melds = list(sol.melds)
        for i, m in enumerate(melds):
            if len(m) == 3 and m not in obs.table:
                melds[i] = m[:2]
                extra = m[2]
                placed = list(sol.placed)
                placed.remove(extra)
                return fastmach.Play(tuple(melds), tuple(placed))
        return fastmach.Play(sol.melds, sol.placed)


@pytest.mark.parametrize("check", [False, True])
def test_a_bots_bad_table_is_named_by_the_validator_on_both_paths(check):
    with pytest.raises(fastmach.FastmachError, match=r"illegal action: illegal play: meld \d+ "
                       r"\[.*\] is invalid: 2 cards \(a meld needs at least 3\)"):
        fastmach.play_games("classic(match=single,players=3)", [BadRun(), "expert", "expert"],
                            1, range(20), check=check)


def test_bots_play_the_same_games_on_the_fast_and_the_strict_path():
    from fastmach.strategies.examples import MaxPlacement
    for rules in ("classic(match=single,players=3)", "jokers(players=3)",
                  "italian(jokers=2,players=3)"):
        seats = [MaxPlacement(), "expert", MaxPlacement()]
        fast = fastmach.play_games(rules, seats, 5, range(15))
        strict = fastmach.play_games(rules, seats, 5, range(15), check=True)
        assert fast.equals(strict), rules


def test_the_state_answers_the_same_on_the_fast_and_the_strict_check():
    for rules in ("classic(match=single,players=3)", "jokers(players=3)"):
        fast = fastmach.Game(rules).new_initial_state(3, 1)
        strict = fastmach.Game(rules, strict=True).new_initial_state(3, 1)
        fast.play_out()
        strict.play_out()
        assert fast.history == strict.history and fast.row() == strict.row()
    st = fastmach.Game("classic(match=single,players=3)").new_initial_state(0, 0)
    ref = fastmach.Game("classic(match=single,players=3)", strict=True).new_initial_state(0, 0)
    hand = st.hand_of(st.current_player)
    bad = fastmach.Play([hand[:3]], hand[:3])
    with pytest.raises(fastmach.FastmachError) as a:
        st.check(bad)
    with pytest.raises(fastmach.FastmachError) as b:
        ref.check(bad)
    assert str(a.value) == str(b.value) and "illegal play" in str(a.value)
