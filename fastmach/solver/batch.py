"""Many positions in one call: ``solve_many`` (the loop compiled, without the GIL, on
``workers`` threads), its result ``SolveBatch``, and ``to_counts`` for count arrays.

Each row goes through the same compiled routine as :func:`fastmach.solve`, so a batch
agrees with solving its rows one by one (placed cards, value, the error of a bad row),
and the answer never depends on the number of workers. A bad row never stops the batch:
its ``status`` is negative and ``errors[i]`` holds the message ``solve`` would raise.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import IO, Any, Sequence

import numpy as np

import fastmach.core._batch as _batch
from fastmach.core.cards import NCARD, format_cards
from fastmach.core.workers import check_local_workers
from fastmach.errors import FastmachError
from fastmach.outputs import atomic_path, probe_file, refuse_inputs
from fastmach.rules import Rules, is_integer
from fastmach.solver.exact import (BAD_CARDS, SOLVED, STATUS, Solution, _all_valid_melds, _counts,
                     _flatten_table, _record, _status_message)

__all__ = ["SolveBatch", "STATUS", "solve_many", "to_counts"]

_MAX_MELDS, _MAX_TABLE = 64, 176  # the compiled Witness (fastmach/core/_solver.pxd)


@dataclass(frozen=True, eq=False)
class SolveBatch:
    """The answers of :func:`solve_many`, one row per position (NumPy arrays).

    ``status`` is 0 when solved, else negative (``fastmach.solver.batch.STATUS`` names the
    codes: -1 invalid table, -2 too many copies, -3 bad cards, -4 state limit, -5
    internal error) and ``errors[i]`` is the message; a failed row has ``n_placed`` and
    ``value`` -1 and no placed cards. ``value`` is what the objective counts (cards, or
    the points of the placed cards), as ``Solution.points``.
    """

    n_placed: np.ndarray  # int64 (n,)
    placed: np.ndarray  # uint8 (n, NCARD): placed hand cards, as counts
    value: np.ndarray  # int64 (n,)
    status: np.ndarray  # int8 (n,)
    errors: list  # str | None per row
    rules: Rules
    objective: str
    _tables: np.ndarray = field(repr=False)
    _hands: np.ndarray = field(repr=False)
    _witness: tuple | None = field(repr=False, default=None)

    def __len__(self) -> int:
        return len(self.status)

    @property
    def ok(self) -> np.ndarray:
        """Boolean mask of the solved rows."""
        return self.status == SOLVED

    def melds(self, i: int) -> list[list[int]]:
        """The final table of row ``i`` as melds of card ids (as ``Solution.melds``)."""
        return self.solution(i).melds

    def solution(self, i: int) -> Solution:
        """Row ``i`` as the ``Solution`` that ``fastmach.solve`` returns (raises for a
        failed row, with its message). Kept partitions are read back; otherwise the row is
        solved again (its table is already checked)."""
        if not is_integer(i):   # (1.5 read row 1, True row 1, "0" row 0)
            raise FastmachError(f"row {i!r}: expected a row number 0..{len(self) - 1}")
        i = int(i)
        if not 0 <= i < len(self):
            raise FastmachError(f"row {i} is out of range (the batch has {len(self)} rows)")
        if self.status[i] != SOLVED:
            raise FastmachError(f"row {i}: {self.errors[i]}")
        placed = np.repeat(np.arange(NCARD), self.placed[i].astype(np.intp)).tolist()
        if self._witness is not None:
            cards, stands, start = self._witness
            melds, st = _batch.melds_lists(cards[i], stands[i], start[i])
        else:
            _, rec = _record(self.rules, self.objective)
            out = _batch.solve_counts_one(self._tables[i], self._hands[i], rec, True)
            melds, st = out[2], out[3]
        return Solution(placed, melds, st, int(self.value[i]))

    def to_frame(self):
        """A DataFrame: n_placed, value, status, error, placed (text), one row per position."""
        import pandas as pd

        placed = [format_cards(p) if s == SOLVED else None
                  for p, s in zip(self.placed, self.status)]
        return pd.DataFrame({
            "n_placed": self.n_placed, "value": self.value, "status": self.status,
            "error": self.errors, "placed": placed,
        })


def to_counts(cards_list: Sequence) -> np.ndarray:
    """A (n, NCARD) uint8 count array from n card collections (text, ids, count arrays,
    or a table as a list of melds). Raises FastmachError naming the first bad row."""
    counts, errors, _ = _rows_to_counts(cards_list, "cards_list")
    if errors:
        i = min(errors)
        raise FastmachError(f"row {i}: {errors[i]}")
    return counts


def _rows_to_counts(rows: Sequence, what: str, rules: Rules | None = None):
    """(counts, {row: parse error}, known-valid mask) of a sequence of card collections."""
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") \
            or not hasattr(rows, "__iter__"):
        raise FastmachError(f"{what}: expected a sequence (a list) of card collections "
                            f"or an (n, {NCARD}) count array, got {type(rows).__name__}")
    n = len(rows)
    out = np.zeros((n, NCARD), dtype=np.uint8)
    errors: dict[int, str] = {}
    known = np.zeros(n, dtype=np.uint8)
    for i, x in enumerate(rows):
        try:
            out[i] = _counts(_flatten_table(x))
            if rules is not None and _all_valid_melds(x, rules):
                known[i] = 1
        except FastmachError as e:
            errors[i] = str(e)
    return out, errors, known


def _count_matrix(a: np.ndarray, what: str) -> np.ndarray:
    if a.ndim != 2 or a.shape[1] != NCARD:
        raise FastmachError(f"{what} as counts must have shape (n, {NCARD}), got {a.shape}")
    if a.dtype == np.uint8:
        return np.ascontiguousarray(a)
    if a.dtype.kind not in "iu":
        raise FastmachError(f"{what} as counts must hold integers, got dtype {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > 255):
        raise FastmachError(f"{what} as counts must be 0..255, got {a.min()}..{a.max()}")
    return np.ascontiguousarray(a, dtype=np.uint8)


def solve_many(tables, hands, rules: Rules | str = "classic", objective: str = "cards", *,
               workers: int = 1, trusted: bool = False, keep_melds: bool = False) -> SolveBatch:
    """Solve n positions in one compiled loop without the GIL, on ``workers`` threads.

    ``tables`` and ``hands``: two (n, NCARD) integer count arrays (the fast path, see
    :func:`to_counts`), or two sequences of card collections as :func:`fastmach.solve`
    takes them (text, card ids; a table may be a list of melds, checked meld by meld).
    ``trusted=True`` skips the tables' own check (tables known to be valid).
    ``keep_melds=True`` stores every partition, so ``melds(i)`` needs no new solve.
    """
    r, rec = _record(rules, objective)
    if not is_integer(workers) or workers < 1:
        raise FastmachError(f"workers must be a positive integer, got {workers!r}")
    check_local_workers(int(workers), "threads")
    errors_in: dict[int, str] = {}
    if isinstance(tables, np.ndarray) and isinstance(hands, np.ndarray):
        T, H = _count_matrix(tables, "tables"), _count_matrix(hands, "hands")
        known = np.full(len(T), 1 if trusted else 0, dtype=np.uint8)
    elif isinstance(tables, np.ndarray) or isinstance(hands, np.ndarray):
        raise FastmachError("give tables and hands both as count arrays or both as sequences")
    else:
        T, et, known = _rows_to_counts(tables, "tables", r)
        H, eh, _ = _rows_to_counts(hands, "hands")
        errors_in = {**eh, **et}
        if trusted:
            known[:] = 1
    if len(T) != len(H):
        raise FastmachError(f"{len(T)} tables but {len(H)} hands")
    n = len(T)
    placed = np.zeros((n, NCARD), dtype=np.uint8)
    value = np.zeros(n, dtype=np.int64)
    status = np.zeros(n, dtype=np.int8)
    for i in errors_in:
        status[i] = BAD_CARDS
        value[i] = -1
    witness = None
    if keep_melds:
        witness = (np.zeros((n, _MAX_TABLE), np.uint8), np.zeros((n, _MAX_TABLE), np.uint8),
                   np.zeros((n, _MAX_MELDS + 1), np.uint8))
    job = _batch.BatchJob(T, H, known, placed, value, status, rec, *(witness or ()))
    if n:
        _batch.run_batch(job, int(min(workers, n)))
    n_placed = placed.sum(axis=1, dtype=np.int64)
    n_placed[status != SOLVED] = -1
    errors: list = [None] * n
    for i in np.flatnonzero(status != SOLVED).tolist():
        errors[i] = errors_in.get(i) or _status_message(int(status[i]), T[i], H[i], r)
    return SolveBatch(n_placed, placed, value, status, errors, r, objective, T, H, witness)


# ------------------------------------------------------------------------ batch files
# `fastmach solve --batch FILE`: JSONL, CSV or parquet in, the same format out, one row
# per position; rows are grouped by (rules, objective) and each group is one solve_many.

FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}
_JSON_KEYS = {"id", "rules", "table", "hand", "objective"}


def file_format(path: str) -> str:
    """"jsonl", "csv" or "parquet" from a file name ('-' is JSONL on stdin/stdout)."""
    if path == "-":
        return "jsonl"
    from pathlib import Path

    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise FastmachError(f"cannot tell the format of {path!r}: name it "
                            f"{', '.join(sorted(FORMATS))} (or '-' for JSONL on stdin)")
    return fmt


def _plain(x):
    """A cell as solve takes it: arrays of a parquet list column become lists."""
    if isinstance(x, np.ndarray):
        return [_plain(e) for e in x.tolist()]
    if isinstance(x, list):
        return [_plain(e) for e in x]
    if x is None or (isinstance(x, float) and x != x):
        return ""
    return x


def _read_rows(path: str, fmt: str, rules: str, objective: str):
    """(records, frame): one dict per row (table, hand, rules, objective, error)."""
    import json
    import sys

    import pandas as pd

    rows = []
    if fmt == "jsonl":
        try:
            fh = sys.stdin.buffer if path == "-" else open(path, "rb")
        except OSError as e:
            raise FastmachError(f"cannot read batch file {path!r}: {e.strerror}") from e
        with fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                row: dict[str, Any] = {"line": lineno}
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:  # one bad line, not a bad file
                    row["error"] = f"not UTF-8 text (byte {e.start + 1})"
                    rows.append(row)
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    row["error"] = f"malformed JSON ({e.msg} at column {e.colno})"
                    rows.append(row)
                    continue
                except RecursionError:  # (the parser's stack)
                    row["error"] = "malformed JSON (arrays or objects nested too deeply)"
                    rows.append(row)
                    continue
                if isinstance(obj, dict) and "id" in obj:
                    row["id"] = obj["id"]
                if isinstance(row.get("id"), float) and not math.isfinite(row["id"]):
                    del row["id"]  # 1e400: not a number JSON can hold
                    row["error"] = ("id overflows a JSON number (beyond 1.8e308); give the "
                                    "id as a string")
                elif not isinstance(obj, dict):
                    row["error"] = "a position must be a JSON object"
                elif set(obj) - _JSON_KEYS:
                    row["error"] = (f"unknown key(s) {sorted(set(obj) - _JSON_KEYS)}; "
                                    "expected id, rules, table, hand, objective")
                elif "hand" not in obj:
                    row["error"] = "missing key 'hand'"
                elif obj["hand"] is None:   # (as missing: an empty hand is written "")
                    row["error"] = "'hand' is null; give its cards (\"\" for an empty hand)"
                else:
                    row.update(table=obj.get("table", []), hand=obj["hand"],
                               rules=obj.get("rules", rules),
                               objective=obj.get("objective", objective))
                rows.append(row)
        return rows, None
    if fmt == "csv":
        _check_fields(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False) if fmt == "csv" \
            else pd.read_parquet(path)
    except (OSError, ValueError) as e:
        raise FastmachError(f"cannot read batch file {path!r}: {e}") from e
    if "hand" not in frame.columns:
        raise FastmachError(f"batch file {path!r} has no 'hand' column "
                            f"(columns: {', '.join(map(str, frame.columns))})")
    n = len(frame)
    col = {k: frame[k].tolist() if k in frame.columns else [d] * n
           for k, d in (("table", ""), ("hand", ""), ("rules", rules), ("objective", objective))}
    for i in range(n):
        rows.append({"table": _plain(col["table"][i]), "hand": _plain(col["hand"][i]),
                     "rules": _plain(col["rules"][i]) or rules,
                     "objective": _plain(col["objective"][i]) or objective})
    return rows, frame


def _solve_rows(rows: list[dict], workers: int) -> None:
    """Fill each row's result (placed, melds, value) or error, one solve_many per group."""
    from fastmach.solver.exact import _record

    groups: dict[tuple, list[int]] = {}
    for i, row in enumerate(rows):
        if "error" in row:
            continue
        key = (row["rules"], row["objective"])
        try:
            if not isinstance(key[0], (str, Rules)) or not isinstance(key[1], str):
                raise FastmachError(f"rules and objective must be text, got {key!r}")
            _record(*key)
        except FastmachError as e:
            row["error"] = str(e)
            continue
        groups.setdefault(key, []).append(i)
    for (rules, objective), idx in groups.items():
        b = solve_many([rows[i]["table"] for i in idx], [rows[i]["hand"] for i in idx],
                       rules, objective, workers=workers, keep_melds=True)
        for k, i in enumerate(idx):
            if b.status[k] != SOLVED:
                rows[i]["error"] = b.errors[k]
                continue
            sol = b.solution(k)
            rows[i].update(placed=sol.placed, melds=sol.melds, value=sol.points)


def _check_fields(path: str) -> None:
    """A CSV header that names a column twice is refused (pandas would read the second as
    ``NAME.1``, a column nobody asked for: a silent misread), and so is a row with more
    fields than the header (pandas would take the first ones as an index and read the rest
    as the columns)."""
    import csv
    from collections import Counter

    try:
        with open(path, encoding="utf-8-sig", newline="") as f:  # (pandas drops a BOM)
            reader = csv.reader(f)
            header = next((row for row in reader if row), [])  # (and skips blank lines)
            repeated = [k for k, n in Counter(header).items() if k and n > 1]
            if repeated:
                raise FastmachError(
                    f"batch file {path!r}, line {reader.line_num}: the header names column(s) "
                    f"{', '.join(map(repr, repeated))} more than once; give each column once")
            for fields in reader:
                if len(fields) > len(header):
                    raise FastmachError(
                        f"batch file {path!r}, line {reader.line_num}: {len(fields)} fields, "
                        f"the header has {len(header)} ({', '.join(header)}); quote a field "
                        f"that holds a comma")
    except (OSError, UnicodeDecodeError, csv.Error):
        return  # read_csv names these


#: the columns a CSV or parquet batch's answer adds to its rows
ANSWER_COLUMNS = ("placed", "melds", "n_placed", "value", "error")


def solve_file(path: str, out: str | None, *, rules: str = "classic",
               objective: str = "cards", workers: int = 1) -> tuple[int, int]:
    """Solve every position of a batch file; write the answers; (rows, failed rows)."""
    import json
    import sys

    from fastmach.core.cards import card_str

    if not is_integer(workers) or workers < 1:
        raise FastmachError(f"workers must be a positive integer, got {workers!r}")
    check_local_workers(int(workers), "threads")   # (before the file is read)
    fmt = file_format(path)
    if fmt == "parquet" and (not out or out == "-"):
        raise FastmachError("a parquet batch needs out=FILE.parquet for its answers")
    if out and file_format(out) != fmt:
        raise FastmachError(f"out={out!r} must have the input's format ({fmt})")
    if out and out != "-":
        refuse_inputs(out, "out=", [("the positions file", path)])
        probe_file(out, "out=")  # before the work: a bad path costs nothing
    rows, frame = _read_rows(path, fmt, rules, objective)
    clash = [c for c in ANSWER_COLUMNS if frame is not None and c in frame.columns]
    if clash:
        raise FastmachError(
            f"{path}: column(s) {', '.join(clash)} would be overwritten by the answer's own "
            f"({', '.join(ANSWER_COLUMNS)}); rename them")
    _solve_rows(rows, workers)
    failed = sum("error" in r for r in rows)
    names = lambda cs: [card_str(c) for c in cs]  # noqa: E731
    if fmt == "jsonl":
        with contextlib.ExitStack() as stack:
            fh: IO[str]
            if out and out != "-":
                tmp = stack.enter_context(atomic_path(out))
                fh = stack.enter_context(open(tmp, "w", encoding="utf-8"))
            else:
                fh = sys.stdout
            for r in rows:
                res = {"id": r["id"]} if "id" in r else {}
                if "error" in r:
                    where = f"line {r['line']}: "
                    res["error"] = where + r["error"]
                else:
                    res.update(placed=names(r["placed"]), melds=[names(m) for m in r["melds"]],
                               value=r["value"])
                fh.write(json.dumps(res, allow_nan=False) + "\n")
        return len(rows), failed
    ok = ["error" not in r for r in rows]
    frame = frame.copy()
    frame["placed"] = [" ".join(names(r["placed"])) if o else None for r, o in zip(rows, ok)]
    frame["melds"] = [" | ".join(" ".join(names(m)) for m in r["melds"]) if o else None
                      for r, o in zip(rows, ok)]
    frame["n_placed"] = [len(r["placed"]) if o else -1 for r, o in zip(rows, ok)]
    frame["value"] = [r["value"] if o else -1 for r, o in zip(rows, ok)]
    frame["error"] = [r.get("error") for r in rows]
    if not out or out == "-":   # (CSV to stdout: parquet needs --out, checked before)
        frame.to_csv(sys.stdout, index=False)
        return len(rows), failed
    with atomic_path(out) as tmp:
        if fmt == "csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
    return len(rows), failed
