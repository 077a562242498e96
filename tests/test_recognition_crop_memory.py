"""On video, corner crops that did not change keep their readings (``sueca.vision.crop_memory``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sueca.vision.crop_memory import CropMemory
from sueca.vision.detections import UNREADABLE
from sueca.vision.recognizer import Recognizer, RecognizerConfig
from sueca.vision.still import OutlineMemory
from test_recognition_second_look import TRUE, Locator, RedReader, SlowOutliner, table


class Counting:
    """Wraps a reader and counts the crops it is given."""

    def __init__(self, reader):
        self.reader, self.crops = reader, 0

    def __call__(self, crops):
        self.crops += len(crops)
        return self.reader(crops)


def red_card_recognizer(second_look=False, **outliner):
    cfg = RecognizerConfig(outliner={"onnx": "-", "second_look": second_look}, threshold=0.99,
                           second_reader={"onnx": "-", "temperature": 1.0})
    return Recognizer(Locator(), Counting(RedReader()), cfg, outliner=SlowOutliner(**outliner),
                      second=Counting(RedReader()))


def still_outliner(rec):
    """The outliner lands on the true outline every time (as a still card's does)."""
    rec.outliner.calls = 1
    return rec


def test_a_still_card_is_read_once_and_keeps_its_reading():
    frame = table()
    rec, mem = still_outliner(red_card_recognizer()), OutlineMemory()
    first = rec(frame, memory=mem)
    assert first.codes == ("7H",)
    read = (rec.reader.crops, rec.second.crops)
    assert min(read) > 0
    for _ in range(4):
        again = rec(frame, memory=mem)
        assert again.codes == first.codes
        np.testing.assert_allclose(again.confidence, first.confidence)
    assert (rec.reader.crops, rec.second.crops) == read
    assert mem.crops.hits > 0


def test_camera_noise_keeps_the_reading_but_a_new_mark_is_read_at_once():
    frame = table()
    rec, mem = still_outliner(red_card_recognizer()), OutlineMemory()
    rec(frame, memory=mem)
    read = rec.reader.crops
    rng = np.random.default_rng(1)
    noisy = np.clip(frame.astype(np.int16) + rng.integers(-3, 4, frame.shape), 0, 255).astype(np.uint8)
    assert rec(noisy, memory=mem).codes == ("7H",)
    assert rec.reader.crops == read
    # the red index painted over: the same outline, other pixels in its corners
    covered = frame.copy()
    covered[150:190, 270:305] = (235, 235, 235)
    covered[290:330, 335:370] = (235, 235, 235)
    assert rec(covered, memory=mem).codes == (UNREADABLE,)
    assert rec.reader.crops > read


@pytest.mark.parametrize("blur", [False, True])
def test_a_small_sharp_mark_changes_the_crops(blur):
    """A pip coming sharp out of motion blur changes few values, but by much."""
    memo = CropMemory()
    crops = np.full((2, 48, 36, 3), 230, np.uint8)
    cv2.circle(crops[0], (18, 24), 3, (40, 40, 200), -1)
    then = cv2.GaussianBlur(crops[0], (0, 0), 4) if blur else crops[0]
    was = crops.copy()
    was[0] = then
    assert memo.same(was, was)
    assert memo.same(was, crops) == (not blur)


def test_readings_are_made_afresh_after_max_age():
    frame = table()
    rec, mem = still_outliner(red_card_recognizer()), OutlineMemory()
    mem.crops.max_age = 3
    rec(frame, memory=mem)
    once = rec.reader.crops
    for _ in range(6):
        rec(frame, memory=mem)
    assert rec.reader.crops == 3 * once  # frames 0, 3 and 6 read (each reading serves 3 frames)


def test_the_memory_is_bounded_by_the_last_frame():
    memo = CropMemory()
    crops = np.zeros((2, 48, 36, 3), np.uint8)
    quads = [np.array([[x, 0], [x + 70, 0], [x + 70, 100], [x, 100]], np.float32) for x in range(0, 500, 10)]
    for q in quads:
        memo.store(q, crops, np.zeros((2, 53)), None)
    memo.next_frame()
    memo.next_frame()  # a frame that read nothing
    assert all(memo.lookup(q, crops) is None for q in quads)


def test_an_unread_card_lying_still_gets_its_second_look_once():
    frame = table()
    # this outliner's second look lands on a skewed outline again: nothing to read there
    off_again = TRUE + np.array([[30, -25, 0, 0, 0]], np.float32)
    rec, mem = red_card_recognizer(second_look=True, then=off_again), OutlineMemory()
    assert rec(frame, memory=mem).codes == (UNREADABLE,)
    calls = rec.outliner.calls
    assert calls == 3  # the outline, then two more passes of the second look
    for _ in range(3):
        assert rec(frame, memory=mem).codes == (UNREADABLE,)
    assert rec.outliner.calls == calls  # the outline kept, its crops unchanged: no second look again
    # a still image gets it every time
    rec(frame)
    assert rec.outliner.calls > calls


def test_a_candidate_read_twice_in_one_frame_is_one_reading():
    memo = CropMemory()
    quad = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    crops = np.full((2, 48, 36, 3), 200, np.uint8)
    memo.store(quad, crops, np.eye(2, 53), None)
    assert memo.lookup(quad, crops) is memo.reading(quad)  # the same frame: what was just read
    assert memo.lookup(quad, crops[:1]) is None             # other crops of that outline: read them
    memo.next_frame()
    kept = memo.lookup(quad, crops)
    assert kept is not None and kept.age == 1 and memo.lookup(quad, crops) is kept
