"""Lone card-shaped patches of card stock (``sueca.vision.proposals.card_stock``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sueca.vision.onnx_backend import rbox_corners
from sueca.vision.proposals import card_stock
from sueca.vision.train_eval import _poly_iou


def cloth(colour=(40, 90, 40), size=(960, 1280), noise=12, seed=0):
    rng = np.random.default_rng(seed)
    frame = np.full((*size, 3), colour, np.float32) + rng.normal(0, noise, (*size, 3))
    return np.clip(frame, 0, 255).astype(np.uint8)


def lay(frame, cx, cy, deg, wh=(76, 108), colour=(235, 238, 240)):
    q = cv2.boxPoints(((cx, cy), wh, deg)).astype(np.float32)
    cv2.fillPoly(frame, [np.round(q).astype(np.int32)], colour)
    return q


@pytest.mark.parametrize("colour", [(40, 90, 40), (60, 60, 150), (90, 120, 140)])
@pytest.mark.parametrize("deg", [0, 20, 55, 80])
def test_a_lone_card_is_found_with_its_outline(colour, deg):
    frame = cloth(colour)
    q = lay(frame, 700, 420, deg)
    rb = card_stock(frame)
    assert len(rb) == 1
    assert _poly_iou(rbox_corners(rb)[0], q) > 0.85


def test_cards_overlapping_in_a_trick_make_no_proposal():
    frame = cloth()
    lay(frame, 640, 480, 0)
    lay(frame, 660, 470, 70)
    assert len(card_stock(frame)) == 0


def test_shapes_that_are_not_cards_make_no_proposal():
    frame = cloth()
    cv2.circle(frame, (300, 300), 60, (240, 240, 240), -1)          # a saucer
    cv2.rectangle(frame, (800, 200), (1000, 230), (240, 240, 240), -1)  # a strip of receipt
    cv2.rectangle(frame, (500, 600), (540, 640), (240, 240, 240), -1)   # a sugar packet
    cv2.rectangle(frame, (900, 600), (1150, 930), (240, 240, 240), -1)  # a sheet of paper
    lay(frame, 300, 700, 10, colour=(30, 30, 200))                      # a red card back
    assert len(card_stock(frame)) == 0


def test_a_white_table_and_an_empty_table_give_nothing():
    assert len(card_stock(cloth((235, 235, 235)))) == 0
    assert len(card_stock(cloth())) == 0


def test_any_frame_size():
    frame = cloth(size=(480, 640))
    q = lay(frame, 300, 200, 30, wh=(38, 54))
    rb = card_stock(frame)
    assert len(rb) == 1 and _poly_iou(rbox_corners(rb)[0], q) > 0.8
