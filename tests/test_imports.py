"""Imports go one way: study does not import the sweep driver; argparse lives in the CLI."""
from __future__ import annotations

import ast
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
    mods = imported_modules(PACKAGE / "cli.py")
    assert "fastmach.sweep" in mods and "argparse" in mods
    assert "fastmach.sweep" in imported_modules(PACKAGE / "report.py")


def test_study_does_not_import_the_sweep_driver():
    assert "fastmach.sweep" not in imported_modules(PACKAGE / "study.py")
    assert not hasattr(Study, "run")  # the driver runs a study: fastmach.run_study
    assert fastmach.run_study.__module__ == "fastmach.sweep"


def test_argparse_only_in_the_cli():
    users = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                   if "argparse" in imported_modules(p))
    assert users == ["cli.py"]
