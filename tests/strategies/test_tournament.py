"""Tournament integrity: a bot in its own process (``isolated=true``) is sent only its
observation, so walking the frames or the heap finds no other seat's cards; a secret root
seed (``--seed secret``) is drawn from the operating system and recorded only in the rows,
so guessing seeds finds no deal; answers come back as JSON, checked like any bot's."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

import fastmach
from fastmach.engine import run_play
from fastmach.errors import BotError, FastmachError
from fastmach.game.deal import resolve_seed
from fastmach.strategies import bots, parse_strategy

ROOT = Path(__file__).resolve().parents[2]
RULES = "classic(match=single)"
SPIES = textwrap.dedent('''\
    import gc, json, sys
    import fastmach

    def _hidden(me, n_players):
        """Every seat's hand counts found in the frames or on the heap (a 53-count list
        per seat), or None."""
        f = sys._getframe()
        while f is not None:
            for v in list(f.f_locals.values()):
                if isinstance(v, dict) and "hands" in v:
                    return v["hands"]
            f = f.f_back
        for o in gc.get_objects():
            if isinstance(o, dict) and "hands" in o and isinstance(o.get("hands"), list) \\
                    and len(o["hands"]) == n_players:
                return o["hands"]
        return None

    class FrameWalker:
        """Plays the solver's maximum placement; on its first turn, looks for the other
        hands and writes what it found to ``out``."""

        def __init__(self, out: str = "spy.json"):
            self.out, self.done = out, False

        def act(self, obs):
            if not self.done:
                self.done = True
                hands = _hidden(obs.seat, len(obs.hand_sizes))
                others = None if hands is None else [
                    sum(h) for s, h in enumerate(hands) if s != obs.seat]
                with open(self.out, "w") as f:
                    json.dump({"others": others, "hand": list(obs.hand)}, f)
            sol = fastmach.solve(obs.table, obs.hand, obs.rules)
            return fastmach.Play(sol.melds, sol.placed) if sol.placed else fastmach.Draw()

    class Cheat:
        """Answers a play of a card it does not hold."""

        def act(self, obs):
            missing = next(c for c in range(52) if c not in obs.hand)
            return fastmach.Play(obs.table + ((missing,),), (missing,))

    class Crashes:
        def act(self, obs):
            raise ZeroDivisionError("division by zero")

    class Hangs:
        def act(self, obs):
            import time
            time.sleep(60)

    class Quit(BaseException):
        pass

    class Quits:
        def act(self, obs):
            raise Quit("no more")

    class ShortFrame:
        """Writes a frame header announcing 100 bytes, and 2 of them, to every pipe it may
        write but stdout and stderr, then sleeps."""

        def act(self, obs):
            import fcntl, os, stat, time
            for name in os.listdir("/proc/self/fd"):
                fd = int(name)
                try:
                    if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode) and \
                            fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                        os.write(fd, b"\\x00\\x00\\x00\\x64{}")
                except OSError:
                    pass
            time.sleep(120)

    class Forks:
        """Starts three processes that sleep two minutes (their ids in ``out``), then
        raises, or with ``hang`` sleeps as long."""

        def __init__(self, out: str = "pids.txt", hang: bool = False):
            self.out, self.hang = out, hang

        def act(self, obs):
            import subprocess, time
            procs = [subprocess.Popen(["sleep", "120"]) for _ in range(3)]
            with open(self.out, "w") as f:
                f.write(" ".join(str(p.pid) for p in procs))
            if self.hang:
                time.sleep(120)
            raise RuntimeError("forked")
    ''')


@pytest.fixture
def spydir(tmp_path, monkeypatch):
    (tmp_path / "spies.py").write_text(SPIES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "spies", raising=False)
    yield tmp_path
    sys.modules.pop("spies", None)


def _seats(bot: str) -> list[str]:
    return [bot, "expert", "expert", "expert"]


def test_a_frame_walking_bot_finds_the_hidden_hands_in_process_but_not_isolated(spydir,
                                                                              monkeypatch):
    # in the game's process the attack works where the seat holds the position as Python
    # data (the Python seat, bots.FAST_PATH off; the compiled seat builds none for the bot,
    # but shares its process all the same: only isolation keeps the cards out of reach)
    monkeypatch.setattr(bots, "FAST_PATH", False)
    fastmach.play_games(RULES, _seats("spies:FrameWalker(out=inproc.json)"), 3, [0])
    monkeypatch.setattr(bots, "FAST_PATH", True)
    inproc = json.loads((spydir / "inproc.json").read_text())
    assert inproc["others"] == [13, 13, 13]  # the attack works on a bot in the game's process

    df = fastmach.play_games(RULES, _seats("spies:FrameWalker(out=iso.json,isolated=true)"),
                             3, [0])
    iso = json.loads((spydir / "iso.json").read_text())
    assert iso["others"] is None
    assert iso["hand"] == inproc["hand"]  # the same deal, seen through the observation only
    assert df["strategy_0"].iloc[0] == "spies:FrameWalker(out=iso.json,isolated=true)"


def test_an_isolated_bot_plays_the_same_games_as_in_process(spydir):
    a = fastmach.play_games(RULES, _seats("spies:FrameWalker(out=a.json)"), 5, range(3))
    b = fastmach.play_games(RULES, _seats("spies:FrameWalker(out=b.json,isolated=true)"),
                            5, range(3))
    cols = [c for c in a.columns if not c.startswith("strategy")]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_an_isolated_bots_illegal_play_is_rejected_like_any_bots(spydir):
    with pytest.raises(FastmachError, match=r"bot 'spies:Cheat\(isolated=true\)' at seat 0, "
                       r"hand 0, turn \d+: illegal action"):
        fastmach.play_games(RULES, _seats("spies:Cheat(isolated=true)"), 1, [0])


def test_an_isolated_bot_that_raises_names_the_exception_it_raised(spydir):
    with pytest.raises(BotError, match=r"^bot 'spies:Crashes\(isolated=true\)' at seat 0, "
                       r"hand 0, turn \d+: act\(\) raised ZeroDivisionError: division by zero$"):
        fastmach.play_games(RULES, _seats("spies:Crashes(isolated=true)"), 1, [0])


def test_an_isolated_bot_over_its_time_limit_is_stopped(spydir):
    with pytest.raises(BotError, match=r"act\(\) raised TimeoutError: no answer within "
                       r"0.5 s to answer \(its process was stopped\)"):
        fastmach.play_games(RULES, _seats("spies:Hangs(time_limit=0.5,isolated=true)"), 1, [0])


def test_an_isolated_bot_raising_a_base_exception_is_named_as_in_process(spydir):
    for spec in ("spies:Quits", "spies:Quits(isolated=true)"):
        with pytest.raises(BotError, match=rf"^bot '{re.escape(spec)}' at seat 0, hand 0, "
                           r"turn \d+: act\(\) raised Quit: no more$"):
            fastmach.play_games(RULES, _seats(spec), 1, [0])


def test_an_isolated_bot_sending_a_short_frame_is_stopped_at_its_time_limit(tmp_path):
    # the header announces 100 bytes, 2 follow: the limit covers the whole answer
    (tmp_path / "spies.py").write_text(SPIES)
    r = _cli(tmp_path, "play", "--rules", RULES, "--strategies",
             "spies:ShortFrame(isolated=true,time_limit=1),expert", "--games", "1",
             "--out", "g.parquet", timeout=60)
    assert r.returncode == 1, r.stderr
    assert "act() raised TimeoutError: no answer within 1 s to answer" in r.stderr


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("hang", [False, True])
def test_processes_an_isolated_bot_starts_end_with_it(spydir, hang):
    spec = f"spies:Forks(hang={'true' if hang else 'false'},time_limit=2,isolated=true)"
    with pytest.raises(BotError, match="TimeoutError" if hang else "RuntimeError: forked"):
        fastmach.play_games(RULES, _seats(spec), 1, [0])
    pids = [int(p) for p in (spydir / "pids.txt").read_text().split()]
    deadline = time.monotonic() + 5
    while not all(map(_gone, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(map(_gone, pids))


def test_cli_play_ends_without_waiting_for_an_isolated_bots_processes(tmp_path):
    (tmp_path / "spies.py").write_text(SPIES)
    t0 = time.monotonic()
    r = _cli(tmp_path, "play", "--rules", RULES, "--strategies",
             "spies:Forks(isolated=true),expert", "--games", "1", "--out", "g.parquet",
             timeout=60)
    assert r.returncode == 1 and "RuntimeError: forked" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 60   # (stderr captured: not held open by the sleeps)


def test_an_isolated_bot_with_a_bad_constructor_argument_is_named_before_the_games(spydir):
    assert str(parse_strategy("spies:Crashes(isolated=false)")) == "spies:Crashes"
    with pytest.raises(FastmachError, match="parameter 'isolated' must be true or false"):
        parse_strategy("spies:Crashes(isolated=maybe)")


def test_a_secret_seed_is_drawn_from_the_os_and_never_the_same():
    seeds = {resolve_seed("secret") for _ in range(20)}
    assert len(seeds) == 20 and all(0 <= s < 2**63 for s in seeds)
    assert resolve_seed(7) == 7
    with pytest.raises(FastmachError, match="seed must be a non-negative integer"):
        resolve_seed("sekret")


def _first_hands(seed: int, replicates: range) -> set[tuple[int, ...]]:
    """Every seat's first hand in the deals a seed guesser would try."""
    game = fastmach.Game(RULES)
    out = set()
    for r in replicates:
        hands, _ = game.new_initial_state(seed, r).dealt
        out |= {tuple(sorted(h)) for h in hands}
    return out


def test_guessing_seeds_finds_the_deal_of_a_public_seed_but_not_of_a_secret_one(spydir):
    guesses = set().union(*(_first_hands(s, range(10)) for s in range(5)))
    public = run_play(RULES, _seats("spies:FrameWalker(out=p.json)"), 1, 0)
    assert tuple(sorted(json.loads((spydir / "p.json").read_text())["hand"])) in guesses
    secret = run_play(RULES, _seats("spies:FrameWalker(out=s.json)"), 1, "secret")
    assert tuple(sorted(json.loads((spydir / "s.json").read_text())["hand"])) not in guesses
    drawn = int(secret["seed"].iloc[0])
    assert drawn != 0 and public["seed"].iloc[0] == 0
    # the rows record the secret: the same seed replays the same game
    again = run_play(RULES, _seats("spies:FrameWalker(out=s.json)"), 1, drawn)
    pd.testing.assert_frame_equal(secret, again)


def _cli(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-P", "-m", "fastmach", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_cli_play_with_a_secret_seed_and_an_isolated_bot(tmp_path):
    (tmp_path / "spies.py").write_text(SPIES)
    r = _cli(tmp_path, "play", "--rules", RULES, "--strategies",
             "spies:FrameWalker(isolated=true),expert", "--games", "2", "--seed", "secret",
             "--out", "g.parquet")
    assert r.returncode == 0, r.stderr
    df = pd.read_parquet(tmp_path / "g.parquet")
    assert df["seed"].nunique() == 1 and int(df["seed"].iloc[0]) != 0
    assert json.loads((tmp_path / "spy.json").read_text())["others"] is None
    bad = _cli(tmp_path, "play", "--rules", RULES, "--games", "1", "--seed", "sekret",
               "--out", "g.parquet")
    assert bad.returncode == 2 and "expected an integer or 'secret'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_an_isolated_bot_whose_process_cannot_import_fastmach_names_the_cause(tmp_path,
                                                                             monkeypatch):
    """A folder ``fastmach`` without its compiled modules in the working directory (the
    source tree after a non-editable install): the bot's process imports it and fails. The
    error names the missing compiled core, where it said "its process stopped reading"."""
    shutil.copytree(ROOT / "fastmach", tmp_path / "fastmach",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FastmachError, match=r"^bot 'fastmach.strategies.examples:MaxPlacement"
                       r"\(isolated=true\)' at seat 0: its constructor raised ImportError: its "
                       r"process could not import fastmach: fastmach's compiled core is "
                       r"missing or stale"):
        fastmach.play_games(RULES, _seats("fastmach.strategies.examples:MaxPlacement"
                                          "(isolated=true)"), 1, [0])
