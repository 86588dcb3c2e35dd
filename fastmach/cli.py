"""The ``fastmach`` command: every subcommand's parser and command function, one section
each in the order of ``fastmach --help`` (solve, bench, play, replay, strategies, sweep,
compare, rate, tune, train, exploit, report, view, rules). The library modules keep plain functions with typed
arguments; this module reads the arguments, calls them, and turns bad input
(FastmachError) into a message on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from fastmach.core import __version__
from fastmach.tools.defaults import (COMPARE_GAMES as DEFAULT_GAMES, COMPARE_MAX_GAMES as
                                     DEFAULT_MAX_GAMES, COMPARE_SEED as DEFAULT_SEED,
                                     RATE_BOOTSTRAP, RATE_GAMES, RATE_MAX_LINEUPS, RATE_SEED)
from fastmach.engine import run_play_columns, summary
from fastmach.engine.parquet import write_parquet
from fastmach.errors import BotError, FastmachError
from fastmach.game.deal import SECRET, resolve_seed
from fastmach.outputs import atomic_path, partial_name, probe_file, refuse_inputs
from fastmach.rules import PRESETS, resolve_rules, source_warning
from fastmach.rules.doc import describe as describe_rules, markdown as rules_markdown
from fastmach.solver import solve
from fastmach.strategies import (describe as describe_strategies, rotations_of,
                                 seats_trained_strong, split_strategies, stand_in_warning)
from fastmach.study import Study, split_lineup
from fastmach.study.plan import SweepError


# ------------------------------------------------------------------------------- solve

def add_solve(sub) -> None:
    p = sub.add_parser("solve", help="the most hand cards that can join the table, and the melds")
    p.add_argument("--rules", default="classic", help="preset or canonical rules string (default classic)")
    p.add_argument("--table", default="",
                   help='table cards, e.g. "5C 6C 7C 8C", or melds "5C 6C 7C 8C | 8D 8H 8S" '
                        '(default: an empty table)')
    p.add_argument("--hand", default=None, help='hand cards, e.g. "8D 8H"')
    p.add_argument("--objective", default="cards", choices=["cards", "points"],
                   help="what the play maximises: the cards placed (default cards), or their "
                        "points under the rules' hand_points, ties to more cards")
    p.add_argument("--json", action="store_true", help='print {"placed": [...], "melds": [[...], ...]}')
    p.add_argument("--batch", metavar="FILE",
                   help="positions from FILE.jsonl ({id, rules, table, hand, objective} per line; "
                        "'-' for stdin), FILE.csv or FILE.parquet (columns hand, table, rules, "
                        "objective); answers in the same format; exit 1 if any row failed")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="where --batch writes its answers (default stdout; parquet needs it)")
    p.add_argument("--workers", type=int, default=1, help="threads for --batch (default 1)")
    p.set_defaults(func=solve_command)


def solve_command(args: argparse.Namespace) -> int:
    from fastmach.view import split_melds  # jinja2: only where a command needs it

    if args.batch:
        if args.hand is not None or args.table:
            raise FastmachError("--batch reads every position from its file: give --hand and "
                                "--table without it, or neither with it")
        return _solve_batch(args)
    if args.hand is None:
        raise FastmachError("give --hand (and --table), or --batch FILE")
    if args.out is not None or args.workers != 1:
        raise FastmachError(f"{'--out' if args.out is not None else '--workers'} is for "
                            f"--batch only: one position's answer is printed")
    table = split_melds(args.table or "", args.rules)
    sol = solve(table if table is not None else args.table or "", args.hand, args.rules,
                objective=args.objective)
    if args.json:
        print(json.dumps(sol.to_json()))
    else:
        print(sol)
    return 0


#: exit status of `fastmach solve --batch` when some rows failed (their answers say why)
BATCH_ROWS_FAILED = 1


def _solve_batch(args: argparse.Namespace) -> int:
    """Every position of a JSONL, CSV or parquet file, answers in the same format.

    Exit 0 when every row is solved, 1 when some failed (each has its 'error'; the rest
    are answered), 2 when the file itself cannot be used."""
    from fastmach.solver.batch import solve_file

    if args.workers < 1:
        raise FastmachError(f"--workers must be at least 1, got {args.workers}")
    rows, failed = solve_file(args.batch, args.out, rules=args.rules,
                              objective=args.objective, workers=args.workers)
    print(f"fastmach solve: {rows} position(s), {rows - failed} solved, {failed} failed"
          + (" (see their 'error' field)" if failed else ""), file=sys.stderr)
    return BATCH_ROWS_FAILED if failed else 0


# ------------------------------------------------------------------------------- bench

def add_bench(sub) -> None:
    p = sub.add_parser("bench", help="benchmarks (figures for notes, not tests)")
    p.add_argument("what", nargs="?", default="all",
                   choices=["all", "solver", "games", "strategies", "bots", "sweep", "cardset"],
                   help="which benchmarks: the solver, whole games, the strategies, Python "
                        "bots, a sweep's driver, the card sets' operations (default all)")
    p.add_argument("--games", type=int, default=None, help="games to play or sample positions from")
    p.add_argument("--no-milp", action="store_true", help="skip the integer-programming comparison")
    p.add_argument("--c-program", metavar="PATH", default=None,
                   help="solver: a built C dynamic program (rummy_dp) to time side by side")
    p.set_defaults(func=bench_command)


def bench_command(args: argparse.Namespace) -> int:
    from fastmach.study.sweep import bench_driver, format_bench
    from fastmach.tools import bench
    from fastmach.tools.bench_bots import bench_bots, format_bots
    from fastmach.tools.bench_paths import bench_paths, format_paths

    what = args.what
    if args.games is not None and args.games < 1:
        raise FastmachError(f"--games must be a positive integer, got {args.games}")
    if args.c_program is not None and what in ("solver", "all"):
        import os
        import shutil
        found = shutil.which(args.c_program)
        if found is None or not os.path.isfile(found):
            raise FastmachError(f"--c-program {args.c_program!r}: no such executable (build "
                                f"it first: gcc -O3 -march=native -std=c11 -o /tmp/rummy_dp "
                                f"rummy_dp.c)")
    if what in ("solver", "all"):   # (the C program's column only with --c-program)
        print(bench.format_solver(bench.bench_solver(games=args.games or 120, milp=not args.no_milp)))
        print(bench.format_solver_api(bench.bench_solver_api(games=args.games or 120,
                                                             c_program=args.c_program)))
        print(format_paths(bench_paths(games=args.games or 120)))
    if what in ("games", "all"):
        print(bench.format_games(bench.bench_games(games=args.games or 2000)))
    if what in ("strategies", "all"):
        print(bench.format_games(bench.bench_strategies(games=args.games or 500)))
        print(bench.format_lookahead(bench.bench_lookahead()))
        print(bench.format_search(bench.bench_search()))
    if what in ("bots", "all"):
        print(format_bots(bench_bots(games=args.games or 200)))
    if what in ("sweep", "all"):
        print(format_bench(bench_driver(games=args.games or 2000)))
    if what in ("cardset", "all"):
        print(bench.format_cardset())
    return 0


def _interrupted(command: str, out: str | None) -> int:
    """Ctrl-C in a command that keeps its study stores in ``--out``: say what is kept, 130."""
    where = (f"finished chunks are saved in {out}; run the same command again to play only "
             "the missing ones" if out else "nothing was kept (use --out DIR to keep and resume)")
    print(f"\nfastmach {command}: interrupted; {where}", file=sys.stderr)
    return 130


# -------------------------------------------------------------------------------- play

def _seed_arg(text: str) -> int | str:
    """``--seed``: an integer, or ``secret`` (resolved where the games are played)."""
    if text.strip().lower() == SECRET:
        return SECRET
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer or 'secret', got {text!r}") from None


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


def _warn_cells(cells) -> None:
    """The warnings of a run's cells (rules x players x line-up), each said once on stderr:
    rules played at a player count their source text does not describe, and ``strong``
    where no trained player is shipped for the rules (the hand-tuned player stands in)."""
    cells = list(cells)
    for w in dict.fromkeys(filter(None, (source_warning(c.rules) for c in cells))):
        print(f"warning: {w}", file=sys.stderr)
    stand_in = list(dict.fromkeys(f"{c.rules} at {c.players} players" for c in cells
                                  if stand_in_warning(c.rules, c.lineup)))
    if len(stand_in) == 1:
        c = next(c for c in cells if stand_in_warning(c.rules, c.lineup))
        print(f"warning: {stand_in_warning(c.rules, c.lineup)}", file=sys.stderr)
    elif stand_in:
        more = f" and {len(stand_in) - 4} more" if len(stand_in) > 4 else ""
        print(f"warning: strong: no trained player is shipped for {len(stand_in)} of the "
              f"run's rules x player counts ({'; '.join(stand_in[:4])}{more}), so the "
              f"hand-tuned strong stands in there (tuned for the presets; fastmach train "
              f"RULES --players N trains one)", file=sys.stderr)


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
        if path is not None and Path(path).suffix != ".parquet":
            raise FastmachError(f"{flag} {path!r}: expected a .parquet file")
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
    t0 = time.perf_counter()
    df: Any
    # what is loaded so far (the modules) outlives the games: the collector's full passes
    # need not walk it at every pass (about 2% of the command's CPU); unfrozen afterwards
    # for a caller of cli.main in its own process
    gc.freeze()
    try:
        df = run_play_columns(rules, args.strategies, args.games, args.seed,
                              rotate=args.rotate, log=args.log, hands=args.hands is not None)
    except KeyboardInterrupt:
        if args.log is not None and partial_name(args.log).exists():
            print(f"fastmach play: interrupted; no --out written; the finished games' log is "
                  f"in {partial_name(args.log)} (incomplete)", file=sys.stderr)
            return 130   # (said once: main would add its own "interrupted")
        raise
    finally:
        gc.unfreeze()
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
    return 0


# ------------------------------------------------------------------------------ replay

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
    hands = replay_parallel(args.file, workers=args.workers, text=not args.quiet,
                            out=None if args.quiet else sys.stdout)
    games = sum(1 for h in hands if h.hand == 0)
    print(f"{args.file}: {len(hands)} hand(s) of {games} game(s) re-checked, all turns legal")
    return 0


# -------------------------------------------------------------------------- strategies

def add_strategies(sub) -> None:
    p = sub.add_parser("strategies", help="list the strategies and their parameters")
    p.set_defaults(func=strategies_command)


def strategies_command(args: argparse.Namespace) -> int:
    for line in describe_strategies():
        print(line)
    return 0


# ------------------------------------------------------------------------------- sweep

def add_sweep(sub) -> None:
    p = sub.add_parser(
        "sweep", help="run a study (grid of rules x players x line-ups), resumable",
        description="Run a study defined in TOML. Results go to DIR as parquet chunks "
                    "(fastmach.read_results(DIR) reads them, checked); re-running the same command "
                    "after an interruption plays only the missing chunks.")
    p.add_argument("study", metavar="STUDY.toml", help="study definition")
    p.add_argument("--out", required=True, metavar="DIR", help="result directory")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="deals per cell (overrides [study] games)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes (default: all cores; 0 = in this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="Dask scheduler address (tcp://host:8786) or 'local' for a "
                        "LocalCluster of --workers processes")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="retries of a failing chunk before it is reported (default 2)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=sweep_command)


def sweep_command(args: argparse.Namespace) -> int:
    """``fastmach sweep``: FastmachError propagates (exit 2); failures exit 1, Ctrl-C 130."""
    from fastmach.study.skill import execute_skill
    from fastmach.study.sweep import execute, format_summary

    refuse_inputs(args.out, "--out", [("the study file", args.study)])
    study = Study.from_toml(Path(args.study), games=args.games)
    _warn_cells(study.cells)
    run: Callable[..., dict]
    if study.precision:
        from fastmach.study.precision import execute_to_precision as run
    else:
        run = execute
    try:
        kw = dict(workers=args.workers, scheduler=args.scheduler, retries=args.retries,
                  progress=not args.quiet, command=shlex.join(sys.argv))
        summary_ = run(study, args.out, **kw)
        skill_runs = execute_skill(study, args.out, **kw)  # the [skill] table's studies
    except SweepError as e:
        print(f"fastmach sweep: {as_flags(str(e))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nfastmach sweep: interrupted; finished chunks are saved in {args.out}; "
              f"run the same command again to play only the missing ones", file=sys.stderr)
        return 130
    print(format_summary(summary_))
    for s in skill_runs:
        print(f"skill runs: {format_summary(s)}")
    return 0


# ----------------------------------------------------------------------------- compare

def add_compare(sub) -> None:
    p = sub.add_parser(
        "compare", help="what does a rule change? rule sets played on the same deals",
        description="Play every rule set on the same deals (seats rotated) and compare "
                    "each with the first: per metric the value under A and B, the paired "
                    "difference with its interval clustered by deal, and a word where the "
                    "interval adjusted for the number of comparisons excludes 0.")
    p.add_argument("rules", nargs="+", metavar="RULES",
                   help="two or more presets or rules strings, e.g. classic "
                        "'classic(jokers=2)' (the first is the baseline A)")
    p.add_argument("--players", default=None, metavar="N,N",
                   help="player counts, e.g. 3,4 (default 2,3,4,5 where every rule set "
                        "can deal them)")
    p.add_argument("--lineup", action="append", default=None, metavar="S,S",
                   help="a line-up cycled over the seats, repeatable (default: --lineup "
                        "expert --lineup expert,beginner; --lineup strong: the rules "
                        "under strong play)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--games", type=int, default=None, metavar="N",
                      help=f"deals per cell (default {DEFAULT_GAMES})")
    size.add_argument("--precision", action="append", default=None, metavar="X",
                      help="add deals, a chunk at a time, until every cell's turns per hand "
                           "is known to +-X turns (95%%); win_share=Y also asks it of every "
                           "seat's win share per hand (repeatable)")
    p.add_argument("--max-games", type=int, default=DEFAULT_MAX_GAMES, metavar="N",
                   help=f"cap of deals per cell with --precision (default "
                        f"{DEFAULT_MAX_GAMES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"root seed (default {DEFAULT_SEED})")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes (default: all cores; 0 = in this process)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="keep DIR/results (the study store; rerun to resume) and "
                        "DIR/report")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    p.set_defaults(func=compare_command)


def _int_list(text: str, option: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise FastmachError(f"{option} {text!r}: expected integers like 3,4") from None


def _compare_words(args: argparse.Namespace) -> str:
    """The command as the user would type it (for the store's manifest and the report)."""
    words = ["fastmach", "compare", *args.rules]
    if args.players is not None:
        words += ["--players", args.players]
    for lu in args.lineup or ():
        words += ["--lineup", lu]
    if args.games is not None:
        words += ["--games", str(args.games)]
    for x in args.precision or ():
        words += ["--precision", x]
    if args.precision and args.max_games != DEFAULT_MAX_GAMES:
        words += ["--max-games", str(args.max_games)]
    if args.seed != DEFAULT_SEED:
        words += ["--seed", str(args.seed)]
    if args.out is not None:
        words += ["--out", args.out]
    return shlex.join(words)


def compare_command(args: argparse.Namespace) -> int:
    """``fastmach compare``: FastmachError propagates (exit 2); failed chunks exit 1."""
    from fastmach.tools.comparison import compare, plan_study  # pandas: only here

    players = None if args.players is None else _int_list(args.players, "--players")
    planned = plan_study(args.rules, players, args.lineup)
    _warn_cells(planned.cells)
    try:
        c = compare(args.rules, players, args.lineup, games=args.games,
                    precision=args.precision, max_games=args.max_games, seed=args.seed,
                    workers=args.workers, out=args.out, progress=not args.quiet,
                    command=_compare_words(args))
    except SweepError as e:
        print(f"fastmach compare: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return _interrupted("compare", args.out)
    print(c)
    for n in c.notes:
        print(f"note: {n}")
    return 0


# -------------------------------------------------------------------------------- tune

def add_tune(sub) -> None:
    p = sub.add_parser(
        "tune", help="find the rules: search the rule space for a designer's targets",
        description="Search the rule sets of SPACE.toml (a base preset, ranges or choices "
                    "of rules parameters, player counts, line-ups) for its targets on "
                    "scorecard metrics: Optuna's TPE proposes, a race on common deals gives "
                    "good candidates more deals, the finalists are re-played on fresh deals. "
                    "Writes DIR/candidates.csv, DIR/answer.txt and figures; the same command "
                    "resumes a killed tune.")
    p.add_argument("space", metavar="SPACE.toml", help="the search space and targets")
    p.add_argument("--out", required=True, metavar="DIR", help="the tune's directory")
    p.add_argument("--max-games", type=int, required=True, metavar="N",
                   help="budget in games, the fresh-deal check included")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="worker processes for an evaluation of several chunks (default 0: "
                        "this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="play the games on a Dask cluster: 'local' or tcp://host:8786")
    p.add_argument("-q", "--quiet", action="store_true", help="no line per trial")
    p.set_defaults(func=tune_command)


def tune_command(args: argparse.Namespace) -> int:
    """``fastmach tune``: a bad space or budget exits 2 before any game."""
    from .tools.tune import load_space, tune

    refuse_inputs(args.out, "--out", [("the space file", args.space)])
    space = load_space(args.space)
    if any(seats_trained_strong(lu) for lu in space.lineup):
        print("warning: strong in a line-up of tune is the hand-tuned player under every rule "
              "set it proposes that has no shipped trained player (train one for the answer "
              "with fastmach train RULES)", file=sys.stderr)
    words = ["fastmach", "tune", args.space, "--out", args.out, "--max-games",
             str(args.max_games)]
    t0 = time.perf_counter()
    try:
        answer = tune(space, args.out, max_games=args.max_games, workers=args.workers,
                      scheduler=args.scheduler, progress=not args.quiet,
                      command=shlex.join(words))
    except SweepError as e:
        print(f"fastmach tune: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nfastmach tune: interrupted; the trials and games are kept in {args.out}: "
              f"run the same command again to resume", file=sys.stderr)
        return 130
    print(answer)
    print(f"({time.perf_counter() - t0:.0f} s; written to {args.out}: "
          + ", ".join(p.name for p in answer.files.values()) + ")")
    return 0
# -------------------------------------------------------------------------------- rate

def add_rate(sub) -> None:
    p = sub.add_parser(
        "rate", help="how strong is each player? a round-robin on common deals, rated",
        description="Play every line-up of N strategies drawn from --strategies (with "
                    "repetition; a balanced design beyond --max-lineups) in every seat "
                    "rotation on the same deals, then print Plackett-Luce ratings from "
                    "the hands' winners (ties shared; natural-log strength, expert = 0) "
                    "with 95% intervals from a bootstrap of the deals, the head-to-head "
                    "matrix and each strategy's win share against a table of experts.")
    p.add_argument("--strategies", required=True, metavar="S,S,...",
                   help="two or more strategies, e.g. beginner,expert(error=0.1),patient "
                        "or a Python bot package.module:Class")
    p.add_argument("--rules", action="append", default=None, metavar="RULES",
                   help="a preset or rules string, repeatable or comma-separated "
                        "(default classic)")
    p.add_argument("--players", default="4", metavar="N,N",
                   help="table sizes, e.g. 3,4 (default 4)")
    p.add_argument("--games", type=int, default=RATE_GAMES, metavar="N",
                   help=f"deals per line-up (default {RATE_GAMES}); every deal "
                        f"is played by every line-up in every rotation")
    p.add_argument("--seed", type=_seed_arg, default=RATE_SEED,
                   help=f"root seed (default {RATE_SEED}), or 'secret': drawn from the "
                        f"operating system and recorded only in the results (for bot "
                        f"competitions; a secret run cannot be resumed)")
    p.add_argument("--rank", choices=("winner", "points"), default="winner",
                   help="what a hand ranks: its winner(s) (default) or everyone, the "
                        "others by hand points")
    p.add_argument("--bootstrap", type=int, default=RATE_BOOTSTRAP, metavar="B",
                   help=f"deal resamples of the intervals (default "
                        f"{RATE_BOOTSTRAP}; 0 = none)")
    p.add_argument("--max-lineups", type=int, default=RATE_MAX_LINEUPS,
                   metavar="N", help="beyond this many line-ups per table size, a "
                                     f"balanced design of N (default "
                                     f"{RATE_MAX_LINEUPS})")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes (default: all cores; 0 = in this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="Dask scheduler address (tcp://host:8786) or 'local'")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="keep DIR/results (study stores; rerun to resume) and write "
                        "ratings.csv/.parquet, head_to_head.csv, ratings.svg/.png")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    p.set_defaults(func=rate_command)


def _rules_list(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or ["classic"]:
        try:
            out += split_lineup(v)
        except FastmachError:
            raise FastmachError(f"--rules {v!r}: empty rules string in the list") from None
    return out


def rate_command(args: argparse.Namespace) -> int:
    """``fastmach rate``: FastmachError propagates (exit 2); failed chunks exit 1."""
    from fastmach.tools import rate as rating  # pandas: only here

    args.seed = resolve_seed(args.seed)  # once: the plan and the games share it
    rules = _rules_list(args.rules)
    players = _int_list(args.players, "--players")
    plan = rating.plan_rate(args.strategies, rules, players, games=args.games,
                            seed=args.seed, max_lineups=args.max_lineups)
    _warn_cells([c for s in plan.studies for c in s.cells])
    try:
        r = rating.rate(plan.strategies, rules, players, games=args.games, seed=args.seed,
                        workers=args.workers, scheduler=args.scheduler, out=args.out,
                        bootstrap=args.bootstrap, rank=args.rank,
                        max_lineups=args.max_lineups, progress=not args.quiet,
                        command=shlex.join(sys.argv))
    except SweepError as e:
        print(f"fastmach rate: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return _interrupted("rate", args.out)
    print(r, end="")
    if args.out:
        print(f"tables and figure written to {args.out}")
    return 0


# ------------------------------------------------------------------------------- train

def add_train(sub) -> None:
    p = sub.add_parser(
        "train", help="find good play for a rule set by self-play, and how exploitable it is",
        description="Policy-space response oracles over the strong player's parameters: "
                    "race candidates against the current mixture on common deals, add the "
                    "best response where it gains more than --target, solve the symmetric "
                    "meta-game, repeat; the last best response (never added) is the "
                    "trained player's exploitability. Writes DIR/<rules>.json (the state: "
                    "the same command resumes) and DIR/policy-<rules>.json (copy it to "
                    "fastmach/strategies/policies/ to make it the `strong` of those rules).")
    p.add_argument("rules", metavar="RULES", help="a preset or rules string")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="table size (default: the rules')")
    p.add_argument("--out", default="training", metavar="DIR",
                   help="the training's directory (default training)")
    p.add_argument("--seed", type=int, default=None, help="root seed (default 20261204)")
    p.add_argument("--iterations", type=int, default=None, metavar="N",
                   help="at most N members added (default 10)")
    p.add_argument("--target", type=float, default=None, metavar="G",
                   help="stop when the best response gains at most G (win share; "
                        "default 0.02)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="threads playing the games (default: all cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    p.set_defaults(func=train_command)


def train_command(args: argparse.Namespace) -> int:
    """``fastmach train``: bad arguments exit 2 before any game."""
    from fastmach.training.command import run_train, summary

    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        training, policy = run_train(
            args.rules, players=args.players, out=args.out, workers=args.workers,
            seed=args.seed, iterations=args.iterations, target=args.target,
            progress=False if args.quiet else None, log=log)
    except KeyboardInterrupt:
        print(f"\nfastmach train: interrupted; the finished iterations are kept in "
              f"{args.out}: run the same command again to resume", file=sys.stderr)
        return 130
    print(summary(training))
    print(f"policy written to {policy}")
    return 0


def add_exploit(sub) -> None:
    p = sub.add_parser(
        "exploit", help="how exploitable is a strategy? the best response found against it",
        description="Race the strong player's parameter points against N-1 copies of "
                    "STRATEGY on common deals, then measure the best one on fresh deals: "
                    "its win share minus STRATEGY's own at a table of itself, paired by "
                    "deal, with a 95% interval.")
    p.add_argument("strategy", metavar="STRATEGY",
                   help="a strategy (strong, expert, ...) or a bot package.module:Class")
    p.add_argument("--rules", default="classic", metavar="RULES",
                   help="a preset or rules string (default classic)")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="table size (default: the rules')")
    p.add_argument("--deals", type=int, default=1000, metavar="N",
                   help="fresh deals of the final measure (default 1000)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="threads playing the games (default: all cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    p.set_defaults(func=exploit_command)


def exploit_command(args: argparse.Namespace) -> int:
    """``fastmach exploit``: bad arguments exit 2 before any game."""
    from fastmach.training.command import format_gain, run_exploit

    try:
        g = run_exploit(args.strategy, args.rules, players=args.players,
                        workers=args.workers, deals=args.deals,
                        progress=False if args.quiet else None)
    except KeyboardInterrupt:
        return _interrupted("exploit", None)
    players = resolve_rules(args.rules).players if args.players is None else args.players
    print(f"exploitability of {args.strategy} under {args.rules} at {players} players")
    print(format_gain(g, players))
    return 0


# ------------------------------------------------------------------------------ report

def add_report(sub) -> None:
    p = sub.add_parser(
        "report", help="build the balance report (HTML + Markdown) from stored results",
        description="Build index.html, summary.md and figures/ from a study's stored "
                    "results (parquet + _study.json), and games/ with viewer pages of "
                    "a few games that show the findings (replayed from their seeds). The "
                    "study is not run again.")
    p.add_argument("results_dir", metavar="RESULTS_DIR",
                   help="directory written by `fastmach sweep --out`")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="output directory (default: reports/<study name>)")
    p.add_argument("--ignore-foreign", action="store_true",
                   help="leave out parquet files the manifest does not record (another "
                        "study's chunks) instead of refusing them")
    p.add_argument("--no-games", action="store_true",
                   help="write no viewer pages (games/) of the games that show the findings")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar (by default one shows its steps on a terminal)")
    p.set_defaults(func=report_command)


def report_command(args: argparse.Namespace) -> int:
    from fastmach.engine.progress import Steps
    from fastmach.report import STEPS, build_report  # matplotlib and scipy: only for a report
    with Steps(STEPS, False if args.quiet else None, "report") as steps:
        index = build_report(args.results_dir, args.out, ignore_foreign=args.ignore_foreign,
                             show_games=not args.no_games, progress=steps)
    print(f"report written to {index}")
    return 0


# -------------------------------------------------------------------------------- view

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
    from fastmach.view import position_page, write_page, write_views  # jinja2: only here

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
    path = Path(args.out or "position.html")
    write_page(path, position_page(args.table or "", args.hand, args.rules, args.objective))
    print(f"wrote {path}")
    return 0


# ------------------------------------------------------------------------------- rules

def add_rules(sub) -> None:
    p = sub.add_parser(
        "rules", help="print the parameters of a preset or rules string, with their meaning "
                      "and source clauses")
    p.add_argument("preset", nargs="?", default=None, metavar="RULES",
                   help=f"a preset ({', '.join(PRESETS)}) or rules string, e.g. "
                        f"'classic(jokers=2)'")
    p.add_argument("--markdown", action="store_true",
                   help="print the parameter reference of docs/rules.md instead")
    p.set_defaults(func=rules_command)


def rules_command(args: argparse.Namespace) -> int:
    if args.markdown:
        if args.preset is not None:
            raise FastmachError("--markdown prints the reference of every preset: give it "
                                "without a preset, or the preset without it")
        print(rules_markdown())
        return 0
    if args.preset is None:
        raise FastmachError(f"give a preset ({', '.join(PRESETS)}) or rules string (or "
                            f"--markdown)")
    print(describe_rules(args.preset), end="")
    return 0


# -------------------------------------------------------------------------------- main

#: the subcommands in the order of ``fastmach --help``
SUBCOMMANDS = (add_solve, add_bench, add_play, add_replay, add_strategies, add_sweep,
               add_compare, add_rate, add_tune, add_train, add_exploit, add_report, add_view,
               add_rules)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fastmach", description="Fast, exact simulation of Machiavelli (table-manipulation rummy).")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def _version() -> str:
    return f"fastmach {__version__}"


#: the library's argument names that are also a command's flags (``max_games``: --max-games)
FLAG_ARGUMENTS = ("out", "workers", "retries", "scheduler", "players", "strategies", "games",
                  "max_games", "max_lineups", "rules", "lineup", "precision", "seed", "rank",
                  "bootstrap", "game", "log", "hands")
_ARGUMENT = "|".join(FLAG_ARGUMENTS)


def as_flags(message: str) -> str:
    """A library message naming Python arguments (``out='x'``, ``workers=-1``, a leading
    ``players:``) as the command's flags (``--out 'x'``, ``--workers -1``, ``--players:``).

    An argument inside a rules string (``classic(players=3)``) is left as it is."""
    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")
    message = re.sub(rf"(?<![(,\w])\b({_ARGUMENT})=(?=\S)",
                     lambda m: flag(m.group(1)) + " ", message)
    return re.sub(rf"^({_ARGUMENT}):", lambda m: flag(m.group(1)) + ":", message)


class RunFailed(RuntimeError):
    """A run that could not finish (exit status 1), with the message for stderr."""


def os_message(e: OSError) -> str:
    """A system error (a full disk, a lost mount) as one line: what, where, and that the
    outputs are whole (written atomically: an old file or none, never half of one)."""
    where = f" ({e.filename})" if e.filename else ""
    hint = ("free some space and run the same command again" if e.errno in (
        errno.ENOSPC, errno.EDQUOT) else "run the same command again when it is fixed")
    return (f"{e.strerror or type(e).__name__}{where}: the run stopped; no output was left "
            f"half-written; {hint}")


def console() -> None:
    """The ``fastmach`` command (and ``python -m fastmach``): :func:`main`, then exit.

    An interrupted run (130) has stopped its workers and said so; it leaves at once, so
    that the exit hooks of concurrent.futures and multiprocessing, racing the pool just
    stopped, add no traceback to the message."""
    rc = main()
    if rc == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    sys.exit(rc)


@contextlib.contextmanager
def _warnings_as_messages():
    """A library warning during a command is one line on stderr, ``fastmach: warning:``
    and its text (not Python's form, with the file, line and source that raised it)."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"fastmach: warning: {as_flags(str(message))}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    import signal

    import fastmach
    if signal.getsignal(signal.SIGINT) is fastmach._interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C: KeyboardInterrupt
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        try:
            with _warnings_as_messages():
                return int(args.func(args) or 0)
        except SystemExit as e:  # a bot (or other user code) called sys.exit in the run
            raise RunFailed(f"the run called sys.exit({e.code!r}) (a bot or engine must "
                            f"return or raise, not exit); nothing was written") from None
    except FastmachError as e:
        print(f"fastmach: error: {as_flags(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fastmach: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (RunFailed, SweepError, BotError) as e:  # a bot raised or overran its time limit
        print(f"fastmach: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a full disk, a lost mount: every output is written atomically
        print(f"fastmach: error: {os_message(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
