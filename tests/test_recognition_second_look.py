"""Unread cards get a second look at their outline (``outliner.second_look``)."""

from __future__ import annotations

import cv2
import numpy as np

from sueca.vision.detections import UNREADABLE
from sueca.vision.onnx_backend import Located, rbox_corners
from sueca.vision.recognizer import Recognizer, RecognizerConfig

TRUE = np.array([[320, 240, 84, 120, 0.0]], np.float32)   # one card, upright
OFF = TRUE + np.array([[16, 20, 0, 0, 0]], np.float32)  # an outline a sixth of a card off


def table():
    """A card whose two index corners are red patches (what the fake reader reads)."""
    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    q = rbox_corners(TRUE)[0]
    cv2.fillPoly(frame, [q.astype(np.int32)], (235, 235, 235))
    x0, y0 = q.min(axis=0).astype(int)
    x1, y1 = q.max(axis=0).astype(int)
    cv2.rectangle(frame, (x0, y0), (x0 + 25, y0 + 30), (0, 0, 220), -1)
    cv2.rectangle(frame, (x1 - 25, y1 - 30), (x1, y1), (0, 0, 220), -1)
    return frame


class Locator:
    def __call__(self, frame):
        return Located(TRUE.copy(), rbox_corners(TRUE), np.array([0.8], np.float32))


class SlowOutliner:
    """Lands ``first`` on its first call; ``then`` when asked again."""

    def __init__(self, first=OFF, then=TRUE):
        self.calls, self.first, self.then = 0, first, then

    def __call__(self, frame, quads):
        self.calls += 1
        rb = self.first if self.calls == 1 else self.then
        return np.repeat(rbox_corners(rb), len(quads), axis=0)


class RedReader:
    """Reads 7H (p 0.999) from a corner crop that is mostly red, else "no index"."""

    def __call__(self, crops):
        c = np.asarray(crops).reshape(len(crops), -1, 3).astype(np.int16)
        red = ((c[..., 2] > 150) & (c[..., 1] < 80)).mean(axis=1)
        out = np.full((len(crops), 53), np.log(0.001 / 52), np.float32)
        out[:, 52] = np.where(red > 0.25, np.log(0.001), np.log(0.999))
        out[:, 19] = np.where(red > 0.25, np.log(0.999), np.log(0.001 / 52))
        return out


def recognizer(second_look: bool, **outliner) -> Recognizer:
    cfg = RecognizerConfig(outliner={"onnx": "-", "second_look": second_look})
    return Recognizer(Locator(), RedReader(), cfg, outliner=SlowOutliner(**outliner))


def test_an_unread_card_is_read_after_a_second_look_at_its_outline():
    frame = table()
    plain = recognizer(False)
    assert plain(frame).codes == (UNREADABLE,)
    looked = recognizer(True)
    dets = looked(frame)
    assert dets.codes == ("7H",)
    np.testing.assert_allclose(dets.corners[0], rbox_corners(TRUE)[0], atol=1)  # the outline it read from


def test_a_card_read_at_once_gets_no_second_look():
    frame = table()
    rec = recognizer(True)
    rec.outliner.calls = 1  # this outliner finds the card at once
    assert rec(frame).codes == ("7H",)
    assert rec.outliner.calls == 2  # one call: the first look only


def test_an_outline_that_slides_onto_another_card_is_not_taken():
    """Asked again, the outliner lands on a card lying beside this one: that reading is
    the other card's, not this one's."""
    frame = table()
    beside = TRUE + np.array([[-90, 0, 0, 0, 0]], np.float32)
    rec = recognizer(True, first=beside + np.array([[16, 20, 0, 0, 0]], np.float32), then=TRUE)
    rec.locator = lambda f: Located(beside.copy(), rbox_corners(beside), np.array([0.8], np.float32))
    assert rec(frame).codes == (UNREADABLE,)
