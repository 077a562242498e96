"""How the evaluation pairs readings with the true cards (``train_eval.match``) and how it
measures the confidence (``train_eval.reliability``)."""

from types import SimpleNamespace

import numpy as np

from sueca.vision.detections import CardDetections, outline_boxes
from sueca.vision.train_eval import inside, match, reliability


def _quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _dets(quads, codes):
    corners = np.stack(quads).astype(np.float32)
    n = len(codes)
    return CardDetections(outline_boxes(corners, (1280, 960)), tuple(codes), np.ones(n, np.float32),
                          np.ones(n, np.float32), corners, np.ones(n, bool))


def _card(code, quad, face_up=True):
    return SimpleNamespace(code=code, corners=quad, face_up=face_up)


def test_inside_is_the_share_of_the_first_outline():
    big = _quad(0, 0, 100, 140)
    assert inside(_quad(0, 0, 50, 70), big) == 1.0
    assert abs(inside(big, _quad(0, 0, 50, 70)) - 0.25) < 1e-6
    assert inside(_quad(200, 0, 300, 140), big) == 0.0


def test_a_card_half_out_of_the_frame_read_where_it_shows_is_its_card():
    # the true card runs past the frame's left edge; the reading outlines the part in view
    card = _card("JS", _quad(-160, 300, 100, 660))
    dets = _dets([_quad(0, 300, 100, 660)], ["JS"])
    assert match(dets, [card]) == [(0, 0)]
    # IoU 0.38 above: paired by the same code's IoU floor (0.3) already; a smaller outline in
    # view is paired only by lying on the card
    tiny = _dets([_quad(0, 560, 60, 660)], ["JS"])  # IoU 0.06 with the whole card
    assert match(tiny, [card], same_code_inside=2.0) == []
    assert match(tiny, [card]) == [(0, 0)]


def test_a_reading_of_another_code_is_not_paired_by_containment():
    card = _card("JS", _quad(0, 0, 100, 140))
    dets = _dets([_quad(10, 10, 40, 50)], ["QS"])  # inside the JS, reads QS: wrong, or nothing
    assert match(dets, [card]) == []


def test_a_reading_mostly_on_a_neighbour_is_not_given_the_card_of_its_code():
    under = _card("7C", _quad(0, 0, 100, 140))
    top = _card("KD", _quad(70, 0, 170, 140))
    # outlined on the KD's side, reading the 7C: 30% of it lies on the 7C
    dets = _dets([_quad(70, 0, 170, 140)], ["7C"])
    pairs = match(dets, [under, top])
    assert pairs == [(0, 1)]  # paired by IoU with the KD: a wrong identity, as it should count


def test_a_face_down_card_of_the_code_is_not_a_match_by_containment():
    back = _card("AS", _quad(0, 0, 100, 140), face_up=False)
    dets = _dets([_quad(0, 0, 40, 50)], ["AS"])
    assert match(dets, [back]) == []


def test_reliability_of_a_calibrated_and_an_overconfident_reader():
    # nine in ten right at 0.9: calibrated
    good = np.array([[0.9, 1]] * 9 + [[0.9, 0]], np.float64)
    table, ece = reliability(good)
    assert [(b["lo"], b["readings"], b["wrong"]) for b in table] == [(0.9, 10, 1)]
    assert abs(ece) < 1e-9
    # sure of every reading, half of them wrong
    bad = np.array([[0.999, 1], [0.999, 0], [0.9995, 1], [1.0, 0]], np.float64)
    table, ece = reliability(bad)
    assert len(table) == 1 and table[0]["readings"] == 4 and table[0]["wrong"] == 2  # 1.0 is in the top bin
    assert ece > 0.49


def test_reliability_of_no_readings_is_empty():
    table, ece = reliability(np.zeros((0, 2)))
    assert table == [] and ece == 0.0
