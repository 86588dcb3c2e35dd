"""``fastmach solve`` (one position or a batch file) and ``fastmach bench``."""
from __future__ import annotations

import argparse
import json
import sys

from fastmach.errors import FastmachError
from fastmach.solver import solve


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


def add_bench(sub) -> None:
    p = sub.add_parser("bench", help="benchmarks (figures for notes, not tests)")
    p.add_argument("what", nargs="?", default="all",
                   choices=["all", "solver", "games", "strategies", "bots", "sweep", "cardset",
                            "env"],
                   help="which benchmarks: the solver, whole games, the strategies, Python "
                        "bots, a sweep's driver, the card sets' operations (default all); "
                        "env: the learning environments' steps/s (not in all: the rl extra)")
    p.add_argument("--games", type=int, default=None, help="games to play or sample positions from")
    p.add_argument("--no-milp", action="store_true", help="skip the integer-programming comparison")
    p.add_argument("--c-program", metavar="PATH", default=None,
                   help="solver: a built C dynamic program (rummy_dp) to time side by side")
    p.set_defaults(func=bench_command)


def bench_command(args: argparse.Namespace) -> int:
    from fastmach.study.bench import bench_driver, format_bench
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
    if what == "env":
        from fastmach.tools.bench_env import bench_env, format_env
        print(format_env(bench_env()))
    return 0
