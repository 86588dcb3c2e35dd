"""``fastmach tune``: search the rule space for a designer's targets (``run.tune``): the
space (``space``), the race (``search``), the answer on fresh deals (``answer``) and its
figures (``plots``)."""
from fastmach.tools.tune.answer import Answer
from fastmach.tools.tune.run import tune
from fastmach.tools.tune.space import Space, load_space

__all__ = ["tune", "load_space", "Space", "Answer"]
