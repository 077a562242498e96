"""A live source read at fewer frames a second than the referee needs is flagged as slow."""

from __future__ import annotations

import logging

from sueca.hardware.files import FolderSource, VideoFileSource
from sueca.hardware.live import LiveSource
from sueca.hardware.sources import FrameSourceStatus
from sueca.vision.geometry import Calibration
from sueca.vision.pipeline import MIN_LIVE_FPS, SLOW_AFTER_S, Pipeline


class Source:
    """Stands in for a frame source: its kind and the rate it reports."""

    def __init__(self, live: bool, fps: float, connected: bool = True) -> None:
        self.live = live
        self.status = FrameSourceStatus(spec="cam", connected=connected, fps=fps)

    def __iter__(self):
        return iter(())


def pipeline(source) -> Pipeline:
    cal = Calibration((1280, 960), (640, 480), ((640, 900), (1200, 480), (640, 60), (80, 480)))
    return Pipeline(source, lambda image: None, cal)


def test_only_live_sources_hand_over_their_newest_frame():
    assert LiveSource.live is True
    assert VideoFileSource.live is False and FolderSource.live is False


def test_a_live_source_read_under_the_minimum_rate_is_slow_and_the_log_says_so_once(caplog):
    pipe = pipeline(Source(live=True, fps=4.0))
    with caplog.at_level(logging.WARNING, logger="sueca.vision.pipeline"):
        first, again = pipe._status(10.0, 5.0), pipe._status(12.0, 7.0)
    assert first.slow and again.slow and first.fps == 4.0
    warned = [r.getMessage() for r in caplog.records if "frames/s" in r.getMessage()]
    assert len(warned) == 1 and "4.0 frames/s" in warned[0]


def test_fast_enough_a_file_a_lost_camera_or_the_first_seconds_are_not_slow():
    # the first seconds: the networks warm up on the first frames
    assert not pipeline(Source(live=True, fps=2.0))._status(SLOW_AFTER_S - 1.0, 3.0).slow
    assert not pipeline(Source(live=True, fps=MIN_LIVE_FPS + 1.5))._status(10.0, 5.0).slow
    # a file gives every frame, however long each takes
    assert not pipeline(Source(live=False, fps=2.0))._status(10.0, 5.0).slow
    # a camera away delivers nothing: that is said as disconnected, not slow
    assert not pipeline(Source(live=True, fps=0.0, connected=False))._status(10.0, 5.0).slow


def test_a_live_source_that_recovers_is_no_longer_slow_and_warns_again_if_it_falls_back(caplog):
    source = Source(live=True, fps=3.0)
    pipe = pipeline(source)
    with caplog.at_level(logging.WARNING, logger="sueca.vision.pipeline"):
        assert pipe._status(6.0, 1.0).slow
        source.status = FrameSourceStatus(spec="cam", connected=True, fps=10.0)
        assert not pipe._status(7.0, 2.0).slow
        source.status = FrameSourceStatus(spec="cam", connected=True, fps=5.0)
        assert pipe._status(8.0, 3.0).slow
    assert sum("frames/s" in r.getMessage() for r in caplog.records) == 2
