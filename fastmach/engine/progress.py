"""Progress bars on stderr, with tqdm loaded only once a bar shows: ``Progress`` counts
games (``play``, ``train``, ``exploit``; ``replay``'s log records), ``Steps`` names the
steps of a run whose work is not counted so (``report``, the analysis after ``compare``'s
and ``rate``'s games).

``tqdm(total, delay=2)`` shows nothing before two seconds have passed and then draws at
the next update; importing tqdm costs a short run a fiftieth of a second or so. ``Progress``
keeps the count itself and builds that bar at the first update past the delay (at once
with ``progress=True``; never with ``progress=False``), started when the run started: its
elapsed time and rate count the whole run, the games done before it showed included (the
rate is the run's mean, not a recent average). By default (``progress=None``) a bar shows
only where stderr is a terminal: a log or a pipe gets none.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Any, Sequence

__all__ = ["Progress", "Steps", "DELAY"]

#: seconds before the default bar shows
DELAY = 2.0
#: seconds between two refreshes of a ``Steps`` bar (its elapsed time moves during a step)
TICK = 1.0


def terminal() -> bool:
    """Whether stderr is a terminal (where the default bar shows)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):   # (a closed or replaced stream)
        return False


class Progress:
    """A context manager counting games (or ``unit``): ``update(n)``; the bar (tqdm) on
    demand."""

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
        self.bar = tqdm(total=self.total, unit=self.unit, file=sys.stderr, smoothing=0,
                        delay=0 if self.progress else max(ago, 1e-9))
        self.bar.start_t = self.bar.last_print_t = self.bar._time() - ago  # tqdm's clock
        if self.done:
            self.bar.update(self.done)

    def update(self, n: int) -> None:
        """``n`` more games done."""
        self.done += n
        if self.bar is None and self.progress is None and time.monotonic() - self.t0 >= DELAY \
                and terminal():
            self._show()   # (with these games)
        elif self.bar is not None:
            self.bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class Steps:
    """A bar over a run's named steps: call it with each step's name as the step begins
    (``steps("the figures")``). Its elapsed time is refreshed every second by a thread, so a
    long step shows the run alive; the rate is steps over the whole run. Shown at once
    (``progress=True``), never (``False``), or (``None``) past :data:`DELAY` where stderr is
    a terminal."""

    def __init__(self, steps: Sequence[str], progress: bool | None, desc: str) -> None:
        self.total, self.progress, self.desc = len(steps), progress, desc
        self.done, self.name = 0, ""
        self.bar: Any = None
        self.t0 = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if progress is not False and (progress or terminal()):
            if progress:
                self._show()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()

    def __call__(self, name: str) -> None:
        """The step ``name`` begins (the one before it is done)."""
        with self._lock:
            if self.name:
                self.done += 1
            self.name = name
            if self.bar is not None:
                self._draw()

    def _show(self) -> None:
        from tqdm import tqdm

        ago = time.monotonic() - self.t0
        self.bar = tqdm(total=self.total, unit="step", desc=self.desc, file=sys.stderr,
                        smoothing=0, delay=1e-9, bar_format="{desc}: {n}/{total} steps "
                        "[{elapsed}<{remaining}, {rate_fmt}{postfix}]")
        self.bar.start_t = self.bar.last_print_t = self.bar._time() - ago  # tqdm's clock
        self._draw()

    def _draw(self) -> None:
        self.bar.n = self.done
        self.bar.set_postfix_str(self.name, refresh=False)
        self.bar.refresh()

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            with self._lock:
                if self.bar is None and time.monotonic() - self.t0 >= DELAY:
                    self._show()
                elif self.bar is not None:
                    self.bar.refresh()

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.bar is not None:
            if exc_type is None:
                self.done, self.name = self.total, "done"
                self._draw()
            self.bar.close()
