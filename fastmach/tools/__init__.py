"""Tools over studies and statistics: benchmarks (bench), rule-set comparisons (comparison)
and the search of the rule space for targets (tune)."""
