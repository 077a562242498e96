"""Fan-out of the live state to every open page (Server-Sent Events).

Each message is the whole state, so a client only ever needs the newest one:
a subscriber holds one slot that the newest message overwrites, and a slow
phone skips states instead of queueing them. ``publish`` may be called from any
thread (the pipeline's, a request worker's); the fan-out runs on the event loop.

>>> import asyncio
>>> async def demo():
...     hub = Hub(); hub.bind(asyncio.get_running_loop())
...     sub = hub.subscribe(); hub.publish(b"data: 1\\n\\n")
...     return await sub.next(timeout=1)
>>> asyncio.run(demo())
b'data: 1\\n\\n'
"""

from __future__ import annotations

import asyncio
import json
import threading


def sse_message(state: dict, event: str = "state") -> bytes:
    """One SSE frame; ``id`` lets a reconnecting EventSource say what it last saw."""
    body = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
    return f"id: {state.get('version', 0)}\nevent: {event}\ndata: {body}\n\n".encode()


class Subscriber:
    __slots__ = ("_latest", "_ready")

    def __init__(self) -> None:
        self._latest: bytes | None = None
        self._ready = asyncio.Event()

    def put(self, data: bytes) -> None:
        self._latest = data
        self._ready.set()

    async def next(self, timeout: float) -> bytes | None:
        """The newest message, or ``None`` after ``timeout`` seconds without one."""
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        self._ready.clear()
        data, self._latest = self._latest, None
        return data


class Hub:
    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        #: set at shutdown: open streams end at once instead of holding the exit up
        self.closed = False

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @property
    def clients(self) -> int:
        return len(self._subs)

    def subscribe(self) -> Subscriber:
        sub = Subscriber()
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.discard(sub)

    def _fanout(self, data: bytes) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.put(data)

    def close(self) -> None:
        """Wake every stream so that it sees ``closed`` and ends (server shutdown)."""
        self.closed = True
        self.publish(b"")

    def publish(self, data: bytes) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._fanout(data)
        else:
            loop.call_soon_threadsafe(self._fanout, data)
