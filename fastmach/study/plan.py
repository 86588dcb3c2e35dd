"""The plan of a study: its chunks (cell, replicate range, rotation), their file names, the
limits on a study's size, and the layout of a result directory."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from fastmach.errors import FastmachError
from fastmach.study import Study

__all__ = ["Chunk", "SweepError", "MANIFEST", "CHUNKS", "HANDS", "LOGS", "MAX_CHUNKS", "MAX_GAMES",
           "MAX_CHUNK", "check_size", "iter_plan", "plan", "chunk_name", "parse_chunk_name",
           "describe"]

MANIFEST = "_study.json"
CHUNKS = "chunks"
HANDS = "_hands"
LOGS = "_logs"
_CHUNK_RE = re.compile(r"([0-9a-f]{12})-(\d+)-(\d+)-(\d+)\.parquet")

#: Most chunks a study may have (each has a record in the manifest; raise ``chunk``).
MAX_CHUNKS = 250_000
#: Most games a study may play (10**10 games: months of a 2-core machine).
MAX_GAMES = 10**10
#: Most games in one chunk (a chunk's table is built in a worker's memory).
MAX_CHUNK = 100_000


class SweepError(RuntimeError):
    """Chunks that kept failing after their retries (the message names cell and seed)."""


# ----------------------------------------------------------------------------- planning

@dataclass(frozen=True, order=True)
class Chunk:
    """A task: cell ``cell`` (index), replicates ``start .. stop-1``, seat rotation ``rotation``."""

    cell: int
    start: int
    stop: int
    rotation: int

    @property
    def games(self) -> int:
        return self.stop - self.start


def check_size(study: Study) -> int:
    """The study's number of chunks; FastmachError when the study is too large to run."""
    per_deal = sum(len(c.rotations) for c in study.cells)
    chunks = -(-study.games // study.chunk) * per_deal
    total = study.games * per_deal
    if total > MAX_GAMES:
        raise FastmachError(
            f"study {study.name!r}: {total:.3g} games (games={study.games} x {per_deal} "
            f"cell rotations) is beyond the {MAX_GAMES:.0e} a study may play; lower [study] "
            f"games")
    if study.chunk > MAX_CHUNK:
        raise FastmachError(f"study {study.name!r}: chunk={study.chunk} games per chunk; at "
                            f"most {MAX_CHUNK}")
    if chunks > MAX_CHUNKS:
        need = -(-total // (MAX_CHUNKS))
        raise FastmachError(
            f"study {study.name!r}: {chunks} chunks of {study.chunk} games; at most "
            f"{MAX_CHUNKS} (each is a file with a record in the manifest): raise [study] "
            f"chunk to {max(need, study.chunk + 1)} or more")
    return chunks


def iter_plan(study: Study) -> Iterator[Chunk]:
    """Every chunk of the study, lazily, ordered so that every cell advances together."""
    check_size(study)
    for start in range(0, study.games, study.chunk):
        stop = min(start + study.chunk, study.games)
        for cell in study.cells:
            for rot in cell.rotations:
                yield Chunk(cell.index, start, stop, rot)


def plan(study: Study) -> list[Chunk]:
    """Every chunk of the study as a list (:func:`iter_plan` for large studies)."""
    return list(iter_plan(study))


def chunk_name(study: Study, c: Chunk) -> str:
    return f"{study.cells[c.cell].hash}-{c.start}-{c.stop}-{c.rotation}.parquet"


def parse_chunk_name(study: Study, name: str, cells: dict | None = None) -> Chunk | None:
    """The chunk of ``study`` a file name stands for, or None (not one of its chunks).

    ``cells``: ``{cell.hash: cell}`` when the caller parses many names.
    """
    m = _CHUNK_RE.fullmatch(name)
    if m is None:
        return None
    if cells is None:
        cells = {c.hash: c for c in study.cells}
    cell = cells.get(m.group(1))
    start, stop, rot = int(m.group(2)), int(m.group(3)), int(m.group(4))
    if (cell is None or start % study.chunk or not 0 <= start < study.games
            or stop != min(start + study.chunk, study.games) or rot not in cell.rotations):
        return None
    return Chunk(cell.index, start, stop, rot)


def describe(study: Study, c: Chunk) -> str:
    """Human name of a chunk: cell, root seed, replicates, rotation."""
    return (f"cell {study.cells[c.cell].key!r} (root seed {study.seed}, replicates "
            f"{c.start}..{c.stop - 1}, rotation {c.rotation})")
