"""Game logs of a study: the first ``log_games`` games of every cell and rotation."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from fastmach.study import Study
from fastmach.study.plan import LOGS
from fastmach.study.store import load_json
from fastmach.study.worker import default_engine

__all__ = ["log_path", "write_logs"]


def log_path(study: Study, out: str | Path, cell: int, rotation: int) -> Path:
    """The log of a cell's first ``log_games`` games under ``rotation``."""
    return Path(out) / LOGS / f"{study.cells[cell].hash}-{rotation}.jsonl"


def _logged_games(path: Path) -> int | None:
    """The games a study log holds (its closing record's count), None if none or unreadable."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            last = f.read().splitlines()[-1]
        rec = load_json(last.decode("utf-8"))
    except (OSError, ValueError, IndexError):
        return None
    return rec.get("games") if isinstance(rec, dict) and rec.get("type") == "close" else None


def write_logs(study: Study, out: str | Path) -> list[Path]:
    """Log the first ``study.log_games`` games of every cell and rotation (same seeds as the
    chunks; written from the engine's record of the games) unless their log is already
    there with that many games (a changed ``log_games`` writes it again)."""
    n = min(study.log_games, study.games)
    paths = []
    for cell in study.cells:
        for rot in cell.rotations:
            path = log_path(study, out, cell.index, rot)
            if _logged_games(path) != n:  # none yet, or log_games changed: write it
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name("." + path.name)
                tmp.unlink(missing_ok=True)
                default_engine()(cell.rules, cell.seats(rot), study.seed, np.arange(n), log=tmp)
                os.replace(tmp, path)
            paths.append(path)
    return paths
