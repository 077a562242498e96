"""A strong colour cast taken back to what the networks learnt.

The generator lights its scenes from warm to cold (red and blue gains within about 18% of
green, :func:`sueca.datasets.camera.photometric`); a café's tungsten lamp with the camera's
white balance off or fooled (a green cloth filling the frame) goes well past that, and
there the locator loses cards (``scripts/robustness_check.py``, rows ``cast``). Cards are
white: the brightest pixels of a frame are mostly card stock, so their colour is the light's.
A cast within ``allowed`` of neutral is left alone (the frame itself is returned); a
stronger one is reduced by ``allowed``, never made neutral, so frames like those the
networks learnt from are read as before. Gains are rounded to steps of 0.02 so that a video's
frames under one light get the same ones.

>>> import numpy as np
>>> frame = np.full((40, 40, 3), (60, 90, 200), np.uint8)  # orange: blue low, red high (BGR)
>>> frame[10:30, 10:30] = (150, 210, 250)  # a white card under that light
>>> [round(float(g), 2) for g in cast_gains(frame)]
[1.36, 0.97, 0.81]
>>> balanced(frame, 0.25)[20, 20].tolist()  # blue raised by 0.36 - 0.25; red's 0.19 left
[165, 210, 250]
>>> grey = np.full((40, 40, 3), 128, np.uint8)
>>> balanced(grey, 0.25) is grey
True
"""

from __future__ import annotations

import cv2
import numpy as np

#: the share of a frame's pixels, the brightest, taken for card stock
TOP = 0.02
#: every 4th pixel each way is enough to find them (a 1280x960 frame: 76800 pixels)
STEP = 4
#: gains are rounded to this step
QUANTUM = 0.02


def cast_gains(frame: np.ndarray) -> np.ndarray:
    """Per channel (B, G, R) gains that would make the brightest pixels grey (mean gain 1)."""
    h, w = frame.shape[:2]
    s = cv2.resize(frame, (max(1, w // STEP), max(1, h // STEP)), interpolation=cv2.INTER_NEAREST).reshape(-1, 3)
    lum = s[:, 0].astype(np.int32)  # numpy's sum along the short axis is ten times slower
    lum += s[:, 1]
    lum += s[:, 2]
    # the brightest TOP by a histogram of the 766 sums (a percentile sorts them: 3 ms a frame)
    above = np.cumsum(np.bincount(lum, minlength=766)[::-1])
    top = s[lum >= 765 - int(np.searchsorted(above, TOP * len(lum)))]
    ref = np.maximum(np.median(top, axis=0).astype(np.float64), 1.0)
    return ref.mean() / ref


def applied_gains(frame: np.ndarray, allowed: float) -> np.ndarray:
    """The gains :func:`balanced` applies: :func:`cast_gains` each brought ``allowed`` nearer
    to 1 (none past it), rounded to :data:`QUANTUM`."""
    g = cast_gains(frame)
    g = 1 + np.sign(g - 1) * np.maximum(np.abs(g - 1) - allowed, 0.0)
    return np.clip(np.round(g / QUANTUM) * QUANTUM, 0.5, 2.0)


def balanced(frame: np.ndarray, allowed: float) -> np.ndarray:
    """``frame`` (BGR uint8) with its cast beyond ``allowed`` (a gain's distance from 1) taken
    back by ``allowed``; the same array where no gain is past it."""
    g = applied_gains(frame, allowed)
    if np.all(g == 1.0):
        return frame
    lut = np.clip(np.arange(256, dtype=np.float64)[:, None] * g[None, :] + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut.reshape(256, 1, 3))
