"""A study's result directory: the :class:`Store` a sweep writes (manifest, one file per
finished chunk, a lock), and the readers of its rows, verified (:mod:`fastmach.study.store`)."""
from __future__ import annotations

import datetime as _dt
import difflib
import json
import warnings
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from fastmach.errors import FastmachError
from fastmach.outputs import as_path, is_temporary, write_bytes_atomic
from fastmach.study import Study
from fastmach.study import store as integrity
from fastmach.study.plan import CHUNKS, HANDS, MANIFEST, Chunk, check_size, chunk_name, \
    parse_chunk_name
from fastmach.study.worker import _version

__all__ = ["Store", "read_results", "read_hands", "read_manifest", "check_unrecorded",
           "refuse_results_dir"]


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _lock(root: Path):
    """Hold DIR/.lock exclusively while a sweep writes DIR (one sweep per directory)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return None
    f = open(root / ".lock", "a+")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise FastmachError(f"out={str(root)!r}: another sweep is writing this directory "
                            f"(wait for it, or stop it and resume)") from None
    return f


class Store:
    """A study's result directory: manifest plus one parquet file per finished chunk.

    Every finished chunk has a record of its files' sizes and checksums
    (:mod:`fastmach.study.store`); on opening, a chunk whose files do not match it, or that has
    none, is removed (and so played again).
    """

    def __init__(self, root: str | Path, study: Study, command: str | None = None):
        from fastmach.outputs import probe_dir

        self.root = as_path(root, "out=", "a result directory")
        self.study = study
        self.dir = self.root / CHUNKS
        check_size(study)
        self.hands_dir = self.root / HANDS
        text = study.to_toml()
        mpath = self.root / MANIFEST
        if mpath.exists():
            try:
                manifest = integrity.load_json(mpath.read_bytes().decode("utf-8"))
            except (OSError, ValueError) as e:
                raise FastmachError(f"{mpath}: unreadable manifest ({e})") from None
            if not isinstance(manifest, dict):
                raise FastmachError(f"{mpath}: the manifest is not a JSON object: not a "
                                    f"fastmach study directory")
            for key, typ, kind in (("runs", list, "a list"), ("chunks", dict, "an object"),
                                   ("study", str, "text")):
                if key in manifest and not isinstance(manifest[key], typ):
                    raise FastmachError(f"{mpath}: unreadable manifest (its {key!r} is not "
                                        f"{kind}): repair it or use another directory")
            if manifest.get("fastmach_version") != _version():
                warnings.warn(f"{mpath}: the study was started with fastmach "
                              f"{manifest.get('fastmach_version')}, this is {_version()}; "
                              f"resumed chunks may differ if the engine changed", stacklevel=3)
            if manifest.get("study") != text and not _grown(manifest.get("study"), study):
                diff = "\n".join(list(difflib.unified_diff(
                    str(manifest.get("study", "")).splitlines(), text.splitlines(),
                    "in " + str(mpath), "requested", lineterm="", n=0))[2:12])
                raise FastmachError(
                    f"out={str(self.root)!r} holds a different study "
                    f"({manifest.get('name')!r}); use another directory or the same study "
                    f"file and --games:\n{diff}")
        elif self.root.is_dir() and any(not _own_leftover(p) for p in self.root.iterdir()):
            raise FastmachError(f"out={str(self.root)!r} is not empty and holds no "
                                f"{MANIFEST}: not a fastmach study directory")
        else:
            manifest = {"name": study.name, "seed": study.seed, "study": text,
                        "fastmach_version": _version(), "started": _now(), "finished": None,
                        "command": None, "runs": [], "chunks": {}}
        manifest["study"] = text  # a grown study (precision) records its new size
        probe_dir(self.root, "out=")
        self.manifest = manifest
        self.dir.mkdir(parents=True, exist_ok=True)
        self.hands_dir.mkdir(exist_ok=True)
        self._lock = _lock(self.root)
        manifest["command"] = command or manifest.get("command")
        manifest["finished"] = None
        manifest.setdefault("runs", []).append(
            {"started": _now(), "finished": None, "command": command,
             "fastmach_version": _version()})
        self.put_games = 0  # games stored by this run
        try:
            self._save_manifest()
            self.existing = self._scan()
        except BaseException:
            self._lock.close() if self._lock is not None else None
            raise

    def _scan(self) -> set[str]:
        """Finished chunks whose files (game rows and hand rows) match their records (stale
        temporary files, and chunks with a missing, altered or unrecorded file, are removed;
        foreign files refused)."""
        import pyarrow.parquet as pq
        records = integrity.load_records(self.root, self.manifest)
        legacy = records is None
        records = records or {}
        cells = {c.hash: c for c in self.study.cells}
        hands = set()
        for p in self.hands_dir.iterdir():
            _not_a_directory(p)
            if p.name.startswith("."):
                p.unlink(missing_ok=True)
            elif parse_chunk_name(self.study, p.name, cells) is None:
                raise FastmachError(f"{p}: not a chunk of study {self.study.name!r}; "
                                    f"remove it or use another directory")
            else:
                hands.add(p.name)
        found = set()
        self.games_done = 0
        for p in sorted(self.dir.iterdir()):
            _not_a_directory(p)
            if p.name.startswith("."):
                p.unlink(missing_ok=True)  # a temporary file of an interrupted run
                continue
            c = parse_chunk_name(self.study, p.name, cells)
            if c is None:
                raise FastmachError(f"{p}: not a chunk of study {self.study.name!r}; "
                                    f"remove it or use another directory")
            rec = records.get(p.name)
            if legacy:  # written before checksums: trusted only if both files read whole
                try:
                    rows = pq.read_table(p)
                    ok = (p.name in hands and rows.num_rows == c.games
                          and pq.read_table(self.hands_dir / p.name).num_rows > 0)
                except Exception:
                    ok = False
                if ok and _foreign_seed(rows.to_pandas(), self.study):
                    raise FastmachError(
                        f"{p}: a chunk of another study (root seed "
                        f"{_foreign_seed(rows.to_pandas(), self.study)}, this study's is "
                        f"{self.study.seed}), and {MANIFEST} records no chunks to tell; use "
                        f"another directory")
                rec = {f"{CHUNKS}/{p.name}": integrity.file_record(p),
                       f"{HANDS}/{p.name}": integrity.file_record(self.hands_dir / p.name)} \
                    if ok else None
            if rec is not None and {f"{CHUNKS}/{p.name}", f"{HANDS}/{p.name}"} <= set(rec) and \
                    integrity.check_record(self.root, rec) is None:
                found.add(p.name)
                records[p.name] = rec
                self.games_done += c.games
            else:  # replayed: remove every file of the chunk
                for rel in (rec or {}):
                    (self.root / rel).unlink(missing_ok=True)
                p.unlink(missing_ok=True)
                records.pop(p.name, None)
        for name in hands - found:  # a hand file without its game file
            (self.hands_dir / name).unlink(missing_ok=True)
        self.manifest["chunks"] = {k: records[k] for k in sorted(found)}
        self._save_manifest()
        (self.root / integrity.JOURNAL).unlink(missing_ok=True)
        return found

    def done(self, c: Chunk) -> bool:
        return chunk_name(self.study, c) in self.existing

    def put(self, c: Chunk, data: tuple[bytes, bytes]) -> None:
        """Store a chunk's (game rows, hand rows) parquet bytes, the hand rows first."""
        name = chunk_name(self.study, c)
        games, hands = data
        self.put_files(c, {f"{HANDS}/{name}": hands, f"{CHUNKS}/{name}": games})

    def put_files(self, c: Chunk, files: dict[str, bytes]) -> None:
        """Store every file of a finished chunk (paths relative to the result directory,
        in the order given), then its record: the chunk counts as done only when all are
        written."""
        name = chunk_name(self.study, c)
        record = {}
        for rel, data in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, data)
            record[rel] = integrity.bytes_record(data)
        integrity.append_record(self.root, name, record)
        self.manifest["chunks"][name] = record
        self.existing.add(name)
        self.put_games += c.games

    def _save_manifest(self) -> None:
        write_bytes_atomic(self.root / MANIFEST,
                      (json.dumps(self.manifest, indent=1) + "\n").encode())

    def close(self, finished: bool) -> None:
        self.manifest["runs"][-1]["finished"] = _now() if finished else None
        if finished:
            self.manifest["finished"] = _now()
        self._save_manifest()  # the records are in the manifest: the journal goes
        (self.root / integrity.JOURNAL).unlink(missing_ok=True)
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None


def _own_leftover(p: Path) -> bool:
    """What a sweep killed before its manifest can leave: the lock, a temporary file (the
    manifest's first atomic write among them), the probe of the directory
    (fastmach.outputs.probe_dir), its empty chunk directories."""
    name = p.name
    if name == ".lock" or name.startswith(".fastmach.probe-") or is_temporary(name) or (
            name.startswith(".") and name.endswith(".tmp")):
        return True
    return name in (CHUNKS, HANDS) and p.is_dir() and not any(p.iterdir())


def _not_a_directory(p: Path) -> None:
    """A directory where only chunk files belong is refused, naming it (nothing removed)."""
    if p.is_dir():
        raise FastmachError(f"{p}: a directory where a chunk file belongs; move it away (its "
                            f"chunk is then played again)")


def _grown(stored: Any, study: Study) -> bool:
    """True when ``study`` has a ``max_games`` (a precision, or a tune's race) and
    ``stored`` (a manifest's study text) is ``study`` with fewer deals ending on a chunk
    boundary: its chunks are then chunks of ``study`` (same seeds), so the result
    directory grows (:mod:`fastmach.study.precision`, :mod:`fastmach.tools.tune`)."""
    if study.max_games is None:
        return False
    try:
        old = Study.from_toml(str(stored))
    except FastmachError:
        return False
    return (old.games < study.games and old.games % study.chunk == 0
            and old.replace(games=study.games).to_toml() == study.to_toml())


def read_results(out: str | Path, study: Study | None = None, *,
                 cache: integrity.ReadCache | None = None):
    """The tidy table of a result directory, sorted by cell (study order), replicate, rotation.

    ``cache``: what this process verified and read of ``out`` before (a growing study's
    rounds); None verifies and reads every file."""
    return _read_rows(as_path(out, "out=", "a result directory"), study, CHUNKS,
                      ["replicate", "rotation"], cache)


def read_hands(out: str | Path, study: Study | None = None, *,
               cache: integrity.ReadCache | None = None):
    """The hand rows of a result directory (one per hand played, with the cell columns),
    sorted by cell (study order), replicate, rotation and hand; every file verified
    against its record, as :func:`read_results` does."""
    return _read_rows(as_path(out, "out=", "a result directory"), study, HANDS,
                      ["replicate", "rotation", "hand"], cache)


def _read_rows(root: Path, study: Study | None, subdir: str, keys: list[str],
               cache: integrity.ReadCache | None = None):
    """The rows of ``root/subdir``'s chunk files (verified, see :mod:`fastmach.study.store`),
    sorted by cell (study order), then ``keys``."""
    manifest = _manifest(root)
    if study is None:
        study = Study.from_toml(manifest["study"])
    if not any((root / subdir).glob("*.parquet")):
        raise FastmachError(f"{root}: no finished chunk yet")
    df = integrity.read_table(root, manifest, subdir=None if subdir == CHUNKS else subdir,
                              cache=cache)
    check_unrecorded(root, manifest, df, study, subdir)
    return _sorted(df, root, study, keys)


def refuse_results_dir(out: str | Path, command: str) -> None:
    """A command that lays out its own --out directory (``compare``, ``rate``) refuses a
    study's result directory: its files would be foreign chunks there, and the study's
    report would refuse them."""
    if (Path(out) / MANIFEST).is_file():
        raise FastmachError(f"out={str(out)!r} holds a study's results ({MANIFEST}): give "
                            f"`fastmach {command}` a directory of its own")


def check_unrecorded(root: Path, manifest: Mapping, df, study: Study, subdir: str, *,
                     names: bool = True) -> None:
    """Where the manifest records no chunks (results of an older fastmach, or written by
    hand: no checksum tells which files are the study's), what the files can say: each is
    named as a chunk of one of the study's cells (``names``: a sweep's own directory), and
    the rows hold the study's root seed. A FastmachError naming the first file or seed that
    is not."""
    if integrity.load_records(root, manifest) is not None:
        return
    cells = {c.hash: c for c in study.cells}
    for rel in integrity.data_files(root, None if subdir == CHUNKS else subdir) if names else ():
        if parse_chunk_name(study, Path(rel).name, cells) is None:
            raise FastmachError(f"{root / rel}: not a chunk of study {study.name!r} (and "
                                f"{MANIFEST} records no chunks)")
    seed = _foreign_seed(df, study)
    if seed is not None:
        raise FastmachError(f"{root}: rows of root seed {seed}, not study {study.name!r}'s "
                            f"{study.seed} ({MANIFEST} records no chunks to tell which "
                            f"files are its own)")


def _foreign_seed(df, study: Study):
    """A root seed in the rows that is not the study's, else None."""
    if "seed" not in df.columns:
        return None
    other = set(df["seed"].unique().tolist()) - {study.seed}
    return min(other) if other else None


def read_manifest(root: str | Path, *, need_study: bool = True) -> dict:
    """The study manifest of a result directory, or a FastmachError naming the file and
    what is wrong with it (missing, not UTF-8, not JSON, not an object; with
    ``need_study``, an object without the study's text)."""
    mpath = Path(root) / MANIFEST
    if not mpath.is_file():
        raise FastmachError(f"{mpath}: cannot read the study manifest (no such file: the "
                            f"result directory lacks {MANIFEST})")
    try:
        manifest = integrity.load_json(mpath.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as e:
        raise FastmachError(f"{mpath}: cannot read the study manifest (not UTF-8 text: "
                            f"{e})") from None
    except (OSError, ValueError) as e:
        raise FastmachError(f"{mpath}: cannot read the study manifest ({e})") from None
    if not isinstance(manifest, dict):
        raise FastmachError(f"{mpath}: the manifest is not a JSON object")
    if need_study and not isinstance(manifest.get("study"), str):
        raise FastmachError(f"{mpath}: the manifest is not a JSON object with the study")
    return manifest


_manifest = read_manifest


def _sorted(df, root: Path, study: Study, keys: list[str]):
    """Rows in study order of their cells, then by ``keys``."""
    order = {c.key: c.index for c in study.cells}
    key = df["cell"].map(order)
    if key.isna().any():
        raise FastmachError(f"{root}: rows of a cell that is not in study {study.name!r}")
    return (df.assign(_cell=key.astype(np.int64))
              .sort_values(["_cell", *keys], kind="mergesort")
              .drop(columns="_cell").reset_index(drop=True))
