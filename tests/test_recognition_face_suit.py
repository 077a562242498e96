"""The face-suit check (``sueca.vision.face_suit``): it only withdraws readings, and only those
whose suit the face rules out; its config travels through ``recognizer.json``."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from sueca.vision.detections import UNREADABLE
from sueca.vision.face_suit import FACE_SPEC, SAYS_NOTHING, SUITS, FaceSuit, face_crops
from sueca.vision.recognizer import RecognizerConfig, default_model_dir, load_recognizer
from test_recognition_model import _read, make_table

MODELS = default_model_dir()
pytestmark = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file(), reason="no committed model")

CARDS = [("2S", 300, 300, 10), ("7C", 640, 300, -20), ("KH", 980, 300, 35), ("AD", 470, 650, 80),
         ("5S", 820, 660, 170)]


class Says:
    """A stand-in network: every crop gets logits sure of class ``k`` (0-3: S H D C, 4: nothing)."""

    def __init__(self, k: int):
        self.k, self.seen = k, []

    def __call__(self, crops):
        self.seen.append(crops.shape)
        out = np.zeros((len(crops), SAYS_NOTHING + 1), np.float32)
        out[:, self.k] = 12.0
        return out


@pytest.fixture(scope="module")
def table():
    return make_table(CARDS)


def _plain():
    rec = load_recognizer()
    rec.face = None  # the committed model's own check, if any, off: the readings to compare with
    return rec


def test_crops_show_each_card_upright_both_ways(table):
    frame, corners = table
    crops = face_crops(frame, np.stack(corners))
    assert crops.shape == (2 * len(CARDS), *FACE_SPEC.size, 3) and crops.dtype == np.uint8
    # the two views of a card are the same picture turned half round
    assert np.abs(crops[0].astype(int) - crops[1][::-1, ::-1].astype(int)).mean() < 12


def test_a_sure_face_of_another_suit_withdraws_only_those_readings(table):
    frame, corners = table
    rec = _plain()
    plain = _read(rec(frame), corners)
    assert plain.count(UNREADABLE) <= 1 and sum(c != "-" for c in plain) >= 4
    for k, suit in enumerate(SUITS):
        rec.face = FaceSuit(Says(k))
        got = _read(rec(frame), corners)
        want = [c if c in ("-", UNREADABLE) or c[-1] == suit else UNREADABLE for c in plain]
        assert got == want, (suit, plain, got)


def test_a_face_that_says_nothing_or_is_unsure_changes_nothing(table):
    frame, corners = table
    rec = _plain()
    plain = rec(frame)
    rec.face = FaceSuit(Says(SAYS_NOTHING))
    same = rec(frame)
    assert same.codes == plain.codes and np.allclose(same.confidence, plain.confidence)
    rec.face = FaceSuit(Says(3), temperature=40.0)  # softened: clubs 0.25, each other suit 0.19: none ruled out
    assert rec(frame).codes == plain.codes


def test_config_round_trip_and_loading(tmp_path):
    m = tmp_path / "m"
    shutil.copytree(MODELS, m, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    cfg = json.loads((m / "recognizer.json").read_text())
    cfg["face_suit"] = {"onnx": "reader.onnx", "pt": "reader.pt", "temperature": 1.5, "sure": 0.95,
                         "doubt": 0.01}
    (m / "recognizer.json").write_text(json.dumps(cfg))
    loaded = RecognizerConfig.load(m)
    assert loaded.face_suit["sure"] == 0.95 and loaded.to_dict()["face_suit"] == cfg["face_suit"]
    assert "face_suit" not in replace(loaded, face_suit=None).to_dict()
    rec = load_recognizer(m)
    assert rec.face is not None and rec.face.sure == 0.95 and rec.face.doubt == 0.01 and rec.face.temperature == 1.5


def test_on_video_a_still_card_face_is_looked_at_once(table):
    from sueca.vision.still import OutlineMemory

    frame, corners = table
    rec = _plain()
    net = Says(SAYS_NOTHING)
    rec.face = FaceSuit(net)
    memory = OutlineMemory()
    first = rec(frame, memory=memory, threshold=rec.config.video_threshold)
    looked = sum(n for n, *_ in net.seen)
    assert looked >= 2 * 4  # two views of each card read
    again = rec(frame, memory=memory, threshold=rec.config.video_threshold)
    assert again.codes == first.codes and sum(n for n, *_ in net.seen) == looked
    # a face that rules out the suit read, kept with the crops: still withdrawn next frame
    rec.face = FaceSuit(Says(3))
    memory = OutlineMemory()
    one = _read(rec(frame, memory=memory, threshold=rec.config.video_threshold), corners)
    two = _read(rec(frame, memory=memory, threshold=rec.config.video_threshold), corners)
    assert one == two and all(c in ("-", UNREADABLE) or c.endswith("C") for c in two)


def test_fused_a_face_that_says_nothing_changes_nothing_and_a_suit_only_helps_its_own(table):
    frame, corners = table
    rec = _plain()
    plain = rec(frame)
    plain_read = dict(zip(_read(plain, corners), range(len(corners))))
    net = Says(SAYS_NOTHING)
    rec.face = FaceSuit(net, fuse=True)
    same = rec(frame)
    assert same.codes == plain.codes and np.allclose(same.confidence, plain.confidence)
    # each card's face looked at once in the frame, though read, checked and looked at again
    assert sum(n for n, *_ in net.seen) <= 2 * len(same.codes) + 2 * 8
    for k, suit in enumerate(SUITS):
        rec.face = FaceSuit(Says(k), fuse=True)
        dets = rec(frame)
        got = _read(dets, corners)
        for code in plain_read:
            if code not in ("-", UNREADABLE) and code.endswith(suit):
                assert code in got  # its own suit's cards stay read
        assert all(c in ("-", UNREADABLE) or c.endswith(suit) for c in got)


def test_weighing_by_the_face_settles_a_suit_the_readers_half_read():
    from sueca.vision.classes import CARD_CODES
    from sueca.vision.face_suit import weigh
    from sueca.vision.readings import combine_readers

    p = np.full((2, 53), 1e-4)
    p[:, CARD_CODES.index("3C")], p[:, CARD_CODES.index("3S")] = 0.55, 0.44  # both corners, both readers
    assert combine_readers([p, p], 0.9)[0] == UNREADABLE
    spades = np.array([0.995, 0.001, 0.001, 0.002, 0.001])
    code, conf = combine_readers([weigh(p, spades), weigh(p, spades)], 0.9)
    assert code == "3S" and conf > 0.99
    # the rank still comes from the index: a face cannot make a 3 a 4
    q = np.full((2, 53), 1e-4)
    q[:, CARD_CODES.index("3S")], q[:, CARD_CODES.index("4S")] = 0.5, 0.49
    assert combine_readers([weigh(q, spades), weigh(q, spades)], 0.9)[0] == UNREADABLE
