"""The Raspberry Pi camera through picamera2 (imported only when used).

picamera2 is not on PyPI in a form that works: it comes from Raspberry Pi
OS's apt package ``python3-picamera2`` and reaches the project's venv only
when that venv was made with ``--system-site-packages``
(see ``docs/raspberry-pi.md``).

>>> opener = picamera_opener(0, size=(1280, 960))   # nothing imported yet
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from sueca.hardware.sources import SourceError, SourceUnavailable

MISSING_PICAMERA2 = (
    "picamera2 não está instalado / picamera2 is not installed: install Raspberry Pi OS's "
    "apt package `python3-picamera2` (sudo apt install python3-picamera2) and make the venv "
    "with `--system-site-packages` (python3 -m venv --system-site-packages .venv)"
)

#: The frame size the recogniser is designed for (a card ~100 px tall).
DEFAULT_SIZE = (1280, 960)


def import_picamera2():
    """The ``Picamera2`` class, or ``SourceUnavailable`` saying how to get it."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SourceUnavailable(MISSING_PICAMERA2) from exc
    return Picamera2


class PicameraCapture:
    """``read()``/``release()`` over a started Picamera2 (the ``Capture`` protocol)."""

    def __init__(self, camera, stream: str = "main") -> None:
        self._camera = camera
        self._stream = stream

    def read(self) -> tuple[bool, np.ndarray | None]:
        # picamera2's "RGB888" is B, G, R in memory: already OpenCV's order.
        image = self._camera.capture_array(self._stream)
        if image is None:
            return False, None
        if image.ndim == 3 and image.shape[2] == 4:  # XRGB8888 sensors/modes
            image = np.ascontiguousarray(image[:, :, :3])
        return True, image

    def release(self) -> None:
        try:
            self._camera.stop()
        finally:
            self._camera.close()


def parse_picamera_spec(spec: str) -> tuple[int, float | None]:
    """``picamera[:N][?focus=D]`` -> ``(N, D)``.

    >>> parse_picamera_spec("picamera:1?focus=0.9")
    (1, 0.9)
    >>> parse_picamera_spec("picamera")
    (0, None)
    """
    head, _, query = spec.partition("?")
    _, _, number = head.partition(":")
    if number and not number.isdigit():
        raise SourceError(f"{spec}: número de câmara inválido / bad camera number {number!r}")
    focus = None
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        if key != "focus":
            raise SourceError(f"{spec}: opção desconhecida / unknown option {key!r} "
                              "(known: focus)")
        try:
            focus = float(value)
        except ValueError:
            focus = -1.0
        if not 0 <= focus <= 32:
            raise SourceError(f"{spec}: focus must be dioptres (1 / metres), e.g. "
                              f"focus=0.9 for 1.1 m, got {value!r}")
    return int(number or 0), focus


def picamera_opener(number: int = 0, *, size: tuple[int, int] | None = None,
                    fps: float | None = None, focus: float | None = None
                    ) -> Callable[[], PicameraCapture]:
    """An opener for camera ``number``; picamera2 is imported when it runs.

    ``focus`` (dioptres) fixes the lens of an autofocus camera (Camera
    Module 3) so hands passing under it never make it hunt; ``None`` leaves
    the camera's default.
    """
    width, height = size or DEFAULT_SIZE

    def open_camera() -> PicameraCapture:
        Picamera2 = import_picamera2()
        camera = Picamera2(number)
        try:
            controls: dict[str, float | int] = {"FrameRate": float(fps)} if fps else {}
            if focus is not None:
                controls.update({"AfMode": 0, "LensPosition": float(focus)})  # 0: manual
            config = camera.create_video_configuration(
                main={"size": (int(width), int(height)), "format": "RGB888"},
                buffer_count=2,  # few buffers: we want the latest frame, not a queue
                controls=controls,
            )
            camera.configure(config)
            camera.start()
        except Exception:
            camera.close()
            raise
        return PicameraCapture(camera)

    return open_camera
