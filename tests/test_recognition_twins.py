"""One card, one box, once read: a second look that moves an unread box onto a card another
box has read (``readings.one_box_per_card``). On video the two are one card; on a still image
the second box is kept (it mostly reads a card lying just under the first)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sueca.vision.onnx_backend import Located
from sueca.vision.recognizer import load_recognizer
from sueca.vision.still import OutlineMemory


@pytest.fixture
def staged(monkeypatch):
    """The committed recognizer with its networks replaced by a fixed story: two boxes, far
    apart; the first reads 2S, the second nothing, until the second look moves the second onto
    the first card's outline, a pixel off, where it reads 2C."""
    rec = load_recognizer()
    rec.face = None
    rec.config = replace(rec.config, outliner={**rec.config.outliner, "anchored": False, "shrunk": False,
                                               "spreads": False})
    q = np.array([[600, 400], [670, 400], [670, 500], [600, 500]], np.float32)
    located = Located(np.array([[635, 450, 70, 100, 0], [935, 450, 70, 100, 0]], np.float32),
                      np.stack([q, q + [300, 0]]), np.array([0.9, 0.8], np.float32))
    monkeypatch.setattr(rec, "locate", lambda frame, faint=True: (located, np.zeros(2, bool)))
    monkeypatch.setattr(rec, "outlines", lambda frame, loc, memory=None: (loc.corners.copy(), list(loc.corners)))
    monkeypatch.setattr(rec, "read_quads", lambda frame, cands, **kw: (["2S", ""], np.array([0.99, 0.0], np.float32)))

    def second_look(frame, corners, codes, confs, *args, **kwargs):
        corners[1], codes[1], confs[1] = corners[0] + 1, "2C", 0.97

    monkeypatch.setattr(rec, "_second_look", second_look)
    return rec, np.full((960, 1280, 3), 90, np.uint8)


def test_on_video_the_card_boxed_twice_keeps_its_surer_reading_alone(staged):
    rec, frame = staged
    dets = rec._detect(frame, OutlineMemory(), rec.config.video_threshold)
    assert dets.codes == ("2S",) and len(dets.corners) == 1


def test_a_still_image_keeps_both_boxes(staged):
    rec, frame = staged
    dets = rec._detect(frame, None, None)
    assert sorted(dets.codes) == ["2C", "2S"]
