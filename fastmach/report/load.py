"""Reading a study's stored results for a report: its game rows, hand rows and manifest.

The manifest is read by :func:`fastmach.study.results.read_manifest` (the one reader of a
result directory's manifest); the rows by :func:`fastmach.study.store.read_table`, every
file checked against the manifest's record.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from fastmach.errors import FastmachError
from fastmach.study.plan import HANDS

__all__ = ["load_results", "HANDS", "NEEDED"]

#: Columns a report needs in the game rows.
NEEDED = ("cell", "rules", "preset", "players", "lineup", "replicate", "first_player",
          "winner", "end", "turns", "rounds", "stock_exhausted")


def load_results(results_dir: Path | str, *, ignore_foreign: bool = False
                 ) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Read a study's game rows, hand rows and manifest; FastmachError if anything is missing.

    Every chunk file is checked against the manifest's sizes and checksums; a bad chunk, or
    one the manifest does not record, is an error naming the file (``ignore_foreign``:
    leave out the unrecorded ones instead). See :func:`fastmach.study.store.read_table`.
    """
    from fastmach.study import Study
    from fastmach.study.plan import CHUNKS
    from fastmach.study.results import check_unrecorded, read_manifest
    from fastmach.study.store import read_table

    d = Path(results_dir)
    if d.exists() and not d.is_dir():
        raise FastmachError(f"results directory {str(d)!r} is a file; give the directory "
                            f"written by `fastmach sweep --out`")
    if not d.is_dir():
        raise FastmachError(f"results directory {str(d)!r} does not exist")
    game_files = [p for p in d.rglob("*.parquet") if HANDS not in p.relative_to(d).parts]
    if not game_files:
        raise FastmachError(f"results directory {str(d)!r} holds no parquet file "
                            "(run `fastmach sweep` first)")
    manifest = read_manifest(d, need_study=False)
    df = read_table(d, manifest, ignore_foreign=ignore_foreign)  # names a bad file
    study = Study.from_toml(manifest["study"]) if manifest.get("study") else None
    if study is not None:   # (no chunk records: the rows' seed; files named freely)
        check_unrecorded(d, manifest, df, study, CHUNKS, names=False)
    if df.empty:
        raise FastmachError(f"results directory {str(d)!r} holds no game")
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        raise FastmachError(f"results in {str(d)!r} lack column(s) {', '.join(missing)}")
    if not any((d / HANDS).glob("*.parquet")):
        raise FastmachError(f"results in {str(d)!r} hold no hand rows ({HANDS}/): they were "
                            "made by an older fastmach; run the sweep again")
    hands = read_table(d, manifest, ignore_foreign=ignore_foreign, subdir=HANDS)
    if study is not None:
        check_unrecorded(d, manifest, hands, study, HANDS, names=False)
    return df, hands, manifest
