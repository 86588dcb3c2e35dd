"""Trained players: ``fastmach train``, ``fastmach exploit`` and ``fastmach edge``."""
from __future__ import annotations

import argparse
import sys

from fastmach.cli.common import _interrupted
from fastmach.rules import resolve_rules


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


def add_edge(sub) -> None:
    p = sub.add_parser(
        "edge", help="one player's edge over another in the same seat, paired by deal",
        description="Two `fastmach play --rotate` runs on one seed, the focal player in a "
                    "seat of the first, the baseline in the second: the focal seat's win "
                    "share minus the same seat's in the baseline's game of that deal, with "
                    "a 95% interval by deal and the games that changed. Games pair only on "
                    "the same seed, replicate and rotation (and rules, where the rows name "
                    "them); both files must be games files (not --hands files) with every "
                    "column and win share in place, else the command names what is wrong.")
    p.add_argument("focal", metavar="FOCAL", help="the focal run's parquet file")
    p.add_argument("base", metavar="BASE", help="the baseline run's parquet file (same seed)")
    p.add_argument("--focal", dest="name", default=None, metavar="NAME",
                   help="the focal strategy: one of FOCAL's strategies as written, or a "
                        "prefix of exactly one (default: seat 0's in rotation 0)")
    p.set_defaults(func=edge_command)


def edge_command(args: argparse.Namespace) -> int:
    """``fastmach edge``: unreadable, refused or unpaired runs exit 2."""
    from fastmach.tools.edge import read_edge

    print(read_edge(args.focal, args.base, args.name))
    return 0
