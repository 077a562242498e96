"""A strong colour cast taken back to what the networks learnt.

The generator lights its scenes from warm to cold (red and blue gains within about 18% of
green, :func:`sueca.datasets.camera.photometric`) and barely along the other axis, green to
magenta. A café's tungsten lamp with the camera's white balance off, or an automatic
balance fooled by a green cloth filling the frame (it takes the green out: cards turn pink),
goes well past that, and there the locator loses cards (``scripts/robustness_check.py``,
rows ``cast`` and ``tint``: under the magenta tint it found 39% of them).

Cards are white: the brightest pixels of a frame are mostly card stock, so their colour is
the light's. Its cast is measured on the two axes (log gains): warm-cold (blue against
red) and green-magenta (green against the other two). On each, a cast within the
allowance is left alone and a stronger one is taken back by it, never made neutral, so
frames like those the networks learnt from are read as they come (the frame itself is
returned). Gains are rounded to steps of 0.02 so that pictures under one light get the same
ones whatever a few pixels do. On video one frame's estimate jumps now and then (a hand, an
emptier table), so a video takes the median of its recent frames' (:class:`RunningBalance`).

>>> import numpy as np
>>> frame = np.full((40, 40, 3), (60, 60, 60), np.uint8)
>>> frame[10:30, 10:30] = (235, 150, 235)  # a white card, the green taken out (BGR)
>>> [round(float(v), 2) for v in cast_axes(frame)]
[0.0, 0.45]
>>> balanced(frame, (0.5, 0.15))[20, 20].tolist()  # green raised, 0.15 of it left
[212, 183, 212]
>>> grey = np.full((40, 40, 3), 128, np.uint8)
>>> balanced(grey, (0.5, 0.15)) is grey
True
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

#: the share of a frame's pixels, the brightest, taken for card stock
TOP = 0.02
#: every 4th pixel each way is enough to find them (a 1280x960 frame: 76800 pixels)
STEP = 4
#: gains are rounded to this step
QUANTUM = 0.02
#: log gains (B, G, R) of one unit along each axis: warm-cold, green-magenta (each sums to 0)
AXES = np.array([[0.5, 0.0, -0.5], [-1 / 3, 2 / 3, -1 / 3]])


def cast_gains(frame: np.ndarray) -> np.ndarray:
    """Per channel (B, G, R) gains that would make the brightest pixels grey (mean gain 1)."""
    h, w = frame.shape[:2]
    s = cv2.resize(frame, (max(1, w // STEP), max(1, h // STEP)), interpolation=cv2.INTER_NEAREST).reshape(-1, 3)
    lum = s[:, 0].astype(np.int32)  # numpy's sum along the short axis took 1.1 ms a frame
    lum += s[:, 1]
    lum += s[:, 2]
    # the brightest TOP by a histogram of the 766 sums (a percentile sorts them: 1.2 ms a frame more)
    above = np.cumsum(np.bincount(lum, minlength=766)[::-1])
    top = s[lum >= 765 - int(np.searchsorted(above, TOP * len(lum)))]
    ref = np.maximum(np.median(top, axis=0).astype(np.float64), 1.0)
    return ref.mean() / ref


def cast_axes(frame: np.ndarray) -> np.ndarray:
    """The correction the frame's light needs, in log gain along the two axes: warm-cold (> 0:
    blue must rise, a warm light) and green-magenta (> 0: green must rise, a magenta light)."""
    lg = np.log(cast_gains(frame))
    return np.array([lg[0] - lg[2], lg[1] - (lg[0] + lg[2]) / 2])


def cast_allowances(frames, percentile: float = 95.0) -> tuple[float, float]:
    """The recipe's allowances: the ``percentile`` of each axis's size (:func:`cast_axes`) over
    ``frames``, e.g. validation scenes of the training styles, so that that share of frames
    like those the networks learnt are read as they come (``robustness_check.py --allowances``).

    >>> import numpy as np
    >>> frames = [np.full((8, 8, 3), (200, 200, 200 + k), np.uint8) for k in range(0, 50, 10)]
    >>> [round(v, 2) for v in cast_allowances(frames, 100)]
    [0.18, 0.09]
    """
    a = np.abs(np.array([cast_axes(f) for f in frames]))
    return float(np.percentile(a[:, 0], percentile)), float(np.percentile(a[:, 1], percentile))


def _beyond(axes: np.ndarray, allowed: tuple[float, float]) -> np.ndarray:
    """Each axis brought its allowance nearer to 0 (none past it)."""
    return np.sign(axes) * np.maximum(np.abs(axes) - np.asarray(allowed, np.float64), 0.0)


def _gains(axes: np.ndarray) -> np.ndarray:
    g = np.exp(np.asarray(axes, np.float64) @ AXES)
    return np.clip(np.round(g / QUANTUM) * QUANTUM, 0.5, 2.0)


def applied_gains(frame: np.ndarray, allowed: tuple[float, float]) -> np.ndarray:
    """The gains (B, G, R) :func:`balanced` applies: :func:`cast_axes` each brought its
    ``allowed`` nearer to 0 (none past it), rounded to :data:`QUANTUM`."""
    return _gains(_beyond(cast_axes(frame), allowed))


def with_gains(frame: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """``frame`` with its channels (B, G, R) multiplied by ``gains``; itself where all are 1."""
    g = np.asarray(gains, np.float64)
    if np.all(g == 1.0):
        return frame
    lut = np.clip(np.arange(256, dtype=np.float64)[:, None] * g[None, :] + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut.reshape(256, 1, 3))


def balanced(frame: np.ndarray, allowed: tuple[float, float]) -> np.ndarray:
    """``frame`` (BGR uint8) with its cast past ``allowed`` (warm-cold, green-magenta; log
    gain) taken back by it; the same array where neither axis is past it."""
    return with_gains(frame, applied_gains(frame, allowed))


@dataclass
class RunningBalance:
    """The balance of a video: the light measured as the median of the recent frames' casts.

    One frame's estimate jumps where a hand or an empty table fills its brightest pixels,
    and a frame balanced now and then would have its lying cards read afresh each time
    (their crops change). So a sample is taken every ``every`` frames, the correction is
    that of the median of the last ``window`` samples, and it changes only when the median
    has moved ``hysteresis`` (log gain, either axis) from the correction applied: under
    one light the gains stay put. Nothing is corrected before ``least`` samples.

    >>> import numpy as np
    >>> rb = RunningBalance(every=1, least=2)
    >>> frame = np.full((40, 40, 3), (60, 60, 60), np.uint8)
    >>> frame[10:30, 10:30] = (235, 150, 235)  # a white card under a magenta light
    >>> rb(frame, (0.5, 0.15)) is frame  # one sample: not yet
    True
    >>> rb(frame, (0.5, 0.15))[20, 20].tolist()
    [212, 183, 212]
    >>> hand = np.full((40, 40, 3), (120, 160, 230), np.uint8)  # a frame of skin alone
    >>> rb(hand, (0.5, 0.15))[0, 0].tolist()  # the median is still the card's light
    [108, 195, 207]
    """

    every: int = 5
    window: int = 40
    least: int = 3
    hysteresis: float = 0.06
    frames: int = 0
    #: the correction applied now, in log gain along :data:`AXES` (0: none)
    correction: np.ndarray = field(default_factory=lambda: np.zeros(2))
    _samples: deque = field(default_factory=deque, repr=False)

    def gains(self, frame: np.ndarray, allowed: tuple[float, float]) -> np.ndarray:
        """The gains (B, G, R) for this frame, the next frame of the video."""
        if self.frames % self.every == 0:
            self._samples.append(cast_axes(frame))
            while len(self._samples) > self.window:
                self._samples.popleft()
        self.frames += 1
        if len(self._samples) >= self.least:
            target = _beyond(np.median(np.asarray(self._samples), axis=0), allowed)
            if np.max(np.abs(target - self.correction)) > self.hysteresis or not target.any():
                self.correction = target
        return _gains(self.correction)

    def __call__(self, frame: np.ndarray, allowed: tuple[float, float]) -> np.ndarray:
        """This frame, the video's next, with :meth:`gains` applied."""
        return with_gains(frame, self.gains(frame, allowed))
