"""Output files that are checked before the work and never left half-written.

- :func:`as_path`: a path argument that is no path (None, a bool, a descriptor) named.
- :func:`probe_file` / :func:`probe_dir`: before the first game, create the parent
  directory, then create, write and remove a probe file where the output will go; a path
  that cannot take the output raises a :class:`FastmachError` naming the option
  (:func:`probe_append`: the same for a file appended to, its directory not created).
- :func:`refuse_inputs`: an output that would replace one of the command's inputs (the same
  file by any name: ``..``, a symbolic or hard link), or another of its outputs, is refused
  before the work, naming both.
- :func:`atomic_path`: a temporary name beside the target, moved into place only when the
  block completes (removed otherwise), so a reader sees the old file or the new one whole;
  the temporaries a killed run of the same target left are removed (:func:`clear_stale`).
- :func:`atomic_dir`: the same for a directory of outputs (a report): built under a
  temporary name, put in place of the old one whole when complete.
- :func:`open_text`: text files read and written transparently gzip-compressed when the
  name ends in ``.gz``; a file that is not UTF-8 text raises a FastmachError naming it.
- :func:`read_lines`: a text file (plain or gzip) line by line, each line bounded by
  :data:`MAX_LINE` (memory flat in the file's size).
"""
from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import shutil
import stat
import tempfile
import zlib
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from fastmach.errors import FastmachError

__all__ = ["as_path", "expect_suffix", "probe_file", "probe_append", "probe_dir", "atomic_path",
           "atomic_dir", "write_bytes_atomic", "open_text", "read_text", "partial_name",
           "same_file", "refuse_inputs", "clear_stale", "read_lines", "MAX_LINE"]


def _named(what: str, p: Path) -> str:
    """``--out '/x'`` for a flag, ``out='/x'`` for a Python argument (``what`` ends in =)."""
    return f"{what}{str(p)!r}" if what.endswith("=") else f"{what} {str(p)!r}"


def _why(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _probe_in(directory: Path, what: str, target: Path, name: str) -> None:
    probe = directory / f".{name}.probe-{os.getpid()}"
    try:
        with open(probe, "wb") as f:
            f.write(b"fastmach probe\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise FastmachError(f"{_named(what, target)}: cannot write there ({_why(e)})") from None
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()


def _is_dir(p: Path) -> bool | None:
    """True for a directory, False for another file, None when nothing (or no valid name)."""
    try:
        return stat.S_ISDIR(os.stat(p).st_mode)
    except (OSError, ValueError):
        return None


def _make_dir(d: Path, what: str, target: Path) -> None:
    for parent in (d, *d.parents):
        if _is_dir(parent) is False:
            raise FastmachError(f"{_named(what, target)}: {str(parent)!r} is a file, not a "
                                f"directory")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FastmachError(f"{_named(what, target)}: cannot create the directory "
                            f"{str(d)!r} ({_why(e)})") from None
    if not d.is_dir():
        raise FastmachError(f"{_named(what, target)}: {str(d)!r} is not a directory")


def as_path(value: Any, what: str = "out=", kind: str = "a file path") -> Path:
    """``value`` as a Path when it is a str or os.PathLike (not None, a bool or a file
    descriptor, which Path refuses with a TypeError or open() takes as a descriptor)."""
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise FastmachError(f"{what}{value!r}: expected {kind}" if what.endswith("=")
                            else f"{what} {value!r}: expected {kind}")
    return Path(value)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file or directory: the same resolved path (``..`` and
    symbolic links followed), or, both existing, the same device and inode (a hard link)."""
    try:
        if Path(a).resolve() == Path(b).resolve():
            return True
    except (OSError, RuntimeError, ValueError):
        pass
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _holds(directory: Path, path: Path) -> bool:
    """Whether ``path`` lies inside ``directory`` (resolved; or ``directory`` itself)."""
    try:
        d = directory.resolve()
        return any(same_file(d, q) for q in (path, *path.resolve().parents))
    except (OSError, RuntimeError, ValueError):
        return False


def refuse_inputs(out: str | Path | None, what: str,
                  inputs: Iterable[tuple[str, str | Path | None]], *,
                  directory: bool = False) -> None:
    """Refuse, before the work, an output that would replace an input: ``out`` (named
    ``what``: ``"--out"``, ``"out="``) is one of ``inputs`` (``(name, path)``: ``"the log"``,
    ``"--hands"``; None or ``"-"`` skipped) by any name (:func:`same_file`); with
    ``directory`` (an output directory replaced whole) also one that holds an input or lies
    inside an input directory. A FastmachError naming both."""
    if out is None or str(out) == "-":
        return
    o = Path(out)
    for name, path in inputs:
        if path is None or str(path) == "-":
            continue
        q = Path(path)
        if directory and (_holds(q, o) or _holds(o, q)):
            where = "is inside" if _holds(q, o) else "holds"
            raise FastmachError(f"{_named(what, o)} {where} {name} {str(q)!r}: the output "
                                f"directory is replaced whole; write it elsewhere")
        if same_file(o, q):
            raise FastmachError(f"{_named(what, o)} is {name} {str(q)!r}: writing it would "
                                f"destroy it; write the output elsewhere")


def expect_suffix(path: str | Path, what: str, *endings: str) -> Path:
    """``path`` if its name ends with one of ``endings`` (``".parquet"``, ``".jsonl.gz"``),
    else a FastmachError naming the option and what it expects: an output is written only
    under a name of its own format (never over a file of another kind, a bot's source)."""
    p = Path(path)
    if not p.name.endswith(endings) or p.name in endings:
        expected = " or ".join(endings)
        raise FastmachError(f"{_named(what, p)}: expected a {expected} file")
    return p


def probe_file(path: str | Path, what: str = "out=") -> Path:
    """Check that ``path`` can be written as a file (its directory is created); return it."""
    p = Path(path)
    if _is_dir(p):
        raise FastmachError(f"{_named(what, p)} is a directory; expected a file name")
    _make_dir(p.parent, what, p)
    _probe_in(p.parent, what, p, p.name)
    return p


def probe_append(path: str | Path, what: str = "log=") -> Path:
    """Check that ``path`` can be appended to: a file (not a directory) in a directory that
    exists, opened for appending if it exists, else a probe file written beside it."""
    p = Path(path)
    if _is_dir(p):
        raise FastmachError(f"{_named(what, p)} is a directory; expected a file name")
    if not p.parent.is_dir():
        raise FastmachError(f"{_named(what, p)}: its directory {str(p.parent)!r} does not exist")
    if p.exists():
        try:
            open(p, "ab").close()
        except OSError as e:
            raise FastmachError(f"{_named(what, p)}: cannot write there ({_why(e)})") from None
    else:
        _probe_in(p.parent, what, p, p.name)
    return p


def probe_dir(path: str | Path, what: str = "out=") -> Path:
    """Check that ``path`` is (or can be created as) a directory that takes files."""
    p = Path(path)
    if _is_dir(p) is False:
        raise FastmachError(f"{_named(what, p)} is a file; expected a directory")
    _make_dir(p, what, p)
    _probe_in(p, what, p, "fastmach")
    return p


def partial_name(path: str | Path) -> Path:
    """The name an unfinished output carries: ``NAME.partial`` beside ``NAME``."""
    p = Path(path)
    return p.with_name(f"{p.name}.partial")


def temporary_name(path: Path) -> Path:
    """The temporary file :func:`atomic_path` writes beside ``path`` (this process's)."""
    return path.with_name(f"{TEMP_PREFIX}{os.getpid()}-{path.name}")  # keeps the ending (.gz)


def is_temporary(name: str) -> bool:
    """Whether a file name is one of :func:`atomic_path`'s temporary files (any process's):
    what a write killed before its replace leaves."""
    return name.startswith(TEMP_PREFIX)


#: the start of :func:`atomic_path`'s temporary names
TEMP_PREFIX = ".tmp"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` may still be running (this one, or one that exists on this
    machine; a process of another user counts as running)."""
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, ValueError):
        return False   # (no process has that number)
    except OSError:
        return True
    return True


def clear_stale(path: str | Path, *, directory: bool = False) -> list[Path]:
    """Remove the temporaries of ``path`` that a killed write left beside it (``kill -9``
    gives no chance to clean up): :func:`atomic_path`'s files ``.tmpPID-NAME`` or, with
    ``directory``, :func:`atomic_dir`'s directories ``.tmpPID-XXXXXXXX-NAME`` (and
    ``.tmpPID-old-XXXXXXXX-NAME``), whose process PID no longer runs. Another target's
    temporaries, and those of a running process, are left. Returns what was removed."""
    p = Path(path)
    pid = re.escape(TEMP_PREFIX) + r"(\d+)-"
    name = re.compile(pid + (r"(?:old-)?[a-z0-9_]{8}-" if directory else "")
                      + re.escape(p.name))
    removed: list[Path] = []
    try:
        entries = list(os.scandir(p.parent))
    except OSError:
        return removed
    for e in entries:
        m = name.fullmatch(e.name)
        if m is None or _alive(int(m.group(1))):
            continue
        try:
            if directory and e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path)
            elif not directory and e.is_file(follow_symlinks=False):
                os.unlink(e.path)
            else:
                continue
        except OSError:
            continue   # (gone meanwhile, or not ours to remove: left as it is)
        removed.append(Path(e.path))
    return removed


@contextlib.contextmanager
def atomic_path(path: str | Path, *, keep_partial: bool = False) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``.

    On an exception (Ctrl-C included) the temporary file is removed, or with
    ``keep_partial`` left under :func:`partial_name` so that its name says it is partial.
    """
    p = Path(path)
    clear_stale(p)   # a killed run's temporary of the same target
    tmp = temporary_name(p)
    written = False
    try:
        yield tmp
        if tmp.exists():
            os.replace(tmp, p)
            written = True
    except BaseException as e:
        if keep_partial and tmp.exists():
            with contextlib.suppress(OSError):
                os.replace(tmp, partial_name(p))
        else:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if isinstance(e, OSError) and e.filename is None and e.errno is not None:
            raise OSError(e.errno, e.strerror, str(p)) from e  # name the file (a full disk)
        raise
    if written:
        stale = partial_name(p)
        with contextlib.suppress(OSError):
            stale.unlink()


@contextlib.contextmanager
def atomic_dir(path: str | Path, own: frozenset[str], what: str = "out=") -> Iterator[Path]:
    """Yield an empty directory beside ``path`` to build the outputs in; when the block
    completes it takes the place of ``path`` (the directory there before, which may hold
    only entries named in ``own``, is removed); on an exception it is removed and
    ``path`` stays as it was. A ``path`` holding anything else is refused before the work
    (the outputs replace the whole directory)."""
    p = Path(path)
    if p.is_dir():
        foreign = sorted(e.name for e in p.iterdir() if e.name not in own)
        if foreign:
            shown = ", ".join(foreign[:4]) + (", ..." if len(foreign) > 4 else "")
            raise FastmachError(
                f"{_named(what, p)} holds {shown}, which it did not write: the outputs "
                f"replace the whole directory; use a new one, or one holding only "
                f"{', '.join(sorted(own))}")
    elif p.exists():
        raise FastmachError(f"{_named(what, p)} is a file; expected a directory")
    p.parent.mkdir(parents=True, exist_ok=True)
    clear_stale(p, directory=True)   # a killed run's directories of the same target
    stage = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=f"-{p.name}",
                                  dir=p.parent))
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(stage, 0o777 & ~mask)   # (mkdtemp's is 0o700: as a directory made plainly)
    try:
        yield stage
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    old = None
    if p.exists():
        old = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-old-",
                                    suffix=f"-{p.name}", dir=p.parent))
        os.replace(p, old / p.name)
    os.replace(stage, p)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file, flush it to disk, then rename it to ``path``."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())


def open_text(path: str | Path, mode: str = "r") -> IO[str]:
    """Open a UTF-8 text file; ``mode`` ``"r"``, ``"w"`` or ``"a"``. Written gzip-compressed
    when the name ends in ``.gz``; read compressed when the file starts with gzip's magic
    bytes (whatever its name, so ``NAME.gz.partial`` reads too).
    """
    if mode == "r":
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
    else:
        gz = str(path).endswith(".gz")
    if gz and mode == "r":
        return gzip.open(path, "rt", encoding="utf-8")
    if gz:   # (no name and no time in the header: the same content gives the same bytes)
        raw = open(path, mode + "b")
        return io.TextIOWrapper(_OwningGzip(raw), encoding="utf-8")
    return open(path, mode, encoding="utf-8")


class _OwningGzip(gzip.GzipFile):
    """A gzip stream writing into ``raw`` with an empty name and time 0 in its header,
    closing ``raw`` when closed."""

    def __init__(self, raw: IO[bytes]):
        super().__init__(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0)
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


#: the longest line (bytes) :func:`read_lines` takes: a log's longest lines (a header, a
#: turn's whole table) are a few KB; a longer one is no log line, refused before it fills
#: memory
MAX_LINE = 4 << 20


def read_lines(path: str | Path, what: str, *, offset: int = 0,
               first: int = 1) -> Iterator[tuple[int, int, str]]:
    """``(number, offset, text)`` of each line of a UTF-8 text file (``.gz`` decompressed,
    as :func:`open_text` reads it; the text without its line end), one line at a time, each
    read in at most :data:`MAX_LINE` bytes and its end (memory flat in the file's size), from byte
    ``offset`` of its text (line number ``first``) on. A line longer than ``MAX_LINE``
    bytes, or not UTF-8, a damaged gzip stream or a file that cannot be read is a
    FastmachError naming the file (and the line)."""
    p = Path(path)
    no, at = first, offset
    with _reading(p, what, no):
        with open(p, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
        f: IO[bytes] = gzip.open(p, "rb") if gz else open(p, "rb")  # type: ignore[assignment]
    with f:
        with _reading(p, what, no):
            if offset:
                f.seek(offset)
        while True:
            with _reading(p, what, no):
                data = f.readline(MAX_LINE + 2)   # (the line, its \r\n, one byte more)
                body = data[:-1] if data.endswith(b"\n") else data
                body = body[:-1] if body.endswith(b"\r") else body
                if len(body) > MAX_LINE:
                    raise FastmachError(
                        f"{p.name} line {no}: longer than {MAX_LINE:,} bytes (MAX_LINE, the "
                        f"longest line read; a log's lines are a few KB): not a log line")
                text = body.decode("utf-8")
            if not data:
                return
            yield no, at, text
            no, at = no + 1, at + len(data)


@contextlib.contextmanager
def _reading(p: Path, what: str, no: int) -> Iterator[None]:
    """Errors of reading line ``no`` of ``p`` as FastmachErrors naming it."""
    try:
        yield
    except UnicodeDecodeError as e:
        raise FastmachError(f"{_named(what, p)} is not UTF-8 text (line {no}, byte "
                            f"{e.start}: {e.reason})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise FastmachError(f"{_named(what, p)}: damaged gzip data ({e})") from None
    except OSError as e:
        raise FastmachError(f"cannot read {what} {str(p)!r}: {_why(e)}") from None


def read_text(path: str | Path, what: str) -> str:
    """The whole text of a UTF-8 file (``.gz`` decompressed); FastmachError naming it."""
    p = Path(path)
    try:
        with open_text(p) as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise FastmachError(f"{_named(what, p)} is not UTF-8 text (byte {e.start}: "
                            f"{e.reason})") from None
    except (gzip.BadGzipFile, EOFError) as e:
        raise FastmachError(f"{_named(what, p)}: damaged gzip data ({e})") from None
    except OSError as e:
        raise FastmachError(f"cannot read {what} {str(p)!r}: {_why(e)}") from None
