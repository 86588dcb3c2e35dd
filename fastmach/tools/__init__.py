"""Tools built on studies and statistics: ``tune`` (search the rule space for targets)."""
