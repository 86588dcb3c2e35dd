"""Imports go one way: study does not import the sweep driver; argparse lives in the CLI."""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

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
    assert "fastmach.study.sweep" in mods and "argparse" in mods
    assert "fastmach.study.sweep" in imported_modules(PACKAGE / "report" / "__init__.py")


def test_study_does_not_import_the_sweep_driver():
    assert "fastmach.study.sweep" not in imported_modules(PACKAGE / "study" / "__init__.py")
    assert not hasattr(Study, "run")  # the driver runs a study: fastmach.run_study
    assert fastmach.run_study.__module__ == "fastmach.study.driver"  # sweep re-exports it


def test_argparse_only_in_the_cli():
    users = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                   if "argparse" in imported_modules(p))
    assert users and all(u.startswith("cli/") for u in users)


def test_old_module_names_are_the_moved_modules():
    import importlib

    for old, new in fastmach.MOVED.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
    stats = importlib.import_module("fastmach.stats")
    assert stats is importlib.import_module("fastmach.analysis.stats")
    assert stats.__file__.startswith(str(PACKAGE))
    from fastmach.strategies import examples
    assert examples.__name__ == "fastmach.strategies.examples"


def test_old_names_are_attributes_of_the_package():
    assert fastmach.sweep is importlib_module("fastmach.study.sweep")
    assert fastmach.stats.__name__ == "fastmach.analysis.stats"


def test_no_module_left_flat_in_the_package():
    flat = sorted(p.name for p in PACKAGE.iterdir()
                  if p.is_file() and p.suffix in (".py", ".pyx", ".pxd", ".so", ".c"))
    assert flat == ["__init__.py", "__main__.py", "errors.py", "outputs.py"]


def importlib_module(name: str):
    import importlib

    return importlib.import_module(name)


def test_old_names_are_resolved_only_when_asked_for():
    import subprocess
    import sys

    code = ("import sys, fastmach; print(sorted(m for m in fastmach.MOVED if m in sys.modules));"
            "import fastmach.stats; print('fastmach.analysis.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True"


#: The layers, low to high, read from the contract in pyproject.toml ([tool.importlinter]):
#: a module imports only from its own layer and the layers below it.
LAYERS = [name.split(".")[1] for name in reversed(tomllib.loads(
    (PACKAGE.parent / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"])]


def layer_of(module: str) -> int | None:
    """The layer index of a fastmach module (old names resolved), None outside the layers."""
    module = next((new for old, new in fastmach.MOVED.items()
                   if module == old or module.startswith(old + ".")), module)
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
    assert layer_of("fastmach.stats") == LAYERS.index("analysis")
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
    """mypy's list in pyproject.toml (CI runs mypy) holds every module: a new module is
    typed from the start."""
    import tomllib
    files = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
                ["tool"]["mypy"]["files"])
    modules = {str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")}
    assert modules - files == set() and files - modules == set()
