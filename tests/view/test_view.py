"""fastmach.view: game pages step through the log in a real browser; positions; card faces."""

import gzip
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from fastmach.core.cards import parse_cards
from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.engine import play_games
from fastmach.rules import Rules
from fastmach.solver import solve
from fastmach.view import (card_html, game_page, meld_faces, position_page, read_games,
                           table_marks, write_views)

#: (rules, line-up): a fallible classic match (manipulations, failed ones, passes,
#: blocked hands), jokers, ace-low with jokers taken back, a 3-seat italian with
#: unlimited jokers per meld, a 2-seat hand that ends on the empty stock
GAMES = [
    ("classic", ["expert(error=0.3)", "beginner"]),
    ("jokers", ["expert"]),
    ("ace-low(jokers=4)", ["expert", "beginner"]),
    ("italian(jokers=2,players=3)", ["intermediate"]),
    ("classic(players=2,stock_empty=ends-hand)", ["beginner"]),
]


def _log(path: Path, rules: str, lineup, seed=3, replicates=(0,)) -> Path:
    r = Rules.parse(rules)
    play_games(r, [lineup[i % len(lineup)] for i in range(r.players)], seed, list(replicates),
               log=path)
    return path


def _records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def chromium() -> str:
    env = os.environ.get("FASTMACH_CHROMIUM")
    exe = (env if env and shutil.which(env) else None) or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if exe is None:
        pytest.fail("Chromium not found: install it (Debian: `apt-get install -y chromium`) "
                    "or set FASTMACH_CHROMIUM; the viewer must be checked in a real browser")
    return exe


def walk(page: Path, tmp: Path, fragment: str = "") -> list[dict]:
    """Load ``page?walk`` in headless Chromium: it presses next (keyboard and button, in
    turn) from the first step to the end and records what the DOM shows after each step.
    The first record is where the page opened (``fragment`` chooses the turn)."""
    cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run", f"--user-data-dir={tmp / 'profile'}",
           "--virtual-time-budget=10000", "--dump-dom", page.resolve().as_uri() + "?walk" + fragment]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    m = re.search(r"START:(\[.*?\]):WALK:(\[.*?\]):NAV:(\{.*?\}):END", proc.stdout)
    assert m, f"no walk from Chromium (rc {proc.returncode}): {proc.stderr[-2000:]}"
    return [{"start": json.loads(m.group(1)), "nav": json.loads(m.group(3))}] + json.loads(m.group(2))


def _sorted_table(melds) -> list[list[str]]:
    return [sorted(m) for m in melds]


@pytest.mark.parametrize("rules,lineup", GAMES, ids=[g[0] for g in GAMES])
def test_the_page_shows_the_logs_table_after_every_turn(rules, lineup, tmp_path):
    log = _log(tmp_path / "g.jsonl", rules, lineup)
    page = write_views(log, tmp_path / "g.html", game=0)[0]
    shown = walk(page, tmp_path)[1:]
    recs = _records(log)
    # one step per deal and per turn, in log order, read independently of fastmach.view
    expect, stock, hand = [], 0, -1
    for rec in recs:
        if rec["type"] == "header":
            hand += 1
            stock = len(rec["stock"])
            expect.append({"h": hand, "t": 0, "table": [], "stock": stock})
        elif rec["type"] == "turn":
            stock -= len(rec["drawn"])
            expect.append({"h": hand, "t": rec["turn"], "table": _sorted_table(rec["table"]),
                           "stock": stock})
    assert len(shown) == len(expect)
    for got, want in zip(shown, expect):
        assert (got["h"], got["t"], got["stock"]) == (want["h"], want["t"], want["stock"])
        assert _sorted_table(got["table"]) == want["table"], (got["h"], got["t"])
    ends = [r for r in recs if r["type"] == "end"]
    lasts = [k for k in range(len(shown)) if k + 1 == len(shown) or shown[k + 1]["t"] == 0]
    assert len(lasts) == len(ends)
    for k, end in zip(lasts, ends):  # each hand's last turn shows its end line
        assert shown[k]["scores"] == end["scores"]
        assert shown[k]["left"] == end["cards_left"]
    assert shown[-1]["scores"] == ends[-1]["scores"]


def test_the_walk_can_fail(tmp_path):
    """The browser check sees a page that shows another table than the log."""
    log = _log(tmp_path / "g.jsonl", "jokers", ["expert"])
    page = write_views(log, tmp_path / "g.html", game=0)[0]
    html = page.read_text()
    k = html.rindex('"table":[[')  # the last step's table in the page's data
    bad = tmp_path / "bad.html"
    bad.write_text(html[:k] + '"table":[["5S"],[' + html[k + len('"table":[['):])
    shown = walk(bad, tmp_path)[1:]
    last = [r for r in _records(log) if r["type"] == "turn"][-1]
    assert _sorted_table(shown[-1]["table"]) != _sorted_table(last["table"])


def test_the_address_fragment_opens_a_turn_and_the_controls_move(tmp_path):
    log = _log(tmp_path / "g.jsonl", "classic(players=3)", ["expert"])  # a match of 3 hands
    page = write_views(log, tmp_path / "g.html", game=0)[0]
    first, *steps = walk(page, tmp_path, "#h1t5")
    assert first["start"] == [1, 5]
    kinds = Counter(r["type"] for r in _records(log))
    assert kinds["end"] == 3 and len(steps) == kinds["header"] + kinds["turn"]
    last = [steps[-1]["h"], steps[-1]["t"]]
    nav = first["nav"]
    assert nav["nexthand"] == [1, 0] and nav["prevhand"] == [0, 0] and nav["keyhand"] == [2, 0]
    assert nav["end"] == last and nav["home"] == [0, 0] and nav["before"] == [0, 0]
    assert nav["jump"] == [0, 5]
    assert nav["click"][0] == nav["click"][1]  # a click on the timeline lands on its turn
    assert walk(page, tmp_path, "#h0t99999")[0]["start"][0] == 0  # past the end: the last turn


def test_the_log_features_are_covered(tmp_path):
    """The logs of GAMES hold every action, a stock-out, a match and a manipulation."""
    actions, ends, moved, hands = Counter(), Counter(), 0, 0
    for k, (rules, lineup) in enumerate(GAMES):
        log = _log(tmp_path / f"{k}.jsonl", rules, lineup)
        recs = _records(log)
        actions.update(r["action"] for r in recs if r["type"] == "turn")
        ends.update(r["end"] for r in recs if r["type"] == "end")
        hands = max(hands, sum(r["type"] == "header" for r in recs))
        game = read_games(log)[0]
        moved += sum(t.startswith("~") for s in game.steps for m in s["table"] for t in m)
    assert set(actions) == {"play", "draw", "fail", "pass"}
    assert set(ends) == {"emptied", "blocked", "stock-out"}
    assert hands > 1 and moved > 0


# ----------------------------------------------------------------------- card faces

def _faces(text: str, ace_high=True) -> list[str]:
    from fastmach.core.cards import card_str
    return [card_str(c) if c == f else f"JK={card_str(f)}" for c, f in meld_faces(parse_cards(text), ace_high)]


def test_a_joker_shows_the_card_it_stands_for():
    assert _faces("7H JK 5H") == ["5H", "JK=6H", "7H"]  # the gap of a run
    assert _faces("5H 6H JK") == ["5H", "6H", "JK=7H"]  # above the run when it can go up
    assert _faces("QH KH JK") == ["QH", "KH", "JK=AH"]  # ace high
    assert _faces("QH KH JK", ace_high=False) == ["JK=JH", "QH", "KH"]  # ace low only
    assert _faces("8C 8S JK") == ["8S", "8C", "JK=8H"]  # a group: the first missing suit
    assert _faces("AS KS QS") == ["QS", "KS", "AS"]
    assert _faces("2D AD 3D") == ["AD", "2D", "3D"]


def test_marks_tell_placed_from_moved():
    old = [parse_cards("3H 4H 5H 6H 7H"), parse_cards("9C 9D 9S")]
    # extension: nothing moved
    assert table_marks(old, [parse_cards("3H 4H 5H 6H 7H 8H"), old[1]], parse_cards("8H")) == \
        [["", "", "", "", "", "p"], ["", "", ""]]
    # the run split in two: 6H 7H (the smaller part) moved; 3H 4H 5H stay
    marks = table_marks(old, [parse_cards("6H 7H 8H"), parse_cards("3H 4H 5H 5C"), old[1]],
                        parse_cards("8H 5C"))
    assert sum(k == "p" for m in marks for k in m) == 2
    assert sum(k == "m" for m in marks for k in m) == 2  # the smaller part, 6H 7H, moved
    assert marks == [["m", "m", "p"], ["", "", "", "p"], ["", "", ""]]


def test_card_markup():
    assert card_html("10H") == ('<span class="c r" data-c="10H" title="10H"><b>10</b>\u2665</span>')
    assert 'class="c k j p"' in card_html("+JK=7S") and 'data-c="JK"' in card_html("+JK=7S")
    assert 'class="c k m"' in card_html("~QC")


# ----------------------------------------------------------------------- reading logs

def test_gzip_logs_closing_records_and_extra_fields_are_read(tmp_path):
    log = _log(tmp_path / "g.jsonl", "jokers", ["expert"], replicates=(0, 1))
    recs = _records(log)
    for r in recs:
        if r["type"] == "end":
            r["win_share_0"] = 0.5  # a field this reader does not know
    assert recs[-1] == {"type": "close", "games": 2}  # a second one would be refused
    gz = tmp_path / "g.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in recs) + "\n")
    plain, zipped = read_games(log), read_games(gz)
    assert [g.data() for g in plain] == [g.data() for g in zipped]
    assert [(g.seed, g.replicate) for g in zipped] == [(3, 0), (3, 1)]
    assert [p.name for p in write_views(gz)] == ["g.html", "g-game0.html", "g-game1.html"]


def test_pages_that_cannot_all_be_written_leave_none_written(tmp_path):
    log = _log(tmp_path / "g.jsonl", "classic(match=single)", ["expert"], replicates=(0, 1, 2))
    out = tmp_path / "pages"
    (out / "v-game1.html").mkdir(parents=True)   # one game page's name is a directory
    with pytest.raises(FastmachError, match=r"its game page '.*v-game1\.html' is a directory"):
        write_views(log, out / "v.html")
    assert [p.name for p in out.iterdir()] == ["v-game1.html"]
    (out / "v-game1.html").rmdir()
    assert [p.name for p in write_views(log, out / "v.html")] == \
        ["v.html", "v-game0.html", "v-game1.html", "v-game2.html"]
    assert sorted(p.name for p in out.iterdir()) == ["v-game0.html", "v-game1.html",
                                                     "v-game2.html", "v.html"]


def test_view_cli_refuses_mixed_or_missing_input(tmp_path, capsys):
    log = _log(tmp_path / "g.jsonl", "jokers", ["expert"])
    assert main(["view", str(log), "--hand", "5S"]) == 2
    assert main(["view"]) == 2
    assert main(["view", "--hand", "5S", "--game", "1"]) == 2
    err = capsys.readouterr().err
    assert "not both" in err and "give a log" in err and "--game needs a log" in err


def test_a_bad_log_names_its_line(tmp_path):
    log = _log(tmp_path / "g.jsonl", "jokers", ["expert"])
    lines = log.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    assert json.loads(lines[-1])["type"] == "close"
    bad.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(FastmachError, match="no closing record"):
        read_games(bad)
    bad.write_text("\n".join(lines[:-2]) + "\n")
    with pytest.raises(FastmachError, match="no end record"):
        read_games(bad)
    turn = json.loads(lines[2])
    turn["table"] = turn["table"][1:] if len(turn["table"]) > 1 else []
    lines[2] = json.dumps(turn)
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(FastmachError, match="bad.jsonl line 3: illegal play"):
        read_games(bad)


def test_index_links_every_game(tmp_path, capsys):
    log = _log(tmp_path / "m.jsonl", "classic(players=3)", ["expert", "beginner"], replicates=(0, 1, 2))
    assert main(["view", str(log)]) == 0
    index = tmp_path / "m.html"
    html = index.read_text()
    for g in range(3):
        page = tmp_path / f"m-game{g}.html"
        assert f'href="m-game{g}.html"' in html and page.exists()
        assert "http" not in page.read_text().replace("http-equiv", "")  # no network
    games = read_games(log)
    assert [g.winner for g in games] == [r["match_winner"] for r in _records(log)
                                         if r["type"] == "end" and r["match_over"]]
    assert main(["view", str(log), "--game", "3"]) == 2
    assert "games 0..2" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "nope.jsonl")]) == 2


def test_a_game_page_is_self_contained(tmp_path):
    log = _log(tmp_path / "g.jsonl", "jokers", ["expert"])
    html = game_page(read_games(log)[0])
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    script = html[html.rindex("<script>"):]
    assert len(script) < 12_000  # a few KB of hand-written JavaScript


# ----------------------------------------------------------------------- positions

def test_position_page_shows_before_and_after(tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["view", "--table", "5C 6C 7C 8C | 8D 8H 8S", "--hand", "8C 9C 2D",
                 "--out", str(out)]) == 0
    html = out.read_text()
    before, after = html.split("After", 1)
    assert before.count('class="meld"') == 2 and after.count('class="meld"') == 2
    assert after.count(" p\" data-c") == 2  # 8C and 9C placed
    assert 'data-c="2D"' in after  # left in hand
    flat = position_page("5C 6C 7C 8C 8D 8H 8S", "8C 9C 2D")
    assert flat.count(" p\" data-c") == 2
    assert main(["view", "--table", "5C 6C | 8D 8H 8S", "--hand", "2D", "--out", str(out)]) == 2
    assert "table meld 5C 6C" in capsys.readouterr().err


def test_solution_repr_html_marks_the_placed_cards():
    sol = solve("5C 6C 7C", "8C 9C JK", "jokers")
    html = sol._repr_html_()
    assert html.count(" p\" data-c") == 3 and html.count('class="meld"') == 2  # table cards + after
    assert 'data-c="JK"' in html and "joker as" in html


def test_a_winner_of_a_stock_out_hand_scores_nothing_in_the_running_scores(tmp_path):
    """ace-low's blocked-hand rule: the lowest hand wins the stock-out hand and pays nothing
    although it holds points; the page's running scores are the log's (and the State's)."""
    from fastmach.game import Game

    rules = Rules.parse("ace-low(players=3,opening_points=36)")
    log = _log(tmp_path / "m.jsonl", str(rules), ["beginner"], seed=5, replicates=range(6))
    games = read_games(log)
    seen = 0
    for g in games:
        state = Game(rules, ["beginner"] * 3).new_initial_state(5, g.replicate).play_out()
        assert g.final_scores == list(state.hand_results[-1].scores)
        for h in g.hands:
            assert h["scores"] == h["endrec"]["scores"]
            seen += h["end"] == "stock-out" and h["winner"] >= 0 and h["points"][h["winner"]] > 0
    assert seen  # the case this test is about occurs


# ----------------------------------------------------------------------- a sweep's logs

def test_a_sweeps_log_games_are_its_first_games(tmp_path):
    from fastmach.study import Study
    from fastmach.study.logs import log_path
    from fastmach.study.driver import run_study

    study = Study.from_toml('[study]\nname = "t"\nseed = 5\ngames = 3\nlog_games = 2\nchunk = 2\n'
                            '[grid]\nrules = ["jokers", "classic(players=2)"]\n'
                            'lineup = [["expert", "beginner"]]\nrotate = true\n')
    assert study == study.replace(log_games=0) and "log_games" not in study.to_toml()
    out = tmp_path / "r"
    assert "logs" not in run_study(study.replace(log_games=0), out, workers=0, progress=False).attrs["summary"]
    df = run_study(study, out, workers=0, progress=False)  # logs added to a finished study
    assert df.attrs["summary"]["logs"] == 4 and df.attrs["summary"]["played"] == 0
    for cell in study.cells:
        for rot in cell.rotations:
            path = log_path(study, out, cell.index, rot)
            games = read_games(path)
            rows = df[(df.cell == cell.key) & (df.rotation == rot)].sort_values("replicate")
            assert [(g.seed, g.replicate) for g in games] == [(5, 0), (5, 1)]
            for g, (_, row) in zip(games, rows.iterrows()):
                assert g.strategies == cell.seats(rot)
                assert (g.turns, g.winner) == (row.turns, row.winner)
                assert g.final_scores == [row[f"score_{i}"] for i in range(cell.players)]
    before = {p: p.stat().st_mtime_ns for p in (out / "_logs").iterdir()}
    run_study(study, out, workers=0, progress=False)  # resumed: the logs are kept as they are
    assert {p: p.stat().st_mtime_ns for p in (out / "_logs").iterdir()} == before
    with pytest.raises(FastmachError, match="log_games"):
        study.replace(log_games=-1)
