"""See a game: self-contained HTML pages of logged games and solved positions.

``fastmach view LOG.jsonl[.gz]`` writes an index of the log's games and one page per game;
``--game N`` writes only game N (0-based, in log order). Every hand is re-checked turn by
turn with the log reader of ``fastmach.game.log_reader`` (its validator, no solver), and each step
of a page shows that reader's state: what the page shows is what the log says.

``fastmach view --table ... --hand ... --rules ...`` shows a position before and after the
solver's play; ``Solution._repr_html_`` uses the same card rendering in Jupyter.

Marks on table cards: ``p`` placed from the hand this turn, ``m`` a table card the play
moved to another meld (manipulation), ``""`` unchanged. A card of an old meld stays
unmarked when it lands in the new meld that took the largest share of that old meld (an
extension, or the bigger half of a split run).
"""
from __future__ import annotations

import html
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import jinja2
from markupsafe import Markup

from fastmach.core import validate
from fastmach.core.cards import JOKER, card_str, parse_cards
from fastmach.errors import FastmachError
from fastmach.game.log_reader import BadLog, HandChecker, LogChecker, log_records
from fastmach.outputs import clear_stale, expect_suffix, probe_file, refuse_inputs, temporary_name
from fastmach.rules import Rules

__all__ = ["read_games", "ViewGame", "game_page", "index_page", "position_page",
           "solution_html", "state_html", "meld_faces", "table_marks", "write_views",
           "write_page"]

TEMPLATES = Path(__file__).with_name("templates")


# ------------------------------------------------------------------------------ cards

def meld_faces(meld: Sequence[int], ace_high: bool) -> list[tuple[int, int]]:
    """(card, the card it shows) in display order: a run by rank, a group by suit.

    A joker shows the card it stands for: the missing suit of a group, the missing rank of
    a run (a joker beyond the real cards goes on top when the run can go up). A meld that
    is neither a run nor a group (not on a checked table) keeps its order, jokers as jokers.
    """
    cards = list(meld)
    real = [c for c in cards if c != JOKER]
    n, jokers = len(cards), len(cards) - len(real)
    if not real:
        return [(c, c) for c in cards]
    if validate.meld_kind(cards, ace_high=ace_high, jokers_per_meld=0) == "group":
        rank = real[0] % 13
        have = {c // 13 for c in real}
        free = [s * 13 + rank for s in range(4) if s not in have]
        return [(c, c) for c in sorted(real)] + [(JOKER, free[i]) for i in range(jokers)]
    suit = real[0] // 13
    if any(c // 13 != suit for c in real):
        return [(c, c) for c in cards]
    top = 14 if ace_high else 13
    ranks = [c % 13 + 1 for c in real]
    best = None
    for lo in range(1, top - n + 2):  # every window of n positions that holds the real cards
        hi = lo + n - 1
        pos = []
        for r in ranks:
            if r == 1:
                p = 1 if lo <= 1 and 1 not in pos else (14 if hi >= 14 and ace_high else 0)
            else:
                p = r if lo <= r <= hi else 0
            if p == 0 or p in pos:
                break
            pos.append(p)
        else:
            lead = min(pos) - lo  # jokers below the lowest real card: fewer is better
            if best is None or lead < best[0]:
                best = (lead, lo, pos)
    if best is None:
        return [(c, c) for c in cards]
    _, lo, pos = best
    at = dict(zip(pos, real))
    out = []
    for p in range(lo, lo + n):
        face = suit * 13 + (p - 1) % 13
        out.append((at[p], at[p]) if p in at else (JOKER, face))
    return out


def card_token(c: int, face: int, mark: str = "") -> str:
    """The page's compact card: ``5H``, ``JK=7H`` (joker standing for 7H), ``+`` / ``~`` prefix
    for a placed / moved card."""
    t = card_str(c) if c != JOKER or face == JOKER else f"JK={card_str(face)}"
    return {"p": "+", "m": "~", "": ""}[mark] + t


def table_marks(old: Sequence[Sequence[int]], new: Sequence[Sequence[int]],
                placed: Sequence[int]) -> list[list[str]]:
    """Per card of each new meld (in its order): ``p`` placed, ``m`` moved, ``""`` kept."""
    marks = [[""] * len(m) for m in new]
    old_left = Counter(tuple(sorted(m)) for m in old)
    changed = []
    for i, m in enumerate(new):
        key = tuple(sorted(m))
        if old_left[key] > 0:
            old_left[key] -= 1
        else:
            changed.append(i)
    olds = [Counter(k) for k, v in old_left.items() for _ in range(v)]
    # placed cards: first to melds sharing nothing with an old meld, then in table order
    pool = Counter(placed)
    rest: dict[int, Counter] = {i: Counter(new[i]) for i in changed}
    fresh = sorted(changed, key=lambda i: any(o & rest[i] for o in olds))
    for i in fresh:
        for c in list(rest[i]):
            k = min(pool[c], rest[i][c])
            if k:
                pool[c] -= k
                rest[i][c] -= k
                for j, x in enumerate(new[i]):
                    if k and x == c and marks[i][j] == "":
                        marks[i][j] = "p"
                        k -= 1
    # each old meld continues in the changed meld that took most of its cards
    kept: dict[int, Counter] = {i: Counter() for i in changed}
    for o in olds:
        share = [(sum((o & rest[i]).values()), -n, i) for n, i in enumerate(changed)]
        if share and max(share)[0] > 0:
            i = max(share)[2]
            kept[i] |= (o & rest[i])
    for i in changed:
        keep = kept[i]
        for j, x in enumerate(new[i]):
            if marks[i][j] == "":
                if keep[x] > 0:
                    keep[x] -= 1
                else:
                    marks[i][j] = "m"
    return marks


def table_tokens(melds, ace_high: bool, marks=None) -> list[list[str]]:
    """Melds as display tokens (faces in run/group order, marks carried along)."""
    out = []
    for i, m in enumerate(melds):
        mk = marks[i] if marks is not None else [""] * len(m)
        # carry each card's mark onto the displayed order
        bag: dict[int, list[str]] = {}
        for c, k in zip(m, mk):
            bag.setdefault(c, []).append(k)
        for v in bag.values():
            v.sort(reverse=True)  # marked copies first
        out.append([card_token(c, f, bag[c].pop(0)) for c, f in meld_faces(m, ace_high)])
    return out


def hand_tokens(cards) -> list[str]:
    """A hand sorted by suit (S H D C) then rank, jokers last."""
    return [card_str(c) for c in sorted(cards, key=lambda c: (c == JOKER, c))]


# ------------------------------------------------------------------------------ reading

@dataclass
class ViewGame:
    """One game of a log (its hands) as the page's data."""

    index: int
    rules: str
    seed: Any
    replicate: Any
    strategies: list[str]
    players: int
    hands: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return sum(h["turns"] for h in self.hands)

    @property
    def ends(self) -> str:
        c = Counter(h["end"] for h in self.hands)
        return ", ".join(e if k == 1 else f"{e} x{k}" for e, k in c.items())

    @property
    def winner(self) -> int:
        last = self.hands[-1]["endrec"] if self.hands else {}
        w = last.get("match_winner", last.get("winner", -1))
        return w if isinstance(w, int) else -1

    @property
    def final_scores(self) -> list:
        return self.hands[-1]["endrec"].get("scores", []) if self.hands else []

    def data(self) -> dict:
        return {"index": self.index, "rules": self.rules, "seed": self.seed,
                "replicate": self.replicate, "strategies": self.strategies,
                "players": self.players, "hands": self.hands, "steps": self.steps}


def _describe(rec: dict, marks: list[list[str]], rules: Rules) -> str:
    action = rec["action"]
    drawn = rec.get("drawn") or []
    if action == "play":
        placed = rec.get("placed") or []
        moved = sum(k == "m" for mk in marks for k in mk)
        s = f"plays {len(placed)} card{'s' * (len(placed) != 1)}"
        if moved:
            s += f", moving {moved} table card{'s' * (moved != 1)}"
        if rec.get("taken"):
            s += f", takes back {len(rec['taken'])} joker(s)"
        return s
    if action == "draw":
        return "draws" if drawn else "draws from the empty stock: the hand ends"
    if action == "pass":
        return "passes (the stock is empty)"
    k, want = len(drawn), rules.failed_penalty
    s = f"fails a manipulation: the table is restored, penalty {want} card{'s' * (want != 1)}"
    if k < want:
        s += f" ({'none' if k == 0 else k} left in the stock)"
    return s


def read_games(path: str | Path) -> list[ViewGame]:
    """Every game of a log (plain or gzip) as page data, each hand re-checked on the way.

    The log is read and checked by the reader of ``fastmach replay``
    (``fastmach.game.log_reader``): what replay refuses (an unknown record, a forged closing
    record, a log without its closing record, ...) is refused here with replay's message,
    naming the line; unknown fields are ignored. A game starts at a header with ``hand`` 0.
    """
    path = Path(path)
    games: list[ViewGame] = []
    game: ViewGame | None = None
    hand: dict = {}
    log = LogChecker(text=False)
    for no, rec in log_records(path):
        kind = rec.get("type")
        checker = log.checker
        if kind == "turn" and checker is not None:
            old = [list(m) for m in checker.table]
            had_stock = len(checker.stock)
        scores_before = list(log.scores or [])
        try:
            done = log.record(no, rec)
        except BadLog as e:
            raise FastmachError(f"{path.name} line {no}: {e}") from None
        # (log.record refused a record out of place: a header opens a checker, a game
        # starts at hand 0, a turn or end comes inside a hand)
        if kind == "header":
            checker = log.checker
            assert checker is not None
            r = checker.rules
            if rec.get("hand", 0) == 0:
                game = ViewGame(len(games), str(r), rec.get("seed"), rec.get("replicate"),
                                [str(s) for s in rec.get("strategies") or []], r.players)
                games.append(game)
                scores_before = [0] * r.players
            assert game is not None
            hand = {"hand": rec.get("hand", 0), "dealer": rec.get("dealer"),
                    "first": checker.first, "start": len(game.steps), "turns": 0,
                    "scores_before": scores_before, "stock_out": None}
            game.hands.append(hand)
            game.steps.append(_step(checker, None, [], "deals", len(game.hands) - 1, 0))
        elif kind == "turn":
            assert checker is not None and game is not None
            placed = parse_cards(rec.get("placed") or [])
            marks = (table_marks(old, checker.table, placed) if rec["action"] == "play"
                     else [[""] * len(m) for m in checker.table])
            step = _step(checker, rec, marks, _describe(rec, marks, checker.rules),
                         len(game.hands) - 1, checker.turns)
            game.steps.append(step)
            hand["turns"] = checker.turns
            if had_stock and not checker.stock and hand["stock_out"] is None:
                hand["stock_out"] = checker.turns
        elif kind == "end":
            assert done is not None
            hand.update(end=done.end, winner=done.winner, points=done.points,
                        scores=list(log.scores or []),
                        endrec={k: rec[k] for k in ("end", "winner", "points", "cards_left",
                                                     "scores", "match_winner") if k in rec})
    if log.checker is not None:
        log.finish(path.name)   # the last game's end record is missing
    if not games:
        raise FastmachError(f"{path.name}: no game in this log")
    log.finish(path.name)
    return games


def _step(checker: HandChecker, rec: dict | None, marks, desc: str, hand: int, turn: int) -> dict:
    r = checker.rules
    step = {
        "h": hand, "t": turn, "seat": rec["seat"] if rec else -1,
        "action": rec["action"] if rec else "deal", "desc": desc,
        "placed": hand_tokens(parse_cards(rec.get("placed") or [])) if rec else [],
        "drawn": list(rec.get("drawn") or []) if rec else [],
        "table": table_tokens(checker.table, r.ace_high, marks if rec else None),
        "hands": [hand_tokens(h.elements()) for h in checker.hands],
        "stock": len(checker.stock),
    }
    return step


# ------------------------------------------------------------------------------ pages

_SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                              autoescape=jinja2.select_autoescape(["html", "j2"]),
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def card_html(token: str) -> str:
    """One card's markup from a page token; the page's JavaScript ``card()`` writes the same."""
    mark = {"+": " p", "~": " m"}.get(token[:1], "")
    t = token[1:] if mark else token
    joker = t.startswith("JK")
    face = t[3:] if joker else t
    if joker and not face:
        return f'<span class="c j k{mark}" data-c="JK" title="joker"><b>&#x2605;</b></span>'
    rank, suit = face[:-1], face[-1]
    color = " r" if suit in "HD" else " k"
    return (f'<span class="c{color}{" j" if joker else ""}{mark}" data-c="{"JK" if joker else face}" '
            f'title="{"joker as " + face if joker else face}"><b>{rank}</b>{_SYMBOL[suit]}'
            f'{"<i>&#x2605;</i>" if joker else ""}</span>')


def _cards_html(tokens) -> Markup:
    return Markup("".join(card_html(t) for t in tokens))


def _json_for_script(obj) -> Markup:
    text = json.dumps(obj, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")
    return Markup(text)


def game_page(game: ViewGame, *, index_href: str | None = None) -> str:
    """The self-contained HTML page of one game."""
    title = f"{game.rules} · seed {game.seed} · replicate {game.replicate}"
    sub = (f"game {game.index} of the log · {game.players} players · "
           f"{', '.join(game.strategies) or 'strategies not logged'} · {len(game.hands)} hand"
           f"{'s' * (len(game.hands) != 1)}, {game.turns} turns · ends: {game.ends}")
    return _env().get_template("view_game.html.j2").render(
        title=title, subtitle=sub, index_href=index_href, data_json=_json_for_script(game.data()))


def _seat(w: int) -> str:
    return f"seat {w}" if w >= 0 else "none"


def index_page(games: Sequence[ViewGame], title: str, hrefs: Sequence[str]) -> str:
    """The log's games, one row each, linking to their pages."""
    rows = [{"index": g.index, "href": h, "rules": g.rules, "seed": g.seed,
             "replicate": g.replicate, "strategies": ", ".join(g.strategies),
             "hands": len(g.hands), "winner": _seat(g.winner), "ends": g.ends, "turns": g.turns}
            for g, h in zip(games, hrefs)]
    return _env().get_template("view_index.html.j2").render(title=title, games=rows)


def _position_html(before: Sequence[Sequence[int]] | None, table_cards: Sequence[int],
                   hand: Sequence[int] | None, sol, ace_high: bool, title: str = "") -> str:
    """Before / after panels of a solved position (``before``: the table's melds, if known)."""
    placed = list(sol.placed)
    if before is not None:
        marks = table_marks(before, sol.melds, placed)
        before_tokens = table_tokens(before, ace_high)
    else:  # the table's arrangement is not known: its cards as one row
        marks = [[""] * len(m) for m in sol.melds]
        pool = Counter(placed)
        for i, m in enumerate(sol.melds):
            for j, c in enumerate(m):
                if pool[c] > 0:
                    pool[c] -= 1
                    marks[i][j] = "p"
        before_tokens = [hand_tokens(table_cards)] if table_cards else []
    left = None if hand is None else list((Counter(hand) - Counter(placed)).elements())
    sides = [
        {"title": "Before" + ("" if before is not None else ": the table's cards"),
         "table": [_cards_html(m) for m in before_tokens],
         "hand_title": "Hand" if hand is not None else "From the hand",
         "hand": _cards_html(hand_tokens(hand if hand is not None else placed)), "hand_empty": "(empty)"},
        {"title": f"After: {len(placed)} card{'s' * (len(placed) != 1)} placed",
         "table": [_cards_html(m) for m in table_tokens(sol.melds, ace_high, marks)],
         "hand_title": "Hand left" if left is not None else "",
         "hand": _cards_html(hand_tokens(left or [])),
         "hand_empty": "(empty: the hand goes out)"},
    ]
    moved = sum(k == "m" for mk in marks for k in mk)
    summary = (f"{len(placed)} hand card{'s' * (len(placed) != 1)} placed"
               + (f", {moved} table card{'s' * (moved != 1)} moved" if moved else "")
               + f"; {len(sol.melds)} meld{'s' * (len(sol.melds) != 1)} after the play")
    return _env().get_template("view_position.html.j2").render(
        title=title, summary=summary, sides=sides)


def solution_html(sol) -> str:
    """``Solution._repr_html_``: the table's cards before, the melds after (placed marked).

    A Solution does not keep the position it solved, so "before" shows the table's cards
    (the melds' cards minus the placed ones) and the hand cards placed.
    """
    placed = Counter(sol.placed)
    table_cards = list((Counter(c for m in sol.melds for c in m) - placed).elements())
    return _position_html(None, table_cards, None, sol, ace_high=True)


def state_html(state) -> str:
    """``State._repr_html_``: the position's line, the table's melds and every seat's hand
    as cards (the seat to play marked)."""
    seats = [{"title": f"seat {s}" + (" to play" if s == state.current_player and
                                       not state.is_terminal() else "")
              + f": {len(state.hand_of(s))} cards, score {state.scores[s]}",
              "hand": _cards_html(hand_tokens(state.hand_of(s)))}
             for s in range(state.rules.players)]
    return _env().get_template("view_state.html.j2").render(
        summary=state._headline(), table=[_cards_html(m) for m in table_tokens(
            state.table, state.rules.ace_high)], seats=seats)


def split_melds(text: str, rules: Rules | str = "classic") -> list[list[int]] | None:
    """Melds written ``"5C 6C 7C | 8D 8H 8S"`` (``|`` or ``/`` between melds), each checked
    under ``rules`` (FastmachError naming a bad meld); None for flat cards (no separator)."""
    from fastmach.rules import resolve_rules

    if "|" not in text and "/" not in text:
        return None
    r = resolve_rules(rules)
    melds = [parse_cards(p) for p in text.replace("/", "|").split("|") if p.strip()]
    for m in melds:
        why = validate.meld_problem(m, ace_high=r.ace_high, jokers_per_meld=r.jokers_per_meld,
                                    ace_both_ends=r.ace_both_ends)
        if why is not None:
            raise FastmachError(f"table meld {' '.join(card_str(c) for c in m)}: {why}")
    return melds


def position_page(table: str, hand: str, rules: Rules | str = "classic",
                  objective: str = "cards") -> str:
    """A whole HTML page: the position, the solver's play, the table after it."""
    from fastmach.rules import resolve_rules
    from fastmach.solver import partition, solve

    r = resolve_rules(rules)
    melds = split_melds(table, r)
    if melds is not None:
        flat = [c for m in melds for c in m]
    else:
        flat = parse_cards(table)
        melds = partition(flat, r) if flat else []
        if melds is None:
            raise FastmachError("the table does not split into valid melds: "
                                + " ".join(card_str(c) for c in sorted(flat)))
    hcards = parse_cards(hand)
    sol = solve(melds if melds else "", hcards, r, objective=objective)
    body = _position_html(melds, flat, hcards, sol, r.ace_high, title=f"{r}: the solver's play")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(str(r))} position</title></head><body>\n{body}\n</body></html>\n")


# ------------------------------------------------------------------------------ files

def _stem(log: Path) -> str:
    name = log.name
    for suffix in (".gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name or "games"


def write_views(log: str | Path, out: str | Path | None = None, game: int | None = None) -> list[Path]:
    """Write the pages of a log; returns the files written (the index first, if any).

    ``game``: only that game's page (``out`` defaults to ``LOG-gameN.html``). Otherwise an
    index (``out`` defaults to ``LOG.html``) and one ``<index stem>-gameN.html`` per game.
    """
    log = Path(log)
    games = read_games(log)
    if game is not None:
        if not 0 <= game < len(games):
            raise FastmachError(f"game={game}: the log holds games 0..{len(games) - 1}")
        path = Path(out) if out else log.with_name(f"{_stem(log)}-game{game}.html")
        refuse_inputs(path, "out=", [("the log", log)])
        expect_suffix(path, "out=", ".html")
        write_page(path, game_page(games[game]))
        return [path]
    index = Path(out) if out else log.with_name(_stem(log) + ".html")
    stem = index.name[:-5] if index.name.endswith(".html") else index.name
    paths = [index.with_name(f"{stem}-game{g.index}.html") for g in games]
    # every page checked before the first is written, each written under a temporary
    # name, and all moved into place together: a failure leaves no page of this run
    refuse_inputs(index, "out=", [("the log", log)])
    for p in paths:
        refuse_inputs(p, "its game page", [("the log", log)])
    expect_suffix(index, "out=", ".html")   # (never over a file of another kind)
    probe_file(index, "out=")
    for p in paths:
        probe_file(p, "its game page")
    for p in (index, *paths):
        clear_stale(p)   # a killed run's temporaries of these pages
    written: list[tuple[Path, Path]] = []
    try:
        for g, p in zip(games, paths):
            written.append((temporary_name(p), p))
            write_page(written[-1][0], game_page(g, index_href=index.name))
        written.append((temporary_name(index), index))
        write_page(written[-1][0], index_page(games, f"Games of {log.name}",
                                              [p.name for p in paths]))
        for tmp, p in written:
            os.replace(tmp, p)
    except BaseException:
        for tmp, _ in written:
            tmp.unlink(missing_ok=True)
        raise
    return [index, *paths]


def write_page(path: Path, text: str) -> None:
    """Write an HTML page, creating its directory (FastmachError when it cannot)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise FastmachError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
