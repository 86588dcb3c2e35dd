"""The compiled core: card ids and parsing, card multisets (_cardset), the exact partition
solver and its batch kernel (_solver, _batch), and the meld validator that shares no code
with the solver (validate)."""

#: The package version (``fastmach.__version__``), recorded in every study manifest; defined
#: here, in the lowest layer, so that the modules recording it need not import the package.
__version__ = "0.1.0"

