"""``fastmach rules RULES`` (a preset or a rules string) and the parameter reference of
``docs/rules.md``, written from :data:`fastmach.rules.TABLE`.

That section of docs/rules.md is :func:`markdown` verbatim (a test keeps them equal). For
every parameter the table holds a summary, the meaning of each value, and per preset either
the clause of its source text (quoted in the original language, with a translation) or the
choice made where the text is silent. The sources are the four rule texts keyed 000, 001,
003 and 004 (see :data:`SOURCES`).
"""
from __future__ import annotations

import textwrap

from fastmach.rules import (PARAMETERS, PRESETS, SOURCE_PLAYERS, TABLE, Parameter, Rules,
                            format_value, resolve_rules, source_warning)

__all__ = ["SOURCES", "PARAMS", "describe", "markdown"]

#: preset -> (key, file of the source text, language)
SOURCES: dict[str, tuple[str, str, str]] = {
    "classic": ("000", "000_fe2f35f84759f696.txt", "French"),
    "jokers": ("001", "001_1720d23f8b577817.txt", "French"),
    "ace-low": ("003", "003_1b83c7e6bc7bfe43.txt", "French"),
    "italian": ("004", "004_3b54fe1ff4799c27.txt", "Italian"),
}


#: parameter name -> its entry of :data:`fastmach.rules.TABLE` (summary, values, sources)
PARAMS: dict[str, Parameter] = {p.name: p for p in TABLE}


def _range_text(preset: str) -> str:
    lo, hi = SOURCE_PLAYERS[preset]
    return f"{lo}-{hi}" if hi is not None else f"{lo} or more"


def _wrap(text: str, first: str, rest: str | None = None) -> str:
    return textwrap.fill(text, 92, initial_indent=first,
                         subsequent_indent=first if rest is None else rest)


def describe(rules: Rules | str) -> str:
    """Plain text: the parameters of a preset or rules string (``classic(jokers=2)``), each
    with its meaning and its preset's source clause; a value changed from the preset says
    the preset's beside it."""
    rules = resolve_rules(rules)
    preset = rules.preset
    base = Rules.parse(preset)
    key, file, lang = SOURCES[preset]
    changed = [name for name in PARAMETERS if getattr(rules, name) != getattr(base, name)]
    head = f"{preset} with {', '.join(changed)} changed; {preset}'s source" if changed else "source"
    out = [f"{rules}: {head} {key} ({lang}, {file}); players {_range_text(preset)} in the "
           f"source; full text of the rules: docs/rules.md"]
    warning = source_warning(rules)
    if warning:
        out.append(f"warning: {warning}")
    out.append("")
    for name in PARAMETERS:
        p = PARAMS[name]
        value = format_value(name, getattr(rules, name))
        if name in changed:
            value += f" (changed; {preset}: {format_value(name, getattr(base, name))})"
        out.append(f"{name} = {value}")
        out.append(_wrap(p.summary, "    "))
        for v, meaning in p.values.items():
            out.append(_wrap(f"- {v}: {meaning}", "    ", "      "))
        original, translation = p.sources[preset]
        if original:
            out.append(_wrap(f"{key}: \"{original}\"", "    ", "      "))
            out.append(_wrap(f"({translation})", "      "))
        else:
            out.append(_wrap(f"{key} is silent; our choice: {translation}", "    ", "      "))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def markdown() -> str:
    """The parameter reference of docs/rules.md (Markdown)."""
    out = ["| parameter | " + " | ".join(PRESETS) + " |",
           "|---|" + "---|" * len(PRESETS)]
    for name in PARAMETERS:
        vals = [f"`{format_value(name, PRESETS[p][name])}`" for p in PRESETS]
        out.append(f"| `{name}` | " + " | ".join(vals) + " |")
    out.append("")
    for name in PARAMETERS:
        p = PARAMS[name]
        out += [f"### `{name}`", "", p.summary, ""]
        out += [f"- `{v}`: {m}" for v, m in p.values.items()]
        out.append("")
        for preset in PRESETS:
            key = SOURCES[preset][0]
            original, translation = p.sources[preset]
            if original:
                out.append(f"- **{preset}** ({key}): « {original} » ({translation})")
            else:
                out.append(f"- **{preset}** ({key}, silent): {translation}")
        out.append("")
    return "\n".join(out)


