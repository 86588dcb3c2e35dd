"""Games that show a report's findings: per rules variant the longest hand, a hand whose
stock ran out and a blocked hand, as viewer pages in ``OUT/games/``.

A study's game is a pure function of (rules, seats, root seed, replicate), so the report
picks concrete games from the stored hand rows and writes their logs again: from the
study's own logs (``DIR/_logs``, ``log_games``) when they hold the game, else through the
engine (``play_games(..., log=)``). Each log is re-checked by the viewer's
reader and must give, hand by hand, the turns, end, winner and stock-out turn of the hand
rows (else a FastmachError naming the cell and replicate), so a link never shows another
game. Among equal candidates a game already shown wins, then a logged one, then the
shortest match (the cheapest to write and the lightest page).
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fastmach.errors import FastmachError
from fastmach.game.log_reader import game_lines

__all__ = ["Example", "pick_examples", "write_examples", "check_game", "KINDS"]

#: Findings a report shows a game of: kind -> what the link says.
KINDS = {"longest": "the longest hand", "stock-out": "a hand where the stock ran out",
         "blocked": "a blocked hand"}

GAMES = "games"
_GAME = ("cell", "rotation", "replicate")


@dataclass(frozen=True)
class Example:
    """One finding shown by one hand of one game."""

    rules: str
    kind: str
    cell: str
    rotation: int
    seed: int
    replicate: int
    hand: int
    turns: int
    turn: int      # the turn the link opens (0: the deal)
    players: int
    lineup: str
    name: str = ""  # file stem of the game's log and page in games/

    @property
    def game(self) -> tuple:
        return self.cell, self.rotation, self.replicate

    @property
    def href(self) -> str:
        return f"{GAMES}/{self.name}.html#h{self.hand}t{self.turn}"

    @property
    def text(self) -> str:
        return {"longest": f"the longest hand, {self.turns} turns",
                "stock-out": (f"the stock runs out at turn {self.turn} of {self.turns}"
                              if self.turn else f"the deal leaves no stock, {self.turns} turns"),
                "blocked": f"a blocked hand, {self.turns} turns"}[self.kind]

    @property
    def place(self) -> str:
        """Where the game was played, in a designer's words."""
        seats = (f"every seat {self.lineup}" if "," not in self.lineup
                 else f"seats {self.lineup.replace(',', ', ')} in turn")
        return f"{self.players} players, {seats}, hand {self.hand + 1}"

    @property
    def where(self) -> str:
        return (f"{self.players} players, {self.lineup}, replicate {self.replicate}"
                + (f", rotation {self.rotation}" if self.rotation else "")
                + f", hand {self.hand + 1}")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "rules"


def pick_examples(hands: pd.DataFrame, labels: dict[str, str],
                  logged: dict[tuple[str, int], int] | None = None) -> list[Example]:
    """The hands that show each finding, per rules variant (in ``labels`` order).

    ``logged``: (cell, rotation) -> number of first replicates the study logged. Examples
    of one game share its file, named after the first of them.
    """
    logged = logged or {}
    h = hands.copy()
    h["_game_turns"] = h.groupby(list(_GAME))["turns"].transform("sum")
    n_logged = pd.Series([logged.get((c, int(r)), 0) for c, r in zip(h["cell"], h["rotation"])],
                         index=h.index)
    h["_unlogged"] = h["replicate"] >= n_logged
    out: list[Example] = []
    names: dict[tuple, str] = {}
    for rules, label in labels.items():
        sub = h[h["rules"] == rules]
        if sub.empty:
            continue
        for kind, cand in (("longest", sub[sub["turns"] == sub["turns"].max()]),
                           ("stock-out", sub[sub["stock_exhausted"].astype(bool)]),
                           ("blocked", sub[sub["end"] == "blocked"])):
            if cand.empty:
                continue
            cand = cand.assign(_new=[g not in names for g in
                                     zip(cand["cell"], cand["rotation"].astype(int),
                                         cand["replicate"].astype(int))])
            r = cand.sort_values(["_new", "_unlogged", "_game_turns", "cell", "rotation",
                                  "replicate", "hand"], kind="stable").iloc[0]
            turn = {"longest": 0, "stock-out": max(int(r["stock_exhausted_turn"]), 0),
                    "blocked": int(r["turns"])}[kind]
            ex = Example(rules, kind, str(r["cell"]), int(r["rotation"]), int(r["seed"]),
                         int(r["replicate"]), int(r["hand"]), int(r["turns"]), turn,
                         int(r["players"]), str(r["lineup"]))
            name = names.setdefault(ex.game, f"{_slug(label)}-{kind}")
            out.append(dataclasses.replace(ex, name=name))
    return out


# ----------------------------------------------------------------------------- logs

def _log_count(path: Path) -> int:
    """Games of a sweep's log (its closing record's count; 0 without one)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(f.tell() - 200, 0))
            tail = f.read().decode("utf-8", "replace").strip().splitlines()
        rec = json.loads(tail[-1]) if tail else {}
    except (OSError, json.JSONDecodeError):
        return 0
    n = rec.get("games") if isinstance(rec, dict) and rec.get("type") == "close" else 0
    return n if isinstance(n, int) and not isinstance(n, bool) else 0


def check_game(game, rows: pd.DataFrame, where: str) -> None:
    """FastmachError unless the viewer's game (``fastmach.view.ViewGame``) is the game of
    these hand rows: same seed and replicate, and hand by hand the same turns, end, winner
    and turn the stock ran out."""
    def bad(what: str) -> FastmachError:
        return FastmachError(f"the game of {where} does not match its stored hand rows: "
                             f"{what}; the results and this fastmach disagree")
    rows = rows.sort_values("hand")
    first = rows.iloc[0]
    if (game.seed, game.replicate) != (int(first["seed"]), int(first["replicate"])):
        raise bad(f"the log holds seed {game.seed} replicate {game.replicate}")
    if len(game.hands) != len(rows):
        raise bad(f"{len(game.hands)} hand(s) in the log, {len(rows)} in the rows")
    for h, (_, r) in zip(game.hands, rows.iterrows()):
        stock_turn = int(r["stock_exhausted_turn"]) if "stock_exhausted_turn" in r else -1
        want = {"turns": int(r["turns"]), "end": str(r["end"]), "winner": int(r["winner"]),
                "stock_out": stock_turn if stock_turn > 0 else None}
        have = {k: h[k] for k in want}
        if have != want:
            diff = ", ".join(f"{k} {have[k]} in the log, {want[k]} in the rows"
                             for k in want if have[k] != want[k])
            raise bad(f"hand {int(r['hand'])}: {diff}")


def write_examples(examples: list[Example], hands: pd.DataFrame, study, results_dir: Path,
                   out_dir: Path) -> list[Path]:
    """Write each example game's log (``games/<name>.jsonl.gz``) and viewer page
    (``games/<name>.html``); returns the pages. ``study``: the study the rows come from
    (``fastmach.study.Study``), for each cell's rules and seats."""
    from fastmach.engine import play_games
    from fastmach.outputs import atomic_path, open_text
    from fastmach.study.logs import log_path
    from fastmach.view import game_page, read_games

    cells = {c.key: c for c in study.cells}
    games: dict[tuple, Example] = {}
    for ex in examples:
        games.setdefault(ex.game, ex)
    pages = []
    for (cell_key, rot, rep), ex in games.items():
        where = f"cell {cell_key!r}, rotation {rot}, replicate {rep}"
        cell = cells.get(cell_key)
        if cell is None:
            raise FastmachError(f"the study definition in the manifest has no cell "
                                f"{cell_key!r}: cannot write the game of {where}")
        log = out_dir / GAMES / f"{ex.name}.jsonl.gz"
        log.parent.mkdir(parents=True, exist_ok=True)
        stored = log_path(study, results_dir, cell.index, rot)
        complete = stored.is_file() and rep < _log_count(stored)
        lines = game_lines(stored, ex.seed, rep) if complete else None
        with atomic_path(log) as tmp:
            if lines is not None:
                with open_text(tmp, "w") as f:
                    f.write("\n".join(lines) + "\n" + json.dumps({"type": "close", "games": 1})
                            + "\n")
            else:
                play_games(cell.rules, cell.seats(rot), ex.seed, [rep], log=tmp)
        try:
            game = read_games(log)[0]
        except FastmachError as e:
            if lines is None:
                raise
            # (the copy of a game of the study's own log: name that log, where it is wrong)
            raise FastmachError(f"{stored}: the game of {where} is bad: "
                                f"{str(e).replace(log.name, 'its copy')}") from None
        rows = hands[(hands["cell"] == cell_key) & (hands["rotation"] == rot)
                     & (hands["replicate"] == rep)]
        check_game(game, rows, where)
        page = log.with_name(f"{ex.name}.html")
        with atomic_path(page) as tmp:
            tmp.write_text(game_page(game), encoding="utf-8")
        pages.append(page)
    return pages


def logged_counts(study, results_dir: Path) -> dict[tuple[str, int], int]:
    """(cell, rotation) -> replicates in the study's stored log of that cell (``_logs``)."""
    from fastmach.study.logs import log_path

    out = {}
    for cell in study.cells:
        for rot in cell.rotations:
            p = log_path(study, results_dir, cell.index, rot)
            if p.is_file():
                out[(cell.key, rot)] = _log_count(p)
    return out
