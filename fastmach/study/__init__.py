"""Studies: a TOML file -> a validated grid of cells (``definition``), planned into tasks
(``plan``), played by workers on a backend (``worker``, ``backends``, ``driver``) into a
checked store (``store``) and read back by the one reader (``results``)."""
from fastmach.study.definition import (DEFAULT_CHUNK, PRECISION_KEYS, Cell, Study, _KeyError,
                                       rotations_of, seating, split_lineup)

__all__ = ["Study", "Cell", "DEFAULT_CHUNK", "PRECISION_KEYS", "seating", "rotations_of",
           "split_lineup", "_KeyError"]
