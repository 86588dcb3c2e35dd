"""The exact partition solver: ``solve`` (which hand cards can join the table so that all
of it splits into valid melds, and how), ``partition`` and ``opening`` (``exact``), and
``solve_many`` for batches (``batch``); the search itself is compiled (``_solver.pyx``)."""
from fastmach.solver.exact import (BAD_CARDS, OBJECTIVES, POINT_SCALE, SOLVED, STATUS, Solution,
                                   known_table, opening, opening_weights, partition,
                                   solve, weights)

__all__ = ["Solution", "solve", "partition", "opening", "opening_weights", "known_table",
           "weights", "POINT_SCALE", "OBJECTIVES", "STATUS", "SOLVED", "BAD_CARDS"]
