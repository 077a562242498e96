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
ones whatever a few pixels do. The brightest pixels are not always card stock (a bright
yellow cloth under a few small cards, an empty table, a hand), so the cards found decide
where they can: a still image is checked on the cards one locator pass finds
(:func:`checked_on_cards`), a video measures the cards it reads, over its recent frames
(:class:`RunningBalance`), and takes a cast further back, to half the allowance.

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
#: the share of a card's own pixels, the brightest, taken for its stock (the rest is print)
CARD_TOP = 0.3
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
    return _grey_gains(s[lum >= 765 - int(np.searchsorted(above, TOP * len(lum)))])


def _grey_gains(stock: np.ndarray) -> np.ndarray:
    """Gains (B, G, R; mean 1) that make the median of ``stock`` (N, 3) pixels grey."""
    ref = np.maximum(np.median(stock, axis=0).astype(np.float64), 1.0)
    return ref.mean() / ref


def cast_axes(frame: np.ndarray) -> np.ndarray:
    """The correction the frame's light needs, in log gain along the two axes: warm-cold (> 0:
    blue must rise, a warm light) and green-magenta (> 0: green must rise, a magenta light)."""
    return _axes(cast_gains(frame))


def _axes(gains: np.ndarray) -> np.ndarray:
    lg = np.log(gains)
    return np.array([lg[0] - lg[2], lg[1] - (lg[0] + lg[2]) / 2])


def card_cast_axes(frame: np.ndarray, corners: np.ndarray, share: float = CARD_TOP) -> np.ndarray | None:
    """As :func:`cast_axes`, measured on the cards' own stock: the brightest ``share`` of the
    pixels inside the outlines ``corners`` (N, 4, 2; frame pixels), every :data:`STEP`-th
    pixel each way. ``None`` where the outlines hold too few pixels (under 64).

    >>> import numpy as np
    >>> frame = np.full((100, 100, 3), (30, 60, 30), np.uint8)
    >>> frame[10:30, 10:30] = 255                  # a white saucer, clipped: no colour of the light
    >>> frame[50:90, 40:68] = (150, 200, 240)      # a card under a tungsten lamp
    >>> card = np.array([[[40, 50], [67, 50], [67, 89], [40, 89]]], np.float32)
    >>> [round(float(v), 2) for v in card_cast_axes(frame, card)], [round(float(v), 2) for v in cast_axes(frame)]
    ([0.47, -0.05], [0.0, 0.0])
    """
    small = np.ascontiguousarray(frame[::STEP, ::STEP])
    mask = np.zeros(small.shape[:2], np.uint8)
    polys = [np.round(np.asarray(q, np.float64) / STEP).astype(np.int32) for q in np.asarray(corners).reshape(-1, 4, 2)]
    if not polys:
        return None
    cv2.fillPoly(mask, polys, 1)
    px = small[mask.astype(bool)]
    if len(px) < 64:
        return None
    lum = px.astype(np.int32).sum(axis=1)
    return _axes(_grey_gains(px[lum >= np.quantile(lum, 1.0 - share)]))


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


def _beyond(axes: np.ndarray, allowed: tuple[float, float], keep: float = 1.0) -> np.ndarray:
    """Each axis past its allowance brought back to ``keep`` times the allowance; 0 within it."""
    al, a = np.asarray(allowed, np.float64), np.abs(axes)
    return np.where(a > al, np.sign(axes) * (a - keep * al), 0.0)


def _gains(axes: np.ndarray) -> np.ndarray:
    g = np.exp(np.asarray(axes, np.float64) @ AXES)
    return np.clip(np.round(g / QUANTUM) * QUANTUM, 0.5, 2.0)


def applied_gains(frame: np.ndarray, allowed: tuple[float, float], keep: float = 1.0) -> np.ndarray:
    """The gains (B, G, R) :func:`balanced` applies: each axis of :func:`cast_axes` past its
    ``allowed`` brought back to ``keep`` times it (0 within it), rounded to :data:`QUANTUM`."""
    return _gains(_beyond(cast_axes(frame), allowed, keep))


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


def checked_on_cards(frame: np.ndarray, allowed: tuple[float, float], locate) -> np.ndarray:
    """A still image balanced where its cards say so: :func:`balanced`, but where the frame's
    brightest pixels call for a correction, the cards ``locate(frame)`` finds (N, 4, 2 outlines)
    are asked first (:func:`card_cast_axes`), and their own cast decides. A few small cards on
    a bright yellow cloth: the cloth fills the brightest 2% and would turn the cards blue. Where
    nothing is found, the frame's own estimate stands (a strong cast can hide every card).

    >>> import numpy as np
    >>> frame = np.full((600, 600, 3), (60, 220, 250), np.uint8)  # a yellow cloth
    >>> frame[280:328, 280:320] = 235                               # one small white card
    >>> quad = np.array([[[280, 280], [319, 280], [319, 327], [280, 327]]], np.float32)
    >>> balanced(frame, (0.5, 0.15)) is frame
    False
    >>> checked_on_cards(frame, (0.5, 0.15), lambda f: quad) is frame
    True
    """
    g = applied_gains(frame, allowed)
    if np.all(g == 1.0):
        return frame
    quads = locate(frame)
    a = card_cast_axes(frame, quads) if quads is not None and len(quads) else None
    return with_gains(frame, g if a is None else _gains(_beyond(a, allowed)))


@dataclass
class RunningBalance:
    """The balance of a video: its light measured on the cards it finds, over recent frames.

    A video may start on an empty table, and a cup, a sleeve or a lamp's reflection may be
    brighter than the cards: the frame's brightest pixels are not always card stock. So a
    sample, one every ``every`` frames (:meth:`observe`), is the cards' own stock where the
    frame found cards (:func:`card_cast_axes` on the outlines it was read with), else the
    frame's brightest pixels (:func:`cast_axes`: under a strong cast the locator may find
    nothing until the frame is balanced). The correction is that of the median of the last
    ``window`` samples, of the cards' alone where they are at least ``least``, past the
    allowance brought back to ``keep`` times it, and it moves only when that median has moved
    ``hysteresis`` (log gain, either axis) from it: under one light the gains stay put, so
    lying cards are not read afresh. Nothing is corrected before ``least`` samples.

    >>> import numpy as np
    >>> rb = RunningBalance(every=1, least=2)
    >>> frame = np.full((120, 120, 3), (60, 60, 60), np.uint8)
    >>> frame[40:100, 40:80] = (235, 150, 235)  # a white card under a magenta light
    >>> card = np.array([[[40, 40], [79, 40], [79, 99], [40, 99]]], np.float32)
    >>> rb.observe(frame, card, (0.5, 0.15)); rb(frame) is frame  # one sample: not yet
    True
    >>> rb.observe(frame, card, (0.5, 0.15)); rb(frame)[50, 50].tolist()  # to half the allowance
    [207, 192, 207]
    """

    every: int = 5
    #: 10 samples, 50 frames: a lamp switched on mid-game is followed within 3 seconds
    #: (40 left its first plays unread on the game videos); a hand fills fewer than half
    window: int = 10
    least: int = 3
    hysteresis: float = 0.06
    #: a cast past the allowance is brought back to this share of it (a still image's: 1);
    #: the game videos need more: under a magenta tint, one card left unread holds a hand
    keep: float = 0.5
    #: the correction applied now, in log gain along :data:`AXES` (0: none)
    correction: np.ndarray = field(default_factory=lambda: np.zeros(2))
    _samples: deque = field(default_factory=deque, repr=False)
    _since: int = field(default=1 << 30, repr=False)  # frames since the last sample

    def gains(self) -> np.ndarray:
        """The gains (B, G, R) the next frame gets."""
        return _gains(self.correction)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """The video's next frame with :meth:`gains` applied (itself where they are all 1)."""
        return with_gains(frame, self.gains())

    def observe(self, frame: np.ndarray, corners, allowed: tuple[float, float]) -> None:
        """``frame`` as it came (before :meth:`__call__`) and the card outlines (N, 4, 2) found
        on it: a sample where one is due, and the correction updated for the next frame."""
        self._since += 1
        if self._since < self.every:
            return
        self._since = 0
        sample = None if corners is None or len(corners) == 0 else card_cast_axes(frame, corners)
        self._samples.append((cast_axes(frame), False) if sample is None else (sample, True))
        while len(self._samples) > self.window:
            self._samples.popleft()
        cards = [a for a, on_cards in self._samples if on_cards]
        use = cards if len(cards) >= self.least else [a for a, _ in self._samples]
        if len(use) >= self.least:
            target = _beyond(np.median(np.asarray(use), axis=0), allowed, self.keep)
            if np.max(np.abs(target - self.correction)) > self.hysteresis or not target.any():
                self.correction = target
