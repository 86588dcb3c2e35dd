"""Integrity of a study's result files: size and SHA-256 of every file of every chunk.

A chunk may own several files (its game rows ``chunks/NAME``, and any other file written
for it, e.g. ``_hands/NAME``); its record maps each file's path, relative to the result
directory, to ``{"size": bytes, "sha256": hex}``. While a sweep runs, each finished chunk's
record is appended as one JSON line to ``DIR/_checksums.jsonl`` (cheap, and a crash loses
at most a torn last line); when the run ends the records are folded into the manifest's
``"chunks"`` (``{chunk name: record}``) and the journal is removed. :func:`load_records`
reads both.

:func:`read_table` reads a result directory the way ``pandas.read_parquet(DIR)`` would
(every ``*.parquet`` not under a name starting with ``_`` or ``.``), but verifies every
recorded file first: a missing or altered file, or a parquet file the manifest does not
record (another study's chunk), is a FastmachError naming the file. A manifest without
``"chunks"`` (results written by hand or by an older fastmach) is read without checksums,
each file still named if it cannot be read.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from fastmach.errors import FastmachError

__all__ = ["JOURNAL", "load_json", "file_record", "bytes_record", "check_record",
           "load_records", "append_record", "read_table", "data_files", "sweep_running"]

JOURNAL = "_checksums.jsonl"


def load_json(text: str) -> Any:
    """``json.loads(text)``; JSON nested too deeply for the parser (a RecursionError) is a
    ``json.JSONDecodeError`` too, so that it is refused as any malformed JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("arrays or objects nested too deeply", text,
                                   len(text) - len(text.lstrip())) from None


def bytes_record(data: bytes) -> dict:
    """``{"size", "sha256"}`` of bytes about to be written."""
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def file_record(path: str | Path) -> dict:
    """``{"size", "sha256"}`` of a file on disk."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
            size += len(block)
    return {"size": size, "sha256": h.hexdigest()}


def check_record(root: Path, record: Mapping[str, Mapping]) -> str | None:
    """None when every file of a chunk's record is on disk unchanged, else what is wrong
    (naming the file)."""
    for rel, want in record.items():
        path = root / rel
        try:
            size = path.stat().st_size
        except OSError:
            return f"{path}: missing"
        if not isinstance(want, Mapping) or size != want.get("size"):
            return f"{path}: {size} bytes, the manifest records {want.get('size')} (altered)" if \
                isinstance(want, Mapping) else f"{path}: bad manifest record {want!r}"
        try:
            got = file_record(path)["sha256"]
        except OSError as e:
            return f"{path}: unreadable ({e.strerror})"
        if got != want.get("sha256"):
            return f"{path}: checksum differs from the manifest's (the file was altered)"
    return None


def append_record(root: Path, name: str, record: Mapping[str, Mapping]) -> None:
    """Append a finished chunk's record to the journal (flushed to disk)."""
    line = json.dumps({"chunk": name, "files": record}, separators=(",", ":")) + "\n"
    with open(root / JOURNAL, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def load_records(root: Path, manifest: Mapping) -> dict[str, dict] | None:
    """Every chunk record: the manifest's ``"chunks"`` updated by the journal's lines.

    None when neither exists (results without checksums). A torn last journal line (a
    crash while appending) is ignored: its chunk counts as unrecorded.
    """
    records = manifest.get("chunks")
    journal = Path(root) / JOURNAL
    if records is None and not journal.exists():
        return None
    if not isinstance(records, Mapping):
        records = {}
    out = {str(k): dict(v) for k, v in records.items() if isinstance(v, Mapping)}
    try:
        text = journal.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return out
    for line in text.splitlines():
        try:
            rec = load_json(line)
            out[str(rec["chunk"])] = dict(rec["files"])
        except (ValueError, KeyError, TypeError):
            continue
    return out


def sweep_running(root: Path) -> bool:
    """True while a sweep holds ``root/.lock`` (it writes chunks whose records follow)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return False
    try:
        f = open(Path(root) / ".lock", "rb")
    except OSError:
        return False
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
        return False


def data_files(root: Path, subdir: str | None = None) -> list[str]:
    """Paths (relative, sorted) of the parquet files ``pandas.read_parquet(root)`` reads,
    or with ``subdir`` those of that directory (e.g. ``_hands``)."""
    found = []
    base = root / subdir if subdir else root
    for p in base.rglob("*.parquet"):
        rel = p.relative_to(base)
        if not any(part.startswith(("_", ".")) for part in rel.parts):
            found.append(p.relative_to(root).as_posix())
    return sorted(found)


class ReadCache:
    """What one process has verified and read of a result directory, for a study read
    again after every round of its growth (:mod:`fastmach.study.precision`): a file whose
    record is unchanged and whose size on disk still matches it is neither hashed nor read
    again. A fresh read (``cache=None``) verifies every file."""

    def __init__(self) -> None:
        self.verified: dict[str, dict] = {}  # relative path -> the record it matched
        self.tables: dict[str, Any] = {}     # relative path -> its pyarrow table

    def known(self, root: Path, rel: str, want: Any) -> bool:
        """``rel`` was verified against the same record and keeps its size."""
        if self.verified.get(rel) != want:
            return False
        try:
            return (root / rel).stat().st_size == want.get("size")
        except OSError:
            return False


def _cell_rows(table) -> bool:
    """Whether every row of a chunk (a pyarrow table) names its study cell."""
    return "cell" in table.column_names and table.column("cell").null_count == 0


def read_table(root: str | Path, manifest: Mapping, *, ignore_foreign: bool = False,
               subdir: str | None = None, cache: ReadCache | None = None):
    """The game rows of a result directory as one DataFrame, every file verified first
    (with ``subdir``: the rows of that directory's parquet files, e.g. ``_hands``).

    ``ignore_foreign``: skip (with a warning) parquet files the manifest does not record,
    instead of refusing them. ``cache``: skip the files it verified and read before
    (:class:`ReadCache`).
    """
    import warnings

    import pyarrow as pa
    import pyarrow.parquet as pq

    root = Path(root)
    records = load_records(root, manifest)
    files = data_files(root, subdir)
    if records is not None:
        recorded = {rel for rec in records.values() for rel in rec}
        foreign = [rel for rel in files if rel not in recorded]
        if foreign and sweep_running(root):  # chunks written this moment: not yet recorded
            files = [rel for rel in files if rel in recorded]
            foreign = []
        if foreign and not ignore_foreign:
            raise FastmachError(
                f"{root / foreign[0]}: not a chunk of study {manifest.get('name')!r} (the "
                f"manifest does not record it){f' (and {len(foreign) - 1} more)' if len(foreign) > 1 else ''}; "
                f"remove it, or pass --ignore-foreign to leave it out")
        if foreign:
            warnings.warn(f"{root}: {len(foreign)} file(s) not of this study left out, "
                          f"e.g. {foreign[0]}", stacklevel=2)
        for name in sorted(records):
            record = records[name]
            if cache is not None:
                record = {rel: want for rel, want in record.items()
                          if not cache.known(root, rel, want)}
            bad = check_record(root, record)
            if bad:
                raise FastmachError(f"{bad}; run the same `fastmach sweep` again to replay "
                                    f"the chunk")
            if cache is not None:  # (re)verified: any table read before is stale
                for rel, want in record.items():
                    cache.verified[rel] = want
                    cache.tables.pop(rel, None)
        files = [rel for rel in files if rel in recorded]
    tables = []
    for rel in files:
        if cache is not None and rel in cache.tables and rel in cache.verified:
            tables.append(cache.tables[rel])
            continue
        try:
            tables.append(pq.read_table(root / rel))
        except Exception as e:  # pyarrow raises several types
            raise FastmachError(f"{root / rel}: unreadable parquet file ({e})") from None
        if records is None and not _cell_rows(tables[-1]):
            # no checksum to tell: rows that name no cell are no study's chunk
            if not ignore_foreign:
                raise FastmachError(
                    f"{root / rel}: not a chunk of study {manifest.get('name')!r} (its rows "
                    f"name no cell of a study); remove it, or pass --ignore-foreign to leave "
                    f"it out")
            warnings.warn(f"{root}: {rel} is not a chunk of this study: left out",
                          stacklevel=2)
            tables.pop()
            continue
        if cache is not None and records is not None:
            cache.tables[rel] = tables[-1]
    if not tables:
        raise FastmachError(f"{root}: no finished chunk yet")
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except Exception as e:
        raise FastmachError(f"{root}: chunks with incompatible columns ({e})") from None
    return table.to_pandas()
