"""The compiled core: card ids and parsing, card multisets (_cardset), the exact partition
solver and its batch kernel (_solver, _batch), and the meld validator that shares no code
with the solver (validate)."""
