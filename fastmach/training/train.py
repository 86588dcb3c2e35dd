"""Training by self-play: policy-space response oracles (PSRO, double oracle) over the
strong player's parameters, for one rule set and player count.

Each iteration races the candidates (the neighbours of every member in the mixture and
points drawn from the grid, the members left out) against the current mixture on common deals
(:mod:`fastmach.training.oracle`), measures the winner's gain over the mixture on fresh
deals, and, where it gains more than ``target``, adds it to the population (every parameter
that does not pay against the mixture put back to its hand-tuned default), plays the
new line-ups of the empirical game and solves it again (:mod:`fastmach.training.meta`).
It stops when the best response found gains at most ``target`` (its point estimate),
or after ``iterations`` members were added; the last best response, never added, is the
trained mixture's exploitability figure. The state is written after every iteration (atomically, a JSON
file named by the rules and player count): a run stopped anywhere resumes where it was,
with the same answer; the payoffs never depend on the worker count.
"""
from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import numpy as np

from fastmach.errors import FastmachError
from fastmach.outputs import probe_dir, write_bytes_atomic
from fastmach.rules import Rules
from fastmach.strategies import rotations_of, seating
from fastmach.training.meta import EmpiricalGame, alpha_rank, equilibrium, regret
from fastmach.training.oracle import Gain, Mixture, focal_payoffs, gain, race
from fastmach.training.payoffs import play_jobs
from fastmach.training.space import PolicySpace, policy_space
from fastmach.training.state import TrainConfig, Training, check_resumable

__all__ = ["TrainConfig", "Training", "train", "state_name", "exploitability", "policy_record"]

def state_name(rules: Rules) -> str:
    """The file name of a rule set's training state (its canonical string, hashed short)."""
    digest = hashlib.sha1(str(rules).encode()).hexdigest()[:10]
    slug = "".join(ch if ch.isalnum() else "-" for ch in str(rules)).strip("-")[:48]
    return f"{slug}-{rules.players}p-{digest}.json"


def _seed(base: int, *parts: int) -> int:
    return int(np.random.SeedSequence([base, *parts]).generate_state(1, np.uint32)[0])


def _fill(training: Training, rules: Rules, workers: int,
          progress: Callable[[int], None] | None) -> None:
    """Play the empirical game's missing line-ups (every seat rotation, meta_deals each)."""
    game, cfg = training.game, training.config
    missing = game.missing()
    if not missing:
        return
    seed = _seed(cfg.seed, 1)
    reps = np.arange(cfg.meta_deals, dtype=np.int64)
    jobs, owners = [], []
    for m in missing:
        names = [game.members[i] for i in m]
        for k in rotations_of(names, rules.players, True):
            jobs.append((tuple(seating(names, rules.players, k)), reps))
            owners.append((m, k))
    results = play_jobs(rules, jobs, seed, workers)
    sums: dict[tuple[int, ...], dict[int, list[float]]] = {}
    for (m, k), pay in zip(owners, results):
        seat_member = seating(list(m), rules.players, k)
        acc = sums.setdefault(m, {})
        for seat, i in enumerate(seat_member):
            acc.setdefault(i, []).extend(pay[:, seat].tolist())
    for m, acc in sums.items():
        game.record(m, {i: float(np.mean(v)) for i, v in acc.items()})
    if progress:
        progress(sum(len(j[1]) for j in jobs))


def _candidates(space: PolicySpace, training: Training, it: int) -> list[str]:
    """The neighbours of every member in the mixture (every other value of one axis), the
    space's anchors (the hand-tuned player, the expert's play) and points drawn from the
    grid; the members themselves are left out (each earns the mixture's own payoff, in equilibrium),
    so the best response is the best deviation found."""
    rng = np.random.default_rng([training.config.seed, it, 0xCA4D])
    out: list[str] = []
    for m, w in zip(training.game.members, training.weights):
        point = space.point_of(m)
        if w > 0 and point is not None:
            out += [space.strategy(p) for p in space.neighbours(point)]
    out += [space.strategy(p) for p in space.anchors()]
    out += [space.strategy(p) for p in space.sample(rng, training.config.sampled)]
    members = set(training.game.members)
    return [c for c in dict.fromkeys(out) if c not in members]


def _simplify(space: PolicySpace, rules: Rules, best: str, mix: Mixture, seed: int,
              deals: int, tol: float, workers: int,
              progress: Callable[[int], None] | None) -> str:
    """The best response with every parameter that does not pay against the mixture put
    back to the hand-tuned default: greedily, the revert of the highest mean is kept while
    it earns at least the current point's mean less ``tol`` on the same deals. A parameter
    that changes nothing against this mixture (holding until an opponent nears going out,
    where no opponent ever does) would otherwise ride along and decide the player's games
    against other fields."""
    base = space.point_of("strong(trained=0)")
    point = space.point_of(best)
    if base is None or point is None:
        return best
    reps = np.arange(deals, dtype=np.int64)
    while True:
        axes = [j for j in range(len(point)) if point[j] != base[j]]
        if not axes:
            return best
        reverts = [space.strategy(point[:j] + (base[j],) + point[j + 1:]) for j in axes]
        pay = focal_payoffs(rules, [best] + reverts, mix, seed, reps, workers).mean(axis=1)
        if progress:
            progress((len(reverts) + 1) * deals)
        k = int(np.argmax(pay[1:]))
        if pay[1 + k] < pay[0] - tol:
            return best
        j = axes[k]
        point = point[:j] + (base[j],) + point[j + 1:]
        best = space.strategy(point)


def _solve(training: Training) -> None:
    x = equilibrium(training.game)
    training.weights = [float(round(v, 6)) for v in x]


def train(rules: Rules, out: str | Path | None = None, config: TrainConfig | None = None,
          workers: int = 1,
          progress: Callable[[int], None] | None = None,
          log: Callable[[str], None] | None = None) -> Training:
    """Train the player of ``rules`` (its player count); resume from ``out`` where a state
    of the same rules and config is stored there."""
    config = config or TrainConfig()
    space = policy_space(rules)
    path = probe_dir(out, "out=") / state_name(rules) if out is not None else None
    training: Training | None = None
    if path is not None and path.exists():
        try:
            training = Training.from_json(json.loads(path.read_text(encoding="utf-8")))
            check_resumable(training)
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:
            # (FastmachError, a ValueError, names the field that is wrong)
            raise FastmachError(f"{path}: not a training state ({e}); delete it to train "
                                f"from the start") from None
        if training.rules != str(rules) or training.players != rules.players:
            raise FastmachError(f"{path}: a training state of {training.rules!r} at "
                                f"{training.players} players, not {str(rules)!r}")
        if training.config != config:
            raise FastmachError(f"{path}: trained with other settings ({training.config}); "
                                f"use another --out or the same settings")
    if training is None:   # the population starts with the hand-tuned player
        first = space.point_of("strong(trained=0)")
        assert first is not None   # (every default is a value of its axis)
        training = Training(str(rules), rules.players, config,
                            EmpiricalGame(rules.players, [space.strategy(first)]), [1.0])

    def save() -> None:
        if path is not None:
            write_bytes_atomic(path, json.dumps(training.to_json(), indent=1).encode())

    _fill(training, rules, workers, progress)
    while not training.done:
        it = len(training.history)
        mix = training.mixture
        cands = _candidates(space, training, it)
        best, _, played = race(rules, cands, mix, _seed(config.seed, 2, it),
                               config.race_deals, config.eta, config.rungs, workers, progress)
        g, _ = gain(rules, best, mix, _seed(config.seed, 3, it), config.check_deals, workers)
        # the last iteration measures only: its best response is the exploitability figure
        last = it >= config.iterations
        added = g.diff > config.target and not last
        entry: dict[str, Any] = {"iteration": it, "candidates": len(cands),
                                 "best_response": asdict(g), "added": added}
        if log:
            log(f"iteration {it}: best response {best} gains {100 * g.diff:+.1f} pp "
                f"[{100 * g.lo:+.1f}, {100 * g.hi:+.1f}] over the mixture"
                + (" (added)" if added else ""))
        if added:   # the best response with what does not pay put back to the defaults
            member = _simplify(space, rules, best, mix, _seed(config.seed, 4, it), played,
                               config.simplify_tol, workers, progress)
            entry["member"] = member
            if member in training.game.members:   # (its simpler form is a member already)
                member = best
            training.game.members.append(member)
            training.weights.append(0.0)
            _fill(training, rules, workers, progress)
            _solve(training)
        else:
            training.done = True
        entry["mixture"] = dict(zip(training.mixture.members, training.mixture.weights))
        entry["regret"] = regret(training.game, np.asarray(training.weights))
        entry["alpha_rank"] = dict(zip(training.game.members,
                                       map(float, alpha_rank(training.game))))
        training.history.append(entry)
        save()
    return training


def exploitability(training: Training) -> Gain:
    """The final best response found against the trained mixture and its gain over the
    mixture's own payoff (fresh deals, 95% interval)."""
    return Gain(**training.history[-1]["best_response"])


def train_command(training: Training) -> str:
    """The command that trains this player again (the same state: any worker count)."""
    cfg = training.config
    words = ["fastmach", "train", training.rules, "--players", str(training.players),
             "--seed", str(cfg.seed), "--iterations", str(cfg.iterations),
             "--target", str(cfg.target)]
    return shlex.join(words)


def policy_record(training: Training) -> dict[str, Any]:
    """The shipped form of a finished training (``fastmach.strategies.trained``)."""
    mix = training.mixture
    g = exploitability(training)
    return {"rules": training.rules, "players": training.players,
            "members": list(mix.members), "weights": list(mix.weights),
            "command": train_command(training), "exploitability": asdict(g),
            "iterations": len(training.history), "seed": training.config.seed}
