"""The checks of a search's Optuna journal (``trials.journal``) before a tune resumes from
it: every line a whole operation, every trial one :func:`fastmach.tools.tune.search.run_search`
could have written for this space (a damaged or foreign journal is a FastmachError naming
it, never a traceback or an answer whose rules and parameters disagree)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from fastmach.errors import FastmachError
from fastmach.study.store import load_json
from fastmach.tools.tune.space import Axis, Space

__all__ = ["bad_journal", "check_lines", "check_trial"]


def bad_journal(path: Path, what: str) -> FastmachError:
    """The error of a journal this search cannot resume from, and what to do."""
    return FastmachError(f"{path}: {what}; it is not the journal of this search or it was "
                         f"damaged: delete it to start the search over (the games played "
                         f"are kept)")


def check_lines(path: Path) -> None:
    """Every line of the journal a whole JSON object of a known operation (Optuna skips a
    cut last line, and the next one it appends would be glued to it)."""
    try:
        from optuna.storages.journal._storage import JournalOperation
        ops: set[int] | None = {int(op) for op in JournalOperation}
    except ImportError:   # pragma: no cover - another Optuna layout: replaying checks them
        ops = None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as e:
        raise bad_journal(path, f"cannot be read ({e.strerror or e})") from None
    for n, line in enumerate(data.splitlines(keepends=True), 1):
        if not line.endswith(b"\n"):
            raise bad_journal(path, f"line {n} is cut short (no end of line)")
        try:
            record = load_json(line.decode("utf-8"))
        except ValueError:
            raise bad_journal(path, f"line {n} is not JSON") from None
        op = record.get("op_code") if isinstance(record, dict) else None
        if not isinstance(op, int) or isinstance(op, bool) or (ops is not None
                                                               and op not in ops):
            raise bad_journal(path, f"line {n} is not an operation of an Optuna journal "
                                     f"(op_code {op!r})")


def _in_axis(axis: Axis, value: Any) -> bool:
    if axis.choices:
        return any(type(v) is type(value) and v == value for v in axis.choices)
    assert axis.low is not None and axis.high is not None
    return type(value) is int and axis.low <= value <= axis.high


def check_trial(space: Space, path: Path, t: Any) -> None:
    """A stored trial as :func:`run_search` writes it: parameters of the space, within it,
    drawn from its distributions; its rules those parameters name; its reports at the
    race's rungs."""
    from optuna.distributions import CategoricalDistribution, IntDistribution

    axes = {a.name: a for a in space.axes}
    where = f"trial {t.number}"
    for name, value in t.params.items():
        axis = axes.get(name)
        if axis is None:
            raise bad_journal(path, f"{where} has a parameter {name!r} the space does not "
                                     f"search")
        want = (CategoricalDistribution(list(axis.choices)) if axis.choices
                else IntDistribution(axis.low, axis.high))   # type: ignore[arg-type]
        if t.distributions.get(name) != want:
            raise bad_journal(path, f"{where} draws {name} from other values than the "
                                     f"space's {axis.text()}")
        if not _in_axis(axis, value):
            raise bad_journal(path, f"{where} has {name} = {value!r}, outside the space's "
                                     f"{axis.text()}")
    rules = t.user_attrs.get("rules")
    if rules is not None:
        try:
            ok = len(t.params) == len(axes) and rules == str(space.candidate(t.params))
        except FastmachError:
            ok = False
        if not ok:
            raise bad_journal(path, f"{where} names the rules {rules!r}, not those of its "
                                     f"parameters {t.params}")
    steps = set(t.intermediate_values)
    if steps and (rules is None or not steps <= set(space.rung_deals)):
        raise bad_journal(path, f"{where} reports at {sorted(steps, key=str)} deals, not at the "
                                 f"race's rungs {list(space.rung_deals)}")
    for key, v in t.system_attrs.items():
        if key.startswith("completed_rung_") and (
                isinstance(v, bool) or not isinstance(v, (int, float))):
            raise bad_journal(path, f"{where} has {key} = {v!r}, not a number")
    new = t.user_attrs.get("new_games")
    if new is not None and (isinstance(new, bool) or not isinstance(new, int) or new < 0):
        raise bad_journal(path, f"{where} has new_games = {new!r}, not a game count")
