"""Replay on several processes gives the verdict, the messages and the text of replay on
one, on good logs and on tampered ones (the first fault in log order is the one named)."""
from __future__ import annotations

import io
import json
import random

import pytest

from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.game import log_reader, replay_workers
from fastmach.game.log_reader import replay
from fastmach.game.replay_workers import replay_parallel


@pytest.fixture(scope="module")
def log_lines(tmp_path_factory):
    """A log of three batches (three closing records): matches of several hands, single
    hands, jokers."""
    path = tmp_path_factory.mktemp("logs") / "games.jsonl"
    play_games("classic(players=3,match=rotations:1)", ["expert"] * 3, 4, range(3), log=path)
    play_games("classic(players=4,match=single)", ["expert(error=0.3)"] * 4, 4, range(4),
               log=path)
    play_games("jokers(players=3,match=single)", ["expert"] * 3, 4, range(3), log=path)
    return path.read_text().splitlines()


def _outcome(fn, path, **kw):
    """(text printed, hands' summaries, error message or None) of one replay."""
    out = io.StringIO()
    try:
        hands = fn(path, out=out, **kw)
        err = None
    except FastmachError as e:
        hands, err = None, str(e)
    summary = None if hands is None else [
        (h.rules, h.seed, h.replicate, h.hand, h.end, h.winner, h.turns, h.points, h.text)
        for h in hands]
    return out.getvalue(), summary, err


@pytest.fixture
def tiny_pieces(monkeypatch):
    """Pieces as small as one game, so that every game's first header is a cut."""
    monkeypatch.setattr(replay_workers, "MIN_LINES", 1)


def _both(path):
    serial = _outcome(replay, path)
    cut = _outcome(replay_parallel, path, workers=3, run=map)
    return serial, cut


def _write(tmp_path, lines, name="t.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def test_a_good_log_replays_the_same_in_pieces(log_lines, tmp_path, tiny_pieces):
    path = _write(tmp_path, log_lines)
    serial, cut = _both(path)
    assert serial[2] is None and serial[1] and cut == serial
    cuts, total = replay_workers._cuts(path, len(log_lines))
    assert len(cuts) == 3 + 4 + 3 and total == len(log_lines)   # a game each


def _records(lines):
    return [json.loads(x) for x in lines]


def _dump(recs):
    return [json.dumps(r, separators=(",", ":")) for r in recs]


def _index(recs, pred, k=0):
    return [i for i, r in enumerate(recs) if pred(r)][k]


TAMPERS = {
    "a changed card": lambda rs: rs[_index(rs, lambda r: r["type"] == "turn"
                                            and r["action"] == "play", 5)]["placed"].append("QS"),
    "a drawn card changed": lambda rs: rs[_index(rs, lambda r: r["type"] == "turn" and r["drawn"], 9)]
    .update(drawn=["AS"] if rs[_index(rs, lambda r: r["type"] == "turn" and r["drawn"], 9)]["drawn"] != ["AS"] else ["2S"]),
    "a forged closing record": lambda rs: rs[_index(rs, lambda r: r["type"] == "close", 1)]
    .update(games=5),
    "the first closing record forged": lambda rs: rs[_index(rs, lambda r: r["type"] == "close")]
    .update(games=2),
    "shares changed": lambda rs: rs[_index(rs, lambda r: r["type"] == "end", 6)]
    .update(shares=[0.5, 0.5, 0.0, 0.0]),
    "a match left open": lambda rs: rs[_index(rs, lambda r: r["type"] == "end"
                                                and r.get("match_over"), 1)]
    .update(match_over=False),
    "an end record removed": lambda rs: rs.pop(_index(rs, lambda r: r["type"] == "end", 4)),
    "a closing record removed": lambda rs: rs.pop(_index(rs, lambda r: r["type"] == "close")),
    "an unknown record": lambda rs: rs.insert(_index(rs, lambda r: r["type"] == "header", 5),
                                              {"type": "comment"}),
    "a later hand first": lambda rs: rs[_index(rs, lambda r: r["type"] == "header"
                                                and r["hand"] == 0, 4)].update(hand=1),
    "the last closing record removed": lambda rs: rs.pop(),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_a_tampered_log_fails_the_same_in_pieces(name, log_lines, tmp_path, tiny_pieces):
    recs = _records(log_lines)
    TAMPERS[name](recs)
    path = _write(tmp_path, _dump(recs))
    serial, cut = _both(path)
    assert serial[2] is not None, name   # each tampering is caught
    assert cut == serial


@pytest.mark.parametrize("at", [0.3, 0.5, 0.77, 0.999])
def test_a_cut_log_fails_the_same_in_pieces(at, log_lines, tmp_path, tiny_pieces):
    path = _write(tmp_path, log_lines[:int(len(log_lines) * at)])
    serial, cut = _both(path)
    assert serial[2] is not None and cut == serial


def test_random_faults_give_the_same_first_error_in_pieces(log_lines, tmp_path, tiny_pieces):
    """Lines dropped, repeated, swapped or made unreadable at random places, several at
    once: the first fault in log order is the one both name."""
    rng = random.Random(7)
    for k in range(30):
        lines = list(log_lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            op = rng.choice(["drop", "repeat", "swap", "garble", "blank"])
            if op == "drop":
                lines.pop(i)
            elif op == "repeat":
                lines.insert(i, lines[i])
            elif op == "swap" and i + 1 < len(lines):
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
            elif op == "garble":
                lines[i] = lines[i][:-1]
            else:
                lines.insert(i, "   ")
        path = _write(tmp_path, lines, f"r{k}.jsonl")
        serial, cut = _both(path)
        assert cut == serial, (k, serial[2], cut[2])


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_worker_processes_replay_like_one(start, log_lines, tmp_path, tiny_pieces,
                                          monkeypatch):
    monkeypatch.setattr(replay_workers, "START_METHOD", start)
    good = _write(tmp_path, log_lines, "good.jsonl")
    recs = _records(log_lines)
    TAMPERS["a forged closing record"](recs)
    bad = _write(tmp_path, _dump(recs), "bad.jsonl")
    for path in (good, bad):
        assert _outcome(replay_parallel, path, workers=2) == _outcome(replay, path)


def test_replay_refuses_a_worker_count_below_one(log_lines, tmp_path):
    with pytest.raises(FastmachError, match="workers must be a positive integer"):
        replay_parallel(_write(tmp_path, log_lines), workers=0)


def test_card_lists_read_fast_as_parse_card_reads_them():
    """The canonical names go through a table; any other token through parse_card, with
    its answer or its message."""
    tokens = ["AS", "10H", "JK", "th", "A♠", "*", "1S", "", 5, None, ["AS"], "QC", " KD"]
    for t in tokens:
        try:
            want = [log_reader.parse_card(t)]
        except (FastmachError, TypeError) as e:
            want = type(e), str(e)
        try:
            got = log_reader._ids([t])
        except (FastmachError, TypeError) as e:
            got = type(e), str(e)
        assert got == want, t


def test_replay_names_shares_of_the_wrong_length(log_lines, tmp_path):
    recs = _records(log_lines)
    i = _index(recs, lambda r: r["type"] == "end", 6)
    recs[i]["shares"] = recs[i]["shares"][:-1]
    with pytest.raises(FastmachError, match=f"line {i + 1}: shares .* but the rules give"):
        replay(_write(tmp_path, _dump(recs)))


def test_the_meld_memo_gives_the_validators_verdicts_and_messages():
    """check_partition with a MeldMemo (melds judged once, a good partition found by
    sorted lists) against check_partition without it: the same pass or the same message,
    on random partitions, near-misses and bad input."""
    from fastmach.core import validate
    rng = random.Random(3)
    memo = validate.MeldMemo(ace_high=True, jokers_per_meld=1)
    runs = [[s * 13 + r for r in range(a, a + n)] for s in range(4) for a in range(10)
            for n in (3, 4, 5) if a + n <= 13]
    groups = [[s * 13 + r for s in ss] for r in range(13)
              for ss in ([0, 1, 2], [1, 2, 3], [0, 1, 2, 3], [0, 2, 3])]
    melds = runs + groups
    for k in range(600):
        table = [list(rng.choice(melds)) for _ in range(rng.randint(0, 8))]
        if table and rng.random() < 0.3:
            m = rng.choice(table)
            m[rng.randrange(len(m))] = 52                      # a joker stands in
        cards = [c for m in table for c in m]
        op = rng.random()
        if cards and op < 0.2:
            cards.pop(rng.randrange(len(cards)))               # a card missing
        elif op < 0.35:
            cards.append(rng.randrange(53))                    # one too many
        elif table and op < 0.45:
            table[0] = table[0][:2]                            # a short meld
        elif op < 0.5:
            cards.append(True)                                 # not a card id
        elif table and op < 0.55:
            table.append(list(table[0]))                       # too many copies
            cards += table[0] * 2
        got = want = None
        try:
            validate.check_partition(table, cards, decks=2, ace_high=True, jokers_per_meld=1,
                                     memo=memo)
        except validate.ValidationError as e:
            got = str(e)
        try:
            validate.check_partition(table, cards, decks=2, ace_high=True, jokers_per_meld=1)
        except validate.ValidationError as e:
            want = str(e)
        assert got == want, (k, table, cards)
    with pytest.raises(FastmachError, match="MeldMemo"):
        validate.check_partition([], [], decks=2, ace_high=False, jokers_per_meld=1, memo=memo)


def test_cli_replay_refuses_zero_workers_and_replays_on_two(log_lines, tmp_path, capsys):
    from fastmach.cli import main
    path = _write(tmp_path, log_lines)
    assert main(["replay", "--workers", "0", str(path)]) == 2
    assert "--workers must be at least 1, got 0" in capsys.readouterr().err
    assert main(["replay", "-q", "--workers", "2", str(path)]) == 0
    assert "10 game(s) re-checked, all turns legal" in capsys.readouterr().out


def test_a_log_cut_after_a_batch_is_seen_as_cut_in_pieces_and_whole(tmp_path, tiny_pieces):
    # fastmach play --log writes its games in batches, each closing record saying how
    # many games the whole log holds ("of"): a log that ends after an earlier batch is cut
    from fastmach.engine import run_play_columns
    log = tmp_path / "g.jsonl"
    run_play_columns("classic(players=3,match=single)", "expert", 7, 5, log=log, chunk=3,
                     progress=False)
    lines = log.read_text().splitlines()
    closes = [i for i, x in enumerate(lines) if '"type": "close"' in x]
    assert [json.loads(lines[i]) for i in closes] == [
        {"type": "close", "games": 3, "of": 7}, {"type": "close", "games": 3, "of": 7},
        {"type": "close", "games": 1, "of": 7}]
    whole = _both(_write(tmp_path, lines, "whole.jsonl"))
    assert whole[0][2] is None and whole[1] == whole[0]
    for k, games in ((0, 3), (1, 6)):
        serial, cut = _both(_write(tmp_path, lines[:closes[k] + 1], f"cut{k}.jsonl"))
        assert serial[2] == (f"cut{k}.jsonl line {closes[k] + 1}: the closing record says the "
                             f"log holds 7 game(s), it holds {games}: a log cut after a batch "
                             f"of games?")
        assert cut == serial
    recs = _records(lines)
    recs[closes[-1]]["of"] = "7"
    serial, cut = _both(_write(tmp_path, _dump(recs), "bad_of.jsonl"))
    assert "closing record's 'of' must be a positive integer" in serial[2] and cut == serial
