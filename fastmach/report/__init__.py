"""Balance report: stored study results -> ``index.html``, ``summary.md``, figures and tables.

``build_report(RESULTS_DIR, OUT_DIR)`` (:mod:`fastmach.report.build`) reads only what a
sweep stored (:mod:`fastmach.report.load`), so a report can be rebuilt at any time without
running the study again. The page opens on the designer's page
(:mod:`fastmach.report.designer`: plain answers per rule set, one kind of table at a time,
the rule changes ranked by size), then the appendix (:mod:`fastmach.report.appendix`: the
methods in words, every table, every figure of :mod:`fastmach.report.figures`, the players
of :mod:`fastmach.report.players`). ``summary.md`` is the designer's page as text;
``OUT_DIR/tables/`` holds the numbers as CSV, ``OUT_DIR/games/`` viewer pages of games that
show the findings (:mod:`fastmach.report.showcase`). ``fastmach report RESULTS_DIR [--out
DIR]`` (fastmach.cli) calls :func:`build_report`.
"""

from fastmach.report.build import (REPORT_ENTRIES, STEPS, TABLES, TEMPLATES, build_report,
                                   default_out_dir, md_fence, md_text)
from fastmach.report.figures import FIGURES
from fastmach.report.load import load_results

__all__ = ["load_results", "build_report", "default_out_dir", "md_text", "md_fence",
           "FIGURES", "TABLES", "TEMPLATES", "REPORT_ENTRIES", "STEPS"]
