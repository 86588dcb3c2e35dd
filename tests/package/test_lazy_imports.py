"""Start-up: the package, ``fastmach play`` and a sweep's chunk load no statistics,
plotting, templating or cluster library (pandas alone costs about half a second a
process); the commands that need one load it themselves."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import fastmach

ROOT = Path(fastmach.__file__).resolve().parent.parent

#: what the play path must not load (pyarrow is allowed: it writes the parquet)
HEAVY = ("pandas", "matplotlib", "scipy", "jinja2", "dask", "distributed", "optuna")


def _loaded_after(code: str, cwd: Path) -> dict:
    """Run ``code`` in a fresh interpreter; which of HEAVY (and pyarrow) it loaded."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps([m for m in {HEAVY + ('pyarrow',)!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=cwd, check=True).stdout.strip().splitlines()
    return {"loaded": json.loads(out[-1]), "stdout": out[:-1]}


def test_importing_the_package_loads_no_heavy_library(tmp_path):
    got = _loaded_after("import fastmach, fastmach.cli", ROOT)
    assert got["loaded"] == []


def test_the_play_command_writes_its_files_without_pandas(tmp_path):
    out, hands = tmp_path / "g.parquet", tmp_path / "h.parquet"
    code = ("from fastmach.cli import main\n"
            f"assert main(['play', '--rules', 'classic(match=single)', '--games', '3', "
            f"'--strategies', 'expert,beginner', '--rotate', '--out', {str(out)!r}, "
            f"'--hands', {str(hands)!r}, '--log', {str(tmp_path / 'g.jsonl')!r}]) == 0")
    got = _loaded_after(code, ROOT)
    assert [m for m in got["loaded"] if m != "pyarrow"] == []
    assert "pyarrow" in got["loaded"]  # the probe sees a loaded module
    import pandas as pd

    assert len(pd.read_parquet(out)) == 6 and len(pd.read_parquet(hands)) == 6


def test_the_rate_command_still_finds_its_statistics():
    code = ("from fastmach.cli import build_parser\n"
            "args = build_parser().parse_args(['rate', '--strategies', 'expert,beginner'])\n"
            "from fastmach.tools import rate\n"
            "assert (args.games, args.seed, args.bootstrap, args.max_lineups) == "
            "(rate.DEFAULT_GAMES, rate.DEFAULT_SEED, rate.DEFAULT_BOOTSTRAP, "
            "rate.DEFAULT_MAX_LINEUPS)\n"
            "from fastmach.tools import comparison as c\n"
            "args = build_parser().parse_args(['compare', 'classic', 'classic(jokers=2)'])\n"
            "assert (args.max_games, args.seed) == (c.DEFAULT_MAX_GAMES, c.DEFAULT_SEED)")
    assert "pandas" in _loaded_after(code, ROOT)["loaded"]


def test_a_sweep_worker_plays_a_chunk_without_pandas():
    code = ("from fastmach.study import Study\n"
            "from fastmach.study.plan import plan\n"
            "from fastmach.study.worker import make_spec, play_chunk\n"
            "s = Study(name='t', seed=3, games=4, rules=('classic(match=single)', 'jokers'), "
            "players=(3,), lineup=(('expert', 'beginner'),), chunk=2)\n"
            "for c in plan(s):\n"
            "    games, hands = play_chunk(make_spec(s, c))\n"
            "    assert games[:4] == b'PAR1' and hands[:4] == b'PAR1'\n")
    got = _loaded_after(code, ROOT)
    assert [m for m in got["loaded"] if m != "pyarrow"] == []


def test_the_public_names_are_the_modules_own_and_loaded_on_first_use():
    import importlib

    for name, module in fastmach.API.items():
        assert name in fastmach.__all__ and name in dir(fastmach)
        assert getattr(fastmach, name) is getattr(importlib.import_module(module), name)
    got = _loaded_after("import fastmach\nimport sys\nprint('numpy' in sys.modules)", ROOT)
    assert got["stdout"] == ["False"]   # the package face loads nothing: the CLI sets up first


def test_the_game_package_names_are_the_modules_own_and_loaded_on_first_use():
    import importlib

    import fastmach.game as game

    for name in game.__all__:
        assert name in dir(game)
        module = importlib.import_module(game._HOMES[name])
        assert getattr(game, name) is getattr(module, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        game.nothing  # noqa: B018
    got = _loaded_after("import fastmach.game.deal, sys\n"
                        "print('fastmach.game.state' in sys.modules)\n"
                        "from fastmach.game import State, flow\n"
                        "print('fastmach.game.state' in sys.modules)", ROOT)
    assert got["stdout"] == ["False", "True"]
