"""A frame taller than wide (a phone held upright) is read turned a quarter to lie wide, as
the networks learnt the table, and its cards are given in its own pixels
(``Recognizer.turn_portrait``, ``CardDetections.turned_back``)."""

from __future__ import annotations

import numpy as np

from sueca.vision.detections import CardDetections, outline_boxes
from sueca.vision.recognizer import load_recognizer


def upright(q: np.ndarray, h: int) -> np.ndarray:
    """Points of a wide frame ``h`` high in that frame turned a quarter clockwise
    (``np.rot90(frame, -1)``): (x, y) -> (h - 1 - y, x)."""
    return np.stack([h - 1 - q[..., 1], q[..., 0]], axis=-1)


def test_boxes_without_outlines_are_turned_back_too():
    # a box found on the turned (wide) frame of a 30 x 40 upright one
    d = CardDetections(np.array([[2, 5, 12, 25]], np.float32), ("AH",), np.ones(1, np.float32),
                       np.ones(1, np.float32))
    assert d.turned_back((30, 40)).xyxy.tolist() == [[4.0, 2.0, 24.0, 12.0]]
    assert len(CardDetections.empty().turned_back((30, 40))) == 0


def test_outlines_turned_back_are_the_upright_frames_cards():
    q = np.array([[[3, 4], [13, 4], [13, 24], [3, 24]]], np.float32)  # on the wide frame, 40 x 30
    d = CardDetections(outline_boxes(q, (40, 30)), ("7S",), np.ones(1, np.float32), np.ones(1, np.float32), q)
    back = d.turned_back((30, 40))
    assert back.corners.tolist() == [[[25, 3], [25, 13], [5, 13], [5, 3]]]
    assert back.xyxy.tolist() == [[5.0, 3.0, 25.0, 13.0]]


def test_a_photo_held_upright_reads_as_the_same_photo_held_wide():
    from sueca.vision.train_data import render

    rec = load_recognizer()
    seen = []
    locate = rec.locate
    rec.locate = lambda f, *a, **k: (seen.append(f.shape[:2]), locate(f, *a, **k))[1]
    wide = render(900003, (1280, 960), "test").image
    flat = rec(wide)
    read = [c for c in flat.codes if c]
    assert len(read) >= 4, flat.codes  # enough cards for the comparison to mean something

    seen.clear()
    tall = np.ascontiguousarray(np.rot90(wide, -1))  # 960 wide, 1280 high
    dets = rec(tall)
    assert seen and all(w > h for h, w in seen), seen  # the locator saw only wide frames
    assert dets.codes == flat.codes
    assert np.allclose(dets.confidence, flat.confidence)
    assert np.abs(dets.corners - upright(flat.corners, 960)).max() < 1e-3
    assert (dets.xyxy[:, [0, 2]] <= 960).all() and (dets.xyxy[:, [1, 3]] <= 1280).all()

    seen.clear()
    rec.turn_portrait = False  # read as it stands: the locator's wide input gets a narrow frame
    rec(tall)
    assert seen and seen[0] == (1280, 960), seen


def test_turned_undoes_turned_back():
    q = np.array([[[3, 4], [13, 4], [13, 24], [3, 24]]], np.float32)  # on the wide frame, 40 x 30
    d = CardDetections(outline_boxes(q, (40, 30)), ("7S",), np.ones(1, np.float32), np.ones(1, np.float32), q)
    back = d.turned_back((30, 40))
    again = back.turned((30, 40))
    assert np.allclose(again.corners, q) and np.allclose(again.xyxy, d.xyxy)
    boxes = CardDetections(np.array([[4, 2, 24, 12]], np.float32), ("AH",), np.ones(1, np.float32),
                           np.ones(1, np.float32))
    assert boxes.turned((30, 40)).turned_back((30, 40)).xyxy.tolist() == [[4.0, 2.0, 24.0, 12.0]]


def test_an_upright_photos_tiles_are_read_turned_as_its_whole():
    # sueca detect reads a photo whole, then its tiles (Recognizer.read_tiles) from its own pixels
    from sueca.vision.train_data import render

    rec = load_recognizer()
    wide = render(900003, (1280, 960), "test").image
    tall = np.ascontiguousarray(np.rot90(wide, -1))
    whole_wide, whole_tall = rec(wide, tiles=False), rec(tall, tiles=False)
    seen = []
    locate = rec.locate
    rec.locate = lambda f, *a, **k: (seen.append(f.shape[:2]), locate(f, *a, **k))[1]
    flat = rec.read_tiles(wide, whole_wide)
    seen.clear()
    dets = rec.read_tiles(tall, whole_tall)
    assert seen and all(w > h for h, w in seen), seen  # every tile turned to lie wide
    assert dets.codes == flat.codes
    assert np.abs(dets.corners - upright(flat.corners, 960)).max() < 1e-3
