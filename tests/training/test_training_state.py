"""A stored training state is checked when it is read: a file that is not one as training
writes it (not JSON, not an object, a field missing or of the wrong type or shape) exits 2
naming the file and the field, before any game; a sound finished state is resumed as is."""
from __future__ import annotations

import json

import pytest

from fastmach.cli import main
from fastmach.rules import Rules
from fastmach.training.meta import EmpiricalGame
from fastmach.training.space import policy_space
from fastmach.training.train import TrainConfig, Training, state_name

RULES = Rules.parse("classic")


def _finished() -> dict:
    """A finished training of classic at 4 players, the default settings (no game left)."""
    space = policy_space(RULES)
    first = space.point_of("strong(trained=0)")
    assert first is not None
    member = space.strategy(first)
    game = EmpiricalGame(RULES.players, [member])
    game.record((0,) * RULES.players, {0: 0.25})
    best = {"strategy": member, "payoff": 0.25, "baseline": 0.25, "diff": 0.0, "lo": -0.01,
            "hi": 0.01, "deals": 10}
    return Training(str(RULES), RULES.players, TrainConfig(), game, [1.0],
                    [{"iteration": 0, "best_response": best, "added": False}], True).to_json()


def _train(tmp_path, capsys, text: str) -> tuple[int, str]:
    path = tmp_path / state_name(RULES)
    path.write_text(text, encoding="utf-8")
    rc = main(["train", "-q", "--out", str(tmp_path), "classic"])
    return rc, capsys.readouterr().err


def test_a_sound_finished_state_is_resumed_without_a_game(tmp_path, capsys):
    rc, err = _train(tmp_path, capsys, json.dumps(_finished()))
    assert rc == 0, err
    assert (tmp_path / ("policy-" + state_name(RULES))).exists()


def _with(change) -> str:
    d = _finished()
    change(d)
    return json.dumps(d)


@pytest.mark.parametrize("text, words", [
    ("[1]", "expected a JSON object, got [1]"),
    ('"str"', "expected a JSON object, got 'str'"),
    ("{", "Expecting property name"),
    ("[" * 100_000, "recursion"),
    (json.dumps({"format": 1, "rules": "classic", "players": 4, "config": {},
                 "game": {"table": [], "players": 4, "members": []}, "weights": [],
                 "history": [], "done": True}), "game.members"),
    (_with(lambda d: d.pop("weights")), "missing 'weights'"),
    (_with(lambda d: d["game"].update(table={})), "no payoffs for the line-up 0,0,0,0"),
    (_with(lambda d: d["game"].update(table=[])), "game.table: expected an object"),
    (_with(lambda d: d["game"]["table"].update({"0,0,0,1": {"0": 0.2, "1": 0.3}})),
     "got '0,0,0,1'"),
    (_with(lambda d: d["game"]["table"].update({"0,0,0,0": {"0": "x"}})),
     "game.table['0,0,0,0']"),
    (_with(lambda d: d.update(history=[])), "history: expected the iterations"),
    (_with(lambda d: d.update(weights=[0.0])), "weights: expected a number >= 0"),
    (_with(lambda d: d.update(weights=[1.0, 1.0])), "weights: expected a number >= 0"),
    (_with(lambda d: d.update(done="yes")), "done: expected true or false"),
    (_with(lambda d: d["config"].update(seed="x")), "config.seed: expected an integer"),
    (_with(lambda d: d["history"][0]["best_response"].pop("deals")),
     "history[0].best_response"),
    (_with(lambda d: d["game"].update(members=["wizard"])), "unknown strategy 'wizard'"),
    (_with(lambda d: d["game"].update(members=["mybots:Bot"])), "never a Python bot"),
], ids=["list", "string", "cut", "deep", "wrong-types", "missing", "no-table", "table-list",
        "lineup", "payoff", "no-history", "zero-weights", "weights", "done", "config",
        "best-response", "member", "bot"])
def test_a_malformed_state_exits_2_naming_the_file_and_the_field(tmp_path, capsys, text,
                                                                 words):
    rc, err = _train(tmp_path, capsys, text)
    assert rc == 2
    assert f"{tmp_path / state_name(RULES)}: not a training state" in err
    assert words in err and "delete it" in err and "Traceback" not in err
    assert not (tmp_path / ("policy-" + state_name(RULES))).exists()
