"""Close looks with the installed networks (``outliner.close_look``, ``vision/close_look.py``).

The live call is made to leave every card unread (a threshold no reading reaches); the close
looks then read each card lying still, at the still image's threshold, once it has lain
``close_look`` frames, one card a frame, and never a card that is not there.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from sueca.vision.detections import UNREADABLE
from sueca.vision.recognizer import RecognizerConfig, default_model_dir, load_recognizer
from sueca.vision.still import OutlineMemory
from test_recognition_model import _read, make_table

CARDS = [("JH", 560, 440, 10), ("QS", 720, 470, -25), ("AS", 620, 580, 40)]
NONE_READ = 1.01  # the live call's threshold in these tests: no reading reaches it


@pytest.fixture(scope="module")
def rec():
    return load_recognizer()


def with_close_look(rec, after):
    twin = load_recognizer()
    twin.config = replace(rec.config, outliner={**rec.config.outliner, "close_look": after})
    return twin


def test_cards_left_unread_live_are_read_by_close_looks_one_a_frame(rec):
    close = with_close_look(rec, 3)
    frame, corners = make_table(CARDS, card_h=120)
    mem, seen = OutlineMemory(), []
    for _ in range(7):
        seen.append(_read(close(frame, memory=mem, threshold=NONE_READ), corners))
    assert seen[0] == seen[2] == ["", "", ""]            # lying still 3 frames first
    assert [sum(c != "" for c in s) for s in seen[3:6]] == [1, 2, 3]
    assert seen[6] == ["JH", "QS", "AS"]
    assert mem.close.looks == 3 and mem.close.read == 3


def test_without_the_setting_they_stay_unread(rec):
    assert not rec.config.outliner.get("close_look") or rec.config.outliner.get("close_look") > 7
    plain = load_recognizer()
    plain.config = replace(rec.config, outliner={**rec.config.outliner, "close_look": False})
    frame, corners = make_table(CARDS, card_h=120)
    mem = OutlineMemory()
    for _ in range(7):
        d = plain(frame, memory=mem, threshold=NONE_READ)
    assert _read(d, corners) == ["", "", ""] and mem.close.looks == 0


def test_a_blank_card_is_looked_at_and_never_given_a_code(rec):
    close = with_close_look(rec, 2)
    frame, corners = make_table(CARDS[:1], card_h=120)
    frame[500:620, 800:884] = 245                          # a card-sized piece of white stock
    mem = OutlineMemory()
    for _ in range(8):
        d = close(frame, memory=mem, threshold=NONE_READ)
    assert mem.close.looks >= 1
    assert [c for c in d.codes if c != UNREADABLE] == ["JH"]


def test_the_pipeline_looks_only_in_its_play_area(rec):
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline

    pipe = Pipeline(iter(()), with_close_look(rec, 2), Calibration.propose(1280, 960))
    looks = pipe.outline_memory.close
    assert looks.where is not None
    assert looks.where(640, 480, (1280, 960)) and not looks.where(60, 480, (1280, 960))
    assert looks.where(320, 240, (640, 480))             # a frame of another size: scaled


def _config_with(folder, value):
    cfg = json.loads((default_model_dir() / "recognizer.json").read_text())
    cfg["outliner"]["close_look"] = value
    (folder / "recognizer.json").write_text(json.dumps(cfg))
    return folder


@pytest.mark.parametrize("bad", [True, 0, -3, 2.5, "8"])
def test_a_wrong_close_look_setting_is_refused_naming_the_file(tmp_path, bad):
    with pytest.raises(ValueError, match=r"recognizer\.json: outliner\.close_look"):
        RecognizerConfig.load(_config_with(tmp_path, bad))


@pytest.mark.parametrize("good", [False, 1, 8])
def test_the_close_look_settings_load(tmp_path, good):
    assert RecognizerConfig.load(_config_with(tmp_path, good)).outliner["close_look"] == good


def test_the_window_holds_the_box_and_is_a_still_images_tile():
    from sueca.vision.close_look import CloseLooks

    looks = CloseLooks()
    for cx, cy in ((10, 10), (640, 480), (1270, 950)):
        x0, y0, x1, y1 = looks.window(np.float32([cx, cy, 70, 100, 0]), (1280, 960))
        assert (x1 - x0, y1 - y0) == (768, 576) and 0 <= x0 and x1 <= 1280 and 0 <= y0 and y1 <= 960
        assert x0 <= cx <= x1 and y0 <= cy <= y1
