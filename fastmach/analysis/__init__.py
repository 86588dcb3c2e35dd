"""Analysis: statistics of study results (pure functions, pandas in, pandas out)."""
