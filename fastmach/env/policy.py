"""Any policy over the environment's observations as a fastmach bot: ``PolicyBot``.

A policy is a function ``policy(vector, mask) -> action``: ``vector`` the float32
observation of fastmach.env.encoding, ``mask`` the int8 action mask (fastmach.env.moves),
the answer a macro-action index or an array of N_ACTIONS scores (logits, probabilities,
Q-values: the legal action with the highest score is played). A trained network is one
such function (``lambda v, m: net(torch.as_tensor(v)).detach().numpy()``).

The bot builds the observation and the moves from the ``Observation`` the engine hands
it, as the environments do, so it plays wherever a Python bot does: ``fastmach play``,
``rate``, ``compare`` and studies, by its strategy string
``fastmach.env.policy:PolicyBot(policy=SPEC)``, where SPEC is

- ``package.module:name``: a policy function (or a class whose instance is one);
- a path to an ``.npz`` file holding ``W`` (N_ACTIONS x vector size) and ``b``
  (N_ACTIONS): the linear policy ``scores = W @ vector + b`` (examples/train_agent.py
  writes one with ``--save``).

A Python bot cannot answer with a botched play (the engine refuses a ``Fail`` from a
bot), so the ``botch`` action plays the draw instead, or where the draw is not allowed
the ``max_cards`` play. In the environments the botch is the real one.
"""
from __future__ import annotations

import importlib
import os
from typing import Any, Callable

import numpy as np

from fastmach.errors import FastmachError
from fastmach.game.actions import Action
from fastmach.strategies import Observation

from .encoding import Encoder, Layout
from .moves import BOTCH, DRAW, MAX_CARDS, N_ACTIONS, Moves

__all__ = ["PolicyBot", "LinearPolicy", "load_policy", "max_cards", "hold_until_out", "choose"]

Policy = Callable[[np.ndarray, np.ndarray], Any]


class LinearPolicy:
    """``scores = W @ vector + b`` (``W``: N_ACTIONS x size, ``b``: N_ACTIONS)."""

    def __init__(self, W: np.ndarray, b: np.ndarray):
        self.W, self.b = _numbers("W", W), _numbers("b", b)
        if self.W.ndim != 2 or self.W.shape[0] != N_ACTIONS or self.b.shape != (N_ACTIONS,):
            raise FastmachError(f"a linear policy needs W of shape ({N_ACTIONS}, size) and b "
                                f"of shape ({N_ACTIONS},), got {self.W.shape} and {self.b.shape}")

    @classmethod
    def load(cls, path: str) -> "LinearPolicy":
        try:
            with np.load(path) as f:
                return cls(f["W"], f["b"])
        except (OSError, KeyError, ValueError) as e:
            raise FastmachError(f"policy file {path!r}: {e}") from None

    def save(self, path: str) -> None:
        """Write the weights to ``path`` (.npz), atomically."""
        tmp = f"{path}.tmp.npz"
        np.savez(tmp, W=self.W, b=self.b)
        os.replace(tmp, path)

    def __call__(self, vector: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if vector.shape[0] != self.W.shape[1]:
            raise FastmachError(f"a linear policy of {self.W.shape[1]} inputs was given an "
                                f"observation of {vector.shape[0]} values (other rules?)")
        return self.W @ vector + self.b


def _numbers(name: str, x: Any) -> np.ndarray:
    """``x`` as a float64 array; FastmachError naming the linear policy's argument."""
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise FastmachError(f"a linear policy's {name} must be an array of numbers "
                            f"({type(e).__name__}: {e})") from None


def max_cards(vector: np.ndarray, mask: np.ndarray) -> int:
    """A policy: the expert's play where there is one, else the draw."""
    return MAX_CARDS if mask[MAX_CARDS] else DRAW


def hold_until_out(vector: np.ndarray, mask: np.ndarray) -> int:
    """A policy: hold (draw) until the expert's play empties the hand, then make it; where
    drawing is not allowed, the expert's play. (It reads the ``max_play`` part, the
    vector's last two values.)"""
    if mask[MAX_CARDS] and (vector[-1] > 0.5 or not mask[DRAW]):
        return MAX_CARDS
    return DRAW


def load_policy(spec: str) -> Policy:
    """The policy named by ``spec``: an .npz file of a linear policy, or
    ``package.module:name`` (a function, or a class whose instance is one)."""
    if spec.endswith(".npz"):
        return LinearPolicy.load(spec)
    mod, sep, name = spec.partition(":")
    if not sep or not mod or not name:
        raise FastmachError(f"policy {spec!r}: give package.module:name or a .npz file")
    try:
        obj: Any = importlib.import_module(mod)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise FastmachError(f"policy {spec!r}: {e}") from None
    if isinstance(obj, type):
        obj = obj()
    if not callable(obj):
        raise FastmachError(f"policy {spec!r} is not callable")
    return obj


def choose(answer: Any, mask: np.ndarray) -> int:
    """The macro-action of a policy's ``answer`` (an index, or N_ACTIONS scores: the
    legal one scored highest); FastmachError for a masked index or a bad answer."""
    if np.ndim(answer) == 0:
        try:
            k = int(answer)
        except (TypeError, ValueError):
            raise FastmachError(f"the policy answered {answer!r}: an action index or "
                                f"{N_ACTIONS} scores expected") from None
        if not 0 <= k < N_ACTIONS or not mask[k]:
            raise FastmachError(f"the policy chose action {k}, which is masked now (legal: "
                                f"{np.flatnonzero(mask).tolist()})")
        return k
    scores = np.asarray(answer, dtype=np.float64).ravel()
    if scores.shape != (N_ACTIONS,):
        raise FastmachError(f"the policy answered {scores.shape[0]} scores, "
                            f"{N_ACTIONS} expected")
    return int(np.argmax(np.where(mask > 0, scores, -np.inf)))


class PolicyBot:
    """A Python bot that plays ``policy`` (a strategy string or a function: see the
    module's docstring) over the environment's observation of its seat."""

    def __init__(self, policy: str = "fastmach.env.policy:max_cards"):
        if isinstance(policy, os.PathLike):   # (a .npz file's path)
            policy = os.fspath(policy)
        self.spec = policy
        if isinstance(policy, str):
            self.policy: Policy = load_policy(policy)
        elif callable(policy):
            self.policy = policy
        else:
            raise FastmachError(f"PolicyBot: policy must be a function (vector, mask) -> "
                                f"action, 'package.module:name' or the path of an .npz "
                                f"file; got {type(policy).__name__}")
        self._encoders: dict[str, Encoder] = {}

    @classmethod
    def of(cls, policy: Policy) -> "PolicyBot":
        """The bot of a policy function held in Python (not by name)."""
        return cls(policy)  # type: ignore[arg-type]

    def decide(self, obs: Observation) -> tuple[int, Moves, np.ndarray]:
        """(macro-action, the moves, the observation vector) of the policy in ``obs``."""
        key = str(obs.rules)
        enc = self._encoders.get(key)
        if enc is None:
            enc = self._encoders[key] = Encoder(Layout(obs.rules))
        moves = Moves(obs)
        mask = moves.mask
        vec = enc.encode(obs, mask, None, moves.max_play())
        return choose(self.policy(vec, mask), mask), moves, vec

    def act(self, obs: Observation) -> Action:
        k, moves, _ = self.decide(obs)
        if k == BOTCH:   # (a bot cannot botch: the draw, else the expert's play)
            k = DRAW if moves.mask[DRAW] else MAX_CARDS
        return moves.action(k)

    def __call__(self, vector: np.ndarray, mask: np.ndarray) -> Any:
        """The policy itself (so a PolicyBot is a policy too)."""
        return self.policy(vector, mask)
