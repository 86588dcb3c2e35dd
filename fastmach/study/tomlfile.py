"""Reading a TOML definition (a study, a search space): from a file or from text."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from fastmach.errors import FastmachError

__all__ = ["read_toml"]


def read_toml(path_or_text: str | Path, what: str, inline: str) -> tuple[dict[str, Any], str, str]:
    """``(data, text, source)`` of a TOML file (a Path, or a one-line string) or of TOML
    text (several lines; its source is then ``inline``, e.g. ``<study>``). ``what`` names the kind of file in
    the errors ("study file", "search space"): unreadable, not UTF-8, bad TOML."""
    if isinstance(path_or_text, bool) or not isinstance(path_or_text, (str, os.PathLike)):
        raise FastmachError(f"{what}: expected a file path or TOML text, got "
                            f"{type(path_or_text).__name__}")
    if not isinstance(path_or_text, os.PathLike) and not path_or_text.strip():
        raise FastmachError(f"{what}: empty (expected a file path or TOML text)")
    if isinstance(path_or_text, os.PathLike) or "\n" not in path_or_text:
        path = Path(path_or_text)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise FastmachError(f"cannot read {what} {str(path)!r}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise FastmachError(f"{what} {str(path)!r} is not UTF-8 text (byte "
                                f"{e.start + 1})") from None
        source = str(path)
    else:
        text, source = str(path_or_text), inline
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FastmachError(f"{source}: bad TOML: {e}") from None
    except RecursionError:   # (the parser's stack: not a study either)
        raise FastmachError(f"{source}: bad TOML: arrays or inline tables nested too "
                            f"deeply") from None
    return data, text, source

