"""compare, rate and a study run when chunks keep failing: without --out the games were
played into a temporary directory, removed as the command ends, so the message says that
nothing was kept and points to --out, never to the removed directory; with --out it names
DIR."""
from __future__ import annotations

import re

import pytest

from fastmach.cli import main

BOT = """\
class Raises:
    def act(self, obs):
        raise ValueError("boom")
"""

COMMANDS = {
    "compare": ["compare", "-q", "--workers", "0", "--games", "2", "--players", "2",
                "--lineup", "raisebots:Raises", "classic(match=single)", "jokers"],
    "rate": ["rate", "-q", "--workers", "0", "--games", "2", "--players", "2",
             "--rules", "classic(match=single)", "--strategies", "raisebots:Raises,expert"],
}


@pytest.fixture
def botdir(tmp_path, monkeypatch):
    """A directory holding the bot module ``raisebots`` (the working directory)."""
    (tmp_path / "raisebots.py").write_text(BOT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", list(COMMANDS))
def test_without_out_the_message_says_nothing_was_kept(botdir, capsys, command):
    assert main(COMMANDS[command]) == 1
    err = capsys.readouterr().err
    assert "failed after 3 attempts (nothing was kept" in err and "--out DIR" in err
    assert "saved in" not in err and f"fastmach-{command}-" not in err
    assert "act() raised ValueError: boom" in err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_with_out_the_message_names_the_kept_results(botdir, capsys, command):
    out = botdir / "out"
    assert main(COMMANDS[command] + ["--out", str(out)]) == 1
    err = capsys.readouterr().err
    m = re.search(r"the other chunks are saved in (\S+); rerun to retry only these", err)
    assert m is not None and m.group(1).startswith(str(out / "results"))
    assert (out / "results").is_dir()


def test_a_study_run_without_out_says_nothing_was_kept(botdir):
    """run_study(out=None) plays into a temporary directory too."""
    from fastmach.study import Study
    from fastmach.study.driver import run_study
    from fastmach.study.plan import SweepError

    study = Study.from_toml('[study]\nname = "r"\nseed = 1\ngames = 2\n[grid]\n'
                            'rules = ["classic(match=single)"]\nplayers = [2]\n'
                            'lineup = [["raisebots:Raises", "expert"]]\n')
    with pytest.raises(SweepError, match=r"failed after 3 attempts \(nothing was kept") as e:
        run_study(study, workers=0, progress=False)
    assert "fastmach-sweep-" not in str(e.value)
