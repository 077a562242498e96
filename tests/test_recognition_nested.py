"""Two boxes on one card: a skewed one inside a card that was read gives no entry of its own
(``readings.nested_in_read``); whatever it read was that card's face cut in the wrong place."""

from __future__ import annotations

import numpy as np
import pytest

from sueca.vision.detections import UNREADABLE
from sueca.vision.onnx_backend import Located
from sueca.vision.readings import nested_in_read
from sueca.vision.recognizer import default_model_dir, load_recognizer
from test_recognition_model import make_table

MODELS = default_model_dir()
pytestmark = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file(), reason="no committed model")


def _inner(quad: np.ndarray, rng) -> np.ndarray:
    """A skewed quad inside ``quad``: each corner pulled a random 12-25% toward the centre."""
    c = quad.mean(axis=0)
    return (quad + (c - quad) * rng.uniform(0.12, 0.25, (4, 1))).astype(np.float32)


def _rbox(q: np.ndarray) -> np.ndarray:
    import cv2

    (cx, cy), (w, h), a = cv2.minAreaRect(q.astype(np.float32))
    return np.array([cx, cy, w, h, np.deg2rad(a)], np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_box_inside_a_read_card_gives_no_second_entry(seed):
    cards = [("2C", 400, 420, 15), ("9H", 860, 460, -30)]
    frame, corners = make_table(cards)
    rec = load_recognizer()
    plain = rec(frame)
    read = [c for c in plain.codes if c != UNREADABLE]
    assert sorted(read) == ["2C", "9H"], plain.codes  # the cards themselves are read
    rng = np.random.default_rng(seed)
    quads = np.stack([corners[0], corners[1], _inner(corners[0], rng)]).astype(np.float32)
    # the locator's own three boxes, outlined as they are: two cards and a skewed box in the first
    rec.locate = lambda frame: (Located(np.stack([_rbox(q) for q in quads]), quads, np.full(3, 0.9, np.float32)),
                                np.zeros(3, bool))
    rec.outlines = lambda frame, located, memory=None: (located.corners.copy(), list(located.corners))
    dets = rec(frame)
    assert len(dets) == 2, dets.codes
    assert sorted(c for c in dets.codes if c != UNREADABLE) == ["2C", "9H"]
    assert nested_in_read(quads, ["2C", "9H", "2S"]).tolist() == [False, False, True]


def test_two_cards_of_a_trick_are_not_nested():
    q = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    # crossing at right angles, sharing a quarter of their area: neither lies inside the other
    turned = (q - q.mean(0)) @ np.array([[0, -1], [1, 0]], np.float32) + q.mean(0) + [20, 10]
    assert not nested_in_read(np.stack([q, turned]), ["2C", "3C"]).any()
    assert not nested_in_read(np.stack([q, q + [35, 0]]), ["2C", "3C"]).any()  # half over half
