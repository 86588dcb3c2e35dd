"""A bot's time_limit is checked when its strategy string is read: a finite number of
seconds > 0, at most a day (MAX_TIME_LIMIT); beyond it, one error naming the bot and the
parameter (CLI: exit 2) before any game, rather than a game that fails blaming the bot."""
from __future__ import annotations

import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.strategies import parse_strategy
from fastmach.strategies.botspec import MAX_TIME_LIMIT
from fastmach.strategies.isolation import IsolatedBot

BOT = """\
import fastmach

class B:
    def act(self, obs):
        return fastmach.Draw()
"""


@pytest.fixture
def botdir(tmp_path, monkeypatch):
    """A directory holding the bot module ``timebots`` (the working directory)."""
    (tmp_path / "timebots.py").write_text(BOT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("isolated", ["false", "true"])
@pytest.mark.parametrize("limit", ["1e8", "1e10", "1e308", "86400.5"])
def test_a_time_limit_over_a_day_is_refused_naming_the_bot(botdir, limit, isolated):
    with pytest.raises(FastmachError, match=r"bot 'timebots:B': parameter 'time_limit' must "
                       rf"be a positive number of seconds, at most 86400 \(a day\), got "
                       rf"'{limit}'"):
        parse_strategy(f"timebots:B(time_limit={limit},isolated={isolated})")
    assert parse_strategy(f"timebots:B(time_limit={MAX_TIME_LIMIT:g})").time_limit == 86400


def test_the_command_exits_2_before_any_game(botdir, capsys):
    out = botdir / "p.parquet"
    assert main(["play", "--rules", "classic(match=single)", "--games", "1", "--out", str(out),
                 "--strategies", "timebots:B(time_limit=1e8,isolated=true)"]) == 2
    err = capsys.readouterr().err
    assert "parameter 'time_limit' must be a positive number of seconds, at most 86400" in err
    assert "Traceback" not in err and not out.exists()


def test_an_isolated_bot_refuses_a_time_limit_over_a_day_before_its_process(botdir,
                                                                           monkeypatch):
    import subprocess

    def no_process(*args, **kwargs):
        raise AssertionError("a bot process was started")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    with pytest.raises(FastmachError, match="at most 86400"):
        IsolatedBot("timebots:B", {}, time_limit=1e10)
