"""fastmach.report: a report builds from stored results, and renders in headless Chromium."""

import argparse
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.report_data import (STUDY_TOML, random_hand_study, random_study,
                                  write_hand_results, write_results)
from fastmach.errors import FastmachError
from fastmach.report import FIGURES, TABLES, build_report, load_results
from fastmach.cli import add_report as register_cli

IMG_RE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')

#: Figures of the synthetic study: the fixed ones and the response curve against the
#: player count (3 and 4 players; no swept rule parameter).
SHOWN = [*FIGURES, "curve-players"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One synthetic study (game and hand rows) written as a sweep would, and its report.

    Synthetic rows are no games fastmach plays, so no report of them shows games
    (``show_games=False``; tests/report/test_showcase.py covers the games of a real study)."""
    root = tmp_path_factory.mktemp("report")
    results = write_hand_results(root / "results", *random_hand_study(games=30))
    index = build_report(results, root / "out", show_games=False)
    return results, index


def test_report_html_embeds_every_figure(built):
    _, index = built
    html = index.read_text()
    images = IMG_RE.findall(html)
    assert len(images) == len(SHOWN)
    for b64 in images:  # every embedded image is a PNG
        assert b64.startswith("iVBORw0KGgo")
    for name in SHOWN:
        assert f'id="fig-{name}"' in html
    assert 'src="figures/' not in html  # self-contained: no link to a local file


def test_report_opens_on_the_findings_and_holds_scorecard_and_provenance(built):
    _, index = built
    html = index.read_text()
    assert html.index('id="findings"') < html.index('id="unclear"') < html.index(
        'id="glossary"') < html.index('id="scorecard"') < html.index(
        'id="how-sure"') < html.index('id="reproduce"')
    for text in ("turns per hand", "hands per match", "stock ran out (% of hands)",
                 "first-seat edge (pp per hand, adjusted)", "skill gap (pp per seat)",
                 "Monte Carlo error", "deals to halve it", "Named seats",
                 "ace=low-only (against classic)", "Holm",
                 "expert against beginner at 3 players", "What we could not tell"):
        assert text in html, text
    assert "fastmach sweep simulations/synthetic.toml --out results/synthetic" in html
    assert "name = &#34;synthetic&#34;" in html or 'name = "synthetic"' in html  # study TOML
    assert "2m 05s" in html  # run time from the manifest
    assert "fastmach report results --out out" in html  # as typed, no machine path
    assert "/tmp" not in html and str(index.parent) not in html


def test_report_writes_numeric_tables(built):
    _, index = built
    ids = {"cell", "rules", "lineup", "variant", "baseline", "metric", "strategy",
           "opponent"}
    for name in TABLES:
        t = pd.read_csv(index.parent / "tables" / f"{name}.csv")
        assert len(t) > 0, name
        for c in t.columns:
            if c not in ids:
                assert pd.api.types.is_numeric_dtype(t[c]), (name, c)
    card = pd.read_csv(index.parent / "tables" / "scorecard.csv")
    assert list(card.columns[:10]) == ["cell", "rules", "players", "lineup", "games",
                                       "hands", "deals", "turns_per_hand",
                                       "turns_per_hand_lo", "turns_per_hand_hi"]


def test_summary_markdown_links_written_figures(built):
    _, index = built
    md = (index.parent / "summary.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.png)\)", md)
    assert len(links) == len(SHOWN)
    for link in links:
        png = index.parent / link
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
    assert "| rules | players | matches | hands | turns per hand |" in md
    assert STUDY_TOML.strip().splitlines()[0] in md


def test_report_of_single_hands_without_variants_or_mixed_lineups(tmp_path):
    games, hands = random_hand_study(games=10, presets=("jokers",), players=(2, 3),
                                     variants=(), lineups=(("expert",),))
    index = build_report(write_hand_results(tmp_path / "r", games, hands), tmp_path / "o",
                         show_games=False)
    html = index.read_text()
    assert 'id="fig-rule_effects"' not in html and 'id="fig-strategy_matrix"' not in html
    assert len(IMG_RE.findall(html)) == 4  # and the response curve against players
    assert "no single-rule variant" in html
    assert "one hand per match" in html


# ----------------------------------------------------------------- errors and CLI

def test_missing_results_dir_names_it(tmp_path):
    with pytest.raises(FastmachError, match="nowhere.*does not exist"):
        build_report(tmp_path / "nowhere", tmp_path / "o")


def test_results_without_parquet(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "_study.json").write_text("{}")
    with pytest.raises(FastmachError, match="no parquet"):
        build_report(tmp_path / "r", tmp_path / "o")


def test_results_without_manifest(tmp_path):
    d = write_results(tmp_path / "r", random_study(games=2, players=(2,)), manifest=False)
    with pytest.raises(FastmachError, match="_study.json"):
        load_results(d)


def test_results_without_hand_rows_say_so(tmp_path):
    d = write_results(tmp_path / "r", random_study(games=2, players=(2,)))
    with pytest.raises(FastmachError, match="no hand rows"):
        load_results(d)


def test_cli_report_default_out_is_reports_study_name(tmp_path, monkeypatch):
    d = write_hand_results(tmp_path / "r", *random_hand_study(games=5, players=(2,)),
                           name="my study")
    parser = argparse.ArgumentParser(prog="fastmach")
    register_cli(parser.add_subparsers(dest="command"))
    monkeypatch.chdir(tmp_path)
    args = parser.parse_args(["report", str(d), "--no-games"])
    assert args.func(args) == 0
    assert (tmp_path / "reports" / "my-study" / "index.html").is_file()
    args = parser.parse_args(["report", str(d), "--out", str(tmp_path / "elsewhere"),
                              "--no-games"])
    assert args.func(args) == 0
    assert (tmp_path / "elsewhere" / "summary.md").is_file()


# ----------------------------------------------------------------- real browser

CHECK_SCRIPT = """<script>
window.addEventListener("load", function () {
  var res = Array.prototype.map.call(document.images, function (im) {
    return {alt: im.alt, complete: im.complete, w: im.naturalWidth, h: im.naturalHeight};
  });
  var pre = document.createElement("pre");
  pre.id = "imgcheck";
  pre.textContent = "IMG" + "CHECK:" + JSON.stringify(res) + ":END";
  document.body.appendChild(pre);
});
</script>"""


def chromium() -> str:
    env = os.environ.get("FASTMACH_CHROMIUM")
    exe = (env if env and shutil.which(env) else None) or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
         if p), None)
    if exe is None:
        pytest.fail("Chromium not found: install it (Debian: `apt-get install -y chromium`) "
                    "or set FASTMACH_CHROMIUM; the report must be checked in a real browser")
    return exe


def render_images(page: Path, tmp: Path) -> list[dict]:
    """Load a copy of ``page`` in headless Chromium and report every <img>'s load state."""
    html = page.read_text()
    assert "</body>" in html
    probe = page.with_name("_imgcheck_" + page.name)
    probe.write_text(html.replace("</body>", CHECK_SCRIPT + "</body>"))
    cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run", f"--user-data-dir={tmp / 'profile'}",
           "--virtual-time-budget=10000", "--dump-dom", probe.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    m = re.search(r"IMGCHECK:(\[.*?\]):END", proc.stdout)
    assert m, f"no image report from Chromium (rc {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(m.group(1))


def test_every_figure_loads_in_headless_chromium(built, tmp_path):
    _, index = built
    images = render_images(index, tmp_path)
    assert len(images) == len(SHOWN)
    for im in images:
        assert im["complete"] and im["w"] > 0 and im["h"] > 0, im


def test_browser_check_detects_a_broken_image(tmp_path):
    """The probe can fail: a page with a corrupt image reports naturalWidth 0."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><img alt="bad" '
                    'src="data:image/png;base64,iVBORw0KGgoAAAAA"></body></html>')
    images = render_images(page, tmp_path)
    assert images == [{"alt": "bad", "complete": True, "w": 0, "h": 0}]


def test_missing_chromium_fails_instead_of_skipping(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("FASTMACH_CHROMIUM", str(tmp_path / "no-such-browser"))
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        chromium()


def test_findings_say_when_an_effect_differs_between_lineups(tmp_path):
    games, hands = random_hand_study(games=30)
    # the ace rule lengthens hands by 6 turns only when a beginner sits
    alone = (hands["rules"] == "classic(ace=low-only)") & (hands["lineup"] == "expert")
    hands.loc[alone, "turns"] -= 6
    index = build_report(write_hand_results(tmp_path / "r", games, hands), tmp_path / "o",
                         show_games=False)
    html = index.read_text()
    # (the expert line-up's estimate is about 0, here below it: no direction is stated)
    sentence = next(s for s in html.split("<li>")
                    if s.startswith("classic with ace=low-only (against classic) changes "
                                    "turns per hand"))
    assert "at 3-4 players it depends on the line-up (heterogeneity adjusted p" in sentence
    assert "no figure over the line-ups is given" in sentence
    assert " pooled" not in sentence and "longer" not in sentence


def test_variants_are_named_by_what_they_change_never_by_a_code(built):
    import re as _re

    _, index = built
    html = _re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", index.read_text())
    texts = [html, (index.parent / "summary.md").read_text()]
    texts += [p.read_text() for p in (index.parent / "tables").glob("*.csv")]
    for text in texts:  # (the embedded images' base64 text is left out)
        assert not _re.search(r"\bR\d{1,2}\b", text)
    assert "ace=low-only" in texts[0]
