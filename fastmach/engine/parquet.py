"""Rows as columns to a parquet file without pandas: the bytes that
``pandas.DataFrame(columns).to_parquet(path, index=False)`` writes, pandas metadata included.

pandas costs about half a second to import, more than the ``play`` command's other
start-up together. pyarrow writes the file; the schema's ``pandas`` metadata (what
``pandas.read_parquet`` reads back: the dtypes) is built here as pyarrow builds it from a
frame. That metadata depends on pandas' major version (3: ``str`` columns, stored as large
strings), read from the installed distribution; under another major version, or a column
this module does not know how pandas would store, the frame is written by pandas itself.
The tests compare the two writers byte for byte.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Mapping

from fastmach.engine.arrow import plain_array, string_array
from fastmach.engine.columns import column, length

__all__ = ["write_parquet", "write_with_pyarrow", "write_table"]

#: numpy dtypes that pandas stores as they are
_PLAIN = frozenset(("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64"))


def _pandas_version() -> str | None:
    """The installed pandas' version, without importing it (None if it is not installed):
    the ``Version`` of the one ``pandas-*.dist-info`` beside the package pandas imports
    from, else what ``importlib.metadata`` says (which costs about 10 ms of imports)."""
    from importlib.util import find_spec

    spec = find_spec("pandas")
    if spec is None or spec.origin is None:
        return None
    infos = list(Path(spec.origin).parent.parent.glob("pandas-*.dist-info"))
    if len(infos) == 1:
        try:
            with open(infos[0] / "METADATA", encoding="utf8") as f:
                for line in f:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break   # (the headers end at the first empty line)
        except OSError:
            pass
    from importlib import metadata

    try:
        return metadata.version("pandas")
    except metadata.PackageNotFoundError:  # pragma: no cover - pandas is a dependency
        return None


def _arrays(cols: Mapping[str, object]):
    """``[(name, arrow array, pandas type, numpy type)]``, or None where pandas must write."""
    n = length(cols)
    out = []
    for name, value in cols.items():
        arr = column(cols, name, n)
        if arr.ndim != 1 or len(arr) != n:
            return None
        if arr.dtype.name in _PLAIN:
            out.append((name, plain_array(arr, nan_is_null=True), arr.dtype.name, arr.dtype.name))
        elif arr.dtype == object and n and all(type(x) is str for x in arr.tolist()):
            out.append((name, string_array(arr.tolist(), large=True), "object", "str"))
        else:  # an empty or mixed object column: pandas infers its dtype
            return None
    return out


def _metadata(arrays, pandas_version: str) -> bytes:
    import pyarrow as pa

    return json.dumps({
        "index_columns": [],
        "column_indexes": [],
        "columns": [{"name": name, "field_name": name, "pandas_type": ptype,
                     "numpy_type": ntype, "metadata": None}
                    for name, _, ptype, ntype in arrays],
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": pandas_version,
    }).encode("utf8")


def write_parquet(cols: Mapping[str, object], path: str | Path) -> None:
    """Write the rows ``cols`` (:data:`fastmach.engine.columns.Columns`) to ``path`` as
    ``pandas.DataFrame(cols).to_parquet(path, index=False)`` would."""
    version = _pandas_version() if "pandas" not in sys.modules else None
    if version is None or not write_with_pyarrow(cols, path, version):
        import pandas as pd  # loaded already, or it knows better

        pd.DataFrame(dict(cols)).to_parquet(path, index=False)


def write_with_pyarrow(cols: Mapping[str, object], path: str | Path, pandas_version: str) -> bool:
    """Write ``cols`` as pandas ``pandas_version`` would, by pyarrow alone; False (nothing
    written) where this module does not know how that pandas stores them."""
    arrays = _arrays(cols) if pandas_version.split(".")[0] == "3" else None
    if arrays is None:
        return False
    import pyarrow as pa

    schema = pa.schema([pa.field(name, a.type) for name, a, _, _ in arrays],
                       metadata={b"pandas": _metadata(arrays, pandas_version)})
    table = pa.Table.from_arrays([a for _, a, _, _ in arrays], schema=schema)
    if not write_table(table, path):
        import pyarrow.parquet as pq

        pq.write_table(table, str(path), compression="snappy")
    return True


#: the settings ``pyarrow.parquet.write_table(table, path, compression="snappy")`` hands
#: pyarrow's writer (its defaults, pyarrow 14 on)
_WRITER_SETTINGS = dict(
    version="2.6", compression="snappy", use_dictionary=True, write_statistics=True,
    use_deprecated_int96_timestamps=False, coerce_timestamps=None, data_page_size=None,
    allow_truncated_timestamps=False, compression_level=None, use_byte_stream_split=False,
    column_encoding=None, writer_engine_version="V2", data_page_version="1.0",
    use_compliant_nested_type=True, encryption_properties=None, write_batch_size=None,
    dictionary_pagesize_limit=None, store_schema=True, write_page_index=False,
    write_page_checksum=False, sorting_columns=None)


def write_table(table, path: str | Path) -> bool:
    """``pyarrow.parquet.write_table(table, path, compression="snappy")``'s bytes through
    pyarrow's compiled writer (``pyarrow._parquet``) and a plain file: ``pyarrow.parquet``
    loads pyarrow's file systems, ``ssl`` among them (about 0.03 s of a ``fastmach play``'s
    CPU). False, nothing written, where this pyarrow's writer takes other settings; the
    tests compare the bytes with ``write_table``'s."""
    try:
        from pyarrow._parquet import ParquetWriter
    except ImportError:   # pragma: no cover - a pyarrow without it: write_table
        return False
    import pyarrow as pa

    sink = pa.OSFile(str(path), "wb")
    try:
        try:
            writer = ParquetWriter(sink, table.schema, **_WRITER_SETTINGS)
        except TypeError:   # settings this pyarrow's writer does not take
            sink.close()
            Path(path).unlink(missing_ok=True)
            return False
        writer.write_table(table, row_group_size=None)
        writer.close()
    except BaseException:
        sink.close()
        Path(path).unlink(missing_ok=True)   # (as write_table: no half-written file)
        raise
    sink.close()
    return True
