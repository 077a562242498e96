"""A close-up photo read again with its cards brought to the overhead camera's size.

Every network learnt cards about a tenth of a 1280x960 frame high. In a phone's
close-up of a few cards (a third to two thirds of the frame high) the locator
boxes parts of a card or nothing, and its outline stage starts from those. So
when a still image's largest outline is long (``trigger``, a share of the
frame's short side), the frame is shrunk until that outline is ``target`` of the
short side and pasted in the middle of a canvas of the frame's size (its median
colour around it): on that canvas the whole pipeline sees cards of the size it
learnt. The canvas pass's outlines are mapped back and read again from the full
frame, where the index is many times larger than on the canvas; a card that reads
there nowhere else is added.

Measured on close-up scatter scenes of five held-out decks (``models/EXPERIMENTS.md``,
2026-12-05 tenth session): cards 0.45-0.70 of the frame high 229 of 378 read against
196 (3 wrong against 2), 0.30-0.45 439 of 574 against 405 (3 wrong both); overhead
sizes unchanged. A close-up still image costs about 60-90 ms more.

>>> import numpy as np
>>> frame = np.full((960, 1280, 3), 80, np.uint8)
>>> canvas, (x0, y0), (sw, sh) = shrunk_canvas(frame, 0.25)
>>> canvas.shape, (x0, y0), (sw, sh)
((960, 1280, 3), (480, 360), (320, 240))
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections, outline_boxes
from sueca.vision.readings import outline_iou
from sueca.vision.rectify import longest_side
from sueca.vision.refine import grown

#: An added outline overlapping a card already read this much (IoU) lies on that card: not added.
ON_READ_IOU = 0.3
#: An unread box of the first pass overlapping an added card this much is that card: it goes.
ON_ADDED_IOU = 0.5


def shrunk_canvas(frame: np.ndarray, k: float) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """``frame`` shrunk ``k`` times (area-averaged), centred on a canvas of its own size filled
    with its median colour: (canvas, (x0, y0) where the shrunk frame lies, its (w, h))."""
    h, w = frame.shape[:2]
    sw, sh = max(1, round(w * k)), max(1, round(h * k))
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    canvas = np.empty_like(frame)
    # the cloth's own colour: a grey border would be a table edge the locator learnt to ignore anyway,
    # but a median keeps the letterbox's statistics near the frame's
    canvas[:] = np.median(small.reshape(-1, 3), axis=0).astype(np.uint8)
    x0, y0 = (w - sw) // 2, (h - sh) // 2
    canvas[y0:y0 + sh, x0:x0 + sw] = small
    return canvas, (x0, y0), (sw, sh)


def closeup_pass(recognizer, frame: np.ndarray, dets: CardDetections, threshold: float | None,
                 trigger: float, target: float) -> CardDetections:
    """``dets`` (the still image's own reading of ``frame``) with the cards the canvas pass adds.

    Nothing happens unless the longest outline in ``dets`` is at least ``trigger`` of the
    frame's short side. A card added needs the single-image threshold at least (as a second
    opinion's): read from the full frame on the canvas pass's outline, else as the canvas pass
    read it; its code must be read nowhere else and its outline must not lie on a read card.
    An unread box of ``dets`` on an added card goes (the same card, now read).
    """
    if len(dets) == 0 or dets.corners is None:
        return dets
    short = float(min(frame.shape[:2]))
    size = float(longest_side(dets.corners).max()) / short
    if size < trigger:
        return dets
    canvas, (x0, y0), (sw, sh) = shrunk_canvas(frame, target / size)
    strict = max(recognizer.config.threshold, threshold or 0.0)
    small = recognizer._detect(canvas, None, strict)
    if len(small) == 0:
        return dets
    h, w = frame.shape[:2]
    moved = small.corners - np.array([x0, y0], np.float32)
    back = replace(small, corners=moved.astype(np.float32)).scaled(w / sw, h / sh, (w, h))
    cands = [np.stack([q, grown(q[None], 1.08)[0]]) for q in back.corners]
    codes, confs = recognizer.read_quads(frame, cands, exact=False, threshold=strict)
    if recognizer.face is not None:  # the face rules out a full-frame reading as on the own pass
        out = recognizer.face.check(frame, back.corners, codes, cands)
        codes = [UNREADABLE if o else c for c, o in zip(codes, out)]
    read = [q for q, c in zip(dets.corners, dets.codes) if c != UNREADABLE]
    seen = {c for c in dets.codes if c != UNREADABLE}
    added: list[int] = []
    picked: list[tuple[str, float]] = []
    for i, q in enumerate(back.corners):
        if codes[i] != UNREADABLE:
            code, conf = codes[i], float(confs[i])
        elif back.codes[i] != UNREADABLE:
            code, conf = back.codes[i], float(back.confidence[i])
        else:
            continue
        if code in seen or any(outline_iou(q, r) > ON_READ_IOU for r in read):
            continue
        seen.add(code)
        read.append(q)
        added.append(i)
        picked.append((code, conf))
    if not added:
        return dets
    new = back.corners[added]
    stay = [i for i in range(len(dets)) if dets.codes[i] != UNREADABLE
            or not any(outline_iou(dets.corners[i], q) > ON_ADDED_IOU for q in new)]
    corners = np.concatenate([dets.corners[stay], new]).astype(np.float32)
    conf = np.concatenate([dets.confidence[stay], np.asarray([f for _, f in picked], np.float32)])
    loc = np.concatenate([dets.locate_confidence[stay], back.locate_confidence[added]])
    return CardDetections(outline_boxes(corners, (w, h)), tuple([dets.codes[i] for i in stay] + [c for c, _ in picked]),
                          conf.astype(np.float32), loc.astype(np.float32), corners, np.ones(len(corners), bool))


__all__ = ["ON_READ_IOU", "ON_ADDED_IOU", "shrunk_canvas", "closeup_pass"]
