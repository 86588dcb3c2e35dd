"""Studies: a TOML file -> a validated grid of cells (``definition``), planned into tasks
(``plan``), played by workers on a backend (``worker``, ``backends``, ``driver``) into a
checked store (``store``) and read back by the one reader (``results``).

A study (:class:`fastmach.study.Study`) is cut into chunks: one cell, one rotation, a range
of replicates (``chunk`` games, 200 by default). A chunk is one task and one parquet file::

    DIR/_study.json                                   manifest (study text, version, times,
                                                      each chunk's file sizes and SHA-256)
    DIR/_checksums.jsonl                              the same records while a run goes on
    DIR/chunks/<cell-hash>-<start>-<stop>-<rot>.parquet   one tidy row per game
    DIR/_hands/<cell-hash>-<start>-<stop>-<rot>.parquet   one tidy row per hand played
    DIR/_logs/<cell-hash>-<rot>.jsonl                  with ``log_games = N``: the first N
                                                      games of the cell as a game log

Files are written atomically (hidden temporary file, then rename) as chunks finish, the
hand file first, so ``pandas.read_parquet(DIR)`` reads every finished game and nothing
else (the leading underscore hides ``_hands``), :func:`read_hands` the hand rows, and
re-running the same study on DIR plays only the missing chunks: a chunk whose files (game
rows and hand rows) do not match their recorded size and checksum (or that has no record)
is played again (see :mod:`fastmach.study.store`). The plan is a generator: memory does not grow
with the number of games, and a study beyond :data:`MAX_CHUNKS` chunks or
:data:`MAX_GAMES` games is refused. The worker builds and serialises the
tidy table; the driver only writes bytes, so remote Dask workers need no shared disk.

Every game is a pure function of (rules, seats, root seed, replicate), so the table is the
same whatever the backend, the worker count or the interruptions; :func:`read_results`
sorts it by cell (study order), replicate and rotation.

Backends: ``workers=0`` in this process; ``workers=N`` (default: all cores) local worker
processes (``concurrent.futures.ProcessPoolExecutor``, spawn); ``scheduler="tcp://host:8786"``
an existing Dask cluster; ``scheduler="local"`` a ``distributed.LocalCluster`` with
``workers`` single-threaded worker processes.
"""
from fastmach.study.definition import (DEFAULT_CHUNK, PRECISION_KEYS, Cell, Study, _KeyError,
                                       rotations_of, seating, split_lineup)

__all__ = ["Study", "Cell", "DEFAULT_CHUNK", "PRECISION_KEYS", "seating", "rotations_of",
           "split_lineup", "_KeyError"]
