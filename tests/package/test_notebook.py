"""The example notebook runs (every cell, in a kernel, from the repository root), and the
objects it shows render as cards: a State and a Solution as text and as HTML."""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

import fastmach

ROOT = Path(__file__).resolve().parents[2]


def test_the_first_hour_notebook_runs_and_shows_cards_and_a_figure():
    nb = nbformat.read(ROOT / "examples" / "first-hour.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("seat 0" in h and 'class="felt"' in h for h in html)      # the State
    assert any("placed" in h and 'class="felt"' in h for h in html)      # the Solution
    assert any("image/png" in o.get("data", {}) for o in outputs)        # the figure
    text = "".join(o.get("text", "") for o in outputs)
    assert "Solution(placed='8H 8D JK', melds=['8H 8D 8C', '5C 6C 7C JK(8C)']" in text


def test_a_state_shows_its_cards_as_text_and_html():
    state = fastmach.Game("classic(players=3,jokers=2)", ["expert"] * 3).new_initial_state(0)
    while state.turn < 25:
        state.step()
    text = str(state)
    assert text.startswith("classic(players=3,jokers=2): hand 0, turn 25, seat ")
    for seat in range(3):
        cards = " ".join(fastmach.card_str(c) for c in state.hand_of(seat))
        assert f"  seat {seat}: {cards}" in text
    assert text.count("  table: ") == len(state.table)
    assert repr(state) == f"<State {text}>"
    html = state._repr_html_()
    assert html.count('class="meld"') == len(state.table)
    assert all(f"seat {s}" in html for s in range(3)) and "to play" in html


def test_a_joker_on_the_table_shows_the_card_it_stands_for():
    state = fastmach.Game("classic(players=2,jokers=2)", ["expert"] * 2).new_initial_state(0)
    state.set_position([fastmach.parse_cards("2S 3S"), fastmach.parse_cards("4H 5H")],
                       [fastmach.parse_cards("5C 6C JK")], fastmach.parse_cards("9D 9H"))
    assert "  table: 5C 6C JK(4C)" in str(state)   # (the low end: the solver's reading)
    assert 'class="meld"' in state._repr_html_()
