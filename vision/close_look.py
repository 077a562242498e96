"""On video, a box left unread while it lies still gets one close look: its surroundings read as a still image.

A video frame is read lean (no tiles, no extra looks: each frame must be fast), and a card
the locator scores faintly at its low resolution, or whose index the live reading leaves
under the threshold, can lie unread in plain view until its trick is swept (a Bellot jack of
hearts on wood, a Tigullio queen: ``models/EXPERIMENTS.md``, twenty-seventh session). A still
image reads such cards in tiles, each 0.6 of the frame and so 1.7 times larger to the
locator. :class:`CloseLooks` keeps the places of the boxes a frame left unread (its own
unread boxes and the second opinions' boxes the readers refused) and, once one has lain
unchanged ``after`` frames, reads a window of ``side`` of the frame around it the way a still
image's tile is read, at the still image's threshold. A card read there whose outline covers
the box is the box's reading from then on, for as long as its pixels stay unchanged; a close
look that reads nothing is tried again ``again`` frames later. The cost is one tile's read per
unread box per ``again`` frames (then twice as many, and so on, while it stays unread), and
nothing while every card is read.

Where the frames' times are known (:attr:`CloseLooks.t`, set by the pipeline), ``after`` and
``again`` count frames at :data:`REFERENCE_FPS`, the rate they were set at: a Pi reading 4
frames a second looks after the same 0.8 s as at 10, not after 2 s, when the last card of a
trick may already be gathered (``models/EXPERIMENTS.md``, twenty-ninth session).

>>> looks = CloseLooks()
>>> looks.after, looks.again
(8, 40)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections, outline_boxes
from sueca.vision.readings import outline_iou

#: The frame rate ``after`` and ``again`` are counted at when frames come with their times.
REFERENCE_FPS = 10.0

#: Outline IoU from which a card the close look read is the unread box it looked at (or the
#: centre of either lies inside the other: a second opinion's box can sit half off its card).
SAME_BOX = 0.5


@dataclass
class _Place:
    rbox: np.ndarray                  # (cx, cy, w, h, angle) of the unread box, frame pixels
    window: tuple[int, int, int, int]
    patch: np.ndarray
    age: float = 0                    # frames it has lain unread (at REFERENCE_FPS when timed)
    next_look: float = 0
    born: float | None = None         # the time it was first seen, when frames are timed
    fails: int = 0                    # close looks here that read nothing
    missed: int = 0                   # frames in a row it was not among the unread boxes
    reading: tuple | None = None      # (code, confidence, outline (4, 2)) a close look gave


@dataclass
class CloseLooks:
    """The unread boxes of a video's recent frames, and what a close look read there."""

    after: int = 8        # frames a box lies unread and unchanged before its close look
    again: int = 40       # frames before a box a close look left unread is looked at again (doubling)
    keep: int = 5         # frames a place is kept while its box is not proposed (a flickering box)
    side: float = 0.6     # the window's side, as a fraction of the frame's (a still image's tile)
    #: ``where(x, y, (w, h))``: whether a box centred there in a frame of that size may be looked
    #: at (the pipeline: its play area, where the cards of a trick lie; the players' hands holding
    #: their cards at the table's edge are boxed unread all game long); None: anywhere
    where: Callable[[float, float, tuple[int, int]], bool] | None = field(default=None, repr=False)
    #: the time (s) of the frame being read, where known (the pipeline sets it each frame);
    #: None: every frame counts one
    t: float | None = None
    looks: int = 0        # close looks so far
    read: int = 0         # ... that read a card
    _kept: list = field(default_factory=list, repr=False)
    _shape: tuple | None = field(default=None, repr=False)

    def window(self, rbox: np.ndarray, size: tuple[int, int]) -> tuple[int, int, int, int]:
        """The close look's window (x0, y0, x1, y1) around ``rbox``, inside a frame of ``size``."""
        w, h = size
        tw, th = round(self.side * w), round(self.side * h)
        x0 = int(np.clip(round(float(rbox[0]) - tw / 2), 0, w - tw))
        y0 = int(np.clip(round(float(rbox[1]) - th / 2), 0, h - th))
        return x0, y0, x0 + tw, y0 + th

    def step(self, frame: np.ndarray, dets: CardDetections, refused: np.ndarray, read_window) -> CardDetections:
        """``dets`` with the readings close looks gave. ``refused``: (M, 4, 2) outlines of boxes
        the frame dropped unread (the second opinions' refused boxes); ``read_window(part)``
        reads a window of the frame as a still image (``CardDetections`` in its pixels)."""
        from sueca.vision.still import _still_there, _window, sharp_change, thumbnail

        unread = [i for i, c in enumerate(dets.codes) if c == UNREADABLE]
        quads = [np.asarray(dets.corners[i], np.float32) for i in unread] if dets.corners is not None else []
        quads += [np.asarray(q, np.float32) for q in refused]
        if not quads and not self._kept:
            return dets  # every card read, nothing kept: the common frame costs nothing here
        grey, scale = thumbnail(frame)
        rboxes = np.array([_rbox(q) for q in quads], np.float32).reshape(-1, 5)
        # unchanged as a refused patch is (a card landing on it changes it)
        found = (_still_there(self._kept, grey, rboxes, 0.08, 0.15, 1 << 30, sharp_change)
                 if self._shape == grey.shape else [None] * len(rboxes))
        kept, add = [], []
        codes, confs = list(dets.codes), np.array(dets.confidence, np.float32)
        corners = np.array(dets.corners, np.float32).reshape(-1, 4, 2)
        read_now = {c for c in codes if c != UNREADABLE}
        places = []
        for k, (q, j) in enumerate(zip(quads, found)):
            if j is None:
                x0, y0, x1, y1 = _window(q, scale, grey.shape)
                place = _Place(rboxes[k].copy(), (x0, y0, x1, y1), grey[y0:y1, x0:x1].astype(np.int16),
                               next_look=self.after, born=self.t)
            else:
                place = self._kept[j]
                if self.t is not None and place.born is not None:
                    # rounded: 0.8 s at 10 a second is 8 frames, not 7.999999
                    place.age = round((self.t - place.born) * REFERENCE_FPS, 6)
                else:
                    place.age += 1
            place.missed = 0
            places.append(place)
        h, w = frame.shape[:2]
        due = [k for k, p in enumerate(places) if p.reading is None and p.age >= p.next_look
               and (self.where is None or self.where(float(p.rbox[0]), float(p.rbox[1]), (w, h)))]
        if due:
            # one close look a frame, the longest due first: a frame where several boxes come due
            # at once (a hand withdrawn from over them) would cost one tile's read each
            k = max(due, key=lambda k: places[k].age - places[k].next_look)
            place = places[k]
            place.reading = self._look(frame, quads[k], rboxes[k], read_window)
            # a napkin or a hand holding its cards is never read: looked at ever less often
            place.fails += place.reading is None
            place.next_look = place.age + self.again * 2 ** max(place.fails - 1, 0)
        for k, place in enumerate(places):
            if place.reading is not None and place.reading[0] not in read_now:
                code, conf, outline = place.reading
                read_now.add(code)
                if k < len(unread):
                    # the card's own outline, as the close look found it (the box may have been
                    # over two cards, or half off this one)
                    codes[unread[k]], confs[unread[k]], corners[unread[k]] = code, conf, outline
                else:
                    add.append((code, conf, outline))
            kept.append(place)
        taken = {j for j in found if j is not None}
        for j, place in enumerate(self._kept if self._shape == grey.shape else []):
            if j not in taken and place.missed < self.keep:
                place.missed += 1
                kept.append(place)
        self._kept, self._shape = kept, grey.shape
        if not add and codes == list(dets.codes):
            return dets
        loc = np.asarray(dets.locate_confidence, np.float32)
        if add:
            corners = np.concatenate([corners, np.stack([a[2] for a in add])])
            codes += [a[0] for a in add]
            confs = np.concatenate([confs, np.float32([a[1] for a in add])])
            loc = np.concatenate([loc, np.float32([a[1] for a in add])])
        return CardDetections(outline_boxes(corners, (w, h)), tuple(codes), confs.astype(np.float32), loc,
                              corners, np.ones(len(codes), bool))

    def _look(self, frame: np.ndarray, quad: np.ndarray, rbox: np.ndarray, read_window) -> tuple | None:
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = self.window(rbox, (w, h))
        self.looks += 1
        got = read_window(np.ascontiguousarray(frame[y0:y1, x0:x1]))
        if got.corners is None:
            return None
        best = None
        for code, conf, outline in zip(got.codes, got.confidence, got.corners):
            if code == UNREADABLE:
                continue
            outline = np.asarray(outline, np.float32) + np.float32([x0, y0])
            iou = outline_iou(outline, quad)
            if (iou >= SAME_BOX or _inside(quad.mean(axis=0), outline) or _inside(outline.mean(axis=0), quad)) \
                    and (best is None or iou > best[0]):
                best = (iou, code, float(conf), outline)
        if best is None:
            return None
        self.read += 1
        return best[1], best[2], best[3]


def _rbox(quad: np.ndarray) -> np.ndarray:
    """(cx, cy, w, h, 0) of an outline: all the place test needs (centre and size)."""
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    return np.float32([*(lo + hi) / 2, *(hi - lo), 0.0])


def _inside(point: np.ndarray, quad: np.ndarray) -> bool:
    import cv2

    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0
