import sys

try:
    from .cli import console
except KeyboardInterrupt:  # Ctrl-C while the package imports
    print("fastmach: interrupted", file=sys.stderr)
    sys.exit(130)

console()
