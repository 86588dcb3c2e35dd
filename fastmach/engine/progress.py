"""The ``play`` command's progress bar, with tqdm loaded only once the bar shows.

``tqdm(total, delay=2)`` shows nothing before two seconds have passed and then draws at
the next update; importing tqdm costs a short run a fiftieth of a second or so. ``Progress``
keeps the count itself and builds that bar at the first update past the delay (at once
with ``progress=True``; never with ``progress=False``), starting at the games done.
"""
from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress", "DELAY"]

#: seconds before the default bar shows
DELAY = 2.0


class Progress:
    """A context manager counting games: ``update(n)``; the bar (tqdm) on demand."""

    def __init__(self, total: int, progress: bool | None, unit: str = "game") -> None:
        self.total, self.progress, self.unit = total, progress, unit
        self.done = 0
        self.bar: Any = None
        self.t0 = time.monotonic()
        if progress:
            self._show()

    def _show(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, initial=self.done, unit=self.unit, file=sys.stderr)

    def update(self, n: int) -> None:
        """``n`` more games done."""
        if self.bar is None and self.progress is None and time.monotonic() - self.t0 >= DELAY:
            self._show()
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()
