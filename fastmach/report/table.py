"""A titled table of text cells, written as HTML and as Markdown."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from markupsafe import Markup

__all__ = ["Table", "markdown_table"]


def _blank(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def markdown_table(df: pd.DataFrame) -> str:
    """``df`` as a Markdown table (``|`` escaped, NaN blank)."""
    def cell(v) -> str:
        return "" if _blank(v) else str(v).replace("|", "\\|")
    head = "| " + " | ".join(cell(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(False)]
    return "\n".join([head, sep, *body])


@dataclass
class Table:
    """A table of a report: title, text cells, a note saying what it holds, an anchor."""

    title: str
    frame: pd.DataFrame
    note: str = ""
    id: str = ""

    def html(self) -> Markup:
        return Markup(self.frame.to_html(index=False, border=0, classes="data",
                                         na_rep="", escape=True))

    def markdown(self) -> str:
        return markdown_table(self.frame)
