"""A report opens on its findings, and a swept parameter is an axis with response curves.

Rendered in headless Chromium: the synthetic study of tests/report/test_report.py (four
traditions' stand-in, 3 and 4 players, two line-ups) and the two-axis study
simulations/hand-size-opening.toml (hand_size x opening_points, 3 and 4 players) played
by the engine with 8 deals per cell.
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

PROBE = """<script>
window.addEventListener("load", function () {
  var box = document.getElementById("findings").getBoundingClientRect();
  var tables = Array.prototype.map.call(document.querySelectorAll("table"),
    function (t) { return t.getBoundingClientRect().top + window.scrollY; });
  var images = Array.prototype.map.call(document.images, function (im) {
    var fig = im.closest("figure");
    return {id: fig ? fig.id : "", w: im.naturalWidth, h: im.naturalHeight};
  });
  var out = {height: window.innerHeight, top: box.top, bottom: box.bottom, tables: tables,
             items: document.querySelectorAll("#findings ol.headline > li").length,
             links: document.querySelectorAll("#findings ol.headline a").length,
             text: document.getElementById("findings").innerText, images: images};
  var pre = document.createElement("pre");
  pre.textContent = "PRO" + "BE:" + JSON.stringify(out) + ":END";
  document.body.appendChild(pre);
});
</script>"""


def first_screen(page: Path, tmp: Path) -> dict:
    """Load ``page`` in headless Chromium at 1280 x 900 and measure its first screen."""
    probe = page.with_name("_probe_" + page.name)
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run", f"--user-data-dir={tmp / 'profile'}",
           "--window-size=1280,900", "--virtual-time-budget=10000", "--dump-dom",
           probe.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    m = re.search(r"PROBE:(\{.*?\}):END", proc.stdout, re.DOTALL)
    assert m, f"no probe from Chromium (rc {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(m.group(1))


def assert_opens_on_findings(shot: dict) -> None:
    assert 2 <= shot["items"] <= 7
    assert shot["links"] >= 2 * shot["items"]  # each finding: its figure and its table
    assert 0 <= shot["top"] < 0.35 * shot["height"]  # they start near the top
    assert min(shot["tables"]) >= shot["height"]  # no table on the first screen
    assert min(shot["tables"]) > shot["bottom"]
    assert "What we could not tell" in shot["text"]


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


def test_first_screen_of_a_report_is_its_findings(synthetic, tmp_path):
    shot = first_screen(synthetic, tmp_path)
    assert_opens_on_findings(shot)
    assert "No seat edge was detected: an edge of" in shot["text"] or \
        "than a fair share" in shot["text"]


def test_first_screen_of_the_two_axis_study_is_its_findings(two_axis, tmp_path):
    shot = first_screen(two_axis, tmp_path)
    assert_opens_on_findings(shot)
    loaded = {im["id"]: im["w"] > 0 and im["h"] > 0 for im in shot["images"]}
    for axis in ("players", "hand_size", "opening_points"):
        assert loaded.get(f"fig-curve-{axis}"), axis


def test_swept_parameters_are_numeric_columns_in_parameter_order(two_axis):
    tables = two_axis.parent / "tables"
    for name in ("scorecard", "effects", "effects_by_players"):
        t = pd.read_csv(tables / f"{name}.csv")
        for k in ("hand_size", "opening_points"):
            assert pd.api.types.is_numeric_dtype(t[k]), (name, k)
    card = pd.read_csv(tables / "scorecard.csv")
    assert set(card["hand_size"]) == {9, 11, 13, 15}
    assert set(card["opening_points"]) == {0, 24, 36}
    md = (two_axis.parent / "summary.md").read_text()
    score = md.split("## Scorecard", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[2:4] for line in score.splitlines()
            if line.startswith("| ") and not line.startswith("| rules")]
    order = [(int(a), int(b)) for a, b in rows]
    assert order == sorted(order)  # hand_size 9 before 11 (numbers, not text)
    assert "| hand_size=9 | 9 | 0 | 3 |" in score


def test_no_variant_code_and_no_interval_collapsed_to_a_point(two_axis, synthetic):
    for index in (two_axis, synthetic):
        html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", index.read_text())
        texts = [html, (index.parent / "summary.md").read_text()]
        texts += [p.read_text() for p in (index.parent / "tables").glob("*.csv")]
        for text in texts:
            assert not re.search(r"\bR\d{1,2}\b", text)
        for text in texts[:2]:
            for point in ("+100.0 [+100.0, +100.0]", "100.0 [100.0, 100.0]",
                          " 0.0 [0.0, 0.0]", "+0.0 [+0.0, +0.0]"):
                assert point not in text, point


def test_the_glossary_names_every_word_and_the_fair_share_per_player_count(synthetic):
    html = synthetic.read_text()
    box = html.split('id="glossary"', 1)[1].split("</aside>", 1)[0]
    for term in ("hand", "match", "deal", "cell", "rotation", "turn", "expert",
                 "beginner"):
        assert f"<dt>{term}</dt>" in box, term
    # the fair share of each player count (hands nobody wins bring it below 1 / players)
    seats = pd.read_csv(synthetic.parent / "tables" / "seats_by_players.csv")
    fair = seats.groupby("players")["fair"].mean()
    assert (f"{100 * fair[3]:.1f}% at 3 players, {100 * fair[4]:.1f}% at 4 players"
            in box)
    assert fair[4] < 0.25


REFERENCE = ROOT / "reports" / "balance-reference"


def test_the_default_studys_reference_report_opens_on_its_findings(tmp_path):
    """reports/balance-reference (the default study, simulations/balance.toml, as the
    README's first command makes it) in Chromium: findings first, the players curve, no
    variant code anywhere."""
    page = tmp_path / "index.html"
    page.write_text((REFERENCE / "index.html").read_text())
    shot = first_screen(page, tmp_path)
    assert_opens_on_findings(shot)
    loaded = {im["id"]: im["w"] > 0 and im["h"] > 0 for im in shot["images"]}
    assert loaded.get("fig-curve-players")
    html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page.read_text())
    texts = [html, (REFERENCE / "summary.md").read_text()]
    texts += [p.read_text() for p in (REFERENCE / "tables").glob("*.csv")]
    for text in texts:
        assert not re.search(r"\bR\d{1,2}\b", text)
    assert "balance" in texts[1].splitlines()[0] and "unfinished" not in texts[1].splitlines()[0]
