"""The Raspberry Pi camera through picamera2 (imported only when used).

picamera2 is not on PyPI in a form that works: it comes from Raspberry Pi
OS's apt package ``python3-picamera2`` and reaches the project's venv only
when that venv was made with ``--system-site-packages``
(see ``docs/raspberry-pi.md``).

>>> opener = picamera_opener(0, size=(1280, 960))   # nothing imported yet
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
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

#: ``awb=`` names of libcamera's white balance modes (members of ``controls.AwbModeEnum``)
AWB_MODES = {"auto": "Auto", "incandescent": "Incandescent", "tungsten": "Tungsten",
             "fluorescent": "Fluorescent", "indoor": "Indoor", "daylight": "Daylight", "cloudy": "Cloudy"}
#: ``awb=lock``: frames the automatic balance gets to settle, and how still its gains must be
LOCK_FRAMES, LOCK_STEADY = 45, 0.01

log = logging.getLogger("sueca.hardware")


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


@dataclass(frozen=True)
class PicameraSpec:
    """What ``picamera[:N][?focus=D][&awb=W]`` asks for.

    ``awb``: ``None`` (the camera's automatic balance), a mode of :data:`AWB_MODES`,
    ``"lock"`` (the automatic balance once settled, then held: a hand or a green cloth
    filling the frame no longer pulls the colours about), or fixed (red, blue) gains.
    """

    number: int = 0
    focus: float | None = None
    awb: str | tuple[float, float] | None = None


def parse_picamera_spec(spec: str) -> PicameraSpec:
    """``picamera[:N][?focus=D][&awb=W]`` -> :class:`PicameraSpec`.

    >>> parse_picamera_spec("picamera:1?focus=0.9")
    PicameraSpec(number=1, focus=0.9, awb=None)
    >>> parse_picamera_spec("picamera?awb=lock").awb
    'lock'
    >>> parse_picamera_spec("picamera?awb=1.8,1.5").awb
    (1.8, 1.5)
    """
    head, _, query = spec.partition("?")
    _, _, number = head.partition(":")
    if number and not number.isdigit():
        raise SourceError(f"{spec}: número de câmara inválido / bad camera number {number!r}")
    focus, awb = None, None
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        if key == "focus":
            focus = _focus(spec, value)
        elif key == "awb":
            awb = _awb(spec, value)
        else:
            raise SourceError(f"{spec}: opção desconhecida / unknown option {key!r} "
                              "(known: focus, awb)")
    return PicameraSpec(int(number or 0), focus, awb)


def _focus(spec: str, value: str) -> float:
    try:
        focus = float(value)
    except ValueError:
        focus = -1.0
    if not 0 <= focus <= 32:
        raise SourceError(f"{spec}: focus must be dioptres (1 / metres), e.g. "
                          f"focus=0.9 for 1.1 m, got {value!r}")
    return focus


def _awb(spec: str, value: str) -> str | tuple[float, float]:
    if value == "lock" or value in AWB_MODES:
        return value
    try:
        red, blue = (float(v) for v in value.split(","))
    except ValueError:
        red = blue = -1.0
    if not (0 < red <= 32 and 0 < blue <= 32):
        raise SourceError(f"{spec}: balanço de brancos inválido / bad white balance {value!r} "
                          f"(known: lock, {', '.join(AWB_MODES)}, or red,blue gains e.g. awb=1.8,1.5)")
    return red, blue


def _awb_controls(awb: str | tuple[float, float] | None) -> dict:
    """The controls a mode or fixed gains start the camera with (``lock`` has none yet)."""
    if awb is None or awb == "lock":
        return {}
    if isinstance(awb, tuple):
        return {"AwbEnable": False, "ColourGains": awb}
    try:
        from libcamera import controls  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SourceUnavailable(MISSING_PICAMERA2) from exc
    return {"AwbEnable": True, "AwbMode": getattr(controls.AwbModeEnum, AWB_MODES[awb])}


def lock_white_balance(camera, frames: int = LOCK_FRAMES, steady: float = LOCK_STEADY):
    """Holds the started camera's automatic balance where it settles: once its colour gains
    change by less than ``steady`` (relative) over three frames, or after ``frames``.
    Returns the (red, blue) gains held, or ``None`` where the camera reports none (it is
    left automatic)."""
    gains, still = None, 0
    for _ in range(frames):
        now = camera.capture_metadata().get("ColourGains")
        if now is None:
            break  # held where it last reported, if it ever did
        now = (float(now[0]), float(now[1]))
        if gains is not None and max(abs(a - b) / max(b, 1e-6) for a, b in zip(now, gains)) < steady:
            still += 1
        else:
            still = 0
        gains = now
        if still >= 3:
            break
    if gains is None:
        log.warning("picamera: the camera reports no colour gains; its white balance stays automatic")
        return None
    camera.set_controls({"AwbEnable": False, "ColourGains": gains})
    log.info("picamera: white balance held at red %.3f, blue %.3f", *gains)
    return gains


def picamera_opener(number: int = 0, *, size: tuple[int, int] | None = None,
                    fps: float | None = None, focus: float | None = None,
                    awb: str | tuple[float, float] | None = None) -> Callable[[], PicameraCapture]:
    """An opener for camera ``number``; picamera2 is imported when it runs.

    ``focus`` (dioptres) fixes the lens of an autofocus camera (Camera
    Module 3) so hands passing under it never make it hunt; ``None`` leaves
    the camera's default. ``awb``: see :class:`PicameraSpec`; ``"lock"`` settles
    again each time the camera is (re)opened.
    """
    width, height = size or DEFAULT_SIZE

    def open_camera() -> PicameraCapture:
        Picamera2 = import_picamera2()
        camera = Picamera2(number)
        try:
            controls: dict[str, object] = {"FrameRate": float(fps)} if fps else {}
            if focus is not None:
                controls.update({"AfMode": 0, "LensPosition": float(focus)})  # 0: manual
            controls.update(_awb_controls(awb))
            config = camera.create_video_configuration(
                main={"size": (int(width), int(height)), "format": "RGB888"},
                buffer_count=2,  # few buffers: we want the latest frame, not a queue
                controls=controls,
            )
            camera.configure(config)
            camera.start()
            if awb == "lock":
                lock_white_balance(camera)
        except Exception:
            camera.close()
            raise
        return PicameraCapture(camera)

    return open_camera
