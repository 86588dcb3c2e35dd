"""The ``play`` command's progress bar, with tqdm loaded only once the bar shows.

``tqdm(total, delay=2)`` shows nothing before two seconds have passed and then draws at
the next update; importing tqdm costs a short run a fiftieth of a second or so. ``Progress``
keeps the count itself and builds that bar at the first update past the delay (at once
with ``progress=True``; never with ``progress=False``), started when the run started: its
elapsed time and rate count the whole run, the games done before it showed included.
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
        """The bar, started when the run started, with the games done so far: its rate is
        theirs over the whole run (drawn at once with progress=True, which makes it at
        the start; else at the update that follows)."""
        from tqdm import tqdm

        ago = time.monotonic() - self.t0
        self.bar = tqdm(total=self.total, unit=self.unit, file=sys.stderr,
                        delay=0 if self.progress else max(ago, 1e-9))
        self.bar.start_t = self.bar.last_print_t = self.bar._time() - ago  # tqdm's clock
        if self.done:
            self.bar.update(self.done)

    def update(self, n: int) -> None:
        """``n`` more games done."""
        self.done += n
        if self.bar is None and self.progress is None and time.monotonic() - self.t0 >= DELAY:
            self._show()   # (with these games)
        elif self.bar is not None:
            self.bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()
