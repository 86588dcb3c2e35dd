"""Statistics of study results: per-configuration summaries, inference, tables (stats)."""
