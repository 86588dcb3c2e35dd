"""Helpers every command group shares: the flags' words in library messages, system
errors as one line, --seed, the warnings of a run's cells, Ctrl-C's message.
"""
from __future__ import annotations

import argparse
import errno
import re
import sys

from fastmach.errors import FastmachError
from fastmach.game.deal import SECRET
from fastmach.rules import source_warning
from fastmach.strategies import stand_in_warning
from fastmach.study import split_lineup

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


def os_message(e: OSError) -> str:
    """A system error (a full disk, a lost mount) as one line: what, where, and that the
    outputs are whole (written atomically: an old file or none, never half of one)."""
    where = f" ({e.filename})" if e.filename else ""
    hint = ("free some space and run the same command again" if e.errno in (
        errno.ENOSPC, errno.EDQUOT) else "run the same command again when it is fixed")
    return (f"{e.strerror or type(e).__name__}{where}: the run stopped; no output was left "
            f"half-written; {hint}")


def _interrupted(command: str, out: str | None) -> int:
    """Ctrl-C in a command that keeps its study stores in ``--out``: say what is kept, 130."""
    where = (f"finished chunks are saved in {out}; run the same command again to play only "
             "the missing ones" if out else "nothing was kept (use --out DIR to keep and resume)")
    print(f"\nfastmach {command}: interrupted; {where}", file=sys.stderr)
    return 130


def _seed_arg(text: str) -> int | str:
    """``--seed``: an integer, or ``secret`` (resolved where the games are played)."""
    if text.strip().lower() == SECRET:
        return SECRET
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer or 'secret', got {text!r}") from None


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


def _int_list(text: str, option: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise FastmachError(f"{option} {text!r}: expected integers like 3,4") from None


def _rules_list(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or ["classic"]:
        try:
            out += split_lineup(v)
        except FastmachError:
            raise FastmachError(f"--rules {v!r}: empty rules string in the list") from None
    return out
