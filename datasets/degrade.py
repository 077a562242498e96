"""Named image degradations, stronger than the generator's own camera effects.

The generator's photometry (:func:`sueca.datasets.camera.photometric`) draws light,
noise, blur and JPEG within what it trains on. These push one effect each past that
range, at a stated strength, to measure where recognition breaks and whether it
breaks by missing cards (acceptable) or by misreading them (not):
``scripts/robustness_check.py``. Each is deterministic given its ``seed``.

>>> import numpy as np
>>> img = np.full((48, 64, 3), 128, np.uint8)
>>> out = degrade(img, "noise:12", seed=1)
>>> out.shape, out.dtype, bool((out != img).any())
((48, 64, 3), dtype('uint8'), True)
>>> bool((degrade(img, "noise:12", seed=1) == out).all())
True
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np


def _jpeg(img: np.ndarray, quality: float, rng: np.random.Generator) -> np.ndarray:
    """JPEG at ``quality`` (a cheap webcam's stream, a messaging app's copy)."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("degrade: JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _noise(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Colour sensor noise, independent per pixel and channel, standard deviation ``sigma``."""
    n = rng.normal(0.0, sigma, img.shape).astype(np.float32)
    return np.clip(img.astype(np.float32) + n, 0, 255).astype(np.uint8)


def _defocus(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Out of focus: a Gaussian blur of ``sigma`` pixels (at 1280x960 an index is ~16 px tall)."""
    return cv2.GaussianBlur(img, (0, 0), float(sigma))


def _motion(img: np.ndarray, length: float, rng: np.random.Generator) -> np.ndarray:
    """A shaken camera or a long exposure: a straight streak ``length`` px long, any direction."""
    n = max(3, int(round(length)) | 1)
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), float(rng.uniform(0, 180)), 1.0)
    k = cv2.warpAffine(k, rot, (n, n))
    return cv2.filter2D(img, -1, k / k.sum())


def _dark(img: np.ndarray, gain: float, rng: np.random.Generator) -> np.ndarray:
    """Dim light: exposed at ``gain`` of the light with read noise, then brightened back
    (what a camera's auto exposure does in a dark corner: coarse levels, loud noise)."""
    f = img.astype(np.float32) * gain + rng.normal(0.0, 2.0, img.shape).astype(np.float32)
    f = np.round(np.clip(f, 0, 255))
    return np.clip(f / gain, 0, 255).astype(np.uint8)


def _cast(img: np.ndarray, strength: float, rng: np.random.Generator) -> np.ndarray:
    """A strong colour cast, not white-balanced: tungsten (orange) for ``strength`` > 0,
    a cold fluorescent green-blue for < 0."""
    s = float(strength)
    gains = (1 - 0.5 * s, 1 - 0.15 * s, 1 + 0.1 * s) if s > 0 else (1 - 0.2 * s, 1 - 0.1 * s, 1 + 0.35 * s)
    return cv2.multiply(img.astype(np.float32), (*gains, 0.0)).clip(0, 255).astype(np.uint8)


def _tint(img: np.ndarray, strength: float, rng: np.random.Generator) -> np.ndarray:
    """The other axis of a wrong white balance: magenta for ``strength`` > 0 (green taken out,
    as a camera's automatic balance does over a green cloth filling the frame), green for < 0."""
    g = 1 - 0.3 * float(strength)
    return cv2.multiply(img.astype(np.float32), (1.0, g, 1.0, 0.0)).clip(0, 255).astype(np.uint8)


def _lowres(img: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    """A camera of ``scale`` times the resolution (the frame shrunk, then enlarged back so the
    card outlines keep their coordinates)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _glare(img: np.ndarray, radius: float, rng: np.random.Generator) -> np.ndarray:
    """A lamp's reflection: a white hotspot ``radius`` of the frame's short side, burnt out at
    its middle, somewhere on the middle half of the frame."""
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    r = radius * min(h, w)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * 1.6
    f = img.astype(np.float32)
    f += (255.0 - f) * np.clip(spot, 0, 1)[..., None]
    return np.clip(f, 0, 255).astype(np.uint8)


def _shadow(img: np.ndarray, depth: float, rng: np.random.Generator) -> np.ndarray:
    """A player's shadow: a soft-edged band across the frame at ``depth`` of the light."""
    h, w = img.shape[:2]
    angle = rng.uniform(0, np.pi)
    d = np.array([np.cos(angle), np.sin(angle)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = (xx - w / 2) * d[0] + (yy - h / 2) * d[1]
    mid, half = rng.uniform(-0.2, 0.2) * min(h, w), rng.uniform(0.15, 0.3) * min(h, w)
    inside = np.clip((half - np.abs(t - mid)) / (0.03 * min(h, w)) + 0.5, 0, 1)
    f = img.astype(np.float32) * (1 - (1 - depth) * inside)[..., None]
    return np.clip(np.rint(f), 0, 255).astype(np.uint8)


def _haze(img: np.ndarray, contrast: float, rng: np.random.Generator) -> np.ndarray:
    """Low contrast (a fogged lens, a washed-out stream): ``contrast`` of the range, about light grey."""
    return cv2.addWeighted(img, float(contrast), np.full_like(img, 180), 1 - float(contrast), 0)


#: name -> (function, what its number means)
DEGRADATIONS: dict[str, tuple[Callable[[np.ndarray, float, np.random.Generator], np.ndarray], str]] = {
    "jpeg": (_jpeg, "JPEG quality"),
    "noise": (_noise, "noise standard deviation, levels of 255"),
    "defocus": (_defocus, "blur sigma, px"),
    "motion": (_motion, "streak length, px"),
    "dark": (_dark, "share of the light"),
    "cast": (_cast, "cast strength (+ tungsten, - fluorescent)"),
    "tint": (_tint, "tint strength (+ magenta, - green)"),
    "lowres": (_lowres, "resolution scale"),
    "glare": (_glare, "hotspot radius, share of the short side"),
    "shadow": (_shadow, "light left in the shadow"),
    "haze": (_haze, "contrast left"),
}


def parse(spec: str) -> tuple[str, float]:
    """``"name:level"`` -> (name, level), with a clear error naming what is wrong.

    >>> parse("jpeg:20")
    ('jpeg', 20.0)
    """
    name, sep, level = spec.partition(":")
    if name not in DEGRADATIONS:
        raise ValueError(f"unknown degradation {name!r} in {spec!r}; known: {', '.join(DEGRADATIONS)}")
    if not sep:
        raise ValueError(f"degradation {spec!r} needs a level, e.g. {name}:{_EXAMPLE[name]}")
    try:
        return name, float(level)
    except ValueError:
        raise ValueError(f"degradation {spec!r}: level {level!r} is not a number") from None


_EXAMPLE = {"jpeg": 20, "noise": 12, "defocus": 2, "motion": 9, "dark": 0.25, "cast": 1, "tint": 1, "lowres": 0.5,
            "glare": 0.15, "shadow": 0.4, "haze": 0.5}


def degrade(img: np.ndarray, spec: str, seed: int = 0) -> np.ndarray:
    """``img`` (BGR uint8) with the degradation ``spec`` (``"name:level"``; ``"none"`` keeps it)."""
    if spec == "none":
        return img
    name, level = parse(spec)
    return DEGRADATIONS[name][0](img, level, np.random.default_rng(seed))
