"""The zoomed-out look by the locator's small-input copy (``locator.zoom`` with a network,
:func:`sueca.vision.proposals.small_look`): on every still image, on video only on demand."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from sueca.vision.onnx_backend import Located, rbox_corners
from sueca.vision.proposals import SMALL_MIN, shrunk, small_look
from sueca.vision.recognizer import Recognizer, RecognizerConfig, default_model_dir


class Fixed:
    """A locator that finds the given rotated boxes, as fractions of what it is shown."""

    def __init__(self, rows):
        self.rows, self.seen = np.asarray(rows, np.float32).reshape(-1, 5), []
        self.conf = 0.2

    def __call__(self, img, conf=None):
        self.seen.append(img.shape)
        h, w = img.shape[:2]
        rb = self.rows.copy()
        rb[:, [0, 2]] *= w
        rb[:, [1, 3]] *= h
        return Located(rb, rbox_corners(rb), np.full(len(rb), 0.9, np.float32))


class Unsure:
    def __call__(self, crops):
        out = np.zeros((len(crops), 53), np.float32)
        out[:, 52] = 5.0  # "no readable index"
        return out


def test_small_look_gives_frame_pixels_and_only_large_boxes():
    frame = np.zeros((960, 1280, 3), np.uint8)
    # a card half the frame high and one an overhead camera's size (0.12)
    loc = Fixed([[0.3, 0.5, 0.25, 0.5, 0.2], [0.8, 0.2, 0.06, 0.12, 0.0]])
    rb, sc = small_look(loc, frame, shrunk(frame))
    assert loc.seen == [(240, 320, 3)]  # cut from the frame already shrunk for the card stock pass
    assert rb.shape == (1, 5) and sc.tolist() == [pytest.approx(0.9)]
    assert rb[0].tolist() == pytest.approx([384, 480, 320, 480, 0.2], abs=1e-3)
    rb, _ = small_look(loc, frame, min_side=0.1)  # no shrunk frame: the frame itself
    assert loc.seen[-1] == (960, 1280, 3) and len(rb) == 2
    assert SMALL_MIN < 0.2  # a card a fifth of the frame high is the small look's


def _recognizer(main_rows, small_rows):
    cfg = RecognizerConfig(zoom_pass=True, zoom_net={"onnx": "locator_zoom.onnx", "imgsz": [96, 128]},
                           refine=False, threshold=0.99)
    return Recognizer(Fixed(main_rows), Unsure(), cfg, small_locator=Fixed(small_rows))


def test_still_images_always_take_the_small_look():
    frame = np.zeros((480, 640, 3), np.uint8)
    big = [0.7, 0.5, 0.3, 0.6, 0.0]
    rec = _recognizer([[0.2, 0.3, 0.06, 0.1, 0.0]], [big])
    located, added = rec.locate(frame)
    assert len(rec.small_locator.seen) == 1
    assert added.tolist() == [False, True]  # the close-up card the full pass missed
    assert located.rboxes[1, :4].tolist() == pytest.approx([448, 240, 192, 288], abs=1e-3)


def test_video_takes_it_only_where_nothing_or_a_large_card_was_found():
    frame = np.zeros((480, 640, 3), np.uint8)
    small_card = [0.2, 0.3, 0.06, 0.1, 0.0]
    rec = _recognizer([small_card], [[0.7, 0.5, 0.3, 0.6, 0.0]])
    rec.locate(frame, faint=False)
    assert rec.small_locator.seen == []  # an overhead camera's cards: not asked
    rec = _recognizer([], [[0.7, 0.5, 0.3, 0.6, 0.0]])
    located, added = rec.locate(frame, faint=False)
    assert len(rec.small_locator.seen) == 1 and added.tolist() == [True]


def test_without_its_network_the_look_is_the_locators_own_on_a_canvas():
    frame = np.zeros((480, 640, 3), np.uint8)
    rec = _recognizer([], [])
    rec.small_locator = None
    rec.locate(frame)
    assert rec.locator.seen == [(480, 640, 3)] * 2  # the frame, then the frame-sized canvas


def test_the_zoom_network_survives_the_model_file(tmp_path):
    d = json.loads((default_model_dir() / "recognizer.json").read_text())
    cfg = RecognizerConfig.load(default_model_dir())
    assert cfg.zoom_pass and cfg.zoom_net == {"onnx": "locator_zoom.onnx", "imgsz": [96, 128], "conf": 0.1}
    from sueca.vision.train_run import ZOOM_NET

    assert ZOOM_NET == cfg.zoom_net  # what the recipe writes is what is installed
    for zoom_net in (None, {"onnx": "other.onnx", "imgsz": [64, 96]}):
        (tmp_path / "recognizer.json").write_text(json.dumps({**d, **replace(cfg, zoom_net=zoom_net).to_dict()}))
        loaded = RecognizerConfig.load(tmp_path)
        assert loaded.zoom_pass and loaded.zoom_net == zoom_net
    assert json.loads((tmp_path / "recognizer.json").read_text())["locator"]["zoom"]["imgsz"] == [64, 96]


def test_the_model_card_names_the_small_copy():
    from sueca.vision.train_card import _second_opinions, _zoom_row

    cfg = RecognizerConfig.load(default_model_dir())
    row = _zoom_row(cfg, {"locator_zoom.onnx": 10485})
    assert row.startswith("| `locator_zoom.onnx` |") and "1x3x96x128" in row and "10485 KB" in row
    assert "copy at 96x128 on every still image" in _second_opinions(cfg)
    assert _zoom_row(replace(cfg, zoom_net=None), {}) == ""
    assert "shrunk three times" in _second_opinions(replace(cfg, zoom_net=None))


def test_a_large_photo_is_read_shrunk_and_answered_in_its_own_pixels():
    from test_recognition_model import make_table

    from sueca.vision.recognizer import MAX_SIDE, load_recognizer

    rec = load_recognizer()
    layout = [("7H", 950, 950, 5), ("KS", 2200, 1600, -20), ("2D", 3150, 950, 40)]
    frame, corners = make_table(layout, size=(4032, 3024), card_h=700)
    seen = []
    locate = rec.locate
    rec.locate = lambda f, *a, **k: (seen.append(f.shape), locate(f, *a, **k))[1]
    dets = rec(frame, tiles=False)  # the whole photo read once (not its tiles)
    assert seen == [(1200, 1600, 3)] and max(seen[0]) == MAX_SIDE
    assert sorted(c for c in dets.codes if c) == ["2D", "7H", "KS"]
    for (code, *_), true in zip(layout, corners):
        q = dets.corners[dets.codes.index(code)]
        assert np.abs(q.mean(axis=0) - np.asarray(true).mean(axis=0)).max() < 0.03 * 700, code
    assert dets.xyxy[:, 2].max() > 3000 and (dets.xyxy[:, 2] <= 4032).all()
    rec.max_side = None  # full size: the same cards
    full = rec(frame, tiles=False)
    assert sorted(c for c in full.codes if c) == ["2D", "7H", "KS"] and seen[-1] == (3024, 4032, 3)


def _red_card(rb):
    """A white card with red index corners (what ``RedReader`` reads as 7H) on a green cloth."""
    import cv2

    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    q = rbox_corners(np.asarray([rb], np.float32))[0]
    cv2.fillPoly(frame, [q.astype(np.int32)], (235, 235, 235))
    (x0, y0), (x1, y1) = q.min(axis=0).astype(int), q.max(axis=0).astype(int)
    pw, ph = int(0.3 * rb[2]), int(0.25 * rb[3])
    cv2.rectangle(frame, (x0, y0), (x0 + pw, y0 + ph), (0, 0, 220), -1)
    cv2.rectangle(frame, (x1 - pw, y1 - ph), (x1, y1), (0, 0, 220), -1)
    return frame


class MirrorOnly(Fixed):
    """Finds its boxes only on every second call: the mirrored frame's pass."""

    def __call__(self, img, conf=None):
        found = super().__call__(img, conf)
        return found if len(self.seen) % 2 == 0 else Located(found.rboxes[:0], found.corners[:0], found.scores[:0])


@pytest.mark.parametrize("height, second_opinion, read", [(240, "small", ("7H",)), (240, "flip", ("7H",)),
                                                          (80, "flip", ())])
def test_a_large_card_only_a_second_opinion_found_gets_a_second_look(height, second_opinion, read):
    """A close-up's card is boxed by a second opinion alone (the small look, the mirrored
    pass), coarsely; the outliner's first landing misses its index, a second look finds it.
    A small added box gets none (most are not cards)."""
    from test_recognition_second_look import RedReader, SlowOutliner

    rb = [320.0, 240.0, 0.7 * height, float(height), 0.0]  # in the middle: the mirror image is the same
    off = np.asarray([rb], np.float32) + np.array([[0.2 * rb[2], 0.17 * height, 0, 0, 0]], np.float32)
    box = [[rb[0] / 640, rb[1] / 480, rb[2] / 640, rb[3] / 480, 0.0]]
    flip = second_opinion == "flip"
    cfg = RecognizerConfig(outliner={"onnx": "-", "second_look": True}, zoom_pass=not flip, flip_pass=flip,
                           zoom_net=None if flip else {"onnx": "-", "imgsz": [96, 128]}, refine=False)
    rec = Recognizer(MirrorOnly(box) if flip else Fixed([]), RedReader(), cfg,
                     outliner=SlowOutliner(first=off, then=np.asarray([rb], np.float32)),
                     small_locator=None if flip else Fixed(box))
    assert (height >= SMALL_MIN * 480) == (read != ())
    assert rec(_red_card(rb)).codes == read
    assert rec.outliner.calls == (3 if read else 1)  # the first landing, then the second look's two


def test_the_small_copy_takes_its_own_score_threshold(tmp_path):
    import shutil

    from sueca.vision.recognizer import load_recognizer

    rec = load_recognizer()
    assert rec.small_locator.conf == pytest.approx(0.1) and rec.locator.conf == pytest.approx(0.2)
    for f in default_model_dir().iterdir():
        if f.suffix in (".onnx", ".json"):
            shutil.copyfile(f, tmp_path / f.name)
    d = json.loads((tmp_path / "recognizer.json").read_text())
    del d["locator"]["zoom"]["conf"]
    (tmp_path / "recognizer.json").write_text(json.dumps(d))
    assert load_recognizer(tmp_path).small_locator.conf == pytest.approx(0.2)  # the locator's, by default
