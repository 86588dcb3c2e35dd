"""The stored state of a training run (:mod:`fastmach.training.train`): its settings, its
empirical game and history as JSON, and the checks of a state read back before a run
resumes from it (every field of its type and shape, its members built-in strategies, its
game whole: a damaged file is a FastmachError naming the field, never a traceback)."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from fastmach.errors import FastmachError, shown
from fastmach.training.meta import EmpiricalGame
from fastmach.training.oracle import Gain, Mixture

__all__ = ["FORMAT", "TrainConfig", "Training", "check_resumable"]

FORMAT = 1


@dataclass(frozen=True)
class TrainConfig:
    """How hard training looks: deals per line-up of the empirical game, the race's first
    rung, its halving and rungs, the fresh deals of each gain, candidates drawn per
    iteration, the stopping gain, the iteration cap, and the loss (win share) a parameter
    may cost before it is put back to its hand-tuned default (:func:`_simplify`)."""

    seed: int = 20261204
    meta_deals: int = 60
    race_deals: int = 100
    eta: int = 3
    rungs: int = 3
    check_deals: int = 1500
    sampled: int = 40
    target: float = 0.02
    iterations: int = 10
    simplify_tol: float = 0.005


@dataclass
class Training:
    """The stored state of one training run."""

    rules: str
    players: int
    config: TrainConfig
    game: EmpiricalGame
    weights: list[float] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False

    @property
    def mixture(self) -> Mixture:
        pairs = [(m, w) for m, w in zip(self.game.members, self.weights) if w > 0]
        return Mixture(tuple(m for m, _ in pairs), tuple(w for _, w in pairs))

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "rules": self.rules, "players": self.players,
                "config": asdict(self.config), "game": self.game.to_json(),
                "weights": self.weights, "history": self.history, "done": self.done}

    @classmethod
    def from_json(cls, d: Any) -> "Training":
        """The state stored as :meth:`to_json` writes it; FastmachError names the first
        field that is missing or of the wrong type or shape."""
        if not isinstance(d, dict):
            raise FastmachError(f"expected a JSON object, got {shown(d, 60)}")
        if d.get("format") != FORMAT:
            raise FastmachError(f"training state of format {d.get('format')!r}, expected {FORMAT}")
        missing = [k for k in _FIELDS if k not in d]
        if missing:
            raise FastmachError(f"missing {', '.join(map(repr, missing))}")
        if not isinstance(d["rules"], str) or not d["rules"]:
            raise _wrong("rules", "a rules string", d["rules"])
        players = d["players"]
        if not _is_int(players) or not 2 <= players <= 8:
            raise _wrong("players", "a player count 2..8", players)
        game = _game(d["game"], players)
        weights = d["weights"]
        if not isinstance(weights, list) or len(weights) != len(game.members) or not all(
                _is_number(w) and w >= 0 for w in weights) or not sum(weights) > 0:
            raise _wrong("weights", f"a number >= 0 per member of game.members "
                         f"({len(game.members)}), not all 0", weights)
        history = d["history"]
        if not isinstance(history, list) or not all(isinstance(e, dict) for e in history):
            raise _wrong("history", "a list of objects", history)
        if not isinstance(d["done"], bool):
            raise _wrong("done", "true or false", d["done"])
        return cls(d["rules"], players, _config(d["config"]), game,
                   [float(w) for w in weights], list(history), d["done"])


_FIELDS = ("rules", "players", "config", "game", "weights", "history", "done")


def _wrong(field: str, want: str, got: Any) -> FastmachError:
    return FastmachError(f"{field}: expected {want}, got {shown(got, 60)}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _config(d: Any) -> TrainConfig:
    """The stored settings, each of its type."""
    names = [f.name for f in fields(TrainConfig)]
    if not isinstance(d, dict) or sorted(d) != sorted(names):
        raise _wrong("config", f"an object of {', '.join(names)}", d)
    for f in fields(TrainConfig):
        v = d[f.name]
        if not (_is_int(v) if f.type in (int, "int") else _is_number(v)):
            raise _wrong(f"config.{f.name}", "an integer" if f.type in (int, "int")
                         else "a number", v)
    return TrainConfig(**d)


def _game(d: Any, players: int) -> EmpiricalGame:
    """The stored empirical game: its members, and for each line-up of them (the members'
    indices, sorted, one per seat) each seated member's mean payoff."""
    if not isinstance(d, dict) or sorted(d) != ["members", "players", "table"]:
        raise _wrong("game", "an object of players, members and table", d)
    if d["players"] != players or not _is_int(d["players"]):
        raise _wrong("game.players", f"{players} (the state's players)", d["players"])
    members = d["members"]
    if not isinstance(members, list) or not members or not all(
            isinstance(m, str) and m for m in members) or len(set(members)) != len(members):
        raise _wrong("game.members", "a list of distinct strategy names", members)
    table = d["table"]
    if not isinstance(table, dict):
        raise _wrong("game.table", "an object of line-ups", table)
    for key, row in table.items():
        try:
            lineup = [int(i) for i in key.split(",")]
        except ValueError:
            lineup = []
        if (len(lineup) != players or lineup != sorted(lineup)
                or not all(0 <= i < len(members) for i in lineup)
                or key != ",".join(map(str, lineup))):
            raise _wrong("game.table", f"line-ups of {players} sorted member indices "
                         f"0..{len(members) - 1}", key)
        if not isinstance(row, dict) or sorted(row) != sorted(map(str, set(lineup))) or \
                not all(_is_number(v) for v in row.values()):
            raise _wrong(f"game.table[{key!r}]", "a payoff for each member seated", row)
    return EmpiricalGame.from_json(d)


def check_resumable(training: Training) -> None:
    """What :func:`train` and its outputs use of a stored state beyond its shape: built-in
    strategies as members, a payoff for every line-up of them, and each iteration's best
    response (the last one is the exploitability figure of a finished training)."""
    from fastmach.strategies import parse_strategy
    from fastmach.strategies.botspec import BOT_PATH_RE

    for m in training.game.members:
        if BOT_PATH_RE.match(m):   # (refused unimported: a state file runs no code)
            raise _wrong("game.members", "built-in strategies, never a Python bot", m)
        try:
            parse_strategy(m)
        except FastmachError as e:
            raise FastmachError(f"game.members: {e}") from None
    names = {f.name: f.type for f in fields(Gain)}
    for n, entry in enumerate(training.history):
        g = entry.get("best_response")
        if not isinstance(g, dict) or sorted(g) != sorted(names) or not all(
                isinstance(g[k], str) if t in (str, "str") else
                _is_int(g[k]) if t in (int, "int") else _is_number(g[k])
                for k, t in names.items()):
            raise _wrong(f"history[{n}].best_response", "a best response's "
                         f"{', '.join(names)}", g)
    missing = training.game.missing()
    if missing:   # (every state is saved with its game whole)
        raise FastmachError(f"game.table: no payoffs for the line-up "
                            f"{','.join(map(str, missing[0]))} of game.members")
    if training.done and not training.history:
        raise _wrong("history", "the iterations of a finished training (done is true)",
                     training.history)
