"""Imports go one way: study does not import the sweep driver; argparse lives in the CLI."""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

import fastmach
from fastmach.study import Study

PACKAGE = Path(fastmach.__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports included),
    relative imports resolved against the fastmach package."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    package = list(rel.parts[:-1])  # the package a relative import starts from
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = ".".join([*base, *([node.module] if node.module else [])])
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return found


def test_imported_modules_sees_function_level_and_relative_imports(tmp_path):
    mods = imported_modules(PACKAGE / "cli" / "studies.py")
    assert "fastmach.study.driver" in mods and "argparse" in mods   # (inside a function)
    assert "fastmach.study.plan" in imported_modules(PACKAGE / "study" / "precision.py")
    assert "fastmach.tools.tune.answer" in imported_modules(PACKAGE / "tools" / "tune" / "__init__.py")
    assert "fastmach.study.results" in imported_modules(PACKAGE / "report" / "load.py")


def test_study_does_not_import_the_sweep_driver():
    assert not {"fastmach.study.driver", "fastmach.study.sweep"} & (
        imported_modules(PACKAGE / "study" / "__init__.py")
        | imported_modules(PACKAGE / "study" / "definition.py"))
    assert not hasattr(Study, "run")  # the driver runs a study: fastmach.run_study
    assert fastmach.run_study.__module__ == "fastmach.study.driver"


def test_argparse_only_in_the_cli():
    users = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                   if "argparse" in imported_modules(p))
    assert users and all(u.startswith("cli/") for u in users)


def test_the_flat_layout_names_are_gone():
    """Version 0.1 keeps no second name for a module: ``fastmach.stats`` is not
    ``fastmach.analysis.stats`` under another name."""
    import importlib

    for old in ("fastmach.stats", "fastmach.sweep", "fastmach.cards", "fastmach.gamelog"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
    with pytest.raises(AttributeError):
        fastmach.stats  # noqa: B018


def test_no_module_left_flat_in_the_package():
    flat = sorted(p.name for p in PACKAGE.iterdir()
                  if p.is_file() and p.suffix in (".py", ".pyx", ".pxd", ".so", ".c"))
    assert flat == ["__init__.py", "__main__.py", "errors.py", "outputs.py"]


#: The layers, low to high, read from the contract in pyproject.toml ([tool.importlinter]):
#: a module imports only from its own layer and the layers below it.
LAYERS = [name.split(".")[1] for name in reversed(tomllib.loads(
    (PACKAGE.parent / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"])]


def layer_of(module: str) -> int | None:
    """The layer index of a fastmach module, None outside the layers."""
    parts = module.split(".")
    if parts[0] != "fastmach" or len(parts) < 2 or parts[1] not in LAYERS:
        return None
    return LAYERS.index(parts[1])


def test_every_module_is_in_a_layer():
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if rel.parts[1:] in (("__init__",), ("__main__",)):
            continue
        assert layer_of(".".join(rel.parts)) is not None, rel


def test_no_module_imports_a_higher_layer():
    upward = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        own = layer_of(".".join(rel.parts))
        if own is None:
            continue
        for mod in imported_modules(path):
            other = layer_of(mod)
            if other is not None and other > own:
                upward.append(f"{'/'.join(rel.parts)} imports {mod}")
    assert upward == []


def test_layer_check_sees_an_upward_import(tmp_path):
    assert layer_of("fastmach.analysis.stats") == LAYERS.index("analysis")
    assert layer_of("fastmach.view") > layer_of("fastmach.solver")


def test_every_subpackage_is_declared_for_the_install():
    import tomllib

    import setuptools

    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert sorted(config["packages"]) == sorted(
        setuptools.find_packages(str(PACKAGE.parent), include=["fastmach*"]))
    shipped = {f for pkg, patterns in config["package-data"].items() for p in patterns
               for f in PACKAGE.parent.joinpath(*pkg.split(".")).glob(p)}
    sources = [f for f in PACKAGE.rglob("*") if f.suffix in (".pxd", ".pyx")
               or f.parent.name == "templates"]
    assert sources and [f for f in sources if f not in shipped] == []


def test_every_python_module_of_the_package_is_type_checked():
    """mypy checks the whole package (CI runs mypy): a new module is typed from the start,
    with no list to keep."""
    import tomllib
    files = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    assert files == ["fastmach"]


#: ``cimport X``, ``import X``, ``from X cimport ...`` and ``from X import ...`` in Cython
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+))", re.M)


def cython_imports(path: Path) -> set[str]:
    """The fastmach modules a Cython file (.pyx, .pxd, .pxi) imports or cimports."""
    text = path.read_text(encoding="utf-8")
    return {m for pair in _CYTHON_IMPORT.findall(text) for m in pair if m.startswith("fastmach")}


def test_cython_import_check_sees_cimports(tmp_path):
    f = tmp_path / "x.pyx"
    f.write_text("from fastmach.game._turn cimport HState\ncimport fastmach.core._solver\n"
                 "    from fastmach.view import pages\n# from fastmach.cli import main\n")
    assert cython_imports(f) == {"fastmach.game._turn", "fastmach.core._solver", "fastmach.view"}


def test_no_cython_file_imports_a_higher_layer():
    """The layers contract (import-linter reads only Python) holds for the compiled modules'
    cimports and imports too."""
    upward, seen = [], 0
    for path in sorted(p for ext in ("*.pyx", "*.pxd", "*.pxi") for p in PACKAGE.rglob(ext)):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        own = layer_of(".".join(rel.parts))
        assert own is not None, rel
        seen += 1
        for mod in cython_imports(path):
            other = layer_of(mod)
            if other is not None and other > own:
                upward.append(f"{'/'.join(rel.parts)} imports {mod}")
    assert seen > 60 and upward == []
