"""Is the table as white as the cards (``sueca.vision.tabletop``): the cards' surround against their stock."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sueca.vision.tabletop import LEAST_CARDS, TableMeter, surround_ratio, table_ratio, white_table


def _card(frame: np.ndarray, centre, angle: float, stock=(238, 240, 242), size=(70, 100)) -> np.ndarray:
    """Paint a card (its stock, a dark index) on ``frame``; its outline (4, 2)."""
    quad = cv2.boxPoints((centre, size, angle)).astype(np.float32)
    cv2.fillPoly(frame, [np.round(quad).astype(np.int32)], stock)
    c = quad.mean(0)
    cv2.circle(frame, tuple(int(v) for v in (c + 0.3 * (quad[0] - c))), 6, (30, 30, 30), -1)
    return quad


@pytest.mark.parametrize("cloth, white", [((40, 90, 40), False), ((90, 60, 150), False),
                                           ((225, 228, 230), True), ((244, 246, 247), True)])
def test_a_cloth_as_bright_as_the_stock_is_white(cloth, white):
    frame = np.empty((480, 640, 3), np.uint8)
    frame[:] = cloth
    quads = [_card(frame, (160, 200), 10), _card(frame, (420, 260), -35)]
    r, n = table_ratio(frame, quads)
    assert n == 2
    assert (r >= 0.9) == white
    assert white_table(frame, quads) == white


def test_the_other_cards_are_not_table():
    # a card lying on a white card on green: its surround is the green, not the card under it
    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    under = _card(frame, (300, 240), 0, size=(140, 200))
    top = _card(frame, (330, 250), 5)
    with_other = surround_ratio(frame, top, [under])
    assert with_other is None or with_other < 0.6  # only green left in its ring, or too little of it
    alone = surround_ratio(frame, top, [])
    assert alone > 0.9  # the card under it, taken for table


def test_too_few_cards_say_nothing():
    frame = np.full((480, 640, 3), 235, np.uint8)
    one = [_card(frame, (300, 240), 20)]
    assert table_ratio(frame, one)[1] == 1 and LEAST_CARDS > 1
    assert not white_table(frame, one)
    assert table_ratio(frame, np.zeros((0, 4, 2), np.float32)) == (None, 0)
    # a card running past the frame's edge shows too little table round it
    assert surround_ratio(frame, np.array([[-60, -80], [10, -80], [10, 20], [-60, 20]], np.float32), []) is None


def test_the_meter_of_a_video_needs_a_few_frames_and_forgets_slowly():
    white = np.full((480, 640, 3), 236, np.uint8)
    quads = [_card(white, (160, 200), 10), _card(white, (420, 260), -35)]
    green = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    for q in quads:
        _card(green, tuple(q.mean(0)), 10)
    meter = TableMeter(window=5, every=1)
    for k in range(3):
        assert not meter.white()
        meter.observe(white, quads)
    assert meter.white()
    meter.observe(green, quads)
    meter.observe(green, quads)
    assert meter.white()  # three white frames of five
    meter.observe(green, quads)
    assert not meter.white()
    meter.observe(white, quads[:1])  # one card: not a measure
    assert len(meter._seen) == 5 and not meter.white()


def test_the_generators_white_tops_and_dark_cloths_on_their_true_outlines():
    from sueca.datasets.scene import render_scene

    def ratio(seed, tables):
        scene = render_scene(seed, (1280, 960), "test", tables=tables)
        quads = [np.asarray(c.corners, np.float32) for c in scene.cards if c.face_up and c.visible_fraction > 0.5]
        return table_ratio(scene.image, quads)

    whites = [ratio(s, ("white_paint", "white_laminate")) for s in range(962_000, 962_004)]
    darks = [ratio(s, ("felt", "wood")) for s in range(962_000, 962_004)]
    assert all(n >= 1 and r >= 0.9 for r, n in whites), whites
    assert all(n >= 1 and r < 0.8 for r, n in darks), darks


def test_the_meter_measures_one_frame_in_every():
    white = np.full((480, 640, 3), 236, np.uint8)
    quads = [_card(white, (160, 200), 10), _card(white, (420, 260), -35)]
    meter = TableMeter(every=5)
    for k in range(11):
        meter.observe(white, quads)
        assert len(meter._seen) == k // 5 + 1  # frames 1, 6, 11
    assert meter.white()
    strict = TableMeter(every=1)  # the model's "least": two cards are too few where it asks three
    strict.observe(white, quads, least=3)
    assert strict._seen == []
