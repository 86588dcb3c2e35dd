"""Fail loudly when the compiled core is missing (as scikit-learn's ``__check_build``)."""
from __future__ import annotations

REBUILD = "pip install -e . (or: python setup.py build_ext --inplace)"


def raise_build_error(err: ImportError) -> None:
    raise ImportError(
        f"fastmach's compiled core is missing or stale ({err}).\n"
        f"It is built from the .pyx sources when the package is installed; rebuild it with:\n"
        f"    {REBUILD}\n"
        "fastmach never falls back to slow pure-Python code."
    ) from err


def check_build() -> None:
    """Raise the build error if the compiled core is not there (found, not imported: the
    package's import loads nothing heavy)."""
    from importlib.util import find_spec

    if find_spec("fastmach.core._solver") is None:
        raise_build_error(ImportError("no module named fastmach.core._solver"))
