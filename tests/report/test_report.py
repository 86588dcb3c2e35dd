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

from tests.report_data import (random_hand_study, random_study,
                                  write_hand_results, write_results)
from fastmach.errors import FastmachError
from fastmach.report import TABLES, build_report, load_results
from fastmach.cli import add_report as register_cli

IMG_RE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')

#: Figures of the synthetic study (its one kind of table: every seat expert): the fixed
#: ones, the seats of that kind and the response curve against the player count (3 and 4
#: players; no swept rule parameter).
SHOWN = ["rule_effects", "hand_length", "stock_timing", "seat_edges-expert",
         "strategy_matrix", "curve-players-expert"]


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


def test_report_opens_on_the_designers_page_then_the_appendix(built):
    _, index = built
    html = index.read_text()
    assert html.index('id="designer"') < html.index('id="glance"') < html.index(
        'id="changes"') < html.index('id="rulesets"') < html.index(
        'id="appendix"') < html.index('id="methods"') < html.index(
        'id="tables"') < html.index('id="figures"') < html.index('id="reproduce"')
    for text in ("Machiavelli rule sets compared: the synthetic study", "Greedy play (experts",
                 "Hand length in turns: median (middle half)", "Stock runs out",
                 "Is a seat favoured?", "How much skill decides",
                 "classic with the ace low only", "Scorecard by line-up",
                 "Rule effects by line-up", "Does a rule&#39;s effect depend on the line-up?",
                 "Monte Carlo error", "deals to halve it", "Holm", "turns per hand (turns)"):
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
    assert links == ["figures/rule_effects.png"]  # the first page's figure
    for link in links:
        png = index.parent / link
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
    for head in ("## At a glance: 3 players", "## At a glance: 4 players",
                 "## What each rule change does", "## The rule sets"):
        assert head in md, head
    assert "Holm" not in md and "interval" not in md  # the first layer as text
    assert "fastmach sweep simulations/synthetic.toml" in md


def test_report_of_single_hands_without_variants_or_mixed_lineups(tmp_path):
    games, hands = random_hand_study(games=10, presets=("jokers",), players=(2, 3),
                                     variants=(), lineups=(("expert",),))
    index = build_report(write_hand_results(tmp_path / "r", games, hands), tmp_path / "o",
                         show_games=False)
    html = index.read_text()
    assert 'id="fig-rule_effects"' not in html and 'id="fig-strategy_matrix"' not in html
    assert len(IMG_RE.findall(html)) == 4  # and the response curve against players
    # no rule change in the study: no section announces one, nor a skill table
    assert 'id="changes"' not in html and "What each rule change does" not in html
    assert "How much skill decides" not in html
    assert "one hand" in html


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


def test_an_effect_of_one_lineup_is_never_stated_for_another(tmp_path):
    """The ace rule lengthens hands by 6 turns only where a beginner sits: the first page
    (whose one kind of table is every seat expert) must not state it, and the appendix
    says that the effect differs between line-ups, with no figure combining them."""
    games, hands = random_hand_study(games=30)
    alone = (hands["rules"] == "classic(ace=low-only)") & (hands["lineup"] == "expert")
    hands.loc[alone, "turns"] -= 6
    index = build_report(write_hand_results(tmp_path / "r", games, hands), tmp_path / "o",
                         show_games=False)
    html = index.read_text()
    first = html.split('id="appendix-start"', 1)[0]
    assert "classic with the ace low only makes" not in first
    assert "hand length (about" in first or "hand length" in first.split(
        "Too close to call", 1)[-1]
    md = (index.parent / "summary.md").read_text()
    assert "classic with the ace low only makes" not in md.lower()
    tests = html.split('id="tab-lineups"', 1)[1].split("</table>", 1)[0]
    row = next(r for r in tests.split("<tr>") if "ace=low-only" in r and "turns per hand" in r)
    p = float(re.findall(r"<td>([^<]*)</td>", row)[-1].replace("&lt;", ""))
    assert p < 0.05
    effects = pd.read_csv(index.parent / "tables" / "effects.csv")
    byp = pd.read_csv(index.parent / "tables" / "effects_by_players.csv")
    assert set(effects["lineup"].dropna()) == {"expert", "expert,beginner"}
    assert "lineup" not in byp.columns  # the line-up test table: no line-up column


def test_a_relative_change_needs_a_base_well_away_from_0_and_a_clear_change():
    from fastmach.report.appendix import relative_text
    from fastmach.report.designer import _rel_words

    clear = {"baseline_value": 46.0, "variant_value": 26.0, "lo_adjusted": -24.0,
             "hi_adjusted": -16.0, "diff": -20.0}
    assert relative_text("turns_per_hand", clear) == "about -43%"
    assert _rel_words("turns_per_hand", clear) == "about 40% shorter"
    near0 = dict(clear, baseline_value=0.01, variant_value=0.4)
    assert relative_text("turns_per_hand", near0) == ""  # no "+3867%"
    assert _rel_words("turns_per_hand", near0) == ""
    share = dict(clear, baseline_value=0.125, variant_value=0.0)
    assert relative_text("stock_out_per_hand", share) == ""  # no "-100% [-100%, -100%]"
    assert _rel_words("stock_out_per_hand", share) == ""
    unclear = dict(clear, lo_adjusted=-30.0, hi_adjusted=2.0)
    assert relative_text("turns_per_hand", unclear) == ""


def test_no_section_announces_what_the_study_did_not_run(built):
    """The synthetic study has no skill runs and no search players: no skill trace is
    announced and no table holds only a header."""
    _, index = built
    html = index.read_text()
    assert "skill trace" not in html.lower() and "more thinking" not in html
    for csv in (index.parent / "tables").glob("*.csv"):
        assert len(pd.read_csv(csv)) > 0, csv.name
    assert not (index.parent / "tables" / "skill_trace.csv").exists()
    assert "tables/skill_trace.csv" not in html


def test_a_seat_the_test_names_is_the_seat_the_page_names(built):
    """No "none found" beside a seat that seats.csv names: per table kind and cell."""
    from fastmach.report.designer import _cells

    results, index = built
    games, hands, _ = load_results(results)
    seats = pd.read_csv(index.parent / "tables" / "seats.csv")
    card = pd.read_csv(index.parent / "tables" / "scorecard.csv")
    seats.loc[(seats["players"] == 3) & (seats["lineup"] == "expert")
              & (seats["rules"] == "classic") & (seats["seat"] == 1), "named"] = 1
    cells = _cells(games, hands, card, seats, ["expert"])
    for (rules, players, lineup), c in cells.items():
        s = seats[(seats["rules"] == rules) & (seats["players"] == players)
                  & (seats["lineup"] == lineup)]
        named = s[s["named"] == 1]
        assert c.seat_flag == (len(named) > 0)
        if len(named):
            assert "none found" not in c.seat
            for seat in named["seat"]:
                assert f"seat {int(seat) + 1} wins" in c.seat
    assert cells[("classic", 3, "expert")].seat.startswith("seat 2 wins")


def test_variants_are_named_by_what_they_change_never_by_a_code(built):
    import re as _re

    _, index = built
    html = _re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", index.read_text())
    texts = [html, (index.parent / "summary.md").read_text()]
    texts += [p.read_text() for p in (index.parent / "tables").glob("*.csv")]
    for text in texts:  # (the embedded images' base64 text is left out)
        assert not _re.search(r"\bR\d{1,2}\b", text)
    assert "ace=low-only" in texts[0] and "classic with the ace low only" in texts[0]


def test_rule_sets_are_described_in_the_words_of_docs_rules_md():
    """Each preset's line is the "in one line" column of docs/rules.md's table of sources,
    and a variant names its changed option by the meaning of its value."""
    from fastmach.report.rulewords import PRESET_WORDS, rules_description, rules_name

    doc = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    for preset, words in PRESET_WORDS.items():
        assert f"| `{preset}` |" in doc and f"| {words} |" in doc, preset
    assert rules_name("classic(jokers=2)") == "classic with 2 jokers"
    assert rules_name("jokers(jokers=0)") == "jokers with no jokers"
    assert "1 penalty card." in rules_description("classic(failed_penalty=1)")
    assert "first play worth 36 points or more" in rules_description(
        "ace-low(opening_points=36)")
