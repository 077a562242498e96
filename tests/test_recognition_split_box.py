"""A locator box over two overlapping cards: the card its outline left out is tried
(``vision/split_box.py``, ``outliner.split_box``)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from sueca.vision import split_box
from sueca.vision.onnx_backend import Located
from sueca.vision.readings import outline_iou
from sueca.vision.recognizer import default_model_dir, load_recognizer
from sueca.vision.still import OutlineMemory

pytestmark = pytest.mark.skipif(not (default_model_dir() / "recognizer.json").is_file(), reason="no committed model")


def _card(cx, cy, w=60, h=90):
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
                     [cx - w / 2, cy + h / 2]], np.float32)


def test_trials_go_past_the_box_centre_and_only_from_read_outlines_that_leave_part_of_it():
    read = _card(100, 100)
    box = _card(130, 100)  # the box half over the read card, half over another to its right
    trials = split_box.other_halves(box[None], read[None], ["7H"])
    assert [round(float(t.mean(0)[0])) for t in trials] == [145, 160, 175]
    assert all(outline_iou(t, read) < split_box.SEEN_IOU for t in trials)
    assert split_box.other_halves(box[None], read[None], [""]) == []  # the outline was not read
    assert split_box.other_halves(read[None], read[None], ["7H"]) == []  # the box is that card
    assert split_box.other_halves(_card(400, 100)[None], read[None], ["7H"]) == []  # elsewhere
    assert split_box.other_halves(_card(103, 100)[None], read[None], ["7H"]) == []  # a step too short


def _pair(rec, on):
    """Two overlapping cards of the committed test deck and one locator box halfway between
    them, as the locator draws over a card lying across another."""
    from test_recognition_model import make_table

    frame, corners = make_table([("9C", 600, 480, 0), ("3D", 655, 500, 0)])
    mid = ((np.asarray(corners[0]) + np.asarray(corners[1])) / 2).astype(np.float32)
    (cx, cy), (w, h), deg = cv2.minAreaRect(mid)
    box = cv2.boxPoints(((cx, cy), (w, h), deg)).astype(np.float32)
    located = Located(np.array([[cx, cy, w, h, np.deg2rad(deg)]], np.float32), box[None],
                      np.array([0.8], np.float32))
    rec.locate = lambda frame, faint=True: (located, np.zeros(1, bool))
    rec.config = replace(rec.config, outliner={**rec.config.outliner, "split_box": on})
    return frame, corners


def test_the_card_a_shared_box_left_out_is_read_on_a_still_image():
    rec = load_recognizer()
    assert rec.config.outliner.get("split_box") is True  # installed
    frame, corners = _pair(rec, False)
    alone = rec._detect(frame, None, None)
    assert alone.codes == ("3D",)  # the outliner settles the box on the card on top
    frame, corners = _pair(rec, True)
    both = rec._detect(frame, None, None)
    assert sorted(both.codes) == ["3D", "9C"]
    i = both.codes.index("9C")
    assert outline_iou(both.corners[i], np.asarray(corners[0], np.float32)) > 0.8
    assert both.confidence[i] >= rec.config.threshold


def test_not_on_video_nor_for_a_code_the_face_withdrew(monkeypatch):
    rec = load_recognizer()
    frame, _ = _pair(rec, True)
    video = rec._detect(frame, OutlineMemory(), rec.config.video_threshold)
    assert "9C" not in video.codes
    # the face-suit check ruled 9C out on this frame: the trial may not bring it back
    frame, corners = _pair(rec, True)
    rq = rec.read_quads
    calls = []

    def spy(frame, quads, **kw):
        calls.append(kw.get("unwanted", frozenset()))
        return rq(frame, quads, **kw)

    monkeypatch.setattr(rec, "read_quads", spy)
    found = split_box.split_box_look(rec, frame, rec.locate(frame)[0].corners,
                                     np.asarray(corners[1], np.float32)[None], ["3D"], 0.98, {"9C"})
    assert found[1] == [] and "9C" in calls[-1] and "3D" in calls[-1]


@pytest.mark.parametrize("value,ok", [(True, True), (False, True), ("all", True), ("yes", False), (1, True),
                                      (0.5, False), (None, False)])
def test_the_split_box_setting_is_checked_naming_the_file(tmp_path, value, ok):
    from test_recognition_shrunk import assert_outliner_setting

    assert_outliner_setting(tmp_path, "split_box", value, ok)


def test_all_takes_the_second_opinions_boxes_too(monkeypatch):
    rec = load_recognizer()
    frame, _ = _pair(rec, True)
    located, _ = rec.locate(frame)
    # the same box as a second opinion's (the mirrored pass, say): "all" looks at it, true does not
    rec.locate = lambda frame, faint=True: (located, np.ones(1, bool))
    got, halves = {}, split_box.other_halves
    for value in (True, "all"):
        rec.config = replace(rec.config, outliner={**rec.config.outliner, "split_box": value})
        seen = []
        monkeypatch.setattr(split_box, "other_halves", lambda b, c, k, seen=seen: seen.append(len(b)) or halves(b, c, k))
        rec._detect(frame, None, None)
        got[value] = seen
    assert got[True] == [0] and got["all"] == [1]
