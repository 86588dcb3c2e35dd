"""Slow, independent references for the exact solver (tests only).

``brute``: exhaustive pure-Python search, for small positions.
``milp``: integer-programming model solved by scipy's HiGHS, a second opinion that scales.
Both share no code with fastmach's solver; they use only ``fastmach.core.validate``'s meld
predicate and partition check.
"""
