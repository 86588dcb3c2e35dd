"""Python bots by strategy string: constructor parameters typed from the class, the
working directory as the bot's import root, a bot's failure named by seat, hand and turn,
and the per-move time limit; through the API and the CLI (a bot module next to the run)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import fastmach
from fastmach.errors import BotError, FastmachError
from fastmach.strategies import parse_strategy

ROOT = Path(__file__).resolve().parents[2]
RULES = "classic(match=single)"
MYBOTS = textwrap.dedent('''\
    import time
    import fastmach

    class RandomLegal:
        made = []

        def __init__(self, n_subsets: int = 4, greedy: bool = False, label="x",
                     scale: float = 0.5):
            if n_subsets < 1:
                raise ValueError("n_subsets must be at least 1")
            self.n_subsets = n_subsets
            RandomLegal.made.append((n_subsets, greedy, label, scale))

        def act(self, obs):
            sol = fastmach.solve(obs.table, obs.hand, obs.rules)
            return fastmach.Play(sol.melds, sol.placed) if sol.placed else fastmach.Draw()

    class Needs:
        def __init__(self, depth: int):
            self.depth = depth

        def act(self, obs):
            return fastmach.Draw()

    class Crashes:
        def act(self, obs):
            raise ZeroDivisionError("division by zero")

    class Slow:
        def __init__(self, delay: float = 0.05):
            self.delay = delay

        def act(self, obs):
            time.sleep(self.delay)
            return fastmach.Draw()
    ''')


@pytest.fixture
def botdir(tmp_path, monkeypatch):
    """A working directory holding mybots.py, not on sys.path (as under the console
    script); sys.path and sys.modules restored afterwards."""
    (tmp_path / "mybots.py").write_text(MYBOTS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "mybots", raising=False)
    yield tmp_path
    sys.modules.pop("mybots", None)


def _seats(bot: str) -> list[str]:
    return [bot, "expert", "expert", "expert"]


def test_parameters_are_typed_from_the_constructor_and_kept_in_the_canonical_string(botdir):
    s = parse_strategy("mybots:RandomLegal( n_subsets = 8, greedy=true, label='ab', scale=1)")
    assert str(s) == "mybots:RandomLegal(n_subsets=8,greedy=true,label=ab,scale=1)"
    assert str(parse_strategy(str(s))) == str(s)  # a worker rebuilds the same bot
    assert dict(s.spec.kwargs) == {"n_subsets": 8, "greedy": True, "label": "ab", "scale": 1.0}
    assert str(parse_strategy("mybots:RandomLegal(n_subsets=4,greedy=false)")) == \
        "mybots:RandomLegal"  # defaults print as the bare path
    df = fastmach.play_games(RULES, _seats(str(s)), 1, range(2))
    assert (df["strategy_0"] == str(s)).all()
    import mybots
    assert (8, True, "ab", 1.0) in mybots.RandomLegal.made


@pytest.mark.parametrize("text,message", [
    ("mybots:RandomLegal(n=8)", "bot 'mybots:RandomLegal' has no parameter 'n'"),
    ("mybots:RandomLegal(n_subsets=x)", "parameter 'n_subsets' must be an integer, got 'x'"),
    ("mybots:RandomLegal(n_subsets=2.5)", "parameter 'n_subsets' must be an integer"),
    ("mybots:RandomLegal(greedy=maybe)", "parameter 'greedy' must be true or false"),
    ("mybots:RandomLegal(scale=inf)", "parameter 'scale' must be finite"),
    ("mybots:RandomLegal(n_subsets=1,n_subsets=2)", "parameter 'n_subsets' given twice"),
    ("mybots:Needs", "bot 'mybots:Needs': missing required parameter 'depth' (int)"),
    ("mybots:Slow(time_limit=0)", "parameter 'time_limit' must be a positive number"),
])
def test_a_bad_parameter_is_one_error_naming_the_bot_and_the_parameter(botdir, text, message):
    with pytest.raises(FastmachError) as e:
        fastmach.play_games(RULES, _seats(text), 1, range(1))
    assert message in str(e.value)


def test_a_constructor_that_raises_names_the_bot_and_the_seat(botdir):
    with pytest.raises(FastmachError, match=r"bot 'mybots:RandomLegal\(n_subsets=0\)' at seat "
                       r"0: its constructor raised ValueError: n_subsets must be at least 1"):
        fastmach.play_games(RULES, _seats("mybots:RandomLegal(n_subsets=0)"), 1, range(1))


def test_the_working_directory_is_tried_after_sys_path(botdir):
    assert str(botdir) not in sys.path
    parse_strategy("mybots:RandomLegal")
    assert sys.path[-1] == str(botdir)  # appended: an installed module of the name wins


def test_a_module_found_nowhere_names_the_working_directory(botdir, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path.parent)
    with pytest.raises(FastmachError) as e:
        parse_strategy("mybots_nowhere:Bot")
    assert "No module named 'mybots_nowhere'" in str(e.value)
    assert f"the working directory {tmp_path.parent}" in str(e.value)


def test_a_bot_that_raises_is_one_error_naming_bot_seat_hand_turn(botdir):
    with pytest.raises(BotError, match=r"^bot 'mybots:Crashes' at seat 0, hand 0, turn \d+: "
                       r"act\(\) raised ZeroDivisionError: division by zero$"):
        fastmach.play_games(RULES, _seats("mybots:Crashes"), 1, range(1))


def test_a_move_over_the_time_limit_is_an_error_naming_the_time(botdir):
    with pytest.raises(BotError, match=r"bot 'mybots:Slow\(time_limit=0.01\)' at seat 0, "
                       r"hand 0, turn \d+: act\(\) took 0\.\d+ s, over the time limit of 0.01 s"):
        fastmach.play_games(RULES, _seats("mybots:Slow(time_limit=0.01)"), 1, range(1))
    within = fastmach.play_games(RULES, _seats("mybots:Slow(delay=0,time_limit=5)"), 1, [0])
    assert within["strategy_0"].iloc[0] == "mybots:Slow(delay=0,time_limit=5)"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    # -P: the working directory is not put on sys.path, as under the `fastmach` script
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-P", "-m", "fastmach", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture
def clidir(tmp_path):
    (tmp_path / "mybots.py").write_text(MYBOTS)
    return tmp_path


def test_cli_play_seats_a_bot_with_parameters_from_the_working_directory(clidir):
    r = _cli(clidir, "play", "--rules", RULES, "--strategies",
             "mybots:RandomLegal(n_subsets=8),expert", "--games", "3", "--out", "g.parquet")
    assert r.returncode == 0, r.stderr
    df = pd.read_parquet(clidir / "g.parquet")
    assert (df["strategy_0"] == "mybots:RandomLegal(n_subsets=8)").all()


@pytest.mark.parametrize("bot,rc,message", [
    ("mybots:RandomLegal(n=3)", 2, "bot 'mybots:RandomLegal' has no parameter 'n'"),
    ("mybots:Needs", 2, "missing required parameter 'depth'"),
    ("mybots:Crashes", 1, "act() raised ZeroDivisionError: division by zero"),
    ("mybots:Slow(time_limit=0.01)", 1, "over the time limit of 0.01 s"),
    ("elsewhere:Bot", 2, "No module named 'elsewhere'; the bot path is imported from sys.path"),
])
def test_cli_play_reports_a_bot_error_on_one_line_before_or_during_the_games(clidir, bot, rc,
                                                                             message):
    r = _cli(clidir, "play", "--rules", RULES, "--strategies", f"{bot},expert", "--games", "2",
             "--out", "g.parquet")
    assert r.returncode == rc
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (clidir / "g.parquet").exists()


def test_cli_sweep_workers_rebuild_the_bot_from_the_working_directory(clidir):
    (clidir / "s.toml").write_text(textwrap.dedent('''\
        [study]
        name = "bots"
        seed = 11
        games = 4
        chunk = 2

        [grid]
        rules = ["classic(match=single)"]
        players = [4]
        lineup = [["mybots:RandomLegal(n_subsets=8)", "expert"]]
        rotate = true
        '''))
    one = _cli(clidir, "sweep", "s.toml", "--out", "one", "--workers", "0", "-q")
    two = _cli(clidir, "sweep", "s.toml", "--out", "two", "--workers", "2", "-q")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    key = ["cell", "rotation", "replicate"]
    a = pd.read_parquet(clidir / "one").sort_values(key).reset_index(drop=True)
    b = pd.read_parquet(clidir / "two").sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert set(a["strategy_0"]) == {"mybots:RandomLegal(n_subsets=8)", "expert"}


def test_cli_rate_and_compare_take_a_bot_with_parameters(clidir):
    r = _cli(clidir, "rate", "--strategies", "mybots:RandomLegal(n_subsets=8),beginner",
             "--players", "2", "--games", "2", "--workers", "0", "-q")
    assert r.returncode == 0, r.stderr
    assert "mybots:RandomLegal(n_subsets=8)" in r.stdout
    r = _cli(clidir, "compare", "classic", "classic(jokers=2)", "--players", "4", "--lineup",
             "mybots:RandomLegal(n_subsets=8),expert", "--games", "2", "--workers", "0", "-q")
    assert r.returncode == 0, r.stderr
    bad = _cli(clidir, "rate", "--strategies", "mybots:RandomLegal(n_subsets=two),beginner",
               "--players", "2", "--games", "2", "--workers", "0", "-q")
    assert bad.returncode == 2 and "parameter 'n_subsets' must be an integer" in bad.stderr
