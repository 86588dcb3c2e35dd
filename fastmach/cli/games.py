"""Games: ``fastmach play``, ``replay``, ``strategies`` and ``view``."""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Any

from fastmach.cli.common import _seed_arg
from fastmach.cli.start import leave_at_once, resume_gc
from fastmach.engine import run_play_columns, summary
from fastmach.engine.parquet import write_parquet
from fastmach.engine.progress import Progress
from fastmach.errors import FastmachError
from fastmach.outputs import atomic_path, expect_suffix, partial_name, probe_file, refuse_inputs
from fastmach.rules import resolve_rules, source_warning
from fastmach.strategies import describe as describe_strategies
from fastmach.strategies import parse_strategy, rotations_of, split_strategies, stand_in_warning
from fastmach.strategies.bots import BotStrategy


def add_play(sub) -> None:
    p = sub.add_parser("play", help="play games and write one row per game (parquet)")
    p.add_argument("--rules", default="classic",
                   help="preset or rules string, e.g. 'classic(jokers=2)' (default classic)")
    p.add_argument("--players", type=int, default=None, help="override the rules' player count")
    p.add_argument("--strategies", default="expert",
                   help="comma-separated strategies or Python bots (package.module:Class), "
                        "cycled over the seats (default expert)")
    p.add_argument("--games", type=int, default=1000,
                   help="games (replicates 0..G-1; default 1000)")
    p.add_argument("--seed", type=_seed_arg, default=0,
                   help="root seed (default 0), or 'secret': drawn from the operating system "
                        "and recorded only in the rows (for bot competitions)")
    p.add_argument("--out", required=True, help="output .parquet file")
    p.add_argument("--hands", default=None,
                   help="also write one row per hand played to this .parquet file")
    p.add_argument("--log", default=None,
                   help="also write every game as JSON lines (.jsonl, or .jsonl.gz compressed)")
    p.add_argument("--rotate", action="store_true",
                   help="rotate the line-up over the seats (same deals for every rotation)")
    p.set_defaults(func=play_command)


def play_command(args: argparse.Namespace) -> int:
    rules = resolve_rules(args.rules)
    if args.players is not None:
        rules = rules.replace(players=args.players)
    if source_warning(rules):
        print(f"warning: {source_warning(rules)}", file=sys.stderr)
    names = split_strategies(args.strategies)
    if stand_in_warning(rules, names):
        print(f"warning: {stand_in_warning(rules, names)}", file=sys.stderr)
    out = Path(args.out)
    for flag, path in (("--out", args.out), ("--hands", args.hands)):
        if path is not None:
            expect_suffix(path, flag, ".parquet")
    # three outputs, three files (by any name: a link, ..)
    refuse_inputs(args.hands, "--hands", [("the --out file", out)])
    refuse_inputs(args.log, "--log", [("the --out file", out), ("the --hands file", args.hands)])
    probe_file(out, "--out")  # before the first game: a bad path costs nothing
    if args.hands is not None:
        probe_file(args.hands, "--hands")
    if args.log is not None:
        probe_file(args.log, "--log")
    if args.rotate:
        n = len(rotations_of(split_strategies(args.strategies), rules.players, True))
        print(f"--rotate: {n} rotation(s) of the line-up x {args.games} deal(s) = "
              f"{n * args.games} games", file=sys.stderr)
    # what is loaded so far (the modules) outlives the games and the writing: the
    # collector's full passes need not walk it at every pass (about 2% of the command's
    # CPU); unfrozen afterwards for a caller of cli.main in its own process
    gc.freeze()
    resume_gc()   # (off while the modules loaded, for `fastmach play`: fastmach.cli.start)
    try:
        return _play_and_write(args, rules, out)
    finally:
        gc.unfreeze()


def _play_and_write(args: argparse.Namespace, rules, out: Path) -> int:
    """``fastmach play``'s games, its files and its summary line (the arguments checked)."""
    t0 = time.perf_counter()
    df: Any
    try:
        df = run_play_columns(rules, args.strategies, args.games, args.seed,
                              rotate=args.rotate, log=args.log, hands=args.hands is not None)
    except KeyboardInterrupt:
        if args.log is not None and partial_name(args.log).exists():
            print(f"fastmach play: interrupted; no --out written; the finished games' log is "
                  f"in {partial_name(args.log)} (incomplete)", file=sys.stderr)
            return 130   # (said once: main would add its own "interrupted")
        raise
    dt = time.perf_counter() - t0
    written = [str(out)]
    if args.hands is not None:
        df, hf = df
        with atomic_path(args.hands) as tmp:
            write_parquet(hf, tmp)
        written.append(args.hands)
    with atomic_path(out) as tmp:
        write_parquet(df, tmp)
    if args.log:
        written.append(args.log)
    print(summary(df, rules, dt) + "; written to " + " and ".join(written))
    # every file is closed: the process may end without the interpreter's teardown,
    # unless a Python bot sat at the table (its module may hold files or processes)
    leave_at_once(not any(isinstance(parse_strategy(n), BotStrategy)
                          for n in split_strategies(args.strategies)))
    return 0


def add_replay(sub) -> None:
    p = sub.add_parser("replay", help="re-check and print the games of a JSONL log")
    p.add_argument("file", help="a log written by fastmach play --log")
    p.add_argument("-q", "--quiet", action="store_true", help="only the summary line")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes that check the log's games (default: every core; the "
                        "same verdict and messages at any count)")
    p.set_defaults(func=replay_command)


def replay_command(args: argparse.Namespace) -> int:
    from fastmach.game.replay_workers import replay_parallel

    if args.workers is not None and args.workers < 1:
        raise FastmachError(f"--workers must be at least 1, got {args.workers}")
    start = time.monotonic()
    bar: Progress | None = None
    # the log's records checked, on stderr where the games' text does not go to the terminal
    shown = args.quiet or not sys.stdout.isatty()

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:   # (once the workers run: the bar's thread is no reason to spawn them)
            bar = Progress(total, None if shown else False, unit="record")
            bar.t0 = start   # (its time and rate from the run's start)
        bar.update(done - bar.done)

    try:
        hands = replay_parallel(args.file, workers=args.workers, text=not args.quiet,
                                out=None if args.quiet else sys.stdout, progress=progress)
    finally:
        if bar is not None:
            bar.__exit__(None)
    games = sum(1 for h in hands if h.hand == 0)
    print(f"{args.file}: {len(hands)} hand(s) of {games} game(s) re-checked, all turns legal")
    return 0


def add_strategies(sub) -> None:
    p = sub.add_parser("strategies", help="list the strategies and their parameters")
    p.set_defaults(func=strategies_command)


def strategies_command(args: argparse.Namespace) -> int:
    for line in describe_strategies():
        print(line)
    return 0


def add_view(sub) -> None:
    p = sub.add_parser(
        "view", help="HTML pages of logged games (turn by turn) or of a solved position")
    p.add_argument("log", nargs="?", default=None, help="a log written by fastmach play --log (.jsonl or .jsonl.gz)")
    p.add_argument("--game", type=int, default=None, help="only this game (0-based, in log order)")
    p.add_argument("--out", default=None, help="output .html (default: beside the log; position.html)")
    p.add_argument("--table", default=None, help='table melds, e.g. "5C 6C 7C | 8D 8H 8S" (or flat cards)')
    p.add_argument("--hand", default=None, help='hand cards, e.g. "8C 9C"')
    p.add_argument("--rules", default="classic",
                   help="preset or rules string (positions; default classic)")
    p.add_argument("--objective", default="cards", choices=["cards", "points"],
                   help="what the position's play maximises: the cards placed (default "
                        "cards), or their points under the rules' hand_points")
    p.set_defaults(func=view_command)


def view_command(args: argparse.Namespace) -> int:
    from fastmach.view import (  # jinja2: only here
        position_page,
        write_page,
        write_views,
    )

    if args.log is not None:
        if args.table is not None or args.hand is not None:
            raise FastmachError("give a log, or --table/--hand for a position, not both")
        paths = write_views(args.log, args.out, args.game)
        extra = f" and {len(paths) - 1} game page(s)" if args.game is None else ""
        print(f"wrote {paths[0]}{extra}")
        return 0
    if args.hand is None:
        raise FastmachError("give a log (LOG.jsonl[.gz]) or a position (--hand, --table, --rules)")
    if args.game is not None:
        raise FastmachError("--game needs a log")
    path = expect_suffix(args.out or "position.html", "--out", ".html")
    write_page(path, position_page(args.table or "", args.hand, args.rules, args.objective))
    print(f"wrote {path}")
    return 0
