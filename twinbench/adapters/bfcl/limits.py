"""Limits that hold on replay: the model's calls run in a forked child that is killed at its deadline.

A timer signal cannot stop work done in C: ``Decimal.sqrt`` at a precision of 10**7 (MathAPI's
``square_root``) takes 90 s of CPU here and only sees the signal when it returns. So replay runs a
batch of items (one run's) in a child process forked from the replaying one: the child inherits
the simulator classes, the reference states and the rollouts, replays the items one after
another, and sends back each item's small result. Before each item and each call it writes the
time into a few bytes of shared memory, so the parent knows the deadlines without a message per
call. The parent waits for the next result until the nearest deadline; at a deadline it kills the
child (SIGKILL holds whatever the child is doing), records the item as stopped, and forks a fresh
child for the items after it. (The parent also looks again every half call limit, so that a
call that begins while it waits is stopped at its own deadline.) An item that allocates past
the memory limit gets ``MemoryError`` inside the child (``RLIMIT_AS``) and is stopped the same way.

The limits, and why these numbers:

- ``CALL_SECONDS`` (2 s) per call: of the 61,537 calls replayed for the seven shared runs the
  slowest takes 0.11 s (a first ``trading_login``), the next 4 ms; 2 s leaves a loaded machine
  twenty times the slowest.
- ``ITEM_SECONDS`` (10 s) per item, everything included (calls, state comparisons): the slowest
  item of the shared runs takes 0.1 s, so 10 s is a hundred times that.
- ``MAX_CALLS`` (1,000) per item (one world): the most any item of the shared runs makes is 122
  (glyphh-hdc, ``multi_turn_miss_param_110``), the most on one turn 63. BFCL's harness bounds a
  turn at 21 steps but not the calls of a step. At the normal pace (well under a millisecond a
  call) 1,000 calls stay far inside the item's time limit, and the bound does not depend on the
  machine's speed.
- ``RUN_SECONDS`` (120 s) for one batch (a run's items): the normal replay of a run takes under a
  second; the items left when it runs out are stopped unreplayed (``run time limit``).
- ``MEMORY_BYTES`` (1 GiB) that the child may add to the address space it inherits (the
  parent's own size varies with what it has imported, so the bound is on the growth): a
  replayed world holds a few MiB, and even the hostile ``square_root`` at a precision of 10**7
  needs about 120 MiB (measured here), so no honest call comes near; with one child per
  scoring worker, a few GiB in all stay within any machine twinbench runs on.

Without ``os.fork`` (Windows) the items run in this process and only the call bound holds.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs

X = TypeVar("X")
T = TypeVar("T")

CALL_SECONDS = 2.0
ITEM_SECONDS = 10.0
RUN_SECONDS = 120.0
MAX_CALLS = 1000
MEMORY_BYTES = 1 << 30

# the reasons an item is stopped: counted as the reason it was not replayed
TIME = "time limit"
MEMORY = "memory limit"
CALLS = "call limit"
RUN = "run time limit"
ENDED = "simulator process ended"


@attrs.frozen
class Limits:
    """The limits one batch of replays runs under (see the module's text for the numbers)."""

    call_seconds: float = CALL_SECONDS
    item_seconds: float = ITEM_SECONDS
    run_seconds: float = RUN_SECONDS
    calls: int = MAX_CALLS
    memory_bytes: int = MEMORY_BYTES


@attrs.frozen
class Stop:
    """Why an item was stopped: the reason, the call running then (1-based in the item; 0: none), and how."""

    reason: str
    call: int
    detail: str


class LimitReached(BaseException):
    """Raised in the child at a limit it sees itself (the call bound, memory). A BaseException,
    so that ``except Exception`` in simulator code does not swallow it."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail


# --------------------------------------------------------------------------- the child's side

# slots of the shared memory, one double each
_ITEM, _ITEM_BEGAN, _CALL_BEGAN, _CALL = range(4)


@attrs.define
class _Meter:
    """What the child writes into the shared memory for the parent to read."""

    view: memoryview
    calls: int

    def item(self, index: int) -> None:
        self.view[_CALL] = 0.0
        self.view[_CALL_BEGAN] = 0.0
        self.view[_ITEM_BEGAN] = time.monotonic()
        self.view[_ITEM] = float(index)

    def call(self) -> None:
        n = int(self.view[_CALL]) + 1
        self.view[_CALL] = float(n)
        if n > self.calls:
            raise LimitReached(CALLS, f"is past the bound of {self.calls} calls per item")
        self.view[_CALL_BEGAN] = time.monotonic()


_meter: _Meter | None = None  # set in the child only


def call_began() -> None:
    """Called by the simulator's executor before each call (nothing outside a replay child)."""
    if _meter is not None:
        _meter.call()


def call_ended() -> None:
    if _meter is not None:
        _meter.view[_CALL_BEGAN] = 0.0


def _limit_memory(extra: int) -> None:
    """Let the address space grow by ``extra`` bytes over its present size (Linux; elsewhere nothing)."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        wanted = size + extra
        for bound in (soft, hard):
            if bound != resource.RLIM_INFINITY:
                wanted = min(wanted, bound)  # never raise a limit already set
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ImportError, OSError, ValueError):
        pass


def _serve(work: Callable[[Any], Any], items: Sequence[Any], start: int, writer, meter: _Meter,
           memory_bytes: int) -> None:
    global _meter
    _meter = meter
    _limit_memory(memory_bytes)
    for index in range(start, len(items)):
        meter.item(index)
        try:
            writer.send(("done", work(items[index])))
        except LimitReached as stop:
            writer.send(("stop", stop.reason, stop.detail))
            return
        except MemoryError:
            writer.send(("stop", MEMORY, "allocated past the memory limit"))
            return
        except Exception as exc:  # noqa: BLE001 - raised again in the parent
            try:
                writer.send(("raise", exc))
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                writer.send(("raise", RuntimeError(traceback.format_exc())))
            return


# --------------------------------------------------------------------------- the parent's side


class _Child:
    """One forked child replaying ``items[start:]``; the parent reads its results under the deadlines."""

    def __init__(self, work: Callable[[Any], Any], items: Sequence[Any], start: int, limits: Limits) -> None:
        self.limits = limits
        self.memory = mmap.mmap(-1, 8 * 4)  # anonymous and shared with the child
        self.view = memoryview(self.memory).cast("d")
        self.view[_ITEM] = float(start)
        self.view[_ITEM_BEGAN] = time.monotonic()
        self.reader, writer = multiprocessing.Pipe(duplex=False)
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the caller
            try:
                self.reader.close()
                _serve(work, items, start, writer, _Meter(self.view, limits.calls), limits.memory_bytes)
            finally:
                os._exit(0)
        writer.close()

    def _progress(self) -> tuple[int, float, float, int]:
        while True:  # the child writes while the parent reads: take two equal readings
            first, second = tuple(self.view), tuple(self.view)
            if first == second:
                return int(first[_ITEM]), first[_ITEM_BEGAN], first[_CALL_BEGAN], int(first[_CALL])

    def _deadline(self, run_deadline: float) -> tuple[float, int, Stop]:
        """The nearest deadline, the item it is for, and how that item is stopped if it passes."""
        item, item_began, call_began, call = self._progress()
        limits = self.limits
        nearest = [(item_began + limits.item_seconds, Stop(TIME, call, f"ran past the item's {limits.item_seconds:g} s")),
                   (run_deadline, Stop(RUN, call, f"ran past the run's {limits.run_seconds:g} s"))]
        if call_began:
            nearest.append((call_began + limits.call_seconds, Stop(TIME, call, f"stopped after {limits.call_seconds:g} s")))
        deadline, stop = min(nearest, key=lambda pair: pair[0])
        return deadline, item, stop

    def next(self, index: int, run_deadline: float) -> tuple:
        """The next message about ``items[index]``: ``done``, ``stop``, ``raise`` or ``ended``."""
        while True:
            deadline, item, stop = self._deadline(run_deadline)
            # a call that begins while the parent waits has a nearer deadline: look again within the call limit
            wait = min(deadline - time.monotonic(), self.limits.call_seconds / 2)
            if self.reader.poll(max(0.0, wait)):
                try:
                    return self.reader.recv()
                except (EOFError, OSError):
                    return "ended", self._status()
            if item == index and time.monotonic() >= deadline and self._deadline(run_deadline)[0] == deadline:
                self.kill()  # (an item past ``index`` means a result is on its way: read it first)
                return "stop", stop.reason, stop.detail

    def _status(self) -> str:
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        return f"exit status {os.waitstatus_to_exitcode(status)}"

    def kill(self) -> None:
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0

    def close(self) -> None:
        self.kill()
        self.reader.close()
        self.view.release()
        self.memory.close()


def run_bounded(work: Callable[[X], T], items: Sequence[X], stopped: Callable[[X, Stop], T],
                limits: Limits = Limits()) -> list[T]:
    """``[work(x) for x in items]`` in child processes under ``limits``; ``stopped(x, stop)`` for an item stopped.

    ``work`` runs in the child and its result is pickled back; an exception it raises (other
    than at a limit) is raised here. The items after a stopped one go on in a fresh child.
    """
    if not hasattr(os, "fork"):
        return [_in_process(work, x, stopped, limits) for x in items]
    out: list[T] = []
    run_deadline = time.monotonic() + limits.run_seconds
    while len(out) < len(items):
        if time.monotonic() >= run_deadline:
            out.extend(stopped(x, Stop(RUN, 0, f"was not reached in the run's {limits.run_seconds:g} s"))
                       for x in items[len(out):])
            break
        child = _Child(work, items, len(out), limits)
        try:
            while len(out) < len(items):
                message = child.next(len(out), run_deadline)
                if message[0] == "done":
                    out.append(message[1])
                    continue
                if message[0] == "raise":
                    raise message[1]
                call = child._progress()[3]
                stop = (Stop(ENDED, call, f"ended the process ({message[1]})") if message[0] == "ended"
                        else Stop(message[1], call, message[2]))
                out.append(stopped(items[len(out)], stop))
                break
        finally:
            child.close()
    return out


def _in_process(work: Callable[[X], T], item: X, stopped: Callable[[X, Stop], T], limits: Limits) -> T:
    global _meter
    _meter = _Meter(memoryview(bytearray(8 * 4)).cast("d"), limits.calls)
    try:
        _meter.item(0)
        return work(item)
    except LimitReached as stop:
        return stopped(item, Stop(stop.reason, int(_meter.view[_CALL]), stop.detail))
    finally:
        _meter = None
