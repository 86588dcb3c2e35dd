"""The ``fastmach`` command: solve, play, replay, strategies, sweep, report, bench, rules.

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
                       "rules_doc")


# ------------------------------------------------------------------------------- solve

def _solve_one(obj: dict) -> dict:
    from .solver import solve

    if not isinstance(obj, dict):
        raise FastmachError("a position must be a JSON object")
    unknown = set(obj) - {"id", "rules", "table", "hand", "objective"}
    if unknown:
        raise FastmachError(f"unknown key(s) {sorted(unknown)}; expected id, rules, table, hand, objective")
    if "hand" not in obj:
        raise FastmachError("missing key 'hand'")
    sol = solve(obj.get("table", []), obj["hand"], obj.get("rules", "classic"),
                objective=obj.get("objective", "cards"))
    return sol.to_json()


def _cli_solve(args: argparse.Namespace) -> int:
    from .solver import solve

    if args.batch:
        return _solve_batch(args.batch)
    if args.hand is None:
        raise FastmachError("give --hand (and --table), or --batch FILE.jsonl")
    sol = solve(args.table or "", args.hand, args.rules, objective=args.objective)
    if args.json:
        print(json.dumps(sol.to_json()))
    else:
        print(sol)
    return 0


def _solve_batch(path: str) -> int:
    """One JSON line per position in, one JSON line per position out (errors per line)."""
    try:
        fh = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as e:
        raise FastmachError(f"cannot read batch file {path!r}: {e.strerror}") from e
    bad = 0
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            out: dict = {}
            try:
                obj = json.loads(line)
                if isinstance(obj, dict) and "id" in obj:
                    out["id"] = obj["id"]
                out.update(_solve_one(obj))
            except json.JSONDecodeError as e:
                out["error"] = f"line {lineno}: malformed JSON ({e.msg} at column {e.colno})"
            except FastmachError as e:
                out["error"] = f"line {lineno}: {e}"
            if "error" in out:
                bad += 1
            print(json.dumps(out), flush=True)
    if bad:
        print(f"fastmach solve: {bad} position(s) had errors (see their 'error' field)", file=sys.stderr)
    return 0


# ------------------------------------------------------------------------------- bench

def _cli_bench(args: argparse.Namespace) -> int:
    from . import bench

    what = args.what
    if what in ("solver", "all"):
        print(bench.format_solver(bench.bench_solver(games=args.games or 120, milp=not args.no_milp)))
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
    p.add_argument("--batch", metavar="FILE.jsonl",
                   help="one position per line: {id, rules, table, hand, objective}; '-' for stdin")
    p.set_defaults(func=_cli_solve)

    p = sub.add_parser("bench", help="benchmarks (figures for notes, not tests)")
    p.add_argument("what", nargs="?", default="all",
                   choices=["all", "solver", "games", "strategies", "sweep", "cardset"])
    p.add_argument("--games", type=int, default=None, help="games to play or sample positions from")
    p.add_argument("--no-milp", action="store_true", help="skip the integer-programming comparison")
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
