"""A box still unread at the end of a still image, read lower where its face agrees
(``vision/last_look.py``, ``outliner.last_look``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sueca.vision import last_look as lk
from sueca.vision.classes import CARD_CLASS
from sueca.vision.recognizer import default_model_dir, load_recognizer
from sueca.vision.still import OutlineMemory

pytestmark = pytest.mark.skipif(not (default_model_dir() / "recognizer.json").is_file(), reason="no committed model")


def _face(code, p=0.9):
    f = np.full(53, (1 - p) / 52)
    f[CARD_CLASS[code]] = p
    return f


def test_the_face_agrees_by_suit_and_rank_group():
    assert lk.face_agrees("7H", _face("7H")) and lk.face_agrees("JS", _face("KS"))
    assert not lk.face_agrees("7H", _face("7D")) and not lk.face_agrees("7H", _face("8H"))
    assert not lk.face_agrees("AS", _face("KS"))  # an ace is no court
    assert [lk.is_court(c) for c in ("10C", "QD", "AH", "JS", "KH")] == [False, True, False, True, True]


class _Staged:
    """read_quads and the face replaced by a fixed story, the asks recorded."""

    def __init__(self, reads, faces):
        self.reads, self.faces, self.asked = reads, faces, []
        self.face = self

    def read_quads(self, frame, quads, exact, threshold, unwanted):
        self.asked.append((len(quads), threshold, set(unwanted)))
        return [self.reads[k] for k in range(len(quads))], np.full(len(quads), 0.93, np.float32)

    def probabilities(self, frame, corners):
        return np.stack([_face(self.faces.pop(0)) for _ in corners])


def test_a_court_needs_more():
    corners = np.zeros((2, 4, 2), np.float32)
    codes, confs = ["", ""], np.zeros(2, np.float32)
    staged = _Staged(["QS", "7S"], ["KS", "7S"])  # both read at 0.93, both faces agreeing
    assert lk.COURT_THRESHOLD > 0.93
    assert lk.last_look(staged, None, corners, codes, confs, 0.9) == 1 and codes == ["", "7S"]


def test_unread_boxes_are_read_lower_and_kept_where_the_face_agrees():
    corners = np.zeros((5, 4, 2), np.float32)
    codes = ["2C", "", "", "", ""]
    confs = np.array([0.99, 0.3, 0.3, 0.3, 0.3], np.float32)
    # the four unread boxes read: 7H (face 7H), 9S (face 9C: another suit), 2C (read already), nothing
    staged = _Staged(["7H", "9S", "2C", ""], ["7H", "9C"])
    assert lk.last_look(staged, None, corners, codes, confs, 0.9) == 1
    assert codes == ["2C", "7H", "", "", ""] and confs[1] == pytest.approx(0.93) and confs[2] == pytest.approx(0.3)
    assert staged.asked == [(4, 0.9, {"2C"})]
    # a code the face-suit check withdrew on this frame is not taken back
    codes, confs = ["2C", "", "", "", ""], np.zeros(5, np.float32)
    staged = _Staged(["7H", "", "", ""], ["7H"])
    assert lk.last_look(staged, None, corners, codes, confs, 0.9, {"7H"}) == 0 and codes[1] == ""
    assert staged.asked == [(4, 0.9, {"2C", "7H"})]


def test_the_installed_model_reads_a_card_more_only_on_a_still_image_at_its_own_threshold(monkeypatch):
    from sueca.vision.train_data import render
    from sueca.vision.train_eval import match

    on = load_recognizer()
    assert on.config.outliner.get("last_look") == 0.9
    off = load_recognizer()
    off.config = replace(off.config, outliner={**off.config.outliner, "last_look": False})
    # held-out test scene 900026: the JS of a tight spread is read at 0.974 on its last look and
    # the face's own card is a court of spades (the test set's card gained, EXPERIMENTS.md)
    scene = render(900026, (1280, 960), "test")

    def right(dets):
        pairs = dict(match(dets, scene.cards))
        for i, code in enumerate(dets.codes):
            if code:
                assert i in pairs and scene.cards[pairs[i]].code == code, code
        return {c for c in dets.codes if c}

    # the whole frame: the tiles find the card in their own way
    with_look, without = right(on(scene.image, tiles=False)), right(off(scene.image, tiles=False))
    assert with_look - without == {"JS"} and without <= with_look
    # a threshold asked: as asked
    assert "JS" not in right(on(scene.image, threshold=on.config.threshold, tiles=False))
    # video reads each frame at its own lower threshold, one vote a frame: never the last look
    calls = []
    monkeypatch.setattr(lk, "last_look", lambda *a, **k: calls.append(1) or 0)
    on(scene.image, memory=OutlineMemory(), threshold=on.config.video_threshold)
    assert calls == []
    on(scene.image, tiles=False)
    assert calls == [1]


@pytest.mark.parametrize("value,ok", [(0.9, True), (False, True), (0.5, True), (True, False), (1.0, False),
                                      (0.3, False), ("0.9", False)])
def test_the_last_look_setting_is_checked_naming_the_file(tmp_path, value, ok):
    from test_recognition_shrunk import assert_outliner_setting

    assert_outliner_setting(tmp_path, "last_look", value, ok)
