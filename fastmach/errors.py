"""The one exception type fastmach raises for bad input."""


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
