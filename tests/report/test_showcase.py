"""The report links each finding to a viewer page of a game of the study that shows it.

A small real study (engine games): italian with beginners (stock-outs and blocked hands)
and ace-low with a 36-point opening (matches of several hands, stock-outs), the first two
deals logged by the sweep (``log_games``), the others written again by the report.
"""

import html
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import fastmach
from fastmach.errors import FastmachError
from fastmach.engine import play_games
from fastmach.game.log_reader import replay
from fastmach.report import build_report
from fastmach.rules import Rules
from fastmach.study import Study
from fastmach.study.logs import log_path
from fastmach.study.driver import run_study

STUDY = """[study]
name = "show"
seed = 6
games = 8
chunk = 8
log_games = 2

[grid]
rules = ["italian", "ace-low(opening_points=36)"]
players = [3]
lineup = [["beginner"], ["expert", "beginner"]]
rotate = true
"""

LINK = re.compile(r'<a href="(games/([^"#]+)\.html)#h(\d+)t(\d+)">([^<]+)</a>')
KIND = {"the longest hand": "longest", "the stock runs out": "stock-out",
        "the deal leaves no stock": "stock-out",
        "a blocked hand": "blocked"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("showcase")
    run_study(Study.from_toml(STUDY), root / "results", workers=1, progress=False)
    index = build_report(root / "results", root / "report")
    return root / "results", index, fastmach.read_hands(root / "results")


def page_data(page: Path) -> dict:
    m = re.search(r'<script id="data" type="application/json">(.*?)</script>', page.read_text(),
                  re.S)
    assert m, page
    return json.loads(m.group(1))


def links(index: Path) -> list[dict]:
    out = []
    for href, name, h, t, text in LINK.findall(index.read_text()):
        kind = next(v for k, v in KIND.items() if html.unescape(text).startswith(k))
        out.append({"page": index.parent / href, "name": name, "h": int(h), "t": int(t),
                    "kind": kind, "text": html.unescape(text)})
    return out


def row_of(hands: pd.DataFrame, data: dict, hand: int) -> pd.Series:
    """The hand row of the page's game: same rules, seats, seed, replicate and hand."""
    rules = Rules.parse(data["rules"])
    seats = [f"strategy_{i}" for i in range(rules.players)]
    match = hands[(hands["seed"] == data["seed"]) & (hands["replicate"] == data["replicate"])
                  & (hands["hand"] == hand) & (hands["players"] == rules.players)]
    match = match[[Rules.parse(r).replace(players=rules.players) == rules
                   for r in match["rules"]]]
    match = match[[list(s) == data["strategies"] for s in match[seats].itertuples(False)]]
    assert len(match) == 1, (data["rules"], data["seed"], data["replicate"], hand)
    return match.iloc[0]


def test_each_rules_variant_links_its_longest_hand_a_stock_out_and_a_blocked_hand(built):
    _, index, hands = built
    got = {(row_of(hands, page_data(x["page"]), x["h"])["rules"], x["kind"])
           for x in links(index)}
    want = set()
    for rules, h in hands.groupby("rules"):
        want.add((rules, "longest"))
        if h["stock_exhausted"].any():
            want.add((rules, "stock-out"))
        if (h["end"] == "blocked").any():
            want.add((rules, "blocked"))
    assert got == want
    assert {k for _, k in want} == {"longest", "stock-out", "blocked"}  # all three occur


def test_each_link_opens_a_page_of_the_game_whose_hand_shows_the_finding(built):
    _, index, hands = built
    found = links(index)
    assert any(x["h"] > 0 for x in found)  # a hand of a match beyond the first
    for x in found:
        assert x["page"].is_file()
        data = page_data(x["page"])
        row = row_of(hands, data, x["h"])
        hand = data["hands"][x["h"]]
        assert hand["hand"] == x["h"]
        assert (hand["turns"], hand["end"], hand["winner"]) == (row["turns"], row["end"],
                                                               row["winner"])
        same_rules = hands[hands["rules"] == row["rules"]]
        if x["kind"] == "longest":
            assert row["turns"] == same_rules["turns"].max() and x["t"] == 0
        elif x["kind"] == "stock-out":
            assert row["stock_exhausted"] and x["t"] == row["stock_exhausted_turn"]
            assert hand["stock_out"] == (x["t"] or None)  # None: the deal left no stock
        else:
            assert row["end"] == "blocked" and x["t"] == row["turns"]
        assert str(row["turns"]) in x["text"]


def test_the_game_logs_are_legal_and_are_the_studys_games(built):
    results, index, hands = built
    logs = sorted((index.parent / "games").glob("*.jsonl.gz"))
    pages = {x["page"].name for x in links(index)}
    assert {p.name.replace(".jsonl.gz", ".html") for p in logs} == pages
    assert len(pages) < len(links(index))  # a game that shows several findings is written once
    for log in logs:
        for h in replay(log):  # the validator re-checks every turn
            row = hands[(hands["seed"] == h.seed) & (hands["replicate"] == h.replicate)
                        & (hands["hand"] == h.hand)]
            assert ((row["turns"] == h.turns) & (row["end"] == h.end)
                    & (row["winner"] == h.winner)).any()


def test_a_logged_game_is_taken_from_the_studys_log(built):
    results, index, hands = built
    study = Study.from_toml(STUDY)
    taken = 0
    for log in (index.parent / "games").glob("*.jsonl.gz"):
        recs = [json.loads(x) for x in fastmach.outputs.read_text(log, "log").splitlines()]
        head = recs[0]
        if head["replicate"] >= study.log_games:
            continue
        cell = next(c for c in study.cells if str(c.rules) == head["rules"]
                    and any(c.seats(r) == head["strategies"] for r in c.rotations))
        rot = next(r for r in cell.rotations if cell.seats(r) == head["strategies"])
        stored = [json.loads(x) for x in log_path(study, results, cell.index, rot)
                  .read_text().splitlines()]
        start = next(i for i, r in enumerate(stored) if r["type"] == "header"
                     and r["hand"] == 0 and r["replicate"] == head["replicate"])
        assert stored[start:start + len(recs) - 1] == recs[:-1]
        taken += 1
    assert taken


def test_the_markdown_summary_links_the_same_pages(built):
    _, index, _ = built
    md = (index.parent / "summary.md").read_text()
    md_links = re.findall(r"\]\((games/[^)]+)\)", md)
    assert md_links and md_links == [f"games/{x['name']}.html#h{x['h']}t{x['t']}"
                                     for x in links(index)]


def test_a_stored_log_of_another_game_is_an_error_naming_the_cell(tmp_path):
    study = Study.from_toml(STUDY.replace("games = 8", "games = 2").replace(
        '"ace-low(opening_points=36)"', "").replace('["expert", "beginner"]', ""))
    assert [c.key for c in study.cells] == ["italian|players=3|lineup=beginner|rotate=true"]
    run_study(study, tmp_path / "r", workers=1, progress=False)
    cell = study.cells[0]
    stored = log_path(study, tmp_path / "r", 0, 0)
    stored.unlink()
    play_games(cell.rules, cell.seats(0), study.seed, [1, 0], log=stored)
    swapped = {'"replicate":0': '"replicate":1', '"replicate":1': '"replicate":0'}
    stored.write_text(re.sub(r'"replicate":[01]', lambda m: swapped[m.group(0)],
                             stored.read_text()))  # each deal labelled as the other
    with pytest.raises(FastmachError, match=re.escape(f"cell {cell.key!r}, rotation 0, "
                                                      "replicate ")):
        build_report(tmp_path / "r", tmp_path / "o")
    build_report(tmp_path / "r", tmp_path / "o", show_games=False)  # the rest is fine


def test_the_report_renders_and_its_links_open_their_turn_in_headless_chromium(built, tmp_path):
    from test_report import render_images
    from tests.view.test_view import walk

    _, index, _ = built
    images = render_images(index, tmp_path)
    assert images and all(im["complete"] and im["w"] > 0 for im in images)
    found = links(index)
    for x in (next(x for x in found if x["h"] > 0), next(x for x in found if x["t"] > 0)):
        opened = walk(x["page"], tmp_path, f"#h{x['h']}t{x['t']}")[0]
        assert opened["start"] == [x["h"], x["t"]]


def test_a_damaged_stored_log_is_replaced_by_the_game_written_again(tmp_path):
    study = Study.from_toml(STUDY.replace("games = 8", "games = 2").replace(
        '"ace-low(opening_points=36)"', "").replace('["expert", "beginner"]', ""))
    run_study(study, tmp_path / "r", workers=1, progress=False)
    stored = log_path(study, tmp_path / "r", 0, 0)
    good = build_report(tmp_path / "r", tmp_path / "a").parent / "games"
    text = stored.read_text()
    stored.write_text(text[: len(text) // 2])  # cut: no closing record
    damaged = build_report(tmp_path / "r", tmp_path / "b").parent / "games"
    stored.write_text('{"type":"header", not json\n' + text)
    broken = build_report(tmp_path / "r", tmp_path / "c").parent / "games"
    for other in (damaged, broken):
        assert sorted(p.name for p in other.iterdir()) == sorted(p.name for p in good.iterdir())
        for page in good.glob("*.html"):
            assert page_data(other / page.name) == page_data(page)


def test_a_manifest_without_the_study_definition_is_an_error(built, tmp_path):
    import shutil

    from fastmach.cli import main

    results, _, _ = built
    copy = shutil.copytree(results, tmp_path / "r")
    manifest = json.loads((copy / "_study.json").read_text())
    del manifest["study"]
    (copy / "_study.json").write_text(json.dumps(manifest))
    with pytest.raises(FastmachError, match="lacks the study definition.*--no-games"):
        build_report(copy, tmp_path / "o")
    assert main(["report", str(copy), "--out", str(tmp_path / "o")]) == 2
    assert main(["report", str(copy), "--out", str(tmp_path / "o"), "--no-games"]) == 0
    assert not (tmp_path / "o" / "games").exists()


def _one_cell_study(tmp_path):
    study = Study.from_toml(STUDY.replace("games = 8", "games = 2").replace(
        '"ace-low(opening_points=36)"', "").replace('["expert", "beginner"]', ""))
    run_study(study, tmp_path / "r", workers=1, progress=False)
    return study


def test_a_failed_report_leaves_the_one_before_whole_and_names_the_studys_log(tmp_path):
    study = _one_cell_study(tmp_path)
    index = build_report(tmp_path / "r", tmp_path / "o")
    before = {p.relative_to(tmp_path / "o"): p.read_bytes()
              for p in (tmp_path / "o").rglob("*") if p.is_file()}
    stored = log_path(study, tmp_path / "r", 0, 0)
    lines = stored.read_text().splitlines()
    for i, x in enumerate(lines):   # a forged hand winner in every game of the study's log
        if '"type":"end"' in x:
            end = json.loads(x)
            end["winner"] = (end["winner"] + 1) % 3
            lines[i] = json.dumps(end)
    stored.write_text("\n".join(lines) + "\n")
    with pytest.raises(FastmachError, match=re.escape(f"{stored}: the game of cell ")) as e:
        build_report(tmp_path / "r", tmp_path / "o")
    assert "winner" in str(e.value)
    after = {p.relative_to(tmp_path / "o"): p.read_bytes()
             for p in (tmp_path / "o").rglob("*") if p.is_file()}
    assert after == before and index.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "r"]   # no staging left


def test_a_new_report_holds_no_page_of_the_one_before(tmp_path):
    _one_cell_study(tmp_path)
    build_report(tmp_path / "r", tmp_path / "o")
    (tmp_path / "o" / "games" / "old-game.html").write_text("an older report's page")
    build_report(tmp_path / "r", tmp_path / "o")
    assert not (tmp_path / "o" / "games" / "old-game.html").exists()
    assert (tmp_path / "o" / "index.html").is_file()


def test_a_report_is_not_written_inside_its_results_or_over_other_files(tmp_path, capsys):
    from fastmach.cli import main

    _one_cell_study(tmp_path)
    for inside in (tmp_path / "r", tmp_path / "r" / "chunks"):
        with pytest.raises(FastmachError, match="is inside the results directory"):
            build_report(tmp_path / "r", inside)
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "r" / "x"),
                 "--no-games"]) == 2
    assert "inside the results directory" in capsys.readouterr().err
    assert not (tmp_path / "r" / "x").exists()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("my notes")
    with pytest.raises(FastmachError, match=r"holds notes\.txt, which it did not write"):
        build_report(tmp_path / "r", tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "my notes"
