"""The test command's install step (.ci/run asks .ci/installed.py): a checkout installed
editable and built by the README's first command gets the test tools only, not a second
compile of the core; anything else (no compiled module, a source newer than its module, the
package imported from elsewhere) is installed and compiled again."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("ci_installed", ROOT / ".ci" / "installed.py")
assert _spec is not None and _spec.loader is not None
installed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(installed)


def _tree(root: Path) -> tuple[Path, Path]:
    (root / "fastmach" / "core").mkdir(parents=True)
    pyx = root / "fastmach" / "core" / "_a.pyx"
    pxd = root / "fastmach" / "core" / "_a.pxd"
    pyx.write_text("")
    pxd.write_text("")
    return pyx, pxd


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_built_needs_every_compiled_module_newer_than_its_source_and_the_declarations(tmp_path):
    pyx, pxd = _tree(tmp_path)
    _age(pyx, 100)
    _age(pxd, 100)
    assert not installed.built(tmp_path)                      # never compiled
    so = pyx.parent / "_a.cpython-311-x86_64-linux-gnu.so"
    so.write_bytes(b"")
    _age(so, 50)
    assert installed.built(tmp_path)
    other = pyx.parent / "_b.pyx"                             # another module, newer
    other.write_text("")
    (pyx.parent / "_b.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert installed.built(tmp_path)
    pyx.touch()                                               # its own source edited since
    assert not installed.built(tmp_path)
    _age(pyx, 100)
    assert installed.built(tmp_path)
    pxd.touch()                                               # a declaration edited since
    assert not installed.built(tmp_path)


def test_this_checkout_imported_from_elsewhere_counts_as_installed_here():
    """The suite runs after the install: from outside the checkout, fastmach is this
    checkout's folder, built (PYTHONPATH stands for the editable install where the machine's
    install points elsewhere)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(ROOT / ".ci" / "installed.py")], cwd="/",
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "pytest>=7" in r.stdout.splitlines() and "numpy>=2" in r.stdout.splitlines()


def test_a_package_found_elsewhere_is_not_installed_here(tmp_path):
    assert not installed.installed_here(tmp_path)
