"""The linear-policy example's self-play: snapshots of the learner join the table."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from fastmach.env import N_ACTIONS
from fastmach.env.policy import LinearPolicy, PolicyBot


def _example():
    root = next(p for p in Path(__file__).resolve().parents if (p / "examples").is_dir())
    spec = importlib.util.spec_from_file_location(
        "train_linear_policy", root / "examples" / "train_linear_policy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_self_play_seats_the_latest_snapshot_against_the_learner_and_experts_beside_it():
    mod = _example()
    assert mod.opponents("classic", []) == ["expert"] * 3
    a, b = (LinearPolicy(np.full((N_ACTIONS, 4), float(k)), np.zeros(N_ACTIONS)) for k in (1, 2))
    seats = mod.opponents("classic(players=3)", [a, b])
    assert len(seats) == 2 and seats[1] == "expert"
    assert isinstance(seats[0], PolicyBot) and seats[0].policy is b


def test_self_play_training_plays_generations_against_its_snapshots(tmp_path, capsys):
    mod = _example()
    out = str(tmp_path / "agent.npz")
    assert mod.main(["--rules", "classic(players=3,match=single)", "--generations", "3",
                     "--candidates", "2", "--deals", "2", "--eval", "2", "--self-play", "2",
                     "--out", out]) == 0
    lines = capsys.readouterr().out.splitlines()
    gens = [ln for ln in lines if ln.startswith("generation")]
    assert len(gens) == 3
    assert ["against a snapshot" in ln for ln in gens] == [False, False, True]
    assert LinearPolicy.load(out).W.shape[0] == N_ACTIONS
