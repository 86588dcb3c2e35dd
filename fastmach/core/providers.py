"""What a lower layer asks of a layer above it (the State asks the engine for its seats'
decisions; a Solution asks the viewer for its notebook HTML): a name -> "module:attribute",
filled in by the package face (``fastmach/__init__.py``) and imported on first use, so that
no layer imports upwards."""
from __future__ import annotations

import importlib
from typing import Any

#: name -> "module:attribute"
PROVIDERS: dict[str, str] = {}


def provider(name: str) -> Any:
    """The object the package named for ``name`` (imported now); KeyError if none."""
    module, _, attribute = PROVIDERS[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def html_of(name: str, obj: Any) -> str | None:
    """``obj``'s notebook HTML by the renderer the package named ``name``; None (the text
    repr) where none is named."""
    return provider(name)(obj) if name in PROVIDERS else None
