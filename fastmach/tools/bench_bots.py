"""``fastmach bench bots``: what a Python bot costs, for the figures in notes (no asserts).

- games/s of two ``MaxPlacement`` bots with two experts against four experts, the two
  timed in turn (the best of ``repeats``), on the fast check of a bot's play and with
  ``check=True`` (the independent validator for every play, and the engine's invariants);
- the reference ``State``: actions applied per second stepping whole games (``step``, the
  seats' own strategies) and the time of a ``clone``;
- ``fastmach replay`` of a log of the expert games: games re-checked per second.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

RULES = "classic(match=single)"

__all__ = ["bench_bots", "format_bots"]


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_bots(games: int = 200, seed: int = 0, repeats: int = 3) -> dict:
    """The figures of the module docstring, as a dict (seconds and rates)."""
    from fastmach.engine import play_games
    from fastmach.game import Game
    from fastmach.game.log_reader import replay
    from fastmach.strategies.examples import MaxPlacement

    reps = range(games)
    experts = ["expert"] * 4
    bots = [MaxPlacement(), "expert", MaxPlacement(), "expert"]
    play_games(RULES, bots, seed, range(2))  # warm-up
    t_exp, t_bot, t_strict = float("inf"), float("inf"), float("inf")
    for _ in range(max(1, repeats)):  # in turn, so that a loaded machine slows all three
        t_exp = min(t_exp, _best(lambda: play_games(RULES, experts, seed, reps), 1))
        t_bot = min(t_bot, _best(lambda: play_games(RULES, bots, seed, reps), 1))
        t_strict = min(t_strict, _best(lambda: play_games(RULES, bots, seed, reps,
                                                          check=True), 1))
    game = Game(RULES)
    steps, t0 = 0, time.perf_counter()
    n_state = max(5, games // 20)
    for r in range(n_state):
        st = game.new_initial_state(seed, r)
        while not st.is_terminal():
            st.step()
            steps += 1
    t_state = time.perf_counter() - t0
    st = game.new_initial_state(seed, 0)
    for _ in range(10):
        st.step()
    n_clone = 200
    t_clone = _best(lambda: [st.clone() for _ in range(n_clone)], repeats) / n_clone
    with tempfile.TemporaryDirectory(prefix="fastmach-bench-") as tmp:
        log = Path(tmp) / "games.jsonl"
        play_games(RULES, experts, seed, reps, log=log)
        t_replay = _best(lambda: replay(log), 1)
    return {"games": games, "experts_games_per_s": games / t_exp,
            "bots_games_per_s": games / t_bot, "bots_strict_games_per_s": games / t_strict,
            "ratio": t_exp / t_bot, "ratio_strict": t_exp / t_strict,
            "state_steps_per_s": steps / t_state, "state_games": n_state,
            "clone_us": t_clone * 1e6, "replay_games_per_s": games / t_replay}


def format_bots(r: dict) -> str:
    g = r["games"]
    return "\n".join([
        f"fastmach bench bots: {RULES}, 4 seats, {g} games, one core",
        f"  4 x expert                         {r['experts_games_per_s']:10.0f} games/s",
        f"  2 x MaxPlacement + 2 x expert      {r['bots_games_per_s']:10.0f} games/s "
        f"({r['ratio']:.2f}x the experts)",
        f"    with check=True (the validator)  {r['bots_strict_games_per_s']:10.0f} games/s "
        f"({r['ratio_strict']:.2f}x)",
        f"  State.step (the seats' strategies) {r['state_steps_per_s']:10.0f} actions/s "
        f"({r['state_games']} games)",
        f"  State.clone                        {r['clone_us']:10.1f} µs",
        f"  replay of the experts' log         {r['replay_games_per_s']:10.0f} games/s",
    ])
