"""The search of ``fastmach tune``: Optuna's TPE proposes rule sets, a race spends deals.

Why Optuna: its TPE sampler handles integer and categorical parameters together, needs no
grid, is maintained, and its storage (a journal file, :class:`optuna.storages.JournalStorage`)
keeps every trial, its parameters and its intermediate values on disk, so a killed tune is
resumed from ``DIR/trials.journal`` with the same trials. Its successive-halving pruner
(asynchronous successive halving) is the race: every candidate is played on
``deals`` deals (rung 0); a candidate whose loss is among the best ``1/eta`` of those seen
at a rung is promoted to ``eta`` times the deals, the others stop there.

Common random numbers: every candidate's study has the same root seed, so replicate ``r``
is the same shuffle for every candidate (the same deal whenever the candidates' decks
agree), and a promoted candidate keeps its first deals and adds the next ones (its result
directory grows; :func:`fastmach.study.driver.execute` plays only the missing chunks).

Determinism: the sampler of trial ``n`` is seeded from ``(seed, n)`` and sees only the
stored trials, so the trials are the same for a seed on any machine, after a kill, and
whatever the worker count (the games are; see :mod:`fastmach.study.driver`). A resumed tune first
finishes the trial the kill interrupted (its parameters are stored; its deals resume);
a trial killed before its parameters were stored is marked failed and not counted
(``n`` counts the trials that did not fail), so the sequence of trials is unchanged.

The loss of a candidate is the mean over its cells (player count x line-up) of
``sum_t weight_t * loss_t``, ``loss_t`` being the target's violation in tolerances plus a
small pull towards a band's centre (:class:`~fastmach.tools.tune.space.Target`).
"""
from __future__ import annotations

import hashlib
import itertools
import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from fastmach.errors import FastmachError
from fastmach.study import Study
from fastmach.study.store import load_json
from fastmach.tools.tune.journal import bad_journal, check_lines, check_trial
from fastmach.tools.tune.space import Axis, Space

__all__ = ["Evaluator", "Search", "run_search", "loss_of", "cost_floor", "IDLE_LIMIT"]

#: Consecutive proposals of rule sets already played (no new game) after which the search
#: stops (or the space's size, if smaller): the optimiser has nothing new to try.
IDLE_LIMIT = 25
JOURNAL = "trials.journal"


def _hash(rules: str) -> str:
    return hashlib.sha256(rules.encode()).hexdigest()[:12]


def loss_of(space: Space, card: pd.DataFrame) -> float:
    """Mean over the scorecard's cells of the weighted losses of the targets that apply."""
    weights = space.weights()
    per_cell = []
    for _, row in card.iterrows():
        total, used = 0.0, False
        for t in space.targets:
            if not t.applies(int(row["players"])) or not _has_metric(t.metric, row):
                continue
            total += weights[t.metric] * t.loss(float(row[t.metric]))
            used = True
        if used:
            per_cell.append(total)
    return float(sum(per_cell) / len(per_cell)) if per_cell else math.inf


def _has_metric(metric: str, row: pd.Series) -> bool:
    """skill_gap exists only in cells whose line-up seats both strategies of the pair."""
    if metric != "skill_gap":
        return True
    from fastmach.analysis.hands import SKILL_PAIR

    return set(SKILL_PAIR) <= set(str(row["lineup"]).split(","))


def cost_floor(space: Space) -> tuple[int, int]:
    """(games of one candidate at the first rung, games of the fresh-deal check)."""
    g = space.games_per_deal
    return space.deals * g, space.finalists * space.fresh_deals * g


@dataclass
class Evaluator:
    """Plays a candidate on a number of deals into ``root/<hash>`` (a study store) and
    returns its scorecard; ``played`` counts the games this evaluator played."""

    space: Space
    root: Path
    seed: int | None = None
    chunk: int | None = None
    workers: int = 0
    scheduler: str | None = None
    command: str | None = None
    played: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    def _planned(self, rules: str) -> tuple[int, bool]:
        """(deals of the study in a candidate's store, whether they are all played);
        (0, False) when there is none."""
        m = self.root / _hash(rules) / "_study.json"
        if not m.exists():
            return 0, False
        try:
            manifest = load_json(m.read_text(encoding="utf-8"))
            study = Study.from_toml(manifest["study"])
        except (OSError, ValueError, KeyError, TypeError, FastmachError):
            return 0, False
        return study.games, bool(manifest.get("finished"))

    def stored(self, rules: str) -> int:
        """Deals a candidate's store holds complete (0 when none)."""
        games, finished = self._planned(rules)
        return games if finished else 0

    def __call__(self, rules: str, deals: int) -> pd.DataFrame:
        from fastmach.analysis import tables
        from fastmach.study.driver import execute
        from fastmach.study.results import read_hands, read_results

        if (rules, deals) in self._cache:
            return self._cache[rules, deals]
        where = self.root / _hash(rules)
        planned, finished = self._planned(rules)
        have = planned if finished else 0
        # a store that a killed run was growing to more deals keeps that size: the missing
        # chunks are played (the same games; the scorecard reads the first `deals` only)
        study = self.space.study(rules, max(deals, planned), seed=self.seed, chunk=self.chunk)
        if have < deals:
            self.root.mkdir(parents=True, exist_ok=True)
            per_deal = sum(len(c.rotations) for c in study.cells)
            todo = -(-(deals - have) // study.chunk) * per_deal
            w = min(self.workers, todo)
            if self.scheduler is None:  # one chunk: a pool's start-up would not pay
                w = w if w > 1 else 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                summary = execute(study, where, workers=w, scheduler=self.scheduler,
                                  progress=False, command=self.command)
            self.played += summary["played"]
        games = read_results(where, study)
        hands = read_hands(where, study)
        games = games[games["replicate"] < deals]
        hands = hands[hands["replicate"] < deals]
        card = self._cache[rules, deals] = tables.scorecard(games, hands)
        return card


@dataclass
class Search:
    """What the search knows: every distinct candidate's scorecard at its largest rung."""

    cards: dict[str, pd.DataFrame] = field(default_factory=dict)
    deals: dict[str, int] = field(default_factory=dict)
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    losses: dict[str, float] = field(default_factory=dict)
    trials: int = 0
    games: int = 0
    stopped: str = ""

    def ranked(self) -> list[str]:
        """Candidates by largest rung reached, then loss."""
        return sorted(self.cards, key=lambda r: (-self.deals[r], self.losses[r], r))


def _suggest(trial, axis: Axis):
    if axis.choices:
        return trial.suggest_categorical(axis.name, list(axis.choices))
    return trial.suggest_int(axis.name, axis.low, axis.high)


def _sampler(space: Space, n: int):
    import optuna

    seed = int.from_bytes(hashlib.sha256(f"fastmach-tune:{space.seed}:{n}".encode())
                          .digest()[:4], "big")
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(10, space.grid_size))


def _open(space: Space, out: Path):
    """The search's Optuna study in ``out``'s journal, created or resumed; a journal that
    cannot be read, or whose trials leave the space, is a FastmachError naming it."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    path = out / JOURNAL
    check_lines(path)
    pruner = optuna.pruners.SuccessiveHalvingPruner(
        min_resource=space.deals, reduction_factor=space.eta, min_early_stopping_rate=0)
    try:
        storage = JournalStorage(JournalFileBackend(str(path)))
        study = optuna.create_study(study_name=space.name, storage=storage,
                                    direction="minimize", pruner=pruner,
                                    sampler=_sampler(space, 0), load_if_exists=True)
        trials = study.get_trials(deepcopy=False)
    except Exception as e:   # (what Optuna raises replaying a journal it did not write)
        raise bad_journal(path, f"Optuna cannot replay it ({type(e).__name__}: {e})") from None
    for t in trials:
        check_trial(space, path, t)
    return study


def _judged_before(study, number: int, rung: int, value: float, eta: int) -> bool | None:
    """Whether the pruner promoted trial ``number`` past ``rung`` before a kill, or None
    where it had not judged that rung.

    The pruner marks a rung judged on the trial (``completed_rung_<k>``, the value) before
    it answers, and counts the marks to know the trial's rung: asked again for a resumed
    trial it would take the marked rung for one passed and let the trial go on. So the
    rung is judged again here as asynchronous successive halving judges it: promoted if
    its value is among the best ``1/eta`` (at least the best) of the values marked at that
    rung, its own included; the same values as before the kill (one trial runs at a time).
    """
    key = f"completed_rung_{rung}"
    trials = study.get_trials(deepcopy=False)
    if key not in trials[number].system_attrs:
        return None
    values = sorted(t.system_attrs[key] for t in trials if key in t.system_attrs)
    return value <= values[max(len(values) // eta - 1, 0)]


def _trailing_idle(study) -> int:
    """The finished trials at the end of the history that played no new game (each only
    proposed a rule set played before): the idle count the last run stopped with."""
    from optuna.trial import TrialState

    idle = 0
    for t in sorted(study.get_trials(deepcopy=False), key=lambda t: t.number, reverse=True):
        if t.state == TrialState.RUNNING:
            continue
        if t.state == TrialState.FAIL or t.user_attrs.get("new_games") != 0:
            break
        idle += 1
    return idle


def _first_unplayed(space: Space, known: Search) -> dict | None:
    """The parameters of the space's first rule set (grid order) not played yet, or None."""
    for combo in itertools.product(*(a.values for a in space.axes)):
        params = dict(zip((a.name for a in space.axes), combo))
        if str(space.candidate(params)) not in known.deals:
            return params
    return None


def run_search(space: Space, out: Path, budget: int, evaluate: Evaluator,
               log: Callable[[str], None] = lambda s: None) -> Search:
    """Ask, race and tell until the search budget (games) or the space is spent."""
    import optuna
    from optuna.trial import TrialState

    study = _open(space, out)
    per_deal = space.games_per_deal
    known = Search()
    for t in study.get_trials(deepcopy=False):
        rules = t.user_attrs.get("rules")
        if rules is not None and t.intermediate_values:
            d = max(t.intermediate_values)
            if d > known.deals.get(rules, 0):
                known.deals[rules], known.params[rules] = d, dict(t.params)
    spent = lambda: sum(known.deals.values()) * per_deal  # noqa: E731
    start, spent_before = time.monotonic(), spent()   # (this run's rate, a resumed one's too)
    idle = _trailing_idle(study)   # (a resumed or repeated run stops where the last did)
    while True:
        running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if running and len(running[0].params) < len(space.axes):
            # killed between asking and storing its parameters: a resumed sampler could not
            # draw them as the first one did; it fails and the next trial takes its seed
            study.tell(running[0].number, state=TrialState.FAIL)
            continue
        if running:  # a trial a killed run left unfinished: finish it first
            trial = optuna.trial.Trial(study, running[0]._trial_id)
        else:
            if idle >= min(IDLE_LIMIT, space.grid_size):
                unplayed = _first_unplayed(space, known) if idle < IDLE_LIMIT else None
                if unplayed is None:
                    known.stopped = (f"the optimiser proposed only rule sets already played "
                                     f"{idle} times in a row (the space holds "
                                     f"{space.grid_size} rule sets, {len(known.deals)} played)")
                    break
                # a small space the optimiser keeps re-proposing: its next rule set not
                # played yet (grid order) is tried before the search may stop
                study.enqueue_trial(unplayed, skip_if_exists=False)
            study.sampler = _sampler(space, sum(t.state != TrialState.FAIL
                                                for t in study.get_trials(deepcopy=False)))
            trial = study.ask()
        params = {a.name: _suggest(trial, a) for a in space.axes}
        rules = str(space.candidate(params))
        trial.set_user_attr("rules", rules)
        new = 0
        state, value = TrialState.COMPLETE, math.nan
        for k, d in enumerate(space.rung_deals):
            extra = max(0, d - known.deals.get(rules, 0)) * per_deal
            if spent() + extra > budget:
                known.stopped = f"the search budget ({budget} games) is spent"
                break
            card = evaluate(rules, d)
            value = loss_of(space, card)
            new += extra
            if d > known.deals.get(rules, 0):
                known.deals[rules], known.params[rules] = d, params
            with warnings.catch_warnings():  # a resumed trial reports its rungs again
                warnings.simplefilter("ignore", UserWarning)
                trial.report(value, d)
            if k < len(space.rung_deals) - 1:
                judged = _judged_before(study, trial.number, k, value, space.eta)
                if not judged if judged is not None else trial.should_prune():
                    state = TrialState.PRUNED
                    break
        if known.stopped:
            break  # the trial stays RUNNING: a resumed tune with a larger budget goes on
        trial.set_user_attr("new_games", new)
        if state == TrialState.PRUNED:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, value)
        idle = idle + 1 if new == 0 else 0
        n = len(study.trials)
        log(f"trial {n - 1}: {rules} at {known.deals[rules]} deals, loss {value:.3g}"
            f"{' (pruned)' if state == TrialState.PRUNED else ''}; {spent()} of {budget} "
            f"games ({(spent() - spent_before) / max(time.monotonic() - start, 1e-9):.0f} "
            f"games/s since the start)")
    known.trials = len(study.trials)
    known.games = spent()
    for rules, d in known.deals.items():
        card = evaluate(rules, d)  # read back from its store: no game
        known.cards[rules] = card
        known.losses[rules] = loss_of(space, card)
    return known
