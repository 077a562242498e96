"""Frame sources: where the pixels come from.

One call opens any source the product supports::

    from sueca.hardware.sources import open_source

    with open_source("game.mp4") as source:          # or "picamera", "0",
        for frame in source:                          # "rtsp://...", "frames/"
            print(frame.index, frame.t, frame.image.shape)
            print(source.status.fps, source.status.last_error)

A ``Frame`` carries a BGR ``uint8`` image, the time ``t`` in seconds since the
start of the source and a monotonically increasing ``index``. Files (video,
folder of images) report their own time (frame position / fps) and are read
frame by frame, never dropped; ``realtime=True`` paces them like a camera.
Live sources (Pi camera, device, stream URL) grab on a thread and keep only
the latest frame, so a slow consumer always works on what the table looks
like now; their time is a monotonic clock since the source was opened.

Bad frames are never passed on and never invented: a missing, corrupt or
all-black frame is dropped, counted and reported in ``status``; a live source
that keeps failing reconnects with bounded exponential backoff (``Backoff``)
and its indices and times simply continue after the gap.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from sueca.hardware.images import IMAGE_SUFFIXES  # noqa: F401  (file endings read as still images)

log = logging.getLogger("sueca.hardware")

#: URL schemes read as network streams (e.g. ``rpicam-vid --listen -o tcp://0.0.0.0:8888``).
STREAM_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https", "tcp", "udp", "srt")


class SourceError(RuntimeError):
    """A source cannot be opened or read (bad spec, missing file, no frame)."""


class SourceUnavailable(SourceError):
    """A permanent failure that retrying cannot fix (e.g. picamera2 missing)."""


@dataclass(frozen=True)
class Frame:
    """One image from a source.

    ``image`` is ``H x W x 3`` BGR ``uint8`` (OpenCV's order); ``t`` is seconds
    since the start of the source; ``index`` grows strictly (with gaps where
    frames were dropped or unreadable).

    >>> f = Frame(np.zeros((2, 3, 3), np.uint8), t=0.1, index=1)
    >>> f.size
    (3, 2)
    """

    image: np.ndarray
    t: float
    index: int

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass(frozen=True)
class FrameSourceStatus:
    """Health of a source, for logs and the dashboard's status line.

    ``fps`` is the rate frames were delivered over the last few seconds;
    ``frames`` how many were delivered; ``dropped`` stale live frames replaced
    by newer ones before anyone read them; ``corrupt`` frames rejected as
    unreadable; ``reconnects`` successful re-openings after a failure;
    ``last_error`` the most recent problem (kept after recovery, so a status
    line can say what happened; ``connected`` tells whether it still holds).
    """

    spec: str
    connected: bool = False
    fps: float = 0.0
    frames: int = 0
    dropped: int = 0
    corrupt: int = 0
    reconnects: int = 0
    last_error: str = ""
    finished: bool = False

    def to_event(self, model: str = "", t: float = 0.0):
        """The pipeline's ``sueca.vision.events.SourceStatus`` for this state."""
        from sueca.vision.events import SourceStatus

        return SourceStatus(connected=self.connected, fps=self.fps, frames=self.frames,
                            model=model, last_error=self.last_error, t=t)


@dataclass(frozen=True)
class Backoff:
    """Bounded exponential backoff between reconnection attempts.

    Attempt ``k`` (0-based) waits ``min(initial * factor**k, maximum)``
    seconds; after ``attempts`` failed attempts in a row the source gives up
    (``None``: never give up, the right choice for a referee on a café wall).

    >>> [Backoff(0.5, 2.0, 3.0).delay(k) for k in range(4)]
    [0.5, 1.0, 2.0, 3.0]
    """

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 10.0
    attempts: int | None = None

    def __post_init__(self) -> None:
        if self.initial < 0 or self.maximum < 0 or self.factor < 1:
            raise ValueError(f"Backoff: need initial >= 0, maximum >= 0, factor >= 1, got {self}")
        if self.attempts is not None and self.attempts < 1:
            raise ValueError(f"Backoff.attempts must be >= 1 or None, got {self.attempts}")

    def delay(self, attempt: int) -> float:
        try:
            return float(min(self.initial * self.factor ** attempt, self.maximum))
        except OverflowError:  # days of outage: long past the cap
            return float(self.maximum)


def frame_problem(image: object, expected_shape: tuple[int, ...] | None = None) -> str | None:
    """Why ``image`` is not a usable frame, or ``None`` when it is.

    Rejects ``None``, anything that is not ``H x W x 3`` ``uint8``, a shape
    different from ``expected_shape`` (a truncated decode) and an all-zero
    image (what decoders hand back on failure; a real dark table still has
    sensor noise).

    >>> frame_problem(np.zeros((4, 4, 3), np.uint8))
    'all-black frame (decode failure)'
    >>> frame_problem(np.full((4, 4, 3), 9, np.uint8)) is None
    True
    """
    if image is None:
        return "no image"
    if not isinstance(image, np.ndarray):
        return f"not an image array ({type(image).__name__})"
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        return f"bad frame shape/type {image.shape} {image.dtype} (want HxWx3 uint8)"
    if expected_shape is not None and image.shape != tuple(expected_shape):
        return f"frame shape {image.shape} differs from {tuple(expected_shape)}"
    # A strided peek first: almost every good frame is decided in microseconds.
    if not image[::16, ::16].any() and not image.any():
        return "all-black frame (decode failure)"
    return None


class FrameSource:
    """Base of all sources: an iterator of ``Frame`` with ``close()``.

    Subclasses implement ``read(timeout)``. Iterating calls ``read(None)``
    until the source is finished (end of file, closed, or a live source that
    gave up); ``read(timeout)`` returns ``None`` when nothing came in time,
    which lets a live loop refresh its status while the camera is away.
    """

    #: a live source hands over its newest frame and drops the others: a reader slower than
    #: the camera sees fewer frames a second (files and folders give every frame)
    live = False

    def __init__(self, spec: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.spec = spec
        self._clock = clock
        self._lock = threading.Lock()
        self._status = FrameSourceStatus(spec=spec)
        self._delivered: deque[float] = deque(maxlen=64)
        self._closed = False

    # -- what subclasses implement -------------------------------------
    def read(self, timeout: float | None = None) -> Frame | None:  # pragma: no cover
        raise NotImplementedError

    def _release(self) -> None:
        """Free the underlying device or file."""

    # -- shared behaviour -----------------------------------------------
    @property
    def status(self) -> FrameSourceStatus:
        with self._lock:
            status = self._status
        return replace(status, fps=self._rate())

    @property
    def finished(self) -> bool:
        return self.status.finished

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._update(finished=True)
        self._release()

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        while True:
            frame = self.read(None)
            if frame is not None:
                return frame
            if self.finished:
                raise StopIteration

    def frames(self, idle: float | None = None) -> Iterator[Frame | None]:
        """Frames until the source finishes; with ``idle``, also ``None``
        after each ``idle`` seconds without a frame, so a live loop can keep
        publishing ``status`` while the camera is away.

        >>> for frame in source.frames(idle=1.0):  # doctest: +SKIP
        ...     if frame is None: publish(source.status); continue
        """
        while True:
            frame = self.read(idle)
            if frame is not None:
                yield frame
            elif self.finished:
                return
            elif idle is not None:
                yield None

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten source must not keep the camera busy
        try:
            self.close()
        except Exception:
            pass

    def _update(self, **changes: object) -> None:
        with self._lock:
            self._status = replace(self._status, **changes)

    def _count(self, field: str, error: str | None = None) -> None:
        with self._lock:
            changes: dict[str, object] = {field: getattr(self._status, field) + 1}
            if error is not None:
                changes["last_error"] = error
            self._status = replace(self._status, **changes)

    def _mark_delivered(self) -> None:
        now = self._clock()
        with self._lock:
            self._delivered.append(now)
            self._status = replace(self._status, frames=self._status.frames + 1)

    def _rate(self) -> float:
        with self._lock:
            times = list(self._delivered)
        if len(times) < 2:
            return 0.0
        now = self._clock()
        # Only the last few seconds count, so a camera that stopped shows 0.
        recent = [t for t in times if now - t <= 3.0]
        if len(recent) < 2 or recent[-1] <= recent[0]:
            return 0.0
        return (len(recent) - 1) / (recent[-1] - recent[0])


def natural_key(name: str) -> tuple:
    """Sort key that orders ``frame2`` before ``frame10``.

    >>> sorted(["f10.png", "f2.png", "f1.png"], key=natural_key)
    ['f1.png', 'f2.png', 'f10.png']
    """
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", name))


def open_source(spec: str, *, realtime: bool = False, fps: float | None = None,
                size: tuple[int, int] | None = None, backoff: Backoff | None = None,
                opener: Callable[[], object] | None = None) -> FrameSource:
    """Open the source named by ``spec``.

    - ``picamera`` (``picamera:N`` for camera N, ``picamera?focus=D`` to fix
      the lens at ``D`` dioptres = 1 / distance in metres): the Raspberry Pi
      camera through picamera2 (Raspberry Pi OS's apt package
      ``python3-picamera2``);
    - ``0``, ``1``, ... or ``/dev/videoN``: an OpenCV capture device;
    - ``rtsp://``, ``http://``, ``tcp://`` ... : a network stream;
    - a folder: its images sorted by name (natural order), ``fps`` (default
      10) gives their times; a single image file is a one-frame source;
    - any other existing file: a video.

    ``realtime`` paces files at their own frame rate. ``size`` asks a live
    camera for ``(width, height)``. ``backoff`` tunes reconnection of live
    sources. ``opener`` replaces how a live device is opened (tests, other
    cameras): a callable returning an object with ``read() -> (ok, image)``
    and ``release()``, raising when the device is not there.

    Raises ``SourceError`` for a spec that names nothing openable and
    ``SourceUnavailable`` when a needed library is missing.
    """
    from sueca.hardware import files, live

    spec = str(spec).strip()
    if not spec:
        raise SourceError("fonte vazia / empty source spec")
    backoff = backoff or Backoff()
    lowered = spec.lower()
    if re.fullmatch(r"picamera([:?].*)?", lowered):
        from sueca.hardware.picamera import parse_picamera_spec, picamera_opener

        pi = parse_picamera_spec(spec)
        return live.LiveSource(
            spec, opener or picamera_opener(pi.number, size=size, fps=fps, focus=pi.focus, awb=pi.awb),
            backoff=backoff)
    scheme = lowered.split("://", 1)[0] if "://" in lowered else ""
    if scheme:
        if scheme not in STREAM_SCHEMES:
            raise SourceError(f"{spec}: esquema de URL desconhecido / unknown URL scheme "
                              f"{scheme!r} (known: {', '.join(STREAM_SCHEMES)})")
        return live.LiveSource(spec, opener or live.opencv_opener(spec, stream=True),
                               backoff=backoff)
    if spec.isdigit() or re.fullmatch(r"/dev/video\d+", spec):
        device: int | str = int(spec) if spec.isdigit() else spec
        return live.LiveSource(spec, opener or live.opencv_opener(device, size=size, fps=fps),
                               backoff=backoff)
    path = Path(spec).expanduser()
    if path.is_dir():
        return files.FolderSource(path, fps=fps or 10.0, realtime=realtime)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return files.FolderSource(path, fps=fps or 10.0, realtime=realtime)
        return files.VideoFileSource(path, realtime=realtime, fps=fps)
    raise SourceError(f"{spec}: não existe esse ficheiro ou pasta / no such file or folder "
                      "(nor picamera, a device index or a stream URL)")


def grab_frame(spec: str, *, timeout: float = 10.0, skip: int = 0, **options: object) -> Frame:
    """One frame from ``spec`` (after ``skip`` frames), or ``SourceError``.

    A live source gets ``timeout`` seconds to deliver; its last error is part
    of the message when it does not.

    >>> grab_frame("no/such/thing")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    SourceError: no/such/thing: no such file or folder
    """
    with open_source(spec, **options) as source:  # type: ignore[arg-type]
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            left = deadline - time.monotonic()
            frame = source.read(timeout=max(left, 0.0)) if left > 0 else None
            if frame is not None:
                if seen >= skip:
                    return frame
                seen += 1
                continue
            status = source.status
            if status.finished or left <= 0:
                why = status.last_error or ("sem imagens / no frames"
                                            if status.finished else f"timeout {timeout:g}s")
                raise SourceError(f"{spec}: nenhuma imagem / no frame could be read ({why})")
