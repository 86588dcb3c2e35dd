"""The one exception type fastmach raises for bad input, and how a message shows a value
it was given."""
from __future__ import annotations

from typing import Callable


class FastmachError(ValueError):
    """Bad input: a card, rule, position, study or argument that fastmach refuses.

    The message names what is wrong (the token, parameter, key or line). The CLI prints it
    on stderr and exits with status 2.
    """


class BotError(RuntimeError):
    """A Python bot failed during a game (it raised, or a move went over its time limit).

    The message names the bot, the seat, the hand, the turn and what happened. The CLI
    prints it on stderr and exits with status 1.
    """


def shown(x: object, limit: int, show: Callable[[object], str] = repr) -> str:
    """``show(x)`` (``repr`` or ``str``) of a value an error names, cut at ``limit``
    characters; where that raises (a bot's object), its type's name."""
    try:
        s = show(x)
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        return f"<{class_name(x)}: {show.__name__}() raised {class_name(e)}>"
    return s if len(s) <= limit else s[:limit] + "..."


def class_name(x: object) -> str:
    """The name of ``x``'s type (the type's own, whatever its metaclass says)."""
    name = type.__dict__["__name__"].__get__(type(x))
    return name if type(name) is str else "object"
