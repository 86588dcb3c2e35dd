"""A Python bot's strategy string: ``package.module:Class(k=v,...)``, typed from the class.

The parameters are the keyword arguments of the class's constructor, each typed from its
annotation or, without one, from its default: ``int``, ``float``, ``bool`` (true/false,
1/0) or ``str`` (``Optional[T]`` takes ``none`` as well). A name the constructor does not
take, a value of the wrong type or a required argument left out is a FastmachError naming
the bot and the parameter. ``time_limit`` (seconds, > 0, at most :data:`MAX_TIME_LIMIT`: a
day) and ``isolated`` (true/false) are the seat's, never the
bot's: a move that takes longer than the limit stops the game
(``fastmach.strategies.bots``); an isolated bot runs in its own process and is sent only
its observation (``fastmach.strategies.isolation``, the setting for competitions).

The canonical string keeps the path and the parameters given that differ from the
defaults, in the constructor's order, ``time_limit`` and ``isolated`` last (``mybots:RandomLegal`` or
``mybots:RandomLegal(n_subsets=8)``): results name the bot by it and a sweep's workers
rebuild the bot from it.

The import. The module is imported from ``sys.path``; when it is found nowhere there, the
working directory is tried and, if it holds the module, added at the end of ``sys.path``
(so a bot module next to the study imports, and an installed module of the same name
still wins). Sweep workers start with the driver's ``sys.path``, so they import the same
file; not found, the error says where it looked.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import math
import os
import re
import sys
import typing
from dataclasses import dataclass

from fastmach.errors import FastmachError

__all__ = ["BOT_PATH_RE", "TIME_LIMIT", "ISOLATED", "MAX_TIME_LIMIT", "BotSpec", "load_bot",
           "parse_bot_spec", "check_time_limit"]

#: ``package.module:Class`` with an optional ``(k=v,...)``
BOT_PATH_RE = re.compile(r"^\s*([A-Za-z_][\w.]*:[A-Za-z_][\w.]*)\s*(?:\((.*)\))?\s*$",
                         re.DOTALL)
TIME_LIMIT = "time_limit"
ISOLATED = "isolated"
#: The largest ``time_limit``, in seconds (a day): a move's deadline the clocks can hold.
MAX_TIME_LIMIT = 86_400.0
_TYPES = (bool, int, float, str)
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")


@dataclass(frozen=True)
class BotSpec:
    """A validated bot strategy: the import path, the constructor's keyword arguments
    (``(name, value)`` in the constructor's order), the seat's time limit and whether the
    bot plays in its own process."""

    path: str
    kwargs: tuple[tuple[str, object], ...] = ()
    time_limit: float | None = None
    isolated: bool = False

    def __str__(self) -> str:
        parts = [f"{k}={_format(v)}" for k, v in self.kwargs]
        if self.time_limit is not None:
            parts.append(f"{TIME_LIMIT}={_format(self.time_limit)}")
        if self.isolated:
            parts.append(f"{ISOLATED}=true")
        return f"{self.path}({','.join(parts)})" if parts else self.path


def load_bot(path: str) -> type:
    """The class named by ``"package.module:Class"``; FastmachError says what is wrong."""
    mod_name, _, attr = path.strip().partition(":")
    obj = _import(path, mod_name)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise FastmachError(f"bot {path!r}: {mod_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(getattr(obj, "act", None)):
        raise FastmachError(f"bot {path!r}: {attr!r} has no act(obs) method")
    return obj


def _import(path: str, mod_name: str):
    top = mod_name.split(".")[0]
    try:
        return importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] != top:
            raise FastmachError(f"bot {path!r}: cannot import {mod_name!r} ({e})") from None
    except Exception as e:  # the module itself raised while being imported
        raise FastmachError(f"bot {path!r}: importing {mod_name!r} raised "
                            f"{type(e).__name__}: {e}") from None
    cwd = os.getcwd()
    on_path = cwd in sys.path or "" in sys.path
    if not on_path and importlib.machinery.PathFinder.find_spec(top, [cwd]) is not None:
        sys.path.append(cwd)
        importlib.invalidate_caches()
        return _import(path, mod_name)
    raise FastmachError(
        f"bot {path!r}: cannot import {mod_name!r} (No module named {top!r}; the bot path is "
        f"imported from sys.path, then the working directory {cwd}: put the module there or "
        "on PYTHONPATH)")


def parse_bot_spec(text: str) -> BotSpec:
    """``package.module:Class(k=v,...)`` -> BotSpec, the class imported and its constructor's
    parameters checked (FastmachError names the bot and the parameter)."""
    m = BOT_PATH_RE.match(text)
    if not m:
        raise FastmachError(f"bad bot {text!r}: expected package.module:Class or "
                            "package.module:Class(param=value,...)")
    path, args = m.group(1), m.group(2)
    cls = load_bot(path)
    params = _constructor_params(path, cls)
    given: dict[str, str] = {}
    if args is not None and args.strip():
        for item in args.split(","):
            if "=" not in item:
                raise FastmachError(f"bot {path!r}: expected param=value, got {item.strip()!r}")
            key, val = (s.strip() for s in item.split("=", 1))
            if key in given:
                raise FastmachError(f"bot {path!r}: parameter {key!r} given twice")
            given[key] = val
    time_limit = None
    if TIME_LIMIT in given:
        time_limit = _time_limit(path, given.pop(TIME_LIMIT))
    isolated = False
    if ISOLATED in given:
        isolated = _coerce(path, ISOLATED, bool, False, given.pop(ISOLATED))
    for key in given:
        if key not in params:
            known = ", ".join(list(params) + [TIME_LIMIT, ISOLATED])
            raise FastmachError(f"bot {path!r} has no parameter {key!r} (parameters: {known})")
    kwargs = []
    for name, (kind, optional, default) in params.items():
        if name in given:
            value = _coerce(path, name, kind, optional, given[name])
            if default is inspect.Parameter.empty or value != default or \
                    type(value) is not type(default):
                kwargs.append((name, value))
        elif default is inspect.Parameter.empty:
            raise FastmachError(f"bot {path!r}: missing required parameter {name!r} "
                                f"({_type_name(kind)}): write {path}({name}=...)")
    return BotSpec(path, tuple(kwargs), time_limit, isolated)


def _constructor_params(path: str, cls: type) -> dict[str, tuple[type | None, bool, object]]:
    """name -> (type, optional, default) of each keyword parameter of ``cls(...)``."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return {}
    try:
        hints = typing.get_type_hints(cls.__init__)  # type: ignore[misc]
    except Exception:
        hints = {}
    out = {}
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            if p.kind == p.POSITIONAL_ONLY and p.default is p.empty:
                raise FastmachError(f"bot {path!r}: its constructor needs the positional-only "
                                    f"argument {name!r}, which a strategy string cannot give")
            continue
        kind, optional = _kind(hints.get(name, p.annotation), p.default)
        out[name] = (kind, optional, p.default)
    return out


def _kind(annotation, default) -> tuple[type | None, bool]:
    """(int/float/bool/str or None, takes None) from an annotation, else the default."""
    if isinstance(annotation, str):  # unresolved: the plain names only
        names = [a.strip() for a in annotation.replace("Optional[", "").rstrip("]").split("|")]
        kinds = [t for t in _TYPES if t.__name__ in names]
        return (kinds[0] if kinds else None), "None" in names or "Optional[" in annotation
    if annotation is not inspect.Parameter.empty:
        args = typing.get_args(annotation)
        if args and type(None) in args:
            rest = [a for a in args if a is not type(None)]
            return (rest[0] if len(rest) == 1 and rest[0] in _TYPES else None), True
        return (annotation if annotation in _TYPES else None), False
    if default is not inspect.Parameter.empty and type(default) in _TYPES:
        return type(default), False
    return None, default is None


def _coerce(path: str, name: str, kind: type | None, optional: bool, text: str):
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    if optional and text.lower() == "none":
        return None
    where = f"bot {path!r}: parameter {name!r}"
    if kind is None:
        raise FastmachError(f"{where} has no type a strategy string can give (annotate it "
                            "int, float, bool or str, or give it such a default)")
    if kind is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise FastmachError(f"{where} must be true or false, got {text!r}")
    if kind is int:
        try:
            return int(text, 10)
        except ValueError:
            raise FastmachError(f"{where} must be an integer, got {text!r}") from None
    if kind is float:
        try:
            value = float(text)
        except ValueError:
            raise FastmachError(f"{where} must be a number, got {text!r}") from None
        if not math.isfinite(value):
            raise FastmachError(f"{where} must be finite, got {text!r}")
        return value
    if any(c in text for c in ",()="):
        raise FastmachError(f"{where}: a string value cannot hold , ( ) or =, got {text!r}")
    return text


def _time_limit(path: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    return check_time_limit(path, value, text)


def check_time_limit(path: str, value: object, text: str | None = None) -> float:
    """``value`` as a time limit in seconds: a finite number > 0, at most
    :data:`MAX_TIME_LIMIT`; FastmachError names the bot (``path``) and what was given
    (``text``, else the value)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not (math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT):
        given = text if text is not None else value
        raise FastmachError(f"bot {path!r}: parameter {TIME_LIMIT!r} must be a positive "
                            f"number of seconds, at most {MAX_TIME_LIMIT:g} (a day), got "
                            f"{given!r}")
    return float(value)


def _type_name(kind: type | None) -> str:
    return kind.__name__ if kind is not None else "untyped"


def _format(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    return str(v)
