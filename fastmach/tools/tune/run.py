"""``fastmach tune``: search the rule space for a designer's targets (the run and its directory).

``tune("space.toml", out="DIR", max_games=3000)`` reads and validates the search space
(:mod:`.space`: a base preset, ranges or choices of rules parameters, player counts,
line-ups, targets on scorecard metrics; every problem named before any game), races the
rule sets Optuna's TPE proposes on common deals (:mod:`.search`), re-plays the finalists
on fresh deals and writes the answer (:mod:`.answer`)::

    DIR/space.toml                the space (a resumed tune must be given the same one)
    DIR/trials.journal            Optuna's trials (the resume point)
    DIR/search/<hash>/            one study store per candidate (the race's deals)
    DIR/fresh/<hash>/             the finalists on fresh deals
    DIR/candidates.csv            every candidate, parameter, metric with its interval,
                                  whether it meets each target and the probability
    DIR/answer.txt                the best rule set, how sure, the runner-up
    DIR/partial_dependence.png    each metric against each searched parameter
    DIR/pareto.png                when two targets conflict

``max_games`` bounds every game played, the fresh-deal check included: the search gets
``max_games`` minus the check's games and stops at that, saying what it knows. Running
the same tune again resumes it (no game is played twice); a larger ``max_games`` goes on.
"""
from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path

from fastmach.errors import FastmachError
from fastmach.outputs import as_path
from fastmach.rules import is_integer
from fastmach.study.driver import check_run
from fastmach.tools.tune.answer import (Answer, answer_text, candidates_table, fresh_check,
                                        write_answer)
from fastmach.tools.tune.search import Evaluator, cost_floor, run_search
from fastmach.tools.tune.space import Space, load_space

__all__ = ["tune", "load_space", "Space", "Answer"]


def _check_budget(space: Space, max_games: int) -> int:
    """The search's share of ``max_games`` (FastmachError when it cannot buy one candidate
    and the fresh-deal check)."""
    if not is_integer(max_games) or max_games < 1:
        raise FastmachError(f"max_games: expected an integer >= 1, got {max_games!r}")
    max_games = int(max_games)
    first, check = cost_floor(space)
    if max_games < first + check:
        raise FastmachError(
            f"max_games={max_games} is too small: one candidate at the first rung "
            f"({space.deals} deals) costs {first} games and the fresh-deal check of "
            f"{space.finalists} finalists at {space.fresh_deals} deals {check}; give at "
            f"least {first + check}, or lower deals, finalists or fresh_deals")
    return max_games - check


def _open_dir(out: Path, space: Space) -> None:
    """Check ``out`` before any game: new, or holding this same space (a resume)."""
    from fastmach.outputs import probe_dir, write_bytes_atomic

    if out.exists() and not out.is_dir():
        raise FastmachError(f"out={str(out)!r} is a file, not a directory")
    stored = out / "space.toml"
    if stored.exists():
        if stored.read_text(encoding="utf-8") != space.to_toml():
            raise FastmachError(f"out={str(out)!r} holds another search space "
                                f"({stored}); use another directory or the same space")
    elif out.is_dir() and any(out.iterdir()):
        raise FastmachError(f"out={str(out)!r} is not empty and holds no space.toml: not "
                            f"a fastmach tune directory")
    probe_dir(out, "out=")
    if not stored.exists():
        write_bytes_atomic(stored, space.to_toml().encode("utf-8"))


def tune(space: Space | str | Path, out: str | Path, *, max_games: int,
         workers: int = 0, scheduler: str | None = None, progress: bool = False,
         command: str | None = None) -> Answer:
    """Search ``space`` (a :class:`Space`, a TOML file or TOML text) for its targets.

    ``out``: the tune's directory (resumed when it holds the same space). ``max_games``:
    the budget in games, fresh-deal check included. ``workers``: local worker processes
    for an evaluation with several chunks (0: this process); ``scheduler``: ``"local"`` or a
    Dask scheduler's address, as for :func:`fastmach.run_study`. ``progress``: a line per
    trial on stderr. Returns the :class:`Answer` (also written to ``out``).
    """
    if not isinstance(space, Space):
        space = load_space(space)
    budget = _check_budget(space, max_games)
    if workers is None:
        raise FastmachError("workers=None: must be an integer >= 0")
    check_run(workers, scheduler)   # (before any game, as each evaluation will)
    root = as_path(out, "out=", "a directory path")
    _open_dir(root, space)
    if command is None:
        command = shlex.join(sys.argv) if sys.argv and sys.argv[0] else "python"
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if progress else (lambda s: None)
    search_eval = Evaluator(space, root / "search", workers=workers, scheduler=scheduler,
                            command=command)
    search = run_search(space, root, budget, search_eval, log)
    fresh_eval = Evaluator(space, root / "fresh", seed=space.fresh_seed,
                           chunk=math.gcd(space.deals, space.fresh_deals), workers=workers,
                           scheduler=scheduler, command=command)
    fresh = fresh_check(space, search, fresh_eval)
    fresh_games = len(fresh) * space.fresh_deals * space.games_per_deal
    table = candidates_table(space, search, fresh)
    text, best, runner, p = answer_text(space, table, search, fresh_games, max_games)
    files = write_answer(root, space, table, text)
    return Answer(space, table, best, runner, p, text, search, fresh_games, root, files)
