"""File sources: a video file or a folder of frame images, frame by frame.

Files are never dropped from: every readable frame is delivered in order.
Times are the file's own: a video's presentation time
(``CAP_PROP_POS_MSEC``, falling back to ``index / fps``), a folder's
``index / fps``. ``realtime=True`` waits so frame ``t`` is delivered ``t``
seconds after the first one (a video replayed like a camera).

Unreadable frames are skipped, logged and counted in ``status.corrupt``; the
index of a folder frame is its position in the sorted listing, so a skipped
file leaves a gap instead of renumbering the rest.

>>> import tempfile, cv2, numpy as np, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = cv2.imwrite(str(folder / "f2.png"), np.full((4, 6, 3), 7, np.uint8))
>>> [(f.index, f.t) for f in FolderSource(folder, fps=4)]
[(0, 0.0)]
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable


from sueca.hardware.images import ImageError, read_image
from sueca.hardware.sources import (IMAGE_SUFFIXES, Frame, FrameSource, SourceError,
                                    frame_problem, log, natural_key)


def image_files(folder: Path) -> list[Path]:
    """The image files of ``folder`` (by :data:`IMAGE_SUFFIXES`, not its subfolders), in
    natural name order: what a folder source plays and ``sueca detect`` reads."""
    return sorted((p for p in Path(folder).iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
                  key=lambda p: natural_key(p.name))


class _Pacer:
    """Sleeps so frame time ``t`` is delivered ``t - t_first`` after the first."""

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self._clock, self._sleep = clock, sleep
        self._start: tuple[float, float] | None = None  # (wall, t) of the first frame

    def wait(self, t: float) -> None:
        now = self._clock()
        if self._start is None:
            self._start = (now, t)
            return
        due = self._start[0] + (t - self._start[1])
        if due > now:
            self._sleep(due - now)


class FolderSource(FrameSource):
    """The images of a folder (natural name order), or one image file.

    ``fps`` turns positions into times: frame ``i`` is at ``i / fps`` s.
    """

    def __init__(self, path: str | Path, *, fps: float = 10.0, realtime: bool = False,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(str(path), clock=clock)
        if not fps or fps <= 0 or not math.isfinite(fps):
            raise SourceError(f"{path}: fps must be a positive number, got {fps!r}")
        path = Path(path)
        if path.is_dir():
            files = image_files(path)
            if not files:
                raise SourceError(f"{path}: pasta sem imagens / folder has no images "
                                  f"({', '.join(IMAGE_SUFFIXES)})")
        elif path.is_file():
            files = [path]
        else:
            raise SourceError(f"{path}: não existe / no such file or folder")
        self.files: tuple[Path, ...] = tuple(files)
        self.fps = float(fps)
        self._next = 0
        self._shape: tuple[int, ...] | None = None
        self._pacer = _Pacer(clock, sleep) if realtime else None
        self._update(connected=True)

    def read(self, timeout: float | None = None) -> Frame | None:
        while not self._closed and self._next < len(self.files):
            index, path = self._next, self.files[self._next]
            self._next += 1
            try:
                image = read_image(path).image
                problem = frame_problem(image, self._shape)
            except ImageError as exc:
                image, problem = None, f"unreadable image file ({str(exc).removeprefix(str(path) + ': ')})"
            if problem is not None:
                self._count("corrupt", f"{path.name}: {problem}")
                log.warning("%s: skipped %s: %s", self.spec, path.name, problem)
                continue
            self._shape = image.shape
            frame = Frame(image=image, t=index / self.fps, index=index)
            if self._pacer is not None:
                self._pacer.wait(frame.t)
            self._mark_delivered()
            return frame
        self._update(finished=True, connected=False)
        return None


class VideoFileSource(FrameSource):
    """A video file read with OpenCV, every frame in order.

    ``fps`` overrides the file's frame rate (times become ``index / fps``),
    for files whose header lies. ``max_bad`` failed reads in a row end the
    file (a truncated file fails forever; a damaged frame only once).
    """

    def __init__(self, path: str | Path, *, realtime: bool = False, fps: float | None = None,
                 max_bad: int = 5, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        import cv2

        super().__init__(str(path), clock=clock)
        self._capture = cv2.VideoCapture(str(path))
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceError(f"{path}: não é um vídeo legível / not a readable video")
        own_fps = self._capture.get(cv2.CAP_PROP_FPS)
        self._fixed_fps = fps is not None
        if fps is None:
            fps = own_fps if own_fps and math.isfinite(own_fps) and own_fps > 0 else 25.0
        self.fps = float(fps)
        frame_count = self._capture.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count = int(frame_count) if frame_count and frame_count > 0 else None
        self._max_bad = max_bad
        self._index = -1
        self._t = -1.0
        self._shape: tuple[int, ...] | None = None
        self._pacer = _Pacer(clock, sleep) if realtime else None
        self._update(connected=True)

    def read(self, timeout: float | None = None) -> Frame | None:
        import cv2

        bad = 0
        while not self._closed and bad < self._max_bad:
            ok, image = self._capture.read()
            if not ok:
                if self.frame_count is not None and self._index + 1 >= self.frame_count:
                    break  # the normal end of the file
                bad += 1
                self._count("corrupt", f"frame after {self._index}: read failed")
                continue
            position = self._capture.get(cv2.CAP_PROP_POS_FRAMES) - 1
            index = int(position) if position > self._index else self._index + 1
            self._index = index
            problem = frame_problem(image, self._shape)
            if problem is not None:
                bad += 1
                self._count("corrupt", f"frame {index}: {problem}")
                log.warning("%s: skipped frame %d: %s", self.spec, index, problem)
                continue
            self._shape = image.shape
            t = self._time(index, self._capture.get(cv2.CAP_PROP_POS_MSEC))
            frame = Frame(image=image, t=t, index=index)
            if self._pacer is not None:
                self._pacer.wait(t)
            self._mark_delivered()
            return frame
        self._update(finished=True, connected=False)
        return None

    def _time(self, index: int, msec: float) -> float:
        t = index / self.fps
        if not self._fixed_fps and math.isfinite(msec) and msec / 1000.0 > self._t:
            t = msec / 1000.0  # the container's own clock (variable frame rate files)
        t = max(t, self._t + 1e-6) if self._t >= 0 else t
        self._t = t
        return t

    def _release(self) -> None:
        self._capture.release()
