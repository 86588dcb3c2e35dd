"""Is this checkout already installed and built for the tests? (.ci/run asks before it installs.)

Yes when ``fastmach`` imports, from outside the checkout, as this checkout's own folder (the
editable install of the README's first command), its ``fastmach`` command exists, and every
compiled module is newer than every Cython source. Then this prints the requirements to add
(the dependencies and the test extra, from pyproject.toml) and exits 0, so that the test
command installs the test tools without compiling the core a second time; otherwise it exits
1 and .ci/run installs the package (``pip install -e ".[test]"``, which compiles the core).
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def built(root: Path = ROOT) -> bool:
    """Every ``.pyx`` has its compiled module, each newer than its own source and than every
    declaration file (``.pxd``, ``.pxi``) a module may cimport or include."""
    package = root / "fastmach"
    shared = [p for ext in ("pxd", "pxi") for p in package.rglob(f"*.{ext}")]
    newest_shared = max((p.stat().st_mtime for p in shared), default=0.0)
    for pyx in package.rglob("*.pyx"):
        modules = list(pyx.parent.glob(f"{pyx.stem}.*.so"))
        newest = max(newest_shared, pyx.stat().st_mtime)
        if not modules or min(m.stat().st_mtime for m in modules) < newest:
            return False
    return True


def installed_here(root: Path = ROOT) -> bool:
    """``import fastmach`` (not from the checkout's folder as the working directory) finds
    this checkout's package, and the command is installed."""
    spec = importlib.util.find_spec("fastmach")
    origin = None if spec is None or spec.origin is None else Path(spec.origin).resolve()
    return origin == (root / "fastmach" / "__init__.py").resolve() and \
        shutil.which("fastmach") is not None


def requirements(root: Path = ROOT) -> list[str]:
    """The package's dependencies and its test extra."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return list(project["dependencies"]) + list(project["optional-dependencies"]["test"])


def main() -> int:
    if "" in sys.path:   # (the working directory would shadow an installed fastmach)
        sys.path.remove("")
    if not (installed_here() and built()):
        return 1
    print("\n".join(requirements()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
