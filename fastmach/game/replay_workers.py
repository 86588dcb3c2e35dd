"""``replay`` on several processes: the same verdict, the same messages, the same text as
``fastmach.game.log_reader.replay`` on one.

The log is cut at the headers that start a game (``hand`` 0) into pieces of whole games;
each piece is checked by a worker from the state a game starts in (no hand open, the last
match over), as ``replay`` checks it. What a piece cannot know is put back in log order
here: that the previous piece left a hand or a match open (the error ``replay`` reports
at this header), the game count of the piece's first closing record (the games of the
pieces before it), and the end of the log (its last game ended and closed). The first
error in log order is the one raised, after the text of the hands before it. A cut
that is not a game's first header after all (a tampered log) makes the whole log go
through ``replay`` on one process.
"""
from __future__ import annotations

import concurrent.futures as cf
import itertools
import multiprocessing
import os
import re
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from fastmach.core.workers import check_local_workers
from fastmach.errors import FastmachError
from fastmach.rules import is_integer
from fastmach.game.log_reader import (HEADER_IN_HAND, MATCH_NOT_OVER, ReplayedHand, BadLog,
                                   LogChecker, close_count_message, parse_log_line, replay,
                                   short_message, truncated_message, unclosed_message)
from fastmach.outputs import read_lines

__all__ = ["replay_parallel", "default_workers"]

#: a piece holds at least this many lines (fewer pieces for a small log)
MIN_LINES = 2_000
_HEADER = re.compile(r'\s*\{\s*"type"\s*:\s*"header"')
_FIRST_HAND = re.compile(r'"hand"\s*:\s*0\s*[,}]')
#: the order of faults found on one line: the line is read, then what comes before it is
#: judged (a hand or match left open), then the record itself
_JSON, _BEFORE, _RECORD = 0, 1, 2


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class Piece:
    """What a worker found in the lines of a log from ``first`` on (1-based line numbers)."""

    first: int
    starts_game: bool = True     # its first record is a game's first header
    hands: list[ReplayedHand] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)   # the line of each hand's end record
    error: tuple[int, int, str] | None = None  # the first fault: (line, rank, message)
    pending: tuple | None = None   # its first closing record: (line, count, games before)
    open_hand: bool = False        # a hand without its end record at the piece's end
    match_over: bool = True
    games: int = 0                 # games since its last closing record (or its start)
    closed: bool = False           # its last record is a closing record
    seen_close: bool = False
    all_games: int = 0             # games that start in it
    last_of: tuple[int, int] | None = None   # its last closing record's (line, of)


#: how workers start: None (fork when this process runs one thread), "fork" or "spawn"
START_METHOD: str | None = None


def piece_lines(path: str | Path, first: int, offset: int, count: int) -> Iterator[str]:
    """The ``count`` lines of a log from line ``first`` (at byte ``offset`` of its text) on,
    read from the file one at a time (a worker reads its own piece)."""
    lines = read_lines(path, "log", offset=offset, first=first)
    return (line for _, _, line in itertools.islice(lines, count))


def _piece(path: str, name: str, first: int, offset: int, count: int, text: bool) -> Piece:
    """``check_piece`` of a piece of the log, read by the worker."""
    return check_piece(name, first, piece_lines(path, first, offset, count), text)


def check_piece(name: str, first: int, lines: Iterable[str], text: bool = True) -> Piece:
    """Check the lines of a log from line ``first`` on, as ``replay`` would from the start
    of a game (``text``: with the hands' readable text)."""
    out = Piece(first)
    log = LogChecker(open_count=True, text=text)
    started = False
    for no, line in enumerate(lines, first):
        if not line.strip():
            continue
        try:
            rec = parse_log_line(name, no, line)
        except FastmachError as e:
            out.error = (no, _JSON, str(e))
            break
        if not started and first > 1:   # (the log's first line starts no piece check)
            started = True
            if rec.get("type") != "header" or rec.get("hand", 0) != 0:
                out.starts_game = False
                return out
        try:
            log.record(no, rec)
        except BadLog as e:
            out.error = (no, _RECORD, f"{name} line {no}: {e}")
            break
    out.hands, out.ends, out.pending = log.hands, log.ends, log.pending
    out.open_hand, out.match_over = log.checker is not None, log.match_over
    out.games, out.closed, out.seen_close = log.games, log.closed, log.pending is not None
    out.all_games, out.last_of = log.all_games, log.last_of
    return out


def _cuts(path: str | Path, pieces: int) -> tuple[list[tuple[int, int]], int]:
    """Where pieces start, as (line number, byte offset): lines that look like a game's
    first header, about ``lines / pieces`` lines apart (the workers confirm each); and the
    log's line count. Two passes over the file, line by line (memory flat in its size)."""
    total = sum(1 for _ in read_lines(path, "log"))
    step = max(MIN_LINES, total // max(1, pieces))
    cuts = [(1, 0)]
    for no, at, line in read_lines(path, "log"):
        if no - cuts[-1][0] >= step and _HEADER.match(line) and _FIRST_HAND.search(line):
            cuts.append((no, at))
    return cuts, total


@dataclass
class _Verdict:
    hands: list[ReplayedHand]
    error: str | None


def _merge(name: str, pieces: list[Piece]) -> _Verdict | None:
    """The log's verdict from its pieces in order (None: a cut was not a game's start)."""
    hands: list[ReplayedHand] = []
    carry = 0           # games since the last closing record, before this piece
    prev: Piece | None = None
    for p in pieces:
        if not p.starts_game:
            return None
        faults: list[tuple[int, int, str]] = []
        if prev is not None and prev.open_hand:
            faults.append((p.first, _BEFORE, f"{name} line {p.first}: {HEADER_IN_HAND}"))
        elif prev is not None and not prev.match_over:
            faults.append((p.first, _BEFORE, f"{name} line {p.first}: {MATCH_NOT_OVER}"))
        if p.pending is not None:
            no, claimed, before = p.pending
            if claimed != carry + before:
                faults.append((no, _RECORD, f"{name} line {no}: "
                                            f"{close_count_message(claimed, carry + before)}"))
        if p.error is not None:
            faults.append(p.error)
        if faults:
            at, _, message = min(faults)
            hands += [h for h, end in zip(p.hands, p.ends) if end < at]
            return _Verdict(hands, message)
        hands += p.hands
        carry = p.games if p.seen_close else carry + p.games
        prev = p
    last = pieces[-1]
    if last.open_hand:
        return _Verdict(hands, truncated_message(name))
    if not last.closed:
        return _Verdict(hands, unclosed_message(name))
    of = next((p.last_of for p in reversed(pieces) if p.last_of is not None), None)
    games = sum(p.all_games for p in pieces)
    if of is not None and of[1] != games:
        return _Verdict(hands, short_message(name, *of, games))
    return _Verdict(hands, None)


def _pool(workers: int) -> cf.ProcessPoolExecutor:
    """Worker processes, started with Ctrl-C held back so that none takes it (it reaches
    this process once they run). Forked from this process when it runs one thread (the
    checker is loaded already: a worker starts at once), else spawned (a fork copies
    other threads' locks)."""
    forked = (START_METHOD == "fork" if START_METHOD is not None else
              threading.active_count() == 1
              and "fork" in multiprocessing.get_all_start_methods())
    ctx = multiprocessing.get_context("fork" if forked else "spawn")
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()  # its start unblocks SIGINT: before the mask
    main = threading.current_thread() is threading.main_thread()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if main else None
    try:
        return cf.ProcessPoolExecutor(workers, mp_context=ctx)
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def replay_parallel(path: str | Path, *, workers: int | None = None, out=None,
                    text: bool = True, pieces_per_worker: int = 4,
                    run: Callable | None = None,
                    progress: Callable[[int, int], None] | None = None) -> list[ReplayedHand]:
    """``log_reader.replay`` of a log on ``workers`` processes (default: every core).

    The same hands, text, verdict and message at any worker count (``text=False``: no
    readable text, as for ``replay``). ``run``: a map of ``check_piece`` over the pieces
    in order (default: the worker pool; the tests give the builtin ``map`` to cut a log
    without processes). ``progress(done, total)``: called as the workers' pieces come back,
    with the log's lines checked so far and its lines in all (a progress bar's)."""
    path = Path(path)
    workers = default_workers() if workers is None else workers
    if not is_integer(workers) or workers < 1:
        raise FastmachError(f"workers must be a positive integer, got {workers!r}")
    workers = int(workers)
    check_local_workers(workers)
    if workers == 1 and run is None:
        return replay(path, out=out, text=text)
    text = text or out is not None
    try:
        cuts, total = _cuts(path, workers * pieces_per_worker)
    except FastmachError:   # (a line that cannot be read: named where replay meets it)
        return replay(path, out=out, text=text)
    if len(cuts) < 2 and run is None:
        return replay(path, out=out, text=text)
    n = len(cuts)
    firsts = [no for no, _ in cuts]
    offsets = [at for _, at in cuts]
    counts = [b - a for a, b in zip(firsts, firsts[1:] + [total + 1])]
    if run is not None:
        pieces = list(run(check_piece, [path.name] * n, firsts,
                          [piece_lines(path, a, at, k) for a, at, k in zip(firsts, offsets, counts)],
                          [text] * n))
    else:
        pool = _pool(min(workers, n))
        pieces = []
        with pool:
            for piece, k in zip(pool.map(_piece, [str(path)] * n, [path.name] * n, firsts,
                                         offsets, counts, [text] * n), counts):
                pieces.append(piece)
                if progress is not None:
                    progress(sum(counts[:len(pieces)]), sum(counts))
    verdict = _merge(path.name, pieces)
    if verdict is None:
        return replay(path, out=out, text=text)
    if out is not None:
        for h in verdict.hands:
            print(h.text, file=out)
    if verdict.error is not None:
        raise FastmachError(verdict.error)
    return verdict.hands
