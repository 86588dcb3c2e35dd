"""The examples in the package's docstrings run as written (doctest)."""
from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

import fastmach

PACKAGE = pathlib.Path(fastmach.__file__).resolve().parent
#: every Python module of the package with an example in a docstring
WITH_EXAMPLES = sorted(
    ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)
    for p in PACKAGE.rglob("*.py") if ">>> " in p.read_text(encoding="utf-8"))


def test_the_modules_with_examples_are_found():
    assert "fastmach.rules.record" in WITH_EXAMPLES and len(WITH_EXAMPLES) >= 3


@pytest.mark.parametrize("module", WITH_EXAMPLES)
def test_the_docstring_examples_hold(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
