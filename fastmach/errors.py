"""The one exception type fastmach raises for bad input."""


class FastmachError(ValueError):
    """Bad input: a card, rule, position, study or argument that fastmach refuses.

    The message names what is wrong (the token, parameter, key or line). The CLI prints it
    on stderr and exits with status 2.
    """
