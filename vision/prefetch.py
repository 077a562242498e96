"""Decode a file's next frames on a thread while this one is recognized.

>>> list(prefetched(iter([1, 2, 3]), 2))
[1, 2, 3]

Only for files: a live source must hand over its newest frame, not a queue.
An error of the source is raised in the consumer, where it can be reported.
"""

from __future__ import annotations

import queue
import threading
from typing import Iterable, Iterator


def prefetched(source: Iterable, ahead: int) -> Iterator:
    """The items of ``source`` in order, up to ``ahead`` of them read in advance."""
    q: queue.Queue = queue.Queue(maxsize=max(1, int(ahead)))
    done = object()

    def read() -> None:
        try:
            for f in source:
                q.put(f)
        except BaseException as e:  # handed to the consumer, raised there
            q.put(e)
        finally:
            q.put(done)

    threading.Thread(target=read, name="sueca-decode", daemon=True).start()
    while True:
        item = q.get()
        if item is done:
            return
        if isinstance(item, BaseException):
            raise item
        yield item
