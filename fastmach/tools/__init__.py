"""Developer tools over the library: benchmarks (bench) and rule-set comparisons (comparison)."""
