"""Tools over studies and statistics, one question each: benchmarks (bench), rule-set
comparisons (comparison), ratings of strategies (rate), the search of the rule space for
targets (tune)."""
