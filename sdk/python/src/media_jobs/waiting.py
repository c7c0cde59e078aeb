"""Polling until something finishes: the one loop ``jobs.wait`` and ``workflows.wait`` share."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import TypeVar

from .errors import MediaJobsError
from .transport import Sleep

T = TypeVar("T")


def poll_until(
    read: Callable[[], T],
    *,
    finished: Callable[[T], bool],
    version: Callable[[T], Hashable],
    sleep: Sleep,
    interval: float,
    max_interval: float,
    timeout: float | None,
    on_update: Callable[[T], None] | None,
    timed_out: Callable[[T, float], Exception],
    what: str,
) -> T:
    """Reads until ``finished`` holds and returns the last read.

    The interval starts at ``interval`` seconds, grows ×1.5 per read that brings no change (the same
    ``version``) up to ``max_interval``, and drops back when something changes; ``on_update`` sees the
    first state and every change. A 429 or 503 waits for its ``Retry-After`` (or the current
    interval) and reads again; other errors are raised. After ``timeout`` seconds it raises
    ``timed_out(last state, timeout)``.
    """
    ceiling = max(interval, max_interval)
    started = time.monotonic()
    current = interval
    last: T | None = None
    while True:
        try:
            state = read()
            if last is None or version(state) != version(last):
                if on_update:
                    on_update(state)
                current = interval
            else:
                current = min(ceiling, current * 1.5)
            last = state
            if finished(state):
                return state
            delay = current
        except MediaJobsError as err:
            if err.status not in (429, 503):
                raise
            delay = err.retry_after if err.retry_after is not None else current
        if timeout is not None:
            remaining = timeout - (time.monotonic() - started)
            if remaining <= 0:
                if last is not None:
                    raise timed_out(last, timeout)
                raise MediaJobsError(status=0, code="timeout", message=f"{what} could not be read within {timeout:g} s")
            # One last read at the deadline rather than giving up a whole interval early.
            delay = min(delay, remaining)
        sleep(delay)
