"""Tools: drivers that run studies for one question (ratings, ...)."""
