"""JSONL game logs: written by the engine as it plays, re-checked by replay without the solver."""
from __future__ import annotations

import argparse
import json
import re

import pytest

from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.cli import add_replay as register_cli
from fastmach.game.log_reader import replay, replay_states


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("logs") / "games.jsonl"
    frames = [
        play_games("classic(players=3,match=rotations:1)", ["expert"] * 3, 9, range(2), log=path),
        play_games("classic(players=7,match=single)", ["expert(error=0.3)"] * 7, 9, range(4), log=path),
        play_games("ace-low(players=7,jokers=2,opening_points=36,match=single)", ["expert"] * 7, 9,
                   range(3), log=path),
        play_games("jokers(players=3)", ["expert"] * 3, 9, range(2), log=path),
    ]
    return path, frames


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_log_format(log_path):
    path, frames = log_path
    recs = _lines(path)
    head = recs[0]
    assert head["type"] == "header" and head["rules"] == "classic(players=3)"
    assert head["seed"] == 9 and head["replicate"] == 0 and head["hand"] == 0
    assert len(head["hands"]) == 3 and all(len(h) == 13 for h in head["hands"])
    assert len(head["stock"]) == 104 - 39 and all(isinstance(c, str) for c in head["stock"])
    turn = recs[1]
    assert turn["type"] == "turn" and turn["seat"] == head["first_player"]
    assert set(turn) >= {"seat", "action", "placed", "drawn", "table"}
    assert sum(1 for r in recs if r["type"] == "header") == 3 * 2 + 4 + 3 + 2
    ends = [r for r in recs if r["type"] == "end"]
    assert all(set(e) >= {"end", "winner", "points"} for e in ends)


def test_replay_rechecks_every_game_and_agrees_with_the_engine(log_path):
    path, frames = log_path
    hands = replay(path)
    assert len(hands) == 3 * 2 + 4 + 3 + 2
    # single-hand games: replay's end and winner equal the engine's rows
    singles = hands[6:]
    rows = [r for df in frames[1:] for _, r in df.iterrows()]
    assert [(h.end, h.winner, h.turns) for h in singles] == [
        (r["end"], r["winner"], r["turns"]) for r in rows]
    assert any(h.end != "emptied" for h in singles)
    assert "plays" in hands[0].text and "seat" in hands[0].text


def _corrupt(path, tmp_path, fn):
    recs = _lines(path)
    fn(recs)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    return bad


def _first(recs, pred):
    return next(i for i, r in enumerate(recs) if pred(r))


def test_replay_refuses_a_card_not_in_the_hand(log_path, tmp_path):
    path, _ = log_path
    recs = _lines(path)
    i = _first(recs, lambda r: r["type"] == "turn" and r["action"] == "play")

    def fn(rs):
        rs[i]["placed"] = rs[i]["placed"] + ["JK"]
    with pytest.raises(FastmachError, match=f"line {i + 1}:"):
        replay(_corrupt(path, tmp_path, fn))


def test_replay_refuses_an_invalid_table(log_path, tmp_path):
    path, _ = log_path
    recs = _lines(path)
    i = _first(recs, lambda r: r["type"] == "turn" and r["action"] == "play")

    def fn(rs):
        m = rs[i]["table"][0]
        rs[i]["table"][0] = m[:2]
        rs[i]["table"].append([m[2]] if len(m) == 3 else m[2:])
    with pytest.raises(FastmachError, match=f"line {i + 1}: illegal play"):
        replay(_corrupt(path, tmp_path, fn))


def test_replay_refuses_a_wrong_draw_seat_or_winner(log_path, tmp_path):
    path, _ = log_path
    recs = _lines(path)
    i = _first(recs, lambda r: r["type"] == "turn" and r["action"] == "draw" and r["drawn"])

    def wrong_card(rs):
        rs[i]["drawn"] = ["AS"] if rs[i]["drawn"] != ["AS"] else ["2S"]
    with pytest.raises(FastmachError, match=f"line {i + 1}: drawn"):
        replay(_corrupt(path, tmp_path, wrong_card))

    def wrong_seat(rs):
        rs[i]["seat"] = (rs[i]["seat"] + 1) % 3
    with pytest.raises(FastmachError, match=f"line {i + 1}: seat"):
        replay(_corrupt(path, tmp_path, wrong_seat))
    j = _first(recs, lambda r: r["type"] == "end")

    def wrong_winner(rs):
        rs[j]["winner"] = (rs[j]["winner"] + 1) % 3
    with pytest.raises(FastmachError, match=f"line {j + 1}: winner"):
        replay(_corrupt(path, tmp_path, wrong_winner))


def test_replay_refuses_a_forged_match_result(log_path, tmp_path):
    # the end record's match fields are re-derived from the rules and the hands' scores
    path, _ = log_path
    recs = _lines(path)
    last = _first(recs, lambda r: r["type"] == "end" and r["match_over"])   # rotations:1

    def wrong_match_winner(rs):
        rs[last]["match_winner"] = (rs[last]["match_winner"] + 2) % 3
    with pytest.raises(FastmachError, match=f"line {last + 1}: match_winner"):
        replay(_corrupt(path, tmp_path, wrong_match_winner))

    def wrong_match_shares(rs):
        rs[last]["match_shares"] = [1.0, 0.0, 0.0] if rs[last]["match_shares"][0] != 1 \
            else [0.0, 1.0, 0.0]
    with pytest.raises(FastmachError, match=f"line {last + 1}: match_shares"):
        replay(_corrupt(path, tmp_path, wrong_match_shares))

    def wrong_cards_left(rs):
        rs[last]["cards_left"] = [c + 1 for c in rs[last]["cards_left"]]
    with pytest.raises(FastmachError, match=f"line {last + 1}: cards_left"):
        replay(_corrupt(path, tmp_path, wrong_cards_left))

    def ended_early(rs):
        # the first game's rules say three rotations: its third hand does not end it
        for r in rs:
            if r["type"] == "header" and r["rules"] == "classic(players=3)":   # rotations:1
                r["rules"] = "classic(players=3,match=rotations:3)"
    with pytest.raises(FastmachError, match=r"match_over true but under match=rotations:3 "
                                            r"the match goes on after hand 2"):
        replay(_corrupt(path, tmp_path, ended_early))

    def never_over(rs):
        rs[last]["match_over"] = False
        del rs[last]["match_winner"], rs[last]["match_shares"]
    with pytest.raises(FastmachError, match=f"line {last + 1}: match_over false but under "
                                            f"match=rotations:1 the match is over"):
        replay(_corrupt(path, tmp_path, never_over))


def test_replay_names_a_table_meld_holding_a_list_instead_of_a_card(log_path, tmp_path):
    path, _ = log_path
    recs = _lines(path)
    i = _first(recs, lambda r: r["type"] == "turn" and r["table"])

    def nested(rs):
        rs[i]["table"] = [[rs[i]["table"][0]]]   # a meld whose one item is a list
    with pytest.raises(FastmachError, match=f"line {i + 1}: field 'table': bad card"):
        replay(_corrupt(path, tmp_path, nested))


@pytest.mark.parametrize("field,value,message", [
    ("seed", -1, "'seed' must be an integer >= 0, got -1"),
    ("replicate", None, "'replicate' must be an integer >= 0, got null"),
    ("strategies", None, "'strategies' must list 3 strategy names"),
    ("strategies", ["expert"], "'strategies' must list 3 strategy names"),
    ("strategies", [1, 2, 3], "'strategies' must list 3 strategy names"),
])
def test_replay_refuses_a_header_field_of_the_wrong_kind(log_path, tmp_path, field, value,
                                                         message):
    path, _ = log_path

    def fn(rs):
        rs[0][field] = value
    with pytest.raises(FastmachError, match=f"line 1: header: {re.escape(message)}"):
        replay(_corrupt(path, tmp_path, fn))


@pytest.mark.parametrize("value", [None, 10**30, 0, True])
def test_replay_refuses_a_turn_numbered_out_of_order(log_path, tmp_path, value):
    path, _ = log_path

    def fn(rs):
        rs[2]["turn"] = value   # the hand's second turn
    assert _lines(path)[2]["type"] == "turn"
    with pytest.raises(FastmachError, match="line 3: turn .* but it is turn 2 of the hand"):
        replay(_corrupt(path, tmp_path, fn))


def test_replay_names_a_bad_card_of_a_dealt_hand_by_its_seat(log_path, tmp_path):
    path, _ = log_path

    def fn(rs):
        rs[0]["hands"][1][0] = "ZZ"
    with pytest.raises(FastmachError, match=r"line 1: field 'hands\[1\]': bad card 'ZZ'"):
        replay(_corrupt(path, tmp_path, fn))


def test_replay_refuses_bad_json_and_truncated_logs(tmp_path, log_path):
    path, _ = log_path
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"type": "header"\n')
    with pytest.raises(FastmachError, match="line 1: not JSON"):
        replay(bad)
    lines = path.read_text().splitlines()
    bad.write_text("\n".join(lines[:5]) + "\n")
    with pytest.raises(FastmachError, match="no end record"):
        replay(bad)
    bad.write_text("\n".join(lines[1:3]) + "\n")
    with pytest.raises(FastmachError, match="line 1: turn before any header"):
        replay(bad)
    with pytest.raises(FastmachError, match="cannot read log"):
        replay(tmp_path / "missing.jsonl")


def test_cli_replay(log_path, capsys):
    path, _ = log_path
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    register_cli(sub)
    args = parser.parse_args(["replay", str(path)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "re-checked, all turns legal" in out and "== classic(players=3)" in out


def test_every_game_replays_from_its_seed_and_action_list(log_path):
    path, frames = log_path
    states = replay_states(path)
    assert len(states) == 2 + 4 + 3 + 2 and all(s.is_terminal() for s in states)
    rows = [r for df in frames for _, r in df.iterrows()]
    for st, row in zip(states, rows):
        assert st.winner() == row["winner"] and st.total_turns == row["turns"]
        assert st.scores == [row[f"score_{i}"] for i in range(st.rules.players)]


# A golden playthrough (jokers, 2 players, 7 cards, seed 2026, replicate 240): the deal,
# then each turn as "seat action [placed | table after]" and the drawn cards. Replayed
# through the State API (checked with fastmach.core.validate), independent of the solver.
GOLDEN_HANDS = ["10S AH 10H 5D 7C JK JK", "3H 8D 5C 10C JC KC JK"]
GOLDEN_TURNS = [
    "1 play 10C JC KC JK | 10C JC JK KC",
    "0 play 10S 10H JK | 10S 10H 10C JK / JC JK KC",
    "1 draw 6S",
    "0 draw AC",
    "1 draw QC",
    "0 play AH AC JK | 10S 10H 10C JK / JC JK KC / AH AC JK",
    "1 play 3H QC | AH JK 3H / 10S 10H 10C / JK JC QC / JK KC AC",
    "0 draw 5H",
    "1 draw 6C",
    "0 play 5H 5D | AH JK 3H / 5H 5D JK / 10S 10H 10C / JK JC QC KC AC",
    "1 play 6S 5C 6C | AH JK 3H / 5H 5D 5C / 6S 6C JK / 10S 10H 10C / JK JC QC KC AC",
    "0 draw 6D",
    "1 draw 4D",
    "0 play 6D 7C | AH JK 3H / 5H 5D 5C / 6S 6D JK / 6C 7C JK / 10S 10H 10C / JC QC KC AC",
]


def test_golden_playthrough():
    from fastmach.core.cards import parse_cards
    from fastmach.game import Draw, Game, Play

    st = Game("jokers(players=2,hand_size=7)").new_initial_state(2026, 240)
    assert st.hands == [sorted(parse_cards(h)) for h in GOLDEN_HANDS]
    for line in GOLDEN_TURNS:
        head, _, table = line.partition(" | ")
        seat, kind, *cards = head.split()
        assert st.current_player == int(seat)
        if kind == "play":
            melds = [parse_cards(m) for m in table.split(" / ")]
            rec = st.apply_action(Play(melds, parse_cards(" ".join(cards))))
        else:
            rec = st.apply_action(Draw())
            assert list(rec.drawn) == parse_cards(" ".join(cards))
    assert st.is_terminal()
    hr = st.hand_results[0]
    assert (hr.end, hr.winner, hr.points) == ("emptied", 0, (0, 12))
    # an illegal variation of the golden game is refused: 10S 10H with one joker only
    st2 = Game("jokers(players=2,hand_size=7)").new_initial_state(2026, 240)
    st2.apply_action(Play([parse_cards("10C JC JK KC")], parse_cards("10C JC KC JK")))
    assert not st2.is_legal(Play([parse_cards("10S 10H 10C JK JK"), parse_cards("JC KC")],
                                 parse_cards("10S 10H JK")))


def test_the_log_is_the_engines_record_and_replays_for_python_bots(tmp_path):
    # the engine writes what it applied: a bot's game (Python decisions) logs and replays too
    from fastmach.strategies.examples import MaxPlacement

    path = tmp_path / "bot.jsonl"
    df = play_games("classic(match=single)", [MaxPlacement(), "expert", "beginner", "expert"],
                    4, range(3), log=path)
    hands = replay(path)
    assert [(h.end, h.winner, h.turns) for h in hands] == [
        (r["end"], r["winner"], r["turns"]) for _, r in df.iterrows()]
    recs = _lines(path)
    assert sum(r["type"] == "turn" for r in recs) == df["turns"].sum()
    assert sum(len(r["drawn"]) for r in recs if r["type"] == "turn") == df["cards_drawn"].sum()


def _forged_deals(path):
    """The four forgeries of a game's header that keep every turn and points legal: a
    dealt card kept to the end swapped with an undrawn stock card of the same points, two
    undrawn stock cards swapped, the seed changed, the replicate changed."""
    from fastmach.core.cards import card_points, parse_card
    from fastmach.rules import Rules

    recs = _lines(path)
    for h, head in enumerate(recs):
        if head["type"] != "header" or head["hand"] != 0:
            continue
        e = next(i for i in range(h, len(recs)) if recs[i]["type"] == "end")
        turns = recs[h + 1:e]
        drawn = sum(len(t["drawn"]) for t in turns)
        undrawn = head["stock"][drawn:]
        placed = {c for t in turns for c in t["placed"]}
        pts = card_points(Rules.parse(head["rules"]).hand_points)
        for s, hand in enumerate(head["hands"]):
            for k, c in enumerate(hand):
                j = next((j for j, d in enumerate(undrawn) if d != c and d not in placed
                          and c not in placed and pts[parse_card(d)] == pts[parse_card(c)]),
                         None)
                if j is None or len(set(undrawn)) < 2:
                    continue
                a = next(a for a, d in enumerate(undrawn) if d != undrawn[0])

                def dealt_for_stock(rs, h=h, s=s, k=k, j=j):
                    rs[h]["hands"][s][k], rs[h]["stock"][drawn + j] = (
                        rs[h]["stock"][drawn + j], rs[h]["hands"][s][k])

                def stock_swapped(rs, h=h, a=a):
                    st = rs[h]["stock"]
                    st[drawn], st[drawn + a] = st[drawn + a], st[drawn]

                def seed(rs, h=h):
                    rs[h]["seed"] += 1

                def replicate(rs, h=h):
                    rs[h]["replicate"] += 100
                return h, [dealt_for_stock, stock_swapped, seed, replicate]
    raise AssertionError("no game to forge")


def test_replay_refuses_a_deal_its_seed_does_not_deal(log_path, tmp_path, capsys):
    # a header's hands, stock, dealer and first player are dealt again from its rules,
    # seed and replicate: any other deal is refused, by replay, view and replay_states
    from fastmach.cli import main
    from fastmach.view import read_games

    path, _ = log_path
    h, forgeries = _forged_deals(path)
    for fn in forgeries:
        bad = _corrupt(path, tmp_path, fn)
        msg = f"line {h + 1}: header: not the deal of seed"
        with pytest.raises(FastmachError, match=msg):
            replay(bad)
        with pytest.raises(FastmachError, match=msg):
            read_games(bad)
        with pytest.raises(FastmachError, match=msg):
            replay_states(bad)
        assert main(["replay", str(bad)]) == 2
        err = capsys.readouterr().err
        assert "not the deal of seed" in err and "Traceback" not in err


def test_replay_names_what_differs_from_the_seeds_deal(log_path, tmp_path):
    path, _ = log_path

    def first(rs):
        rs[0]["first_player"] = (rs[0]["first_player"] + 1) % 3
        rs[0]["stock"][0], rs[0]["stock"][-1] = rs[0]["stock"][-1], rs[0]["stock"][0]
    with pytest.raises(FastmachError, match=r"line 1: header: not the deal of seed 9 replicate "
                                            r"0 hand 0 under classic\(players=3\): the stock "
                                            r"has \w+ where the seed deals \w+; first_player"):
        replay(_corrupt(path, tmp_path, first))

    def later_hand(rs):
        i = _first(rs, lambda r: r["type"] == "header" and r["hand"] == 1)
        rs[i]["seed"] = 8
    with pytest.raises(FastmachError, match="header: seed 8 but its game's first hand has 9"):
        replay(_corrupt(path, tmp_path, later_hand))
    with pytest.raises(FastmachError, match="header: seed 8 but its game's first hand has 9"):
        replay_states(_corrupt(path, tmp_path, later_hand))
