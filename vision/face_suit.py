"""The suit from the card's face: a check on the readers' suit.

The readers read a corner index whose suit sign is 4-6 px on a café camera; some printed
decks' small spades and clubs are read as each other, frame after frame and sure of it
(``models/EXPERIMENTS.md``, 2026-12-05). The face shows the suit large: the pips of a
number card, the signs by a court's figure. A small network (the reader's, 5 classes:
S, H, D, C and "the face says nothing": face down, mostly covered, no card) looks at the
whole card rectified to 64x48; where it is sure of a suit other than the one read,
the reading is withdrawn (reported unreadable: the referee can be asked, a wrong card
corrupts the score). It never makes a reading, only takes one back.

>>> probs = np.array([[0.01, 0.0, 0.0, 0.97, 0.02],   # sure of clubs
...                   [0.5, 0.0, 0.0, 0.45, 0.05],    # not sure of anything
...                   [0.0, 0.0, 0.0, 0.0, 1.0]])     # face says nothing
>>> disagrees(["2S", "3S", "4S"], probs, 0.9).tolist()
[True, False, False]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sueca.vision.detections import UNREADABLE
from sueca.vision.readings import softmax
from sueca.vision.rectify import CropSpec, crop_top_left, portrait_orderings

#: The whole card and a little around it (an outline a few percent off still shows it all).
FACE_SPEC = CropSpec(box=(-0.02, -0.02, 1.02, 1.02), size=(64, 48), channels=3)
SUITS = "SHDC"
SAYS_NOTHING = 4  # the fifth class


def face_crops(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(2N, 64, 48, 3) uint8: each outline of ``corners`` (N, 4, 2) upright, then turned 180 degrees."""
    out = [crop_top_left(frame, o, FACE_SPEC) for q in np.asarray(corners, np.float32).reshape(-1, 4, 2)
           for o in portrait_orderings(q)[:2]]
    return np.stack(out) if out else np.zeros((0, *FACE_SPEC.size, 3), np.uint8)


def disagrees(codes, probs: np.ndarray, sure: float) -> np.ndarray:
    """Per card: the face is at least ``sure`` of a suit other than the code's (unread codes: False)."""
    probs = np.asarray(probs, np.float64).reshape(len(codes), -1)
    out = np.zeros(len(codes), bool)
    for i, code in enumerate(codes):
        if code == UNREADABLE:
            continue
        k = int(probs[i].argmax())
        out[i] = k < SAYS_NOTHING and probs[i, k] >= sure and SUITS[k] != code[-1]
    return out


@dataclass
class FaceSuit:
    """``net(crops) -> logits`` (N, 5) on :data:`FACE_SPEC` crops; its temperature; ``sure``:
    the probability of another suit at which a reading is withdrawn."""

    net: object
    temperature: float = 1.0
    sure: float = 0.9

    def probabilities(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """(N, 5): the two upright views of each card averaged."""
        crops = face_crops(frame, corners)
        if not len(crops):
            return np.zeros((0, 5))
        p = softmax(self.net(crops), self.temperature)
        return p.reshape(-1, 2, p.shape[1]).mean(axis=1)

    def check(self, frame: np.ndarray, corners: np.ndarray, codes: list[str]) -> np.ndarray:
        """Which of the read cards the face contradicts (bool per card; unread cards False)."""
        ask = [i for i, c in enumerate(codes) if c != UNREADABLE]
        out = np.zeros(len(codes), bool)
        if ask:
            probs = self.probabilities(frame, np.asarray(corners)[ask])
            out[ask] = disagrees([codes[i] for i in ask], probs, self.sure)
        return out
