"""One log reader: replay, the viewer and the report's example games read a log alike;
the viewer refuses what replay refuses, with replay's message."""
from __future__ import annotations

import json

import pytest

from fastmach.errors import FastmachError
from fastmach.game.log_reader import game_lines, log_records, replay
from fastmach.view import read_games

from test_replay_workers import TAMPERS, _dump, _records, _write
from test_replay_workers import log_lines  # noqa: F401  (the same log of three batches)


def _verdict(fn, path):
    try:
        fn(path)
    except FastmachError as e:
        return str(e)
    return None


def test_the_viewer_reads_the_games_replay_reads(log_lines, tmp_path):  # noqa: F811
    path = _write(tmp_path, log_lines)
    hands = replay(path)
    games = read_games(path)
    assert [(h.end, h.winner, h.turns) for h in hands] == [
        (x["end"], x["winner"], x["turns"]) for g in games for x in g.hands]


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_the_viewer_refuses_what_replay_refuses(name, log_lines, tmp_path):  # noqa: F811
    recs = _records(log_lines)
    TAMPERS[name](recs)
    path = _write(tmp_path, _dump(recs))
    want = _verdict(replay, path)
    assert want is not None and _verdict(read_games, path) == want


def test_the_viewer_refuses_an_unknown_record_between_games(log_lines, tmp_path):  # noqa: F811
    lines = list(log_lines)
    lines.insert(1 + next(i for i, x in enumerate(lines) if '"type": "close"' in x),
                 json.dumps({"type": "note", "text": "hello"}))
    path = _write(tmp_path, lines)
    with pytest.raises(FastmachError, match="unknown record type 'note'"):
        read_games(path)
    assert _verdict(replay, path) == _verdict(read_games, path)


def test_a_game_is_found_by_its_records_not_its_spelling(log_lines, tmp_path):  # noqa: F811
    """A game's lines are found whatever the JSON spacing; the game stops at the next
    game's header or at a closing record."""
    recs = _records(log_lines)
    spaced = [json.dumps(r) for r in recs]          # ", " and ": " separators
    path = _write(tmp_path, spaced)
    head = next(r for r in recs if r["type"] == "header" and r["replicate"] == 1
                and r["rules"].startswith("classic"))
    got = game_lines(path, head["seed"], 1)
    assert got and json.loads(got[0]) == head
    kinds = [json.loads(x)["type"] for x in got]
    assert kinds[-1] == "end" and "close" not in kinds
    assert sum(1 for x in got if json.loads(x).get("type") == "header"
               and json.loads(x)["hand"] == 0) == 1
    assert game_lines(path, head["seed"], 99) is None
    spaced[3] = spaced[3][:-2]                       # a damaged line
    assert game_lines(_write(tmp_path, spaced, "bad.jsonl"), head["seed"], 1) is None


def test_a_log_line_beyond_the_bound_is_refused_naming_it_with_memory_flat(tmp_path):
    # a small .jsonl.gz holding one huge line: read line by line in bounded chunks, never
    # expanded whole; the error names the line (replay, the parallel replay, view)
    import gzip
    import subprocess
    import sys

    from fastmach.outputs import MAX_LINE

    path = tmp_path / "huge.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(b'{"type": "close", "games": 0}\n' + b'{"x": "' + b"a" * (1 << 20))
        for _ in range(299):
            f.write(b"a" * (1 << 20))
        f.write(b'"}\n')
    assert path.stat().st_size < 2 << 20
    code = (f"import resource\nfrom fastmach.errors import FastmachError\n"
            f"from fastmach.game.replay_workers import replay_parallel\n"
            f"base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            f"try:\n    replay_parallel({str(path)!r}, workers=2)\n"
            f"except FastmachError as e:\n    print(e)\n"
            f"print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    message, grown = got.stdout.splitlines()
    assert message.startswith("huge.jsonl.gz line 2: longer than") and "MAX_LINE" in message
    assert int(grown) < 64 + 3 * MAX_LINE // 2**20   # MB: a few bounded lines, not 300 MB
    for read in (replay, lambda p: list(log_records(p))):
        with pytest.raises(FastmachError, match="huge.jsonl.gz line 2: longer than"):
            read(path)


def test_lines_up_to_the_bound_are_read_whole(tmp_path, monkeypatch):
    import fastmach.outputs as outputs

    monkeypatch.setattr(outputs, "MAX_LINE", 8)
    path = tmp_path / "x.txt"
    path.write_bytes(b"1234567\n12345678\r\n\n123456789\n")
    got = []
    with pytest.raises(FastmachError, match=r"x.txt line 4: longer than 8 bytes"):
        for no, at, line in outputs.read_lines(path, "log"):
            got.append((no, at, line))
    assert got == [(1, 0, "1234567"), (2, 8, "12345678"), (3, 18, "")]
    lines = outputs.read_lines(path, "log", offset=8, first=2)
    assert [next(lines), next(lines)] == [(2, 8, "12345678"), (3, 18, "")]
