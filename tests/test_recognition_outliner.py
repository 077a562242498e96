"""The learned outline stage: view geometry, plumbing with an exact net, the committed model."""

from __future__ import annotations

import importlib.util

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sueca.vision.outliner import Outliner, View
from sueca.vision.rectify import clockwise
from sueca.vision.recognizer import RecognizerConfig, default_model_dir, load_recognizer

MODELS = default_model_dir()


def _card(cx, cy, angle, w=70.0, h=100.0):
    return clockwise(cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32))


@settings(max_examples=40, deadline=None)
@given(st.floats(100, 500), st.floats(100, 400), st.floats(-180, 180), st.floats(40, 160), st.floats(0.5, 1.0))
def test_view_maps_points_both_ways_and_puts_the_long_side_upright(cx, cy, angle, long_side, aspect):
    quad = cv2.boxPoints(((cx, cy), (long_side * aspect, long_side), angle)).astype(np.float32)
    v = View.around(quad, 64, 1.7)
    assert np.allclose(v.to_image(v.to_view(quad)), quad, atol=1e-2)
    xy = v.to_view(quad)
    # the box's long side runs along the view's y axis and spans 1/reach of the view
    assert np.ptp(xy[:, 1]) == pytest.approx(2 / 1.7, rel=1e-3)
    assert np.ptp(xy[:, 0]) == pytest.approx(2 * aspect / 1.7, rel=1e-3)
    # no mirror: clockwise stays clockwise
    assert np.allclose(clockwise(xy.astype(np.float32)), xy.astype(np.float32))


def test_view_cut_shows_the_card_where_the_view_says_it_is():
    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    card = _card(300, 220, 27)
    cv2.fillPoly(frame, [card.astype(np.int32)], (235, 235, 235))
    rough = _card(310, 212, 40, 80, 90)
    v = View.around(rough, 64, 1.7)
    cut = v.cut(frame)
    assert cut.shape == (64, 64, 3)
    inside = v.to_view(card.mean(axis=0, keepdims=True))[0]
    px = ((inside + 1) * 32).astype(int)
    assert cut[px[1], px[0]].min() > 200  # the card's centre is card stock in the view
    assert cut[1, 1].max() < 120  # a view corner is table


def test_outliner_plumbing_returns_the_card_when_the_net_is_exact():
    """With a net that answers the true corners, rough boxes anywhere near come back as the card."""
    frame = np.zeros((480, 640, 3), np.uint8)
    card = _card(320, 240, -33)

    class Exact:
        def __init__(self):
            self.views: list[View] = []

        def __call__(self, cuts):
            return np.stack([v.to_view(card).reshape(8) for v in self.views[-len(cuts):]])

    net = Exact()
    out = Outliner(net, passes=2)
    orig = out.views

    def spy(frame, quads):
        views, cuts = orig(frame, quads)
        net.views += views
        return views, cuts

    out.views = spy
    roughs = np.stack([_card(330, 230, -10, 85, 85), _card(310, 250, -50, 60, 110)])
    got = out(frame, roughs)
    for q in got:
        d = min(np.abs(np.roll(q, k, axis=0) - card).max() for k in range(4))
        assert d < 0.05
    assert out(frame, np.zeros((0, 4, 2), np.float32)).shape == (0, 4, 2)


def test_config_keeps_the_outliner_entry(tmp_path):
    cfg = RecognizerConfig(outliner={"onnx": "o.onnx", "pt": "o.pt", "size": 64, "reach": 1.7, "passes": 2})
    import json

    (tmp_path / "recognizer.json").write_text(json.dumps(cfg.to_dict()))
    assert RecognizerConfig.load(tmp_path).outliner == cfg.outliner
    (tmp_path / "recognizer.json").write_text(json.dumps(RecognizerConfig().to_dict()))
    assert RecognizerConfig.load(tmp_path).outliner is None


committed = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file()
                               or not RecognizerConfig.load(MODELS).outliner, reason="no committed outliner")


@committed
def test_committed_outliner_brings_rough_boxes_onto_the_cards():
    """On validation scenes (training decks, unseen seeds) the outlines beat the locator's boxes."""
    from sueca.vision.train_data import is_target, render
    from sueca.vision.train_eval import _poly_iou

    rec = load_recognizer()
    before, after = [], []
    for seed in range(500_000, 500_012):
        scene = render(seed, (1280, 960), "train")
        located = rec.locator(scene.image)
        if len(located) == 0:
            continue
        outlined = rec.outliner(scene.image, located.corners)
        for card in scene.cards:
            if not is_target(card):
                continue
            ious = [_poly_iou(q, card.corners) for q in located.corners]
            i = int(np.argmax(ious))
            if ious[i] < 0.3:
                continue
            before.append(ious[i])
            after.append(_poly_iou(outlined[i], card.corners))
    assert len(before) >= 30
    assert np.median(after) > np.median(before) + 0.03
    assert np.mean(np.asarray(after) > 0.85) > np.mean(np.asarray(before) > 0.85)


needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="parity needs torch")


@committed
@needs_torch
def test_outliner_parity_onnx_vs_torch():
    from sueca.vision.onnx_backend import OnnxOutliner
    from sueca.vision.torch_backend import TorchOutliner

    cfg = RecognizerConfig.load(MODELS)
    rng = np.random.default_rng(0)
    views = rng.integers(0, 255, (5, 64, 64, 3), dtype=np.uint8)
    a = OnnxOutliner(MODELS / cfg.outliner["onnx"])(views)
    b = TorchOutliner(MODELS / cfg.outliner["pt"])(views)
    assert a.shape == (5, 8)
    assert np.abs(a - b).max() < 1e-3
