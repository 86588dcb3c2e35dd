"""Rule sets in a designer's words: a name for each rules string ("classic with 2 jokers")
and a description of each preset and changed option, from docs/rules.md.

The preset lines are the "in one line" column of docs/rules.md's table of sources (a test
keeps them equal); an option's words are its entry of :data:`fastmach.rules.TABLE`
(:data:`fastmach.rules.doc.PARAMS`): its summary and the meaning of its value.
"""
from __future__ import annotations

import re

from fastmach.analysis.variants import parse_rules

__all__ = ["PRESET_WORDS", "PRESET_PLAYERS", "PRESET_DEALS", "change_words", "rules_name", "rules_description"]

#: Each preset in one line, as docs/rules.md's table of sources gives it.
PRESET_WORDS = {
    "classic": "104 cards without jokers, 2-5 players, restore + draw 3 after a failed "
               "manipulation, 1 point per card left, explicit empty-stock convention, a "
               "match of dealer rotations with shared ties",
    "jokers": "108 cards (4 jokers, one per meld), 2-4 players, a pure race; a blocked game "
              "goes to the fewest points, equal points are a draw",
    "ace-low": "ace always low, 2-6 players (3 decks and 15 cards for 5-6), restore + draw 1, "
               "face-value penalties, the hand ends when the stock runs out, the highest cut "
               "starts, a session to 100 (or a single deal)",
    "italian": "104 cards, jolly optional and unrestricted, 2 or more players, draw (or pass) "
               "only when unable to play, A 11 / figures 10 / jolly 25",
}

#: The player counts each preset's line states (None: no upper bound), so that the page can
#: say where the study plays a rule set beyond them.
PRESET_PLAYERS: dict[str, tuple[int, int | None]] = {
    "classic": (2, 5), "jokers": (2, 4), "ace-low": (2, 6), "italian": (2, None)}


def _ace_low_deal(players: int) -> tuple[int, int]:
    return (3, 15) if players >= 5 else (2, 13)


#: ``players -> (decks, cards dealt)`` where a preset's line states it (ace-low's "3 decks
#: and 15 cards for 5-6").
PRESET_DEALS = {"ace-low": _ace_low_deal}


def _option(name: str, value: str) -> str:
    """A changed option in a few words: ``2 jokers``, ``a 36-point opening``."""
    v = value.lower()
    if name == "jokers":
        return "no jokers" if v == "0" else f"{v} joker{'s' if v != '1' else ''}"
    if name == "ace":
        return "the ace low only" if v == "low-only" else "the ace low or high"
    if name == "failed_penalty":
        return f"a {v}-card penalty for a failed move"
    if name == "may_draw_when_able":
        return ("drawing allowed when able to play" if v in ("true", "1")
                else "drawing only when unable to play")
    if name == "opening_points":
        return "no opening rule" if v == "0" else f"a {v}-point opening"
    if name == "decks":
        return f"{v} decks"
    if name == "hand_size":
        return f"{v}-card hands"
    return f"{name} = {value}"


def change_words(rules: str) -> str:
    """What a rules string changes from its preset, in words (``""`` for a preset)."""
    _, over = parse_rules(rules)
    words = [_option(k, str(v)) for k, v in over.items()]
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + \
        words[-1]


def rules_name(rules: str) -> str:
    """``classic``, ``classic with 2 jokers``: a rules string as a designer names it."""
    preset = parse_rules(rules)[0]
    change = change_words(rules)
    return f"{preset} with {change}" if change else preset


def _value_meaning(values: dict[str, str], value: str) -> str:
    """The meaning of ``value`` in a parameter's ``values`` (``N`` and ``a..b`` keys stand
    for a number: ``N penalty cards`` -> ``1 penalty card``)."""
    if value in values:
        text = values[value]
    else:
        text = next((m for k, m in values.items() if k == "N" or ".." in k), value)
        text = re.sub(r"\bN\b", value, text).replace("that many", value)
    return re.sub(r"\b1 ((?:\w+ )*?\w+?)s\b", r"1 \1", text)


def rules_description(rules: str) -> str:
    """The preset in one line (docs/rules.md), then each changed option: its meaning."""
    from fastmach.rules.doc import PARAMS

    preset, over = parse_rules(rules)
    base = PRESET_WORDS.get(preset, preset)
    if not over:
        return base[:1].upper() + base[1:] + "."
    parts = []
    for k, v in over.items():
        p = PARAMS.get(k)
        if p is None:
            parts.append(f"{k} = {v}")
            continue
        summary = re.sub(r" \([^()]*\)", "", p.summary.split(". ")[0]).rstrip(".")
        meaning = re.sub(r" \([^()]*\)", "", _value_meaning(p.values, str(v).lower()))
        parts.append(f"{summary.replace(f'`{k}`', 'that many')}: {meaning}")
    head = preset[:1].upper() + preset[1:]
    count = "one change" if len(parts) == 1 else f"{len(parts)} changes"
    return f"{head}, {count}. " + "; ".join(parts) + "."
