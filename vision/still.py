"""Cards that lie still keep their outline from one frame to the next.

Finding a card's exact outline at full resolution (:mod:`sueca.vision.refine`)
is the dearest part of recognizing a frame after the locator, yet on a card
table most cards lie still most of the time. A video's recognizer may keep an
:class:`OutlineMemory`: a located card whose box is where a remembered one
was, and whose pixels have not changed, takes the remembered outline instead
of being refined again. The reader still reads it in every frame (its
readings are what the tracker votes on), and every outline is found afresh
after ``max_age`` frames.

>>> import numpy as np
>>> mem = OutlineMemory()
>>> grey = np.zeros((240, 320), np.uint8)
>>> boxes = np.array([[400, 310, 40, 60, 0.0]], np.float32)
>>> mem.lookup(grey, 4.0, boxes)
[None]
>>> outline = np.array([[[380, 280], [420, 280], [420, 340], [380, 340]]], np.float32)
>>> mem.remember(grey, 4.0, boxes, outline, [outline])
>>> mem.lookup(grey, 4.0, boxes + [1, 0, 0, 0, 0])
[0]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from sueca.vision.balance import RunningBalance
from sueca.vision.close_look import CloseLooks
from sueca.vision.crop_memory import CropMemory
from sueca.vision.tabletop import TableMeter

#: Width of the grey thumbnail the stillness test compares.
THUMB_WIDTH = 320


def thumbnail(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """(grey thumbnail, frame pixels per thumbnail pixel) of a BGR frame."""
    h, w = frame.shape[:2]
    scale = w / THUMB_WIDTH
    # bilinear, not area: ten times cheaper, and the test averages over a whole card anyway
    small = cv2.resize(frame, (THUMB_WIDTH, max(1, int(round(h / scale)))), interpolation=cv2.INTER_LINEAR)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), scale


@dataclass
class _Kept:
    rbox: np.ndarray      # the locator's box when the outline was found (the anchor)
    corners: np.ndarray   # the outline found then
    cands: np.ndarray     # the candidate outlines the reader tries
    window: tuple[int, int, int, int]  # thumbnail box around the card
    patch: np.ndarray     # the thumbnail there, then
    age: int = 0


@dataclass
class OutlineMemory:
    """The outlines of the last frame, for :meth:`Recognizer.outlines` to reuse.

    ``max_shift``: how far (share of the card's size) a located box may be from
    the box the outline was found for (the locator's own jitter), and
    ``max_size_change`` how much bigger or smaller;
    ``max_change``: mean grey change (0-255) inside the card since then, above
    which it moved, was covered or turned; ``max_age``: frames an outline is
    reused before it is found again.
    """

    max_shift: float = 0.04
    max_size_change: float = 0.06
    max_change: float = 6.0
    max_age: int = 12
    _kept: list = field(default_factory=list, repr=False)
    _shape: tuple | None = field(default=None, repr=False)
    reused: int = 0
    refined: int = 0
    #: the second opinions' boxes the readers refused (their own memory; :meth:`clear` keeps it)
    refused: "RefusedPatches" = field(default_factory=lambda: RefusedPatches(), repr=False)
    #: the readers' probabilities of corner crops that may not have changed since
    crops: CropMemory = field(default_factory=CropMemory, repr=False)
    #: the video's light, where the model takes a strong cast back (its own memory too)
    balance: RunningBalance = field(default_factory=RunningBalance, repr=False)
    #: the video's table, white or not, where the model has networks for white tops
    table: TableMeter = field(default_factory=TableMeter, repr=False)
    #: boxes left unread while they lie still, and what a close look read there
    close: CloseLooks = field(default_factory=CloseLooks, repr=False)

    def lookup(self, grey: np.ndarray, scale: float, rboxes: np.ndarray) -> list[int | None]:
        """Per located box (N, 5: cx, cy, w, h, angle), the remembered outline it may take."""
        if self._shape != grey.shape:
            return [None] * len(rboxes)
        return _still_there(self._kept, grey, rboxes, self.max_shift, self.max_size_change, self.max_age,
                            lambda now, then: float(np.mean(np.abs(now - then))) > self.max_change)

    def remembered(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(outline, candidate outlines) remembered under index ``j``."""
        return self._kept[j].corners, self._kept[j].cands

    def remember(self, grey: np.ndarray, scale: float, rboxes: np.ndarray, corners: np.ndarray, cands: list,
                 reused: list[int | None] | None = None) -> None:
        """This frame's outlines become the memory (``reused``: what :meth:`lookup` said)."""
        reused = reused or [None] * len(rboxes)
        kept = []
        for i, j in enumerate(reused):
            if j is not None:
                k = self._kept[j]
                k.age += 1
                kept.append(k)
                continue
            window = _window(corners[i], scale, grey.shape)
            x0, y0, x1, y1 = window
            kept.append(_Kept(np.asarray(rboxes[i], np.float32).copy(), np.asarray(corners[i], np.float32).copy(),
                              np.asarray(cands[i], np.float32), window, grey[y0:y1, x0:x1].astype(np.int16)))
        self.reused += sum(j is not None for j in reused)
        self.refined += sum(j is None for j in reused)
        self._kept, self._shape = kept, grey.shape

    def clear(self) -> None:
        self._kept, self._shape = [], None


def sharp_change(now: np.ndarray, then: np.ndarray, level: int = 24, share: float = 0.005) -> bool:
    """Whether more than ``share`` of a patch's pixels moved by over ``level`` grey levels (int16
    patches): a card landing on it, a pip coming sharp out of motion blur (few pixels, by much,
    which a mean over the patch would miss). The defaults are :class:`RefusedPatches`'."""
    return float(np.mean(np.abs(now - then) > level)) > share


def _still_there(kept: list, grey: np.ndarray, rboxes: np.ndarray, max_shift: float, max_size_change: float,
                 max_age: int, changed) -> list[int | None]:
    """Per box (N, 5: cx, cy, w, h, angle), the index of the remembered entry (``rbox``,
    ``window``, ``patch``, ``age``) it still is: the nearest one, within ``max_shift`` of the
    box's size, of about its size, younger than ``max_age``, each taken once, whose thumbnail
    window has not ``changed(now, then)``."""
    out: list[int | None] = [None] * len(rboxes)
    if not kept:
        return out
    anchors = np.stack([k.rbox for k in kept])
    taken: set[int] = set()
    for i, b in enumerate(np.asarray(rboxes, np.float32)):
        size = float(np.sqrt(max(b[2] * b[3], 1.0)))
        d = np.hypot(anchors[:, 0] - b[0], anchors[:, 1] - b[1])
        j = int(np.argmin(d))
        k = kept[j]
        if j in taken or d[j] > max_shift * size or k.age >= max_age:
            continue
        if abs(size / np.sqrt(max(float(k.rbox[2] * k.rbox[3]), 1.0)) - 1.0) > max_size_change:
            continue
        x0, y0, x1, y1 = k.window
        now = grey[y0:y1, x0:x1].astype(np.int16)
        if now.size == 0 or now.shape != k.patch.shape or changed(now, k.patch):
            continue
        out[i] = j
        taken.add(j)
    return out


def _window(corners: np.ndarray, scale: float, shape: tuple) -> tuple[int, int, int, int]:
    pts = np.asarray(corners, np.float32) / scale
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    h, w = shape[:2]
    return max(int(x0), 0), max(int(y0), 0), min(int(x1), w), min(int(y1), h)


@dataclass
class _Refused:
    rbox: np.ndarray
    window: tuple[int, int, int, int]
    patch: np.ndarray
    age: int = 0


@dataclass
class RefusedPatches:
    """Boxes a second opinion proposed and the readers refused, skipped while they lie unchanged.

    The card stock pass (:func:`sueca.vision.proposals.card_stock`) finds every lone
    white thing on the table: a napkin, a score sheet, a phone's screen. Reading each
    of them again in every frame would cost more than the pass itself. A proposal
    where a refused one lay, of its size and with the same pixels, is skipped; after
    ``max_age`` frames it is read again, and a card that lands on it changes its
    pixels, so it is read at once.

    >>> import numpy as np
    >>> refused = RefusedPatches()
    >>> grey = np.full((240, 320), 90, np.uint8)
    >>> box = np.array([[400, 300, 70, 100, 0.3]], np.float32)
    >>> refused.lookup(grey, 4.0, box)
    [None]
    >>> refused.remember(grey, 4.0, box, [None])
    >>> refused.lookup(grey, 4.0, box + [2, 0, 0, 0, 0])
    [0]
    >>> grey[70:80, 95:105] = 250  # something lands on it
    >>> refused.lookup(grey, 4.0, box)
    [None]
    """

    max_shift: float = 0.06
    max_size_change: float = 0.1
    #: a patch has changed where more than ``max_changed`` of its pixels moved by over
    #: ``change_level`` grey levels: a pip coming sharp out of motion blur changes few pixels,
    #: but by much, which a mean over the patch would miss
    change_level: int = 24
    max_changed: float = 0.005
    max_age: int = 10
    skipped: int = 0
    _kept: list = field(default_factory=list, repr=False)
    _shape: tuple | None = field(default=None, repr=False)

    def lookup(self, grey: np.ndarray, scale: float, rboxes: np.ndarray) -> list[int | None]:
        """Per proposed box (N, 5: cx, cy, w, h, angle), the refused patch it still is, if any."""
        if self._shape != grey.shape:
            return [None] * len(rboxes)
        out = _still_there(self._kept, grey, rboxes, self.max_shift, self.max_size_change, self.max_age,
                           lambda now, then: sharp_change(now, then, self.change_level, self.max_changed))
        self.skipped += sum(j is not None for j in out)
        return out

    def remember(self, grey: np.ndarray, scale: float, rboxes: np.ndarray, found: list[int | None]) -> None:
        """This frame's refused boxes become the memory; ``found``: per box, what :meth:`lookup`
        said (a patch skipped again keeps its pixels and grows older)."""
        from sueca.vision.onnx_backend import rbox_corners

        kept = []
        rboxes = np.asarray(rboxes, np.float32).reshape(-1, 5)
        corners = rbox_corners(rboxes) if len(rboxes) else np.zeros((0, 4, 2), np.float32)
        for i, j in enumerate(found):
            if j is not None and self._shape == grey.shape:
                k = self._kept[j]
                kept.append(_Refused(k.rbox, k.window, k.patch, k.age + 1))
                continue
            window = _window(corners[i], scale, grey.shape)
            x0, y0, x1, y1 = window
            kept.append(_Refused(rboxes[i].copy(), window, grey[y0:y1, x0:x1].astype(np.int16)))
        self._kept, self._shape = kept, grey.shape


class Refusal:
    """One frame's bookkeeping for :class:`~sueca.vision.still.RefusedPatches`: the boxes skipped
    as still refused, and (:meth:`done`) those the readers refused this frame."""

    def __init__(self, refused, grey, scale, skipped_boxes, skipped_found):
        self.refused, self.grey, self.scale = refused, grey, scale
        self.boxes, self.found = skipped_boxes, skipped_found

    def done(self, refused_now: np.ndarray, rboxes: np.ndarray) -> None:
        boxes = np.concatenate([self.boxes, rboxes[refused_now]])
        self.refused.remember(self.grey, self.scale, boxes, self.found + [None] * int(refused_now.sum()))


def skip_refused(frame: np.ndarray, located, added: np.ndarray, refused) -> tuple:
    """(mask of the located boxes to keep, refusal): all but the second opinions' boxes the
    readers refused in an earlier frame that still lie there unchanged."""
    grey, scale = thumbnail(frame)
    rboxes = np.asarray(located.rboxes, np.float32).reshape(-1, 5)
    idx = np.flatnonzero(added)
    found = refused.lookup(grey, scale, rboxes[idx])
    skip = np.zeros(len(added), bool)
    skip[idx[[j is not None for j in found]]] = True
    return ~skip, Refusal(refused, grey, scale, rboxes[skip], [j for j in found if j is not None])
