"""A report opens on the designer's page: plain answers first, one kind of table at a time.

Rendered in headless Chromium at 1280 x 900: the synthetic study of tests/report/test_report.py
(two presets' stand-in and a variant, 3 and 4 players, two line-ups), the two-axis study
simulations/hand-size-opening.toml (hand_size x opening_points, 3 and 4 players) played
by the engine with 8 deals per cell, and the committed reference report of the default
study (reports/balance-reference).
"""

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from tests.report_data import random_hand_study, write_hand_results
from test_report import chromium

from fastmach.report import build_report

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reports" / "balance-reference"

#: The first layer at 1280 px wide fits in at most 10 screens of 900 px.
MAX_FIRST_LAYER = 9000

#: Words of statistics that the designer's page never uses (the appendix explains them).
STAT_WORDS = re.compile(
    r"\b(p-values?|p ?[=<]|holm|bonferroni|heterogeneity|max-t|wilson|newcombe|"
    r"deal-clustered|clustered|plackett|luce|cells?|(?<!dealer )rotations?|replicates?|"
    r"line-ups?|"
    r"intervals?|pooled|adjusted|family-wise|significan\w*|clairvoyant|measuring stick|"
    r"pp|named|told apart)\b", re.IGNORECASE)

PROBE = """<script>
window.addEventListener("load", function () {
  var d = document.getElementById("designer");
  var vis = function (e) { return e.offsetParent !== null; };
  var rows = Array.prototype.filter.call(document.querySelectorAll("table.glance tbody"), vis);
  var images = Array.prototype.map.call(document.images, function (im) {
    var fig = im.closest("figure");
    return {id: fig ? fig.id : "", w: im.naturalWidth, h: im.naturalHeight,
            shown: im.getBoundingClientRect().width};
  });
  var heads = Array.prototype.map.call(document.querySelectorAll("h1, h2, h3"),
    function (h) { return h.innerText; });
  var out = {height: window.innerHeight, width: window.innerWidth,
             first: d.getBoundingClientRect().height,
             title: document.querySelector("h1").innerText,
             nav: Array.prototype.map.call(document.querySelectorAll("nav.bar a"),
                                          function (a) { return a.getAttribute("href"); }),
             rows_on_screen: rows.filter(function (r) {
               return r.getBoundingClientRect().bottom <= window.innerHeight; }).length,
             rows: rows.length,
             glance_top: rows.length ? rows[0].getBoundingClientRect().top : -1,
             text: d.innerText, heads: heads, images: images,
             scroll_x: document.documentElement.scrollWidth};
  var pre = document.createElement("pre");
  pre.textContent = "PRO" + "BE:" + JSON.stringify(out) + ":END";
  document.body.appendChild(pre);
});
</script>"""


def first_screen(page: Path, tmp: Path) -> dict:
    """Load ``page`` in headless Chromium at 1280 x 900 and measure its first layer."""
    probe = page.with_name("_probe_" + page.name)
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run", f"--user-data-dir={tmp / 'profile'}",
           "--window-size=1280,900", "--virtual-time-budget=10000", "--dump-dom",
           probe.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    probe.unlink()
    m = re.search(r"PROBE:(\{.*?\}):END", proc.stdout, re.DOTALL)
    assert m, f"no probe from Chromium (rc {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(m.group(1))


def assert_designer_page(shot: dict, name: str) -> None:
    """The first layer: a title naming the study, a contents bar, the at-a-glance table on
    the first screen, at most 10 screens tall, no statistical word, no heading twice."""
    assert name in shot["title"]
    assert {"#glance", "#changes", "#rulesets", "#appendix"} <= set(shot["nav"])
    assert 0 < shot["glance_top"] < 0.4 * shot["height"]
    assert shot["rows_on_screen"] >= min(shot["rows"], 8)  # the rule sets at one glance
    assert 0 < shot["first"] <= MAX_FIRST_LAYER, shot["first"]
    assert shot["scroll_x"] <= shot["width"]  # nothing wider than the window
    found = STAT_WORDS.findall(shot["text"])
    assert not found, found
    heads = [h for h in shot["heads"] if h]
    assert len(heads) == len(set(heads)), [h for h in heads if heads.count(h) > 1]
    for im in shot["images"]:  # every figure loads and is drawn at a readable size
        assert im["w"] > 0 and im["h"] > 0, im
        assert im["shown"] >= min(im["w"], 900), im


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    root = tmp_path_factory.mktemp("synthetic")
    results = write_hand_results(root / "results", *random_hand_study(games=20))
    return build_report(results, root / "out", show_games=False)


@pytest.fixture(scope="module")
def two_axis(tmp_path_factory):
    from fastmach.study import Study
    from fastmach.study.driver import run_study

    root = tmp_path_factory.mktemp("two-axis")
    study = Study.from_toml(ROOT / "simulations" / "hand-size-opening.toml", games=8)
    run_study(study, root / "results", workers=0, progress=False)
    return build_report(root / "results", root / "report", show_games=False)


def test_first_layer_of_a_report_is_the_designers_page(synthetic, tmp_path):
    shot = first_screen(synthetic, tmp_path)
    assert_designer_page(shot, "synthetic")
    assert "What each rule change does" in shot["text"]
    # the kind of table is named so that a designer sees which is the stronger
    assert "Greedy play (experts: lay down as much as they can)" in shot["text"]
    assert "Expert play" not in shot["text"]


def test_first_layer_of_the_two_axis_study(two_axis, tmp_path):
    shot = first_screen(two_axis, tmp_path)
    assert_designer_page(shot, "hand-size")
    loaded = {im["id"]: im["w"] > 0 and im["h"] > 0 for im in shot["images"]}
    for axis in ("players", "hand_size", "opening_points"):
        assert loaded.get(f"fig-curve-{axis}-expert"), axis


def test_swept_parameters_are_numeric_columns_in_parameter_order(two_axis):
    tables = two_axis.parent / "tables"
    for name in ("scorecard", "effects", "effects_by_players"):
        t = pd.read_csv(tables / f"{name}.csv")
        for k in ("hand_size", "opening_points"):
            assert pd.api.types.is_numeric_dtype(t[k]), (name, k)
    card = pd.read_csv(tables / "scorecard.csv")
    assert set(card["hand_size"]) == {9, 11, 13, 15}
    assert set(card["opening_points"]) == {0, 24, 36}
    html = two_axis.read_text()
    score = html.split('id="tab-scorecard"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>\s*<td>([^<]*)</td>\s*<td>(\d+)</td>\s*<td>(\d+)</td>", score)
    order = [(int(a), int(b)) for _, a, b in rows]
    assert order and order == sorted(order)  # hand_size 9 before 11 (numbers, not text)


def test_no_variant_code_and_no_interval_collapsed_to_a_point(two_axis, synthetic):
    for index in (two_axis, synthetic):
        html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", index.read_text())
        texts = [html, (index.parent / "summary.md").read_text()]
        texts += [p.read_text() for p in (index.parent / "tables").glob("*.csv")]
        for text in texts:
            assert not re.search(r"\bR\d{1,2}\b", text)
        for text in texts[:2]:
            for point in ("+100.0 [+100.0, +100.0]", "100.0 [100.0, 100.0]",
                          " 0.0 [0.0, 0.0]", "+0.0 [+0.0, +0.0]", "-100% [-100%"):
                assert point not in text, point


def test_the_appendix_explains_every_word_and_the_fair_share_per_player_count(synthetic):
    html = synthetic.read_text()
    box = html.split('id="methods"', 1)[1].split("</dl>", 1)[0]
    for term in ("hand", "match", "deal", "cell", "rotation", "turn", "expert",
                 "beginner", "line-up", "replicate", "Holm", "Bonferroni", "max-T (step-down)",
                 "heterogeneity", "deal-clustered", "Wilson (score) interval",
                 "Newcombe&#39;s interval", "Plackett-Luce rating", "p-value",
                 "too close to call", "median, middle half"):
        assert f"<dt>{term}</dt>" in box, term
    seats = pd.read_csv(synthetic.parent / "tables" / "seats.csv")
    fair = seats.groupby("players")["fair"].mean()
    assert (f"{100 * fair[3]:.1f}% at 3 players, {100 * fair[4]:.1f}% at 4 players"
            in box)


def test_the_default_studys_reference_report_opens_on_the_designers_page(tmp_path):
    """reports/balance-reference (the default study, simulations/balance.toml, as the
    README's commands make it) in Chromium at 1280 x 900: the designer's page first, at
    most 10 screens, both kinds of table, the rule changes with their figure; no variant
    code anywhere."""
    page = tmp_path / "index.html"
    page.write_text((REFERENCE / "index.html").read_text())
    shot = first_screen(page, tmp_path)
    assert_designer_page(shot, "balance")
    assert shot["rows"] == shot["rows_on_screen"] == 12  # every rule set, one screen
    assert "greedy play" in shot["text"].lower() or "expert play" in shot["text"].lower()
    for text in ("Good play", "At a glance: 4 players",
                 "What each rule change does", "The rule sets", "too close to call"):
        assert text.lower() in shot["text"].lower(), text
    loaded = {im["id"]: im["w"] > 0 and im["h"] > 0 for im in shot["images"]}
    assert loaded.get("fig-rule_effects") and loaded.get("fig-curve-players-expert")
    html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page.read_text())
    texts = [html, (REFERENCE / "summary.md").read_text()]
    texts += [p.read_text() for p in (REFERENCE / "tables").glob("*.csv")]
    for text in texts:
        assert not re.search(r"\bR\d{1,2}\b", text)
    assert "balance" in texts[1].splitlines()[0] and "unfinished" not in texts[1].splitlines()[0]
    # the seats the seat test names in seats.csv are the ones the page names, per table
    assert_seats_agree(REFERENCE)


def first_layer_md(index: Path) -> str:
    """summary.md up to its provenance: the designer's page as text."""
    return (index.parent / "summary.md").read_text().split("## Reproduce", 1)[0]


def assert_seats_agree(report: Path) -> None:
    """Each at-a-glance row of summary.md says "seat N wins" for a kind of table exactly
    where seats.csv names seat N in that cell, and "none found" only where it names none."""
    from fastmach.report.rulewords import rules_name

    seats = pd.read_csv(report / "tables" / "seats.csv")
    md = (report / "summary.md").read_text()
    short = {"strong": ("good",), "expert": ("greedy", "expert")}
    checked = 0
    for players, block in re.findall(r"## At a glance: (\d+) players\n(.*?)(?=\n## )", md,
                                     re.DOTALL):
        for (rules, lineup), g in seats[seats["players"] == int(players)].groupby(
                ["rules", "lineup"]):
            if lineup not in short:
                continue
            row = next(x for x in block.splitlines()
                       if x.startswith(f"| {rules_name(rules)} |"))
            seat_col = row.split(" | ")[-2]
            said = next(p for p in seat_col.split("; ")
                        if p.startswith(tuple(w + ":" for w in short[lineup])))
            named = sorted(int(x) + 1 for x in g.loc[g["named"] == 1, "seat"])
            if named:
                for n in named:
                    assert f"seat {n} wins" in said, (players, rules, lineup, said)
            else:
                assert said.endswith(("none found", "too few games to tell")), said
            checked += 1
    assert checked


def test_the_first_layer_as_text_holds_no_statistical_word(synthetic, two_axis):
    for index in (synthetic, two_axis, REFERENCE / "index.html"):
        text = first_layer_md(index)
        found = STAT_WORDS.findall(text)
        assert not found, (index, found)
        assert "## At a glance" in text and "## The rule sets" in text
