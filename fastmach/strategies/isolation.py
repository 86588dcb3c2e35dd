"""A Python bot in its own process: the setting for competitions.

``mybots:Bot(isolated=true)`` seats the bot in a separate Python process (started with
``subprocess``, running :func:`serve`, so it works in sweep and Dask workers too). The game's process sends it nothing but each turn's
``Observation``; the bot sends back its action as JSON, which the game's process parses
into a ``Play``, ``Draw`` or ``Pass`` and checks against its own position like any bot's.
So a bot can neither walk the frames or the heap up to the engine's position (it is not
in its process) nor send anything that runs in the game's process (no pickle comes back).
With ``time_limit`` (at most a day, :data:`~fastmach.strategies.botspec.MAX_TIME_LIMIT`)
the game's process waits that long for the whole answer (the
observation sent, every byte of the answer read), then stops the bot's process and the
game (a ``BotError``); without one it waits.

The bot's process is the leader of its own session: it and every process it starts are
killed together when the bot is closed, times out or fails, so none outlives the game.
The serving loop keeps the protocol's pipes on private descriptors (closed on exec); the
bot's standard input reads ``/dev/null`` and its standard output (fd 1 and
``sys.stdout``) goes to stderr, so what the bot reads or prints never touches a frame.

Combined with a secret root seed (``--seed secret``: drawn from the operating system,
recorded only in the result rows) a bot cannot reconstruct the deal either. What this
does not guard against: a bot reading files or other processes of the same operating-system
user; for a public competition run the bots under their own user account as well.

The wire format: frames of a 4-byte big-endian length and a body. Game -> bot: the first
frame is the JSON ``{"path": ..., "kwargs": {...}}`` of the bot to build, then one pickled
``Observation`` per turn. Bot -> game: JSON ``{"ok": true}`` after construction, then per
turn ``{"kind": "play"|"draw"|"pass", "melds": [[...]], "stands": [[...]] | null,
"placed": [...], "taken": [...]}``, or ``{"error": TYPE, "message": TEXT}`` when the bot
raised.
"""
from __future__ import annotations

import json
import os
import pickle
import selectors
import signal
import struct
import subprocess
import sys
import time
import weakref
from typing import BinaryIO

from fastmach.errors import FastmachError
from fastmach.game.actions import Action, Draw, Pass, Play
from fastmach.game.observation import Observation
from fastmach.strategies.botspec import check_time_limit

__all__ = ["IsolatedBot", "RemoteError"]

_HEADER = struct.Struct(">I")
#: the largest frame either side accepts (an answer is a few kB)
MAX_FRAME = 1 << 24
#: seconds a new bot process may take to import fastmach and build the bot
START_TIMEOUT = 120.0
#: the bot process's program. Where fastmach itself does not import there (its compiled core
#: missing or stale, a dependency absent), it takes the bot's frame and answers with the
#: import error, which the game's process raises as the bot's: the cause named, not a
#: process that stopped reading
_SERVE = """\
import sys
try:
    from fastmach.strategies.isolation import serve
except Exception as e:
    import json, struct
    head = sys.stdin.buffer.read(4)
    if len(head) == 4:
        sys.stdin.buffer.read(struct.unpack(">I", head)[0])
    body = json.dumps({"error": type(e).__name__,
                       "message": "its process could not import fastmach: " + str(e)}).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(body)) + body)
    sys.stdout.buffer.flush()
    sys.exit(1)
sys.exit(serve())
"""


class RemoteError(Exception):
    """What a bot raised in its own process: ``remote_type`` is the exception's type name."""

    def __init__(self, remote_type: str, message: str):
        super().__init__(message)
        self.remote_type = remote_type


class IsolatedBot:
    """A bot object whose ``act`` runs in a separate process (see the module docstring)."""

    def __init__(self, path: str, kwargs: dict, time_limit: float | None = None):
        if time_limit is not None:   # (before any process: a deadline the clocks can hold)
            time_limit = check_time_limit(path, time_limit)
        self.path, self.time_limit = path, time_limit
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=None, bufsize=0, cwd=os.getcwd(), env=_child_env(),
            start_new_session=True)   # (its own process group: killed whole by _stop)
        self._finalizer = weakref.finalize(self, _stop, self._proc)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._send = self._proc.stdin.fileno()
        self._recv = self._proc.stdout.fileno()
        os.set_blocking(self._send, False)   # (a write never waits past the deadline)
        spec = json.dumps({"path": path, "kwargs": kwargs}).encode()
        reply = self._exchange(spec, START_TIMEOUT, "to start")
        if "error" in reply:
            self.close()
            raise RemoteError(str(reply["error"]), str(reply.get("message", "")))

    def act(self, obs: Observation) -> Action:
        """The bot's action for ``obs`` (RemoteError if it raised, TimeoutError if the
        observation was not taken and the whole answer sent within the time limit)."""
        body = pickle.dumps(obs, protocol=pickle.HIGHEST_PROTOCOL)
        reply = self._exchange(body, self.time_limit, "to answer")
        if "error" in reply:   # (the game stops on it: so do the bot's processes)
            self.close()
            raise RemoteError(str(reply["error"]), str(reply.get("message", "")))
        return action_of(reply)

    def close(self) -> None:
        """Stop the bot's process and every process it started (also done when the
        object is collected)."""
        self._finalizer()

    def _exchange(self, body: bytes, timeout: float | None, what: str) -> dict:
        """Send one frame, read the answer's frame whole, both within ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            _send_within(self._send, _HEADER.pack(len(body)) + body, deadline)
            (n,) = _HEADER.unpack(_take(self._recv, _HEADER.size, deadline))
            if n > MAX_FRAME:
                self.close()
                raise RemoteError("ValueError", f"a frame of {n} bytes (at most {MAX_FRAME})")
            answer = _take(self._recv, n, deadline)
        except TimeoutError:
            self.close()
            raise TimeoutError(f"no answer within {timeout:g} s {what} (its process was "
                               f"stopped)") from None
        except (EOFError, OSError):
            raise RemoteError("ProcessLookupError", self._gone()) from None
        try:
            reply = json.loads(answer)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self.close()
            raise RemoteError("ValueError", "its process sent something that is not a "
                              "JSON object")
        return reply

    def _gone(self) -> str:
        try:   # (a process that closed its pipes is ending: its exit code says more)
            code: int | None = self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        self.close()
        return f"its process ended (exit code {code})" if code is not None else \
            "its process stopped reading"


def action_of(reply: dict) -> Action:
    """The action in a bot process's JSON answer; ValueError says what is malformed."""
    kind = reply.get("kind")
    if kind == "draw":
        return Draw()
    if kind == "pass":
        return Pass()
    if kind != "play":
        raise RemoteError("ValueError", f"answer of kind {kind!r}; expected play, draw or pass")
    melds, placed = reply.get("melds"), reply.get("placed")
    taken, stands = reply.get("taken", []), reply.get("stands")
    if not (isinstance(melds, list) and _ints2(melds) and isinstance(placed, list)
            and _ints(placed) and _ints(taken) and (stands is None or _ints2(stands))):
        raise RemoteError("ValueError", "a play's melds, stands, placed and taken must be "
                          "lists of integers")
    return Play(tuple(tuple(m) for m in melds), tuple(placed), tuple(taken),
                stands=None if stands is None else tuple(tuple(m) for m in stands))


def answer_of(action: object) -> dict:
    """The JSON answer for a bot's action (the bot process's side of :func:`action_of`)."""
    if isinstance(action, Play):
        return {"kind": "play", "melds": [list(m) for m in action.melds],
                "stands": None if action.stands is None else [list(m) for m in action.stands],
                "placed": list(action.placed), "taken": list(action.taken)}
    if isinstance(action, Pass):
        return {"kind": "pass"}
    if isinstance(action, Draw):
        return {"kind": "draw"}
    raise TypeError(f"act() returned {action!r}; expected fastmach.Play, Draw or Pass")


def _ints(x) -> bool:
    return isinstance(x, list) and all(type(v) is int for v in x)


def _ints2(x) -> bool:
    return isinstance(x, list) and all(_ints(m) for m in x)


def _child_env() -> dict:
    """The bot process imports fastmach and the bot the way this process does."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def _stop(proc: subprocess.Popen) -> None:
    """Close the pipes, kill the bot's process group (the bot and whatever it started)."""
    for f in (proc.stdin, proc.stdout):
        try:
            if f is not None:
                f.close()
        except OSError:
            pass
    try:   # (the group outlives its leader while any member lives; its id stays taken)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _wait(sel: selectors.BaseSelector, deadline: float | None) -> None:
    """Until the descriptor is ready; TimeoutError once ``deadline`` (None: never) has
    passed."""
    left = None if deadline is None else deadline - time.monotonic()
    if (left is not None and left <= 0) or not sel.select(left):
        raise TimeoutError


def _send_within(fd: int, data: bytes, deadline: float | None) -> None:
    """Write ``data`` whole to the non-blocking ``fd`` by ``deadline`` (None: however long)."""
    view = memoryview(data)
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_WRITE)
        while view:
            _wait(sel, deadline)
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue


def _take(fd: int, n: int, deadline: float | None) -> bytes:
    """Exactly ``n`` bytes of ``fd`` by ``deadline`` (None: however long); EOFError if the
    stream ends first."""
    parts: list[bytes] = []
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while n:
            _wait(sel, deadline)
            chunk = os.read(fd, n)
            if not chunk:
                raise EOFError
            parts.append(chunk)
            n -= len(chunk)
    return b"".join(parts)


def _write(f: BinaryIO, body: bytes) -> None:
    f.write(_HEADER.pack(len(body)) + body)
    f.flush()


def _read(f: BinaryIO) -> bytes:
    head = f.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (n,) = _HEADER.unpack(head)
    if n > MAX_FRAME:
        raise RemoteError("ValueError", f"a frame of {n} bytes (at most {MAX_FRAME})")
    body = f.read(n)
    if len(body) < n:
        raise EOFError
    return body


def serve() -> int:
    """The bot process: build the bot, then answer one observation per frame."""
    # the protocol's pipes on private descriptors (os.dup: closed on exec); fd 0 and 1,
    # which the bot's code reads and prints to, on /dev/null and stderr
    requests = os.fdopen(os.dup(0), "rb")
    channel = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def reply(obj: dict) -> None:
        _write(channel, json.dumps(obj).encode())

    try:
        spec = json.loads(_read(requests))
        from fastmach.strategies.botspec import load_bot
        bot = load_bot(spec["path"])(**spec["kwargs"])
    except EOFError:
        return 0
    except FastmachError as e:
        reply({"error": "FastmachError", "message": str(e)})
        return 1
    except Exception as e:
        reply({"error": type(e).__name__, "message": str(e)})
        return 1
    reply({"ok": True})
    while True:
        try:
            obs = pickle.loads(_read(requests))
        except EOFError:
            return 0
        try:
            reply(answer_of(bot.act(obs)))
        except (KeyboardInterrupt, SystemExit):
            raise   # (as in the game's process: not the bot's error, the run's end)
        except BaseException as e:   # GeneratorExit and the like, named as in process
            reply({"error": type(e).__name__, "message": str(e)})
