"""The locator's second opinions (``RecognizerConfig.flip_pass``/``stock_pass``, ``Recognizer.locate``)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from sueca.vision.detections import UNREADABLE
from sueca.vision.onnx_backend import Located
from sueca.vision.recognizer import Recognizer, RecognizerConfig
from sueca.vision.train_eval import _poly_iou

CARD = (70, 100)


def table(cards):
    """A green table with white cards at (cx, cy, degrees); their true outlines."""
    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    quads = []
    for cx, cy, deg in cards:
        q = cv2.boxPoints(((cx, cy), CARD, deg)).astype(np.float32)
        cv2.fillPoly(frame, [np.round(q).astype(np.int32)], (235, 235, 235))
        quads.append(q)
    return frame, quads


class LeftSideLocator:
    """A classical locator (white blobs) that, like a tired model, misses every card
    whose centre lies right of 60% of the width of what it is shown."""

    def __call__(self, frame):
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        contours, _ = cv2.findContours((grey > 200).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        rows = []
        for c in contours:
            (cx, cy), (w, h), deg = cv2.minAreaRect(c)
            if cx < 0.6 * frame.shape[1]:
                rows.append([cx, cy, w, h, np.deg2rad(deg)])
        from sueca.vision.onnx_backend import rbox_corners

        rb = np.asarray(rows, np.float32).reshape(-1, 5)
        return Located(rb, rbox_corners(rb), np.full(len(rb), 0.8, np.float32))


class SureReader:
    """Reads every corner as 7H with probability ``p``."""

    def __init__(self, p):
        self.p = p

    def __call__(self, crops):
        out = np.full((len(crops), 53), np.log((1 - self.p) / 52), np.float32)
        out[:, 19] = np.log(self.p)  # 7H
        return out


def recognizer(flip, p=0.999, threshold=0.99, stock=False, locator=None):
    cfg = RecognizerConfig(flip_pass=flip, stock_pass=stock, threshold=threshold, refine=False)
    return Recognizer(locator or LeftSideLocator(), SureReader(p), cfg)


class BlindLocator:
    def __call__(self, frame):
        return Located(np.zeros((0, 5), np.float32), np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32))


@pytest.mark.parametrize("deg", [0, 17, 62])
def test_a_card_only_the_mirrored_pass_finds_is_added_where_it_lies(deg):
    frame, quads = table([(150, 200, 30), (470, 260, deg)])
    plain, added = recognizer(False).locate(frame)
    assert len(plain) == 1 and not added.any()
    both, added = recognizer(True).locate(frame)
    assert len(both) == 2 and added.tolist() == [False, True]
    assert _poly_iou(both.corners[1], quads[1]) > 0.9  # mirrored back onto the card, turned the right way


def test_a_card_both_passes_find_is_not_added_twice():
    frame, quads = table([(150, 200, 30), (300, 330, 75)])  # the second is found both ways
    located, added = recognizer(True).locate(frame)
    assert len(located) == 2 and not added.any()


def test_an_added_card_is_read_only_at_the_single_image_threshold():
    frame, _ = table([(470, 260, 20)])
    assert len(recognizer(False)(frame)) == 0  # the first pass alone never sees it
    sure = recognizer(True, p=0.999)
    dets = sure(frame, threshold=0.5)
    assert dets.codes == ("7H",)
    unsure = recognizer(True, p=0.95)
    assert len(unsure(frame, threshold=0.5)) == 0  # a video vote would take 0.95; not here
    assert len(unsure(frame)) == 0


def test_an_added_card_that_repeats_a_located_card_is_dropped():
    frame, _ = table([(150, 200, 20), (470, 260, 20)])
    dets = recognizer(True, p=0.999)(frame)  # the reader reads 7H everywhere
    assert dets.codes == ("7H",) and dets.xyxy[0, 0] < 320  # the locator's own card stays


def test_a_lone_card_the_locator_misses_is_found_as_card_stock():
    frame, quads = table([(420, 300, 35)])
    assert len(recognizer(False, locator=BlindLocator())(frame)) == 0
    rec = recognizer(False, stock=True, locator=BlindLocator())
    located, added = rec.locate(frame)
    assert added.tolist() == [True] and _poly_iou(located.corners[0], quads[0]) > 0.85
    dets = rec(frame, threshold=0.5)
    assert dets.codes == ("7H",) and dets.locate_confidence[0] > 0.99
    assert len(recognizer(False, p=0.95, stock=True, locator=BlindLocator())(frame, threshold=0.5)) == 0


def test_card_stock_is_not_proposed_over_a_located_card():
    frame, _ = table([(150, 200, 30)])
    located, added = recognizer(False, stock=True).locate(frame)
    assert len(located) == 1 and not added.any()


def test_a_first_pass_card_keeps_the_callers_threshold():
    frame, _ = table([(150, 200, 20)])
    dets = recognizer(True, p=0.95)(frame, threshold=0.5)
    assert dets.codes == ("7H",)


def test_the_second_opinion_settings_survive_the_model_file(tmp_path):
    import json

    from sueca.vision.recognizer import default_model_dir

    d = json.loads((default_model_dir() / "recognizer.json").read_text())
    for flip, stock in [(True, False), (False, True)]:
        cfg = replace(RecognizerConfig.load(default_model_dir()), flip_pass=flip, stock_pass=stock)
        (tmp_path / "recognizer.json").write_text(json.dumps({**d, **cfg.to_dict()}))
        loaded = RecognizerConfig.load(tmp_path)
        assert (loaded.flip_pass, loaded.stock_pass) == (flip, stock)
    d["locator"].pop("flip", None)
    d["locator"].pop("stock", None)
    (tmp_path / "recognizer.json").write_text(json.dumps(d))
    loaded = RecognizerConfig.load(tmp_path)
    assert not loaded.flip_pass and not loaded.stock_pass  # both off unless the model asks


class CountingReader(SureReader):
    calls = 0

    def __call__(self, crops):
        self.calls += 1
        return super().__call__(crops)


def test_a_refused_white_patch_is_not_read_again_while_it_lies_unchanged():
    from sueca.vision.still import OutlineMemory

    frame, _ = table([(420, 300, 35)])
    reader = CountingReader(0.95)  # never sure enough for a second opinion's box
    rec = Recognizer(BlindLocator(), reader, RecognizerConfig(stock_pass=True, threshold=0.99, refine=False))
    memory = OutlineMemory()
    assert len(rec(frame, memory=memory, threshold=0.5)) == 0
    first = reader.calls
    assert first > 0
    for _ in range(memory.refused.max_age):
        assert len(rec(frame, memory=memory, threshold=0.5)) == 0
    assert reader.calls == first and memory.refused.skipped == memory.refused.max_age
    rec(frame, memory=memory, threshold=0.5)  # too old: read again
    assert reader.calls > first
    # without the memory every frame reads it
    calls = reader.calls
    rec(frame, threshold=0.5)
    assert reader.calls > calls


@pytest.mark.parametrize("mark", ["letter", "pip"])
def test_a_refused_patch_that_changes_is_read_at_once(mark):
    from sueca.vision.still import OutlineMemory

    frame, quads = table([(420, 300, 35)])
    reader = CountingReader(0.95)
    rec = Recognizer(BlindLocator(), reader, RecognizerConfig(stock_pass=True, threshold=0.99, refine=False))
    memory = OutlineMemory()
    rec(frame, memory=memory)
    calls = reader.calls
    printed = frame.copy()
    if mark == "letter":
        cv2.putText(printed, "A", (400, 310), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (30, 30, 200), 4)
    else:  # small pips coming sharp where the indices are: few pixels change, but by much
        q = quads[0]
        for corner in q:
            x, y = corner + 0.15 * (q.mean(axis=0) - corner)
            cv2.circle(printed, (int(x), int(y)), 3, (30, 30, 200), -1)
    rec(printed, memory=memory)
    assert memory.refused.skipped == 0
    assert reader.calls > calls  # its corner crops changed: read again (sueca.vision.crop_memory)


def test_a_patch_the_readers_read_is_never_skipped():
    from sueca.vision.still import OutlineMemory

    frame, _ = table([(420, 300, 35)])
    rec = Recognizer(BlindLocator(), SureReader(0.999),
                     RecognizerConfig(stock_pass=True, threshold=0.99, refine=False))
    memory = OutlineMemory()
    for _ in range(3):
        assert rec(frame, memory=memory).codes == ("7H",)
    assert memory.refused.skipped == 0
