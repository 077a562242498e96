"""Work a still image's readings can skip without changing them: a card read clearly on its
first outline is not read on its others (``reader.lazy``), and a card a caller drops anyway
is not judged by the second reader (``read_quads(unwanted=...)``, the spread search's)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sueca.datasets.scene import render_scene
from sueca.vision.detections import UNREADABLE
from sueca.vision.recognizer import default_model_dir, load_recognizer
from test_recognition_crop_memory import Counting  # a reader that counts its crops
from test_recognition_model import _read, make_table

MODELS = default_model_dir()
pytestmark = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file(), reason="no committed model")

LAYOUT = [("8H", 250, 250, 10), ("9S", 520, 260, -35), ("10D", 800, 240, 95), ("AS", 1050, 300, 180),
          ("7C", 300, 650, 200), ("QH", 620, 640, 60), ("KD", 930, 680, -120)]


def _pair(lazy: bool):
    rec = load_recognizer()
    rec.config = dataclasses.replace(rec.config, lazy=lazy)
    rec.reader, rec.second = Counting(rec.reader), Counting(rec.second)
    return rec


def test_installed_model_reads_lazily():
    assert load_recognizer().config.lazy


def test_lazy_reads_the_same_cards_from_fewer_crops():
    lazy, eager = _pair(True), _pair(False)
    frame, corners = make_table(LAYOUT)
    got = _read(lazy(frame), corners)
    assert got == _read(eager(frame), corners)
    assert sum(g == c for g, (c, *_) in zip(got, LAYOUT)) >= 6
    assert lazy.reader.crops < 0.8 * eager.reader.crops, (lazy.reader.crops, eager.reader.crops)
    assert lazy.second.crops < eager.second.crops
    for seed in (910_010, 910_011, 910_012):  # scenes of the held-out styles: piles, fans, hands
        image = render_scene(seed, (1280, 960), "test").image
        a, b = lazy(image), eager(image)
        read_a = {c for c in a.codes if c != UNREADABLE}
        read_b = {c for c in b.codes if c != UNREADABLE}
        assert len(read_a ^ read_b) <= 1, (read_a, read_b)


def test_lazy_is_off_on_video():
    """Video keeps each candidate's readings in its crop memory: all are read."""
    from sueca.vision.still import OutlineMemory

    lazy, eager = _pair(True), _pair(False)
    frame, _ = make_table(LAYOUT)
    lazy(frame, memory=OutlineMemory())
    eager(frame, memory=OutlineMemory())
    assert lazy.reader.crops == eager.reader.crops


def test_unwanted_codes_are_not_asked_of_the_second_reader():
    rec = _pair(False)
    frame, corners = make_table(LAYOUT[:3])
    quads = [np.asarray(q, np.float32).reshape(1, 4, 2) for q in corners]
    codes, _ = rec.read_quads(frame, quads, exact=False)
    assert codes == ["8H", "9S", "10D"]
    asked = rec.second.crops
    rec.second.crops = 0
    codes2, _ = rec.read_quads(frame, quads, exact=False, unwanted=frozenset({"8H", "10D"}))
    assert codes2 == codes  # as the first reader read them
    assert rec.second.crops == asked // 3  # only the 9S's crops
