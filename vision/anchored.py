"""A partly covered card's outline drawn at the size of the cards read beside it.

Where another card covers most of one, the outliner draws what it sees: the outline
often shrinks to the part in view, or spans both cards, and the corner crops cut
from it miss the index that shows. Yet the cards on one table are one deck, and the
overhead camera keeps them about one size in the frame, so the cards the readers
did read give the size of every card there. What an unread outline gets right more
often than its size is one of its corners and the directions of the two sides that
meet there. So each of its four corners is taken in turn for the card's own, and a
card of the frame's size is drawn from it along those two sides, the long side
either way round: eight outlines, which the readers judge as they judge any
candidate outlines (:meth:`~sueca.vision.recognizer.Recognizer.read_quads`).

Nothing here is learnt; an outline that reads nothing, or reads a card the frame
already holds, adds nothing. Still images only (``outliner.anchored`` in the
model's config): on video each card was read whole when it was played.

>>> q = np.array([[10, 10], [40, 10], [40, 50], [10, 50]], np.float32)
>>> anchored_outlines(q, (60.0, 90.0))[0].tolist()
[[10.0, 10.0], [70.0, 10.0], [70.0, 100.0], [10.0, 100.0]]
"""

from __future__ import annotations

import numpy as np

from sueca.vision.detections import UNREADABLE
from sueca.vision.rectify import clockwise


def card_size(corners: np.ndarray, codes: list[str]) -> tuple[float, float] | None:
    """(short side, long side) in pixels of this frame's cards: the medians over the
    outlines ``corners`` (N, 4, 2) whose ``codes`` read a card; None where none did.

    >>> q = np.array([[[0, 0], [60, 0], [60, 90], [0, 90]], [[0, 0], [9, 0], [9, 9], [0, 9]]], np.float32)
    >>> card_size(q, ["7H", UNREADABLE])
    (60.0, 90.0)
    """
    read = [i for i, c in enumerate(codes) if c != UNREADABLE]
    if not read:
        return None
    q = np.asarray(corners, np.float32).reshape(-1, 4, 2)[read]
    a = np.linalg.norm(q[:, 1] - q[:, 0], axis=1)
    b = np.linalg.norm(q[:, 3] - q[:, 0], axis=1)
    return float(np.median(np.minimum(a, b))), float(np.median(np.maximum(a, b)))


def anchored_outlines(quad: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """Outlines (8, 4, 2), clockwise, of a card of ``size`` (short, long) that share a corner
    of ``quad`` and the directions of its two sides from there: per corner, the short side
    along the side to the next corner, then the long side along it. A corner whose sides
    have no length gives none."""
    q = clockwise(np.asarray(quad, np.float32))
    short, long_ = size
    out = []
    for k in range(4):
        p = q[k]
        u, v = q[(k + 1) % 4] - p, q[(k - 1) % 4] - p
        nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        if nu < 1e-3 or nv < 1e-3:
            continue
        u, v = u / nu, v / nv
        for a, b in ((short, long_), (long_, short)):
            out.append(clockwise(np.array([p, p + a * u, p + a * u + b * v, p + b * v], np.float32)))
    return np.stack(out).astype(np.float32) if out else np.zeros((0, 4, 2), np.float32)


def anchored_look(recognizer, frame: np.ndarray, corners: np.ndarray, codes: list[str], confs: np.ndarray,
                  threshold: float | None, faces: dict | None = None, skip: np.ndarray | None = None) -> int:
    """Unread outlines read again from :func:`anchored_outlines` at the frame's card size
    (in place): a card read there, and not read elsewhere in the frame, takes the anchored
    outline that reads it best. Returns how many cards it read.

    ``faces``: as :meth:`~sueca.vision.recognizer.Recognizer.read_quads`. The caller's own
    candidates are left as they were, so the face check looks at what the box showed: the
    anchored outline spans the card lying on top as well.
    """
    todo = unread(codes, skip)
    size = card_size(corners, codes)
    if not todo or size is None:
        return 0
    cands = [anchored_outlines(corners[i], size) for i in todo]
    todo, cands = [i for i, c in zip(todo, cands) if len(c)], [c for c in cands if len(c)]
    hits = read_again(recognizer, frame, cands, codes, threshold, faces)
    for k, code, conf in hits:
        # the outline it is reported with: the one that reads the card best on its own
        each, each_conf = recognizer.read_quads(frame, [c[None] for c in cands[k]], exact=False, threshold=0.0)
        best = [j for j, c in enumerate(each) if c == code]
        j = max(best, key=lambda j: float(each_conf[j])) if best else 0
        i = todo[k]
        corners[i], codes[i], confs[i] = cands[k][j], code, conf
    return len(hits)


def unread(codes: list[str], skip: np.ndarray | None = None) -> list[int]:
    """Indices of the boxes ``codes`` leave unread, but those ``skip`` marks (the second opinions').

    >>> unread(["7H", UNREADABLE, UNREADABLE], np.array([False, False, True]))
    [1]
    """
    return [i for i, c in enumerate(codes) if c == UNREADABLE and (skip is None or not skip[i])]


def read_again(recognizer, frame: np.ndarray, cands: list, codes: list[str], threshold: float | None,
               faces: dict | None = None) -> list[tuple[int, str, float]]:
    """Unread boxes' candidate outlines ``cands`` (one (k, 4, 2) array a box) read together:
    (box, code, confidence) of each card read there that the frame's ``codes`` do not hold
    yet, surer first; two boxes reading one card leave it to the surer."""
    seen = frozenset(c for c in codes if c != UNREADABLE)
    new_codes, new_confs = recognizer.read_quads(frame, cands, exact=False, threshold=threshold, faces=faces,
                                                 unwanted=seen)
    hits, taken = [], set()
    for k in sorted(range(len(cands)), key=lambda k: -float(new_confs[k])):
        code = new_codes[k]
        if code == UNREADABLE or code in seen or code in taken:
            continue
        taken.add(code)
        hits.append((k, code, float(new_confs[k])))
    return hits


__all__ = ["card_size", "anchored_outlines", "anchored_look", "unread", "read_again"]
