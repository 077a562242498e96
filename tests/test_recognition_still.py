"""Still cards keep their outline between video frames (``sueca.vision.still``)."""

from __future__ import annotations

import numpy as np
import pytest

from sueca.vision.onnx_backend import Located
from sueca.vision.recognizer import Recognizer, RecognizerConfig
from sueca.vision.still import OutlineMemory


def table_with_cards(centres):
    import cv2

    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    quads = []
    for cx, cy in centres:
        q = cv2.boxPoints(((cx, cy), (70, 100), 10)).astype(np.float32)
        cv2.fillPoly(frame, [q.astype(np.int32)], (235, 235, 235))
        quads.append(q)
    return frame, quads


class BoxLocator:
    """Finds exactly the given cards, with the locator's usual jitter."""

    def __init__(self, centres, jitter=1.0, seed=0):
        self.centres, self.jitter = centres, jitter
        self.rng = np.random.default_rng(seed)

    def __call__(self, frame):
        from sueca.vision.onnx_backend import rbox_corners

        rb = np.array([[cx + self.rng.normal(0, self.jitter), cy + self.rng.normal(0, self.jitter), 75, 95,
                        np.deg2rad(12)] for cx, cy in self.centres], np.float32)
        return Located(rb, rbox_corners(rb), np.full(len(rb), 0.9, np.float32))


class CountingReader:
    def __init__(self):
        self.crops = 0

    def __call__(self, crops):
        self.crops += len(crops)
        out = np.zeros((len(crops), 53), np.float32)
        out[:, 52] = 5.0  # "no readable index": these plain cards have none
        return out


def recognizer(centres, **kw):
    return Recognizer(BoxLocator(centres, **kw), CountingReader(), RecognizerConfig())


def test_a_card_lying_still_keeps_its_outline_and_its_unchanged_crops_are_not_read_again():
    centres = [(200, 200), (420, 260)]
    frame, _ = table_with_cards(centres)
    rec, mem = recognizer(centres), OutlineMemory()
    first = rec(frame, memory=mem)
    assert (mem.refined, mem.reused) == (2, 0)
    read_once = rec.reader.crops
    for _ in range(5):
        again = rec(frame, memory=mem)
        np.testing.assert_allclose(again.corners, first.corners)  # the outline found the first time
    assert (mem.refined, mem.reused) == (2, 10)
    assert rec.reader.crops == read_once  # the same pixels at the same place: read once
    # without the memory (a still image) every call reads
    rec(frame)
    assert rec.reader.crops == 2 * read_once


def test_a_moved_or_covered_card_is_outlined_again():
    centres = [(200, 200), (420, 260)]
    frame, _ = table_with_cards(centres)
    rec, mem = recognizer(centres), OutlineMemory()
    rec(frame, memory=mem)
    covered = frame.copy()
    covered[150:260, 150:260] = (60, 120, 200)  # a hand over the first card
    rec(covered, memory=mem)
    assert (mem.refined, mem.reused) == (3, 1)
    moved_centres = [(200, 200), (440, 260)]  # the second card slid 20 px
    moved, _ = table_with_cards(moved_centres)
    rec.locator = BoxLocator(moved_centres)
    rec(moved, memory=mem)
    assert mem.refined == 5  # both again: the first was covered last time, the second moved


def test_outlines_are_found_afresh_after_max_age():
    centres = [(300, 240)]
    frame, _ = table_with_cards(centres)
    rec, mem = recognizer(centres), OutlineMemory(max_age=3)
    for _ in range(8):
        rec(frame, memory=mem)
    assert (mem.refined, mem.reused) == (2, 6)  # refined at frames 0 and 4


def test_an_empty_frame_forgets_the_outlines():
    centres = [(300, 240)]
    frame, _ = table_with_cards(centres)
    rec, mem = recognizer(centres), OutlineMemory()
    rec(frame, memory=mem)
    rec.locator = BoxLocator([])
    assert len(rec(frame, memory=mem)) == 0
    rec.locator = BoxLocator(centres)
    rec(frame, memory=mem)
    assert (mem.refined, mem.reused) == (2, 0)


@pytest.mark.parametrize("still", [True, False])
def test_pipeline_uses_the_memory_only_for_a_recognizer(still):
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline

    centres = [(300, 240)]
    rec = recognizer(centres)
    pipe = Pipeline([], rec, Calibration.propose(640, 480), still_outlines=still)
    assert (pipe.outline_memory is not None) == still
    assert Pipeline([], lambda image: None, Calibration.propose(640, 480)).outline_memory is None


class SureReader:
    """Reads every corner as the ace of spades with probability ``p``."""

    def __init__(self, p):
        self.p = p

    def __call__(self, crops):
        out = np.full((len(crops), 53), np.log((1 - self.p) / 52), np.float32)
        out[:, 0] = np.log(self.p)
        return out


def test_video_frames_are_read_with_the_video_threshold():
    from sueca.hardware.sources import Frame
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline

    centres = [(300, 240)]
    frame, _ = table_with_cards(centres)
    cfg = RecognizerConfig(threshold=0.97, video_threshold=0.9)
    rec = Recognizer(BoxLocator(centres), SureReader(0.93), cfg)
    assert rec(frame).codes == ("",)                       # one image: not sure enough
    assert rec(frame, threshold=cfg.video_threshold).codes == ("AS",)
    seen = []
    pipe = Pipeline([Frame(frame, t=0.1 * k, index=k) for k in range(3)], rec, Calibration.propose(640, 480),
                    on_frame=lambda image, dets, index, t: seen.append(dets.codes))
    pipe.run()
    assert seen == [("AS",)] * 3                          # a video frame's reading is a vote


def test_video_threshold_round_trips_and_defaults_to_the_image_threshold(tmp_path):
    import json

    cfg = RecognizerConfig(threshold=0.97, video_threshold=0.9)
    (tmp_path / "recognizer.json").write_text(json.dumps(cfg.to_dict()))
    assert RecognizerConfig.load(tmp_path).video_threshold == 0.9
    d = cfg.to_dict()
    del d["reader"]["video_threshold"]
    (tmp_path / "recognizer.json").write_text(json.dumps(d))
    loaded = RecognizerConfig.load(tmp_path)
    assert loaded.video_threshold is None
    rec = Recognizer(BoxLocator([(300, 240)]), SureReader(0.93), loaded)
    frame, _ = table_with_cards([(300, 240)])
    assert rec(frame, threshold=loaded.video_threshold).codes == ("",)  # None: the model's own threshold
