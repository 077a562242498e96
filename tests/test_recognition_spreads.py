"""Second looks for cards the locator alone misses: under a fanned spread (``outliner.spreads``,
``vision/fans.py``) and close-ups larger than it learnt (``locator.zoom``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from sueca.vision import fans
from sueca.vision.detections import UNREADABLE
from sueca.vision.recognizer import default_model_dir, load_recognizer
from sueca.vision.still import OutlineMemory

TABLE = (40, 90, 40)


def spread(n: int, step: float, size=(640, 480)):
    """``n`` plain white cards, each laid over the last one ``step`` card widths to the right."""
    frame = np.full((size[1], size[0], 3), TABLE, np.uint8)
    quads = []
    for k in range(n):
        x0 = 100 + k * step * 80
        q = np.array([[x0, 150], [x0 + 80, 150], [x0 + 80, 262], [x0, 262]], np.float32)
        cv2.fillPoly(frame, [q.astype(np.int32)], (225, 228, 230))
        cv2.polylines(frame, [q.astype(np.int32)], True, (150, 150, 150), 1)
        quads.append(q)
    return frame, quads


def test_stock_beyond_only_where_cards_lie_under():
    frame, quads = spread(4, 0.25)
    # the top card lies at the right end: the others show past its left side (direction 1, -a)
    assert fans.stock_beyond(frame, quads[-1]) == [1]
    # a card in the middle has cards past both its left and right sides
    assert sorted(fans.stock_beyond(frame, quads[1])) == [0, 1]
    lone, (q,) = spread(1, 0.0)
    assert fans.stock_beyond(lone, q) == []


def test_trial_boxes_move_along_each_side():
    q = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    right, up = fans.trial_boxes(q, [0, 3], (0.5,))
    assert np.allclose(right[0], q + [30, 0]) and np.allclose(up[0], q - [0, 45])


class _NearReader:
    """Stands in for the recognizer: a trial outline reads its card where each corner lies
    within ``slack`` card widths of that card's own (the readers take about a tenth), and the
    outliner settles an outline on the card nearest it."""

    def __init__(self, quads, codes, slack=0.1, near=None):
        self.quads, self.codes, self.slack, self.near = quads, codes, slack, near

    def outliner(self, frame, quads):
        centres = np.asarray([t.mean(0) for t in self.quads])
        return np.stack([self.quads[int(np.argmin(np.linalg.norm(centres - q.mean(0), axis=1)))] for q in quads])

    def read_quads(self, frame, quads, exact=True, threshold=None, unwanted=frozenset()):
        codes, confs = [], []
        for q in quads:
            q = fans.clockwise(np.asarray(q, np.float32).reshape(4, 2))
            off = [np.abs(q - fans.clockwise(t)).max() / 80 for t in self.quads]
            k = int(np.argmin(off))
            codes.append(self.codes[k] if off[k] <= self.slack else UNREADABLE)
            # a trial within ``near`` of a card is read short of the threshold
            confs.append(0.999 if off[k] <= self.slack else 0.7 if self.near and off[k] <= self.near else 0.0)
        return codes, np.asarray(confs, np.float32)


def test_a_wide_spread_is_followed_from_its_top_card():
    # five cards laid 0.42 of a width apart: a trial at 0.3 is 0.12 off, too far for the readers
    frame, quads = spread(5, 0.42)
    codes = ["2C", "7H", "QS", "AD", "5S"]
    reader = _NearReader(quads, codes)
    top = quads[-1][None]
    _, found, _ = fans.follow_spreads(reader, frame, top, ["5S"], 0.98)
    assert sorted(found) == sorted(codes[:-1])
    _, found, _ = fans.follow_spreads(_NearReader(quads, codes, slack=0.02), frame, top, ["5S"], 0.98)
    assert found == []  # nothing guessed where no trial comes near a card
    old = fans.trial_boxes
    try:
        fans.trial_boxes = lambda q, d, steps=(0.16, 0.3): old(q, d, steps)  # the steps before 2026-12-06
        _, found, _ = fans.follow_spreads(reader, frame, top, ["5S"], 0.98)
    finally:
        fans.trial_boxes = old
    assert found == []


def test_a_trial_read_short_of_the_threshold_is_settled_and_read_again(monkeypatch):
    # cards 0.58 of a width apart: the 0.45 trial is 0.1 off, read unsure; settled, it reads
    frame, quads = spread(4, 0.58)
    codes = ["2C", "7H", "QS", "AD"]
    reader = _NearReader(quads, codes, slack=0.05, near=0.15)
    _, found, _ = fans.follow_spreads(reader, frame, quads[-1][None], ["AD"], 0.98)
    assert sorted(found) == sorted(codes[:-1])
    monkeypatch.setattr(fans, "SETTLE", 1.01)  # no second reading
    _, found, _ = fans.follow_spreads(reader, frame, quads[-1][None], ["AD"], 0.98)
    assert found == []


def test_unread_under_drops_only_the_unread_box_of_a_found_card():
    q = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    corners = np.stack([q, q + 2, q + 200])
    mask = fans.unread_under(corners, [UNREADABLE, "7H", UNREADABLE], np.stack([q + 1]))
    assert mask.tolist() == [True, False, False]


MODELS = default_model_dir()
needs_model = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file(), reason="no committed model")


@pytest.fixture(scope="module")
def rec():
    return load_recognizer()


def _fanned(angle: float, step: float, codes=("2C", "7H", "QS", "AD", "5S", "KH")):
    from test_recognition_model import make_table

    w = 120 * 0.7
    dx, dy = math.cos(math.radians(-angle)) * w * step, math.sin(math.radians(-angle)) * w * step
    return make_table([(c, 500 + k * dx, 450 + k * dy, angle) for k, c in enumerate(codes)], seed=int(angle) + 360)


@needs_model
def test_committed_models_follow_a_spread_and_guess_nothing(rec):
    assert rec.config.outliner.get("spreads")
    codes = ("2C", "7H", "QS", "AD", "5S", "KH")
    # four spreads (angle, step): how many a reader reads alone varies with the readers, so
    # the search is judged on all of them together
    n_alone, n_found = 0, 0
    for angle, step in ((0, 0.3), (30, 0.3), (0, 0.25), (-20, 0.35)):
        frame, _ = _fanned(angle, step)
        rec.config.outliner["spreads"] = False
        try:
            alone = [c for c in rec(frame, tiles=False).codes if c]  # the spread search's own gain
        finally:
            rec.config.outliner["spreads"] = True
        found = [c for c in rec(frame, tiles=False).codes if c]
        assert set(found) <= set(codes) and len(found) == len(set(found)), found  # no wrong card, none twice
        assert set(alone) <= set(found), (angle, alone, found)
        n_alone, n_found = n_alone + len(alone), n_found + len(found)
    assert n_found >= n_alone + 4 and n_found >= 18, (n_alone, n_found)


@needs_model
def test_not_on_video(rec, monkeypatch):
    frame, _ = _fanned(0, 0.3)

    def boom(*a, **k):
        raise AssertionError("spreads followed on a video frame")

    monkeypatch.setattr(fans, "follow_spreads", boom)
    rec(frame, memory=OutlineMemory())  # no error: each card was read on top when it was played
    with pytest.raises(AssertionError):
        rec(frame)


@needs_model
def test_close_up_cards_found_on_the_frame_shrunk(rec):
    """A phone's close-up: cards half the photo high, larger than the locator learnt."""
    from dataclasses import replace

    from test_recognition_model import make_table

    frame, _ = make_table([("7H", 1200, 1400, 5), ("KS", 2800, 1500, -20)], size=(4032, 3024), card_h=1400)
    assert rec.config.zoom_pass
    found = [c for c in rec(frame).codes if c]
    assert sorted(found) == ["7H", "KS"]
    saved = rec.config
    rec.config = replace(saved, zoom_pass=False, closeup=None)
    try:
        without = [c for c in rec(frame).codes if c]
        rec.config = replace(saved, zoom_pass=False)
        closeup_alone = [c for c in rec(frame).codes if c]
    finally:
        rec.config = saved
    assert "KS" not in without  # the measured miss this pass is for
    assert "KS" in closeup_alone  # the close-up pass (vision/closeup.py) finds it too
