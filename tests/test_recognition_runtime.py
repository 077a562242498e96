"""Recognition runtime pieces that need no trained model: geometry, NMS, crops, combining."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sueca.vision.classes import CARD_CODES
from sueca.vision.detections import UNREADABLE
from sueca.vision.onnx_backend import letterbox, nms_rotated, probiou_matrix, rbox_corners
from sueca.vision.recognizer import (READER_CLASSES, RecognizerConfig, _one_per_card, combine_corners,
                                     combine_readers, load_recognizer, softmax)
from sueca.vision.rectify import CropSpec, clockwise, corner_crops, crop_top_left, portrait_orderings


def test_letterbox_maps_points_back_to_the_image():
    img = np.zeros((960, 1280, 3), np.uint8)
    blob, lb = letterbox(img, (256, 320))
    assert blob.shape == (1, 3, 256, 320) and blob.dtype == np.float32
    assert lb.gain == pytest.approx(0.25) and lb.pad_y == 8 and lb.pad_x == 0
    assert blob[0, :, 0, 0].tolist() == pytest.approx([114 / 255] * 3)  # grey padding row
    pts = np.array([[0 * 0.25 + 0, 0 * 0.25 + 8], [1280 * 0.25, 960 * 0.25 + 8]], np.float32)
    assert lb.to_image(pts).tolist() == [[0, 0], [1280, 960]]


def test_letterbox_rejects_a_grey_image():
    with pytest.raises(ValueError, match="BGR"):
        letterbox(np.zeros((10, 10), np.uint8), (32, 32))


@given(cx=st.floats(0, 500), cy=st.floats(0, 500), w=st.floats(5, 200), h=st.floats(5, 200),
       a=st.floats(-3.2, 3.2))
@settings(max_examples=60, deadline=None)
def test_rbox_corners_are_a_clockwise_rectangle_of_the_right_size(cx, cy, w, h, a):
    c = rbox_corners(np.array([[cx, cy, w, h, a]], np.float32))[0]
    assert np.allclose(c.mean(0), [cx, cy], atol=1e-2)
    assert np.linalg.norm(c[1] - c[0]) == pytest.approx(w, rel=1e-3)
    assert np.linalg.norm(c[2] - c[1]) == pytest.approx(h, rel=1e-3)
    assert np.array_equal(clockwise(c), c)


def test_probiou_is_one_for_identical_boxes_and_small_for_distant_ones():
    a = np.array([[100, 100, 40, 60, 0.3]], np.float32)
    b = np.array([[100, 100, 40, 60, 0.3], [400, 100, 40, 60, 0.3], [100, 100, 60, 40, 0.3 - np.pi / 2]], np.float32)
    m = probiou_matrix(a, b)[0]
    assert m[0] == pytest.approx(1.0, abs=1e-3)
    assert m[1] < 0.01
    assert m[2] == pytest.approx(1.0, abs=1e-3)  # same rectangle, described turned by 90 degrees


def test_nms_keeps_the_best_of_overlapping_cards_and_all_separate_ones():
    rb = np.array([[100, 100, 40, 60, 0], [102, 101, 40, 60, 0.05], [300, 100, 40, 60, 1.0]], np.float32)
    keep = nms_rotated(rb, np.array([0.7, 0.9, 0.8], np.float32), iou=0.5)
    assert keep.tolist() == [1, 2]


def _card_frame(angle: float, code="7H", style="classic"):
    """A card face pasted upright-rotated by ``angle`` degrees; returns frame and its TL,TR,BR,BL corners."""
    from sueca.datasets.cards import render_card_face

    face, _ = render_card_face(code, style, 200)
    h, w = face.shape[:2]
    frame = np.full((400, 400, 3), (40, 110, 40), np.uint8)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += [200 - w / 2, 200 - h / 2]
    warped = cv2.warpAffine(face, m, (400, 400))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255
    frame = (warped[:, :, :3] * alpha + frame * (1 - alpha)).astype(np.uint8)
    corners = cv2.transform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0]
    return frame, corners


@pytest.mark.parametrize("angle", [0, 33, 90, 180, 250])
def test_corner_crops_show_both_indices_upright_whatever_the_rotation(angle):
    spec = CropSpec()
    ref_frame, ref_corners = _card_frame(0)
    ref = crop_top_left(ref_frame, ref_corners, spec).astype(np.float32)
    frame, corners = _card_frame(angle)
    quad = np.roll(corners, 1, axis=0)[::-1]  # any start, counter-clockwise: still read right
    crops = corner_crops(frame, quad[None], spec)
    assert crops.shape == (2, *spec.shape)
    # each crop matches the upright top-left index (the bottom-right one is its 180-degree twin)
    for c in crops:
        assert np.mean(np.abs(c.astype(np.float32) - ref)) < 18


def test_a_squarish_quad_gets_landscape_orderings_too():
    square = np.array([[0, 0], [100, 0], [100, 95], [0, 95]], np.float32)
    assert len(portrait_orderings(square)) == 2
    assert len(portrait_orderings(square, ambiguous=0.8)) == 4
    tall = np.array([[0, 0], [60, 0], [60, 100], [0, 100]], np.float32)
    assert len(portrait_orderings(tall, ambiguous=0.8)) == 2



def test_crops_come_with_their_count_per_card():
    from sueca.vision.rectify import corner_crops_counted

    frame = np.random.default_rng(3).integers(0, 255, (300, 400, 3), np.uint8)
    quads = np.array([[[50, 50], [110, 50], [110, 140], [50, 140]],       # portrait: 2 crops
                      [[200, 60], [300, 60], [300, 155], [200, 155]],     # squarish: 4 at 0.8
                      [[100, 200], [152, 170], [202, 257], [150, 287]]], np.float32)  # turned portrait
    crops, counts = corner_crops_counted(frame, quads, CropSpec(), 0.8)
    assert counts == [len(portrait_orderings(q, 0.8)) for q in quads] == [2, 4, 2]
    assert np.array_equal(crops, corner_crops(frame, quads, CropSpec(), 0.8))
    a, b = portrait_orderings(quads[0])
    assert np.array_equal(a[0], b[2]) and np.array_equal(a[2], b[0])   # 180 degrees apart


def _probs(*rows):
    p = np.full((len(rows), len(READER_CLASSES)), 1e-4)
    for i, (k, v) in enumerate(rows):
        p[i, k] = v
    return p


def test_combine_corners_needs_agreement_and_confidence():
    assert combine_corners(_probs((7, 0.99), (7, 0.97)), 0.9) == (CARD_CODES[7], pytest.approx(0.99))
    assert combine_corners(_probs((7, 0.99), (52, 0.99)), 0.9)[0] == CARD_CODES[7]  # one corner covered
    assert combine_corners(_probs((7, 0.99), (8, 0.95)), 0.9)[0] == UNREADABLE  # corners disagree
    assert combine_corners(_probs((7, 0.80), (52, 0.9)), 0.9)[0] == UNREADABLE  # below threshold
    assert combine_corners(_probs((52, 0.99), (52, 0.99)), 0.5)[0] == UNREADABLE
    # two orderings of a squarish card: the readable pair wins
    four = _probs((52, 0.99), (52, 0.99), (20, 0.98), (20, 0.99))
    assert combine_corners(four, 0.9)[0] == CARD_CODES[20]


def test_two_readers_read_a_card_only_where_both_read_it():
    sure = _probs((7, 0.999), (52, 0.99))
    assert combine_readers([sure, _probs((7, 0.95), (7, 0.99))], 0.9) == (CARD_CODES[7], pytest.approx(0.99))
    # the lower confidence decides: one sure reader does not carry a doubtful one
    assert combine_readers([sure, _probs((7, 0.85), (52, 0.99))], 0.9) == (UNREADABLE, pytest.approx(0.85))
    # a suit one reader is sure of and the other reads otherwise is not guessed
    assert combine_readers([sure, _probs((20, 0.999), (52, 0.99))], 0.5)[0] == UNREADABLE
    assert combine_readers([sure, _probs((52, 0.99), (52, 0.99))], 0.5)[0] == UNREADABLE
    # one reader: exactly the corner rule
    assert combine_readers([sure], 0.9) == combine_corners(sure, 0.9)


def test_softmax_temperature_softens():
    z = np.array([[4.0, 0.0]])
    assert softmax(z, 2.0)[0, 0] < softmax(z, 1.0)[0, 0]
    assert softmax(z).sum() == pytest.approx(1.0)


def test_one_card_per_code_keeps_the_surest():
    codes, conf = _one_per_card(["7H", "7H", "AS", UNREADABLE], np.array([0.95, 0.99, 0.9, 0.5], np.float32))
    assert codes == [UNREADABLE, "7H", "AS", UNREADABLE]


def test_config_round_trips_and_rejects_other_classes(tmp_path):
    second = {"onnx": "reader2.onnx", "pt": "reader2.pt", "temperature": 0.8}
    cfg = RecognizerConfig(temperature=1.7, threshold=0.93, second_reader=second)
    (tmp_path / "recognizer.json").write_text(json.dumps(cfg.to_dict()))
    back = RecognizerConfig.load(tmp_path)
    assert back.temperature == 1.7 and back.threshold == 0.93 and back.crop == cfg.crop
    assert back.second_reader == second
    (tmp_path / "recognizer.json").write_text(json.dumps(RecognizerConfig().to_dict()))
    assert RecognizerConfig.load(tmp_path).second_reader is None
    d = cfg.to_dict()
    d["reader"]["classes"] = d["reader"]["classes"][::-1]
    (tmp_path / "recognizer.json").write_text(json.dumps(d))
    with pytest.raises(ValueError, match="classes"):
        RecognizerConfig.load(tmp_path)


def test_load_recognizer_names_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="recognizer.json"):
        load_recognizer(tmp_path)
    (tmp_path / "recognizer.json").write_text(json.dumps(RecognizerConfig().to_dict()))
    with pytest.raises(FileNotFoundError, match="locator.onnx"):
        load_recognizer(tmp_path)
    with pytest.raises(ValueError, match="backend"):
        load_recognizer(tmp_path, backend="tflite")


def test_the_second_reader_reads_only_the_cards_the_first_one_read():
    from sueca.vision.recognizer import Recognizer

    def logits(rows):  # one row per crop: very sure of class k
        z = np.full((len(rows), len(READER_CLASSES)), -10.0, np.float32)
        z[np.arange(len(rows)), rows] = 10.0
        return z

    seen = []
    first = lambda crops: logits([5, 5, 52, 52, 9, 9])  # noqa: E731  cards 0 and 2 read, card 1 not
    def second(crops):
        seen.append(len(crops))
        return logits([5, 5, 11, 11])  # agrees on card 0, not on card 2

    cfg = RecognizerConfig(temperature=1.0, threshold=0.9,
                           second_reader={"onnx": "r2.onnx", "pt": "r2.pt", "temperature": 1.0})
    rec = Recognizer(None, first, cfg, second=second)
    frame = np.full((400, 600, 3), 90, np.uint8)
    q = np.array([[10, 10], [80, 10], [80, 110], [10, 110]], np.float32)
    codes, conf = rec.read_quads(frame, [q, q + [200, 0], q + [400, 0]], exact=False)
    assert seen == [4]  # two crops of card 0 and two of card 2
    assert codes == [CARD_CODES[5], UNREADABLE, UNREADABLE]
    assert conf[0] > 0.99


def test_onnx_sessions_do_not_spin_waiting_for_work():
    # four sessions run one after another per frame: spinning pool threads of one
    # starve the next on a small machine (see make_session)
    rec = load_recognizer()
    sessions = [rec.locator.session, rec.reader.session]
    sessions += [rec.second.session] if rec.second is not None else []
    sessions += [rec.outliner.net.session] if rec.outliner is not None else []
    for s in sessions:
        assert s.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_the_mirrored_pass_shares_the_letterbox_and_finds_what_the_flipped_frame_shows():
    from sueca.datasets.scene import render_scene

    rec = load_recognizer()  # the committed locator
    frame = render_scene(700_004, (1280, 960), "test").image
    located, mirrored = rec.locator.both(frame)
    alone, flipped = rec.locator(frame), rec.locator(cv2.flip(frame, 1))
    assert len(located) >= 3 and np.array_equal(located.rboxes, alone.rboxes)
    # 1280x960 letterboxes with no side padding, so the mirrored input is the flipped frame's exactly
    assert len(mirrored) == len(flipped)
    order_a, order_b = np.argsort(mirrored.rboxes[:, 0]), np.argsort(flipped.rboxes[:, 0])
    assert np.allclose(mirrored.rboxes[order_a], flipped.rboxes[order_b], atol=1e-3)
    assert np.allclose(mirrored.scores[order_a], flipped.scores[order_b], atol=1e-5)


def test_the_two_locator_passes_side_by_side_give_what_one_after_the_other_gives():
    from sueca.datasets.scene import render_scene

    frame = render_scene(700_004, (1280, 960), "test").image
    side_by_side = load_recognizer(threads=2).locator  # two one-thread runs at once
    one_core = load_recognizer(threads=1).locator      # one after the other
    assert side_by_side._pair is not None and one_core._pair is None
    for _ in range(3):  # the side thread is reused
        a, b = side_by_side.both(frame), one_core.both(frame)
        for x, y in zip(a, b):
            assert len(x) >= 3
            np.testing.assert_allclose(x.rboxes, y.rboxes, atol=1e-3)
            np.testing.assert_allclose(x.scores, y.scores, atol=1e-5)


def test_the_card_stock_pass_and_the_letterbox_share_one_shrink():
    from sueca.vision.onnx_backend import letterbox
    from sueca.vision.proposals import card_stock, shrunk

    frame = np.full((960, 1280, 3), (40, 90, 40), np.uint8)
    cv2.fillPoly(frame, [cv2.boxPoints(((600, 400), (84, 120), 20)).astype(np.int32)], (235, 235, 235))
    small = shrunk(frame)
    assert np.array_equal(letterbox(frame, (256, 320), small)[0], letterbox(frame, (256, 320))[0])
    assert np.array_equal(card_stock(frame, small), card_stock(frame))
    # a shrink of another size is not taken for the letterbox's (a portrait photo)
    tall = np.ascontiguousarray(frame.transpose(1, 0, 2))
    assert np.array_equal(letterbox(tall, (256, 320), shrunk(tall))[0], letterbox(tall, (256, 320))[0])


def test_a_small_networks_batch_split_over_its_sessions_gives_the_same_logits(monkeypatch):
    import sueca.vision.onnx_backend as ob

    monkeypatch.setattr(ob, "available_cores", lambda: 3)  # three parts, whatever this machine has
    split, whole = load_recognizer(), load_recognizer(threads=1)
    assert len(split.reader.sessions) == 3 and len(whole.reader.sessions) == 1
    rng = np.random.default_rng(4)
    for n in (1, 3, 4, 7, 8, 12, 25):  # under SPLIT_LEAST crops a batch runs whole
        crops = rng.integers(0, 255, (n, *split.config.crop.shape), np.uint8)
        for a, b in ((split.reader, whole.reader), (split.second, whole.second)):
            got = a(crops)
            assert got.shape[0] == n and np.array_equal(got, b(crops))
        views = rng.integers(0, 255, (n, 64, 64, 3), np.uint8)
        assert np.array_equal(split.outliner.net(views), whole.outliner.net(views))
    assert split.reader(np.zeros((0, *split.config.crop.shape), np.uint8)).shape[0] == 0
