"""A face network that reads the whole card (53 classes, ``face_suit.classes = "card"``): its
suit and its rank group (pips counted, or "a court") weigh and check the readers; the
rank it gives makes the readers surer of a card an index read, never of another."""

from __future__ import annotations

import numpy as np
import pytest

from sueca.vision.classes import CARD_CODES
from sueca.vision.detections import UNREADABLE
from sueca.vision.face_suit import RANK_GROUP, FaceSuit, disagrees, rank_of_face, suit_of_face, weigh
from sueca.vision.readings import UNREADABLE_CLASS, combine_readers
from sueca.vision.recognizer import default_model_dir, load_recognizer
from test_recognition_model import _read, make_table

MODELS = default_model_dir()
pytestmark = pytest.mark.skipif(not (MODELS / "recognizer.json").is_file(), reason="no committed model")

CARDS = [("2S", 300, 300, 10), ("7C", 640, 300, -20), ("KH", 980, 300, 35), ("AD", 470, 650, 80),
         ("5S", 820, 660, 170)]


def _face(**sure) -> np.ndarray:
    p = np.full(UNREADABLE_CLASS + 1, 1e-6)
    for code, v in sure.items():
        p[UNREADABLE_CLASS if code == "nothing" else CARD_CODES.index(code)] = v
    return p / p.sum()


class SaysCard:
    """A stand-in whole-card face network: sure of ``code`` on every crop (None: says nothing)."""

    def __init__(self, code: str | None):
        self.k = UNREADABLE_CLASS if code is None else CARD_CODES.index(code)

    def __call__(self, crops):
        out = np.zeros((len(crops), UNREADABLE_CLASS + 1), np.float32)
        out[:, self.k] = 12.0
        return out


def test_marginals_of_a_whole_card_face():
    p = _face(**{"8H": 0.6, "8D": 0.2, "QS": 0.1, "KS": 0.05, "nothing": 0.05})[None]
    s = suit_of_face(p)[0]
    assert s.shape == (5,) and abs(s.sum() - 1) < 1e-9
    assert s.round(2).tolist() == [0.15, 0.6, 0.2, 0.0, 0.05]
    r = rank_of_face(p)[0]
    assert r.shape == (12,) and round(float(r[RANK_GROUP["8"]]), 2) == 0.8
    assert round(float(r[RANK_GROUP["Q"]]), 2) == 0.15 and RANK_GROUP["Q"] == RANK_GROUP["K"] == RANK_GROUP["J"]


def test_rank_check_rules_out_a_miscounted_card_only_with_rank():
    face = _face(**{"8H": 0.97, "nothing": 0.03})[None].repeat(3, axis=0)
    codes = ["10H", "8H", "JH"]
    assert disagrees(codes, face, rank=True).tolist() == [True, False, True]
    assert disagrees(codes, face, rank=False).tolist() == [False, False, False]  # same suit: the suit alone cannot
    # a court's figure differs from deck to deck: the face may not tell J from K
    court = _face(**{"KH": 0.97, "nothing": 0.03})[None]
    assert not disagrees(["JH"], court, rank=True)[0]


def test_weighing_by_rank_group_and_saying_nothing():
    p = np.full((2, 53), 1e-4)
    p[:, CARD_CODES.index("8H")], p[:, CARD_CODES.index("10H")] = 0.6, 0.39
    assert combine_readers([p, p], 0.98)[0] == UNREADABLE
    eight = _face(**{"8H": 0.95, "nothing": 0.05})
    code, conf = combine_readers([weigh(p, eight, rank=True)] * 2, 0.98)
    assert code == "8H" and conf > 0.98
    assert combine_readers([weigh(p, eight, rank=False)] * 2, 0.98)[0] == UNREADABLE  # the suit says nothing new
    assert np.allclose(weigh(p, _face(nothing=1.0), rank=True), p / p.sum(axis=1, keepdims=True))


@pytest.fixture(scope="module")
def table():
    return make_table(CARDS)


def _plain():
    rec = load_recognizer()
    rec.face = None
    return rec


def test_a_face_sure_of_another_rank_withdraws_and_never_renames(table):
    frame, corners = table
    rec = _plain()
    plain = _read(rec(frame), corners)
    assert sum(c not in ("-", UNREADABLE) for c in plain) >= 4
    for shown in ("9S", "3C", "QH", None):
        rec.face = FaceSuit(SaysCard(shown), fuse=True, rank=True)
        got = _read(rec(frame), corners)
        for was, now in zip(plain, got):
            if now in ("-", UNREADABLE):
                continue
            assert now == was, (shown, plain, got)  # never another card than the index's own
            if shown is not None:  # kept only where the face shows that suit and rank group
                assert now[-1] == shown[-1] and RANK_GROUP[now[:-1]] == RANK_GROUP[shown[:-1]], (shown, got)
    # a face that says nothing changes nothing
    rec.face = FaceSuit(SaysCard(None), fuse=True, rank=True)
    assert _read(rec(frame), corners) == plain


def test_the_face_of_the_card_itself_keeps_every_reading(table):
    frame, corners = table
    rec = _plain()
    plain = _read(rec(frame), corners)
    for i, (code, *_) in enumerate(CARDS):
        if plain[i] != code:
            continue
        rec.face = FaceSuit(SaysCard(code), fuse=True, rank=True)
        assert _read(rec(frame), corners)[i] == code


class HalfReads:
    """A stand-in reader: every corner reads 8H, with 10H close behind."""

    def __call__(self, crops):
        out = np.zeros((len(crops), UNREADABLE_CLASS + 1), np.float32)
        out[:, CARD_CODES.index("8H")], out[:, CARD_CODES.index("10H")] = 6.0, 5.6
        out[:, UNREADABLE_CLASS] = -6.0
        return out


def test_a_miscounting_face_cannot_turn_the_index_s_8_into_a_10(table):
    frame, corners = table
    rec = _plain()
    rec.reader = rec.second = HalfReads()
    quads = [np.asarray(corners[0], np.float32)]
    eight = FaceSuit(SaysCard("8H"), fuse=True, rank=True)
    rec.face = eight
    assert rec.read_quads(frame, quads, faces={})[0] == ["8H"]  # the face agrees: surer of the 8
    rec.face = FaceSuit(SaysCard("10H"), fuse=True, rank=True)
    assert rec.read_quads(frame, quads, faces={})[0] == [UNREADABLE]  # never the face's own 10
    rec.face = FaceSuit(SaysCard("10H"), fuse=True, rank=False)  # the suit alone: the index's 8, unsure
    assert rec.read_quads(frame, quads, faces={})[0] == [UNREADABLE]
