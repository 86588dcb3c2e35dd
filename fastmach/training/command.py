"""``fastmach train`` and ``fastmach exploit`` as library calls: arguments checked before
any game (FastmachError naming the bad one), a progress bar, the outputs written whole."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Callable

from fastmach.engine.progress import Progress
from fastmach.errors import FastmachError
from fastmach.outputs import probe_dir, write_bytes_atomic
from fastmach.rules import Rules, is_integer, rules_of
from fastmach.study.driver import check_run
from fastmach.training.exploit import exploit
from fastmach.training.oracle import Gain
from fastmach.training.train import (TrainConfig, Training, exploitability, policy_record,
                                     state_name, train)

__all__ = ["run_train", "run_exploit", "format_gain"]


def _workers(workers: int | None) -> int:
    n, _ = check_run(workers, None)
    return max(1, n)


def _positive(value: object, name: str) -> int:
    if not is_integer(value) or int(value) < 1:   # type: ignore[arg-type]
        raise FastmachError(f"{name}={value!r}: must be a positive integer")
    return int(value)  # type: ignore[arg-type]


def format_gain(g: Gain, players: int) -> str:
    """The exploitability lines of a best response (win shares in percent)."""
    return (f"best response found: {g.strategy}\n"
            f"  its win share against the others: {100 * g.payoff:.1f}%; theirs at a table "
            f"of themselves: {100 * g.baseline:.1f}% (fair {100 / players:.1f}%)\n"
            f"  gain: {100 * g.diff:+.1f} pp [{100 * g.lo:+.1f}, {100 * g.hi:+.1f}] "
            f"(95%, {g.deals} fresh deals, paired by deal)")


def run_train(rules: str | Rules, *, players: int | None = None, out: str | Path = "training",
              workers: int | None = None, seed: int | None = None,
              iterations: int | None = None, target: float | None = None,
              progress: bool | None = None, log: Callable[[str], None] | None = None
              ) -> tuple[Training, Path]:
    """Train (or resume) the player of ``rules``; write its state and policy under ``out``
    (``policy-<name>.json``: copy it to ``fastmach/strategies/policies/`` to ship it)."""
    r = rules_of(rules, players)
    n = _workers(workers)
    cfg = TrainConfig()
    if seed is not None:
        if not is_integer(seed) or int(seed) < 0:
            raise FastmachError(f"seed={seed!r}: must be an integer >= 0")
        cfg = replace(cfg, seed=int(seed))
    if iterations is not None:
        cfg = replace(cfg, iterations=_positive(iterations, "iterations"))
    if target is not None:
        if not isinstance(target, (int, float)) or not 0 < float(target) < 1:
            raise FastmachError(f"target={target!r}: a win-share gain between 0 and 1")
        cfg = replace(cfg, target=float(target))
    folder = probe_dir(out, "out=")
    with Progress(0, progress) as bar:
        training = train(r, folder, cfg, workers=n, progress=bar.update, log=log)
    policy = folder / ("policy-" + state_name(r))
    write_bytes_atomic(policy, json.dumps(policy_record(training), indent=1).encode())
    return training, policy


def run_exploit(strategy: str, rules: str | Rules, *, players: int | None = None,
                workers: int | None = None, deals: int = 1000, seed: int = 20261205,
                progress: bool | None = None) -> Gain:
    """``fastmach exploit``: the best response found against ``strategy`` and its gain."""
    r = rules_of(rules, players)
    n = _workers(workers)
    deals = _positive(deals, "deals")
    with Progress(0, progress) as bar:
        return exploit(strategy, r, seed=seed, check_deals=deals, workers=n,
                       progress=bar.update)


def summary(training: Training) -> str:
    """The trained mixture, its exploitability and how it was found, as lines of text."""
    mix = training.mixture
    lines = [f"trained player of {training.rules} at {training.players} players "
             f"({len(training.history)} iterations, {len(training.game.members)} members "
             f"tried in the meta-game):"]
    lines += [f"  {100 * w:5.1f}%  {m}" for m, w in zip(mix.members, mix.weights)]
    lines.append(format_gain(exploitability(training), training.players))
    return "\n".join(lines)
