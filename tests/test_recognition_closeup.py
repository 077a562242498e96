"""The close-up pass (``locator.closeup``, :mod:`sueca.vision.closeup`): a still image with
large cards is read again shrunk to the overhead camera's card size."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from sueca.vision.closeup import closeup_pass, shrunk_canvas
from sueca.vision.detections import UNREADABLE, CardDetections
from sueca.vision.recognizer import RecognizerConfig, default_model_dir, load_recognizer
from sueca.vision.rectify import longest_side


def _dets(quads, codes, conf=0.99):
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    xyxy = np.concatenate([q.min(axis=1), q.max(axis=1)], axis=1).astype(np.float32)
    c = np.full(len(codes), conf, np.float32)
    return CardDetections(xyxy, tuple(codes), c, c.copy(), q, np.ones(len(codes), bool))


def _quad(x0, y0, w, h):
    return [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]


class Canvas:
    """A recognizer whose own pass on the canvas finds ``found`` (canvas pixels, codes) and
    whose full-frame readers read ``full`` (a code per outline asked); records what it saw."""

    def __init__(self, found, full, face=None):
        self.found, self.full, self.face = found, full, face
        self.config = RecognizerConfig(threshold=0.98)
        self.canvases, self.asked = [], []

    def _detect(self, frame, memory, threshold):
        assert memory is None and threshold >= 0.98
        self.canvases.append(frame)
        quads, codes = self.found
        return _dets(quads, codes, 0.985) if codes else CardDetections.empty()

    def read_quads(self, frame, quads, exact=True, threshold=None, **kw):
        self.asked.append([np.asarray(q) for q in quads])
        return list(self.full[:len(quads)]), np.full(len(quads), 0.99, np.float32)


class Refuses:
    def _detect(self, *a):
        raise AssertionError("a small-card image must not be read twice")


def test_the_canvas_holds_the_frame_shrunk_in_its_middle():
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[:, :400] = (200, 10, 10)  # a third blue, the rest black: the median is black
    canvas, (x0, y0), (sw, sh) = shrunk_canvas(frame, 0.2)
    assert canvas.shape == frame.shape and (sw, sh) == (256, 192) and (x0, y0) == (512, 384)
    assert canvas[y0 + 100, x0 + 10].tolist() == [200, 10, 10] and canvas[y0 + 100, x0 + 200].tolist() == [0, 0, 0]
    assert canvas[10, 10].tolist() == [0, 0, 0]  # the frame's median colour around it
    assert longest_side(np.asarray([_quad(0, 0, 30, 50)], np.float32)).tolist() == [50.0]


def test_small_cards_are_left_alone():
    frame = np.zeros((960, 1280, 3), np.uint8)
    dets = _dets([_quad(100, 100, 70, 100)], ["7H"])  # 100 px: the overhead camera's card
    assert closeup_pass(Refuses(), frame, dets, None, trigger=0.28, target=0.13) is dets
    assert len(closeup_pass(Refuses(), frame, CardDetections.empty(), None, 0.28, 0.13)) == 0


def test_a_large_cards_outline_comes_back_in_frame_pixels_and_is_read_there():
    frame = np.zeros((960, 1280, 3), np.uint8)
    # the first pass boxed part of a large card (480 px long: half the short side), unread
    dets = _dets([_quad(240, 150, 300, 480)], [UNREADABLE], 0.4)
    k = 0.13 / 0.5
    x0, y0 = (1280 - round(1280 * k)) // 2, (960 - round(960 * k)) // 2
    # on the canvas the whole card, 80x120 there: about 307x461 in the frame, over the part-box
    card = _quad(x0 + 60, y0 + 40, 80, 120)
    rec = Canvas(([card], [UNREADABLE]), ["QS"])
    out = closeup_pass(rec, frame, dets, None, trigger=0.28, target=0.13)
    assert len(rec.canvases) == 1 and rec.canvases[0].shape == frame.shape
    assert out.codes == ("QS",)  # the unread part-box is the same card, now read: it goes
    gx, gy = 1280 / round(1280 * k), 960 / round(960 * k)
    want = (np.asarray(_quad(60, 40, 80, 120), np.float32) + 0.5) * [gx, gy] - 0.5
    assert out.corners[0] == pytest.approx(want, abs=1e-3)
    assert rec.asked[0][0][0] == pytest.approx(want, abs=1e-3)  # read from the full frame there


def test_the_canvas_reading_counts_where_the_full_frame_reads_nothing_but_never_twice():
    frame = np.zeros((960, 1280, 3), np.uint8)
    dets = _dets([_quad(100, 100, 300, 480), _quad(800, 300, 300, 440)], ["7H", UNREADABLE])
    k = 0.13 / 0.5
    x0, y0 = (1280 - round(1280 * k)) // 2, (960 - round(960 * k)) // 2
    cards = [_quad(x0 + 20, y0 + 20, 80, 120), _quad(x0 + 150, y0 + 20, 70, 110), _quad(x0 + 250, y0 + 60, 60, 90)]
    # the first is the 7H already read; the second reads only on the canvas; the third nowhere
    rec = Canvas((cards, ["7H", "2C", UNREADABLE]), ["7H", UNREADABLE, UNREADABLE])
    out = closeup_pass(rec, frame, dets, None, 0.28, 0.13)
    assert sorted(c for c in out.codes if c) == ["2C", "7H"] and out.codes.count("7H") == 1
    assert len(out) == 3  # the 7H, the first pass's unread box (on no added card), the 2C


def test_the_face_withdraws_a_full_frame_reading_it_rules_out():
    class Face:
        def check(self, frame, corners, codes, candidates=None):
            return np.asarray([c == "QS" for c in codes], bool)

    frame = np.zeros((960, 1280, 3), np.uint8)
    dets = _dets([_quad(300, 200, 300, 480)], [UNREADABLE], 0.4)
    k = 0.13 / 0.5
    x0, y0 = (1280 - round(1280 * k)) // 2, (960 - round(960 * k)) // 2
    rec = Canvas(([_quad(x0 + 60, y0 + 40, 80, 120)], [UNREADABLE]), ["QS"], face=Face())
    assert closeup_pass(rec, frame, dets, None, 0.28, 0.13).codes == (UNREADABLE,)


def test_the_config_keeps_it_and_names_a_bad_one(tmp_path):
    model = tmp_path / "m"
    shutil.copytree(default_model_dir(), model, ignore=shutil.ignore_patterns("*.pt", "*.png"))
    cfg = RecognizerConfig.load(model)
    assert cfg.closeup == {"trigger": 0.28, "target": 0.13}  # the installed model's
    from sueca.vision.train_run import CLOSEUP

    assert CLOSEUP == cfg.closeup  # what the recipe writes is what is installed
    assert RecognizerConfig.load(model).to_dict()["locator"]["closeup"] == cfg.closeup
    d = json.loads((model / "recognizer.json").read_text())
    d["locator"]["closeup"] = {"trigger": 0.1, "target": 0.13}
    (model / "recognizer.json").write_text(json.dumps(d))
    with pytest.raises(ValueError, match=r"recognizer.json: locator.closeup needs 0 < target < trigger"):
        RecognizerConfig.load(model)
    d["locator"]["closeup"] = {"trigger": 0.3}
    (model / "recognizer.json").write_text(json.dumps(d))
    with pytest.raises(ValueError, match="locator.closeup must be"):
        RecognizerConfig.load(model)


@pytest.fixture(scope="module")
def rec():
    return load_recognizer()


def _close_ups(n=10, seed0=4_310_000):
    from sueca.datasets.scene import render_scene

    return [render_scene(seed0 + i, (1280, 960), "test", card_frac=(0.45, 0.7), layout="scatter")
            for i in range(n)]


def _score(recognizer, scenes):
    from sueca.vision.train_eval import match

    right = wrong = 0
    for sc in scenes:
        d = recognizer(sc.image)
        pairs = dict(match(d, sc.cards))
        for i, code in enumerate(d.codes):
            if code == UNREADABLE:
                continue
            truth = sc.cards[pairs[i]] if i in pairs else None
            ok = truth is not None and truth.face_up and truth.code == code
            right, wrong = right + ok, wrong + (not ok)
    return right, wrong


def test_close_ups_read_more_cards_with_it_and_no_wrong_one(rec):
    scenes = _close_ups()
    plain = load_recognizer()
    plain.config = replace(plain.config, closeup=None)
    with_it, without = _score(rec, scenes), _score(plain, scenes)
    assert with_it[1] == without[1] == 0
    assert with_it[0] > without[0]


def test_video_never_takes_it(rec):
    from sueca.vision.still import OutlineMemory

    sc = _close_ups(1, 4_310_003)[0]
    calls = []
    real = rec._detect

    def counting(frame, memory, threshold, **kw):
        calls.append(memory is None)
        return real(frame, memory, threshold, **kw)

    rec._detect = counting
    try:
        rec(sc.image, memory=OutlineMemory(), threshold=rec.config.video_threshold)
        assert calls == [False]
        rec(sc.image)
    finally:
        del rec._detect
    assert calls[1:] and all(calls[1:])
