"""Is the table as white as the cards? A café's white marble top, measured on the cards found.

On a table as bright as the cards' stock the locator finds fewer cards and the outliner
draws their outlines too large (``models/EXPERIMENTS.md``, seventeenth session); networks
tuned on white tops (``white`` in ``recognizer.json``) do better there and a little
worse elsewhere. Which table a frame shows cannot be told from its brightness alone (the
light and the camera's exposure set that); it can from each card's surround against its
own stock: the same grey, or not. This module measures it.

>>> import numpy as np
>>> frame = np.full((200, 200, 3), 60, np.uint8)                 # a dark cloth
>>> q = np.array([[60, 50], [130, 50], [130, 150], [60, 150]], np.float32)
>>> frame[50:150, 60:130] = 240                                   # a white card on it
>>> round(surround_ratio(frame, q, []), 2)
0.27
>>> frame[:] = 235; frame[50:150, 60:130] = 240                   # the same card on white
>>> round(surround_ratio(frame, q, []), 2)
0.98
"""

from __future__ import annotations

import cv2
import numpy as np

from sueca.vision.rectify import card_canvas

#: A frame's table is white where its cards' surrounds are, in the median, at least this
#: bright against their own stock (L* of CIELAB). Set from the generator's tables
#: (``models/EXPERIMENTS.md``, eighteenth session).
WHITE_RATIO = 0.9
#: ... measured on at least this many cards (one card may lie on a napkin).
LEAST_CARDS = 2

_W, _H, _M = 24, 36, 0.25  # the card's canvas (card units to pixels) and the margin around it


def surround_ratio(frame: np.ndarray, quad: np.ndarray, others) -> float | None:
    """L* of the table just outside the card ``quad`` (4, 2) over L* of the card's own
    margin, medians; the outlines ``others`` (each (4, 2)) are not table. None where too
    little table shows round the card (a card in a pile, at the frame's edge)."""
    canvas, to_canvas = card_canvas(frame, quad, _W, _H, _M)
    ch, cw = canvas.shape[:2]
    h, w = frame.shape[:2]
    edge = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), to_canvas)
    inside = np.zeros((ch, cw), np.uint8)  # the canvas that shows the frame, not its border
    cv2.fillPoly(inside, [np.round(edge[0]).astype(np.int32)], 1)
    light = cv2.cvtColor(canvas, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    x0, y0 = int(_M * _W), int(_M * _H)
    x1, y1 = x0 + _W, y0 + _H
    card = np.zeros((ch, cw), bool)
    card[y0:y1, x0:x1] = True
    margin = card.copy()
    margin[y0 + 3:y1 - 3, x0 + 3:x1 - 3] = False  # the stock between the edge and the print
    margin[y0:y0 + 1, :] = margin[y1 - 1:y1, :] = False
    margin[:, x0:x0 + 1] = margin[:, x1 - 1:x1] = False
    ring = np.zeros((ch, cw), bool)
    ring[max(0, y0 - 5):y1 + 5, max(0, x0 - 5):x1 + 5] = True
    ring[y0 - 1:y1 + 1, x0 - 1:x1 + 1] = False  # a pixel clear of the card's edge
    ring &= inside > 0
    if len(others):
        mask = np.zeros((ch, cw), np.uint8)
        pts = cv2.perspectiveTransform(np.asarray(others, np.float32).reshape(1, -1, 2), to_canvas)
        cv2.fillPoly(mask, [np.round(p).astype(np.int32) for p in pts.reshape(-1, 4, 2)], 1)
        ring &= mask == 0
    if ring.sum() < 0.25 * (2 * 5 * (_W + _H)):
        return None
    stock = float(np.median(light[margin]))
    return float(np.median(light[ring])) / max(stock, 1.0)


def table_ratio(frame: np.ndarray, corners) -> tuple[float | None, int]:
    """The median of :func:`surround_ratio` over the outlines ``corners`` (N, 4, 2) and how
    many cards it was measured on (None, 0 where none)."""
    quads = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    ratios = []
    for i, q in enumerate(quads):
        r = surround_ratio(frame, q, np.delete(quads, i, axis=0))
        if r is not None:
            ratios.append(r)
    return (float(np.median(ratios)) if ratios else None), len(ratios)


def white_table(frame: np.ndarray, corners, ratio: float = WHITE_RATIO, least: int = LEAST_CARDS) -> bool:
    """Whether the cards outlined by ``corners`` lie on a table as white as they are."""
    r, n = table_ratio(frame, corners)
    return r is not None and n >= least and r >= ratio


class TableMeter:
    """A video's table, from its recent frames: the ratios (:func:`table_ratio`) of the last
    ``window`` frames measured (every ``every``-th frame, with at least the cards asked of
    :meth:`observe`); white once their median reaches the ratio asked (:meth:`white`). A
    camera looks at one table, so it changes its mind slowly.

    >>> m = TableMeter(window=5)
    >>> m._seen = [0.97, 0.99, 0.4]
    >>> m.white(0.9), m.white(0.99)
    (True, False)
    """

    def __init__(self, window: int = 15, every: int = 5):
        self.window, self.every = int(window), max(1, int(every))
        self._seen: list[float] = []
        self._frames = 0

    def white(self, ratio: float = WHITE_RATIO) -> bool:
        """Whether the table is as white as the cards, by the frames seen (three at least)."""
        return len(self._seen) >= min(3, self.window) and float(np.median(self._seen)) >= ratio

    def observe(self, frame: np.ndarray, corners, least: int = LEAST_CARDS) -> None:
        """Measure this frame on its cards outlined by ``corners`` (``least`` of them at least),
        where it is the ``every``-th since the last measure."""
        self._frames += 1
        if (self._frames - 1) % self.every:
            return
        r, n = table_ratio(frame, corners)
        if r is not None and n >= least:
            self._seen = (self._seen + [r])[-self.window:]


__all__ = ["WHITE_RATIO", "LEAST_CARDS", "surround_ratio", "table_ratio", "white_table", "TableMeter"]
