"""Statistics of study results (pure functions, pandas in, pandas out): summaries,
inference and tables (stats), ratings from hand outcomes (ratings)."""
