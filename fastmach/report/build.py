"""Building a report: read the results, compute the tables, draw the figures and write
``index.html`` (the designer's page, then the appendix), ``summary.md`` (the designer's page
as text), ``figures/``, ``tables/*.csv`` and ``games/`` under ``OUT_DIR``, atomically."""

from __future__ import annotations

import re
import shlex
from datetime import datetime
from pathlib import Path
from typing import Callable

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from fastmach.errors import FastmachError
from fastmach.report import appendix, designer
from fastmach.report.analysis import ALPHA, Analysis, analyse, in_order
from fastmach.report.figures import make_figures
from fastmach.report.glossary import METHODS, glossary
from fastmach.report.load import load_results

__all__ = ["build_report", "default_out_dir", "md_text", "md_fence", "REPORT_ENTRIES",
           "TABLES", "TEMPLATES"]

TEMPLATES = Path(__file__).with_name("templates")

#: Tables written to ``tables/`` (numbers and identifiers only).
TABLES = ("scorecard", "seats", "effects", "effects_by_players", "strategies",
          "monte_carlo_error")


def _grid_axes(manifest: dict) -> tuple[str, ...]:
    """The grid keys of the study besides rules, players, line-up and rotation."""
    import tomllib

    try:
        grid = tomllib.loads(str(manifest.get("study") or "")).get("grid", {})
    except tomllib.TOMLDecodeError:
        return ()
    return tuple(k for k in grid if k not in ("rules", "players", "lineup", "rotate"))


def _games(results_dir: Path | str, hands: pd.DataFrame, manifest: dict, a: Analysis,
           out: Path) -> list[dict]:
    """Viewer pages of games that show the findings (``OUT/games/``, see
    :mod:`fastmach.report.showcase`): per rules variant, its name and links."""
    from fastmach.report import showcase
    from fastmach.study import Study

    text = manifest.get("study")
    if not isinstance(text, str) or "\n" not in text:
        raise FastmachError("the manifest lacks the study definition ('study'): the games of "
                            "the findings cannot be written (--no-games leaves them out)")
    study = Study.from_toml(text)
    examples = showcase.pick_examples(hands, a.labels,
                                      showcase.logged_counts(study, Path(results_dir)))
    showcase.write_examples(examples, hands, study, Path(results_dir), out)
    shown: dict[str, list] = {}
    for ex in examples:
        shown.setdefault(ex.rules, []).append(
            {"href": ex.href, "text": ex.text, "where": ex.where, "place": ex.place})
    return [{"name": a.labels.get(r, r), "rules": r, "links": links} for r, links in shown.items()]


def _run_time(manifest: dict) -> str:
    try:
        t0 = datetime.fromisoformat(str(manifest["started"]))
        t1 = datetime.fromisoformat(str(manifest["finished"]))
    except (KeyError, ValueError, TypeError):
        return "unknown"
    secs = (t1 - t0).total_seconds()
    h, rem = divmod(int(round(secs)), 3600)
    m, s = divmod(rem, 60)
    return f"{h}h {m:02d}m {s:02d}s" if h else f"{m}m {s:02d}s"


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "study"


def _unfinished(games: pd.DataFrame, manifest: dict) -> str:
    """`` (unfinished: N of M deals)`` for a study whose run has not finished (a sweep still
    running, or stopped), else ``""``: the report's first line says so."""
    if manifest.get("finished"):
        return ""
    try:
        from fastmach.study import Study
        planned = Study.from_toml(str(manifest.get("study")))
        total = f" of {len(planned.cells) * planned.games}"
    except FastmachError:
        total = ""
    done = len(games[["cell", "replicate"]].drop_duplicates())
    return f" (unfinished: {done}{total} deals played so far)"


def default_out_dir(manifest: dict) -> Path:
    """``reports/<study name>`` (relative to the working directory)."""
    return Path("reports") / _safe_name(str(manifest.get("name", "study")))


def _display_path(text: str) -> str:
    """A path as a user would type it: relative to the working directory when under it,
    else its last component (a report never shows a machine's directory layout)."""
    p = Path(text)
    if not p.is_absolute():
        return text
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return p.name


def _display_command(command: str) -> str:
    """``command`` with the program as ``fastmach`` and no absolute path."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if not words:
        return command
    if words[0].endswith("fastmach") or words[0].endswith("__main__.py"):
        words[0] = "fastmach"
    elif Path(words[0]).name.startswith("python") and words[1:3] == ["-m", "fastmach"]:
        words = ["fastmach", *words[3:]]
    return shlex.join(_display_path(w) if w.startswith("/") else w for w in words)


def build_report(results_dir: Path | str, out_dir: Path | str | None = None, *,
                 ignore_foreign: bool = False, show_games: bool = True,
                 pairs: list[tuple[str, str]] | None = None,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Write ``index.html``, ``summary.md``, ``figures/``, ``tables/*.csv`` and ``games/``.

    ``show_games``: write, per rules variant, viewer pages of the longest hand, a stock-out
    and a blocked hand (:mod:`fastmach.report.showcase`; the games are written again from their
    seeds and checked against the hand rows) and link them from the findings.

    Reads a study's stored game and hand rows (the study is not run again; only the few
    games shown in ``games/`` are replayed from their seeds); ``out_dir`` defaults to
    ``reports/<study name>``. Returns the path of ``index.html``. Raises FastmachError when
    the results directory, its parquet files, hand rows or manifest are missing or bad, or
    when ``out_dir`` cannot be written (checked before the work), lies inside the results
    directory, or holds anything but a report's files. The report is built under a
    temporary name beside ``out_dir`` and takes its place whole when complete (a failed
    report leaves the one before, and a new one no page of an older one).
    ``pairs``: the ``(variant, baseline)`` rules of the effects (default: every variant
    against its baseline, :func:`fastmach.analysis.stats.default_pairs`); ``fastmach compare``
    passes its own, and its command (which rewrites the report) is then the one to rerun.
    ``progress``: called with each of :data:`STEPS` as it begins (a progress bar's).
    """
    from fastmach.outputs import as_path, atomic_dir, probe_dir

    results_dir = as_path(results_dir, "results_dir=", "a result directory")
    if out_dir is not None:
        out_dir = as_path(out_dir, "out_dir=", "a directory path")
    if progress is not None and not callable(progress):
        raise FastmachError(f"progress: expected a function of a step's name, got "
                            f"{progress!r}")
    if pairs is not None and not (isinstance(pairs, (list, tuple)) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs)):
        raise FastmachError(f"pairs: expected (variant, baseline) rules pairs, got {pairs!r}")
    step = progress or (lambda name: None)
    step(STEPS[0])
    games, hands, manifest = load_results(results_dir, ignore_foreign=ignore_foreign)
    out = Path(out_dir) if out_dir is not None else default_out_dir(manifest)
    _check_out(Path(results_dir), out)
    probe_dir(out, "out=")
    with atomic_dir(out, REPORT_ENTRIES) as stage:
        _write(results_dir, games, hands, manifest, out, stage, pairs, show_games, step)
    return out / "index.html"


#: the report's steps, in order (``build_report(progress=...)`` is called with each)
STEPS = ("reading the results", "the analysis", "the figures", "the tables",
         "the games shown", "the skill section", "the pages")


#: what a report directory holds (its whole content, replaced by the next report)
REPORT_ENTRIES = frozenset({"index.html", "summary.md", "figures", "tables", "games"})


def _check_out(results_dir: Path, out: Path) -> None:
    """A report is never written into its results (a sweep would then meet its files),
    nor where it would replace them (a directory holding them, by any name)."""
    from fastmach.outputs import refuse_inputs

    refuse_inputs(out, "out=", [("the results directory", results_dir)], directory=True)


def _tables_csv(a: Analysis, out: Path) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    frames = {"scorecard": a.card, "seats": a.seats, "effects": a.effects,
              "effects_by_players": a.by_players, "strategies": a.strategies,
              "monte_carlo_error": a.mc}
    written = []
    for name in TABLES:
        if len(frames[name]):  # no file for what the study did not hold
            frames[name].to_csv(out / f"{name}.csv", index=False)
            written.append(f"tables/{name}.csv")
    return written


def _write(results_dir, games, hands, manifest, out: Path, stage: Path, pairs,
           show_games: bool, step: Callable[[str], None] = lambda name: None) -> None:
    """The report's files, written into ``stage`` (which becomes ``out``); ``step`` is
    called with each of STEPS but the first as it begins."""
    from fastmach.outputs import atomic_path
    from fastmach.report import players as skill_section

    step(STEPS[1])
    a = analyse(games, hands, pairs, _grid_axes(manifest))
    step(STEPS[2])
    figs = make_figures(hands, a, stage / "figures")
    step(STEPS[3])
    csvs = _tables_csv(a, stage / "tables")
    step(STEPS[4])
    shown = _games(results_dir, hands, manifest, a, stage) if show_games else []
    step(STEPS[5])
    skill = skill_section.section(results_dir, games, hands, a.labels, stage, a.effects)
    csvs += skill["csvs"]
    step(STEPS[6])
    order = list(in_order(a, pd.DataFrame({"rules": list(a.labels)}))["rules"])
    first = designer.page(games, hands, a.card, a.seats, a.effects, order,
                          skill.get("ceiling"))
    fair = {int(p): float(g["fair"].mean()) for p, g in a.seats.groupby("players")}
    seeds = sorted({int(x) for x in games["seed"].unique()}) if "seed" in games.columns else []
    name = str(manifest.get("name", "study"))
    ctx = {
        "name": name,
        "title": f"Machiavelli rule sets compared: the {name} study",
        "version": manifest.get("fastmach_version", "unknown"),
        "seed": manifest.get("seed", seeds[0] if seeds else "unknown"),
        "seeds": seeds,
        "started": manifest.get("started", "unknown"),
        "finished": manifest.get("finished", "unknown"),
        "run_time": _run_time(manifest),
        "command": _display_command(str(manifest.get("command") or "unknown")),
        "report_command": "fastmach report " + shlex.quote(_display_path(str(results_dir)))
                          + " --out " + shlex.quote(_display_path(str(out))) if pairs is None
                          else _display_command(str(manifest.get("command") or "unknown")),
        "study": manifest.get("study", ""),
        "games": len(games),
        "hands": len(hands),
        "cells": int(games["cell"].nunique()),
        "replicates": int(games["replicate"].nunique()),
        "rulesets": int(games["rules"].nunique()),
        "unfinished": _unfinished(games, manifest),
        "page": first,
        "alpha": ALPHA,
        "methods": METHODS,
        "glossary": glossary(hands, fair),
        "shown": {g["rules"]: g["links"] for g in shown},
        "skill": skill,
        "figures": [f for f in figs if not f["first"]],
        "first_figures": [f for f in figs if f["first"]],
        "tables": appendix.tables(a),
        "csvs": csvs,
        "generated": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters.update(code=code_html)
    with atomic_path(stage / "index.html") as tmp:
        tmp.write_text(env.get_template("report.html.j2").render(**ctx), encoding="utf-8")
    md_env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                                undefined=jinja2.StrictUndefined, trim_blocks=True,
                                lstrip_blocks=True)
    md_env.filters.update(md=md_text, fence=md_fence)
    with atomic_path(stage / "summary.md") as tmp:
        tmp.write_text(md_env.get_template("summary.md.j2").render(**ctx), encoding="utf-8")


def code_html(text) -> Markup:
    """Text with `backticks` as HTML code (the text escaped)."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(str(text)))))


def md_text(text) -> str:
    """Text from a manifest made inert in Markdown outside code: one line, with the
    characters that open emphasis, code, links, HTML or headings escaped."""
    return re.sub(r"([\\`*_\[\]<>|!~#&])", r"\\\1", " ".join(str(text).splitlines()))


def md_fence(text, info: str = "") -> str:
    """A fenced code block holding ``text`` verbatim: the fence is longer than any run of
    backticks inside it."""
    runs = [len(m) for m in re.findall(r"`+", str(text))]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}{info}\n{text}\n{fence}"
