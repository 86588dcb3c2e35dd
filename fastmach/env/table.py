"""One game for the environments: the reference State, the mover's macro-actions, the
observation vectors and the rewards (shared by the AEC, single-agent and vector
environments).

Seats: ``reset(seed)`` deals replicate 0 of root seed ``seed`` (``Game.new_initial_state``:
the same deals as ``fastmach play --seed``); a reset without a seed deals the next
replicate of the same root, so a seeded sequence of episodes is reproducible. Before the
first seed the root comes from the operating system.

The other seats' turns (``turns=``): ``"compiled"`` (the default) plays them in C
(fastmach.env._turns: the engine's strategies and game flow on the State's position,
leaving the State exactly as its own steps would); ``"reference"`` steps the State turn
by turn. A seat played by a Python bot is always stepped by the State.

Rewards (``reward=``): ``"match"`` each seat's win share of the match when it ends (1 a
sole winner, 1/k each of k tied winners under ``ties = "shared"``, 0 otherwise);
``"hand"`` each seat's win share of every hand when that hand ends (a single-hand match
gives the same as ``"match"``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from fastmach.core.cards import card_str
from fastmach.errors import FastmachError
from fastmach.game import Game, State
from fastmach.game.actions import Action, Draw, Play
from fastmach.game.deal import check_seed as _check_seed
from fastmach.rules import Rules, rules_of
from fastmach.strategies import Observation

from ._turns import Turns
from .encoding import Encoder, Layout
from ._probe import Probe
from .moves import ACTIONS, N_ACTIONS, Moves

__all__ = ["Table", "REWARDS", "TURNS", "rules_of"]

REWARDS = ("match", "hand")
TURNS = ("compiled", "reference")
_NO_MOVES = np.zeros(N_ACTIONS, dtype=np.int8)
_new = object.__new__


def _observation(st: State, seat: int) -> Observation:
    """``st.observation(seat)`` sharing the game's frozen Rules rather than copying them
    (the environment's own use; tests compare the two)."""
    obs = _new(Observation)   # (every field given, of its type: the frozen __init__ skipped)
    obs.__dict__.update(
        seat=seat, hand=tuple(st.hand_of(seat)), table=tuple(map(tuple, st._melds)),
        stands=tuple(map(tuple, st._stands)), stock=st._left(), hand_sizes=st._sizes(),
        scores=tuple(st.scores), opened=st.opened[seat], rules=st.rules,
        hand_index=st.hand_index, turn=st.turn + 1, opened_seats=tuple(st.opened),
        history=tuple(st._public))
    return obs


class Table:
    """A game in progress for the environments (seats are 0..P-1)."""

    def __init__(self, rules: Rules, seats: Sequence, reward: str = "match",
                 turns: str = "compiled"):
        if reward not in REWARDS:
            raise FastmachError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if turns not in TURNS:
            raise FastmachError(f"turns must be one of {', '.join(TURNS)}, got {turns!r}")
        self.game = Game(rules, seats)
        self.turns = turns
        t = Turns(self.game._engine) if turns == "compiled" else None
        self._turns = t if t is not None and t.usable else None
        self._seats = list(seats)
        self.log: list[Action | None] = []   # this match's actions (None: a strategy's)
        self.rules = self.game.rules
        self.reward = reward
        self.layout = Layout(self.rules)
        self.encoder = Encoder(self.layout)
        self.root = int(np.random.SeedSequence().entropy) % 2**63  # type: ignore[arg-type]
        self.replicate = -1
        self.state: State | None = None
        self._moves: Moves | None = None
        self._probes: tuple[object, dict[int, bool]] = (None, {})
        self._probe = Probe(self.rules)   # (its own: games stepped in turn keep their tables)

    def reset(self, seed: int | None = None) -> State:
        if seed is not None:
            self.root, self.replicate = _check_seed(seed), 0
        else:
            self.replicate += 1
        self.state = self.game.new_initial_state(self.root, self.replicate)
        self._moves = None
        self.log = []
        return self.state

    def clone(self) -> "Table":
        """An independent copy of the game in progress (the Game, its engines and seats
        shared)."""
        new = Table.__new__(Table)
        new.__dict__.update(self.__dict__)
        new.state = None if self.state is None else self.state.clone()
        new.encoder = self.encoder.copy()
        new.log = list(self.log)
        new._moves = None
        return new

    def __deepcopy__(self, memo) -> "Table":
        return self.clone()

    def __getstate__(self) -> dict:
        """What rebuilds this game: the rules, seats and reward, the deal, the actions."""
        return {"rules": self.rules, "seats": self._seats, "reward": self.reward,
                "turns": self.turns,
                "root": self.root, "replicate": self.replicate,
                "dealt": self.state is not None, "log": list(self.log)}

    def __setstate__(self, s: dict) -> None:
        self.__init__(s["rules"], s["seats"], s["reward"],  # type: ignore[misc]
                      s.get("turns", "compiled"))
        self.root, self.replicate = s["root"], s["replicate"]
        if s["dealt"]:
            self.state = self.game.new_initial_state(self.root, self.replicate)
            for a in s["log"]:
                self.apply(a)

    @property
    def live(self) -> State:
        """The game being played; a clear error before the first ``reset``."""
        if self.state is None:
            raise FastmachError("the environment is not dealt yet: call reset() first")
        return self.state

    @property
    def moves(self) -> Moves:
        """The current seat's macro-actions (the mask computed on first use, each play
        when it is taken)."""
        if self._moves is None:
            st = self.live
            obs = _observation(st, st.current_player)
            if self._probes[0] != (obs.table, obs.stands):   # (single cards joining it: kept)
                self._probes = ((obs.table, obs.stands), {})
            self._moves = Moves(obs, self.game, self._probes[1], self._probe,
                                st._hands[st.current_player].copy(), list(st.failed_last),
                                self._expert_play)
        return self._moves

    def mask(self, seat: int) -> np.ndarray:
        """The action mask of ``seat``: all zeros when it is not its turn."""
        st = self.live
        if st.is_terminal() or seat != st.current_player:
            return _NO_MOVES.copy()
        return self.moves.mask.copy()

    def observe(self, seat: int, out: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8 mask}`` of ``seat``
        (the vector written into ``out`` when given)."""
        st = self.live
        mask = self.mask(seat)
        best = None
        if not st.is_terminal() and seat == st.current_player:
            obs = self.moves.obs
            best = self.moves.max_play()
        else:
            obs = _observation(st, seat)
        vec = self.encoder.encode(obs, mask, out, best)
        return {"observation": vec, "action_mask": mask}

    def apply(self, action: Action | None = None) -> list[float]:
        """Apply ``action`` (None: the seat's own strategy decides) for the current seat;
        returns every seat's reward from this turn."""
        st = self.live
        hands = len(st.hand_results)
        fast = None if action is None or self._turns is None else self._given(st, action)
        if fast is not None:
            self._turns.play(st, -1, -1, fast)   # type: ignore[union-attr]
        elif action is None:
            st.step()
        else:
            st.apply_action(action)
        self.log.append(action)
        self._moves = None
        return self._reward(st, hands)

    def _expert_play(self):
        """The expert's play for the seat to play, from the compiled turns' position
        (NotImplemented where they do not hold it: the moves then ask the engine)."""
        if self._turns is None:
            return NotImplemented
        return self._turns.expert(self.state, self.game.expert_engine())

    def _given(self, st: State, action: Action) -> tuple | None:
        """``action`` as the compiled turns take it (fastmach.env._turns), where it is a
        draw from a stock that holds a card under ``may_draw_when_able`` or a play the
        State's compiled check accepts (its records then as the State's own); None for
        anything else (the State applies it, checks and all)."""
        if st.is_terminal():
            return None
        t = type(action)
        if t is Draw:
            return (1,) if st._stock_pos < len(st._stock) and self.rules.may_draw_when_able \
                else None
        if t is not Play or action.stands is None or self.rules.ace_code == 2:  # type: ignore[union-attr]
            return None
        seat = st.current_player
        if not self.game.play_check.accepts(st._hands[seat], st._melds, st._stands,
                                            st.opened[seat], action):
            return None
        return (0, action.placed, len(action.taken), action.melds, action.stands)  # type: ignore[union-attr]

    def act(self, seat: int, action: Action, limit: int | None = None) -> float:
        """Apply ``seat``'s ``action`` (it is to play), then play the other seats as
        ``play_others`` does; returns the reward to ``seat`` of both, summed as
        ``apply(action)[seat] + play_others(seat, limit)``."""
        st = self.live
        fast = None if self._turns is None else self._given(st, action)
        if fast is None:
            reward = self.apply(action)[seat]
            return reward + self.play_others(seat, limit)
        hands = len(st.hand_results)
        n = self._turns.play(st, seat, -1 if limit is None else limit, fast,  # type: ignore[union-attr]
                             True)
        self.log.append(action)
        self.log.extend([None] * (n - 1))
        self._moves = None
        if len(st.hand_results) > hands and n == 1:   # its own turn ended the hand
            reward = self._reward(st, hands)[seat]
            return reward + self.play_others(seat, limit)
        return 0.0 + self._others_reward(st, hands, seat)

    def _reward(self, st: State, hands: int) -> list[float]:
        """Every seat's reward from the one turn just played (``hands``: the hands over
        before it)."""
        if len(st.hand_results) == hands:
            return [0.0] * self.rules.players
        if self.reward == "hand":
            return [float(x) for x in st.hand_results[-1].shares]
        if st.is_terminal():
            return [float(x) for x in st.win_shares()]
        return [0.0] * self.rules.players

    def _others_reward(self, st: State, hands: int, seat: int) -> float:
        """The reward to ``seat`` of the turns played since ``hands`` hands were over,
        summed turn by turn from 0.0 (a hand's end gives one)."""
        total = 0.0
        if self.reward == "hand":
            for h in st.hand_results[hands:]:
                total += float(h.shares[seat])
        elif st.is_terminal() and len(st.hand_results) > hands:
            total += float(st.win_shares()[seat])
        return total

    def play_others(self, seat: int, limit: int | None = None) -> float:
        """Play the turns of the seats other than ``seat`` (their strategies) until its
        turn, the end of the match or (``limit``) ``total_turns >= limit``; returns their
        reward to ``seat``."""
        st = self.live
        if self._turns is None:
            total = 0.0
            while not st.is_terminal() and st.current_player != seat \
                    and not (limit is not None and st.total_turns >= limit):
                total += self.apply()[seat]
            return total
        hands = len(st.hand_results)
        n = self._turns.play(st, seat, -1 if limit is None else limit)
        if not n:
            return 0.0
        self.log.extend([None] * n)
        self._moves = None
        return self._others_reward(st, hands, seat)

    def render(self, seat: int | None = None) -> str:
        """The table as text: melds, stock, hand sizes, scores, the last turns, and the
        hand of ``seat`` (default the seat to play)."""
        st = self.state
        if st is None:
            return "(not dealt: call reset)"
        P = self.rules.players
        seat = st.current_player if seat is None else seat
        lines = [f"{self.rules} | hand {st.hand_index}, turn {st.turn + 1} | stock "
                 f"{len(st.stock)} | scores {st.scores}"
                 + (" | over" if st.is_terminal() else f" | seat {st.current_player} to play")]
        for m in st.table:
            lines.append("  " + " ".join(card_str(c) for c in m))
        sizes = ", ".join(f"{s}: {n}" for s, n in enumerate(len(h) for h in st.hands))
        lines.append(f"  hand sizes {sizes}; opened {[s for s in range(P) if st.opened[s]]}")
        for t in st.public_history[-P:]:
            what = " ".join(card_str(c) for c in t.placed) if t.placed else f"{t.drawn} card(s)"
            lines.append(f"  turn {t.turn}: seat {t.seat} {t.action} {what}")
        if not st.is_terminal():
            lines.append(f"  seat {seat} holds " + " ".join(card_str(c) for c in st.hand_of(seat)))
            if seat == st.current_player:
                legal = [ACTIONS[k] for k in np.flatnonzero(self.moves.mask)]
                lines.append(f"  legal: {', '.join(legal)}")
        return "\n".join(lines)
