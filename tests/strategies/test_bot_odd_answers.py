"""Odd answers and exceptions from an in-process bot: whatever it returns or raises, the
game stops with one error naming the bot, the seat, the hand and the turn (a BotError; an
answer of another type: the FastmachError it always was), never an error from inside
fastmach. Each case runs on the three ways a seat asks its bot: the compiled seat
without a time limit (it calls ``BotSeat.bot.act``), with one (``BotSeat.ask``), and the
Python reference seat (``FAST_PATH = False``)."""
from __future__ import annotations

import pytest

import fastmach
from fastmach.cli import main
from fastmach.errors import BotError, FastmachError
from fastmach.strategies import bots

ODD = """\
import sys
import fastmach
from fastmach import Draw, Play


def best(obs):
    sol = fastmach.solve(obs.table, obs.hand, obs.rules)
    return Play(sol.melds, sol.placed) if sol.placed else Draw()


class Empty:
    def act(self, obs):
        return object.__new__(Play)


class P2(Play):
    placed = property(lambda self: 1 / 0)


class RaisingField:
    def act(self, obs):
        a = best(obs)
        if isinstance(a, Play):
            p = object.__new__(P2)
            object.__setattr__(p, "melds", a.melds)
            return p
        return a


class PlayGA(Play):
    def __getattribute__(self, name):
        raise RuntimeError("no " + name)


class NoAttributesPlay:
    def act(self, obs):
        return PlayGA(((0, 1, 2),), (0,))


class DrawGA(Draw):
    def __getattribute__(self, name):
        raise RuntimeError("no " + name)


class NoAttributesDraw:
    def act(self, obs):
        return DrawGA()


class Draws:
    def act(self, obs):
        return Draw()


class BadId:
    def __index__(self):
        raise RuntimeError("no index")


class BadIds:
    def act(self, obs):
        p = object.__new__(Play)
        object.__setattr__(p, "melds", ((BadId(), 1, 2),))
        object.__setattr__(p, "placed", (BadId(),))
        return p


class BadExc(Exception):
    def __str__(self):
        return 1 / 0


class BadStr:
    def act(self, obs):
        raise BadExc()


class BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


class ReturnsBadRepr:
    def act(self, obs):
        return BadRepr()


class Exits:
    def act(self, obs):
        sys.exit(3)


class Best:
    def act(self, obs):
        return best(obs)
"""

WAYS = ["compiled", "time_limit", "python"]


@pytest.fixture
def oddbots(tmp_path, monkeypatch):
    """The bot module ``oddbots`` in the working directory."""
    (tmp_path / "oddbots.py").write_text(ODD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def play(name: str, way: str, monkeypatch, games: int = 3):
    """Games of the bot ``oddbots:name`` at seat 0 against experts, asked ``way``."""
    monkeypatch.setattr(bots, "FAST_PATH", way != "python")
    spec = f"oddbots:{name}" + ("(time_limit=60)" if way == "time_limit" else "")
    return fastmach.play_games("classic(match=single)", [spec, "expert", "expert", "expert"],
                               1, range(games))


WHERE = r"bot 'oddbots:\w+(\(time_limit=60\))?' at seat 0, hand 0, turn \d+: "


@pytest.mark.parametrize("bot, words", [
    # a Play without its fields (object.__new__), one whose field raises when read, one
    # with no readable attribute, card ids that raise when read, an exception whose
    # message raises (named by its type)
    ("Empty", r"act\(\) returned a Play that cannot be read: AttributeError: 'Play' object "
              r"has no attribute 'melds'"),
    ("RaisingField", r"act\(\) returned a P2 that cannot be read: ZeroDivisionError: "
                     r"division by zero"),
    ("NoAttributesPlay", r"act\(\) returned a PlayGA that cannot be read: RuntimeError: "
                         r"no melds"),
    ("BadIds", r"act\(\) returned a Play that cannot be read: RuntimeError: no index"),
    ("BadStr", r"act\(\) raised BadExc: <BadExc: str\(\) raised ZeroDivisionError>"),
])
@pytest.mark.parametrize("way", WAYS)
def test_an_answer_or_exception_that_cannot_be_read_is_the_bots_error(oddbots, way, bot,
                                                                      words, monkeypatch):
    with pytest.raises(BotError, match=WHERE + words):
        play(bot, way, monkeypatch)


@pytest.mark.parametrize("way", WAYS)
def test_a_draw_with_no_readable_attribute_is_a_draw(oddbots, way, monkeypatch):
    """Only the answer's type decides: a Draw subclass is a draw, whatever it hides."""
    df = play("NoAttributesDraw", way, monkeypatch)
    ref = play("Draws", "compiled", monkeypatch)
    names = [c for c in df if c.startswith("strategy")]
    assert df.drop(columns=names).equals(ref.drop(columns=names))


@pytest.mark.parametrize("way", WAYS)
def test_an_answer_whose_repr_raises_is_named_by_its_type(oddbots, way, monkeypatch):
    with pytest.raises(FastmachError, match=WHERE + r"act\(\) returned <BadRepr: repr\(\) "
                       r"raised RuntimeError>; expected fastmach.Play, Draw or Pass"):
        play("ReturnsBadRepr", way, monkeypatch)


@pytest.mark.parametrize("way", WAYS)
def test_a_bot_calling_sys_exit_is_the_bots_error(oddbots, way, monkeypatch):
    with pytest.raises(BotError, match=WHERE + r"act\(\) called sys.exit\(3\) \(a bot must "
                       r"return an action or raise, not exit\)"):
        play("Exits", way, monkeypatch)


def test_the_command_names_the_bot_that_called_sys_exit(oddbots, capsys):
    out = oddbots / "p.parquet"
    assert main(["play", "--rules", "classic(match=single)", "--games", "2", "--out", str(out),
                 "--strategies", "oddbots:Exits,expert,expert,expert"]) == 1
    err = capsys.readouterr().err
    assert "bot 'oddbots:Exits' at seat 0, hand 0, turn" in err
    assert "act() called sys.exit(3)" in err and "Traceback" not in err


def test_the_bots_error_keeps_what_it_raised_as_its_cause(oddbots, monkeypatch):
    with pytest.raises(BotError) as e:
        play("NoAttributesPlay", "compiled", monkeypatch)
    causes = []
    x: BaseException | None = e.value
    while x is not None and len(causes) < 5:
        causes.append(x)
        x = x.__cause__
    assert any(type(c) is RuntimeError and str(c) == "no melds" for c in causes)


@pytest.mark.parametrize("way", WAYS)
def test_a_plain_bot_plays_the_same_games_every_way(oddbots, way, monkeypatch):
    ref = play("Best", "compiled", monkeypatch, games=4)
    df = play("Best", way, monkeypatch, games=4)
    names = [c for c in df if c.startswith("strategy")]
    assert df.drop(columns=names).equals(ref.drop(columns=names))
