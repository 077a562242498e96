"""A still image's tiles read side by side (:data:`sueca.vision.tiles.TILES_AT_ONCE`)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sueca.vision.detections import UNREADABLE, CardDetections
from sueca.vision.tiles import TILES_AT_ONCE, tiled_look
from tests.test_recognition_tiles import SIZE, Tiled, cards, coded_frame, rect


class Meeting(Tiled):
    """:class:`Tiled`, whose tiles wait for each other in pairs: read one after another, the
    first waits alone and the barrier breaks."""

    def __init__(self, frame_cards):
        super().__init__(frame_cards)
        self.barrier = threading.Barrier(2, timeout=20)
        self.threads = set()

    def __call__(self, tile, view):
        self.threads.add(threading.get_ident())
        self.barrier.wait()
        return super().__call__(tile, view)


def test_tiles_read_side_by_side_give_the_same_cards_in_the_same_places():
    w, h = SIZE
    truth = cards([rect(1950, 1450), rect(200, 200), rect(3700, 2700), rect(2300, 300)], ["AH", "7S", "QC", "KD"])
    whole = cards([rect(1951, 1451)], ["AH"])
    alone = tiled_look(Tiled(truth), coded_frame(w, h), whole, hand_read=True)
    read = Meeting(truth)
    together = tiled_look(read, coded_frame(w, h), whole, hand_read=True, at_once=2)
    assert len(read.threads) == 2 and len(read.seen) == 4  # two tiles at a time, on two threads
    assert together.codes == alone.codes
    assert np.array_equal(together.corners, alone.corners) and np.array_equal(together.confidence, alone.confidence)
    # one at a time (the default), the tiles do not meet
    lonely = Meeting(truth)
    lonely.barrier = threading.Barrier(2, timeout=0.2)
    with pytest.raises(threading.BrokenBarrierError):
        tiled_look(lonely, coded_frame(w, h), CardDetections.empty())


def test_a_tiles_error_reaches_the_caller():
    def broken(tile, view):
        raise ValueError("tile unreadable")

    with pytest.raises(ValueError, match="tile unreadable"):
        tiled_look(broken, coded_frame(*SIZE), CardDetections.empty(), at_once=2)


def test_the_recognizer_reads_its_tiles_side_by_side_and_finds_the_same_cards():
    from sueca.vision.onnx_backend import available_cores
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render

    rec = load_recognizer()
    assert rec.tiles_at_once == max(1, min(TILES_AT_ONCE, available_cores()))
    assert load_recognizer(threads=1).tiles_at_once == 1  # one core asked for: one tile at a time
    frame = render(900005, (1280, 960), "test").image
    rec.tiles_at_once = 2
    names = []
    tile_reader = rec._tile_reader

    def spy(how):
        twin = tile_reader(how)
        sized = twin._sized

        def noted(*a, **k):
            names.append(threading.current_thread().name)
            return sized(*a, **k)

        twin._sized = noted
        return twin

    rec._tile_reader = spy
    together = rec(frame)
    assert len(names) == 4 and all(n.startswith("sueca-tiles") for n in names)
    rec.tiles_at_once = 1
    names.clear()
    alone = rec(frame)
    assert names == [threading.current_thread().name] * 4
    assert together.codes == alone.codes and len([c for c in alone.codes if c != UNREADABLE]) >= 4
    assert np.array_equal(together.corners, alone.corners)
    assert np.array_equal(together.confidence, alone.confidence)
