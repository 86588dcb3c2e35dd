"""Developer tools over the library: benchmarks (bench), rule-set comparisons (comparison)
and the rule search (tune)."""
