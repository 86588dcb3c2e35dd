"""The ``fastmach`` command: solve, play, replay, view, strategies, sweep, report, bench, rules.

Every subcommand lives beside the code it drives (``register_cli`` in engine.py,
gamelog.py, strategies.py, sweep.py, report.py); this module wires them and turns bad
input (FastmachError) into a message on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .errors import FastmachError

#: modules that add their own subcommands, imported on demand
_SUBCOMMAND_MODULES = ("engine", "gamelog", "strategies", "sweep", "comparison", "report",
                       "view", "rules_doc")


# ------------------------------------------------------------------------------- solve

def _cli_solve(args: argparse.Namespace) -> int:
    from .solver import solve

    if args.batch:
        return _solve_batch(args)
    if args.hand is None:
        raise FastmachError("give --hand (and --table), or --batch FILE")
    sol = solve(args.table or "", args.hand, args.rules, objective=args.objective)
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
    from .batch import solve_file

    if args.workers < 1:
        raise FastmachError(f"--workers must be at least 1, got {args.workers}")
    rows, failed = solve_file(args.batch, args.out, rules=args.rules,
                              objective=args.objective, workers=args.workers)
    print(f"fastmach solve: {rows} position(s), {rows - failed} solved, {failed} failed"
          + (" (see their 'error' field)" if failed else ""), file=sys.stderr)
    return BATCH_ROWS_FAILED if failed else 0


# ------------------------------------------------------------------------------- bench

def _cli_bench(args: argparse.Namespace) -> int:
    from . import bench

    what = args.what
    if args.games is not None and args.games < 1:
        raise FastmachError(f"--games must be a positive integer, got {args.games}")
    if what in ("solver", "all"):
        print(bench.format_solver(bench.bench_solver(games=args.games or 120, milp=not args.no_milp)))
        print(bench.format_solver_api(bench.bench_solver_api(games=args.games or 120,
                                                             c_program=args.c_program)))
    if what in ("games", "all"):
        print(bench.format_games(bench.bench_games(games=args.games or 2000)))
    if what in ("strategies", "all"):
        print(bench.format_games(bench.bench_strategies(games=args.games or 500)))
        print(bench.format_lookahead(bench.bench_lookahead()))
    if what in ("sweep", "all"):
        from .sweep import bench_driver, format_bench
        print(format_bench(bench_driver(games=args.games or 2000)))
    if what in ("cardset", "all"):
        print(bench.format_cardset())
    return 0


# -------------------------------------------------------------------------------- main

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fastmach", description="Fast, exact simulation of Machiavelli (table-manipulation rummy).")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("solve", help="the most hand cards that can join the table, and the melds")
    p.add_argument("--rules", default="classic", help="preset or canonical rules string (default classic)")
    p.add_argument("--table", default="", help='table cards, e.g. "5C 6C 7C 8C"')
    p.add_argument("--hand", default=None, help='hand cards, e.g. "8D 8H"')
    p.add_argument("--objective", default="cards", choices=["cards", "points"])
    p.add_argument("--json", action="store_true", help='print {"placed": [...], "melds": [[...], ...]}')
    p.add_argument("--batch", metavar="FILE",
                   help="positions from FILE.jsonl ({id, rules, table, hand, objective} per line; "
                        "'-' for stdin), FILE.csv or FILE.parquet (columns hand, table, rules, "
                        "objective); answers in the same format; exit 1 if any row failed")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="where --batch writes its answers (default stdout; parquet needs it)")
    p.add_argument("--workers", type=int, default=1, help="threads for --batch (default 1)")
    p.set_defaults(func=_cli_solve)

    p = sub.add_parser("bench", help="benchmarks (figures for notes, not tests)")
    p.add_argument("what", nargs="?", default="all",
                   choices=["all", "solver", "games", "strategies", "sweep", "cardset"])
    p.add_argument("--games", type=int, default=None, help="games to play or sample positions from")
    p.add_argument("--no-milp", action="store_true", help="skip the integer-programming comparison")
    p.add_argument("--c-program", metavar="PATH", default=None,
                   help="solver: a built rummy_dp (shared/bench) to time side by side")
    p.set_defaults(func=_cli_bench)

    import importlib
    for name in _SUBCOMMAND_MODULES:
        importlib.import_module(f"fastmach.{name}").register_cli(sub)
    return parser


def _version() -> str:
    from . import __version__
    return f"fastmach {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
    except FastmachError as e:
        print(f"fastmach: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fastmach: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
