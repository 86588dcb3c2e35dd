"""Whole games in batches: ``play_games`` (one row per game) and the ``play`` command.

The turn loop runs in ``fastmach.engine._engine`` (Cython, no Python object, GIL released
unless a Python bot sits at the table); each seat's strategy is a compiled object built by
``fastmach.strategies.build_seats``. This module validates rules and strategies, derives
the deals and returns a tidy DataFrame.

Seeding. Replicate ``r`` of root seed ``S`` uses ``rng = default_rng(SeedSequence([r, S]))``:
the deck (sorted card ids: each of the 52 types ``decks`` times, then the jokers) is
``rng.permutation(deck)``, then the dealer is ``rng.integers(players)``, then the game's
64-bit in-game seed ``rng.integers(0, 2**64, dtype=uint64)`` (splitmix64 in the engine;
used by fallible and, later, lookahead players). Cards are dealt one at a time starting
left of the dealer (seat ``dealer + 1``, who plays first unless the rules cut for it);
the rest is the stock, drawn
from the front. Later hands of a match use ``rng.permutation(deck)`` again from the same
stream, the dealer moving one seat clockwise each hand. Under ``first_player_by = "cut"``
the seat that cuts highest plays first: one more draw, ``rng.integers(players)`` right
after the in-game seed (the cut's distribution: every seat alike, ties re-cut), and the
next seat clockwise starts each later hand. A game therefore depends only on
(rules, seats, root seed, replicate), never on batch size or worker count.

Model choices (where the rule texts leave room; docs/rules.md lists them all):

- ``score_i`` is penalty points (``hand_points`` scheme), lower is better: the hand's
  points for a single hand, the total over the hands of a match; a hand's winners (the
  player who emptied their hand, or the lowest hand(s) that win a blocked / stock-out
  hand) pay nothing (003: "chaque autre joueur compte les cartes encore en main").
  ``scoring = "winner-takes"`` (003's single deal, ``match=single`` only): the winners
  score the sum of the other players' hand points, the others 0 (higher is better); k
  tied winners split it, each scoring sum // k (points are whole numbers: the remainder
  is dropped; 003 speaks of one winner). Match winner: lowest total, a tie gives -1. Single hand: the hand's
  winner (emptied, or ``blocked_winner`` on a blocked / stock-out hand: "none" -> -1,
  "lowest" -> lowest hand points, tie -> -1).
- ``win_share_i``: 1 for the sole winner, 1/k for each of k tied winners under
  ``ties = "shared"``, 0 for everyone where nobody wins (a tie under ``ties = "draw"``,
  a blocked hand under ``blocked_winner = "none"``). ``winner`` stays the sole winner.
- ``hands=True``: one row per hand as well (:func:`hand_frame`), the hand's own figures
  (its turns, its stock-out turn counted within the hand, its shares) and each seat's
  match score after it.
- ``rotations:N`` plays N x players hands; ``threshold:T`` plays hands until a total
  reaches T (passes it under ``threshold_reached = "exceed"``: ``Rules.match_end_total``).
- Match rows: ``turns``, ``rounds``, ``cards_drawn``, ``plays``, ``failed`` are summed over
  the hands, ``max_table`` is the maximum, ``end``, ``cards_left_i``, ``hand_points_i``
  describe the last hand, ``first_player`` the first hand, ``stock_exhausted`` is true if
  the stock ran out in any hand, ``stock_exhausted_turn`` counts turns from the start of
  the match (1-based turn that drew the last stock card; 0 when the deal left no stock;
  -1 never). Extra columns: ``hands`` (hands played), ``dealer`` (first dealer).
- ``rounds`` = ceil(turns / players) per hand.
- play-on: a player who would draw passes. After ``players`` consecutive turns, begun
  with an empty stock, that added no card (a full round), the hand is blocked when no seat
  can add a card: the exact solver decides, a fact of the position (001 "personne ne peut
  jouer pendant un tour complet"), not of each player's skill. While a seat could play,
  play goes on (a player who misses a play is making an error), and the hand is blocked
  all the same after ``BLOCK_ROUNDS`` (10) such rounds: only players who cannot see their
  plays, or keep botching them, remain. Hand rows count, per seat, the draws and passes
  made while a play existed (``draws_when_able_i``, ``passes_when_able_i``): where the
  rules bind a player to play (``may_draw_when_able`` / ``may_pass_when_able`` false) a
  skill level is bound by the plays it can see (004's "se non può calare ... è costretto
  a pescare" read from the player's own view), and these columns say how often that
  reading let a seat draw or pass past a play.
- ends-hand: the hand ends (``stock-out``) at the end of the turn that draws the stock's
  last card (a draw, or a failed manipulation's penalty, which takes only the cards still
  available): 003's "si la pioche s'épuise avant que quiconque ne termine".
- ``joker_swap = "hand"``: a player who has opened may take table jokers back into the
  hand by putting in their place the real card each stands for (in the current meld list,
  the solver's witness); the swapped-in cards count as placed, so the turn is a play. The
  expert swaps every joker it can when the play that follows puts at least as many cards
  (net) as the best play without swapping.
- opening: before a player's first play, only melds of hand cards worth at least
  ``opening_points`` (A 1, J/Q/K 10, a joker as the card it stands for; best set by
  points, then cards); the opening player cannot touch the table on that turn. Every
  strategy opens this way (skill does not matter for hand-only melds).
- strategies (``fastmach.strategies``): beginner / intermediate(k) / expert skill levels,
  tactics (objective, keep_jokers, patience), fallible players, lookahead; only the
  expert's skill (expert, patient, lookahead) takes jokers back under
  ``joker_swap = "hand"``. Under ``failed_penalty = 0`` a
  player who failed on their previous turn does not fail this turn (a hand cannot stall).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Literal, Sequence, cast, overload

import numpy as np

import fastmach.core._batch as _batch
from fastmach.core.cards import JOKER, NCARD, card_points
from fastmach.game.deal import check_seed as _check_seed, deck_of, resolve_seed as _resolve_seed
from fastmach.game.log_writer import write_log
from fastmach.errors import FastmachError
from fastmach.outputs import as_path, expect_suffix, probe_append
from fastmach.rules import Rules, is_integer, resolve_rules
from fastmach.solver import POINT_SCALE, opening_weights
from fastmach.strategies import (Context, Strategy, build_seats, parse_seats, rotations_of,
                                 seating, split_strategies)
from fastmach.strategies.bots import BotStrategy

__all__ = ["play_games", "play_columns", "run_play", "run_play_columns", "hand_frame",
           "hand_shares", "game_shares", "engine_config", "make_engine", "deck_of", "bench"]

try:
    from fastmach.engine import _engine
except ImportError as _err:  # pragma: no cover
    from fastmach.core._check_build import raise_build_error

    raise_build_error(_err)

from fastmach.engine.columns import (Columns, concat, game_columns, game_shares,  # noqa: E402
                                     hand_columns, hand_shares, summary as _summary,
                                     with_rotation)
from fastmach.engine.progress import Progress  # noqa: E402

if TYPE_CHECKING:
    import pandas as pd

_MATCH_CODES = {"single": 0, "rotations": 1, "threshold": 2}

#: Most games one ``play`` run may play (every line-up's games together): its rows are kept
#: in memory (about 0.3 KB each), so larger runs belong in a study (``fastmach sweep``,
#: chunked on disk, capped by ``fastmach.study.plan.MAX_GAMES``).
MAX_PLAY_GAMES = 10**7


def engine_config(rules: Rules, check: bool = False) -> dict:
    """The rules for the compiled core: ``rules`` holds exactly the fields of the C struct
    ``ERules`` (fastmach/game/_turn.pxd, converted field by field by Cython: a field missing
    here is an error, not a silent zero), the rest is the engine's (deck, match)."""
    ow, ojw = opening_weights()
    hp = card_points(rules.hand_points).astype(np.int64)
    deck = deck_of(rules)
    pw = hp * POINT_SCALE + 1  # objective=points: points first, ties to more cards
    erules = dict(
        players=rules.players,
        deck_size=rules.deck_size,
        hand_size=rules.hand_size,
        swap_hand=int(rules.joker_swap == "hand"),
        may_draw=int(rules.may_draw_when_able),
        may_pass=int(rules.may_pass_when_able),
        opening=rules.opening_points,
        penalty=rules.failed_penalty,
        ends_hand=int(rules.stock_empty == "ends-hand"),
        block_round=int(rules.blocked_when == "round"),
        lowest=int(rules.blocked_winner == "lowest"),
        ties_shared=int(rules.ties == "shared"),
        winner_takes=int(rules.scoring == "winner-takes"),
        srules=dict(decks=rules.decks, ace_high=rules.ace_code,
                    jokers_per_meld=rules.jokers_per_meld),
        hpts=hp.tolist(),
        ones=[1] * NCARD,
        ones_j=[1] * 16,
        open_w=np.asarray(ow).tolist(),
        open_jw=np.asarray(ojw).tolist(),
        open_scale=POINT_SCALE,
        pw=pw.tolist(),
        pw_j=[int(pw[JOKER])] * 16,
        deck_counts=np.bincount(deck, minlength=NCARD).tolist(),
    )
    return dict(
        rules=erules,
        deck=deck,
        first_cut=int(rules.first_player_by == "cut"),
        match_kind=_MATCH_CODES[rules.match_kind],
        match_value=rules.match_value,
        match_end=rules.match_end_total,
        check=bool(check),
    )


def make_engine(rules: Rules | str, seats: Sequence[str | Strategy], check: bool = False,
                classes: dict[str, type] | None = None, shared_solver: bool = False
                ) -> tuple[Rules, list[Strategy | BotStrategy], Any]:
    """Validated rules and seats -> (Rules, [Strategy], compiled Engine).

    ``classes`` replaces registered strategy classes by name (test hooks, see
    ``fastmach.strategies._probe``). ``shared_solver``: the engine solves with the Python
    solve's solver and keeps the GIL (the reference State's engines: a position a seat's
    strategy solved is then in the memo when the State asks whether the seat could play).

    ``check``: the engine verifies its invariants after every turn (card conservation,
    hand counts, meld list = table cards, melds of 3+ cards, a play adds a card, a
    non-play leaves the table alone) and raises RuntimeError naming the first broken one;
    and a Python bot's plays are checked by the independent validator, not the compiled
    check first.
    """
    rules = resolve_rules(rules)
    strategies = parse_seats(seats, rules.players)
    cfg = engine_config(rules, check)
    ctx = Context(cfg, _batch.python_solver() if shared_solver else None)
    compiled = build_seats(strategies, ctx, rules, classes, strict=bool(check))
    return rules, strategies, _engine.Engine(cfg, ctx, compiled)


def _replicates(replicates) -> np.ndarray:
    reps = np.asarray(replicates)
    if reps.ndim != 1:
        raise FastmachError(f"replicates must be a 1-D sequence of integers, got shape {reps.shape}")
    if reps.size and reps.dtype.kind not in "iu":
        raise FastmachError(f"replicates must be integers, got dtype {reps.dtype}")
    reps = reps.astype(np.int64)
    if reps.size and reps.min() < 0:
        raise FastmachError(f"replicates must be >= 0, got {int(reps.min())}")
    return reps


def play_games(
    rules: Rules | str,
    seats: Sequence[Any],
    root_seed: int,
    replicates: Sequence[int] | np.ndarray,
    *,
    hands: bool = False,
    log: str | Path | None = None,
    check: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Play one game (a hand, or a match) per replicate; one row per game.

    ``seats``: one strategy per seat (``len == rules.players``): a registered strategy
    string, a Python bot or a bot's import path (``fastmach.strategies.bots``).
    ``hands``: return ``(games, hands)``, the second with one row per hand played
    (:func:`hand_frame`). ``log``: also write every game as JSON lines, as the engine
    played it (see ``fastmach.game.log_reader``), appended to the file. ``check``: verify the
    engine's invariants after every turn (slower; for tests).
    """
    import pandas as pd

    out = play_columns(rules, seats, root_seed, replicates, hands=hands, log=log, check=check)
    if isinstance(out, tuple):   # (hands=True)
        return pd.DataFrame(out[0]), pd.DataFrame(out[1])
    return pd.DataFrame(out)


def _check_log_path(log) -> None:
    """A log path before the games: a path (not True, not a file descriptor) named
    ``.jsonl`` or ``.jsonl.gz`` (never a file of another kind: a bot's source), not a
    directory, in a directory that exists, that can be appended to."""
    expect_suffix(probe_append(as_path(log, "log="), "log="), "log=", *LOG_ENDINGS)


#: a log's name ends so (an output is never written under a name of another kind: a bot's
#: source, a table)
LOG_ENDINGS = (".jsonl", ".jsonl.gz")


def play_columns(
    rules: Rules | str,
    seats: Sequence[Any],
    root_seed: int,
    replicates: Sequence[int] | np.ndarray,
    *,
    hands: bool = False,
    log: str | Path | None = None,
    check: bool = False,
    log_of: int | None = None,
    log_close: int | None = None,
) -> Columns | tuple[Columns, Columns]:
    """:func:`play_games`, its rows as columns (:mod:`fastmach.engine.columns`; no pandas).
    ``log_of``: the games the whole log will hold, when it is written in several calls
    (its closing records say so: a log cut after one of them is then seen as cut);
    ``log_close``: the games this call's closing record counts, 0 for none
    (:func:`fastmach.game.log_writer.write_log`)."""
    rules, strategies, eng = make_engine(rules, seats, check)
    seed = _check_seed(root_seed)
    reps = _replicates(replicates)
    if log is not None:
        _check_log_path(log)
    out = eng.play_batch(seed, reps, hands=bool(hands), record=log is not None)
    cols = game_columns(rules, strategies, seed, reps, out)
    if log is not None:
        write_log(log, rules, strategies, seed, reps, out["log"], cols, of=log_of,
                  close=log_close)
    if hands:
        return cols, hand_columns(rules, strategies, seed, reps, out["hand_rows"])
    return cols


def hand_frame(rules: Rules, strategies, seed: int, reps: np.ndarray, h: dict) -> pd.DataFrame:
    """One row per hand, as a DataFrame (the columns: :func:`fastmach.engine.columns.hand_columns`)."""
    import pandas as pd

    return pd.DataFrame(hand_columns(rules, strategies, seed, reps, h))


# ---------------------------------------------------------------------------------------
# command line

def _lineups(strategies: list, players: int, rotate: bool) -> list[list]:
    """Seats for each rotation, as in a study (``fastmach.strategies.seating``): the list
    cycled over the seats; with --rotate every rotation up to the seating's period."""
    return [seating(strategies, players, k) for k in rotations_of(strategies, players, rotate)]


#: seconds a batch of ``run_play_columns`` aims to take: its progress bar moves as often
BATCH_SECONDS = 1.0
#: games of a ``play --log`` between two closing records of the log (where ``chunk`` is not
#: smaller): the same file whatever the batches
LOG_CLOSE_EVERY = 50


def _batches(lineups: int, games: int, chunk: int, close_every: int | None = None,
             seconds: float | None = None) -> Iterator[tuple[int, np.ndarray, int | None]]:
    """(line-up, replicates, the games a log's closing record counts after them, 0 for
    none; None without a log) for every line-up's replicates 0..games-1, in batches of
    at most ``chunk``: 4 games first, then about ``seconds`` (default
    :data:`BATCH_SECONDS`) each at the games/s measured
    so far (at most 4 x the last batch), so that a progress bar moves every second or so
    however slow the games. A batch never crosses a multiple of ``close_every`` (the
    log's closing records). The games and rows are the same whatever the batches: each
    replicate is played on its own."""
    seconds = BATCH_SECONDS if seconds is None else seconds
    size, done, spent = min(chunk, 4), 0, 0.0
    for k in range(lineups):
        lo = 0
        while lo < games:
            hi = min(games, lo + size)
            closes: int | None = None
            if close_every is not None:
                hi = min(hi, (lo // close_every + 1) * close_every)
                at_close = hi % close_every == 0 or hi == games
                closes = hi - (hi - 1) // close_every * close_every if at_close else 0
            t0 = time.perf_counter()
            yield k, np.arange(lo, hi, dtype=np.int64), closes
            spent += time.perf_counter() - t0
            done += hi - lo
            rate = done / spent if spent > 0 else float("inf")
            size = int(max(1, min(chunk, 4 * (hi - lo), rate * seconds)))
            lo = hi


def run_play(
    rules: Rules | str,
    strategies: str | Sequence[str],
    games: int,
    seed: int | str,
    **kwargs,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """``fastmach play`` as DataFrames: :func:`run_play_columns`'s rows (same arguments)."""
    import pandas as pd

    out = run_play_columns(rules, strategies, games, seed, **kwargs)
    if isinstance(out, tuple):
        return pd.DataFrame(out[0]), pd.DataFrame(out[1])
    return pd.DataFrame(out)


def run_play_columns(
    rules: Rules | str,
    strategies: str | Sequence[str],
    games: int,
    seed: int | str,
    *,
    players: int | None = None,
    rotate: bool = False,
    log: str | Path | None = None,
    progress: bool | None = None,
    chunk: int = 500,
    hands: bool = False,
) -> Columns | tuple[Columns, Columns]:
    """``fastmach play``: games for each line-up (rotations replay the same deals), as
    columns (:mod:`fastmach.engine.columns`; the command writes them without pandas).

    ``seed``: the root seed, or ``"secret"``: one drawn from the operating system, the
    same for every rotation and recorded only in the rows' ``seed`` column.

    ``hands``: return ``(games, hands)`` with one row per hand played as well. ``log``:
    written under a temporary name and moved into place when every game is in; an
    interrupted run leaves ``LOG.partial`` (see :func:`fastmach.outputs.atomic_path`).
    ``chunk``: the most games played in one batch (batches are sized to take about
    :data:`BATCH_SECONDS`, for the progress bar; the games are the same whatever they are).
    """
    import contextlib

    from fastmach.outputs import atomic_path, probe_file

    seed = _resolve_seed(seed)
    rules = resolve_rules(rules)
    if players is not None:
        rules = rules.replace(players=players)
    if not isinstance(strategies, (str, Sequence)):
        raise FastmachError(f"strategies: expected a comma-separated string or a list of "
                            f"strategies, got {strategies!r}")
    names = split_strategies(strategies) if isinstance(strategies, str) else list(strategies)
    if not names:   # (an empty list divided by zero when the seats were cycled)
        raise FastmachError("strategies: no strategy given")
    if len(names) > rules.players:
        raise FastmachError(f"strategies: {len(names)} strategies for "
                            f"players={rules.players}: {', '.join(names[rules.players:])} "
                            f"would never play")
    if not is_integer(games) or games < 1:
        raise FastmachError(f"games={games!r}: must be a positive integer")
    if not is_integer(chunk) or chunk < 1:   # (1.5 played a replicate twice)
        raise FastmachError(f"chunk={chunk!r}: must be a positive integer")
    seed = _check_seed(seed)
    lineups = _lineups(names, rules.players, rotate)
    if games * len(lineups) > MAX_PLAY_GAMES:
        raise FastmachError(
            f"games={games} x {len(lineups)} line-up(s) is {games * len(lineups):.3g} games, "
            f"beyond the {MAX_PLAY_GAMES:.0e} one play run may hold in memory; use a study "
            f"(fastmach sweep) for more")
    for lineup in lineups:  # validate every seat before the first game
        parse_seats(lineup, rules.players)
    if log is not None:
        probe_file(expect_suffix(log, "log=", *LOG_ENDINGS), "log=")
    frames: list[Columns] = []
    hand_frames: list[Columns] = []
    total = games * len(lineups)
    # a log holds the engine's record of every game: a closing record every 50 games
    close_every = min(chunk, LOG_CLOSE_EVERY) if log is not None else None
    # progress: always with progress=True, after 2 s with None (the default), never with False
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(atomic_path(log, keep_partial=True)) if log is not None else None
        bar = stack.enter_context(Progress(total, progress))
        for k, reps, closes in _batches(len(lineups), games, chunk, close_every):
            played = play_columns(rules, lineups[k], seed, reps, log=tmp, hands=hands,
                                  log_of=total if log is not None else None, log_close=closes)
            if isinstance(played, tuple):
                played, hf = played
                hand_frames.append(with_rotation(hf, k))
            frames.append(with_rotation(played, k))
            bar.update(len(reps))
    if hands:
        return concat(frames), concat(hand_frames)
    return concat(frames)


def summary(df: pd.DataFrame | Columns, rules: Rules, seconds: float) -> str:
    """One line: games, speed, end shares, the games won by one player, by tied winners
    (sharing the win) and by nobody, and each strategy's win share per seat of all games
    (tied wins split); see :func:`fastmach.engine.columns.summary`."""
    return _summary(df, rules, seconds)


@overload
def bench(rules: Rules | str = ..., seats: Sequence[str] | None = ..., games: int = ...,
          seed: int = ..., max_seconds: float = ..., *, detail: Literal[True]) -> dict: ...
@overload
def bench(rules: Rules | str = ..., seats: Sequence[str] | None = ..., games: int = ...,
          seed: int = ..., max_seconds: float = ..., detail: Literal[False] = ...) -> float: ...
def bench(rules: Rules | str = "classic", seats: Sequence[str] | None = None,
          games: int = 2000, seed: int = 0, max_seconds: float = 30.0,
          detail: bool = False) -> float | dict:
    """Games per second on one core (same process): up to ``games`` games, in growing
    batches, stopping early once ``max_seconds`` have passed (slow strategies such as
    lookahead are timed on the games played so far). ``detail``: a dict instead, with
    ``games_per_s``, ``games``, ``turns_per_game`` (mean) and ``us_per_decision`` (the
    time per turn: every turn is one strategy decision)."""
    rules = resolve_rules(rules)
    seats = list(seats) if seats is not None else ["expert"] * rules.players
    play_columns(rules, seats, seed, range(1))  # warm-up
    done, size, spent, turns = 0, 1, 0.0, 0
    while done < games and (spent < max_seconds or done == 0):
        n = min(size, games - done)
        t0 = time.perf_counter()
        cols = cast(Columns, play_columns(rules, seats, seed, np.arange(done, done + n)))
        spent += time.perf_counter() - t0
        turns += int(np.asarray(cols["turns"]).sum())
        done += n
        size *= 2
    if not detail:
        return done / spent
    return {"games_per_s": done / spent, "games": done, "turns_per_game": turns / done,
            "us_per_decision": spent / max(turns, 1) * 1e6}
