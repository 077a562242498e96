"""Corner crops that have not changed since they were read keep their readings (video).

On a card table most cards lie still most of the time, and a still card keeps
its outline from frame to frame (:class:`~sueca.vision.still.OutlineMemory`);
its corner crops are then cut at the same place in every frame. Where a crop's
pixels are what they were when the readers read it, reading it again gives the
same probabilities, at most of a frame's reader time. A :class:`CropMemory`
keeps, per candidate outline, the crops as read and the readers' probabilities;
a crop set that changed (a hand over the card, a pip coming sharp out of motion
blur, light changing) is read again, and every reading is made afresh after
``max_age`` frames.

>>> import numpy as np
>>> memo = CropMemory()
>>> quad = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
>>> crops = np.full((2, 48, 36, 3), 200, np.uint8)
>>> memo.lookup(quad, crops) is None
True
>>> memo.store(quad, crops, np.eye(2, 53), None)
>>> memo.next_frame()
>>> memo.lookup(quad, crops + 1).first.shape   # camera noise: the same crops
(2, 53)
>>> crops[0, 10:20, 10:20] = 0                 # a mark that was not there
>>> memo.lookup(quad, crops) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Reading:
    """One candidate outline's crops as read, and what the readers said of them."""

    crops: np.ndarray          # (n, H, W[, 3]) uint8
    first: np.ndarray          # (n, classes) first reader's probabilities
    second: np.ndarray | None  # the second reader's, where it was asked
    age: int = 0
    #: the recognizer's second look (:meth:`Recognizer._second_look`) was tried from this
    #: outline and found nothing
    looked: bool = False
    #: the face-suit check's probabilities of the card this is the first outline of
    #: (:mod:`sueca.vision.face_suit`), kept with the crops
    face: np.ndarray | None = None


@dataclass
class CropMemory:
    """Readings of the last frame, by candidate outline, for the next frame to reuse.

    A crop set is the same where at most ``max_changed`` of its values moved by more than
    ``change_level`` grey levels and their mean change is at most ``max_mean``: camera
    noise moves most values a little, a mark appearing moves a few by much (so a mean
    alone would miss a small pip coming sharp).
    """

    change_level: int = 24
    max_changed: float = 0.004
    max_mean: float = 3.0
    max_age: int = 8
    hits: int = 0
    misses: int = 0
    _then: dict = field(default_factory=dict, repr=False)
    _now: dict = field(default_factory=dict, repr=False)

    @staticmethod
    def key(quad: np.ndarray) -> bytes:
        return np.ascontiguousarray(quad, np.float32).tobytes()

    def next_frame(self) -> None:
        """This frame's readings become those the next frame may reuse."""
        self._then, self._now = self._now, {}

    def lookup(self, quad: np.ndarray, crops: np.ndarray) -> Reading | None:
        """The reading of the candidate ``quad`` kept from the last frame, where its ``crops``
        are still the same; it is carried on to this frame (one frame older)."""
        k = self.key(quad)
        now = self._now.get(k)  # read earlier in this frame (the same pixels)
        if now is not None and now.crops.shape == crops.shape and self.same(now.crops, crops):
            self.hits += 1
            return now
        was = self._then.get(k)
        if now is not None or was is None or was.age + 1 >= self.max_age or was.crops.shape != crops.shape or \
                not self.same(was.crops, crops):
            self.misses += 1
            return None
        self.hits += 1
        was = Reading(was.crops, was.first, was.second, was.age + 1, was.looked, was.face)
        self._now[k] = was
        return was

    def same(self, then: np.ndarray, now: np.ndarray) -> bool:
        d = np.abs(now.astype(np.int16) - then.astype(np.int16))
        return float(d.mean()) <= self.max_mean and float(np.mean(d > self.change_level)) <= self.max_changed

    def store(self, quad: np.ndarray, crops: np.ndarray, first: np.ndarray, second: np.ndarray | None) -> None:
        """Keep this frame's reading of the candidate ``quad``."""
        self._now[self.key(quad)] = Reading(np.array(crops, copy=True), first, second)

    def lookup_all(self, quads: list, crops: np.ndarray, starts: np.ndarray) -> list[Reading | None]:
        """:meth:`lookup` of each candidate ``quads[j]``, whose crops are ``crops[starts[j]:starts[j + 1]]``."""
        return [self.lookup(q, crops[starts[j]:starts[j + 1]]) for j, q in enumerate(quads)]

    def keep_all(self, quads: list, crops: np.ndarray, starts: np.ndarray, kept: list, first: np.ndarray,
                 second: np.ndarray | None, asked: list[int]) -> None:
        """After reading: :meth:`store` each candidate not ``kept`` from the last frame, with the
        second reader's probabilities where it was ``asked``; a kept one the second reader read
        only now keeps those too."""
        asked = set(asked)
        for j, q in enumerate(quads):
            rows = slice(starts[j], starts[j + 1])
            sec = second[rows] if second is not None and j in asked else None
            if kept[j] is None:
                self.store(q, crops[rows], first[rows], sec)
            elif kept[j].second is None and sec is not None:
                kept[j].second = sec

    def looked_unchanged(self, candidates) -> bool:
        """Whether every candidate outline of a card (k, 4, 2) kept last frame's crops and a second
        look from there found nothing then (:meth:`mark_looked`)."""
        kept = [self.reading(c) for c in np.asarray(candidates, np.float32).reshape(-1, 4, 2)]
        return all(k is not None and k.age >= 1 for k in kept) and kept[0].looked

    def mark_looked(self, candidates) -> None:
        """A second look from the card's candidate outlines (k, 4, 2) found nothing this frame."""
        kept = self.reading(np.asarray(candidates, np.float32).reshape(-1, 4, 2)[0])
        if kept is not None:
            kept.looked = True

    def reading(self, quad: np.ndarray) -> Reading | None:
        """This frame's reading of the candidate ``quad``, if one was looked up or stored."""
        return self._now.get(self.key(quad))


__all__ = ["CropMemory", "Reading"]
