"""Studies and what is made of them: ``fastmach sweep``, ``compare``, ``rate``, ``tune``
and ``report``.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Callable

from fastmach.cli.common import (_int_list, _interrupted, _rules_list, _seed_arg, _warn_cells,
                                 as_flags)
from fastmach.game.deal import resolve_seed
from fastmach.outputs import refuse_inputs
from fastmach.strategies import seats_trained_strong
from fastmach.study import Study
from fastmach.study.plan import SweepError
from fastmach.tools.defaults import COMPARE_GAMES as DEFAULT_GAMES
from fastmach.tools.defaults import COMPARE_MAX_GAMES as DEFAULT_MAX_GAMES
from fastmach.tools.defaults import COMPARE_SEED as DEFAULT_SEED
from fastmach.tools.defaults import RATE_BOOTSTRAP, RATE_GAMES, RATE_MAX_LINEUPS, RATE_SEED


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
    from fastmach.study.skill_runs import execute_skill
    from fastmach.study.driver import execute, format_summary

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
    from fastmach.tools.tune import load_space, tune

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
    from fastmach.report import (  # matplotlib and scipy: only for a report
        STEPS,
        build_report,
    )
    with Steps(STEPS, False if args.quiet else None, "report") as steps:
        index = build_report(args.results_dir, args.out, ignore_foreign=args.ignore_foreign,
                             show_games=not args.no_games, progress=steps)
    print(f"report written to {index}")
    return 0
