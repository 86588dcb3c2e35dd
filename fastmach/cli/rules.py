"""``fastmach rules``: a preset's or rules string's parameters with their sources."""
from __future__ import annotations

import argparse

from fastmach.errors import FastmachError
from fastmach.rules import PRESETS
from fastmach.rules.doc import describe as describe_rules
from fastmach.rules.doc import markdown as rules_markdown


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
