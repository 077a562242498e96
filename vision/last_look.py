"""A box still unread at the end of a still image, read once more where its face agrees.

After every other look, a box left unread is read on its final outline at a lower
threshold (``outliner.last_look``, 0.9 installed, against the model's 0.98), and the
reading is kept only where the face network's own most likely card has the same suit
and the same rank group (a pip count, or "a court"): two witnesses that read the card
by different marks (the index, the pips or figure) agree on it. A court, whose face
says less, needs :data:`COURT_THRESHOLD`. Measured (``models/EXPERIMENTS.md``, twentieth
session): 1 more held-out test card and 6 more printed ones, none wrong, validation and
white table tops without a new wrong reading (courts at 0.9 let a QC through on a white
top's QS). Still images at the model's threshold only: a referee who asks for a
stricter one gets it, and on video each frame is one vote.

>>> import numpy as np
>>> from sueca.vision.classes import CARD_CLASS
>>> face = np.zeros(53); face[CARD_CLASS["QH"]] = 0.9
>>> face_agrees("KH", face), face_agrees("QD", face), face_agrees("9H", face)
(True, False, False)
"""

from __future__ import annotations

import numpy as np

from sueca.vision.anchored import unread
from sueca.vision.classes import CARD_CODES, SUITS
from sueca.vision.detections import UNREADABLE
from sueca.vision.face_suit import RANK_GROUP

#: A court's face tells only "a court" and its suit, in signs as small as the index's: a court
#: read in the last look needs this much (measured: at 0.9 a QC was read on a white top's QS at
#: 0.920; courts at 0.95 kept 6 of the 7 printed cards gained, models/EXPERIMENTS.md).
COURT_THRESHOLD = 0.95


def is_court(code: str) -> bool:
    """Whether ``code`` is a jack, queen or king: one rank group for the face, whose figures
    differ from deck to deck (:data:`sueca.vision.face_suit.RANK_GROUP`)."""
    return RANK_GROUP[code[:-1]] == RANK_GROUP["J"]


def face_agrees(code: str, face: np.ndarray) -> bool:
    """Whether the face's most likely card (``face``: a whole-card face's 53 probabilities, 52
    cards first) has the suit and rank group of ``code``; a suit-only face's (5: S, H, D, C,
    "says nothing"), whether its most likely suit is the code's.

    >>> face_agrees("7C", np.array([0.1, 0.1, 0.1, 0.6, 0.1])), face_agrees("7S", np.array([0.1, 0.1, 0.1, 0.6, 0.1]))
    (True, False)
    """
    face = np.asarray(face)
    if len(face) == len(SUITS) + 1:
        return SUITS[int(np.argmax(face[:len(SUITS)]))] == code[-1]
    top = CARD_CODES[int(np.argmax(face[:len(CARD_CODES)]))]
    return top[-1] == code[-1] and RANK_GROUP[top[:-1]] == RANK_GROUP[code[:-1]]


def last_look(recognizer, frame: np.ndarray, corners: np.ndarray, codes: list[str], confs: np.ndarray,
              threshold: float, ruled_out=frozenset()) -> int:
    """The unread outlines among ``corners`` read at ``threshold``, a reading kept where the
    face agrees (``codes`` and ``confs`` in place), no other box reads that card and it is none
    of ``ruled_out`` (codes the face-suit check withdrew on this frame). Returns how many it read."""
    todo = unread(codes)
    if not todo or recognizer.face is None:
        return 0
    seen = {c for c in codes if c != UNREADABLE} | set(ruled_out)
    got, found = recognizer.read_quads(frame, [corners[i][None] for i in todo], exact=False,
                                       threshold=threshold, unwanted=frozenset(seen))
    read = [(i, c, float(f)) for i, c, f in zip(todo, got, found) if c != UNREADABLE and c not in seen]
    if not read:
        return 0
    faces = recognizer.face.probabilities(frame, np.stack([corners[i] for i, _, _ in read]))
    n = 0
    for (i, code, conf), face in zip(read, faces):
        if code in seen or not face_agrees(code, face):
            continue
        if is_court(code) and conf < max(threshold, COURT_THRESHOLD):
            continue
        codes[i], confs[i] = code, conf
        seen.add(code)
        n += 1
    return n


__all__ = ["COURT_THRESHOLD", "is_court", "face_agrees", "last_look"]
