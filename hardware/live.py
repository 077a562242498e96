"""Live sources: a camera or stream read on a thread, latest frame only.

The grab thread reads as fast as the device delivers and keeps one slot: a
frame nobody took before the next one arrived is dropped as stale (counted in
``status.dropped``), so processing always works on the table as it is now.

Failures are handled on the thread: an exception or ``ok == False`` from the
device, or ``max_bad`` corrupt frames in a row, closes the device and
re-opens it after a ``Backoff`` delay (reset after each good frame). Nothing
is delivered during the gap and indices and times continue after it.

The device comes from an injected ``opener`` so tests and other cameras need
no global state::

    source = LiveSource("fake", opener=lambda: MyDevice(), backoff=Backoff(0.1))
    frame = source.read(timeout=1.0)   # None when nothing came in time
    source.close()
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Protocol

import numpy as np

from sueca.hardware.sources import (Backoff, Frame, FrameSource, SourceError,
                                    SourceUnavailable, frame_problem, log)


class Capture(Protocol):
    """What a live device must offer (``cv2.VideoCapture`` does)."""

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def release(self) -> None: ...


Opener = Callable[[], Capture]


def opencv_opener(target: int | str, *, stream: bool = False,
                  size: tuple[int, int] | None = None, fps: float | None = None,
                  timeout_ms: int = 5000) -> Opener:
    """An opener for ``cv2.VideoCapture(target)`` that raises when it fails.

    Streams get open/read timeouts so a dead network camera fails in seconds
    instead of hanging the grab thread.
    """

    def open_capture() -> Capture:
        import cv2

        if stream:
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, timeout_ms,
                      cv2.CAP_PROP_READ_TIMEOUT_MSEC, timeout_ms]
            capture = cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)
        else:
            capture = cv2.VideoCapture(target)
        if not capture.isOpened():
            capture.release()
            raise SourceError(f"OpenCV não abre / cannot open {target!r}")
        if size is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if fps:
            capture.set(cv2.CAP_PROP_FPS, fps)
        if not stream:
            # Keep the driver's own queue short: stale frames are dropped here.
            capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        return capture

    return open_capture


class LiveSource(FrameSource):
    """A camera or stream behind a grab thread (see the module docstring).

    ``max_bad``: corrupt frames in a row that count as a lost device.
    ``sleep``: how backoff waits (default: an interruptible wait that
    ``close()`` cuts short); tests pass a recorder. ``clock``: seconds,
    monotonic; frame times are ``clock() - clock_at_open``.
    """

    live = True

    def __init__(self, spec: str, opener: Opener, *, backoff: Backoff | None = None,
                 max_bad: int = 5, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] | None = None) -> None:
        super().__init__(spec, clock=clock)
        self._opener = opener
        self._backoff = backoff or Backoff()
        self._max_bad = max_bad
        self._stop = threading.Event()
        self._sleep = sleep or (lambda seconds: self._stop.wait(seconds))
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._last_index = -1
        self._last_t = -1.0
        self._t0 = clock()
        self._device: Capture | None = None
        self._done = False  # the grab thread has ended (gave up or closed)
        self._connect_first()
        self._thread = threading.Thread(target=self._run, name=f"grab {spec}", daemon=True)
        self._thread.start()

    # -- consumer side ----------------------------------------------------
    def read(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not yet read; ``None`` on timeout or when finished."""
        with self._cond:
            if self._latest is None and not self._stop.is_set() and not self._done:
                self._cond.wait_for(lambda: (self._latest is not None or self._done
                                             or self._stop.is_set()), timeout)
            frame, self._latest = self._latest, None
        if frame is not None:
            self._mark_delivered()
        return frame

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        super().close()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    def _release(self) -> None:
        # The thread releases its own device on the way out; this covers a
        # thread that never started.
        if not getattr(self, "_thread", None) or not self._thread.is_alive():
            self._drop_device()

    # -- grab thread ------------------------------------------------------
    def _connect_first(self) -> None:
        """First attempt on the caller's thread: a missing library fails now."""
        try:
            self._device = self._opener()
            self._update(connected=True)
            log.info("%s: ligado / connected", self.spec)
        except SourceUnavailable:
            raise
        except Exception as exc:  # the thread retries with backoff
            self._note_error(f"não abre / cannot open: {exc}")

    def _run(self) -> None:
        failures = 0 if self._device is not None else 1
        bad_in_row = 0
        expected_shape: tuple[int, ...] | None = None
        try:
            while not self._stop.is_set():
                if self._device is None:
                    if not self._wait_backoff(failures - 1):
                        break
                    try:
                        self._device = self._opener()
                    except SourceUnavailable as exc:
                        self._note_error(str(exc))
                        break
                    except Exception as exc:
                        failures += 1
                        self._note_error(f"não abre / cannot open: {exc}")
                        continue
                    self._count("reconnects")
                    self._update(connected=True)
                    expected_shape, bad_in_row = None, 0
                    log.warning("%s: religado / reconnected", self.spec)
                try:
                    ok, image = self._device.read()
                except Exception as exc:
                    ok, image = False, None
                    self._note_error(f"erro de leitura / read error: {exc}")
                if self._stop.is_set():
                    break
                if not ok:
                    failures = max(failures, 1)
                    self._lose_device("a câmara deixou de responder / device stopped delivering")
                    continue
                problem = frame_problem(image, expected_shape)
                if problem is not None:
                    bad_in_row += 1
                    self._count("corrupt", f"imagem corrompida / corrupt frame: {problem}")
                    log.warning("%s: corrupt frame dropped: %s", self.spec, problem)
                    if bad_in_row >= self._max_bad:
                        failures = max(failures, 1)
                        self._lose_device(f"{bad_in_row} corrupt frames in a row")
                    continue
                bad_in_row, failures = 0, 0
                expected_shape = image.shape
                self._publish(image)
        except Exception as exc:  # a dead grab thread must at least say why
            log.exception("%s: grab thread failed", self.spec)
            self._update(last_error=f"erro interno / internal error: {exc!r}")
        finally:
            self._drop_device()
            self._update(connected=False, finished=True)
            with self._cond:
                self._done = True
                self._cond.notify_all()

    def _wait_backoff(self, attempt: int) -> bool:
        """Wait before attempt ``attempt`` (0-based); False to give up."""
        limit = self._backoff.attempts
        if limit is not None and attempt >= limit:
            self._note_error(f"desisti após {limit} tentativa(s) / gave up after {limit} attempts: "
                             f"{self.status.last_error}")
            return False
        self._sleep(self._backoff.delay(attempt))
        return not self._stop.is_set()

    def _publish(self, image: np.ndarray) -> None:
        # Strictly increasing times even when a clock stalls (tests, coarse clocks).
        t = max(self._clock() - self._t0, self._last_t + 1e-6)
        self._last_index += 1
        self._last_t = t
        frame = Frame(image=image, t=t, index=self._last_index)
        with self._cond:
            if self._latest is not None:
                self._count("dropped")
            self._latest = frame
            self._cond.notify_all()

    def _lose_device(self, why: str) -> None:
        self._note_error(why)
        self._drop_device()
        self._update(connected=False)

    def _drop_device(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            try:
                device.release()
            except Exception as exc:  # releasing a vanished camera may fail too
                log.debug("%s: release failed: %s", self.spec, exc)

    def _note_error(self, message: str) -> None:
        log.warning("%s: %s", self.spec, message)
        self._update(last_error=message)
