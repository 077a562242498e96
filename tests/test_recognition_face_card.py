"""A face network that reads the whole card (53 classes, ``face_suit.classes = "card"``): its
suit and its rank group (pips counted, or "a court") weigh the readers, its suit checks them
(its rank group too only with ``rank_check``); the rank it gives makes the readers surer of a
card an index read, never of another."""

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


@pytest.mark.parametrize("rank_check", [False, True])
def test_a_face_sure_of_another_card_never_renames(table, rank_check):
    frame, corners = table
    rec = _plain()
    plain = _read(rec(frame), corners)
    assert sum(c not in ("-", UNREADABLE) for c in plain) >= 4
    kept_against_the_count = 0
    for shown in ("9S", "3C", "QH", None):
        rec.face = FaceSuit(SaysCard(shown), fuse=True, rank=True, rank_check=rank_check)
        got = _read(rec(frame), corners)
        for was, now in zip(plain, got):
            if now in ("-", UNREADABLE):
                continue
            assert now == was, (shown, plain, got)  # never another card than the index's own
            if shown is not None:  # kept only where the face shows that suit ...
                assert now[-1] == shown[-1], (shown, got)
                same_group = RANK_GROUP[now[:-1]] == RANK_GROUP[shown[:-1]]
                assert same_group or not rank_check, (shown, got)  # ... and, if asked, that pip count
                kept_against_the_count += not same_group
    # without the rank check a face's pip count cannot withdraw what both corners read sure
    # (the 7C under a face sure of 3C): an unseen deck's pips are what the face miscounts
    assert kept_against_the_count == (0 if rank_check else 1)
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


class SaysFace:
    """A stand-in whole-card face network giving every crop the logits of ``probs`` (53,)."""

    def __init__(self, probs: np.ndarray):
        self.logits = np.log(probs).astype(np.float32)

    def __call__(self, crops):
        return np.repeat(self.logits[None], len(crops), axis=0)


def test_the_rank_check_is_off_unless_asked(table):
    frame, corners = table
    # Bellot's nines, to a face that learnt other decks: a ten or an eight, the nine under 0.05
    miscounted = _face(**{"9S": 0.02, "10S": 0.6, "8S": 0.35, "nothing": 0.03})
    quads = np.asarray(corners[:1], np.float32)
    assert FaceSuit(SaysFace(miscounted), rank=True).check(frame, quads, ["9S"]).tolist() == [False]
    assert FaceSuit(SaysFace(miscounted), rank=True, rank_check=True).check(frame, quads, ["9S"]).tolist() == [True]
    # the suit check stays: a face sure of hearts withdraws the index's spades
    hearts = _face(**{"9H": 0.9, "nothing": 0.1})
    assert FaceSuit(SaysFace(hearts), rank=True).check(frame, quads, ["9S"]).tolist() == [True]
    # the installed model's face weighs by the rank group but checks the suit alone
    face = load_recognizer().face
    assert face.rank and face.fuse and not face.rank_check


class Leans:
    """A stand-in reader: every corner reads ``code`` at ``p`` and ``other`` at 1 - p (after its
    temperature ``t``), the "no readable index" class nowhere."""

    def __init__(self, code: str, other: str, p: float, t: float):
        self.logits = np.full(UNREADABLE_CLASS + 1, -40.0, np.float32)
        self.logits[CARD_CODES.index(code)], self.logits[CARD_CODES.index(other)] = t * np.log(p), t * np.log(1 - p)

    def __call__(self, crops):
        return np.repeat(self.logits[None], len(crops), axis=0)


@pytest.mark.parametrize("rank_, wrong", [("Q", "QS"), ("7", "7S")])
def test_a_court_s_face_counts_for_less(table, rank_, wrong):
    """Both readers lean 0.9 to spades where the card is clubs, and the face agrees with them
    (spades 0.88): a pip card's face shows its suit large and is believed; a court's shows it
    by signs as small as the index's, so its word is raised to ``court_power``."""
    frame, corners = table
    rec = _plain()
    cfg = rec.config
    rec.reader = Leans(wrong, rank_ + "C", 0.9, cfg.temperature)
    rec.second = Leans(wrong, rank_ + "C", 0.9, float(cfg.second_reader["temperature"]))
    face = _face(**{wrong: 0.88, rank_ + "C": 0.12})
    quads = [np.asarray(corners[0], np.float32)]
    read = {}
    for power in (1.0, 0.25):
        rec.face = FaceSuit(SaysFace(face), fuse=True, rank=True, court_power=power)
        codes, confs = rec.read_quads(frame, quads, faces={})
        read[power] = codes[0]
    assert read[1.0] == wrong  # 0.9 x 7.3 against 0.1: 0.985, over the 0.98
    assert read[0.25] == (UNREADABLE if rank_ == "Q" else wrong)


def test_the_installed_face_weighs_courts_less():
    face = load_recognizer().face
    assert face.court_power == 0.25


@pytest.mark.parametrize("bad", [0, -0.5, 1.5, "half"])
def test_a_bad_court_power_is_refused_naming_the_file(tmp_path, bad):
    import json
    import shutil

    from sueca.vision.recognizer import RecognizerConfig

    shutil.copy(MODELS / "recognizer.json", tmp_path / "recognizer.json")
    cfg = json.loads((tmp_path / "recognizer.json").read_text())
    cfg["face_suit"]["court_power"] = bad
    (tmp_path / "recognizer.json").write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match=r"recognizer\.json: face_suit\.court_power"):
        RecognizerConfig.load(tmp_path)
