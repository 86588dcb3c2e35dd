"""Arrow arrays from NumPy columns and Python strings, built from their buffers.

``pyarrow.array`` asks pandas, importing it, whether its argument is a pandas object
(half a second of a worker's or a command's start-up); these build the same arrays from
the values' bytes and never touch pandas.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["plain_array", "string_array", "constant_array"]


def _bits(mask: np.ndarray):
    """Arrow's bitmap of a boolean mask: one bit each, least significant first."""
    import pyarrow as pa

    return pa.py_buffer(np.packbits(mask, bitorder="little"))


def plain_array(arr: np.ndarray, nan_is_null: bool = False):
    """A 1-D bool, integer or float array as an arrow array of its dtype (``pyarrow.array``
    of it); ``nan_is_null``: NaN as a missing value (as pandas stores a float column)."""
    import pyarrow as pa

    valid = None
    if arr.dtype.kind == "b":
        data, typ = _bits(arr), pa.bool_()
    else:
        data, typ = pa.py_buffer(np.ascontiguousarray(arr)), pa.from_numpy_dtype(arr.dtype)
        if nan_is_null and arr.dtype.kind == "f" and np.isnan(arr).any():
            valid = _bits(~np.isnan(arr))
    return pa.Array.from_buffers(typ, len(arr), [valid, data])


def string_array(values: Sequence[str | None], large: bool = False):
    """Python strings (None: missing) as an arrow string (``large``: large_string) array."""
    import pyarrow as pa

    encoded = {v: v.encode("utf8") for v in set(values) if v is not None}
    chunks = [b"" if v is None else encoded[v] for v in values]
    offsets = np.zeros(len(values) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum([len(c) for c in chunks], out=offsets[1:])
    missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    valid = _bits(~missing) if missing.any() else None
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(values),
                                 [valid, pa.py_buffer(offsets), pa.py_buffer(b"".join(chunks))])


def constant_array(value: Any, n: int, typ):
    """``n`` copies of one value as an arrow array of type ``typ`` (bool, int64, float64 or
    string; None: missing), as ``pyarrow.array([value] * n, type=typ)``."""
    import pyarrow as pa

    if value is None:
        return pa.nulls(n, type=typ)
    if typ == pa.string():
        return string_array([value] * n)
    dtype = {pa.bool_(): np.bool_, pa.int64(): np.int64, pa.float64(): np.float64}[typ]
    return plain_array(np.full(n, value, dtype=dtype))
