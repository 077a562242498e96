"""Upright crops of cards and of their corner indices from a rendered scene, for a reader.

>>> from sueca.datasets.scene import render_scene
>>> crops = card_crops(render_scene(2, size=(320, 320)), size=(64, 96))
>>> all(c.image.shape == (96, 64, 3) for c in crops)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True, eq=False)
class Crop:
    image: np.ndarray        # (h, w, 3) BGR, upright
    code: str
    readable: bool
    corner: int = -1         # index crops: 0 top-left index, 1 bottom-right index; -1 whole card


def _warp(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    # Edge coordinates on both sides, shifted to OpenCV's pixel centres.
    M = cv2.getPerspectiveTransform(np.asarray(quad, np.float32) - 0.5, dst - 0.5)
    return cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_AREA if w < 64 else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def card_crops(scene, size: tuple[int, int] = (96, 134), face_up_only: bool = True,
               min_visible: float = 0.3) -> list[Crop]:
    """Each face-up card (at least ``min_visible`` in view) warped upright to ``size`` (w, h)."""
    out = []
    for c in scene.cards:
        if (face_up_only and not c.face_up) or c.visible_fraction < min_visible:
            continue
        out.append(Crop(_warp(scene.image, c.corners, size), c.code, c.readable))
    return out


def index_crops(scene, size: tuple[int, int] = (32, 64), min_visible: float = 0.5) -> list[Crop]:
    """Each corner index of the face-up cards, warped upright (as it reads) to ``size`` (w, h).

    ``readable`` is True when that index itself is visible enough
    (``READABLE_INDEX_FRACTION``); crops of hidden indices make hard negatives.
    """
    from .scene import READABLE_INDEX_FRACTION

    out = []
    for c in scene.cards:
        if not c.face_up:
            continue
        for k in range(2):
            v = float(c.index_visible[k])
            if v < min_visible:
                continue
            sharp = c.readable or c.index_visible.max() < READABLE_INDEX_FRACTION  # blur marks unreadable cards
            out.append(Crop(_warp(scene.image, c.index_quads[k], size), c.code,
                            bool(v >= READABLE_INDEX_FRACTION and sharp), k))
    return out
